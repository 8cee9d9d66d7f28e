import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { io } from 'socket.io-client';
import { startReplicaThread } from '../electron/backend/replica-thread.fixture';
import { createOrbitaDatabase, startReplicaSync } from '../renderer/src/data/database';
import { remoteReplicaStorage } from '../renderer/src/data/storage';
import { keepTrackHours } from '../server/src/modules/gps/gps.sync';
import { benchDatabase, registerBenchAdmin, report } from './lib';
import { benchServerProcess } from './server-process';

const OBJECTS = 500;
/** A moving vehicle's tracker: a point every 30 s, a day long. */
const POINT_EVERY_SECONDS = 30;
const HOURS = 24;
const RUNS = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * The first sync of the offline map's data into an empty desktop replica: 500 objects with a day
 * of track each (collections gps_objects and gps_tracks, storage in its own thread as in the
 * desktop app) against the raw pipeline: a `pg` SELECT of the same objects and points (the
 * points by the objects' key ranges, as the REST track route reads them) plus a better-sqlite3
 * bulk insert of them as one JSON row per object and hour.
 */
export async function run() {
  const database = await benchDatabase();
  if (!database.url) {
    console.log('gps-first-sync: needs PostgreSQL (the server runs in a process of its own)');
    return database.drop();
  }
  const server = await benchServerProcess(database.url);
  const dir = await mkdtemp(path.join(tmpdir(), 'orbita-gps-first-sync-'));
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  try {
    const { accessToken } = await registerBenchAdmin(server.url);
    const { rows: organizations } = await pool.query<{ id: string }>('SELECT id FROM organizations');
    const organizationId = organizations[0]?.id as string;
    await pool.query(
      `INSERT INTO gps_objects (id, organization_id, name, kind, tracker_id, settings)
       SELECT gen_random_uuid(), $1, 'Truck ' || n, 'vehicle', 'bench-' || n, '{}' FROM generate_series(1, $2::int) n`,
      [organizationId, OBJECTS],
    );
    const perObject = (HOURS * 3600) / POINT_EVERY_SECONDS;
    await pool.query(
      `INSERT INTO gps_points (object_id, fix_time, organization_id, lat, lon, speed_kmh, course, accuracy)
       SELECT o.id, date_trunc('second', now()) - make_interval(secs => ($2::int - i) * $3::int), o.organization_id,
              55 + (hashtext(o.id::text) % 1000) / 1000.0 + i * 0.0001, 37.6 + i * 0.0001, 40 + i % 20, i % 360, 5
         FROM gps_objects o, generate_series(1, $2::int) i WHERE o.organization_id = $1`,
      [organizationId, perObject, POINT_EVERY_SECONDS],
    );
    // As autovacuum leaves a table after a load: statistics, and the visibility map that lets
    // tracks be read from the points' key alone (both pipelines read them so).
    await pool.query('VACUUM ANALYZE gps_points');
    await pool.query('ANALYZE gps_objects');
    // The task the server runs every minute: the hours marked by the load are stamped for replicas.
    await keepTrackHours(database.db);
    await pool.query('ANALYZE gps_track_hours');
    const total = OBJECTS * perObject;

    const rawRuns: number[] = [];
    const ourRuns: number[] = [];
    let hourDocuments = 0;
    const rawPipeline = async (run: number) => {
      const started = performance.now();
      const client = await pool.connect();
      let objects: { id: string }[];
      let points: { object_id: string; fix_time: Date }[];
      try {
        objects = (await client.query('SELECT * FROM gps_objects WHERE organization_id = $1', [organizationId])).rows;
        points = (
          await client.query(
            `SELECT p.object_id, p.fix_time, p.lat, p.lon, p.speed_kmh, p.course, p.is_lbs
               FROM gps_objects o JOIN gps_points p ON p.object_id = o.id AND p.fix_time > now() - make_interval(hours => $2)
              WHERE o.organization_id = $1 ORDER BY p.object_id, p.fix_time`,
            [organizationId, HOURS + 1],
          )
        ).rows;
      } finally {
        client.release();
      }
      const sqlite = new Database(path.join(dir, `raw-${run}.sqlite`));
      sqlite.pragma('journal_mode = WAL');
      sqlite.exec('CREATE TABLE docs (id TEXT PRIMARY KEY, data TEXT NOT NULL)');
      const insert = sqlite.prepare('INSERT INTO docs (id, data) VALUES (?, ?)');
      sqlite.transaction(() => {
        for (const object of objects) insert.run(object.id, JSON.stringify(object));
        let key = '';
        let hour: unknown[] = [];
        const flush = () => {
          if (hour.length > 0) insert.run(key, JSON.stringify(hour));
        };
        for (const point of points) {
          const next = `${point.object_id}:${Math.floor(point.fix_time.getTime() / 3_600_000)}`;
          if (next !== key) {
            flush();
            key = next;
            hour = [];
          }
          hour.push(point);
        }
        flush();
      })();
      sqlite.close();
      if (points.length !== total) throw new Error(`raw pipeline read ${points.length} points, expected ${total}`);
      rawRuns.push(performance.now() - started);
    };

    const desktop = await startReplicaThread(path.join(dir, 'desktop'));
    try {
      for (let run = 0; run < RUNS; run++) {
        await rawPipeline(run);
        const replica = await createOrbitaDatabase({
          name: `bench-gps-${run}`,
          storage: remoteReplicaStorage(desktop.port) as never,
          collections: ['gps_objects', 'gps_tracks'],
        });
        const socket = io(`${server.url}/sync`, { auth: { token: accessToken }, transports: ['websocket'] });
        try {
          const started = performance.now();
          const sync = startReplicaSync(replica, socket);
          await sync.awaitInitial();
          ourRuns.push(performance.now() - started);
          const objects = await replica.gps_objects.count().exec();
          hourDocuments = await replica.gps_tracks.count().exec();
          if (objects !== OBJECTS) throw new Error(`replica holds ${objects} objects, expected ${OBJECTS}`);
          let points = 0;
          for (const document of await replica.gps_tracks.find().exec()) {
            points += (document.get('points') as unknown[]).length;
          }
          if (points !== total) throw new Error(`replica holds ${points} points, expected ${total}`);
          await sync.cancel();
        } finally {
          socket.close();
          await replica.close();
        }
      }
    } finally {
      await desktop.stop();
    }
    const ours = median(ourRuns);
    const raw = median(rawRuns);
    const seconds = (values: number[]) => values.map((ms) => (ms / 1000).toFixed(2)).join(', ');
    report(
      `first sync of ${OBJECTS} objects with ${HOURS} h of track each (${total} points, a point every ${POINT_EVERY_SECONDS} s, ${hourDocuments} hour documents) into the desktop replica, until it shows them (median ${(ours / 1000).toFixed(1)} s of ${seconds(ourRuns)}) vs pg SELECT of the same points + SQLite bulk insert per object and hour (median ${(raw / 1000).toFixed(1)} s of ${seconds(rawRuns)})`,
      total / (ours / 1000),
      total / (raw / 1000),
      'points/s',
    );
  } finally {
    await pool.end();
    await server.stop();
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  }
}
