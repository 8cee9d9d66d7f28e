import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import Database from 'better-sqlite3';
import {
  type BulkWriteRow,
  createRxDatabase,
  type EventBulk,
  fillWithDefaultSettings,
  getChangedDocumentsSince,
  getQueryMatcher,
  getSortComparator,
  type MangoQuery,
  META_INSTANCE_SCHEMA_TITLE,
  normalizeMangoQuery,
  now,
  type PreparedQuery,
  prepareQuery,
  type RxDocumentData,
  type RxJsonSchema,
  type RxStorage,
  type RxStorageChangeEvent,
  type RxStorageDefaultCheckpoint,
  type RxStorageInstance,
  randomToken,
} from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import {
  exposeRxStorageRemote,
  getRxStorageRemote,
  type MessageFromRemote,
  type MessageToRemote,
} from 'rxdb/plugins/storage-remote';
import { Subject } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { revise, storedDocument } from '../storage-documents.fixture';
import { indexKey } from './helpers';
import {
  type BetterSqliteSettings,
  getRxStorageBetterSqlite,
  openDatabaseCount,
  type RxStorageInstanceBetterSqlite,
} from './index';

// ---------------------------------------------------------------------------------------------
// Fixtures

type Person = { id: string; name: string; age: number; score: number; active: boolean; city: string };
type PersonDoc = RxDocumentData<Person>;
type AnyInstance = RxStorageInstance<Person, unknown, unknown, RxStorageDefaultCheckpoint>;
type Bulk = EventBulk<RxStorageChangeEvent<Person>, RxStorageDefaultCheckpoint>;

function personSchema(
  version = 0,
  indexes: (string | string[])[] = ['name', 'age', ['active', 'age'], ['city', 'score']],
) {
  return fillWithDefaultSettings<Person>({
    version,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id: { type: 'string', maxLength: 20 },
      name: { type: 'string', maxLength: 24 },
      age: { type: 'integer', minimum: 0, maximum: 150, multipleOf: 1 },
      score: { type: 'number', minimum: 0, maximum: 1000, multipleOf: 0.01 },
      active: { type: 'boolean' },
      city: { type: 'string', maxLength: 16 },
    },
    required: ['id', 'name', 'age', 'score', 'active', 'city'],
    indexes,
  });
}

function person(
  id: string,
  fields: Partial<Person> = {},
  meta: { deleted?: boolean; rev?: string; lwt?: number } = {},
): PersonDoc {
  return storedDocument<Person>({ id, name: 'name', age: 30, score: 1.5, active: true, city: 'city', ...fields }, meta);
}

const ctx = 'rx-storage-sqlite.test';
const directories: string[] = [];
const opened: { close(): Promise<void> }[] = [];

async function tempDirectory(): Promise<string> {
  const directory = await mkdtemp(path.join(tmpdir(), 'orbita-rx-sqlite-'));
  directories.push(directory);
  return directory;
}

