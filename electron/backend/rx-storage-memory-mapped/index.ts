import { changedDocumentsSince } from '@shared/rx-changes';
import type {
  BulkWriteRow,
  EventBulk,
  PreparedQuery,
  RxDocumentData,
  RxStorage,
  RxStorageBulkWriteResponse,
  RxStorageChangeEvent,
  RxStorageCountResult,
  RxStorageDefaultCheckpoint,
  RxStorageInstance,
  RxStorageInstanceCreationParams,
  RxStorageQueryResult,
} from 'rxdb';
import {
  ensureRxStorageInstanceParamsAreCorrect,
  getChangedDocumentsSince,
  META_INSTANCE_SCHEMA_TITLE,
  RXDB_VERSION,
} from 'rxdb';
import { createMemoryStorageInstance, getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import type { Observable } from 'rxjs';
import { closedError, removedError, runsWithoutRepeatedIds } from '../rx-storage-sqlite/helpers';

type AnyInstance = RxStorageInstance<unknown, unknown, unknown, RxStorageDefaultCheckpoint>;
type AnyDocument = RxDocumentData<unknown>;
type MemoryStorage = ReturnType<typeof getRxStorageMemory>;

export interface MemoryMappedSettings {
  /** Where the documents are kept: every write reaches it, in order, shortly after it is answered. */
  storage: RxStorage<unknown, unknown>;
  /**
   * Answer a write only once the persistent storage has it. Default `false`: a write is answered as
   * soon as it is in memory and persisted on the next turn of the event loop, batched with the writes
   * of the same turn; the last `close()` of a collection waits for everything pending.
   */
  awaitWritePersistence?: boolean;
  /**
   * Collections kept on disk only, without a copy in memory: every read and write goes to the
   * persistent storage (after the pending writes of the same database, so the disk never holds a
   * later write without the earlier ones). Default: RxDB's replication meta data, which RxDB reads
   * by id only and which holds a second copy of every replicated document.
   */
  onDiskOnly?: (params: RxStorageInstanceCreationParams<unknown, unknown>) => boolean;
}

/** Documents read from the persistent storage per step when a collection is opened. */
const LOAD_BATCH = 5_000;
const PERSIST_CONTEXT = 'memory-mapped-persist';
const INSTANCE_NAME = 'RxStorageInstanceMemoryMapped';
const LOAD_CONTEXT = 'memory-mapped-load';

/** One write waiting for the persistent storage: the state it replaces there and its newest state. */
interface PendingWrite {
  previous: AnyDocument | undefined;
  document: AnyDocument;
}

/**
 * One (database, collection, schema version) open in this process: its documents in memory (RxDB's
 * memory storage state), its persistent instance and the writes not yet persisted. Shared by every
 * instance of that collection so that all of them see one state and persist in one order.
 */
interface MappedCollection {
  key: string;
  databaseName: string;
  persistentStorage: RxStorage<unknown, unknown>;
  memoryStorage: MemoryStorage;
  /** Creates the persistent instance (a new database's is created with its first write). */
  createPersistent: () => Promise<AnyInstance>;
  created: Promise<AnyInstance> | undefined;
  pending: Map<string, PendingWrite>;
  /** The persisting under way (each waits for the one before: the persistent storage sees writes in order). */
  persisting: Promise<void>;
  scheduled: boolean;
  /** The collection was removed: every instance of it fails from then on. */
  removed: boolean;
  /** Takes the collection out of the registry (once removed, the next open starts anew). */
  forget: () => void;
  /** Why the last persisting failed; writes are refused until a retry succeeds. */
  failure: Error | undefined;
  refs: number;
  primaryPath: string;
}

/**
 * Collections open per persistent storage, so that two wrappers of one storage never hold two copies,
 * and the closing of each (a collection opened again reads the disk once the last close has written it).
 */
const registries = new WeakMap<
  object,
  { open: Map<string, Promise<MappedCollection>>; closing: Map<string, Promise<void>> }
>();

/** Every collection open in this process, whatever its storage, for `persistAllMemoryMapped()`. */
const liveCollections = new Set<MappedCollection>();

/**
 * Writes everything pending in every open collection to its persistent storage (the replica process
 * calls it before it exits). Rejects with the first failure, after trying every collection.
 */
export async function persistAllMemoryMapped(): Promise<void> {
  const results = await Promise.allSettled([...liveCollections].map((collection) => persist(collection)));
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

/** Persists what every open collection of one database holds pending. */
function persistDatabase(storage: RxStorage<unknown, unknown>, databaseName: string): Promise<void> {
  const siblings = [...liveCollections].filter(
    (collection) => collection.persistentStorage === storage && collection.databaseName === databaseName,
  );
  return Promise.all(siblings.map((collection) => persist(collection))).then(() => {});
}

function collectionKey(params: RxStorageInstanceCreationParams<unknown, unknown>): string {
  return JSON.stringify([params.databaseName, params.collectionName, params.schema.version]);
}

function persistenceFailed(collection: MappedCollection, cause: unknown): Error {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new Error(
    `The replica could not save its changes to disk (${collection.key}): ${reason}. Free disk space or check the replica directory's permissions; pending changes are kept in memory and saved with the next write.`,
    { cause },
  );
}

/** The collection's persistent instance, created on first use; a failed creation is tried again next time. */
function persistentInstance(collection: MappedCollection): Promise<AnyInstance> {
  collection.created ??= collection.createPersistent().catch((error: unknown) => {
    collection.created = undefined;
    throw error;
  });
  return collection.created;
}

/** Hands every pending write to the persistent storage, after whatever persisting is already under way. */
function persist(collection: MappedCollection): Promise<void> {
  collection.scheduled = false;
  // Each run starts after the previous one, whether that one succeeded or not.
  const run = collection.persisting
    .catch(() => {})
    .then(async () => {
      if (collection.pending.size === 0) return;
      const batch = collection.pending;
      collection.pending = new Map();
      const rows = [...batch.values()].map(({ previous, document }) => ({ previous, document }));
      try {
        const persistent = await persistentInstance(collection);
        const { error } = await persistent.bulkWrite(rows as BulkWriteRow<unknown>[], PERSIST_CONTEXT);
        if (error.length > 0) {
          // Only this process writes the persistent storage; a conflict there means another writer.
          throw new Error(
            `${error.length} document(s) changed on disk behind the replica (first: ${error[0]?.documentId}, status ${error[0]?.status})`,
          );
        }
        collection.failure = undefined;
      } catch (cause) {
        // Keep the batch for the next try, merged under what was written meanwhile.
        for (const [id, write] of collection.pending) {
          const earlier = batch.get(id);
          batch.set(id, earlier ? { previous: earlier.previous, document: write.document } : write);
        }
        collection.pending = batch;
        collection.failure = persistenceFailed(collection, cause);
        throw collection.failure;
      }
    });
  collection.persisting = run;
  // Whoever waits for this run gets its failure; it is also kept for the next write.
  run.catch(() => {});
  return run;
}

function schedulePersist(collection: MappedCollection): void {
  if (collection.scheduled) return;
  collection.scheduled = true;
  setImmediate(() => {
    // A failure is kept on the collection and reported to the next write.
    persist(collection).catch(() => {});
  });
}

async function openCollection(
  storage: RxStorage<unknown, unknown>,
  params: RxStorageInstanceCreationParams<unknown, unknown>,
  primaryPath: string,
): Promise<MappedCollection> {
  // A private state map: the documents live as long as an instance of the collection is open.
  const memoryStorage = { ...getRxStorageMemory(), collectionStates: new Map() } as MemoryStorage;
  const createPersistent = async () => (await storage.createStorageInstance(params)) as AnyInstance;
  // A database with nothing on disk yet has nothing to read: its file is created with the first write.
  const stored = (storage as { hasDatabase?: (name: string) => boolean }).hasDatabase?.(params.databaseName) ?? true;
  let created: Promise<AnyInstance> | undefined;
  if (stored) {
    const persistent = await createPersistent();
    const loader = (await createMemoryStorageInstance(memoryStorage, params as never, {})) as unknown as AnyInstance;
    try {
      let checkpoint: RxStorageDefaultCheckpoint | undefined;
      for (;;) {
        const page = await getChangedDocumentsSince(persistent, LOAD_BATCH, checkpoint);
        if (page.documents.length === 0) break;
        const { error } = await loader.bulkWrite(
          page.documents.map((document) => ({ document })),
          LOAD_CONTEXT,
        );
        if (error.length > 0) throw new Error(`${error.length} document(s) could not be loaded into memory`);
        checkpoint = page.checkpoint;
      }
    } catch (error) {
      await persistent.close();
      throw error;
    } finally {
      await loader.close();
    }
    created = Promise.resolve(persistent);
  }
  return {
    key: collectionKey(params),
    databaseName: params.databaseName,
    persistentStorage: storage,
    memoryStorage,
    createPersistent,
    created,
    pending: new Map(),
    persisting: Promise.resolve(),
    scheduled: false,
    failure: undefined,
    removed: false,
    forget: () => {},
    refs: 0,
    primaryPath,
  };
}

function isReplicationMetaData(params: RxStorageInstanceCreationParams<unknown, unknown>): boolean {
  return params.schema.title === META_INSTANCE_SCHEMA_TITLE;
}

/** A persistent instance whose writes first wait for the pending writes of its database. */
function onDisk<RxDocType>(
  instance: RxStorageInstance<RxDocType, unknown, unknown>,
  persistBefore: () => Promise<void>,
): RxStorageInstance<RxDocType, unknown, unknown> {
  const bulkWrite = instance.bulkWrite.bind(instance);
  return new Proxy(instance, {
    get(target, key) {
      if (key === 'bulkWrite') {
        return async (rows: BulkWriteRow<RxDocType>[], context: string) => {
          await persistBefore();
          return bulkWrite(rows, context);
        };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export class RxStorageInstanceMemoryMapped<RxDocType>
  implements RxStorageInstance<RxDocType, unknown, unknown, RxStorageDefaultCheckpoint>
{
  readonly databaseName: string;
  readonly collectionName: string;
  readonly schema: RxStorageInstanceCreationParams<RxDocType, unknown>['schema'];
  readonly options: Readonly<unknown>;
  readonly internals: { key: string };
  private closed = false;

  constructor(
    params: RxStorageInstanceCreationParams<RxDocType, unknown>,
    private readonly memory: RxStorageInstance<RxDocType, unknown, unknown, RxStorageDefaultCheckpoint>,
    private readonly collection: MappedCollection,
    private readonly settings: MemoryMappedSettings,
    private readonly release: () => Promise<void>,
  ) {
    this.databaseName = params.databaseName;
    this.collectionName = params.collectionName;
    this.schema = params.schema;
    this.options = params.options as Readonly<unknown>;
    this.internals = { key: collection.key };
  }

  private usable(operation: string): void {
    const what = `${operation}() on ${this.databaseName}/${this.collectionName}`;
    if (this.closed) throw closedError(what, INSTANCE_NAME);
    if (this.collection.removed) throw removedError(what, INSTANCE_NAME);
  }

  async bulkWrite(
    documentWrites: BulkWriteRow<RxDocType>[],
    context: string,
  ): Promise<RxStorageBulkWriteResponse<RxDocType>> {
    this.usable('bulkWrite');
    const { collection } = this;
    // A disk that refused the last batch gets another try before anything more is accepted.
    if (collection.failure) await persist(collection);
    const result: RxStorageBulkWriteResponse<RxDocType> = { error: [] };
    // A document named twice is written in order, the later write checked against the earlier
    // (RxDB's memory storage would check both against the state before the batch).
    for (const run of runsWithoutRepeatedIds(documentWrites, collection.primaryPath)) {
      const { error } = await this.memory.bulkWrite(run, context);
      result.error.push(...error);
      const refused = new Set(error.map((failed) => failed.documentId));
      for (const row of run) {
        const id = (row.document as Record<string, unknown>)[collection.primaryPath] as string;
        if (refused.has(id)) continue;
        const waiting = collection.pending.get(id);
        collection.pending.set(id, {
          previous: waiting ? waiting.previous : (row.previous as AnyDocument | undefined),
          document: row.document as AnyDocument,
        });
      }
    }
    if (this.settings.awaitWritePersistence) await persist(collection);
    else schedulePersist(collection);
    return result;
  }

  async findDocumentsById(ids: string[], withDeleted: boolean): Promise<RxDocumentData<RxDocType>[]> {
    this.usable('findDocumentsById');
    return this.memory.findDocumentsById(ids, withDeleted);
  }

  async query(preparedQuery: PreparedQuery<RxDocType>): Promise<RxStorageQueryResult<RxDocType>> {
    this.usable('query');
    return this.memory.query(preparedQuery);
  }

  async count(preparedQuery: PreparedQuery<RxDocType>): Promise<RxStorageCountResult> {
    this.usable('count');
    return this.memory.count(preparedQuery);
  }

  async getChangedDocumentsSince(
    limit: number,
    checkpoint?: RxStorageDefaultCheckpoint,
  ): Promise<{ documents: RxDocumentData<RxDocType>[]; checkpoint: RxStorageDefaultCheckpoint }> {
    this.usable('getChangedDocumentsSince');
    return changedDocumentsSince(this.memory, limit, checkpoint) as never;
  }

  changeStream(): Observable<EventBulk<RxStorageChangeEvent<RxDocType>, RxStorageDefaultCheckpoint>> {
    this.usable('changeStream');
    return this.memory.changeStream();
  }

  /** Purges old tombstones from memory, then (once everything pending is on disk) from the persistent storage. */
  async cleanup(minimumDeletedTime: number): Promise<boolean> {
    this.usable('cleanup');
    await this.memory.cleanup(minimumDeletedTime);
    await persist(this.collection);
    return (await persistentInstance(this.collection)).cleanup(minimumDeletedTime);
  }

  async getAttachmentData(documentId: string, attachmentId: string, digest: string): Promise<Blob> {
    this.usable('getAttachmentData');
    return this.memory.getAttachmentData(documentId, attachmentId, digest);
  }

  /** Waits until every write answered so far is in the persistent storage. */
  async persisted(): Promise<void> {
    await persist(this.collection);
  }

  async remove(): Promise<void> {
    this.usable('remove');
    const { collection } = this;
    collection.removed = true;
    collection.forget();
    collection.pending.clear();
    await collection.persisting.catch(() => {});
    await this.memory.remove();
    await (await persistentInstance(collection)).remove();
    await this.close();
  }

  /** Idempotent; the last instance of a collection persists what is pending and frees its documents. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.memory.close();
    await this.release();
  }
}

export class RxStorageMemoryMapped implements RxStorage<unknown, unknown> {
  readonly name: string;
  readonly rxdbVersion = RXDB_VERSION;

  constructor(readonly settings: Readonly<MemoryMappedSettings>) {
    this.name = `memory-mapped-${settings.storage.name}`;
  }

  async createStorageInstance<RxDocType>(
    params: RxStorageInstanceCreationParams<RxDocType, unknown>,
  ): Promise<RxStorageInstance<RxDocType, unknown, unknown>> {
    ensureRxStorageInstanceParamsAreCorrect(params);
    const anyParams = params as unknown as RxStorageInstanceCreationParams<unknown, unknown>;
    const underlying = this.settings.storage;
    const onDiskOnly = this.settings.onDiskOnly ?? isReplicationMetaData;
    if (onDiskOnly(anyParams)) {
      const persistent = await underlying.createStorageInstance(params);
      return onDisk(persistent, () => persistDatabase(underlying, params.databaseName)) as never;
    }
    let registry = registries.get(underlying);
    if (!registry) {
      registry = { open: new Map(), closing: new Map() };
      registries.set(underlying, registry);
    }
    const { open, closing } = registry;
    const key = collectionKey(anyParams);
    let opening = open.get(key);
    if (!opening) {
      const primaryKey = params.schema.primaryKey;
      const primaryPath = typeof primaryKey === 'string' ? primaryKey : primaryKey.key;
      const previous = closing.get(key) ?? Promise.resolve();
      opening = previous.then(() => openCollection(underlying, anyParams, primaryPath));
      open.set(key, opening);
      opening.catch(() => open.delete(key));
    }
    const collection = await opening;
    const registered = opening;
    collection.refs++;
    liveCollections.add(collection);
    collection.forget = () => {
      if (open.get(key) === registered) open.delete(key);
      liveCollections.delete(collection);
    };
    const memory = (await createMemoryStorageInstance(
      collection.memoryStorage,
      params as never,
      {},
    )) as unknown as RxStorageInstance<RxDocType, unknown, unknown, RxStorageDefaultCheckpoint>;
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      collection.refs--;
      if (collection.refs > 0) return;
      collection.forget();
      // A collection never written keeps its database uncreated.
      const closed = persist(collection).finally(() =>
        collection.created?.then(
          (persistent) => persistent.close(),
          () => undefined,
        ),
      );
      const settled = closed.catch(() => {});
      closing.set(key, settled);
      settled.then(() => {
        if (closing.get(key) === settled) closing.delete(key);
      });
      await closed;
    };
    return new RxStorageInstanceMemoryMapped<RxDocType>(params, memory, collection, this.settings, release);
  }
}

/**
 * Keeps every open collection's documents in memory (RxDB's memory storage: its indexes and query
 * planner) and persists each write to another storage on the next turn of the event loop, batched.
 * Reads never touch the disk; opening a collection reads it whole once.
 */
export function getRxStorageMemoryMapped(settings: MemoryMappedSettings): RxStorageMemoryMapped {
  return new RxStorageMemoryMapped({ ...settings });
}
