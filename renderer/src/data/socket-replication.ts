import type {
  LostEdit,
  PullResponse,
  PushResponse,
  StreamMessage,
  SyncAck,
  SyncCheckpoint,
  SyncDocument,
} from '@shared/sync';
import type { RxCollection, RxReplicationPullStreamItem } from 'rxdb';
import { type RxReplicationState, replicateRxCollection } from 'rxdb/plugins/replication';
import { Subject } from 'rxjs';
import type { Socket } from 'socket.io-client';

/** A failed acknowledgement, carrying the server's problem. */
export class SyncProblemError extends Error {
  constructor(readonly problem: { status: number; code: string; title: string; detail: string }) {
    super(`${problem.code}: ${problem.detail}`);
    this.name = 'SyncProblemError';
  }
}

async function call<T>(socket: Socket, event: string, payload: unknown, timeoutMs: number): Promise<T> {
  const answer = (await socket.timeout(timeoutMs).emitWithAck(event, payload)) as SyncAck<T>;
  if (!answer.ok) throw new SyncProblemError(answer.problem);
  return answer.data;
}

export interface SocketReplicationOptions<RxDocType> {
  collection: RxCollection<RxDocType>;
  /** The server's name of the collection (e.g. `tasks`, `directory_rows`). */
  remoteCollection: string;
  /** A connected (or connecting) socket of the `/sync` namespace. */
  socket: Socket;
  live?: boolean;
  /** Pull-only collections (read-only on replicas) pass false. */
  push?: boolean;
  /** Documents per pull (the server allows up to 1000). */
  batchSize?: number;
  /** Documents per push (the server allows up to 500). */
  pushBatchSize?: number;
  /** Wait before retrying a failed pull or push; RxDB doubles nothing, so keep it modest. */
  retryTimeMs?: number;
  ackTimeoutMs?: number;
  /** Offline edits the server did not keep (changed there meanwhile, or refused), for the UI to show. */
  onLostEdits?: (lost: LostEdit[]) => void;
}

/**
 * Replicates an RxDB collection with the server over Socket.IO (`sync:pull`, `sync:push`,
 * `sync:stream`, `sync:resync`). A reconnect emits RESYNC so the replica pulls what it missed;
 * while disconnected, calls fail and RxDB retries, and local writes wait in the replica.
 */
export function replicateOverSocket<RxDocType>(
  options: SocketReplicationOptions<RxDocType>,
): RxReplicationState<RxDocType, SyncCheckpoint> {
  const { socket, remoteCollection } = options;
  const ackTimeoutMs = options.ackTimeoutMs ?? 30_000;
  const stream$ = new Subject<RxReplicationPullStreamItem<RxDocType, SyncCheckpoint>>();
  const onStream = (message: StreamMessage) => {
    if (message.collection !== remoteCollection) return;
    stream$.next({
      documents: message.documents as never,
      checkpoint: message.checkpoint ?? undefined,
    } as RxReplicationPullStreamItem<RxDocType, SyncCheckpoint>);
  };
  const onResync = () => stream$.next('RESYNC');
  socket.on('sync:stream', onStream);
  socket.on('sync:resync', onResync);
  socket.on('connect', onResync);

  const state = replicateRxCollection<RxDocType, SyncCheckpoint>({
    collection: options.collection,
    replicationIdentifier: `orbita-sync-${remoteCollection}`,
    live: options.live ?? true,
    retryTime: options.retryTimeMs ?? 5_000,
    waitForLeadership: false,
    autoStart: true,
    deletedField: '_deleted',
    pull: {
      batchSize: options.batchSize ?? 100,
      stream$: stream$.asObservable(),
      async handler(checkpoint, batchSize) {
        const result = await call<PullResponse>(
          socket,
          'sync:pull',
          { collection: remoteCollection, checkpoint: checkpoint ?? null, batchSize },
          ackTimeoutMs,
        );
        return { documents: result.documents as never, checkpoint: result.checkpoint ?? undefined };
      },
    },
    push:
      options.push === false
        ? undefined
        : {
            batchSize: options.pushBatchSize ?? 100,
            async handler(rows) {
              const result = await call<PushResponse>(
                socket,
                'sync:push',
                {
                  collection: remoteCollection,
                  rows: rows.map((row) => ({
                    assumedMasterState: (row.assumedMasterState ?? null) as SyncDocument | null,
                    newDocumentState: row.newDocumentState as unknown as SyncDocument,
                  })),
                },
                ackTimeoutMs,
              );
              if (result.lost.length > 0) options.onLostEdits?.(result.lost);
              return result.conflicts as never;
            },
          },
  });
  void state.canceled$.subscribe((canceled) => {
    if (!canceled) return;
    socket.off('sync:stream', onStream);
    socket.off('sync:resync', onResync);
    socket.off('connect', onResync);
    stream$.complete();
  });
  return state;
}
