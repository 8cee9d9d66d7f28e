import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { readMigrations, runMigrations } from '../server/src/platform/db/migrations';
import { createPostgresDb } from '../server/src/platform/db/postgres';
import { databaseUrl, type TestDatabaseInfo, testServerUrl } from './helpers/engine';

const TEMPLATE_LOCK_KEY = 4_242_002;

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Creates (once per set of migrations) a migrated template database; each test file then gets a
 * fresh copy of it in milliseconds. Built under a temporary name and renamed, so an interrupted
 * build never leaves a half-migrated template behind.
 */
async function ensureTemplate(adminUrl: string): Promise<string> {
  const migrations = await readMigrations();
  const digest = createHash('sha256')
    .update(migrations.map((m) => `${m.name}:${m.checksum}`).join('\n'))
    .digest('hex')
    .slice(0, 16);
  const template = `orbita_tpl_${digest}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
    if (exists.rowCount === 0) {
      const building = `${template}_building`;
      await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${building} TEMPLATE template0`);
      const db = createPostgresDb(databaseUrl(adminUrl, building), { poolMax: 1 });
      try {
        await runMigrations(db);
      } finally {
        await db.close();
      }
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${template}`);
    }
    // Templates of older migration sets are no longer needed; the newest few stay, since runs of other
    // checkouts (with other migrations) may be creating their databases from them right now.
    const stale = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'orbita\\_tpl\\_%' AND datname <> $1 AND datname NOT LIKE '%\\_building'
        ORDER BY oid DESC OFFSET 3`,
      [template],
    );
    for (const { datname } of stale.rows) await admin.query(`DROP DATABASE IF EXISTS ${datname}`).catch(() => {});
    return template;
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]).catch(() => {});
    await admin.end();
  }
}

async function dropRunDatabases(adminUrl: string, prefix: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const left = await admin.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE starts_with(datname, $1)',
      [prefix],
    );
    for (const { datname } of left.rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/**
 * Picks the engine for the run. TEST_DATABASE_ENGINE=postgres makes PostgreSQL required (CI);
 * =pglite forces the embedded engine; unset uses PostgreSQL when it answers, else PGlite, loudly.
 */
export default async function setup(project: TestProject) {
  const wanted = process.env.TEST_DATABASE_ENGINE;
  const prefix = `orbita_t_${randomBytes(4).toString('hex')}_`;
  const adminUrl = testServerUrl();
  const safeUrl = adminUrl.replace(/\/\/[^@/]*@/, '//');
  let info: TestDatabaseInfo;
  if (wanted !== 'pglite' && (await reachable(adminUrl))) {
    info = { engine: 'postgres', adminUrl, template: await ensureTemplate(adminUrl), prefix };
    console.info(`\n[orbita tests] database engine: PostgreSQL at ${safeUrl} (template ${info.template})\n`);
  } else if (wanted === 'postgres') {
    throw new Error(
      `TEST_DATABASE_ENGINE=postgres but no PostgreSQL answers at ${safeUrl}. Start it (pg_ctlcluster ... main start) or set TEST_DATABASE_URL.`,
    );
  } else {
    info = { engine: 'pglite', prefix };
    const why = wanted === 'pglite' ? 'chosen by TEST_DATABASE_ENGINE=pglite' : `no PostgreSQL answered at ${safeUrl}`;
    console.warn(
      `\n[orbita tests] !!! database engine: embedded PGlite — ${why}.` +
        '\n[orbita tests] !!! Tests that need a PostgreSQL server (concurrent migrations, a dropped database) are skipped.\n',
    );
  }
  project.provide('testDatabase', info);
  return async () => {
    if (info.engine === 'postgres') await dropRunDatabases(adminUrl, prefix);
  };
}
