import { readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type BulkWriteRow,
  createRxDatabase,
  type EventBulk,
  fillWithDefaultSettings,
  getChangedDocumentsSince,
  META_INSTANCE_SCHEMA_TITLE,
  normalizeMangoQuery,
  now,
  prepareQuery,
  type RxDocumentData,
  type RxJsonSchema,
  type RxStorage,
  type RxStorageChangeEvent,
  type RxStorageDefaultCheckpoint,
  type RxStorageInstance,
  randomToken,
} from 'rxdb';
import { RxStorageInstanceMemory } from 'rxdb/plugins/storage-memory';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getRxStorageBetterSqlite } from '../rx-storage-sqlite';
import { revise, storedDocument } from '../storage-documents.fixture';
import { getRxStorageMemoryMapped, persistAllMemoryMapped } from './index';

type Item = { id: string; title: string; rank: number };
type ItemDoc = RxDocumentData<Item>;
type Instance = RxStorageInstance<Item, unknown, unknown, RxStorageDefaultCheckpoint>;

function itemSchema(version = 0): RxJsonSchema<ItemDoc> {
  return fillWithDefaultSettings<Item>({
    version,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id: { type: 'string', maxLength: 20 },
      title: { type: 'string', maxLength: 40 },
      rank: { type: 'integer', minimum: 0, maximum: 1000, multipleOf: 1 },
    },
    required: ['id', 'title', 'rank'],
    indexes: ['rank'],
  });
}

function item(id: string, fields: Partial<Item> = {}, meta: { deleted?: boolean; lwt?: number } = {}): ItemDoc {
  return storedDocument<Item>({ id, title: `title ${id}`, rank: 1, ...fields }, meta);
}

const ctx = 'rx-storage-memory-mapped.test';
let directory = '';
const opened: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'orbita-memory-mapped-'));
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((instance) => instance.close()));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

function sqlite() {
  return getRxStorageBetterSqlite({ databaseDirectory: directory }) as unknown as RxStorage<unknown, unknown>;
}

async function open(
  storage: RxStorage<unknown, unknown>,
  databaseName: string,
  options: { collectionName?: string; version?: number; title?: string } = {},
): Promise<Instance> {
  const schema = itemSchema(options.version);
  const instance = (await storage.createStorageInstance<Item>({
    databaseInstanceToken: randomToken(10),
    databaseName,
    collectionName: options.collectionName ?? 'items',
    schema: options.title ? { ...schema, title: options.title } : schema,
    options: {},
    multiInstance: false,
    devMode: true,
  })) as unknown as Instance;
  opened.push(instance);
  return instance;
}

async function write(instance: Instance, rows: BulkWriteRow<Item>[]) {
  return instance.bulkWrite(rows, ctx);
}

async function allDocuments(instance: Instance): Promise<ItemDoc[]> {
  const { documents } = await getChangedDocumentsSince(instance, 1_000);
  return documents;
}

const byRank = (schema = itemSchema()) =>
  prepareQuery<Item>(
    schema,
    normalizeMangoQuery<ItemDoc>(schema, {
      selector: { rank: { $gte: 2 }, _deleted: { $eq: false } },
      sort: [{ rank: 'asc' }],
    }),
  );

