import { mkdtemp, rm } from 'node:fs/promises';
import { register } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { RxStorage } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { getRxStorageMemoryMapped } from '../electron/backend/rx-storage-memory-mapped/index';
import { getRxStorageBetterSqlite } from '../electron/backend/rx-storage-sqlite/index';

/**
 * RxDB's `runPerformanceTests` imports two of RxDB's own development packages that RxDB does not
 * declare as dependencies (`async-test-util` for `wait`/`randomString`, `clone`). When they are not
 * installed, this resolve hook stands in for them with the two functions and the clone it uses; an
 * installed package always wins.
 */
const STAND_INS = {
  'async-test-util': `export const wait = (ms = 0) => new Promise((done) => setTimeout(done, ms));
export function randomString(length = 10, charset = 'abcdefghijklmnopqrstuvwxyz') {
  let text = '';
  for (let i = 0; i < length; i++) text += charset[Math.floor(Math.random() * charset.length)];
  return text;
}`,
  clone: 'export default (value) => structuredClone(value);',
};
const RESOLVE_HOOK = `const standIns = ${JSON.stringify(
  Object.fromEntries(
    Object.entries(STAND_INS).map(([name, source]) => [name, `data:text/javascript,${encodeURIComponent(source)}`]),
  ),
)};
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    if (error?.code === 'ERR_MODULE_NOT_FOUND' && Object.hasOwn(standIns, specifier)) {
      return { url: standIns[specifier], shortCircuit: true };
    }
    throw error;
  }
}`;

/** Published figures of RxDB's premium SQLite storage for 3,000 documents (ms). */
const PREMIUM_SQLITE_REFERENCE: Record<string, number> = {
  'insert-documents-500': 9,
  'find-by-ids-3000': 20,
  'find-by-query': 17,
};

type TestUtils = typeof import('rxdb/plugins/test-utils');

/**
 * What any storage keeping RxDB's documents as JSON in SQLite pays at least: bare better-sqlite3
 * (one `(id, data)` table, WAL, `synchronous = NORMAL` as the storage) doing the operations
 * `runPerformanceTests` times, on the same kind of documents, with none of the storage's work
 * (conflict checks, index columns, change events) and none of RxDB's. Averaged as RxDB averages.
 */
function bareSqliteFloor(utils: TestUtils, directory: string, runs: number): Record<string, number> {
  const times: Record<string, number[]> = {};
  const measure = (metric: string, operation: () => void) => {
    const started = performance.now();
    operation();
    times[metric] = [...(times[metric] ?? []), performance.now() - started];
  };
  const document = (partial = {}) => ({
    ...utils.averageSchemaData(partial),
    _deleted: false,
    _meta: { lwt: Date.now() },
    _rev: '1-bareSqliteFloor',
    _attachments: {},
  });
  for (let run = 0; run < runs; run++) {
    let db!: Database.Database;
    // A new database file with a table per collection (RxDB's own store and the test's four) and one insert.
    measure('time-to-first-insert', () => {
      db = new Database(path.join(directory, `floor-${run}.sqlite`));
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      for (let table = 0; table < 4; table++) {
        db.exec(`CREATE TABLE docs${table} (id TEXT PRIMARY KEY NOT NULL, data TEXT NOT NULL)`);
      }
      db.exec('CREATE TABLE docs (id TEXT PRIMARY KEY NOT NULL, data TEXT NOT NULL)');
      const first = document();
      db.prepare('INSERT INTO docs1 (id, data) VALUES (?, ?)').run(first.id, JSON.stringify(first));
    });
    const insert = db.prepare('INSERT INTO docs (id, data) VALUES (?, ?)');
    const insertAll = db.transaction((docs: { id: string }[]) => {
      for (const doc of docs) insert.run(doc.id, JSON.stringify(doc));
    });
    const ids: string[] = [];
    for (let batch = 0; batch < 6; batch++) {
      const docs = Array.from({ length: 500 }, (_, index) => document({ var1: `${index % 2}`, var2: index % 4 }));
      for (const doc of docs) ids.push(doc.id);
      measure('insert-documents-500', () => insertAll(docs));
    }
    const byIds = db.prepare('SELECT d.data FROM json_each(?) j CROSS JOIN docs d ON d.id = j.value').pluck();
    measure('find-by-ids-3000', () => {
      for (const data of byIds.all(JSON.stringify(ids)) as string[]) JSON.parse(data);
    });
    measure('serial-inserts-50', () => {
      for (let index = 0; index < 50; index++) insertAll([document({ var2: 1000 })]);
    });
    const all = db.prepare('SELECT data FROM docs').pluck();
    measure('find-by-query', () => {
      for (const data of all.all() as string[]) JSON.parse(data);
    });
    db.close();
  }
  return Object.fromEntries(
    Object.entries(times).map(([metric, values]) => [metric, utils.averageOfTimeValues(values, 95)]),
  );
}

