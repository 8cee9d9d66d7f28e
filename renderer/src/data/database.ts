import type { LostEdit } from '@shared/sync';
import {
  addRxPlugin,
  createRxDatabase,
  defaultHashSha256,
  type RxCollection,
  type RxDatabase,
  type RxStorage,
} from 'rxdb';
import { RxDBCleanupPlugin } from 'rxdb/plugins/cleanup';
import { RxDBMigrationSchemaPlugin, type RxMigrationState } from 'rxdb/plugins/migration-schema';
import type { RxReplicationState } from 'rxdb/plugins/replication';
import type { Socket } from 'socket.io-client';
import { markUnrecordedPulls, withPulledDocumentsMarked } from './pulled-marks';
import { type CollectionName, collectionMigrations, collectionSchemas, tombstoneDefaults, WRITABLE } from './schemas';
import { withServerStatesInOrder } from './server-state-order';
import {
  replicateOverSocket,
  type SocketReplicationOptions,
  type SocketReplicationState,
  type SyncDirection,
  type SyncTrouble,
  syncReplicationIdentifier,
} from './socket-replication';

// Tombstones of deleted records are removed from the replica once every replication has seen them.
addRxPlugin(RxDBCleanupPlugin);
// A replica written by an earlier release is brought to the current schemas when it opens.
addRxPlugin(RxDBMigrationSchemaPlugin);

export type OrbitaCollections = { [K in CollectionName]: RxCollection };
export type OrbitaDatabase = RxDatabase<OrbitaCollections>;

/** Documents of the replica brought to the current schemas so far, of those to bring. */
export interface UpgradeProgress {
  handled: number;
  total: number;
}

/**
 * Observes every collection's migration state for as long as the database is open: RxDB checks at
 * open whether a versioned collection needs migrating, with reads nobody awaits, and a storage
 * failing then (a replica process dying) would leave them unhandled; observing gives them a
 * handler. While a migration runs, `report` hears its progress, summed over collections.
 */
function watchMigrations(db: OrbitaDatabase, report?: (progress: UpgradeProgress) => void): void {
  const counts = new Map<string, UpgradeProgress>();
  const watching = new Map<RxMigrationState, { unsubscribe(): void }>();
  const watch = (state: RxMigrationState) => {
    if (db.closed || watching.has(state)) return;
    state.oldCollectionMeta.catch(() => undefined);
    state.mustMigrate.catch(() => undefined);
    watching.set(
      state,
      state.$.subscribe({
        next: (status) => {
          counts.set(status.collectionName, { handled: status.count.handled, total: status.count.total });
          let handled = 0;
          let total = 0;
          for (const count of counts.values()) {
            handled += count.handled;
            total += count.total;
          }
          if (report && total > 0) report({ handled, total });
        },
        error: () => undefined,
      }),
    );
  };
  // A migration state is announced from its constructor, before its status can be observed.
  const states = db.migrationStates().subscribe((all) => queueMicrotask(() => all.forEach(watch)));
  db.onClose.push(() => {
    states.unsubscribe();
    for (const subscription of watching.values()) subscription.unsubscribe();
  });
}

/** The collections a replica writes to the server too: their replications keep records of server states. */
const replicatedBothWays = (collection: string) => (WRITABLE as readonly string[]).includes(collection);

/**
 * The replica: one RxDB database with the replicated collections (10, under RxDB's free limit
 * of 13). The storage is our SQLite storage in the desktop app (through the utility process) or
 * Dexie in a browser; the rest is the same code.
 */
export async function createOrbitaDatabase(options: {
  name: string;
  storage: RxStorage<unknown, unknown>;
  /** A subset of the collections (all by default), e.g. for a light client. */
  collections?: readonly CollectionName[];
  /** A replica written by an earlier release is being brought to the current schemas: how far. */
  onUpgrade?: (progress: UpgradeProgress) => void;
}): Promise<OrbitaDatabase> {
  const names = options.collections ?? (Object.keys(collectionSchemas) as CollectionName[]);
  const db = await createRxDatabase<OrbitaCollections>({
    name: options.name,
    // A document's server state is read only once it is recorded: see `withServerStatesInOrder`.
    // Pulled documents keep the mark that tells them from edits waiting to be sent (only the
    // collections replicated both ways keep records of server states): `withPulledDocumentsMarked`.
    storage: withPulledDocumentsMarked(
      withServerStatesInOrder(options.storage, replicatedBothWays),
      (collection) => (replicatedBothWays(collection) ? syncReplicationIdentifier(collection) : undefined),
      defaultHashSha256,
    ),
    hashFunction: defaultHashSha256,
    multiInstance: false,
    closeDuplicates: true,
    cleanupPolicy: {
      minimumDeletedTime: 7 * 24 * 60 * 60 * 1000,
      runEach: 60 * 60 * 1000,
      awaitReplicationsInSync: true,
    },
  });
  // RxDB migrates each collection written by an earlier release before it opens it.
  // Progress is reported while the database opens only.
  let opened = false;
  const onUpgrade = options.onUpgrade;
  watchMigrations(db, onUpgrade && ((progress) => !opened && onUpgrade(progress)));
  try {
    await db.addCollections(
      Object.fromEntries(
        names.map((name) => [
          name,
          { schema: collectionSchemas[name], migrationStrategies: collectionMigrations[name] ?? {} },
        ]),
      ) as never,
    );
    // Every collection is read once: a store that cannot be read (IndexedDB opens its databases
    // lazily) fails the opening here, where the app offers to bring the copy again, rather than
    // each screen's query later.
    await Promise.all(names.map((name) => db.collections[name].findOne().exec()));
  } catch (error) {
    // A copy that cannot be opened is left closed: it can then be deleted (`Replica.discardCopy`).
    await db.close().catch(() => undefined);
    throw error;
  }
  opened = true;
  return db;
}

