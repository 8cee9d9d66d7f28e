import type { PullResponse, StreamMessage, SyncCheckpoint, SyncDocument } from '@shared/sync';
import type { RxReplicationPullStreamItem } from 'rxdb';
import { type CollectionSync, idOf, withTombstoneDefaults } from './collection-sync';
import { deferIfChangedLocally, noteHandedToDownstream } from './deferred-master-states';
import { prepareFirstPull } from './first-pull';
import { callServer, troubleOf } from './socket-call';

/** The most documents the server returns for one `sync:pull`. */
const SERVER_PAGE_SIZE = 1000;

interface PulledBatch {
  documents: never;
  checkpoint: SyncCheckpoint | undefined;
}

/** Resolves once every answer to a push being taken into the replica is taken. */
export async function answersTaken<RxDocType>(sync: CollectionSync<RxDocType>): Promise<void> {
  while (sync.answering.size > 0) await Promise.allSettled([...sync.answering]);
}

/** RxDB's pull handler: a batch of documents after `checkpoint` over `sync:pull`. */
export async function pull<RxDocType>(
  sync: CollectionSync<RxDocType>,
  checkpoint: SyncCheckpoint | undefined,
  batchSize: number,
): Promise<PulledBatch> {
  sync.pullsUnderWay += 1;
  let batch: PulledBatch;
  try {
    await prepareFirstPull(sync);
    batch = await pullBatch(sync, checkpoint ?? null, batchSize);
    sync.versions.noteReceived(batch.documents);
    sync.options.onSyncProblem?.('receive', undefined);
  } catch (error) {
    const trouble = troubleOf(error);
    if (trouble) sync.options.onSyncProblem?.('receive', trouble);
    throw error;
  } finally {
    // Answered: a stream message arriving from now on was read after the pull, and is newer.
    sync.pullsUnderWay -= 1;
  }
  // Read by the server after a push being answered: its states are newer than the answer's, which
  // the downstream would leave out while the document differs from its assumed master state.
  await answersTaken(sync);
  // A newer state replaces a deferred one, or, of a document not changed here since the app opened, lets it go.
  if (sync.changedLocally.size > 0 || sync.kept.deferred.size > 0) deferIfChangedLocally(sync, batch.documents);
  noteHandedToDownstream(sync, batch.documents);
  return batch;
}

/**
 * A batch larger than the server's page is fetched page after page (RxDB then writes it in one
 * transaction); a short page means the server has nothing more, a failed page fails the batch.
 */
async function pullBatch<RxDocType>(
  sync: CollectionSync<RxDocType>,
  checkpoint: SyncCheckpoint | null,
  batchSize: number,
): Promise<PulledBatch> {
  const documents: SyncDocument[] = [];
  let next = checkpoint ?? null;
  while (documents.length < batchSize) {
    const pageSize = Math.min(SERVER_PAGE_SIZE, batchSize - documents.length);
    const from = next;
    const page = await sync.backoff.run(() =>
      callServer<PullResponse>(
        sync.socket,
        'sync:pull',
        { collection: sync.remoteCollection, checkpoint: from, batchSize: pageSize },
        sync.timing,
      ),
    );
    for (const document of page.documents) documents.push(document);
    next = page.checkpoint ?? next;
    if (page.documents.length < pageSize) break;
  }
  return { documents: withTombstoneDefaults(sync, documents) as never, checkpoint: next ?? undefined };
}

/**
 * Listens to the server: stream messages go to RxDB's pull stream, `sync:resync` and every
 * reconnection emit RESYNC (the messages sent meanwhile are lost). Returns what stops listening.
 */
export function listenToServer<RxDocType>(sync: CollectionSync<RxDocType>): () => void {
  const { socket } = sync;
  const onStream = (message: StreamMessage) => {
    if (message.collection !== sync.remoteCollection) return;
    sync.versions.noteReceived(message.documents);
    // Read before the pull under way, whose answer holds these documents in states at least as new.
    if (sync.pullsUnderWay > 0) return;
    // Read before the push under way was applied: older than its outcome, which RxDB holds once answered.
    const documents =
      sync.pushing.size > 0
        ? message.documents.filter((document) => !sync.pushing.has(idOf(sync, document)))
        : message.documents;
    if (documents.length === 0) return;
    deferIfChangedLocally(sync, documents);
    noteHandedToDownstream(sync, documents);
    sync.stream$.next({
      documents: withTombstoneDefaults(sync, documents) as never,
      checkpoint: message.checkpoint ?? undefined,
    } as RxReplicationPullStreamItem<RxDocType, SyncCheckpoint>);
  };
  const onResync = () => sync.stream$.next('RESYNC');
  // RxDB pulls once when it starts, waiting for the connection if need be: the first connection needs no RESYNC.
  let connectedBefore = socket.connected;
  const onConnect = () => {
    sync.backoff.wake();
    if (connectedBefore) onResync();
    connectedBefore = true;
  };
  socket.on('sync:stream', onStream);
  socket.on('sync:resync', onResync);
  socket.on('connect', onConnect);
  return () => {
    socket.off('sync:stream', onStream);
    socket.off('sync:resync', onResync);
    socket.off('connect', onConnect);
  };
}
