import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { fillWithDefaultSettings, getRxReplicationMetaInstanceSchema, type RxJsonSchema, type RxStorage } from 'rxdb';
import { io } from 'socket.io-client';
import { replicaStorage } from '../electron/backend/replica-host';
import { startReplicaThread } from '../electron/backend/replica-thread.fixture';
import { getRxStorageBetterSqlite } from '../electron/backend/rx-storage-sqlite';
import { createOrbitaDatabase, startReplicaSync } from '../renderer/src/data/database';
import { collectionSchemas } from '../renderer/src/data/schemas';
import { remoteReplicaStorage } from '../renderer/src/data/storage';
import { benchApp, benchDatabase, postJson, registerBenchAdmin, report } from './lib';
import { benchServerProcess } from './server-process';

const TASKS = 50_000;
/** Runs of the raw pipeline and of the desktop topology's first sync, whose medians are compared. */
const RUNS = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** The bench's tasks as the raw pipeline reads them: one `pg` query (PGlite: the bench's own handle). */
async function selectTasks(database: Awaited<ReturnType<typeof benchDatabase>>, sql: string, formId: string) {
  if (!database.url) return (await database.db.query(sql, [formId])).rows;
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query(sql, [formId])).rows;
  } finally {
    await client.end();
  }
}

/**
 * A first sync of every task into an empty replica on `storage`: the time (ms) until the replica
 * holds them all (`synced`: lists show them) and until they are all on disk too (`saved`: the
 * replica closed, which waits for the storage to write what it holds in memory).
 */
async function firstSync(url: string, token: string, name: string, storage: RxStorage<unknown, unknown>) {
  const replica = await createOrbitaDatabase({ name, storage: storage as never, collections: ['tasks'] });
  const socket = io(`${url}/sync`, { auth: { token }, transports: ['websocket'] });
  let closed = false;
  try {
    const started = performance.now();
    const sync = startReplicaSync(replica, socket);
    await sync.awaitInitial();
    const synced = performance.now() - started;
    const count = await replica.tasks.count().exec();
    if (count !== TASKS) throw new Error(`replica holds ${count} tasks, expected ${TASKS}`);
    // As in the app, which stays open: the replication also records that nothing it received
    // needs sending (a few milliseconds; a replica closed before that looks every document up once
    // at its next start).
    await sync.awaitInSync();
    await sync.cancel();
    socket.close();
    await replica.close();
    closed = true;
    return { synced, saved: performance.now() - started };
  } finally {
    socket.close();
    if (!closed) await replica.close();
  }
}

/**
 * Pulls every task over `/sync` in pages of 1,000, handing each page to `take` (the last one with
 * `last` set); returns the time (ms) from the connection on, once `take` is done with the last.
 */
async function pullEveryTask(
  url: string,
  token: string,
  take: (documents: Record<string, unknown>[], last: boolean) => Promise<void> | void,
): Promise<number> {
  const socket = io(`${url}/sync`, { auth: { token }, transports: ['websocket'] });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    const started = performance.now();
    let checkpoint: unknown = null;
    let received = 0;
    for (;;) {
      const answer = (await socket.emitWithAck('sync:pull', { collection: 'tasks', checkpoint, batchSize: 1000 })) as {
        ok: boolean;
        data: { documents: Record<string, unknown>[]; checkpoint: unknown };
      };
      if (!answer.ok) throw new Error(`pull refused: ${JSON.stringify(answer)}`);
      received += answer.data.documents.length;
      checkpoint = answer.data.checkpoint;
      const last = answer.data.documents.length < 1000;
      await take(answer.data.documents, last);
      if (last) break;
    }
    if (received !== TASKS) throw new Error(`pulled ${received} tasks, expected ${TASKS}`);
    return performance.now() - started;
  } finally {
    socket.close();
  }
}

/**
 * Time (ms) for the replica's storage, in this thread, to take every task pulled over `/sync`:
 * the documents and the replication's copy of each (its meta data), written in batches of 10,000
 * as RxDB's downstream writes them, until on disk. No RxDB replication runs: this is what a first
 * sync written by the replica's own process straight into its storage would cost at the least
 * (such a first sync is not built).
 */
