import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { Db } from '../../server/src/platform/db/db';
import { readMigrations, runMigrations } from '../../server/src/platform/db/migrations';
import { createPgliteDb } from '../../server/src/platform/db/pglite';
import { createPostgresDb } from '../../server/src/platform/db/postgres';
import { databaseUrl, type TestDatabaseInfo } from './engine';

export interface TestDatabase {
  engine: TestDatabaseInfo['engine'];
  db: Db;
  /** Connection URL (postgres engine only). */
  url?: string;
  /** Closes the connection and removes the database. */
  drop(): Promise<void>;
}

/** The engine this run uses. */
export function testEngine(): TestDatabaseInfo['engine'] {
  return inject('testDatabase').engine;
}

async function admin<T>(info: TestDatabaseInfo, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: info.adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A database of its own for a test file: a copy of the migrated template on PostgreSQL, or an
 * in-memory PGlite. `migrated: false` gives an empty database.
 */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const info = inject('testDatabase');
  const migrated = options.migrated ?? true;
  if (info.engine === 'pglite') {
    const db = await createPgliteDb(undefined);
    if (migrated) await runMigrations(db);
    return { engine: 'pglite', db, drop: () => db.close() };
  }
  const name = `${info.prefix}${randomBytes(6).toString('hex')}`;
  await admin(info, (client) =>
    client.query(`CREATE DATABASE ${name} TEMPLATE ${migrated ? info.template : 'template0'}`),
  );
  const url = databaseUrl(info.adminUrl as string, name);
  const db = createPostgresDb(url, { poolMax: 5 });
  return {
    engine: 'postgres',
    db,
    url,
    async drop() {
      await db.close();
      await admin(info, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** Removes a database at once, connections and all, as an outage would (postgres engine only). */
export async function dropDatabaseNow(database: TestDatabase): Promise<void> {
  const info = inject('testDatabase');
  const name = new URL(database.url as string).pathname.slice(1);
  await admin(info, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** Name of the newest migration file, e.g. `0002_identity`: the schema version after migrating. */
export async function latestMigration(): Promise<string> {
  const files = await readMigrations();
  return files.at(-1)?.name as string;
}

/** How many migration files there are. */
export async function migrationCount(): Promise<number> {
  return (await readMigrations()).length;
}
