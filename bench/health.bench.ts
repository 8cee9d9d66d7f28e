import pg from 'pg';
import { benchApp, benchDatabase, report, throughput } from './lib';

/**
 * The cost of the HTTP platform: `GET /api/health` (routing, request id, logging, contract check,
 * one query) against the same query through a bare `pg` pool.
 */
export async function run() {
  const database = await benchDatabase();
  const { app, url } = await benchApp(database);
  const count = 4_000;
  const concurrency = 8;
  try {
    const raw = database.url ? new pg.Pool({ connectionString: database.url, max: concurrency }) : undefined;
    const rawQuery = () =>
      raw
        ? raw
            .query("SELECT to_regclass('migration_journal')")
            .then(() => raw.query('SELECT name FROM migration_journal ORDER BY version DESC LIMIT 1'))
        : database.db.query('SELECT name FROM migration_journal ORDER BY version DESC LIMIT 1');
    await throughput(200, concurrency, rawQuery);
    const baseline = await throughput(count, concurrency, rawQuery);
    await throughput(200, concurrency, () => fetch(`${url}/api/health`).then((r) => r.arrayBuffer()));
    const ours = await throughput(count, concurrency, () => fetch(`${url}/api/health`).then((r) => r.arrayBuffer()));
    report('GET /api/health vs its queries on a bare pg pool', ours, baseline);
    await raw?.end();
  } finally {
    await app.close();
    await database.drop();
  }
}