export interface ReplicaSync {
  states: Partial<Record<CollectionName, SocketReplicationState<unknown>>>;
  /**
   * With `markUnrecordedPulls` (else absent): the ids marked, once every collection replicated both
   * ways has looked (before its first pull); undefined if one could not look.
   */
  unrecordedPullsMarked?: Promise<string[] | undefined>;
  /** Resolves when every collection has pulled what the server had at the start. */
  awaitInitial(): Promise<void>;
  /** Resolves when local writes are pushed and remote changes pulled. */
  awaitInSync(): Promise<void>;
  /** Stops replicating (signed out); local writes keep waiting in the replica. */
  pause(): Promise<void>;
  /** Starts again after sign-in, from the saved checkpoints. */
  resume(): Promise<void>;
  cancel(): Promise<void>;
  /**
   * The replica's storage is gone (its process died): every replication stops now, and what each
   * was waiting for fails without being reported as an unhandled error.
   */
  abandon(): void;
  /** Forgets the lost edits `seen` tells, in every collection's replication (the user has seen them). */
  forgetLost(seen: (edit: LostEdit) => boolean): void;
}

/**
 * RxDB chains a replication's storage calls in queues nobody awaits; a storage that fails them all
 * at once (a dead process) would leave each failure unhandled.
 */
function quietQueues(state: {
  internalReplicationState?: RxReplicationState<unknown, unknown>['internalReplicationState'];
}): void {
  const internal = state.internalReplicationState;
  if (!internal) return;
  for (const queue of [internal.streamQueue.up, internal.streamQueue.down, internal.checkpointQueue]) {
    queue.catch(() => undefined);
  }
}

