import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { firstValueFrom } from 'rxjs';
import { replicaStorage } from '../electron/backend/replica-host';
import { getRxStorageBetterSqlite } from '../electron/backend/rx-storage-sqlite';
import { createOrbitaDatabase } from '../renderer/src/data/database';
import { newestTasksPage, taskListSelector } from '../renderer/src/data/task-pages';
import { replicaTasks } from '../test/fixtures/replica-tasks';
import { report } from './lib';

const TASKS = 50_000;
const PAGE = 50;
const ROUNDS = 20;

/**
 * The first page of the task list (50 newest of 50,000 tasks in one form) read from a replica as
 * the list reads it (a count and `newestTasksPage`) against bare
 * better-sqlite3 reading the same 50 rows by an index and parsing them: on the desktop replica's
 * storage (documents in memory over SQLite files, as the replica process serves it) and on the
 * SQLite storage alone. Also printed: reading every task of the form and ordering them here, and
 * "mine" (the reader's tasks) tested in the storage, as the list reads it, against every task read
 * and tested in the page.
 */
export async function run() {
  const dir = await mkdtemp(path.join(tmpdir(), 'orbita-task-list-'));
  try {
    const formId = randomUUID();
    // One task in 500 is the reader's own ("mine").
    const me = randomUUID();
    const tasks = replicaTasks(TASKS, formId, undefined, { userId: me, every: 500 });
    const raw = new Database(path.join(dir, 'raw.sqlite'));
    raw.pragma('journal_mode = WAL');
    raw.exec('CREATE TABLE tasks (id TEXT PRIMARY KEY, form_id TEXT, updated_at TEXT, data TEXT NOT NULL)');
    raw.exec('CREATE INDEX tasks_list ON tasks (form_id, updated_at)');
    const insert = raw.prepare('INSERT INTO tasks VALUES (?, ?, ?, ?)');
    raw.transaction(() => {
      for (const task of tasks) insert.run(task.id, task.formId, task.updatedAt, JSON.stringify(task));
    })();
    const newest = raw.prepare('SELECT data FROM tasks WHERE form_id = ? ORDER BY updated_at DESC LIMIT ?').pluck();
    const selector = { formId };
    let rawTotal = 0;
    for (let round = 0; round <= ROUNDS; round++) {
      const begun = performance.now();
      (newest.all(formId, PAGE) as string[]).map((data) => JSON.parse(data));
      if (round > 0) rawTotal += performance.now() - begun;
    }
    const rawMs = rawTotal / ROUNDS;

    const storages = [
      { name: 'desktop replica (in memory over SQLite)', storage: replicaStorage(path.join(dir, 'desktop')) as never },
      {
        name: 'SQLite storage alone',
        storage: getRxStorageBetterSqlite({ databaseDirectory: path.join(dir, 'sqlite') }) as never,
      },
    ];
    for (const { name, storage } of storages) {
      const writer = await createOrbitaDatabase({ name: 'list', storage, collections: ['tasks'] });
      await writer.tasks.bulkInsert(tasks);
      await writer.close();

      // Each read on a freshly opened replica, so that RxDB's query cache answers none of them.
      const timed = async (operation: (db: Awaited<ReturnType<typeof createOrbitaDatabase>>) => Promise<unknown>) => {
        let total = 0;
        for (let round = 0; round <= ROUNDS; round++) {
          const db = await createOrbitaDatabase({ name: 'list', storage, collections: ['tasks'] });
          const begun = performance.now();
          await operation(db);
          if (round > 0) total += performance.now() - begun;
          await db.close();
        }
        return total / ROUNDS;
      };
      const pagedMs = await timed(async (db) => {
        const total = await db.tasks.count({ selector }).exec();
        return firstValueFrom(newestTasksPage(db.tasks as never, selector, 1, PAGE, total));
      });
      const wholeMs = await timed(async (db) =>
        (await db.tasks.find({ selector }).exec())
          .map((doc) => doc.toJSON() as { updatedAt: string })
          .sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1))
          .slice(0, PAGE),
      );
      report(
        `task list, first page of ${TASKS} tasks, ${name} (${pagedMs.toFixed(1)} ms)`,
        1000 / pagedMs,
        1000 / rawMs,
        'pages/s',
      );
      console.log(`  every task of the form read and ordered instead: ${wholeMs.toFixed(0)} ms`);
      const newestFirst = (docs: { toJSON(): unknown }[]) =>
        docs.map((doc) => doc.toJSON() as { updatedAt: string }).sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1));
      const mineMs = await timed(async (db) =>
        newestFirst(await db.tasks.find({ selector: taskListSelector({ formId, assigneeId: me }) }).exec()),
      );
      const mineHereMs = await timed(async (db) =>
        newestFirst(
          (await db.tasks.find({ selector }).exec()).filter((doc) =>
            (doc.toJSON() as { assignees: { userId: string }[] }).assignees.some((a) => a.userId === me),
          ),
        ),
      );
      console.log(
        `  "mine" (${TASKS / 500} tasks): tested in the storage ${mineMs.toFixed(0)} ms, every task read and tested here ${mineHereMs.toFixed(0)} ms`,
      );
    }
    raw.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
