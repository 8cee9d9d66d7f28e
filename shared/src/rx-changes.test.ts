import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import {
  fillWithDefaultSettings,
  getChangedDocumentsSince,
  type PreparedQuery,
  type RxDocumentData,
  type RxJsonSchema,
  type RxStorage,
  type RxStorageDefaultCheckpoint,
  type RxStorageInstance,
} from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { describe, expect, it } from 'vitest';
import { changedDocumentsSince } from './rx-changes';

interface Note {
  id: string;
  text: string;
}

const schema = fillWithDefaultSettings({
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: { id: { type: 'string', maxLength: 40 }, text: { type: 'string' } },
  required: ['id', 'text'],
} as RxJsonSchema<Note>);

let names = 0;

/** An instance holding three bulk writes (each sharing one write time), the middle one with tombstones. */
async function filled(storage: RxStorage<unknown, unknown>) {
  const instance = (await storage.createStorageInstance({
    databaseInstanceToken: 'token',
    databaseName: `changes-${++names}`,
    collectionName: 'notes',
    schema,
    options: {},
    multiInstance: false,
    devMode: false,
  })) as unknown as RxStorageInstance<Note, unknown, unknown, RxStorageDefaultCheckpoint>;
  const block = async (from: number, count: number, lwt: number, deleted = false) => {
    const rows = Array.from({ length: count }, (_, n) => ({
      document: {
        // Ids out of write order, so that the order by id within a block is a real order.
        id: `note-${String((from + n * 37) % 1000).padStart(4, '0')}-${from + n}`,
        text: `Note ${from + n}`,
        _deleted: deleted,
        _attachments: {},
        _rev: '1-a',
        _meta: { lwt },
      } as RxDocumentData<Note>,
    }));
    const { error } = await instance.bulkWrite(rows, 'test');
    expect(error).toEqual([]);
  };
  await block(0, 120, 1_000);
  await block(120, 90, 2_000, true);
  await block(210, 75, 3_000);
  return instance;
}

async function pagedThrough(
  read: (
    checkpoint?: RxStorageDefaultCheckpoint,
  ) => Promise<{ documents: RxDocumentData<Note>[]; checkpoint: RxStorageDefaultCheckpoint }>,
) {
  const seen: string[] = [];
  let checkpoint: RxStorageDefaultCheckpoint | undefined;
  for (;;) {
    const page = await read(checkpoint);
    if (page.documents.length === 0) {
      expect(page.checkpoint).toEqual(checkpoint ?? { id: '', lwt: 0 });
      return seen;
    }
    seen.push(...page.documents.map((doc) => `${doc._meta.lwt}|${doc.id}|${doc._deleted}`));
    checkpoint = page.checkpoint;
  }
}

describe.each([
  ['RxDB memory storage', () => getRxStorageMemory() as RxStorage<unknown, unknown>],
  [
    'Dexie on IndexedDB',
    () => getRxStorageDexie({ indexedDB: new IDBFactory(), IDBKeyRange }) as unknown as RxStorage<unknown, unknown>,
  ],
])('changes since a checkpoint on %s', (_name, storage) => {
  it('pages through every document once, tombstones included, in write time then id order, as RxDB does', async () => {
    const instance = await filled(storage());
    const ours = await pagedThrough((checkpoint) => changedDocumentsSince(instance, 7, checkpoint));
    expect(ours).toHaveLength(285);
    expect(new Set(ours).size).toBe(285);
    expect(ours).toEqual([...ours].sort());
    expect(ours.filter((entry) => entry.endsWith('|true'))).toHaveLength(90);
    // The same answer as RxDB's own way, page for page.
    expect(await pagedThrough((checkpoint) => getChangedDocumentsSince(instance, 7, checkpoint))).toEqual(ours);
    await instance.close();
  });

  it('answers every page from the index alone, without testing documents one by one', async () => {
    const instance = await filled(storage());
    const plans: boolean[] = [];
    const query = instance.query.bind(instance);
    instance.query = (prepared: PreparedQuery<Note>) => {
      plans.push(prepared.queryPlan.selectorSatisfiedByIndex);
      return query(prepared);
    };
    await pagedThrough((checkpoint) => changedDocumentsSince(instance, 7, checkpoint));
    expect(plans.length).toBeGreaterThan(0);
    expect(plans.every(Boolean)).toBe(true);
    // RxDB's own way tests every document from the checkpoint's write time on.
    plans.length = 0;
    await getChangedDocumentsSince(instance, 7, { id: '', lwt: 1_000 });
    expect(plans).toEqual([false]);
    await instance.close();
  });
});
