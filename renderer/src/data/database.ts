import type { LostEdit } from '@shared/sync';
import { createRxDatabase, type RxCollection, type RxDatabase, type RxStorage } from 'rxdb';
import type { RxReplicationState } from 'rxdb/plugins/replication';
import type { Socket } from 'socket.io-client';
import { type CollectionName, collectionSchemas, WRITABLE } from './schemas';
import { replicateOverSocket } from './socket-replication';

export type OrbitaCollections = { [K in CollectionName]: RxCollection };
export type OrbitaDatabase = RxDatabase<OrbitaCollections>;

/**
 * The replica: one RxDB database with the replicated collections (7, under RxDB's free limit
 * of 13). The storage is our SQLite storage in the desktop app (through the utility process) or
 * Dexie in a browser; the rest is the same code.
 */
export async function createOrbitaDatabase(options: {
  name: string;
  storage: RxStorage<unknown, unknown>;
  /** A subset of the collections (all by default), e.g. for a light client. */
  collections?: readonly CollectionName[];
}): Promise<OrbitaDatabase> {
  const names = options.collections ?? (Object.keys(collectionSchemas) as CollectionName[]);
  const db = await createRxDatabase<OrbitaCollections>({
    name: options.name,
    storage: options.storage,
    multiInstance: false,
    closeDuplicates: true,
  });
  await db.addCollections(
    Object.fromEntries(names.map((name) => [name, { schema: collectionSchemas[name] }])) as never,
  );
  return db;
}

export interface ReplicaSync {
  states: Partial<Record<CollectionName, RxReplicationState<unknown, unknown>>>;
  /** Resolves when every collection has pulled what the server had at the start. */
  awaitInitial(): Promise<void>;
  /** Resolves when local writes are pushed and remote changes pulled. */
  awaitInSync(): Promise<void>;
  cancel(): Promise<void>;
}

/** Replicates every collection over one `/sync` socket; tasks both ways, the rest pull-only. */
export function startReplicaSync(
  db: OrbitaDatabase,
  socket: Socket,
  options: { onLostEdits?: (lost: LostEdit[]) => void; retryTimeMs?: number } = {},
): ReplicaSync {
  const present = (Object.keys(collectionSchemas) as CollectionName[]).filter((name) => name in db.collections);
  const states = Object.fromEntries(
    present.map((name) => [
      name,
      replicateOverSocket({
        collection: db[name],
        remoteCollection: name,
        socket,
        push: WRITABLE.includes(name),
        // Large pages make a first sync of tens of thousands of records take few round trips.
        batchSize: 1000,
        retryTimeMs: options.retryTimeMs,
        onLostEdits: options.onLostEdits,
      }),
    ]),
  ) as Partial<Record<CollectionName, RxReplicationState<unknown, unknown>>>;
  const all = Object.values(states) as RxReplicationState<unknown, unknown>[];
  return {
    states,
    async awaitInitial() {
      await Promise.all(all.map((state) => state.awaitInitialReplication()));
    },
    async awaitInSync() {
      await Promise.all(all.map((state) => state.awaitInSync()));
    },
    async cancel() {
      await Promise.all(all.map((state) => state.cancel()));
    },
  };
}