let fileDirectory = '';
beforeAll(async () => {
  fileDirectory = await tempDirectory();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((instance) => instance.close()));
});
afterAll(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

function ours(settings: BetterSqliteSettings = { databaseDirectory: fileDirectory }) {
  return getRxStorageBetterSqlite(settings);
}

async function openOurs(
  options: {
    storage?: ReturnType<typeof getRxStorageBetterSqlite>;
    databaseName?: string;
    collectionName?: string;
    schema?: RxJsonSchema<PersonDoc>;
  } = {},
): Promise<RxStorageInstanceBetterSqlite<Person>> {
  const instance = await (options.storage ?? ours()).createStorageInstance<Person>({
    databaseInstanceToken: randomToken(10),
    databaseName: options.databaseName ?? `db${randomToken(8)}`,
    collectionName: options.collectionName ?? 'people',
    schema: options.schema ?? personSchema(),
    options: {},
    multiInstance: false,
    devMode: true,
  });
  opened.push(instance);
  return instance;
}

async function openMemory(schema: RxJsonSchema<PersonDoc> = personSchema()): Promise<AnyInstance> {
  const storage = getRxStorageMemory() as unknown as RxStorage<unknown, unknown>;
  const instance = (await storage.createStorageInstance<Person>({
    databaseInstanceToken: randomToken(10),
    databaseName: `mem${randomToken(8)}`,
    collectionName: 'people',
    schema,
    options: {},
    multiInstance: false,
    devMode: false,
  })) as AnyInstance;
  opened.push({ close: () => instance.remove() });
  return instance;
}

function prepared(schema: RxJsonSchema<PersonDoc>, query: MangoQuery<PersonDoc>): PreparedQuery<Person> {
  return prepareQuery(schema, normalizeMangoQuery(schema, query));
}

const ids = (docs: { id: string }[]) => docs.map((doc) => doc.id);
const sortedIds = (docs: { id: string }[]) => ids(docs).sort();

async function insert(instance: AnyInstance, docs: PersonDoc[]) {
  const result = await instance.bulkWrite(
    docs.map((document) => ({ document })),
    ctx,
  );
  expect(result.error).toEqual([]);
}

function collect(instance: AnyInstance): Bulk[] {
  const bulks: Bulk[] = [];
  instance.changeStream().subscribe((bulk) => bulks.push(bulk as Bulk));
  return bulks;
}

async function waitFor(predicate: () => boolean, timeoutMs = 5_000) {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// ---------------------------------------------------------------------------------------------

describe('RxStorage on better-sqlite3: creation', () => {
  it('names itself and opens and closes instances, many on one database', async () => {
    const storage = ours();
    expect(storage.name).toBe('better-sqlite3');
    expect(storage.rxdbVersion).toMatch(/^17\./);
    const databaseName = `db${randomToken(8)}`;
    const instances = await Promise.all(
      Array.from({ length: 12 }, (_, i) => openOurs({ storage, databaseName, collectionName: `c${i}` })),
    );
    expect(new Set(instances.map((i) => i.internals.databaseKey)).size).toBe(1);
    await Promise.all(instances.map((instance) => instance.close()));
  });

  it('refuses key compression, encryption and attachments', async () => {
    const compressed = { ...personSchema(), keyCompression: true };
    await expect(openOurs({ schema: compressed })).rejects.toThrow(/UT5/);
    const encrypted = { ...personSchema(), encrypted: ['name'] };
    await expect(openOurs({ schema: encrypted })).rejects.toThrow(/UT6/);
    const withAttachments = { ...personSchema(), attachments: {} };
    await expect(openOurs({ schema: withAttachments })).rejects.toThrow(/does not support attachments/);
  });

  it('says plainly that attachment data cannot be read', async () => {
    const instance = await openOurs();
    await expect(instance.getAttachmentData('a', 'b', 'digest')).rejects.toThrow(/does not support attachments/);
  });

  it('keeps one SQLite file per database, in WAL mode, and one table per collection and schema version', async () => {
    const directory = await tempDirectory();
    const storage = ours({ databaseDirectory: directory });
    const a = await openOurs({ storage, databaseName: 'orbita', collectionName: 'tasks', schema: personSchema(0) });
    const b = await openOurs({ storage, databaseName: 'orbita', collectionName: 'tasks', schema: personSchema(1) });
    await openOurs({ storage, databaseName: 'other', collectionName: 'tasks' });
    expect(
      readdirSync(directory)
        .filter((f) => f.endsWith('.sqlite'))
        .sort(),
    ).toEqual(['orbita.sqlite', 'other.sqlite']);
    expect(a.internals.tableName).not.toBe(b.internals.tableName);
    const raw = new Database(path.join(directory, 'orbita.sqlite'), { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.pragma('page_size', { simple: true })).toBe(16_384);
      const tables = raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
      expect(tables).toEqual(['rx_tasks__v0', 'rx_tasks__v1', 'rxdb_collections']);
      // One column and one SQL index per schema index (RxDB's fillWithDefaultSettings made five of them).
      const indexColumns = raw
        .prepare('SELECT name FROM pragma_table_info(?)')
        .pluck()
        .all('rx_tasks__v0')
        .filter((name) => String(name).startsWith('ix_'));
      expect(indexColumns).toHaveLength(personSchema().indexes?.length ?? 0);
      expect(personSchema().indexes?.length).toBe(5);
    } finally {
      raw.close();
    }
  });
});

describe('bulkWrite', () => {
  it('stores documents exactly as written', async () => {
    const instance = await openOurs();
    const doc = person('alice', { name: 'Alice 😀', score: 12.34 });
    await insert(instance, [doc]);
    expect(await instance.findDocumentsById(['alice'], false)).toEqual([doc]);
  });

  it('answers 409 with the document in the database when previous is missing or stale', async () => {
    const instance = await openOurs();
    const first = person('a');
    await insert(instance, [first]);

    const again = await instance.bulkWrite([{ document: person('a', { name: 'other' }) }], ctx);
    expect(again.error).toHaveLength(1);
    const conflict = again.error[0];
    expect(conflict?.status).toBe(409);
    expect(conflict?.documentId).toBe('a');
    expect(conflict?.isError).toBe(true);
    expect(conflict && 'documentInDb' in conflict ? conflict.documentInDb : undefined).toEqual(first);
    expect(conflict?.writeRow.document.name).toBe('other');

    const stale = { ...first, _rev: '1-stale' };
    const update = await instance.bulkWrite([{ previous: stale, document: revise(stale, { name: 'x' }) }], ctx);
    expect(update.error[0]?.status).toBe(409);

    const ok = await instance.bulkWrite([{ previous: first, document: revise(first, { name: 'y' }) }], ctx);
    expect(ok.error).toEqual([]);
    expect((await instance.findDocumentsById(['a'], false))[0]?.name).toBe('y');
  });

  it('lets the first of two concurrent inserts win and the second conflict', async () => {
    const instance = await openOurs();
    const [first, second] = await Promise.all([
      instance.bulkWrite([{ document: person('same', { name: 'first' }) }], ctx),
      instance.bulkWrite([{ document: person('same', { name: 'second' }) }], ctx),
    ]);
    expect(first.error).toEqual([]);
    expect(second.error[0]?.status).toBe(409);
    expect((await instance.findDocumentsById(['same'], false))[0]?.name).toBe('first');
  });

  it('writes the valid rows of a batch and reports the conflicting ones', async () => {
    const instance = await openOurs();
    await insert(instance, [person('taken')]);
    const result = await instance.bulkWrite(
      [{ document: person('new1') }, { document: person('taken') }, { document: person('new2') }],
      ctx,
    );
    expect(result.error.map((e) => [e.documentId, e.status])).toEqual([['taken', 409]]);
    expect(sortedIds(await instance.findDocumentsById(['new1', 'new2', 'taken'], false))).toEqual([
      'new1',
      'new2',
      'taken',
    ]);
  });

  it('runs a batch in one transaction: a failing batch writes nothing', async () => {
    const instance = await openOurs();
    await insert(instance, [person('kept')]);
    const kept = (await instance.findDocumentsById(['kept'], false))[0] as PersonDoc;
    // A write time that is not a number is refused by the table in the middle of the batch.
    const unstorable = { ...person('bad'), _meta: { lwt: 'soon' as unknown as number } };
    await expect(
      instance.bulkWrite(
        [
          { document: person('ok') },
          { previous: kept, document: revise(kept, { name: 'changed' }) },
          { document: unstorable },
        ],
        ctx,
      ),
    ).rejects.toThrow();
    expect(await instance.findDocumentsById(['ok', 'bad'], true)).toEqual([]);
    expect(await instance.findDocumentsById(['kept'], false)).toEqual([kept]);
  });

  it('writes a document named twice in one batch in order, the later write checked against the earlier', async () => {
    const instance = await openOurs();
    const bulks = collect(instance);
    const first = person('twice', { name: 'first' });
    const second = revise(first, { name: 'second' });
    const result = await instance.bulkWrite(
      [
        { document: first },
        { document: person('other') },
        { previous: first, document: second },
        // Written against the state before the batch: it meets `second` and conflicts.
        { document: person('twice', { name: 'stale' }) },
      ],
      ctx,
    );
    expect(result.error.map((error) => [error.documentId, error.status])).toEqual([['twice', 409]]);
    const conflict = result.error[0];
    expect(conflict && 'documentInDb' in conflict ? conflict.documentInDb : undefined).toEqual(second);
    expect(await instance.findDocumentsById(['twice'], false)).toEqual([second]);
    await waitFor(() => bulks.length === 1);
    expect(bulks[0]?.events.map((event) => [event.documentId, event.operation, event.documentData.name])).toEqual([
      ['twice', 'INSERT', 'first'],
      ['other', 'INSERT', 'name'],
      ['twice', 'UPDATE', 'second'],
    ]);
    expect(bulks[0]?.checkpoint).toEqual({ id: 'twice', lwt: second._meta.lwt });
  });

  it('inserts tombstones (replication does) without a change event, found only with deleted', async () => {
    const instance = await openOurs();
    const bulks = collect(instance);
    const tombstone = person('gone', {}, { deleted: true });
    await insert(instance, [tombstone]);
    expect(await instance.findDocumentsById(['gone'], false)).toEqual([]);
    expect(await instance.findDocumentsById(['gone'], true)).toEqual([tombstone]);
    expect(bulks).toEqual([]);
  });

  it('deletes, refuses an undelete without previous, undeletes with it, and updates tombstones', async () => {
    const instance = await openOurs();
    const doc = person('d');
    await insert(instance, [doc]);
    const deleted = revise(doc, { _deleted: true });
    expect((await instance.bulkWrite([{ previous: doc, document: deleted }], ctx)).error).toEqual([]);
    expect(await instance.findDocumentsById(['d'], false)).toEqual([]);

    const blind = await instance.bulkWrite([{ document: revise(deleted, { _deleted: false }) }], ctx);
    expect(blind.error[0]?.status).toBe(409);

    const changedTombstone = revise(deleted, { name: 'still deleted' });
    expect((await instance.bulkWrite([{ previous: deleted, document: changedTombstone }], ctx)).error).toEqual([]);
    expect((await instance.findDocumentsById(['d'], true))[0]).toEqual(changedTombstone);

    const back = revise(changedTombstone, { _deleted: false, name: 'back' });
    expect((await instance.bulkWrite([{ previous: changedTombstone, document: back }], ctx)).error).toEqual([]);
    expect(await instance.findDocumentsById(['d'], false)).toEqual([back]);
  });

  it('can unset a property', async () => {
    const schema = { ...personSchema(), required: ['id'] } as RxJsonSchema<PersonDoc>;
    const instance = await openOurs({ schema });
    const doc = person('u');
    await insert(instance, [doc]);
    const { city: _city, ...withoutCity } = revise(doc);
    const result = await instance.bulkWrite([{ previous: doc, document: withoutCity as PersonDoc }], ctx);
    expect(result.error).toEqual([]);
    expect((await instance.findDocumentsById(['u'], false))[0]).not.toHaveProperty('city');
  });
});

describe('findDocumentsById', () => {
  it('finds many ids at once, ignores unknown ones, and skips tombstones unless asked', async () => {
    const instance = await openOurs();
    const docs = Array.from({ length: 2_500 }, (_, i) => person(`p${i}`, {}, { deleted: i % 10 === 0 }));
    await insert(instance, docs);
    const wanted = [...docs.map((d) => d.id), 'nobody'];
    expect(await instance.findDocumentsById([], true)).toEqual([]);
    expect(await instance.findDocumentsById(wanted, true)).toHaveLength(2_500);
    expect(await instance.findDocumentsById(wanted, false)).toHaveLength(2_250);
    expect(await instance.findDocumentsById(['p0'], false)).toEqual([]);
    expect(await instance.findDocumentsById(['p0'], true)).toHaveLength(1);
  });

  it('answers an id asked for twice once', async () => {
    const instance = await openOurs();
    await insert(instance, [person('a'), person('b')]);
    expect(sortedIds(await instance.findDocumentsById(['a', 'b', 'a', 'a'], false))).toEqual(['a', 'b']);
  });
});

describe('query and count', () => {
  const schema = personSchema();
  const docs = [
    person('a', { name: 'Anna', age: 31, score: 10.5, active: true, city: 'Kazan' }),
    person('b', { name: 'Boris', age: 25, score: 99.99, active: false, city: 'Moscow' }),
    person('c', { name: 'Clara', age: 31, score: 0, active: true, city: 'Moscow' }),
    person('d', { name: 'Dmitry 😀', age: 60, score: 500, active: false, city: 'Perm' }),
    person('e', { name: 'Elena', age: 18, score: 42.42, active: true, city: 'Kazan' }),
    person('f', { name: 'anna', age: 44, score: 7, active: true, city: 'Perm' }),
  ];
  const tombstone = person('z', { name: 'Zombie', age: 31, city: 'Moscow' }, { deleted: true });
  let instance: RxStorageInstanceBetterSqlite<Person>;
  let memory: AnyInstance;

  async function both(query: MangoQuery<PersonDoc>) {
    const q = prepared(schema, query);
    const [a, b] = await Promise.all([instance.query(q), memory.query(q)]);
    expect(ids(a.documents)).toEqual(ids(b.documents));
    return ids(a.documents);
  }

  // `instance` is opened per test (afterEach closes it), on the same file database.
  const databaseName = `q${randomToken(8)}`;
  beforeAll(async () => {
    const seed = await openOurs({ databaseName, schema });
    await insert(seed, [...docs, tombstone]);
    await seed.close();
  });
  afterAll(async () => {
    const last = await openOurs({ databaseName, schema });
    await last.remove();
  });
  const setup = async () => {
    instance = await openOurs({ databaseName, schema });
    memory = await openMemory(schema);
    await insert(memory, [...docs, tombstone]);
  };

  it('$eq, $gt, $lt, $in, $regex and $or on indexed and non-indexed fields', async () => {
    await setup();
    const live = { _deleted: { $eq: false } };
    expect(await both({ selector: { ...live, age: { $eq: 31 } }, sort: [{ id: 'asc' }] })).toEqual(['a', 'c']);
    expect(await both({ selector: { age: { $eq: 31 } }, sort: [{ id: 'asc' }] })).toEqual(['a', 'c', 'z']);
    expect(await both({ selector: { ...live, age: { $gt: 31 } }, sort: [{ age: 'asc' }] })).toEqual(['f', 'd']);
    expect(await both({ selector: { ...live, age: { $gte: 25, $lt: 44 } }, sort: [{ age: 'asc' }] })).toEqual([
      'b',
      'a',
      'c',
    ]);
    expect(await both({ selector: { ...live, score: { $lt: 10 } }, sort: [{ score: 'asc' }] })).toEqual(['c', 'f']);
    expect(await both({ selector: { ...live, city: { $eq: 'Moscow' } }, sort: [{ name: 'asc' }] })).toEqual(['b', 'c']);
    expect(await both({ selector: { ...live, name: { $in: ['Anna', 'Elena', 'nobody'] } } })).toEqual(['a', 'e']);
    expect(await both({ selector: { ...live, city: { $in: ['Perm', 'Kazan'] } }, sort: [{ id: 'desc' }] })).toEqual([
      'f',
      'e',
      'd',
      'a',
    ]);
    expect(
      await both({ selector: { ...live, name: { $regex: '^a', $options: 'i' } }, sort: [{ name: 'asc' }] }),
    ).toEqual(['a', 'f']);
    expect(await both({ selector: { ...live, city: { $regex: 'z' } }, sort: [{ id: 'asc' }] })).toEqual(['a', 'e']);
    expect(
      await both({
        selector: { ...live, $or: [{ age: { $lt: 20 } }, { city: 'Perm' }] },
        sort: [{ age: 'desc' }],
      }),
    ).toEqual(['d', 'f', 'e']);
    expect(await both({ selector: { ...live, active: { $eq: false } }, sort: [{ age: 'asc' }] })).toEqual(['b', 'd']);
  });

  it('sorts on several fields in both directions, deterministically', async () => {
    await setup();
    const live = { _deleted: { $eq: false } };
    expect(await both({ selector: live, sort: [{ age: 'desc' }, { name: 'asc' }] })).toEqual([
      'd',
      'f',
      'a',
      'c',
      'b',
      'e',
    ]);
    expect(await both({ selector: live, sort: [{ city: 'asc' }, { score: 'desc' }] })).toEqual([
      'e',
      'a',
      'b',
      'c',
      'd',
      'f',
    ]);
    expect(await both({ selector: live, sort: [{ active: 'asc' }, { age: 'asc' }] })).toEqual([
      'b',
      'd',
      'e',
      'a',
      'c',
      'f',
    ]);
  });

  it('applies skip and limit, and limit 0 returns nothing', async () => {
    await setup();
    const live = { _deleted: { $eq: false } };
    const sort = [{ age: 'asc' as const }];
    expect(await both({ selector: live, sort, limit: 0 })).toEqual([]);
    expect(await both({ selector: live, sort, limit: 2 })).toEqual(['e', 'b']);
    expect(await both({ selector: live, sort, skip: 2, limit: 2 })).toEqual(['a', 'c']);
    expect(await both({ selector: live, sort, skip: 5 })).toEqual(['d']);
    expect(await both({ selector: live, sort, skip: 50 })).toEqual([]);
    // Selector not covered by the index, sort by it: the walk stops once the page is full.
    expect(await both({ selector: { ...live, city: 'Kazan' }, sort, limit: 1 })).toEqual(['e']);
    expect(await both({ selector: { ...live, city: 'Kazan' }, sort: [{ score: 'desc' }], limit: 0 })).toEqual([]);
  });

  it('reads an index range in SQLite, not the whole table', async () => {
    await setup();
    const plan = instance.explainQuery(
      prepared(schema, { selector: { _deleted: false, age: { $gt: 30, $lte: 50 } }, sort: [{ age: 'asc' }] }),
    );
    expect(plan.join('\n')).toMatch(/^SEARCH .* USING INDEX .*\(ix_\w+>\? AND ix_\w+<\?\)$/);
    expect(plan.join('\n')).not.toMatch(/SCAN|TEMP B-TREE/);
  });

  it('falls back to matching every document for an index hint the table does not have', async () => {
    await setup();
    const q = prepared(schema, { selector: { _deleted: false, score: { $gt: 9 } }, index: ['score'] });
    expect(instance.explainQuery(q).join('\n')).toMatch(/^SCAN/);
    // Sorted by the hinted index's fields (score, then id), as RxDB's normalizeMangoQuery asks.
    expect(ids((await instance.query(q)).documents)).toEqual(['a', 'e', 'b', 'd']);
  });

  it('counts: fast when the index covers the selector, slow otherwise, honouring skip and limit', async () => {
    await setup();
    const fast = await instance.count(prepared(schema, { selector: { _deleted: false, age: { $gte: 31 } } }));
    expect(fast).toEqual({ count: 4, mode: 'fast' });
    const covered = await instance.count(prepared(schema, { selector: { _deleted: false, city: 'Moscow' } }));
    expect(covered).toEqual({ count: 2, mode: 'fast' });
    const slow = await instance.count(prepared(schema, { selector: { _deleted: false, name: { $regex: 'a$' } } }));
    expect(slow).toEqual({ count: 4, mode: 'slow' });
    const withDeleted = await instance.count(prepared(schema, { selector: { age: 31 } }));
    expect(withDeleted.count).toBe(3);
    const limited = await instance.count(prepared(schema, { selector: { _deleted: false }, skip: 1, limit: 3 }));
    expect(limited.count).toBe(3);
    const tail = await instance.count(prepared(schema, { selector: { _deleted: false }, skip: 5, limit: 3 }));
    expect(tail.count).toBe(1);
    expect((await instance.count(prepared(schema, { selector: { _deleted: false }, limit: 0 }))).count).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------
// Property-style comparison with RxDB's memory storage and with RxDB's matcher/comparator

/** Deterministic pseudo-random numbers (mulberry32), so a failure can be replayed from its seed. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

// Names mix ASCII, Cyrillic, BMP characters above U+E000 and emoji: SQLite's UTF-8 order differs
// from JavaScript's for the last two. No spaces or control characters, whose padded index order
// RxDB's own memory storage does not keep equal to its sort comparator either.
const NAME_PARTS = ['a', 'B', 'c', 'Ж', 'ё', '😀', '𝄞', '\uff21', '\ue000', 'zz', '9', '_'];
const CITIES = ['Kazan', 'Moscow', 'Perm', 'Omsk', 'Tver'];

describe('random documents and queries agree with the memory storage and with getSortComparator', () => {
  it('over 400 documents with updates and tombstones, and 400 queries', async () => {
    const seed = Number(process.env.RX_SQLITE_SEED ?? 20_260_401);
    const rnd = random(seed);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T;
    const int = (min: number, max: number) => min + Math.floor(rnd() * (max - min + 1));
    const name = () => Array.from({ length: int(1, 4) }, () => pick(NAME_PARTS)).join('');
    const fields = (): Omit<Person, 'id'> => ({
      name: name(),
      age: int(0, 150),
      score: int(0, 100_000) / 100,
      active: rnd() < 0.5,
      city: pick(CITIES),
    });
    const schema = personSchema();
    const instance = await openOurs({ schema });
    const memory = await openMemory(schema);

    const writeBoth = async (rows: BulkWriteRow<Person>[]) => {
      const [a, b] = await Promise.all([instance.bulkWrite(rows, ctx), memory.bulkWrite(rows, ctx)]);
      const conflicts = a.error.map((e) => [e.documentId, e.status]);
      expect(conflicts).toEqual(b.error.map((e) => [e.documentId, e.status]));
      return conflicts;
    };
    const state = new Map<string, PersonDoc>();
    const initial = Array.from({ length: 400 }, (_, i) =>
      person(`id${String(i).padStart(3, '0')}${pick(['', 'x', 'Ж'])}`, fields(), { deleted: rnd() < 0.05 }),
    );
    for (let i = 0; i < initial.length; i += 100) {
      expect(await writeBoth(initial.slice(i, i + 100).map((document) => ({ document })))).toEqual([]);
    }
    for (const doc of initial) state.set(doc.id, doc);
    // Updates, deletions and undeletions, some with a stale previous (conflicts on both sides).
    for (let round = 0; round < 4; round++) {
      const staleIds: string[] = [];
      const rows = [...state.values()]
        .filter(() => rnd() < 0.2)
        .map((previous) => {
          const document = revise(previous, { ...(rnd() < 0.7 ? fields() : {}), _deleted: rnd() < 0.15 });
          const stale = rnd() < 0.05;
          if (stale) staleIds.push(previous.id);
          else state.set(previous.id, document);
          return { previous: stale ? { ...previous, _rev: '1-stale' } : previous, document };
        });
      expect(await writeBoth(rows)).toEqual(staleIds.map((id) => [id, 409]));
    }

    const all = [...state.values()];
    const fieldNames = ['name', 'age', 'score', 'active', 'city'] as const;
    const condition = (): Record<string, unknown> => {
      const field = pick(fieldNames);
      const sample = pick(all)[field];
      switch (field) {
        case 'active':
          return { active: { $eq: sample } };
        case 'city':
          return pick([
            { city: { $eq: sample } },
            { city: { $in: [sample, pick(CITIES)] } },
            { city: { $regex: '^[KP]' } },
          ]);
        case 'name':
          return pick([
            { name: { $eq: sample } },
            { name: { $gt: sample } },
            { name: { $lte: sample } },
            { name: { $regex: pick(['^a', 'Ж', '😀', 'B$']) } },
            { name: { $in: [sample, name()] } },
          ]);
        default:
          return pick([
            { [field]: { $eq: sample } },
            { [field]: { $gt: sample } },
            { [field]: { $lt: sample } },
            { [field]: { $gte: sample, $lt: (sample as number) + 40 } },
            { [field]: { $in: [sample, pick(all)[field]] } },
          ]);
      }
    };
    // How often each way of running a query (index alone, JS matcher, JS sort, both) came up.
    const paths = new Map<string, number>();
    for (let q = 0; q < 400; q++) {
      const selector: Record<string, unknown> = {};
      if (rnd() < 0.85) selector._deleted = { $eq: false };
      for (let c = int(0, 2); c > 0; c--) Object.assign(selector, condition());
      if (rnd() < 0.15) selector.$or = [condition(), condition()];
      const sortFields = [...fieldNames].sort(() => rnd() - 0.5).slice(0, int(0, 3));
      const query: MangoQuery<PersonDoc> = { selector: selector as MangoQuery<PersonDoc>['selector'] };
      if (sortFields.length > 0) query.sort = sortFields.map((f) => ({ [f]: rnd() < 0.5 ? 'asc' : 'desc' })) as never;
      if (rnd() < 0.3) query.skip = int(0, 15);
      if (rnd() < 0.5) query.limit = int(0, 25);
      if (rnd() < 0.1)
        query.index = pick([
          ['_deleted', 'city', 'score'],
          ['_deleted', 'age'],
        ]);
      const p = prepared(schema, query);
      const [a, b] = await Promise.all([instance.query(p), memory.query(p)]);
      const label = `seed ${seed}, query ${q}: ${JSON.stringify(query)}`;
      expect(ids(a.documents), label).toEqual(ids(b.documents));
      // The definition: every document through RxDB's matcher, sorted by RxDB's comparator.
      const matcher = getQueryMatcher(schema, p.query);
      const comparator = getSortComparator(schema, p.query) as (x: PersonDoc, y: PersonDoc) => number;
      const limit = p.query.limit ?? Number.POSITIVE_INFINITY;
      const expected = all
        .filter((doc) => matcher(doc))
        .sort(comparator)
        .slice(p.query.skip, p.query.skip + limit);
      expect(ids(a.documents), label).toEqual(ids(expected));
      const counted = await instance.count(p);
      expect(counted.count, label).toBe(expected.length);
      expect(counted.mode, label).toBe(p.queryPlan.selectorSatisfiedByIndex ? 'fast' : 'slow');
      const path = `selector by index: ${p.queryPlan.selectorSatisfiedByIndex}, sort by index: ${p.queryPlan.sortSatisfiedByIndex}`;
      paths.set(path, (paths.get(path) ?? 0) + 1);
    }
    expect(paths.size).toBe(4);
    for (const count of paths.values()) expect(count).toBeGreaterThan(10);

    const everyId = [...state.keys(), 'missing'];
    expect(sortedIds(await instance.findDocumentsById(everyId, true))).toEqual(
      sortedIds(await memory.findDocumentsById(everyId, true)),
    );
    expect(sortedIds(await instance.findDocumentsById(everyId, false))).toEqual(
      sortedIds(await memory.findDocumentsById(everyId, false)),
    );
  });

  it("orders index keys in SQLite exactly as JavaScript orders RxDB's index strings", () => {
    const rnd = random(7);
    const units = [
      'a',
      'b',
      '\u0000',
      '\u0001',
      ' ',
      '~',
      'é',
      'Ж',
      '\u07ff',
      '\u0800',
      '\ud7ff',
      '\ue000',
      '\uffff',
      '😀',
      '𝄞',
      '\ud800',
      '\udfff',
    ];
    const strings = new Set<string>();
    while (strings.size < 3_000) {
      strings.add(
        Array.from({ length: Math.floor(rnd() * 6) }, () => units[Math.floor(rnd() * units.length)]).join(''),
      );
    }
    const db = new Database(':memory:');
    try {
      db.exec('CREATE TABLE t (k TEXT NOT NULL, original TEXT NOT NULL)');
      const put = db.prepare('INSERT INTO t VALUES (?, ?)');
      for (const s of strings) put.run(indexKey(s), JSON.stringify(s));
      const sqlite = (db.prepare('SELECT original FROM t ORDER BY k').pluck().all() as string[]).map(
        (s) => JSON.parse(s) as string,
      );
      const javascript = [...strings].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      expect(sqlite).toEqual(javascript);
    } finally {
      db.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('changeStream', () => {
  it('emits one bulk per write with id, events, the newest checkpoint and the context', async () => {
    const databaseName = `db${randomToken(8)}`;
    const instance = await openOurs({ databaseName });
    const sibling = await openOurs({ databaseName });
    const stranger = await openOurs({ databaseName, collectionName: 'others' });
    const bulks = collect(instance);
    const siblingBulks = collect(sibling);
    const strangerBulks = collect(stranger);

    const a = person('a', {}, { lwt: now() });
    const b = person('b', {}, { lwt: now() });
    await instance.bulkWrite([{ document: a }, { document: b }], 'first-write');
    const a2 = revise(a, { name: 'changed' });
    const b2 = revise(b, { _deleted: true });
    await instance.bulkWrite(
      [
        { previous: a, document: a2 },
        { previous: b, document: b2 },
      ],
      'second-write',
    );
    const conflict = await instance.bulkWrite([{ document: person('a') }], 'conflicting');
    expect(conflict.error).toHaveLength(1);

    expect(bulks).toHaveLength(2);
    const [first, second] = bulks as [Bulk, Bulk];
    expect(first.id).toEqual(expect.any(String));
    expect(first.id).not.toBe(second.id);
    expect(first.context).toBe('first-write');
    expect(first.checkpoint).toEqual({ id: 'b', lwt: b._meta.lwt });
    expect(first.events.map((e) => [e.operation, e.documentId])).toEqual([
      ['INSERT', 'a'],
      ['INSERT', 'b'],
    ]);
    expect(first.events[0]?.documentData).toEqual(a);
    expect(second.context).toBe('second-write');
    expect(second.checkpoint).toEqual({ id: 'b', lwt: b2._meta.lwt });
    expect(second.events.map((e) => [e.operation, e.documentId])).toEqual([
      ['UPDATE', 'a'],
      ['DELETE', 'b'],
    ]);
    expect(second.events[0]?.previousDocumentData).toEqual(a);
    expect(second.events[1]?.documentData).toEqual(b2);

    expect(siblingBulks.map((bulk) => bulk.id)).toEqual(bulks.map((bulk) => bulk.id));
    expect(strangerBulks).toEqual([]);

    // The checkpoint of an event continues getChangedDocumentsSince() after that write.
    const after = await instance.getChangedDocumentsSince(10, first.checkpoint);
    expect(ids(after.documents)).toEqual(['a', 'b']);
    expect((await instance.getChangedDocumentsSince(10, second.checkpoint)).documents).toEqual([]);
  });

  it('completes for an instance when it closes', async () => {
    const instance = await openOurs();
    let completed = false;
    instance.changeStream().subscribe({ complete: () => (completed = true) });
    await instance.close();
    expect(completed).toBe(true);
  });
});

describe('getChangedDocumentsSince', () => {
  it('pages by (lwt, id) across equal lwt values, tombstones included', async () => {
    const instance = await openOurs();
    const memory = await openMemory();
    const base = now();
    const docs = [
      person('m', {}, { lwt: base + 1 }),
      person('c', {}, { lwt: base + 1 }),
      person('x', {}, { lwt: base + 1, deleted: true }),
      person('a', {}, { lwt: base + 1.5 }),
      person('k', {}, { lwt: base + 0.25 }),
      person('b', {}, { lwt: base + 1 }),
      person('z', {}, { lwt: base + 2 }),
    ];
    await insert(instance, docs);
    await insert(memory, docs);
    const expected = ['k', 'b', 'c', 'm', 'x', 'a', 'z'];

    const pages: string[][] = [];
    let checkpoint: RxStorageDefaultCheckpoint | undefined;
    for (;;) {
      const page = await instance.getChangedDocumentsSince(2, checkpoint);
      if (page.documents.length === 0) {
        expect(page.checkpoint).toEqual(checkpoint);
        break;
      }
      const last = page.documents[page.documents.length - 1] as PersonDoc;
      expect(page.checkpoint).toEqual({ id: last.id, lwt: last._meta.lwt });
      pages.push(ids(page.documents));
      checkpoint = page.checkpoint;
    }
    expect(pages).toEqual([['k', 'b'], ['c', 'm'], ['x', 'a'], ['z']]);
    // RxDB's own fallback (a query over the _meta.lwt index) on the memory storage agrees.
    const viaMemory = await getChangedDocumentsSince(memory, 100);
    expect(ids(viaMemory.documents)).toEqual(expected);
    const fresh = await instance.getChangedDocumentsSince(100);
    expect(ids(fresh.documents)).toEqual(expected);
    const empty = await (await openOurs()).getChangedDocumentsSince(5);
    expect(empty).toEqual({ documents: [], checkpoint: { id: '', lwt: 0 } });
  });
});

describe('cleanup', () => {
  it('purges tombstones older than the given age and keeps the rest', async () => {
    const instance = await openOurs();
    const old = person('old', {}, { deleted: true, lwt: now() - 60_000 });
    const recent = person('recent', {}, { deleted: true });
    const alive = person('alive', {}, { lwt: now() - 60_000 });
    await insert(instance, [old, recent, alive]);
    expect(await instance.cleanup(30_000)).toBe(true);
    expect(sortedIds(await instance.findDocumentsById(['old', 'recent', 'alive'], true))).toEqual(['alive', 'recent']);
    expect(await instance.cleanup(0)).toBe(true);
    expect(sortedIds(await instance.findDocumentsById(['old', 'recent', 'alive'], true))).toEqual(['alive']);
  });
});

describe('close and remove', () => {
  it('rejects every operation after close; close is idempotent', async () => {
    const schema = personSchema();
    const instance = await openOurs({ schema });
    await instance.close();
    await instance.close();
    const q = prepared(schema, { selector: {} });
    await expect(instance.bulkWrite([{ document: person('a') }], ctx)).rejects.toThrow(/closed/);
    await expect(instance.findDocumentsById(['a'], true)).rejects.toThrow(/closed/);
    await expect(instance.query(q)).rejects.toThrow(/closed/);
    await expect(instance.count(q)).rejects.toThrow(/closed/);
    await expect(instance.getChangedDocumentsSince(1)).rejects.toThrow(/closed/);
    await expect(instance.cleanup(0)).rejects.toThrow(/closed/);
    await expect(instance.remove()).rejects.toThrow(/closed/);
    expect(() => instance.changeStream()).toThrow(/closed/);
  });

  it('closes the SQLite handle with the last instance of a database', async () => {
    const before = openDatabaseCount();
    const databaseName = `db${randomToken(8)}`;
    const a = await openOurs({ databaseName, collectionName: 'one' });
    const b = await openOurs({ databaseName, collectionName: 'two' });
    expect(openDatabaseCount()).toBe(before + 1);
    await a.close();
    expect(openDatabaseCount()).toBe(before + 1);
    await insert(b, [person('still-works')]);
    await b.close();
    expect(openDatabaseCount()).toBe(before);
  });

  it("remove() drops the collection's table; other instances of it then fail; a new one starts empty", async () => {
    const databaseName = `db${randomToken(8)}`;
    const a = await openOurs({ databaseName });
    const b = await openOurs({ databaseName });
    const kept = await openOurs({ databaseName, collectionName: 'kept' });
    await insert(a, [person('p')]);
    await insert(kept, [person('k')]);
    await a.remove();
    await a.close();
    await expect(b.findDocumentsById(['p'], true)).rejects.toThrow(/removed/);
    await b.close();
    const again = await openOurs({ databaseName });
    expect(await again.findDocumentsById(['p'], true)).toEqual([]);
    expect(await kept.findDocumentsById(['k'], true)).toHaveLength(1);
  });

  it('deletes the database file once every collection was removed', async () => {
    const directory = await tempDirectory();
    const storage = ours({ databaseDirectory: directory });
    const a = await openOurs({ storage, databaseName: 'gone', collectionName: 'one' });
    const b = await openOurs({ storage, databaseName: 'gone', collectionName: 'two' });
    await insert(a, [person('x')]);
    await a.remove();
    expect(existsSync(path.join(directory, 'gone.sqlite'))).toBe(true);
    await b.remove();
    expect(readdirSync(directory)).toEqual([]);
  });
});

describe('isolation and persistence', () => {
  it('isolates databases, collections and schema versions', async () => {
    const databaseName = `db${randomToken(8)}`;
    const base = await openOurs({ databaseName, collectionName: 'people' });
    const otherDatabase = await openOurs({ databaseName: `db${randomToken(8)}`, collectionName: 'people' });
    const otherCollection = await openOurs({ databaseName, collectionName: 'people2' });
    const otherVersion = await openOurs({ databaseName, collectionName: 'people', schema: personSchema(1) });
    await insert(base, [person('only-here')]);
    for (const instance of [otherDatabase, otherCollection, otherVersion]) {
      expect(await instance.findDocumentsById(['only-here'], true)).toEqual([]);
      expect((await instance.getChangedDocumentsSince(10)).documents).toEqual([]);
      await insert(instance, [person('only-here', { name: instance.collectionName })]);
    }
    expect((await base.findDocumentsById(['only-here'], true))[0]?.name).toBe('name');
  });

  it('keeps the data of a file database across a reopen (a new storage object, as after a restart)', async () => {
    const directory = await tempDirectory();
    const databaseName = 'replica';
    const schema = personSchema();
    const first = await openOurs({ storage: ours({ databaseDirectory: directory }), databaseName, schema });
    const docs = Array.from({ length: 50 }, (_, i) => person(`r${i}`, { age: i }));
    await insert(first, docs);
    const deleted = revise(docs[0] as PersonDoc, { _deleted: true });
    await first.bulkWrite([{ previous: docs[0] as PersonDoc, document: deleted }], ctx);
    await first.close();
    expect(openDatabaseCount()).toBe(0);

    const second = await openOurs({ storage: ours({ databaseDirectory: directory }), databaseName, schema });
    expect(await second.findDocumentsById(['r0'], true)).toEqual([deleted]);
    expect(await second.findDocumentsById(['r1', 'r2'], false)).toEqual([docs[1], docs[2]]);
    const q = prepared(schema, { selector: { _deleted: false, age: { $gte: 45 } }, sort: [{ age: 'desc' }] });
    expect(ids((await second.query(q)).documents)).toEqual(['r49', 'r48', 'r47', 'r46', 'r45']);
  });

  it('adds, fills and drops index columns when a schema changes its indexes', async () => {
    const databaseName = `db${randomToken(8)}`;
    const before = await openOurs({ databaseName, schema: personSchema(0, ['name']) });
    await insert(before, [person('a', { city: 'Tver', score: 3 }), person('b', { city: 'Omsk', score: 2 })]);
    await before.close();
    const schema = personSchema(0, [['city', 'score']]);
    const after = await openOurs({ databaseName, schema });
    const q = prepared(schema, { selector: { _deleted: false, city: { $gt: 'A' } }, sort: [{ city: 'asc' }] });
    expect(after.explainQuery(q).join('\n')).toMatch(/USING INDEX/);
    expect(ids((await after.query(q)).documents)).toEqual(['b', 'a']);
  });

  it("writes no index columns for RxDB's replication meta data, read by id only, and still answers queries on it", async () => {
    const schema = { ...personSchema(), title: META_INSTANCE_SCHEMA_TITLE };
    const directory = await tempDirectory();
    const meta = await openOurs({ storage: ours({ databaseDirectory: directory, pageSize: 4096 }), schema });
    const memory = await openMemory(schema);
    const docs = [
      person('a', { age: 41, city: 'Tver' }),
      person('b', { age: 25, city: 'Omsk' }),
      person('c', { age: 33, city: 'Tver' }, { deleted: true }),
      person('d', { age: 33, city: 'Kursk' }),
    ];
    await insert(meta, docs);
    await insert(memory, docs);
    const raw = new Database(path.join(directory, `${meta.databaseName}.sqlite`), { readonly: true });
    try {
      const columns = raw.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(meta.internals.tableName);
      expect(columns).toEqual(['id', 'deleted', 'lwt', 'data']);
      expect(raw.pragma('page_size', { simple: true })).toBe(4096);
    } finally {
      raw.close();
    }
    const q = prepared(schema, { selector: { _deleted: false, age: { $gt: 30 } }, sort: [{ age: 'desc' }] });
    expect(meta.explainQuery(q).join('\n')).toMatch(/^SCAN/);
    expect(ids((await meta.query(q)).documents)).toEqual(ids((await memory.query(q)).documents));
    expect(ids((await meta.query(q)).documents)).toEqual(['a', 'd']);
    expect(await meta.count(q)).toEqual({ count: 2, mode: 'slow' });
    expect(sortedIds(await meta.findDocumentsById(['a', 'b', 'c'], false))).toEqual(['a', 'b']);
  });

  it('keeps no query indexes when told to (queries answered elsewhere), and gets them back when opened with them', async () => {
    const directory = await tempDirectory();
    const databaseName = `db${randomToken(8)}`;
    const schema = personSchema();
    const columnsOf = (instance: RxStorageInstanceBetterSqlite<Person>) => {
      const raw = new Database(path.join(directory, `${databaseName}.sqlite`), { readonly: true });
      try {
        return raw.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(instance.internals.tableName);
      } finally {
        raw.close();
      }
    };
    const lean = await openOurs({
      storage: ours({ databaseDirectory: directory, indexes: false }),
      databaseName,
      schema,
    });
    const docs = [person('a', { age: 41 }), person('b', { age: 25 }), person('c', { age: 33 })];
    await insert(lean, docs);
    expect(columnsOf(lean)).toEqual(['id', 'deleted', 'lwt', 'data']);
    const q = prepared(schema, { selector: { _deleted: false, age: { $gt: 30 } }, sort: [{ age: 'desc' }] });
    expect(lean.explainQuery(q).join('\n')).toMatch(/^SCAN/);
    expect(ids((await lean.query(q)).documents)).toEqual(['a', 'c']);
    await lean.close();

    const indexed = await openOurs({ storage: ours({ databaseDirectory: directory }), databaseName, schema });
    expect(columnsOf(indexed).length).toBeGreaterThan(4);
    expect(indexed.explainQuery(q).join('\n')).toMatch(/USING INDEX/);
    expect(ids((await indexed.query(q)).documents)).toEqual(['a', 'c']);
  });

  it('keeps in-memory databases only while an instance is open', async () => {
    const storage = ours({ databaseDirectory: ':memory:' });
    const databaseName = `mem${randomToken(8)}`;
    const a = await openOurs({ storage, databaseName });
    await insert(a, [person('volatile')]);
    const b = await openOurs({ storage, databaseName });
    expect(await b.findDocumentsById(['volatile'], false)).toHaveLength(1);
    await a.close();
    await b.close();
    const c = await openOurs({ storage, databaseName });
    expect(await c.findDocumentsById(['volatile'], true)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('RxDB end to end on this storage', () => {
  type Todo = { id: string; title: string; done: boolean; order: number };
  const todoSchema: RxJsonSchema<Todo> = {
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id: { type: 'string', maxLength: 40 },
      title: { type: 'string', maxLength: 200 },
      done: { type: 'boolean' },
      order: { type: 'integer', minimum: 0, maximum: 1_000_000, multipleOf: 1 },
    },
    required: ['id', 'title', 'done', 'order'],
    indexes: ['title', ['done', 'order']],
  };

  it('inserts, finds, updates, removes and drives a live query; the data survives a restart', async () => {
    const directory = await tempDirectory();
    const name = `orbita${randomToken(6)}`;
    const open = () =>
      createRxDatabase({
        name,
        storage: getRxStorageBetterSqlite({ databaseDirectory: directory }),
        multiInstance: false,
        eventReduce: true,
      });
    const db = await open();
    const { todos } = await db.addCollections({ todos: { schema: todoSchema } });

    const seen: string[][] = [];
    const live = todos
      .find({ selector: { done: false }, sort: [{ order: 'asc' }] })
      .$.subscribe((docs) => seen.push(docs.map((d) => d.id)));
    await waitFor(() => seen.length > 0);
    expect(seen.at(-1)).toEqual([]);

    await todos.bulkInsert([
      { id: 't1', title: 'Call the client 📞', done: false, order: 2 },
      { id: 't2', title: 'Write report', done: false, order: 1 },
      { id: 't3', title: 'Archive', done: true, order: 3 },
    ]);
    await waitFor(() => JSON.stringify(seen.at(-1)) === JSON.stringify(['t2', 't1']));

    const t2 = await todos.findOne('t2').exec(true);
    await t2.patch({ done: true });
    await waitFor(() => JSON.stringify(seen.at(-1)) === JSON.stringify(['t1']));

    await todos.insert({ id: 't4', title: 'First thing', done: false, order: 0 });
    await waitFor(() => JSON.stringify(seen.at(-1)) === JSON.stringify(['t4', 't1']));

    const t1 = await todos.findOne('t1').exec(true);
    await t1.remove();
    await waitFor(() => JSON.stringify(seen.at(-1)) === JSON.stringify(['t4']));

    expect((await todos.find({ selector: { title: { $regex: '^A' } } }).exec()).map((d) => d.id)).toEqual(['t3']);
    expect(await todos.count({ selector: { done: true } }).exec()).toBe(2);
    const byIds = await todos.findByIds(['t1', 't2', 't3']).exec();
    expect([...byIds.keys()].sort()).toEqual(['t2', 't3']);
    live.unsubscribe();
    await db.close();
    expect(openDatabaseCount()).toBe(0);

    const reopened = await open();
    const again = await reopened.addCollections({ todos: { schema: todoSchema } });
    const rows = await again.todos.find({ sort: [{ order: 'asc' }] }).exec();
    expect(rows.map((d) => [d.id, d.done])).toEqual([
      ['t4', false],
      ['t2', true],
      ['t3', true],
    ]);
    await reopened.remove();
    expect(readdirSync(directory)).toEqual([]);
  });

  it('works behind exposeRxStorageRemote across a MessagePort (structured clone), as in the utility process', async () => {
    const directory = await tempDirectory();
    const { port1, port2 } = new MessageChannel();
    const toRemote = new Subject<MessageToRemote>();
    port2.on('message', (message: MessageToRemote) => toRemote.next(message));
    exposeRxStorageRemote({
      storage: getRxStorageBetterSqlite({ databaseDirectory: directory }),
      messages$: toRemote.asObservable(),
      send: (message) => port2.postMessage(message),
    });
    const fromRemote = new Subject<MessageFromRemote>();
    port1.on('message', (message: MessageFromRemote) => fromRemote.next(message));
    const storage = getRxStorageRemote({
      identifier: 'backend',
      mode: 'storage',
      messageChannelCreator: async () => ({
        messages$: fromRemote.asObservable(),
        send: (message) => port1.postMessage(message),
        close: async () => {},
      }),
    });
    try {
      const db = await createRxDatabase({ name: `remote${randomToken(6)}`, storage, multiInstance: false });
      const { todos } = await db.addCollections({ todos: { schema: todoSchema } });
      const seen: number[] = [];
      const live = todos.find({ selector: { done: false } }).$.subscribe((docs) => seen.push(docs.length));
      await todos.bulkInsert([
        { id: 'r1', title: 'One', done: false, order: 1 },
        { id: 'r2', title: 'Two', done: true, order: 2 },
      ]);
      await waitFor(() => seen.at(-1) === 1);
      await expect(todos.insert({ id: 'r1', title: 'again', done: false, order: 3 })).rejects.toThrow(/CONFLICT/);
      const r1 = await todos.findOne('r1').exec(true);
      await r1.patch({ done: true });
      await waitFor(() => seen.at(-1) === 0);
      expect(await todos.count({ selector: { done: true } }).exec()).toBe(2);
      live.unsubscribe();
      await db.remove();
    } finally {
      port1.close();
      port2.close();
    }
    expect(readdirSync(directory)).toEqual([]);
  });
});