async function pulledIntoStorage(url: string, token: string, directory: string): Promise<number> {
  const storage = replicaStorage(directory);
  const schema = fillWithDefaultSettings(collectionSchemas.tasks as unknown as RxJsonSchema<unknown>);
  const common = {
    databaseInstanceToken: 'bench',
    databaseName: 'direct',
    options: {},
    multiInstance: false,
    devMode: false,
  };
  const docs = await storage.createStorageInstance({ ...common, collectionName: 'tasks', schema });
  const meta = await storage.createStorageInstance({
    ...common,
    collectionName: 'rx-replication-meta-tasks',
    schema: getRxReplicationMetaInstanceSchema(schema as never, false) as never,
  });
  const write = async (batch: Record<string, unknown>[]) => {
    const lwt = Date.now();
    const stored = { _deleted: false, _attachments: {}, _rev: '1-bench' };
    await docs.bulkWrite(
      batch.map((doc) => ({ document: { ...doc, ...stored, _meta: { lwt } } as never })),
      'bench',
    );
    await meta.bulkWrite(
      batch.map((doc) => ({
        document: {
          id: `${doc.id}|0`,
          itemId: doc.id,
          isCheckpoint: '0',
          docData: doc,
          ...stored,
          _meta: { lwt },
        } as never,
      })),
      'bench',
    );
  };
  let batch: Record<string, unknown>[] = [];
  return pullEveryTask(url, token, async (documents, last) => {
    batch.push(...documents);
    if (batch.length < 10_000 && !last) return;
    await write(batch);
    batch = [];
    if (last) {
      await docs.close();
      await meta.close();
    }
  });
}

/**
 * Heap in use once garbage is collected; weak references (RxDB's document cache) are cleared only
 * after the job that last read them, hence the turns between collections.
 */
