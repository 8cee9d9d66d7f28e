import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { createApp } from '../server/src/app';
import { loadConfig } from '../server/src/platform/config';
import type { Db } from '../server/src/platform/db/db';
import { runMigrations } from '../server/src/platform/db/migrations';
import { createPgliteDb } from '../server/src/platform/db/pglite';
import { createPostgresDb } from '../server/src/platform/db/postgres';
import { createLogger } from '../server/src/platform/logging';

const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchDatabase {
  db: Db;
  /** Connection URL of the bench database (PostgreSQL only), for raw-driver baselines. */
  url?: string;
  drop(): Promise<void>;
}

/** A migrated database for one benchmark: a temporary one on PostgreSQL, else in-memory PGlite. */
export async function benchDatabase(): Promise<BenchDatabase> {
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 3_000 });
  try {
    await admin.connect();
  } catch {
    console.warn('bench: no PostgreSQL answers; measuring on embedded PGlite');
    const db = await createPgliteDb(undefined);
    await runMigrations(db);
    return { db, drop: () => db.close() };
  }
  const name = `orbita_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = createPostgresDb(url.toString());
  await runMigrations(db);
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** Runs `operation` `count` times with `concurrency` in flight; returns operations per second. */
export async function throughput(count: number, concurrency: number, operation: () => Promise<unknown>) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        await operation();
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

/** One result line: ours against the baseline measured in the same run. */
export function report(name: string, ours: number, baseline: number, unit = 'ops/s') {
  const ratio = baseline / ours;
  console.log(
    `${name}: ${ours.toFixed(0)} ${unit} vs baseline ${baseline.toFixed(0)} ${unit} — ratio ${ratio.toFixed(2)}x the baseline's cost`,
  );
}

/** The app over a bench database, on a free port, logging nothing. */
export async function benchApp(database: BenchDatabase) {
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', NODE_ENV: 'production' });
  const app = createApp({ config, db: database.db, logger: createLogger(config) });
  const { url } = await app.listen();
  return { app, url };
}

/** POSTs JSON to the bench app (with a bearer token or extra headers); a failure stops the bench. */
export async function postJson(url: string, route: string, body: unknown, auth?: string | Record<string, string>) {
  const headers = typeof auth === 'string' ? { Authorization: `Bearer ${auth}` } : (auth ?? {});
  const response = await fetch(`${url}${route}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${route} answered ${response.status}: ${text.slice(0, 500)}`);
  // biome-ignore lint/suspicious/noExplicitAny: benches read a few fields of known answers.
  return JSON.parse(text) as any;
}

/** Registers a new organization on the bench app; returns its administrator's tokens. */
export function registerBenchAdmin(url: string): Promise<{ accessToken: string; refreshToken: string }> {
  return postJson(url, '/api/auth/register', {
    organizationName: 'Bench',
    name: 'Admin',
    email: `bench-${randomUUID()}@example.org`,
    password: 'bench password 1',
  });
}