/** Replicates every collection over one `/sync` socket; tasks both ways, the rest pull-only. */
export function startReplicaSync(
  db: OrbitaDatabase,
  socket: Socket,
  options: {
    onLostEdits?: (lost: LostEdit[]) => void;
    /** Documents whose push the server answered. */
    onPushed?: (collection: CollectionName, ids: string[]) => void;
    /** Documents with a change of the user's that a push is about to send (see `replicateOverSocket`). */
    onSending?: (collection: CollectionName, ids: string[]) => void;
    /** How the last pull or push of a collection went (see `replicateOverSocket`). */
    onSyncProblem?: (collection: CollectionName, direction: SyncDirection, problem: SyncTrouble | undefined) => void;
    /** Called when the server no longer accepts the session: replication pauses until `resume()`. */
    onSignedOut?: () => void;
    /** Called once (after `onSignedOut`'s pause begins) when the server says the account is deactivated. */
    onDeactivated?: () => void;
    /**
     * Called when the access token expired: a fresh token (sent to the server with `sync:auth`, the
     * stream goes on) or undefined when the session is over.
     */
    reauthenticate?: () => Promise<string | undefined>;
    retryTimeMs?: number;
    /**
     * Looks, before the first pull, for pulled documents a replica written before their mark was
     * kept holds without their server state recorded, and marks them (`markUnrecordedPulls`).
     */
    markUnrecordedPulls?: boolean;
    /** Keeps what each collection's pushes not answered yet sent across restarts of the app. */
    keepSentStates?: (collection: CollectionName) => SocketReplicationOptions<unknown>['keepSentStates'];
    /** Keeps the master states each collection deferred for the user's changes across restarts. */
    keepDeferredMasterStates?: (
      collection: CollectionName,
    ) => SocketReplicationOptions<unknown>['keepDeferredMasterStates'];
    /** Keeps the answers to pushes each collection is taking into the replica across restarts of the app. */
    keepAnswers?: (collection: CollectionName) => SocketReplicationOptions<unknown>['keepAnswers'];
  } = {},
): ReplicaSync {
  const present = (Object.keys(collectionSchemas) as CollectionName[]).filter((name) => name in db.collections);
  const marking = new Map(
    present
      .filter((name) => options.markUnrecordedPulls && WRITABLE.includes(name))
      .map((name) => {
        let resolve: (ids: string[] | undefined) => void = () => undefined;
        const promise = new Promise<string[] | undefined>((done) => {
          resolve = done;
        });
        return [name, { promise, resolve }] as const;
      }),
  );
  const states = Object.fromEntries(
    present.map((name) => [
      name,
      replicateOverSocket({
        collection: db[name],
        remoteCollection: name,
        socket,
        push: WRITABLE.includes(name),
        // A first sync of tens of thousands of records takes pages of 1,000 (the server's most)
        // and few replica transactions: one per batch, not one per page.
        batchSize: 10_000,
        retryTimeMs: options.retryTimeMs,
        onLostEdits: options.onLostEdits,
        onPushed: (ids) => options.onPushed?.(name, ids),
        onSending: (ids) => options.onSending?.(name, ids),
        onSyncProblem: (direction, problem) => options.onSyncProblem?.(name, direction, problem),
        tombstoneDefaults: tombstoneDefaults[name],
        keepSentStates: options.keepSentStates?.(name),
        keepDeferredMasterStates: options.keepDeferredMasterStates?.(name),
        keepAnswers: options.keepAnswers?.(name),
        beforeFirstPull: marking.has(name)
          ? (internal) => {
              const done = marking.get(name);
              return markUnrecordedPulls(internal).then(done?.resolve, (error) => {
                done?.resolve(undefined);
                throw error;
              });
            }
          : undefined,
      }),
    ]),
  ) as unknown as Partial<Record<CollectionName, SocketReplicationState<unknown>>>;
  const all = Object.values(states) as SocketReplicationState<unknown>[];
  let signedOut = false;
  const signOut = () => {
    if (signedOut) return;
    signedOut = true;
    void Promise.all(all.map((state) => state.pause())).then(() => options.onSignedOut?.());
  };
  let deactivated = false;
  const deactivate = () => {
    signOut();
    if (deactivated) return;
    deactivated = true;
    options.onDeactivated?.();
  };
  const describe = (value: unknown) =>
    JSON.stringify(value, (_key, inner) => (inner instanceof Error ? { ...inner, message: inner.message } : inner));
  let renewing = false;
  const renew = () => {
    const reauthenticate = options.reauthenticate;
    if (!reauthenticate) return signOut();
    if (renewing) return;
    renewing = true;
    void reauthenticate()
      .then(async (token) => {
        if (!token) return signOut();
        if (socket.connected) await socket.timeout(10_000).emitWithAck('sync:auth', { token });
        else socket.connect();
      })
      // The network failed while renewing: the next failure tries again.
      .catch(() => undefined)
      .finally(() => {
        renewing = false;
      });
  };
  for (const state of all) {
    state.error$.subscribe((error) => {
      const text = `${error.message} ${describe((error as { parameters?: unknown }).parameters)}`;
      if (/account_deactivated/.test(text)) deactivate();
      else if (/"status":401|unauthenticated|invalid_token|token_expired/.test(text)) renew();
    });
  }
  // A reconnect with an expired token is refused at the handshake.
  socket.on('connect_error', (error) => {
    const data = (error as { data?: { status?: number; code?: string } }).data;
    if (data?.code === 'account_deactivated') deactivate();
    else if (data?.status === 401) renew();
  });
  // The server says why it ends the stream of a session that ended, then drops the connection.
  socket.on('sync:ended', (problem?: { code?: string }) => {
    if (problem?.code === 'account_deactivated') deactivate();
  });
  // The server drops the connection of a session that ended (sign-out elsewhere, deactivation).
  socket.on('disconnect', (reason) => {
    if (reason === 'io server disconnect') signOut();
  });
  return {
    states,
    unrecordedPullsMarked: options.markUnrecordedPulls
      ? Promise.all([...marking.values()].map((done) => done.promise)).then((found) =>
          found.every((ids) => ids !== undefined) ? found.flat() : undefined,
        )
      : undefined,
    async awaitInitial() {
      await Promise.all(all.map((state) => state.awaitInitialReplication()));
    },
    async awaitInSync() {
      await Promise.all(all.map((state) => state.awaitInSync()));
    },
    async pause() {
      await Promise.all(all.map((state) => state.pause()));
    },
    async resume() {
      signedOut = false;
      deactivated = false;
      await Promise.all(all.map((state) => state.start()));
    },
    async cancel() {
      await Promise.all(all.map((state) => state.cancel()));
    },
    forgetLost(seen) {
      for (const state of all) state.forgetLost(seen);
    },
    abandon() {
      for (const state of all) {
        quietQueues(state);
        // Cancelled, a replication queues nothing more; what it queued until then is quieted too.
        void state
          .cancel()
          .catch(() => undefined)
          .finally(() => quietQueues(state));
      }
    },
  };
}