async function settledHeap(): Promise<number> {
  for (let round = 0; round < 3; round++) {
    global.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return process.memoryUsage().heapUsed;
}

/**
 * Time (ms) to open a replica of 50,000 tasks and resume its replication (the desktop app's start:
 * nothing new to pull), and the heap it holds while open when its storage is in this thread.
 */
async function openReplica(url: string, token: string, name: string, storage: RxStorage<unknown, unknown>) {
  const heapBefore = await settledHeap();
  const started = performance.now();
  const replica = await createOrbitaDatabase({ name, storage: storage as never, collections: ['tasks'] });
  const socket = io(`${url}/sync`, { auth: { token }, transports: ['websocket'] });
  try {
    const sync = startReplicaSync(replica, socket);
    await sync.awaitInitial();
    const count = await replica.tasks.count().exec();
    if (count !== TASKS) throw new Error(`reopened replica holds ${count} tasks, expected ${TASKS}`);
    const ms = performance.now() - started;
    const heapMiB = ((await settledHeap()) - heapBefore) / 2 ** 20;
    await sync.cancel();
    return { ms, heapMiB };
  } finally {
    socket.close();
    await replica.close();
  }
}

/**
 * A first sync of 50,000 tasks into an empty desktop replica (our SQLite storage, replication over
 * Socket.IO) against the raw pipeline: a `pg` SELECT of the same rows plus a better-sqlite3 bulk
 * insert of them as JSON. Also printed: the least the design adds to that pipeline.
 */
export async function run() {
  const database = await benchDatabase();
  // The server runs in a process of its own, as in production (never in the desktop app's); an
  // embedded PGlite database cannot be shared with another process, so it is served from this one.
  const server = database.url
    ? await benchServerProcess(database.url)
    : await benchApp(database).then(({ app, url }) => ({ url, stop: () => app.close() }));
  if (!database.url)
    console.log('  (server in this process: embedded PGlite; figures are higher than with PostgreSQL)');
  const { url } = server;
  const dir = await mkdtemp(path.join(tmpdir(), 'orbita-first-sync-'));
  try {
    const { accessToken } = await registerBenchAdmin(url);
    const form = await postJson(
      url,
      '/api/forms',
      { name: 'Readings', fields: [{ name: 'Amount', type: 'number' }] },
      accessToken,
    );
    // As an organization's tasks are: created and changed over time, one second apart here, in the
    // order they were written (the order a pull reads them in).
    await database.db.query(
      `INSERT INTO tasks (id, organization_id, form_id, status_id, title, description, fields, created_at, updated_at)
       SELECT gen_random_uuid(), f.organization_id, f.id, s.id, 'Task ' || n, 'Description of task ' || n,
              jsonb_build_object($2::text, (n % 1000)::text),
              now() - make_interval(secs => $3::int - n), now() - make_interval(secs => $3::int - n)
         FROM forms f JOIN form_statuses s ON s.form_id = f.id AND s.is_initial, generate_series(1, $3::int) AS n
        WHERE f.id = $1`,
      [form.id, form.fields[0].id, TASKS],
    );
    // A table holding 50,000 tasks has statistics (autovacuum analyzes after a bulk load); without
    // them the planner guesses a few rows and sorts the whole remainder for every page.
    await database.db.query('ANALYZE tasks');

    // Raw pipeline: read the rows, write them into SQLite. This machine's timings drift from run to
    // run (by half within minutes): it and the desktop topology are measured three times, a run of
    // each in turn so that both sample the same spells, and their medians compared.
    const sql = `SELECT id, form_id, status_id, title, description, fields, created_at, updated_at FROM tasks WHERE form_id = $1`;
    let rows: { id: string }[] = [];
    const rawRuns: number[] = [];
    const rawPipeline = async (run: number) => {
      const rawStarted = performance.now();
      rows = (await selectTasks(database, sql, form.id)) as { id: string }[];
      const sqlite = new Database(path.join(dir, `raw-${run}.sqlite`));
      sqlite.pragma('journal_mode = WAL');
      sqlite.exec('CREATE TABLE docs (id TEXT PRIMARY KEY, data TEXT NOT NULL)');
      const insert = sqlite.prepare('INSERT INTO docs (id, data) VALUES (?, ?)');
      sqlite.transaction((list: { id: string }[]) => {
        for (const row of list) insert.run(row.id, JSON.stringify(row));
      })(rows);
      sqlite.close();
      rawRuns.push(performance.now() - rawStarted);
    };
    // Ours: an empty replica pulling everything through /sync, its storage in a thread of its own
    // behind a message port as the desktop app runs it (the utility process), then in this thread.
    let rawMs = 0;
    const desktop = await startReplicaThread(path.join(dir, 'desktop'));
    try {
      const runs: { synced: number; saved: number }[] = [];
      for (let run = 0; run < RUNS; run++) {
        await rawPipeline(run);
        runs.push(await firstSync(url, accessToken, `bench-desktop-${run}`, remoteReplicaStorage(desktop.port)));
      }
      rawMs = median(rawRuns);
      const synced = median(runs.map((run) => run.synced));
      const saved = median(runs.map((run) => run.saved));
      const seconds = (values: number[]) => values.map((ms) => (ms / 1000).toFixed(2)).join(', ');
      report(
        `first sync of ${TASKS} tasks, storage in its own thread as in the desktop app, until the replica shows them (median ${(synced / 1000).toFixed(1)} s of ${seconds(runs.map((run) => run.synced))}) vs pg SELECT + SQLite bulk insert (median ${(rawMs / 1000).toFixed(1)} s of ${seconds(rawRuns)})`,
        TASKS / (synced / 1000),
        TASKS / (rawMs / 1000),
        'tasks/s',
      );
      report(
        `  … until they are on disk as well (median ${(saved / 1000).toFixed(1)} s)`,
        TASKS / (saved / 1000),
        TASKS / (rawMs / 1000),
        'tasks/s',
      );
      const { ms: openMs } = await openReplica(
        url,
        accessToken,
        `bench-desktop-${RUNS - 1}`,
        remoteReplicaStorage(desktop.port),
      );
      const readStarted = performance.now();
      const file = new Database(path.join(dir, 'raw-0.sqlite'), { readonly: true });
      const all = file.prepare('SELECT data FROM docs').pluck().all() as string[];
      for (const data of all) JSON.parse(data);
      file.close();
      const readMs = performance.now() - readStarted;
      report(
        `opening that replica (every document read into memory), resuming its replication and counting its tasks (${(openMs / 1000).toFixed(2)} s) vs reading and parsing the raw SQLite table (${(readMs / 1000).toFixed(2)} s)`,
        TASKS / (openMs / 1000),
        TASKS / (readMs / 1000),
        'tasks/s',
      );
    } finally {
      await desktop.stop();
    }
    // What the replication design adds at the least, on the same rows: JSON text over the wire
    // (written by the server, read by the replica) and a second write of each document, since
    // RxDB's replication keeps every document's assumed master state in its meta collection.
    const floorStarted = performance.now();
    const received = JSON.parse(JSON.stringify(rows)) as { id: string }[];
    const metaFile = new Database(path.join(dir, 'raw-meta.sqlite'));
    metaFile.pragma('journal_mode = WAL');
    metaFile.exec('CREATE TABLE meta (id TEXT PRIMARY KEY, data TEXT NOT NULL)');
    const insertMeta = metaFile.prepare('INSERT INTO meta (id, data) VALUES (?, ?)');
    metaFile.transaction((list: { id: string }[]) => {
      for (const row of list) insertMeta.run(`0|${row.id}`, JSON.stringify({ itemId: row.id, docData: row }));
    })(received);
    metaFile.close();
    const floorMs = rawMs + performance.now() - floorStarted;

    const inThread = await firstSync(url, accessToken, 'bench-in-thread', replicaStorage(dir));
    report(
      `first sync of ${TASKS} tasks, storage in the replication's thread, until shown (${(inThread.synced / 1000).toFixed(1)} s) vs the same raw pipeline`,
      TASKS / (inThread.synced / 1000),
      TASKS / (rawMs / 1000),
      'tasks/s',
    );
    report(
      `  … until on disk (${(inThread.saved / 1000).toFixed(1)} s)`,
      TASKS / (inThread.saved / 1000),
      TASKS / (rawMs / 1000),
      'tasks/s',
    );
    const opened = await openReplica(url, accessToken, 'bench-in-thread', replicaStorage(dir));
    console.log(
      `  the same replica opened in this thread: ${(opened.ms / 1000).toFixed(2)} s; heap held while open ≈ ${opened.heapMiB.toFixed(0)} MiB${global.gc ? '' : ' (without --expose-gc: rough)'}`,
    );
    const onDisk = await firstSync(
      url,
      accessToken,
      'bench-sqlite-only',
      getRxStorageBetterSqlite({ databaseDirectory: dir }) as RxStorage<unknown, unknown>,
    );
    report(
      `first sync of ${TASKS} tasks straight into SQLite (no memory copy), in the replication's thread (${(onDisk.saved / 1000).toFixed(1)} s) vs the same raw pipeline`,
      TASKS / (onDisk.saved / 1000),
      TASKS / (rawMs / 1000),
      'tasks/s',
    );
    console.log(
      `  floor of the design (the raw pipeline + JSON over the wire + replication meta written): ${(floorMs / 1000).toFixed(1)} s = ${(floorMs / rawMs).toFixed(2)}x the raw pipeline`,
    );
    // Every task pulled over /sync and parsed, nothing stored.
    const pulledMs = await pullEveryTask(url, accessToken, () => undefined);
    console.log(
      `  every task pulled over /sync and parsed, nothing stored: ${(pulledMs / 1000).toFixed(1)} s = ${(pulledMs / rawMs).toFixed(2)}x the raw pipeline`,
    );
    const directMs = await pulledIntoStorage(url, accessToken, path.join(dir, 'direct'));
    console.log(
      `  every task pulled and written with its meta data straight into the replica's storage, no RxDB replication (not built): ${(directMs / 1000).toFixed(1)} s = ${(directMs / rawMs).toFixed(2)}x the raw pipeline`,
    );
  } finally {
    await server.stop();
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  }
}
