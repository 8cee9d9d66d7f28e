import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { IDBCursor, IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { filter, firstValueFrom } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { replicaStorage } from '../../../electron/backend/replica-host';
import { createOrbitaDatabase, type OrbitaDatabase } from './database';
import type { TaskDocument } from './schemas';
import { browserReplicaStorage } from './storage';
import { newestTasksPage, type TaskListFilter, taskListSelector } from './task-pages';

const FORM = '00000000-0000-7000-8000-00000000000f';
const PAGE = 50;
const opened: OrbitaDatabase[] = [];
let names = 0;

const directories: string[] = [];

afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function temporaryDirectory(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'orbita-list-'));
  directories.push(dir);
  return dir;
}

function task(n: number, updatedAt: string): TaskDocument {
  return {
    id: `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`,
    formId: FORM,
    statusId: '00000000-0000-7000-8000-000000000001',
    title: `Task ${n}`,
    description: '',
    fields: {},
    labels: {},
    assignees: [],
    createdBy: null,
    createdAt: updatedAt,
    updatedAt,
  };
}

/** A second apart from 2026-01-01, from task 0 (oldest) on. */
function seconds(count: number): TaskDocument[] {
  return Array.from({ length: count }, (_, n) => task(n, new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString()));
}

async function replicaWith(tasks: TaskDocument[], storage = getRxStorageMemory()): Promise<OrbitaDatabase> {
  const db = await createOrbitaDatabase({
    name: `pages-${++names}`,
    storage: storage as never,
    collections: ['tasks'],
  });
  opened.push(db);
  await db.tasks.bulkInsert(tasks);
  return db;
}

/** What the list shows: newest first, by `updatedAt` then `id`. */
function expected(tasks: TaskDocument[], page: number): string[] {
  return [...tasks]
    .sort((a, b) =>
      a.updatedAt === b.updatedAt ? (a.id < b.id ? 1 : -1) : (a.updatedAt as string) < (b.updatedAt as string) ? 1 : -1,
    )
    .slice((page - 1) * PAGE, page * PAGE)
    .map((one) => one.title as string);
}

async function pageOf(db: OrbitaDatabase, page: number, selector = { formId: FORM }): Promise<string[]> {
  const total = await db.tasks.count({ selector }).exec();
  const docs = await firstValueFrom(newestTasksPage(db.tasks as never, selector, page, PAGE, total));
  return docs.map((doc) => doc.title as string);
}

describe('pages of the task list, newest first', () => {
  it('gives every page, first to last, in the order the list shows', async () => {
    const tasks = seconds(230);
    const db = await replicaWith(tasks);
    for (const page of [1, 2, 3, 4, 5]) expect(await pageOf(db, page)).toEqual(expected(tasks, page));
  });

  it('orders tasks of the same moment by id and splits them across pages', async () => {
    // A batch: 120 tasks written in one transaction share their time, among older and newer ones.
    const batchAt = new Date(Date.UTC(2026, 2, 1)).toISOString();
    const tasks = [
      ...seconds(40),
      ...Array.from({ length: 120 }, (_, n) => task(1_000 + n, batchAt)),
      ...Array.from({ length: 30 }, (_, n) => task(2_000 + n, new Date(Date.UTC(2026, 3, 1) + n).toISOString())),
    ];
    const db = await replicaWith(tasks);
    for (const page of [1, 2, 3, 4]) expect(await pageOf(db, page)).toEqual(expected(tasks, page));
  });

  it('finds the newest even when a clock far ahead stamped some of them', async () => {
    const tasks = [
      ...seconds(200),
      ...Array.from({ length: 60 }, (_, n) => task(5_000 + n, new Date(Date.UTC(2100, 0, 1) + n).toISOString())),
    ];
    const db = await replicaWith(tasks);
    for (const page of [1, 2, 3]) expect(await pageOf(db, page)).toEqual(expected(tasks, page));
  });

  it('stays live: a task changed elsewhere comes to the top of the first page', async () => {
    const tasks = seconds(300);
    const db = await replicaWith(tasks);
    const selector = { formId: FORM };
    const total = await db.tasks.count({ selector }).exec();
    const page = newestTasksPage(db.tasks as never, selector, 1, PAGE, total);
    const edited = firstValueFrom(page.pipe(filter((docs) => docs[0]?.title === 'Task 7, checked')));
    await firstValueFrom(page);
    const old = await db.tasks.findOne(tasks[7]?.id).exec();
    await old?.incrementalPatch({ title: 'Task 7, checked', updatedAt: new Date(Date.UTC(2026, 5, 1)).toISOString() });
    const docs = await edited;
    expect(docs).toHaveLength(PAGE);
    expect(docs.map((doc) => doc.title).slice(1)).toEqual(expected(tasks, 1).slice(0, PAGE - 1));
  });

  it('reads about a page of IndexedDB records for the newest page, not the whole index', async () => {
    const tasks = seconds(2_000);
    const db = await replicaWith(tasks, browserReplicaStorage({ indexedDB: new IDBFactory(), IDBKeyRange }) as never);
    // Records IndexedDB walks with cursors (the browser build's storage reads every skipped one).
    const cursor = IDBCursor.prototype as unknown as { continue(key?: unknown): void };
    const step = cursor.continue;
    let walked = 0;
    cursor.continue = function (this: unknown, key?: unknown) {
      walked += 1;
      return step.call(this, key);
    };
    try {
      expect(await pageOf(db, 1)).toEqual(expected(tasks, 1));
      expect(walked).toBeLessThan(3 * PAGE);
      walked = 0;
      expect(await pageOf(db, 40)).toEqual(expected(tasks, 40));
      expect(walked).toBeLessThan(3 * PAGE);
    } finally {
      cursor.continue = step;
    }
  });
});

