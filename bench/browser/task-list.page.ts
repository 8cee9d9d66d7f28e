import { firstValueFrom } from 'rxjs';
import { createOrbitaDatabase } from '../../renderer/src/data/database';
import { browserReplicaStorage } from '../../renderer/src/data/storage';
import { newestTasksPage, taskListSelector } from '../../renderer/src/data/task-pages';
import { replicaTasks } from '../../test/fixtures/replica-tasks';

const PAGE = 50;

async function time(rounds: number, run: () => Promise<unknown>): Promise<number> {
  await run();
  const started = performance.now();
  for (let round = 0; round < rounds; round++) await run();
  return (performance.now() - started) / rounds;
}

/**
 * The browser build's task list on 50,000 tasks (RxDB on Dexie, IndexedDB in Chromium) against
 * IndexedDB read directly: the 50 newest records by a descending cursor on an index.
 */
async function runBench(count: number) {
  const formId = '00000000-0000-7000-8000-00000000000f';
  // One task in 500 is the reader's own ("mine").
  const me = '00000000-0000-7000-8000-0000000000a1';
  const tasks = replicaTasks(count, formId, undefined, { userId: me, every: 500 });

  // Raw: one object store with a (formId, updatedAt) index, read backwards.
  const raw = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open('raw-bench', 1);
    request.onupgradeneeded = () => {
      request.result.createObjectStore('tasks', { keyPath: 'id' }).createIndex('list', ['formId', 'updatedAt']);
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  await new Promise<void>((resolve, reject) => {
    const tx = raw.transaction('tasks', 'readwrite');
    for (const one of tasks) tx.objectStore('tasks').put(one);
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
  });
  const rawPage = () =>
    new Promise<unknown[]>((resolve, reject) => {
      const rows: unknown[] = [];
      const range = IDBKeyRange.bound([formId, ''], [formId, '\uffff']);
      const request = raw.transaction('tasks').objectStore('tasks').index('list').openCursor(range, 'prev');
      request.onsuccess = () => {
        const cursor = request.result;
        if (cursor && rows.length < PAGE) {
          rows.push(cursor.value);
          cursor.continue();
        } else resolve(rows);
      };
      request.onerror = () => reject(request.error);
    });
  const rawMs = await time(5, rawPage);

  const db = await createOrbitaDatabase({ name: 'bench', storage: browserReplicaStorage(), collections: ['tasks'] });
  for (let at = 0; at < tasks.length; at += 5_000) {
    const { error } = await db.tasks.bulkInsert(tasks.slice(at, at + 5_000));
    if (error.length > 0) throw new Error(`bulkInsert refused: ${JSON.stringify(error[0]).slice(0, 500)}`);
  }
  const stored = await db.tasks.count().exec();
  if (stored !== count) throw new Error(`the replica holds ${stored} tasks, expected ${count}`);
  await db.close();
  const selector = { formId };
  type Db = Awaited<ReturnType<typeof createOrbitaDatabase>>;
  // Each read on a freshly opened replica, so that RxDB's query cache answers none of them.
  const timedOnDb = async (rounds: number, run: (db: Db) => Promise<unknown>) => {
    let total = 0;
    for (let round = 0; round <= rounds; round++) {
      const opened = await createOrbitaDatabase({
        name: 'bench',
        storage: browserReplicaStorage(),
        collections: ['tasks'],
      });
      const started = performance.now();
      await run(opened);
      if (round > 0) total += performance.now() - started;
      await opened.close();
    }
    return total / rounds;
  };
  // As the list reads it: a live count, then the page (`newestTasksPage`).
  const pagedMs = await timedOnDb(3, async (db) => {
    const total = await db.tasks.count({ selector }).exec();
    return firstValueFrom(newestTasksPage(db.tasks as never, selector, 1, PAGE, total));
  });
  // The way it was read before: the last page of the ascending index order, reached with `skip`.
  const skippedMs = await timedOnDb(3, async (db) => {
    const total = await db.tasks.count({ selector }).exec();
    const docs = await db.tasks
      .find({ selector, sort: [{ updatedAt: 'asc' }, { id: 'asc' }], skip: Math.max(0, total - PAGE), limit: PAGE })
      .exec();
    return docs.map((doc) => doc.toJSON()).reverse();
  });
  const wholeMs = await timedOnDb(1, async (db) =>
    (await db.tasks.find({ selector }).exec()).map((doc) => doc.toJSON()),
  );
  const mine = (docs: { toJSON(): unknown }[]) =>
    docs.map((doc) => doc.toJSON() as { assignees: { userId: string }[] });
  // "Mine" as the list reads it (tested in the storage), and as it did (every task into the page).
  const mineMs = await timedOnDb(1, async (db) =>
    mine(await db.tasks.find({ selector: taskListSelector({ formId, assigneeId: me }) }).exec()),
  );
  const mineHereMs = await timedOnDb(1, async (db) =>
    mine(await db.tasks.find({ selector }).exec()).filter((task) => task.assignees.some((a) => a.userId === me)),
  );
  return { rawMs, pagedMs, skippedMs, wholeMs, mineMs, mineHereMs };
}

Object.assign(window, { runBench });
