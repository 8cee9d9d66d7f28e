import type { LostEdit, SyncCheckpoint, SyncDocument } from '@shared/sync';
import {
  deepEqual,
  type RxCollection,
  type RxReplicationPullStreamItem,
  type RxReplicationWriteToMasterRow,
} from 'rxdb';
import type { RxReplicationState } from 'rxdb/plugins/replication';
import { Subject } from 'rxjs';
import type { Socket } from 'socket.io-client';
import { createKeptStates, type KeptOnDeviceOptions, type KeptStates } from './kept-states';
import { ReceivedVersions } from './received-versions';
import { RetryBackoff } from './retry-backoff';
import { isPulledState, protocolOf, pulledMark, type ReplicationProtocol } from './rxdb-internals';
import type { CallTiming, SyncDirection, SyncTrouble } from './socket-call';

/** How `replicateOverSocket` replicates one collection. */
export interface SocketReplicationOptions<RxDocType> extends KeptOnDeviceOptions {
  collection: RxCollection<RxDocType>;
  /** The server's name of the collection (e.g. `tasks`, `directory_rows`). */
  remoteCollection: string;
  /** A connected (or connecting) socket of the `/sync` namespace. */
  socket: Socket;
  live?: boolean;
  /** Pull-only collections (read-only on replicas) pass false. */
  push?: boolean;
  /** Documents per pull batch, fetched in pages of at most the server's 1000. */
  batchSize?: number;
  /** Documents per push (the server allows up to 500). */
  pushBatchSize?: number;
  /** First wait before retrying a failed pull or push; it doubles per failure up to `maxRetryTimeMs`. */
  retryTimeMs?: number;
  maxRetryTimeMs?: number;
  ackTimeoutMs?: number;
  /** Offline edits the server did not keep (changed there meanwhile, or refused), for the UI to show. */
  onLostEdits?: (lost: LostEdit[]) => void;
  /** Documents whose push the server answered and that were not written on the replica again meanwhile. */
  onPushed?: (ids: string[]) => void;
  /**
   * Documents with a change of the user's that a push is about to send (or would, were it
   * connected), found by comparing each with its assumed master state, so known even after a restart.
   */
  onSending?: (ids: string[]) => void;
  /**
   * How the last pull (`receive`) or push (`send`) went: the server's problem, or no answer in time
   * (RxDB tries again later), or undefined once one went through. A call made while disconnected is neither.
   */
  onSyncProblem?: (direction: SyncDirection, problem: SyncTrouble | undefined) => void;
  /** Fields a bare tombstone `{id, _deleted}` from the server gets (the collection requires them). */
  tombstoneDefaults?: Record<string, unknown>;
  /** Runs once, with RxDB's protocol, before the first pull asks the server; a failure is logged and the pull goes on. */
  beforeFirstPull?: (protocol: ReplicationProtocol<RxDocType>) => Promise<unknown>;
}

/** What the replication of one collection holds while it runs; each piece of `replication/` reads and changes it. */
export interface CollectionSync<RxDocType> {
  readonly options: SocketReplicationOptions<RxDocType>;
  readonly collection: RxCollection<RxDocType>;
  readonly socket: Socket;
  readonly remoteCollection: string;
  readonly retryTimeMs: number;
  readonly timing: CallTiming;
  readonly backoff: RetryBackoff;
  /** The pull stream handed to RxDB: stream messages, RESYNC, deferred master states handed again. */
  readonly stream$: Subject<RxReplicationPullStreamItem<RxDocType, SyncCheckpoint>>;
  readonly kept: KeptStates;
  readonly versions: ReceivedVersions;
  /** RxDB's replication, once created. */
  replication?: RxReplicationState<RxDocType, SyncCheckpoint>;
  /** Pulls under way (a RESYNC's pages). */
  pullsUnderWay: number;
  /** Documents of pushes under way, with how many pushes carry each. */
  readonly pushing: Map<string, number>;
  /** Answers to pushes being taken into the replica (`takeAnswer`). */
  readonly answering: Set<Promise<unknown>>;
  /** Pushes storing what they send before it goes out (`kept.sent`). */
  readonly storingSent: Set<Promise<unknown>>;
  /** Documents written on this device since the server last answered a push of them. */
  readonly changedLocally: Set<string>;
  /** The newest state of each document handed to the downstream and not written yet. */
  readonly handedToDownstream: Map<string, SyncDocument>;
  /** Deferred master states handed to the downstream again: what lets each go in the records once written. */
  readonly releaseOnWrite: Map<string, () => void>;
  /** Writes of pulled states as assumed master states under way (`assumePulledStates`). */
  readonly assumingPulled: Set<Promise<void>>;
  /** Documents whose assumed master state was written again since RxDB read it for a push. */
  readonly assumedAgain: Set<string>;
  /** The hash the downstream marks its writes with, once asked for. */
  mark?: Promise<string>;
  /** The next look at the deferred master states (`handDeferredSoon`). */
  deferredTimer?: ReturnType<typeof setTimeout>;
  /** Before the first pull (`prepareFirstPull`), once. */
  preparing?: Promise<unknown>;
  /** Set as the replication is being cancelled. */
  stopping: boolean;
}

