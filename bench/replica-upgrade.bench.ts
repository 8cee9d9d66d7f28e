import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createRxDatabase } from 'rxdb';
import { replicaStorage } from '../electron/backend/replica-host';
import { createOrbitaDatabase } from '../renderer/src/data/database';
import { replicaTasks } from '../test/fixtures/replica-tasks';
import { report } from './lib';

const TASKS = 50_000;
/** A pull batch: the documents of one bulk write share their write time. */
const BATCH = 10_000;

/**
 * Opening a desktop replica of 50,000 tasks written by release 0.1.0 (tasks schema version 0):
 * RxDB migrates every task to the current schema before the replica opens. Against the raw work:
 * reading every row of a SQLite table, parsing it and writing it to another table.
 */
export async function run() {
  const dir = await mkdtemp(path.join(tmpdir(), 'orbita-upgrade-bench-'));
  try {
    const fixture = fileURLToPath(new URL('../test/fixtures/replica-schemas-0.1.0.json', import.meta.url));
    const released = JSON.parse(readFileSync(fixture, 'utf8')) as { tasks: unknown };
    const tasks = replicaTasks(TASKS, '00000000-0000-7000-8000-00000000000f');
    const old = await createRxDatabase({ name: 'upgrade', storage: replicaStorage(dir), multiInstance: false });
    const { tasks: collection } = await old.addCollections({ tasks: { schema: released.tasks } } as never);
    for (let at = 0; at < tasks.length; at += BATCH) await collection?.bulkInsert(tasks.slice(at, at + BATCH));
    await old.close();

    const raw = new Database(path.join(dir, 'raw.sqlite'));
    raw.pragma('journal_mode = WAL');
    raw.exec(
      'CREATE TABLE old (id TEXT PRIMARY KEY, data TEXT NOT NULL); CREATE TABLE new (id TEXT PRIMARY KEY, data TEXT NOT NULL)',
    );
    const insertOld = raw.prepare('INSERT INTO old VALUES (?, ?)');
    raw.transaction(() => {
      for (const task of tasks) insertOld.run(task.id, JSON.stringify(task));
    })();
    const rawStarted = performance.now();
    const insertNew = raw.prepare('INSERT INTO new VALUES (?, ?)');
    raw.transaction(() => {
      for (const data of raw.prepare('SELECT data FROM old').pluck().all() as string[]) {
        const task = JSON.parse(data) as { id: string };
        insertNew.run(task.id, JSON.stringify(task));
      }
    })();
    const rawMs = performance.now() - rawStarted;
    raw.close();

    const started = performance.now();
    const upgraded = await createOrbitaDatabase({
      name: 'upgrade',
      storage: replicaStorage(dir) as never,
      collections: ['tasks'],
    });
    const ms = performance.now() - started;
    const count = await upgraded.tasks.count().exec();
    await upgraded.close();
    if (count !== TASKS) throw new Error(`the upgraded replica holds ${count} tasks, expected ${TASKS}`);
    report(
      `opening a 0.1.0 replica of ${TASKS} tasks, migrated to the current schema (${(ms / 1000).toFixed(1)} s) vs copying a SQLite table row by row (${(rawMs / 1000).toFixed(2)} s)`,
      TASKS / (ms / 1000),
      TASKS / (rawMs / 1000),
      'tasks/s',
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
