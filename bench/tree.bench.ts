import pg from 'pg';
import { benchApp, benchDatabase, postJson, registerBenchAdmin, report } from './lib';

const ROWS = 50_000;

/**
 * The row tree of a 50,000-row directory (`GET /api/directories/:id/rows/tree`: query, tree build,
 * JSON) against a bare `SELECT` of the same rows through a raw `pg` pool.
 */
export async function run() {
  const database = await benchDatabase();
  const { app, url } = await benchApp(database);
  const raw = database.url ? new pg.Pool({ connectionString: database.url, max: 1 }) : undefined;
  try {
    const { accessToken } = await registerBenchAdmin(url);
    const directory = await postJson(
      url,
      '/api/directories',
      { name: 'Places', columns: [{ name: 'Name' }, { name: 'Code' }] },
      accessToken,
    );
    // Four levels: 50 regions, 10 districts each, 10 towns each, the rest streets.
    await database.db.query(
      `WITH org AS (SELECT organization_id FROM directories WHERE id = $1)
       INSERT INTO directory_rows (id, organization_id, directory_id, parent_id, position, cells, search_text)
       SELECT md5('row' || n)::uuid, (SELECT organization_id FROM org), $1,
              CASE WHEN n <= 50 THEN NULL
                   WHEN n <= 550 THEN md5('row' || ((n - 51) / 10 + 1))::uuid
                   WHEN n <= 5550 THEN md5('row' || ((n - 551) / 10 + 51))::uuid
                   ELSE md5('row' || ((n - 5551) % 5000 + 551))::uuid END,
              n, jsonb_build_array('Place ' || n, 'P' || n), 'Place ' || n
         FROM generate_series(1, $2::int) AS n`,
      [directory.id, ROWS],
    );
    const treeOnce = async () => {
      const response = await fetch(`${url}/api/directories/${directory.id}/rows/tree`, {
        headers: { Authorization: `Bearer ${accessToken}` },
      });
      const body = (await response.json()) as { nodes: unknown[] };
      if (body.nodes.length !== 50) throw new Error(`expected 50 roots, got ${body.nodes.length}`);
    };
    const selectOnce = async () => {
      const sql = `SELECT id, parent_id, position, cells FROM directory_rows
                    WHERE directory_id = $1 AND deleted_at IS NULL ORDER BY position, id`;
      const result = raw ? await raw.query(sql, [directory.id]) : await database.db.query(sql, [directory.id]);
      if (result.rows.length !== ROWS) throw new Error('wrong row count');
    };
    const time = async (rounds: number, work: () => Promise<void>) => {
      await work();
      const started = performance.now();
      for (let i = 0; i < rounds; i++) await work();
      return (performance.now() - started) / rounds;
    };
    const baselineMs = await time(5, selectOnce);
    const oursMs = await time(5, treeOnce);
    // report() takes rates: trees per second.
    report(
      `GET /rows/tree of ${ROWS} rows (${oursMs.toFixed(0)} ms) vs a bare SELECT of them (${baselineMs.toFixed(0)} ms)`,
      1000 / oursMs,
      1000 / baselineMs,
      'per s',
    );
  } finally {
    await raw?.end();
    await app.close();
    await database.drop();
  }
}
