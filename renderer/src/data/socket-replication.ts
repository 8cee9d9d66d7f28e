import type { LostEdit, SyncCheckpoint } from '@shared/sync';
import { type RxReplicationState, replicateRxCollection } from 'rxdb/plugins/replication';
import {
  type CollectionSync,
  createCollectionSync,
  type SocketReplicationOptions,
} from './replication/collection-sync';
import { watchForkWrites } from './replication/deferred-master-states';
import { detachKeptStates, forgetLostEdits, keptStored, readKeptStates } from './replication/kept-states';
import { answersTaken, listenToServer, pull } from './replication/pull';
import { push } from './replication/push';
import { beforeCancel, guardCheckpointCalls, protocolOf } from './replication/rxdb-internals';
import { guardAgainstStaleWrites } from './replication/stale-write-guard';

export type { KeptOnDevice } from './kept-records';
export type { SocketReplicationOptions } from './replication/collection-sync';
export type { DeferredMasterStates, SentStates, TakenAnswers } from './replication/kept-states';
export { RetryBackoff } from './replication/retry-backoff';
export { type SyncDirection, SyncProblemError, type SyncTrouble } from './replication/socket-call';

/** A collection's replication over `/sync`, which keeps the edits the server reported lost until they are seen. */
export type SocketReplicationState<RxDocType> = RxReplicationState<RxDocType, SyncCheckpoint> & {
  forgetLost(seen: (edit: LostEdit) => boolean): void;
};

/** The name of the replication of a collection, the same at every start (RxDB keys its records by it). */
export function syncReplicationIdentifier(remoteCollection: string): string {
  return `orbita-sync-${remoteCollection}`;
}

/** How long stopping a replication waits for the push answers being taken into the replica. */
const ANSWER_TAKING_WAIT_MS = 5_000;

/**
 * Replicates an RxDB collection with the server over Socket.IO (`sync:pull`, `sync:push`,
 * `sync:stream`, `sync:resync`). A reconnect emits RESYNC so the replica pulls what it missed;
 * while disconnected, calls fail and RxDB retries, and local writes wait in the replica.
 */
export function replicateOverSocket<RxDocType>(
  options: SocketReplicationOptions<RxDocType>,
): SocketReplicationState<RxDocType> {
  const sync = createCollectionSync(options);
  const stopListening = listenToServer(sync);
  const liftStaleWriteGuard = guardAgainstStaleWrites(sync);
  const forkWrites = watchForkWrites(sync);
  const state = replicateRxCollection<RxDocType, SyncCheckpoint>({
    collection: options.collection,
    replicationIdentifier: syncReplicationIdentifier(options.remoteCollection),
    live: options.live ?? true,
    // RxDB waits this fixed time after a failure; the backoff adds the growing part.
    retryTime: sync.retryTimeMs,
    waitForLeadership: false,
    autoStart: true,
    deletedField: '_deleted',
    pull: {
      batchSize: options.batchSize ?? 100,
      stream$: sync.stream$.asObservable(),
      handler: (checkpoint, batchSize) => pull(sync, checkpoint, batchSize),
    },
    push:
      options.push === false
        ? undefined
        : { batchSize: options.pushBatchSize ?? 100, handler: (rows) => push(sync, rows) },
  });
  sync.replication = state;
  beforeCancel(state, () => stopping(sync));
  void state.startPromise.then(
    () => {
      const protocol = protocolOf(state);
      if (!protocol) return;
      void readKeptStates(sync.kept, protocol, options.collection.database.token, options.onLostEdits);
      // A failure as the replica's storage goes with the stopping replication is nothing found or written.
      guardCheckpointCalls(protocol, {
        // A checkpoint passes the states it came with, deferred ones included: stored after them.
        beforeCheckpointWrite: () => keptStored(sync.kept),
        quiet: () => sync.stopping,
      });
    },
    () => undefined,
  );
  void state.canceled$.subscribe((canceled) => {
    if (!canceled) return;
    stopListening();
    forkWrites.unsubscribe();
    liftStaleWriteGuard();
    if (sync.deferredTimer) clearTimeout(sync.deferredTimer);
    sync.stream$.complete();
  });
  const forgetLost = (seen: (edit: LostEdit) => boolean) => forgetLostEdits(sync.kept, seen);
  return Object.assign(state, { forgetLost });
}

/**
 * Waits, bounded (a storage that stopped answering must not keep the app from quitting), for the
 * answers being taken into the replica and the kept maps: an answer is taken in two writes, and an
 * app quitting between them pushed the document as it was against the merge, undoing it.
 */
async function stopping<RxDocType>(sync: CollectionSync<RxDocType>): Promise<void> {
  sync.stopping = true;
  let waited: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    // A push refused as it went out (the socket closing) notes that nothing of it is in doubt.
    answersTaken(sync)
      .then(() => Promise.allSettled([...sync.storingSent]))
      .then(() => new Promise((resolve) => setTimeout(resolve, 0)))
      .then(() => keptStored(sync.kept)),
    new Promise((resolve) => {
      waited = setTimeout(resolve, ANSWER_TAKING_WAIT_MS);
    }),
  ]);
  clearTimeout(waited);
  // RxDB closes the records: what changes from now on stays in memory.
  detachKeptStates(sync.kept);
}
