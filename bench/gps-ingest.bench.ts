import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';
import { benchApp, benchDatabase, postJson, registerBenchAdmin, report } from './lib';

const SENDERS = 8;
const PER_SENDER = 400;
const KNOTS = 1.852;

/** One Traccar forwarded position (`forward.type=json`) of sender `s`, its `i`th fix. */
function position(s: number, i: number, base: number) {
  return {
    position: {
      fixTime: new Date(base + i * 10_000).toISOString(),
      latitude: 55 + s * 0.1 + i * 0.0005,
      longitude: 37.6,
      speed: 30,
      course: 0,
      accuracy: 5,
      valid: true,
      outdated: false,
      attributes: {},
    },
    device: { uniqueId: `ingest-${s}`, name: `Truck ${s}` },
  };
}

/** Each of `SENDERS` trackers sends its fixes in order, one request each, all trackers at once. */
async function send(post: (body: unknown) => Promise<unknown>, base: number) {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async (_, s) => {
      for (let i = 0; i < PER_SENDER; i++) await post(position(s, i, base));
    }),
  );
  return (SENDERS * PER_SENDER) / ((performance.now() - started) / 1000);
}

/**
 * Ingestion through `POST /api/gps/traccar/positions` (token, rate limit, object lock, neighbours,
 * filters, point, last position, geofences, event), one position per request, 8 trackers sending
 * at once — against a bare Express route that INSERTs the same rows without filtering, and
 * PostgreSQL `COPY` of the same points for scale.
 */
export async function run() {
  const database = await benchDatabase();
  const { app, url } = await benchApp(database);
  const pool = new pg.Pool({ connectionString: database.url, max: 10 });
  try {
    const { accessToken } = await registerBenchAdmin(url);
    const { token } = await postJson(url, '/api/gps/ingestion-token', {}, accessToken);
    const patched = await fetch(`${url}/api/gps/settings`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ maxMessagesPerMinute: 100_000 }),
    });
    if (!patched.ok) throw new Error(`settings answered ${patched.status}`);
    // Warm-up: the objects exist before measuring (created by their first message).
    const warm = Date.now() - 3 * 86_400_000;
    for (let s = 0; s < SENDERS; s++) await postJson(url, '/api/gps/traccar/positions', position(s, 0, warm), token);
    const { rows } = await pool.query<{ id: string; tracker_id: string; organization_id: string }>(
      'SELECT id, tracker_id, organization_id FROM gps_objects',
    );
    const objectOf = new Map(rows.map((row) => [row.tracker_id, row]));

    const ours = await send(
      (body) => postJson(url, '/api/gps/traccar/positions', body, token),
      Date.now() - 2 * 86_400_000,
    );

    // Baseline: a bare route parsing the same JSON and inserting the same row, no token, no filters.
    const bare = express();
    bare.use(express.json());
    bare.post('/positions', async (req, res) => {
      const { position: p, device } = req.body;
      const object = objectOf.get(device.uniqueId);
      await pool.query(
        `INSERT INTO gps_points (object_id, fix_time, organization_id, lat, lon, speed_kmh, course, accuracy)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (object_id, fix_time) DO NOTHING`,
        [
          object?.id,
          p.fixTime,
          object?.organization_id,
          p.latitude,
          p.longitude,
          p.speed * KNOTS,
          p.course,
          p.accuracy,
        ],
      );
      res.json({ accepted: true });
    });
    const server = bare.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const bareUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const baseline = await send(async (body) => {
      const response = await fetch(`${bareUrl}/positions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`bare route answered ${response.status}`);
      await response.text();
    }, Date.now() - 86_400_000);
    server.close();
    report(`${SENDERS} trackers, one position per request`, ours, baseline, 'positions/s');

    // COPY of the same number of points in one stream, for scale.
    const client = await pool.connect();
    try {
      const base = Date.now() - 4 * 86_400_000;
      // COPY FROM STDIN needs a stream driver; COPY from a generated query's rows stands in, server-side.
      await client.query(`CREATE TEMP TABLE copy_source AS
        SELECT o.id AS object_id, to_timestamp(${base / 1000} + i * 10) AS fix_time, o.organization_id,
               55 + i * 0.0005 AS lat, 37.6 AS lon, 30 * ${KNOTS} AS speed_kmh, 0 AS course, 5 AS accuracy
          FROM gps_objects o, generate_series(0, ${PER_SENDER - 1}) i`);
      await client.query(`COPY (SELECT * FROM copy_source) TO '/tmp/orbita-gps-copy.csv' WITH (FORMAT csv)`);
      const copyStarted = performance.now();
      await client.query(
        `COPY gps_points (object_id, fix_time, organization_id, lat, lon, speed_kmh, course, accuracy)
         FROM '/tmp/orbita-gps-copy.csv' WITH (FORMAT csv)`,
      );
      const copySeconds = (performance.now() - copyStarted) / 1000;
      console.log(
        `COPY of the same ${(SENDERS * PER_SENDER).toLocaleString('en')} points (a CSV file read by the server): ` +
          `${((SENDERS * PER_SENDER) / copySeconds).toFixed(0)} positions/s`,
      );
    } catch (error) {
      console.log(`COPY skipped: ${(error as Error).message}`);
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
    await app.close();
    await database.drop();
  }
}
