import * as gpsRepo from '../server/src/modules/gps/gps.repo';
import type { Queryable } from '../server/src/platform/db/db';
import { benchApp, benchDatabase, registerBenchAdmin } from './lib';

const OBJECTS = 10_000;
/** Points of each of the other objects over the 30 days (by default as many as about 2 minutes generate, up to 1,000). */
const POINTS_PER_OBJECT = Number(process.env.GPS_BENCH_POINTS_PER_OBJECT ?? 1000);
const DAY_SECONDS = 86_400;
/** The tracked object reports every 10 s for 30 days: 259,200 points. */
const TRACK_STEP_SECONDS = 10;

/** Runs `read` `times` times and returns the median in ms. */
async function median(times: number, read: () => Promise<unknown>) {
  const all: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await read();
    all.push(performance.now() - started);
  }
  return all.sort((a, b) => a - b)[Math.floor(times / 2)] as number;
}

/** The statement a repository function sends, captured so it can be explained as it is. */
async function captured(call: (db: Queryable) => Promise<unknown>) {
  let text = '';
  let params: unknown[] = [];
  const spy: Queryable = {
    query: (sql: string, values?: unknown[]) => {
      text = sql;
      params = values ?? [];
      // biome-ignore lint/suspicious/noExplicitAny: the spy answers nothing; only the statement matters.
      return Promise.resolve({ rows: [], rowCount: 0 } as any);
    },
  } as Queryable;
  await call(spy);
  return { text, params };
}

/** The lines of an `EXPLAIN (ANALYZE, BUFFERS)` that say how rows were found and what it read. */
function summary(plan: string[]) {
  return plan
    .filter((line) =>
      /Scan|Sort|Limit|Nested|Gather|Aggregate|Buffers|JIT|Timing|Execution Time|Planning Time|Rows Removed/.test(line),
    )
    .map((line) => `    ${line.trimEnd()}`)
    .join('\n');
}

/**
 * The two reads that must stay fast as points grow, over 10,000 objects and about 10 million points
 * generated with `generate_series` in fix-time order (each object's points scattered over the heap as
 * live ingestion leaves them): the last position of every object (the objects list) and a 30-day
 * track of one object, with `EXPLAIN (ANALYZE, BUFFERS)` of both.
 */