/**
 * Our RxDB storage on better-sqlite3 (a file database in a temporary directory) against RxDB's
 * in-memory storage, both through RxDB's own `runPerformanceTests` in the same process. Times are
 * milliseconds (lower is better); the goal is at most 3× the memory storage.
 */
export async function run() {
  register(`data:text/javascript,${encodeURIComponent(RESOLVE_HOOK)}`);
  const utils = await import('rxdb/plugins/test-utils');
  const { runPerformanceTests } = utils;
  const runs = Number(process.env.RX_BENCH_RUNS ?? 20);
  const config = { runs, waitBetweenTests: 20, log: false };
  const directory = await mkdtemp(path.join(tmpdir(), 'orbita-rx-bench-'));
  try {
    const sqlite = getRxStorageBetterSqlite({ databaseDirectory: directory }) as unknown as RxStorage<unknown, unknown>;
    const mapped = getRxStorageMemoryMapped({
      // As the desktop replica runs it: memory answers queries, so the files keep no query indexes.
      storage: getRxStorageBetterSqlite({ databaseDirectory: path.join(directory, 'mapped'), indexes: false }),
    }) as unknown as RxStorage<unknown, unknown>;
    const memory = getRxStorageMemory() as unknown as RxStorage<unknown, unknown>;
    // One warm-up run each, so none pays the JIT and module loading for the others.
    for (const storage of [sqlite, mapped, memory])
      await runPerformanceTests(storage, 'warm-up', { ...config, runs: 1 });
    const results = {
      'better-sqlite3 (file, WAL)': await runPerformanceTests(sqlite, 'better-sqlite3', config),
      'memory-mapped over better-sqlite3': await runPerformanceTests(mapped, 'memory-mapped', config),
    };
    const baseline = await runPerformanceTests(memory, 'memory', config);
    const floor = bareSqliteFloor(utils, directory, runs);
    console.log(
      `RxDB runPerformanceTests: ${baseline.docsAmount} documents, ${baseline.collectionsAmount} collections, ${runs} runs`,
    );
    for (const [name, ours] of Object.entries(results)) {
      console.log(`-- ${name} (the ratio is its time over RxDB's memory storage's; goal ≤ 3x)`);
      for (const [metric, value] of Object.entries(ours)) {
        const base = baseline[metric];
        if (
          typeof value !== 'number' ||
          typeof base !== 'number' ||
          metric === 'docsAmount' ||
          metric === 'collectionsAmount'
        ) {
          continue;
        }
        const reference = PREMIUM_SQLITE_REFERENCE[metric];
        const bare = floor[metric];
        console.log(
          `${metric}: ${value.toFixed(2)} ms vs memory ${base.toFixed(2)} ms — ratio ${(value / base).toFixed(2)}x${
            reference === undefined ? '' : ` (premium SQLite storage published ≈ ${reference} ms)`
          }${
            bare === undefined
              ? ''
              : `; bare better-sqlite3 + JSON ${bare.toFixed(2)} ms = ${(bare / base).toFixed(2)}x memory, this ${(value / bare).toFixed(2)}x bare`
          }`,
        );
      }
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