describe('the filtered task list (mine, search)', () => {
  const ME = '00000000-0000-7000-8000-0000000000a1';
  const OTHER = '00000000-0000-7000-8000-0000000000b2';
  const DONE = '00000000-0000-7000-8000-000000000002';
  const assigned = (userId: string) => [
    { userId, source: 'manual', delegated_from_user_id: null, pending_review: false, addedAt: '2026-01-01T00:00:00Z' },
  ];
  const tasks: TaskDocument[] = [
    { ...task(1, '2026-01-01T00:00:01Z'), title: 'Котёл в подвале', assignees: assigned(ME) },
    {
      ...task(2, '2026-01-01T00:00:02Z'),
      title: 'Boiler (north) [2]',
      description: 'check.valves',
      assignees: assigned(OTHER),
    },
    {
      ...task(3, '2026-01-01T00:00:03Z'),
      title: 'Pump',
      description: 'Котёл рядом',
      statusId: DONE,
      assignees: assigned(ME),
    },
    {
      ...task(4, '2026-01-01T00:00:04Z'),
      title: 'Котёл другой формы',
      formId: 'another-form',
      assignees: assigned(ME),
    },
  ];
  const cases: [TaskListFilter, string[]][] = [
    [{ formId: FORM, assigneeId: ME }, ['Котёл в подвале', 'Pump']],
    [{ formId: FORM, search: 'КОТЁЛ' }, ['Котёл в подвале', 'Pump']],
    // Typed characters are matched as themselves, not as a pattern.
    [{ formId: FORM, search: '(north) [' }, ['Boiler (north) [2]']],
    [{ formId: FORM, search: 'k.v' }, ['Boiler (north) [2]']],
    [{ formId: FORM, search: 'c.v' }, []],
    [{ statusId: DONE, assigneeId: ME, search: 'котёл' }, ['Pump']],
    [{ formId: FORM, assigneeId: OTHER, search: 'котёл' }, []],
    [{ formId: FORM, search: '   ' }, ['Котёл в подвале', 'Boiler (north) [2]', 'Pump']],
    [{ assigneeId: ME, search: 'котёл' }, ['Котёл в подвале', 'Pump', 'Котёл другой формы']],
  ];
  const storages = {
    'the desktop replica': () => replicaStorage(temporaryDirectory()),
    'the browser build (IndexedDB)': () => browserReplicaStorage({ indexedDB: new IDBFactory(), IDBKeyRange }),
  };
  for (const [name, storage] of Object.entries(storages)) {
    it(`finds the tasks of an assignee and those containing a text, in any case, on ${name}`, async () => {
      const db = await replicaWith(tasks, storage() as never);
      for (const [filter, titles] of cases) {
        const found = await db.tasks.find({ selector: taskListSelector(filter), sort: [{ id: 'asc' }] }).exec();
        expect([filter, found.map((doc) => doc.title)]).toEqual([filter, titles]);
      }
    });
  }
});