describe('memory-mapped storage over better-sqlite3', () => {
  it('answers writes from memory and has them on disk once persisted, tombstones and order included', async () => {
    const name = `db${randomToken(6)}`;
    const mapped = await open(getRxStorageMemoryMapped({ storage: sqlite() }), name);
    const a = item('a', { rank: 3 }, { lwt: 1000 });
    const b = item('b', { rank: 2 }, { lwt: 1000 });
    const c = item('c', { rank: 5 }, { lwt: 1001 });
    expect(
      (
        await write(
          mapped,
          [a, b, c].map((document) => ({ document })),
        )
      ).error,
    ).toEqual([]);
    await write(mapped, [{ previous: c, document: revise(c, { _deleted: true, lwt: 1002 }) }]);
    // Reads are answered by memory at once.
    const found = await mapped.query(byRank());
    expect(found.documents.map((doc) => doc.id)).toEqual(['b', 'a']);

    await (mapped as unknown as { persisted(): Promise<void> }).persisted();
    const disk = await open(sqlite(), name);
    const onDisk = await allDocuments(disk);
    expect(onDisk.map((doc) => [doc.id, doc._deleted, doc._meta.lwt])).toEqual([
      ['a', false, 1000],
      ['b', false, 1000],
      ['c', true, 1002],
    ]);
    expect(onDisk).toEqual(await allDocuments(mapped));
  });

  it('pages through the changes of one bulk write by index ranges in memory, without testing each document', async () => {
    const name = `db${randomToken(6)}`;
    const mapped = await open(getRxStorageMemoryMapped({ storage: sqlite() }), name);
    // One bulk write: every document shares its write time, as a pull batch does.
    const items = Array.from({ length: 60 }, (_, n) =>
      item(`i${String((n * 7) % 60).padStart(2, '0')}`, {}, { lwt: 5000 }),
    );
    expect(
      (
        await write(
          mapped,
          items.map((document) => ({ document })),
        )
      ).error,
    ).toEqual([]);
    const plans: boolean[] = [];
    const query = RxStorageInstanceMemory.prototype.query;
    RxStorageInstanceMemory.prototype.query = function (this: RxStorageInstanceMemory<unknown>, prepared) {
      plans.push(prepared.queryPlan.selectorSatisfiedByIndex);
      return query.call(this, prepared);
    };
    const seen: string[] = [];
    try {
      let checkpoint: RxStorageDefaultCheckpoint | undefined;
      for (;;) {
        const page = await mapped.getChangedDocumentsSince?.(8, checkpoint);
        if (!page || page.documents.length === 0) break;
        seen.push(...page.documents.map((doc) => doc.id));
        checkpoint = page.checkpoint;
      }
    } finally {
      RxStorageInstanceMemory.prototype.query = query;
    }
    expect(seen).toEqual(items.map((one) => one.id).sort());
    expect(plans.length).toBeGreaterThan(0);
    expect(plans.every(Boolean)).toBe(true);
  });

  it('persists what is pending when the last instance closes, and reads it back when opened again', async () => {
    const name = `db${randomToken(6)}`;
    const storage = getRxStorageMemoryMapped({ storage: sqlite() });
    const first = await open(storage, name);
    const doc = item('x', { title: 'written just before closing' });
    await write(first, [{ document: doc }]);
    await first.close();

    const again = await open(getRxStorageMemoryMapped({ storage: sqlite() }), name);
    expect(await again.findDocumentsById(['x'], false)).toEqual([doc]);
    const checkpoint = await getChangedDocumentsSince(again, 10);
    expect(checkpoint.checkpoint).toEqual({ id: 'x', lwt: doc._meta.lwt });
  });

  it('refuses a write whose previous state is stale, keeps the rest of the batch, and persists only what was accepted', async () => {
    const name = `db${randomToken(6)}`;
    const mapped = await open(getRxStorageMemoryMapped({ storage: sqlite() }), name);
    const a = item('a');
    await write(mapped, [{ document: a }]);
    const a2 = revise(a, { title: 'second' });
    await write(mapped, [{ previous: a, document: a2 }]);
    const result = await write(mapped, [
      { previous: a, document: revise(a, { title: 'stale' }) },
      { document: item('b') },
    ]);
    expect(result.error.map((error) => [error.documentId, error.status])).toEqual([['a', 409]]);
    expect((result.error[0] as { documentInDb?: ItemDoc }).documentInDb).toEqual(a2);

    await (mapped as unknown as { persisted(): Promise<void> }).persisted();
    const disk = await open(sqlite(), name);
    expect((await allDocuments(disk)).map((doc) => [doc.id, doc.title])).toEqual([
      ['a', 'second'],
      ['b', 'title b'],
    ]);
  });

  it('writes a document named twice in one batch in order, in memory and on disk', async () => {
    const name = `db${randomToken(6)}`;
    const mapped = await open(getRxStorageMemoryMapped({ storage: sqlite() }), name);
    const first = item('twice', { title: 'first' });
    const second = revise(first, { title: 'second' });
    const result = await write(mapped, [
      { document: first },
      { previous: first, document: second },
      // Written against the state before the batch: it meets `second` and conflicts.
      { document: item('twice', { title: 'stale' }) },
      { document: item('other') },
    ]);
    expect(result.error.map((error) => [error.documentId, error.status])).toEqual([['twice', 409]]);
    expect((result.error[0] as { documentInDb?: ItemDoc }).documentInDb).toEqual(second);
    expect(await mapped.findDocumentsById(['twice'], false)).toEqual([second]);
    await (mapped as unknown as { persisted(): Promise<void> }).persisted();
    const disk = await open(sqlite(), name);
    expect(await disk.findDocumentsById(['twice', 'other'], false)).toEqual([
      second,
      expect.objectContaining({ id: 'other' }),
    ]);
  });

  it('persists several writes of one document in one turn as its newest state', async () => {
    const name = `db${randomToken(6)}`;
    const mapped = await open(getRxStorageMemoryMapped({ storage: sqlite() }), name);
    const v1 = item('a', { rank: 1 });
    const v2 = revise(v1, { rank: 2 });
    const v3 = revise(v2, { rank: 3 });
    // No await in between: all three wait for the same persisting.
    const results = await Promise.all([
      write(mapped, [{ document: v1 }]),
      write(mapped, [{ previous: v1, document: v2 }]),
      write(mapped, [{ previous: v2, document: v3 }]),
    ]);
    expect(results.flatMap((result) => result.error)).toEqual([]);
    await (mapped as unknown as { persisted(): Promise<void> }).persisted();
    const disk = await open(sqlite(), name);
    expect(await disk.findDocumentsById(['a'], true)).toEqual([v3]);
    // And the next write, based on that state, persists too.
    await write(mapped, [{ previous: v3, document: revise(v3, { rank: 4 }) }]);
    await (mapped as unknown as { persisted(): Promise<void> }).persisted();
    expect((await disk.findDocumentsById(['a'], true))[0]?.rank).toBe(4);
  });

  it('gives every instance of a collection in the process one state and its change events', async () => {
    const name = `db${randomToken(6)}`;
    const underlying = sqlite();
    const one = await open(getRxStorageMemoryMapped({ storage: underlying }), name);
    const two = await open(getRxStorageMemoryMapped({ storage: underlying }), name);
    const events: EventBulk<RxStorageChangeEvent<Item>, RxStorageDefaultCheckpoint>[] = [];
    two.changeStream().subscribe((bulk) => events.push(bulk));
    const doc = item('shared', { rank: 7 });
    await write(one, [{ document: doc }]);
    expect(await two.findDocumentsById(['shared'], false)).toEqual([doc]);
    expect(events.map((bulk) => bulk.events.map((event) => [event.operation, event.documentId]))).toEqual([
      [['INSERT', 'shared']],
    ]);
    expect(events[0]?.checkpoint).toEqual({ id: 'shared', lwt: doc._meta.lwt });
    // A write from the second instance based on the first one's state is no conflict.
    const result = await write(two, [{ previous: doc, document: revise(doc, { rank: 8 }) }]);
    expect(result.error).toEqual([]);
  });

  it('keeps databases, collections and schema versions apart', async () => {
    const storage = getRxStorageMemoryMapped({ storage: sqlite() });
    const name = `db${randomToken(6)}`;
    const base = await open(storage, name);
    const otherDatabase = await open(storage, `db${randomToken(6)}`);
    const otherCollection = await open(storage, name, { collectionName: 'others' });
    const nextVersion = await open(storage, name, { version: 1 });
    await write(base, [{ document: item('only-here') }]);
    for (const instance of [otherDatabase, otherCollection, nextVersion]) {
      expect(await instance.findDocumentsById(['only-here'], true)).toEqual([]);
    }
  });

  it('purges old tombstones from memory and from disk', async () => {
    const name = `db${randomToken(6)}`;
    const mapped = await open(getRxStorageMemoryMapped({ storage: sqlite() }), name);
    const old = item('old', {}, { deleted: true, lwt: now() - 60_000 });
    const recent = item('recent', {}, { deleted: true });
    const live = item('live');
    await write(
      mapped,
      [old, recent, live].map((document) => ({ document })),
    );
    expect(await mapped.cleanup(10_000)).toBe(true);
    expect((await allDocuments(mapped)).map((doc) => doc.id).sort()).toEqual(['live', 'recent']);
    const disk = await open(sqlite(), name);
    expect((await allDocuments(disk)).map((doc) => doc.id).sort()).toEqual(['live', 'recent']);
  });

  it('removes the collection from memory and disk', async () => {
    const name = `db${randomToken(6)}`;
    const storage = getRxStorageMemoryMapped({ storage: sqlite() });
    const mapped = await open(storage, name);
    await write(mapped, [{ document: item('gone') }]);
    await mapped.remove();
    const again = await open(storage, name);
    expect(await allDocuments(again)).toEqual([]);
    const disk = await open(sqlite(), name);
    expect(await allDocuments(disk)).toEqual([]);
  });

  it('rejects every operation after close; close is idempotent', async () => {
    const instance = await open(getRxStorageMemoryMapped({ storage: sqlite() }), `db${randomToken(6)}`);
    await instance.close();
    await instance.close();
    await expect(write(instance, [{ document: item('a') }])).rejects.toThrow(/closed/);
    await expect(instance.findDocumentsById(['a'], true)).rejects.toThrow(/closed/);
    await expect(instance.query(byRank())).rejects.toThrow(/closed/);
    await expect(instance.count(byRank())).rejects.toThrow(/closed/);
    await expect(getChangedDocumentsSince(instance, 1)).rejects.toThrow(/closed/);
    await expect(instance.cleanup(0)).rejects.toThrow(/closed/);
    await expect(instance.remove()).rejects.toThrow(/closed/);
    expect(() => instance.changeStream()).toThrow(/closed/);
  });

  it('fails the other instances of a removed collection, and a new one starts empty', async () => {
    const name = `db${randomToken(6)}`;
    const storage = getRxStorageMemoryMapped({ storage: sqlite() });
    const a = await open(storage, name);
    const b = await open(storage, name);
    await write(a, [{ document: item('p') }]);
    await a.remove();
    await expect(b.findDocumentsById(['p'], true)).rejects.toThrow(/removed/);
    await expect(write(b, [{ document: item('q') }])).rejects.toThrow(/removed/);
    const again = await open(storage, name);
    expect(await allDocuments(again)).toEqual([]);
    await write(again, [{ document: item('fresh') }]);
    expect((await allDocuments(again)).map((doc) => doc.id)).toEqual(['fresh']);
  });

  it('refuses writes while the disk refuses them, with what to do, and saves everything once it accepts again', async () => {
    const name = `db${randomToken(6)}`;
    const underlying = sqlite();
    let diskFull = false;
    // The persistent storage as it behaves on a full disk: every write throws SQLite's error.
    const failing: RxStorage<unknown, unknown> = {
      ...underlying,
      async createStorageInstance(params) {
        const instance = await underlying.createStorageInstance(params);
        const bulkWrite = instance.bulkWrite.bind(instance);
        instance.bulkWrite = async (rows, context) => {
          if (diskFull) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
          return bulkWrite(rows, context);
        };
        return instance;
      },
    };
    const mapped = await open(getRxStorageMemoryMapped({ storage: failing }), name);
    diskFull = true;
    const first = item('first');
    await write(mapped, [{ document: first }]);
    await expect((mapped as unknown as { persisted(): Promise<void> }).persisted()).rejects.toThrow(
      /could not save its changes to disk.*database or disk is full.*Free disk space/,
    );
    await expect(write(mapped, [{ document: item('refused') }])).rejects.toThrow(/Free disk space/);
    expect(await mapped.findDocumentsById(['refused'], true)).toEqual([]);

    diskFull = false;
    const second = item('second');
    expect((await write(mapped, [{ document: second }])).error).toEqual([]);
    await (mapped as unknown as { persisted(): Promise<void> }).persisted();
    const disk = await open(sqlite(), name);
    expect((await allDocuments(disk)).map((doc) => doc.id).sort()).toEqual(['first', 'second']);
  });

  it('saves every open collection on request (the replica process does it before it exits)', async () => {
    const name = `db${randomToken(6)}`;
    const mapped = await open(getRxStorageMemoryMapped({ storage: sqlite() }), name);
    const disk = await open(sqlite(), name);
    await write(mapped, [{ document: item('pending') }]);
    expect(await disk.findDocumentsById(['pending'], true)).toEqual([]);
    await persistAllMemoryMapped();
    expect((await disk.findDocumentsById(['pending'], true)).map((doc) => doc.id)).toEqual(['pending']);
  });

  it("keeps RxDB's replication meta data on disk only, written after the pending writes of its database", async () => {
    const name = `db${randomToken(6)}`;
    const storage = getRxStorageMemoryMapped({ storage: sqlite() });
    const items = await open(storage, name);
    const metaOptions = { collectionName: 'items-meta', title: META_INSTANCE_SCHEMA_TITLE };
    const meta = await open(storage, name, metaOptions);
    const disk = await open(sqlite(), name);

    await write(items, [{ document: item('pulled') }]);
    expect(await disk.findDocumentsById(['pulled'], true)).toEqual([]);
    // The replication's record of the pulled document (a checkpoint, say) reaches the disk only
    // with the document it records.
    await write(meta, [{ document: item('checkpoint') }]);
    expect((await disk.findDocumentsById(['pulled'], true)).map((doc) => doc.id)).toEqual(['pulled']);
    const metaOnDisk = await open(sqlite(), name, metaOptions);
    expect((await metaOnDisk.findDocumentsById(['checkpoint'], true)).map((doc) => doc.id)).toEqual(['checkpoint']);
  });

  it("creates a new database's file with its first write, and none for a database never written", async () => {
    const here = await mkdtemp(path.join(tmpdir(), 'orbita-memory-mapped-new-'));
    try {
      const storage = getRxStorageMemoryMapped({
        storage: getRxStorageBetterSqlite({ databaseDirectory: here }) as unknown as RxStorage<unknown, unknown>,
      });
      const untouched = await open(storage, 'untouched');
      expect(await allDocuments(untouched)).toEqual([]);
      await untouched.close();
      expect(readdirSync(here)).toEqual([]);

      const written = await open(storage, 'written');
      expect(readdirSync(here)).toEqual([]);
      await write(written, [{ document: item('first') }]);
      await (written as unknown as { persisted(): Promise<void> }).persisted();
      expect(readdirSync(here)).toContain('written.sqlite');
      await written.close();
      const again = await open(storage, 'written');
      expect((await allDocuments(again)).map((doc) => doc.id)).toEqual(['first']);
      await again.close();
    } finally {
      await rm(here, { recursive: true, force: true });
    }
  });

  it('says what to do when the replica directory cannot be created, and keeps the writes it answered', async () => {
    const blocker = path.join(directory, `file-${randomToken(6)}`);
    writeFileSync(blocker, 'not a directory');
    const mapped = await open(
      getRxStorageMemoryMapped({
        storage: getRxStorageBetterSqlite({ databaseDirectory: path.join(blocker, 'replica') }) as unknown as RxStorage<
          unknown,
          unknown
        >,
      }),
      `db${randomToken(6)}`,
    );
    await write(mapped, [{ document: item('answered') }]);
    await expect((mapped as unknown as { persisted(): Promise<void> }).persisted()).rejects.toThrow(
      /could not save its changes to disk.*ENOTDIR.*check the replica directory/,
    );
    await expect(write(mapped, [{ document: item('refused') }])).rejects.toThrow(/Free disk space/);
    expect((await mapped.findDocumentsById(['answered', 'refused'], true)).map((doc) => doc.id)).toEqual(['answered']);
    // The process keeps it in memory; closing reports that it could not be saved.
    await expect(mapped.close()).rejects.toThrow(/could not save/);
  });

  it('serves RxDB: a database written, closed and opened again has its documents and answers queries', async () => {
    const name = `db${randomToken(6)}`;
    const schema = {
      version: 0,
      primaryKey: 'id',
      type: 'object',
      properties: { id: { type: 'string', maxLength: 20 }, title: { type: 'string' }, rank: { type: 'integer' } },
      required: ['id', 'title', 'rank'],
    } as const;
    const first = await createRxDatabase({
      name,
      storage: getRxStorageMemoryMapped({ storage: sqlite() }),
      multiInstance: false,
    });
    const { items } = await first.addCollections({ items: { schema } });
    await items.bulkInsert([
      { id: 'one', title: 'One', rank: 1 },
      { id: 'two', title: 'Two', rank: 2 },
    ]);
    await (await items.findOne('one').exec())?.incrementalPatch({ title: 'One, edited' });
    await first.close();

    const second = await createRxDatabase({
      name,
      storage: getRxStorageMemoryMapped({ storage: sqlite() }),
      multiInstance: false,
    });
    const reopened = (await second.addCollections({ items: { schema } })).items;
    const titles = (await reopened.find({ sort: [{ id: 'asc' }] }).exec()).map((doc) => doc.title);
    expect(titles).toEqual(['One, edited', 'Two']);
    await second.remove();
  });
});