export async function run() {
  const database = await benchDatabase();
  const { app, url } = await benchApp(database);
  const db = database.db;
  try {
    const { accessToken } = await registerBenchAdmin(url);
    const { rows: orgs } = await db.query<{ id: string }>('SELECT id FROM organizations LIMIT 1');
    const organizationId = orgs[0]?.id as string;
    const end = new Date(Math.floor(Date.now() / 1000) * 1000);
    const start = new Date(end.getTime() - 30 * DAY_SECONDS * 1000);

    let started = performance.now();
    await db.query(
      `INSERT INTO gps_objects (id, organization_id, name, kind, tracker_id)
       SELECT gen_random_uuid(), $1, 'Vehicle ' || lpad(n::text, 5, '0'), 'vehicle', 'T' || n
         FROM generate_series(1, $2::int) n`,
      [organizationId, OBJECTS],
    );
    const { rows: tracked } = await db.query<{ id: string }>(
      `SELECT id FROM gps_objects WHERE organization_id = $1 AND tracker_id = 'T1'`,
      [organizationId],
    );
    const trackedId = tracked[0]?.id as string;
    // Loaded without the primary key (built afterwards, sorted, as a restore would) and without the
    // foreign-key trigger (every row names an existing object by construction).
    await db.query('ALTER TABLE gps_points DROP CONSTRAINT gps_points_pkey');
    await db.query('ALTER TABLE gps_points DISABLE TRIGGER ALL');
    await db.query(`SET work_mem = '256MB'`);
    const insert = (perObject: number) =>
      db.query(
        `INSERT INTO gps_points (object_id, fix_time, organization_id, received_at, lat, lon, speed_kmh, course, accuracy)
         SELECT object_id, fix_time, $1, fix_time + interval '2 seconds', lat, lon, speed, course, 8
           FROM (
             SELECT o.id AS object_id,
                    $2::timestamptz + make_interval(secs => k * $4 + (o.n % $4)) AS fix_time,
                    55 + (o.n % 100) * 0.01 + k * 0.0001 AS lat, 37 + (o.n / 100) * 0.01 AS lon,
                    (k % 90)::real AS speed, (k % 360)::real AS course
               FROM (SELECT id, substr(tracker_id, 2)::int AS n FROM gps_objects WHERE tracker_id <> 'T1') o,
                    generate_series(0, $3::int - 1) k
             UNION ALL
             SELECT $5::uuid, $2::timestamptz + make_interval(secs => s * $6), 55.5 + s * 0.000002, 37.5,
                    (s % 90)::real, (s % 360)::real
               FROM generate_series(0, $7::int - 1) s
           ) points
          ORDER BY fix_time`,
        [
          organizationId,
          start,
          perObject,
          Math.floor((30 * DAY_SECONDS) / perObject),
          trackedId,
          TRACK_STEP_SECONDS,
          (30 * DAY_SECONDS) / TRACK_STEP_SECONDS,
        ],
      );
    // How many points this machine generates in about two minutes: a first small load tells the rate.
    let perObject = POINTS_PER_OBJECT;
    if (!process.env.GPS_BENCH_POINTS_PER_OBJECT) {
      const probe = performance.now();
      await insert(20);
      const rate = (20 * (OBJECTS - 1) + 259_200) / ((performance.now() - probe) / 1000);
      await db.query('TRUNCATE gps_points');
      perObject = Math.max(20, Math.min(1000, Math.floor((rate * 110 - 259_200) / (OBJECTS - 1))));
      console.log(
        `generation rate ≈ ${Math.round(rate).toLocaleString('en')} points/s: ${perObject} points per object`,
      );
    }
    started = performance.now();
    await insert(perObject);
    await db.query('ALTER TABLE gps_points ENABLE TRIGGER ALL');
    const loaded = performance.now() - started;
    started = performance.now();
    // The key as the migrations define it (the drawn values included), and the table vacuumed as
    // autovacuum does an insert-only table, so the track can be read from the key alone.
    await db.query(
      'ALTER TABLE gps_points ADD CONSTRAINT gps_points_pkey PRIMARY KEY (object_id, fix_time) INCLUDE (lat, lon, speed_kmh, course, altitude, accuracy, is_lbs)',
    );
    await db.query('VACUUM ANALYZE gps_points');
    const keyed = performance.now() - started;
    // The objects' last positions, as ingestion keeps them on the object's row.
    await db.query(
      `UPDATE gps_objects o SET last_fix_time = p.fix_time, last_lat = p.lat, last_lon = p.lon,
         last_speed_kmh = p.speed_kmh, last_course = p.course, last_is_lbs = p.is_lbs,
         last_seen = p.received_at, last_gps_fix_at = p.fix_time
         FROM gps_objects o2 CROSS JOIN LATERAL (
           SELECT fix_time, lat, lon, speed_kmh, course, is_lbs, received_at FROM gps_points
            WHERE object_id = o2.id ORDER BY fix_time DESC LIMIT 1) p
        WHERE o.id = o2.id`,
    );
    await db.query('ANALYZE gps_objects');
    const { rows: counted } = await db.query<{ n: string; size: string }>(
      `SELECT count(*) AS n, pg_size_pretty(pg_total_relation_size('gps_points')) AS size FROM gps_points`,
    );
    const total = Number(counted[0]?.n);
    console.log(
      `generated ${total.toLocaleString('en')} points of ${OBJECTS.toLocaleString('en')} objects (${counted[0]?.size}): ` +
        `${(loaded / 1000).toFixed(1)} s to insert in fix-time order, ${(keyed / 1000).toFixed(1)} s to build the key`,
    );

    // Last position of every object: the objects list reads one row per object.
    const list = await captured((spy) => gpsRepo.listObjects(spy, organizationId));
    const listMs = await median(7, () => gpsRepo.listObjects(db, organizationId));
    const apiMs = await median(5, async () => {
      const response = await fetch(`${url}/api/gps/objects`, { headers: { Authorization: `Bearer ${accessToken}` } });
      const body = (await response.json()) as { items: unknown[] };
      if (body.items.length !== OBJECTS) throw new Error(`listed ${body.items.length} objects`);
    });
    // Baseline: the same from the points (the newest point per object through the primary key).
    const fromPointsSql = `SELECT o.id, p.* FROM gps_objects o CROSS JOIN LATERAL (
        SELECT fix_time, lat, lon, speed_kmh, course, is_lbs FROM gps_points WHERE object_id = o.id
         ORDER BY fix_time DESC LIMIT 1) p WHERE o.organization_id = $1`;
    const fromPointsMs = await median(7, () => db.query(fromPointsSql, [organizationId]));
    console.log(
      `last position of ${OBJECTS.toLocaleString('en')} objects: query ${listMs.toFixed(1)} ms, GET /api/gps/objects ${apiMs.toFixed(0)} ms; ` +
        `the newest point of each object searched in the points: ${fromPointsMs.toFixed(1)} ms`,
    );
    const explain = async (sql: string, params: unknown[]) =>
      (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params)).rows.map(
        (row) => row['QUERY PLAN'],
      );
    console.log(`  EXPLAIN last positions (objects list):\n${summary(await explain(list.text, list.params))}`);
    console.log(
      `  EXPLAIN newest point per object from the points:\n${summary(await explain(fromPointsSql, [organizationId]))}`,
    );

    // A 30-day track of one object.
    const track = await captured((spy) => gpsRepo.track(spy, trackedId, start, end));
    // The first read finds pages outside PostgreSQL's buffers; later ones find them cached.
    const coldStarted = performance.now();
    const points = await gpsRepo.track(db, trackedId, start, end);
    const coldMs = performance.now() - coldStarted;
    const trackMs = await median(5, () => gpsRepo.track(db, trackedId, start, end));
    const bareMs = await median(5, () => db.query(track.text, track.params));
    const routeStarted = performance.now();
    const response = await fetch(
      `${url}/api/gps/objects/${trackedId}/track?from=${start.toISOString()}&to=${end.toISOString()}`,
      { headers: { Authorization: `Bearer ${accessToken}` } },
    );
    const body = (await response.json()) as { points: unknown[] };
    const routeMs = performance.now() - routeStarted;
    console.log(
      `30-day track of one object (${points.length.toLocaleString('en')} points): query ${trackMs.toFixed(0)} ms ` +
        `(first read ${coldMs.toFixed(0)} ms; the bare statement ${bareMs.toFixed(0)} ms), ` +
        `GET …/track ${routeMs.toFixed(0)} ms for ${body.points.length.toLocaleString('en')} points with the distance`,
    );
    console.log(`  EXPLAIN 30-day track:\n${summary(await explain(track.text, track.params))}`);
    // The route's own statement: the track written as JSON by PostgreSQL, an hour a row.
    const json = await captured((spy) => gpsRepo.trackJson(spy, organizationId, trackedId, start, end, false));
    const jsonMs = await median(5, () => gpsRepo.trackJson(db, organizationId, trackedId, start, end, false));
    const jsonBareMs = await median(5, () => db.query(json.text, json.params));
    const routeAgainMs = await median(3, async () => {
      const again = await fetch(
        `${url}/api/gps/objects/${trackedId}/track?from=${start.toISOString()}&to=${end.toISOString()}`,
        { headers: { Authorization: `Bearer ${accessToken}` } },
      );
      await again.json();
    });
    console.log(
      `30-day track as the route's JSON: ${jsonMs.toFixed(0)} ms into Node (the bare statement ${jsonBareMs.toFixed(0)} ms); ` +
        `GET …/track ${routeAgainMs.toFixed(0)} ms (median of 3 after the first)`,
    );
    console.log(`  EXPLAIN 30-day track as JSON:\n${summary(await explain(json.text, json.params))}`);
  } finally {
    await app.close();
    await database.drop();
  }
}