export function createCollectionSync<RxDocType>(
  options: SocketReplicationOptions<RxDocType>,
): CollectionSync<RxDocType> {
  const primaryPath = options.collection.schema.primaryPath as string;
  const retryTimeMs = options.retryTimeMs ?? 1_000;
  return {
    options,
    collection: options.collection,
    socket: options.socket,
    remoteCollection: options.remoteCollection,
    retryTimeMs,
    timing: { timeoutMs: options.ackTimeoutMs ?? 30_000, connectWaitMs: retryTimeMs },
    backoff: new RetryBackoff(retryTimeMs, options.maxRetryTimeMs ?? 60_000),
    stream$: new Subject(),
    kept: createKeptStates(options),
    versions: new ReceivedVersions((document) => String(document[primaryPath])),
    pullsUnderWay: 0,
    pushing: new Map(),
    answering: new Set(),
    storingSent: new Set(),
    changedLocally: new Set(),
    handedToDownstream: new Map(),
    releaseOnWrite: new Map(),
    assumingPulled: new Set(),
    assumedAgain: new Set(),
    stopping: false,
  };
}

/** The id of a document of the collection. */
export function idOf<RxDocType>(sync: CollectionSync<RxDocType>, document: Record<string, unknown>): string {
  return String(document[sync.collection.schema.primaryPath as string]);
}

/** The id of the document a push row writes. */
export function rowId<RxDocType>(
  sync: CollectionSync<RxDocType>,
  row: RxReplicationWriteToMasterRow<RxDocType>,
): string {
  return idOf(sync, row.newDocumentState as Record<string, unknown>);
}

/** RxDB's protocol under the replication, once it has started. */
export function protocolOfSync<RxDocType>(sync: CollectionSync<RxDocType>): ReplicationProtocol<RxDocType> | undefined {
  return protocolOf(sync.replication);
}

/** Whether the replication has stopped. */
export function isStopped<RxDocType>(sync: CollectionSync<RxDocType>): boolean {
  return sync.replication?.isStopped() ?? false;
}

/** The hash the downstream marks the master states it writes with (`isPulledState`). */
export function pulledMarkOf<RxDocType>(sync: CollectionSync<RxDocType>, protocol: ReplicationProtocol<RxDocType>) {
  sync.mark ??= pulledMark(protocol);
  return sync.mark;
}

/** Server documents with the fields a bare tombstone lacks (the collection requires them). */
export function withTombstoneDefaults<RxDocType>(
  sync: CollectionSync<RxDocType>,
  documents: SyncDocument[],
): SyncDocument[] {
  const defaults = sync.options.tombstoneDefaults;
  return defaults
    ? documents.map((document) => (document._deleted ? { ...defaults, ...document } : document))
    : documents;
}

/** A state as kept: what JSON holds of it, so one compares equal to itself after a restart. */
export function asJson(state: unknown): Record<string, unknown> | null {
  return state == null ? null : (JSON.parse(JSON.stringify(state)) as Record<string, unknown>);
}

/** Whether the replica's state `held` (without RxDB's fields) is the state the row pushes. */
export function sameState<RxDocType>(held: Record<string, unknown>, row: RxReplicationWriteToMasterRow<RxDocType>) {
  const { _attachments, ...pushed } = row.newDocumentState as Record<string, unknown>;
  return deepEqual(held, pushed);
}

/**
 * The replica's states of these documents as a push sends them (no `_meta`, `_rev`, `_attachments`),
 * and the ids of those that are master states the downstream wrote, unchanged since (`isPulledState`).
 */
export async function forkStates<RxDocType>(sync: CollectionSync<RxDocType>, ids: string[]) {
  const stored = await sync.collection.storageInstance.findDocumentsById(ids, true);
  const protocol = protocolOfSync(sync);
  if (protocol) pulledMarkOf(sync, protocol);
  const mark = await sync.mark;
  const held = new Map<string, Record<string, unknown>>();
  const pulled = new Set<string>();
  for (const doc of stored) {
    const { _meta, _rev, _attachments, ...document } = doc as Record<string, unknown>;
    held.set(idOf(sync, document), document);
    if (mark && isPulledState(doc as never, mark)) pulled.add(idOf(sync, document));
  }
  return { held, pulled };
}
