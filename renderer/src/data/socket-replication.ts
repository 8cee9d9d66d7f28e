import type {
  LostEdit,
  PullResponse,
  PushResponse,
  StreamMessage,
  SyncAck,
  SyncCheckpoint,
  SyncDocument,
} from '@shared/sync';
import {
  createRevision,
  deepEqual,
  getAssumedMasterState,
  getChangedDocumentsSince,
  getMetaWriteRow,
  now,
  type RxCollection,
  type RxDocumentData,
  type RxReplicationPullStreamItem,
  type RxReplicationWriteToMasterRow,
  type RxStorageInstanceReplicationState,
} from 'rxdb';
import { type RxReplicationState, replicateRxCollection } from 'rxdb/plugins/replication';
import { Subject } from 'rxjs';
import type { Socket } from 'socket.io-client';
import { KeptMap, type KeptOnDevice, KeptRecord } from './kept-records';
import { isPulledState, pulledMark } from './pulled-marks';
import { rebaseOnServerState } from './rebase';

export type { KeptOnDevice } from './kept-records';

/** A collection's replication over `/sync`, which keeps the edits the server reported lost until they are seen. */
export type SocketReplicationState<RxDocType> = RxReplicationState<RxDocType, SyncCheckpoint> & {
  forgetLost(seen: (edit: LostEdit) => boolean): void;
};

/** The name of the replication of a collection, the same at every start (RxDB keys its records by it). */
export function syncReplicationIdentifier(remoteCollection: string): string {
  return `orbita-sync-${remoteCollection}`;
}

/** Changes made here going to the server (`send`), or the server's coming here (`receive`). */
export type SyncDirection = 'send' | 'receive';

/** Why a pull or push did not go: the server's problem (with the id it was logged under), or no answer. */
export interface SyncTrouble {
  code: string;
  detail: string;
  status?: number;
  requestId?: string;
}

/** A failed acknowledgement, carrying the server's problem. */
export class SyncProblemError extends Error {
  constructor(readonly problem: { status: number; code: string; title: string; detail: string; requestId?: string }) {
    super(`${problem.code}: ${problem.detail}`);
    this.name = 'SyncProblemError';
  }
}

/** The trouble a failed call reports; none for a call made while disconnected (that is offline). */
function troubleOf(error: unknown): SyncTrouble | undefined {
  if (error instanceof SyncProblemError) {
    const { status, code, detail, requestId } = error.problem;
    return status === 0 ? undefined : { code, detail, status, ...(requestId ? { requestId } : {}) };
  }
  return { code: 'replica_error', detail: error instanceof Error ? error.message : String(error) };
}

/** Resolves once the socket is connected, or after `ms` while it is still trying (at once when it is not). */
function whenConnected(socket: Socket, ms: number): Promise<void> {
  if (socket.connected || !socket.active) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      socket.off('connect', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    socket.on('connect', done);
  });
}

const offlineProblem = () =>
  new SyncProblemError({ status: 0, code: 'offline', title: 'Offline', detail: 'Not connected' });

async function call<T>(
  socket: Socket,
  event: string,
  payload: unknown,
  options: { timeoutMs: number; connectWaitMs: number },
): Promise<T> {
  // A connection under way is waited for a moment: failing would cost RxDB's whole retry wait,
  // and replication usually starts while its socket is still connecting.
  await whenConnected(socket, options.connectWaitMs);
  // Still disconnected: fail, since socket.io would buffer the event and send it again on reconnect.
  if (!socket.connected) {
    throw offlineProblem();
  }
  // socket.io rejects only when no acknowledgement came in time: that is said as a problem of its own.
  const answer = (await socket
    .timeout(options.timeoutMs)
    .emitWithAck(event, payload)
    .catch(() => {
      throw new SyncProblemError({
        status: 504,
        code: 'no_answer',
        title: 'No answer',
        detail: 'The server did not answer in time.',
      });
    })) as SyncAck<T>;
  if (!answer.ok) throw new SyncProblemError(answer.problem);
  return answer.data;
}

/**
 * Exponential backoff between retries of a failing pull or push: `baseMs`, doubled per consecutive
 * failure up to `maxMs`, with jitter so that many clients do not retry in step. `wake()` ends the
 * current wait (the connection is back).
 */
export class RetryBackoff {
  private failures = 0;
  private waking = new Set<() => void>();
  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** How long the next attempt waits (0 after a success). */
  delayMs(): number {
    if (this.failures === 0) return 0;
    const exponential = Math.min(this.baseMs * 2 ** (this.failures - 1), this.maxMs);
    return Math.round(exponential * (0.5 + this.random() / 2));
  }

  wait(): Promise<void> {
    const ms = this.delayMs();
    if (ms === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waking.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waking.add(done);
    });
  }

  succeeded(): void {
    this.failures = 0;
  }

  failed(): void {
    this.failures += 1;
  }

  wake(): void {
    this.failures = 0;
    for (const done of [...this.waking]) done();
  }

  /** Runs `attempt` after the current wait, counting its outcome. */
  async run<T>(attempt: () => Promise<T>): Promise<T> {
    await this.wait();
    try {
      const result = await attempt();
      this.succeeded();
      return result;
    } catch (error) {
      this.failed();
      throw error;
    }
  }
}

/** The most documents the server returns for one `sync:pull`. */
const SERVER_PAGE_SIZE = 1000;
/** How long stopping a replication waits for the push answers being taken into the replica. */
const ANSWER_TAKING_WAIT_MS = 5_000;

export interface SocketReplicationOptions<RxDocType> {
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
  /**
   * Documents whose push the server answered (kept, merged or refused: it holds the outcome) and
   * that were not written on the replica again meanwhile (that write waits for the next push).
   */
  onPushed?: (ids: string[]) => void;
  /**
   * Documents with a change of the user's that a push is about to send (or would, were it
   * connected): RxDB's upstream finds them by comparing each document with its recorded server
   * state, so they are known even when what counted them was lost (an app killed before its window
   * saved the count).
   */
  onSending?: (ids: string[]) => void;
  /**
   * How the last pull (`receive`) or push (`send`) went: the problem the server answered, or that it
   * did not answer in time — RxDB tries again later, and the UI says why meanwhile — or undefined
   * once one went through. A call made while disconnected is neither.
   */
  onSyncProblem?: (direction: SyncDirection, problem: SyncTrouble | undefined) => void;
  /** Fields a bare tombstone `{id, _deleted}` from the server gets (the collection requires them). */
  tombstoneDefaults?: Record<string, unknown>;
  /**
   * Runs once, with RxDB's replication state, before the first pull asks the server; a failure is
   * logged and the pull goes on.
   */
  beforeFirstPull?: (internal: RxStorageInstanceReplicationState<RxDocType>) => Promise<unknown>;
  /**
   * What pushes not answered yet sent (`SentStates`), the server states set aside for documents
   * with a change of the user's (`SetAsideStates`) and the answers being taken into the replica
   * (`TakenAnswers`) are kept with the replication's records (`KeptRecord`) across restarts of the
   * app. These are what an earlier release kept on the device instead: taken when the replication
   * starts, and cleared once the records hold them.
   */
  keepSentStates?: KeptOnDevice<SentStates>;
  keepSetAside?: KeptOnDevice<SetAsideStates>;
  keepAnswers?: KeptOnDevice<TakenAnswers>;
}

/**
 * Per document, what the attempts of a push not answered yet sent: the server state the first
 * attempt was sent against (`base`), and every state sent after it, in order.
 */
export type SentStates = Record<string, { base: Record<string, unknown> | null; states: Record<string, unknown>[] }>;

/**
 * Per document, a server state RxDB did not write over a change of the user's, to be written once
 * that change is settled: a pulled or streamed state, or the tombstone of a record a push's answer
 * says is gone.
 */
export type SetAsideStates = Record<string, SyncDocument>;

/**
 * Per document, a push's answer being taken into the replica: the last state the push sent of it
 * (`pushed`) and the server's state it was answered with (`server`, the push merged with what
 * changed there), kept from before its record is written until the document is rebased onto it.
 */
export type TakenAnswers = Record<string, { pushed: Record<string, unknown>; server: SyncDocument }>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isSentStates = (value: unknown): value is SentStates[string] =>
  isRecord(value) &&
  (value.base === null || isRecord(value.base)) &&
  Array.isArray(value.states) &&
  value.states.every(isRecord);
const isTakenAnswer = (value: unknown): value is TakenAnswers[string] =>
  isRecord(value) && isRecord(value.pushed) && isRecord(value.server);
const isLostEdit = (value: unknown): value is LostEdit =>
  isRecord(value) && typeof value.id === 'string' && typeof value.path === 'string' && typeof value.reason === 'string';
/** Lost edits a replication keeps until the user has seen them (the oldest go first). */
const MAX_KEPT_LOST = 1_000;

/**
 * Per collection storage: when a stopped replication's writes of pulled states are over. One
 * started on the same collection before then writes with the same context, and pulls after them.
 */
const stoppingOn = new WeakMap<object, Promise<unknown>>();

/**
 * Replicates an RxDB collection with the server over Socket.IO (`sync:pull`, `sync:push`,
 * `sync:stream`, `sync:resync`). A reconnect emits RESYNC so the replica pulls what it missed;
 * while disconnected, calls fail and RxDB retries, and local writes wait in the replica.
 */
export function replicateOverSocket<RxDocType>(
  options: SocketReplicationOptions<RxDocType>,
): SocketReplicationState<RxDocType> {
  const { socket, remoteCollection } = options;
  // Pulled, streamed and conflicting documents alike: RxDB writes all of them to the collection.
  const defaults = options.tombstoneDefaults;
  const complete = (documents: SyncDocument[]) =>
    defaults ? documents.map((document) => (document._deleted ? { ...defaults, ...document } : document)) : documents;
  const ackTimeoutMs = options.ackTimeoutMs ?? 30_000;
  const stream$ = new Subject<RxReplicationPullStreamItem<RxDocType, SyncCheckpoint>>();
  /** Pulls of this collection under way (a RESYNC's pages). */
  let pulling = 0;
  /** Documents of pushes under way, with how many pushes carry each. */
  const pushing = new Map<string, number>();
  /**
   * Answers to pushes being taken into the replica. A pull answered meanwhile was read by the
   * server after the push: its states are newer than the answer's. RxDB leaves a pulled state
   * out while the document still differs from its record (as pushed, its answer not yet taken),
   * and nothing brought it again: such a pull is handed on once the answers are taken.
   */
  const answering = new Set<Promise<unknown>>();
  const answersTaken = async () => {
    while (answering.size > 0) await Promise.allSettled([...answering]);
  };
  const primaryPath = options.collection.schema.primaryPath as string;
  const idOf = (document: Record<string, unknown>): string => String(document[primaryPath]);
  /** Documents written on this device since the server last answered a push of them. */
  const changedHere = new Set<string>();
  /**
   * The newest pulled state of each document that had a change of its own when it came: RxDB does
   * not write a pulled state over such a change (the change's push is to settle it) and forgets it.
   * When the change is taken back before it is sent, RxDB has nothing to send, and the replica
   * kept the older state until the server's copy changed again (`takeSetAside`). Kept on the
   * device (`keepSetAside`): an app quitting before they are taken takes them when opened next,
   * the checkpoint having passed them.
   */
  const setAside = new KeptMap('setAside', options.keepSetAside, isRecord as (value: unknown) => value is SyncDocument);
  /** Answers being taken into the replica (`TakenAnswers`), kept with the records. */
  const answers = new KeptMap('answers', options.keepAnswers, isTakenAnswer);
  /**
   * Set-aside states handed to RxDB: let go of at once, and kept with the records until RxDB has
   * written them — which its checkpoint does not wait for, as they came without one. Let go of in
   * the records as they were handed, a process dying before the disk had RxDB's write lost the state.
   */
  const settling = new Map<string, () => void>();
  const setAsideIfChangedHere = (documents: readonly SyncDocument[]) => {
    for (const document of documents) {
      const id = idOf(document);
      if (changedHere.has(id)) setAside.set(id, document);
      else setAside.delete(id);
    }
  };
  /**
   * Server states are versioned by `updatedAt`, later for every write of a record. RxDB writes the
   * states it is handed in a queue of its own, so one received before a push may be written after
   * the push's answer was taken: an older state over the newer one, the user's edit gone from the
   * replica, and the next push — the answer's own write looked at against that older state — sent
   * the older state back to the server. Per document: the newest version received, and the version
   * below which a state is older than a push's outcome the replica holds (`staleBelow`).
   */
  const newestReceived = new Map<string, string>();
  /**
   * The newest state of each document handed to RxDB's downstream and not written yet. RxDB reads
   * the document, then writes the state over it: a write of the user's landing in between refuses
   * RxDB's (a conflict it leaves for the push to settle), or makes RxDB skip the state. When that
   * write changed nothing, or its change is taken back before it is sent, there is no push, and
   * the replica kept the older state until the server's copy changed again. Such a state is set
   * aside at the user's write (`takeSetAside` hands it again once the document is quiet).
   */
  const handed = new Map<string, SyncDocument>();
  const noteHanded = (documents: readonly SyncDocument[]) => {
    for (const document of documents) {
      const id = idOf(document);
      const before = handed.get(id);
      const version = versionOf(document);
      const previous = before && versionOf(before);
      if (!version || !previous || version >= previous) handed.set(id, document);
    }
  };
  const staleBelow = new Map<string, { version: string; inclusive: boolean }>();
  const versionOf = (document: SyncDocument): string | undefined =>
    typeof document.updatedAt === 'string' && document.updatedAt !== '' ? document.updatedAt : undefined;
  const noteReceived = (documents: readonly SyncDocument[]) => {
    for (const document of documents) {
      const version = versionOf(document);
      const id = idOf(document);
      if (!version) continue;
      if (version > (newestReceived.get(id) ?? '')) newestReceived.set(id, version);
      // Received after a push's answer: read by the server after it applied the push, so as new as
      // its outcome. A push that changed nothing (a state the server held already) left the version
      // as it was, and the state sent again at that version — a record shared with the user again
      // after it was hidden from them, which keeps its `updatedAt` — is the server's, not older.
      const bound = staleBelow.get(id);
      if (bound?.inclusive && version === bound.version) staleBelow.set(id, { version, inclusive: false });
    }
  };
  /** After a push's answer: the states received before it are older than its outcome. */
  const supersede = (ids: readonly string[], conflicts: readonly SyncDocument[]) => {
    const answered = new Map(conflicts.map((document) => [idOf(document), versionOf(document)]));
    for (const id of ids) {
      // With a conflict, the server's state as of the answer; as sent, newer than any received.
      const merged = answered.get(id);
      const bound = answered.has(id)
        ? merged && { version: merged, inclusive: false }
        : newestReceived.has(id) && { version: newestReceived.get(id) as string, inclusive: true };
      if (bound && bound.version >= (staleBelow.get(id)?.version ?? '')) staleBelow.set(id, bound);
    }
  };
  const isStale = (document: Record<string, unknown>): boolean => {
    const bound = staleBelow.get(idOf(document));
    const version = versionOf(document as SyncDocument);
    if (!bound || !version) return false;
    return bound.inclusive ? version <= bound.version : version < bound.version;
  };
  const onStream = (message: StreamMessage) => {
    if (message.collection !== remoteCollection) return;
    noteReceived(message.documents);
    // The server answers a socket's messages in the order it read them: a stream message arriving
    // while a pull is under way was read before that pull, whose answer holds the same documents
    // (it reads on from a checkpoint before them, page after page) in states at least as new. RxDB
    // would write the message after that answer and take them back to the older states: dropped.
    if (pulling > 0) return;
    // Likewise, one arriving while a push is under way was read before the push was applied: its
    // states of the pushed documents are older than the push's outcome (which RxDB holds once the
    // push is answered), and the server sends no newer one when the push went through unchanged.
    const documents =
      pushing.size > 0 ? message.documents.filter((document) => !pushing.has(idOf(document))) : message.documents;
    if (documents.length === 0) return;
    setAsideIfChangedHere(documents);
    noteHanded(documents);
    stream$.next({
      documents: complete(documents) as never,
      checkpoint: message.checkpoint ?? undefined,
    } as RxReplicationPullStreamItem<RxDocType, SyncCheckpoint>);
  };
  const retryTimeMs = options.retryTimeMs ?? 1_000;
  const timing = { timeoutMs: ackTimeoutMs, connectWaitMs: retryTimeMs };
  const backoff = new RetryBackoff(retryTimeMs, options.maxRetryTimeMs ?? 60_000);
  const onResync = () => stream$.next('RESYNC');
  // RxDB pulls once when it starts, waiting for the connection if need be: the first connection
  // needs no second round. After a reconnection the stream messages sent meanwhile are lost: pulled.
  let connectedBefore = socket.connected;
  const onConnect = () => {
    backoff.wake();
    if (connectedBefore) onResync();
    connectedBefore = true;
  };
  socket.on('sync:stream', onStream);
  socket.on('sync:resync', onResync);
  socket.on('connect', onConnect);

  /**
   * RxDB reads a row's server state once, when the write is first seen, and retries the row as it
   * is. A document written by the replication whose server state was not stored yet (a page closed
   * between the two writes) then goes without one, and the server could only report every
   * difference as lost; by the time the row is sent that state is often there: it is read again.
   */
  const key = (row: RxReplicationWriteToMasterRow<RxDocType>) => idOf(row.newDocumentState as Record<string, unknown>);
  const withCurrentBase = async (
    rows: RxReplicationWriteToMasterRow<RxDocType>[],
  ): Promise<RxReplicationWriteToMasterRow<RxDocType>[]> => {
    // A record written since RxDB read it (`recordPulledStates`) is read again too.
    while (recordingPulled.size > 0) await Promise.allSettled([...recordingPulled]);
    const missing = rows.filter((row) => !row.assumedMasterState || rerecorded.has(key(row)));
    const internal: RxStorageInstanceReplicationState<RxDocType> | undefined = state.internalReplicationState;
    if (missing.length === 0 || !internal) return rows;
    const ids = missing.map(key);
    // Reading it again is a help, never a reason for the push to fail.
    const known: Awaited<ReturnType<typeof getAssumedMasterState<RxDocType>>> = await getAssumedMasterState(
      internal,
      ids,
    ).catch(() => ({}));
    return rows.map((row) => {
      if (!missing.includes(row)) return row;
      const current: { docData: RxDocType } | undefined = known[key(row)];
      return current ? { ...row, assumedMasterState: current.docData as typeof row.newDocumentState } : row;
    });
  };
  /** The replica's states of these documents, as a push sends them (no `_meta`, `_rev`, `_attachments`). */
  const heldStates = async (ids: string[]): Promise<Map<string, Record<string, unknown>>> =>
    (await heldAndPulled(ids)).held;
  /** `heldStates`, and the ids of those that are states RxDB pulled, unchanged since (`isPulledState`). */
  const heldAndPulled = async (ids: string[]) => {
    const stored = await options.collection.storageInstance.findDocumentsById(ids, true);
    const internal: RxStorageInstanceReplicationState<RxDocType> | undefined = state.internalReplicationState;
    if (internal) mark ??= pulledMark(internal);
    const replicationMark = await mark;
    const held = new Map<string, Record<string, unknown>>();
    const pulled = new Set<string>();
    for (const doc of stored) {
      const { _meta, _rev, _attachments, ...document } = doc as Record<string, unknown>;
      held.set(idOf(document), document);
      if (replicationMark && isPulledState(doc as never, replicationMark)) pulled.add(idOf(document));
    }
    return { held, pulled };
  };
  const sameState = (held: Record<string, unknown>, row: RxReplicationWriteToMasterRow<RxDocType>) => {
    const { _attachments, ...pushed } = row.newDocumentState as Record<string, unknown>;
    return deepEqual(held, pushed);
  };
  /**
   * What the attempts of pushes not answered yet sent (`SentStates`): any of those attempts may have
   * been applied. Stored with the records before each attempt goes out, so that an app quitting, or
   * killed, with a push in doubt sends it again as it was when opened next.
   */
  const sentStates = new KeptMap('sent', options.keepSentStates, isSentStates);
  /** A state as kept: what JSON holds of it, so one compares equal to itself after a restart. */
  const asKept = (state: unknown) =>
    state == null ? null : (JSON.parse(JSON.stringify(state)) as Record<string, unknown>);
  /**
   * The rows a push sends. RxDB's row holds the state its change event carried, which may be older
   * than what the document holds now: written again since (offline, say), or written before the
   * answer to the previous push and taken up by RxDB only after that answer was taken — a state
   * without what the answer merged in, which sent against the server's state would undo it (a person
   * a colleague assigned taken off again). So each document's state held now is sent, against the
   * server's state RxDB read for the row. An attempt may have been applied although its answer was
   * lost: a retry sends every state earlier attempts sent again, in order, then the state held now,
   * each against the one before. The server applies them in turn, so an edit taken back or a person
   * taken off meanwhile is a change against the state before it and never lost, whichever attempt
   * the server holds; against the first state alone, the state held now undid nothing a later
   * attempt had done (a person assigned in one attempt and taken off before the next stayed).
   */
  const withCurrentStates = (
    rows: RxReplicationWriteToMasterRow<RxDocType>[],
    held: Map<string, Record<string, unknown>>,
  ): RxReplicationWriteToMasterRow<RxDocType>[] => {
    const sending = rows.flatMap((row) => {
      const id = key(row);
      const { _attachments, ...rowState } = row.newDocumentState as Record<string, unknown>;
      const base = asKept(row.assumedMasterState);
      // Sent against another server state, the earlier attempts are settled: that state was taken since.
      const earlier = sentStates.get(id);
      // Recorded as the last state sent, the document is sent again after what was sent before it
      // (`resendTakenBack`), starting from the state the first attempt was sent against.
      const resending =
        earlier !== undefined && !deepEqual(earlier.base, base) && deepEqual(earlier.states.at(-1), base);
      const first = resending ? earlier.base : base;
      const states = earlier && deepEqual(earlier.base, first) ? [...earlier.states] : [];
      const current = asKept(held.get(id) ?? rowState) as Record<string, unknown>;
      if (!deepEqual(current, states.at(-1))) states.push(current);
      // Noted before the attempt goes out: its answer may be lost after the server applied it.
      sentStates.set(id, { base: first, states });
      return states.map((state, index) => ({
        assumedMasterState:
          index === 0
            ? ((resending ? first : row.assumedMasterState) as typeof row.assumedMasterState)
            : (states[index - 1] as typeof row.newDocumentState),
        newDocumentState: state as unknown as typeof row.newDocumentState,
      }));
    });
    return sending;
  };
  /**
   * Ids of pushed rows whose state is still the replica's: one written again meanwhile is still
   * waiting to be sent.
   */
  const settled = async (rows: RxReplicationWriteToMasterRow<RxDocType>[]): Promise<string[]> => {
    const held = await heldStates(rows.map(key));
    return rows
      .filter((row) => {
        const current = held.get(key(row));
        return !current || sameState(current, row);
      })
      .map(key);
  };
  /**
   * Records, as the server's state of each document, the last state a push sent of it that the
   * server took as sent, before the push's answer is handed to RxDB, whose own record (written
   * after this one) is then refused: it reads the record before the push and ignores a refused
   * write. RxDB would record the state it handed over, not a newer one sent after it
   * (`withCurrentStates`): that state would be pushed again against the older one, and a
   * colleague's change pulled meanwhile taken for a conflict, the user's value, already kept,
   * reported lost. And it writes its record only after the answer is handed over: a pull answered
   * in between found the document unlike its record and left the newer state out.
   */
  const recordSentStates = (rows: RxReplicationWriteToMasterRow<RxDocType>[]): Promise<void> =>
    recordServerStates([
      ...new Map(rows.map((row) => [key(row), row.newDocumentState as unknown as SyncDocument])).values(),
    ]);
  /** Records these documents' states as the server's (what their next push is merged against). */
  const recordServerStates = async (documents: SyncDocument[]): Promise<void> => {
    const internal: RxStorageInstanceReplicationState<RxDocType> | undefined = state.internalReplicationState;
    if (documents.length === 0 || !internal) return;
    const known = await getAssumedMasterState(internal, documents.map(idOf));
    const writes = await Promise.all(
      documents.map((document) => getMetaWriteRow(internal, document as never, known[idOf(document)]?.metaDocument)),
    );
    await internal.input.metaInstance.bulkWrite(writes, 'orbita-sync-sent-state');
  };
  /**
   * RxDB stores a pulled state in two writes, the document and then its record of the server's
   * state, and counts a document marked as pulled (`isPulledState`) as holding the server's state
   * whatever its record says. An app quitting between the two writes left the older record; the
   * next pull fixes it unless the user writes the document first, and then RxDB sent that write
   * against the older record — a task deleted by the user after it was shared with them again went
   * against the tombstone of its hiding, which the server takes for nobody's deletion, and the task
   * stayed, the user not told. So at a write of the user's over a pulled state, that state is
   * recorded as the server's where the record differs, and the push reads the record again.
   */
  const recordingPulled = new Set<Promise<void>>();
  const rerecorded = new Set<string>();
  let mark: Promise<string> | undefined;
  const recordPulledStates = (events: readonly { previousDocumentData?: unknown }[]) => {
    const previous = events.flatMap((event) =>
      event.previousDocumentData ? [event.previousDocumentData as RxDocumentData<RxDocType>] : [],
    );
    if (previous.length === 0) return;
    const job = (async () => {
      await state.startPromise;
      const internal: RxStorageInstanceReplicationState<RxDocType> | undefined = state.internalReplicationState;
      if (!internal || state.isStopped()) return;
      mark ??= pulledMark(internal);
      const replicationMark = await mark;
      const pulled = previous.filter((document) => isPulledState(document as never, replicationMark));
      if (pulled.length === 0) return;
      const known = await getAssumedMasterState(
        internal,
        pulled.map((document) => idOf(document)),
      );
      const unrecorded = pulled.flatMap((document) => {
        const { _meta, _rev, _attachments, ...server } = document as Record<string, unknown>;
        const recorded = known[idOf(server)]?.docData as Record<string, unknown> | undefined;
        const { _attachments: _none, ...held } = recorded ?? {};
        return recorded && deepEqual(held, server) ? [] : [server as SyncDocument];
      });
      if (unrecorded.length === 0) return;
      await recordServerStates(unrecorded);
      for (const document of unrecorded) rerecorded.add(idOf(document));
    })().catch((error) => {
      // A replica closing meanwhile has nothing more to send.
      if (!state.isStopped()) console.warn(`Recording the pulled states of ${remoteCollection} failed:`, error);
    });
    recordingPulled.add(job);
    void job.finally(() => recordingPulled.delete(job));
  };
  /**
   * RxDB takes the server's state that a push was answered with (a conflict: the push merged with
   * what changed there) into the document and its record only while the document is still as
   * pushed. One the user changed again while the answer was on its way kept its record from before
   * the push, and its next push was merged against that: what the push itself had changed looked
   * unchanged (a person assigned, then taken off again, stayed assigned, unseen). Whether the
   * document is still as pushed cannot be told ahead of RxDB's write: an edit may land after any
   * look and before that write. So every answered document is rebased onto the server's state here
   * (`rebaseOnServerState`: one still as pushed becomes the server's state, one changed since keeps
   * those changes) in one write that RxDB retries on the newest state, and that state recorded;
   * RxDB's own write of the answer then finds the document changed and leaves it. Resolves, for
   * each document the answer was taken into, whether it was still as pushed (nothing of it waits
   * to be sent).
   */
  const rebaseOnAnswer = async (
    sent: RxReplicationWriteToMasterRow<RxDocType>[],
    conflicts: SyncDocument[],
  ): Promise<Map<string, boolean>> => {
    const asPushed = new Map<string, boolean>();
    if (conflicts.length === 0) return asPushed;
    // The last state of each document the server took from this push (a newer one may follow RxDB's).
    const lastRows = new Map(sent.map((row) => [key(row), row]));
    const lastSent = new Map(
      [...lastRows].map(([id, row]) => [id, row.newDocumentState as unknown as Record<string, unknown>]),
    );
    // One answer may name a document twice (a row sent again and its newer state): its last state counts.
    const latest = [...new Map(conflicts.map((document) => [idOf(document), document])).values()];
    // A record gone on the server is not rebased: its edits come back as lost, the record leaves.
    const answered = complete(latest).filter((document) => !document._deleted && lastSent.has(idOf(document)));
    if (answered.length === 0) return asPushed;
    // Kept until the document is rebased: a process dying between the record and that write left
    // the document as pushed against the merge, and its next push took out what the server had
    // merged in (a colleague's assignment and value gone, unseen). Taken when the replica opens.
    for (const server of answered) {
      const { _attachments, ...pushed } = lastSent.get(idOf(server)) as Record<string, unknown>;
      answers.set(idOf(server), { pushed, server });
    }
    // Stored before the record: the record written and the answer not kept, a process dying then
    // left nothing to take the answer again.
    await answers.stored();
    await recordServerStates(answered);
    const docs = await options.collection.findByIds(answered.map(idOf)).exec();
    const hidden = answered.filter((server) => !docs.has(idOf(server)));
    if (hidden.length > 0) await takeBackHidden(hidden, lastRows, asPushed);
    // Each document is written on its own (RxDB retries a write on the newest state); together,
    // so a push answered with many does not wait for each round trip to the storage in turn.
    await Promise.all(
      answered.map((server) => {
        const id = idOf(server);
        const row = lastRows.get(id);
        const pushed = lastSent.get(id);
        const doc = docs.get(id);
        if (!doc || !row || !pushed) return undefined;
        return (
          doc
            .incrementalModify((current: RxDocType) => {
              const { _meta, _rev, _attachments, ...held } = current as Record<string, unknown>;
              // Run again on a newer state when a write came first: its last run tells.
              asPushed.set(id, sameState(held, row));
              return rebaseOnServerState(
                pushed,
                current as unknown as Record<string, unknown>,
                server as unknown as Record<string, unknown>,
              ) as unknown as RxDocType;
            })
            // Let go in a record written after the rebase, which the storage writes after it.
            .then(() => answers.delete(id))
        );
      }),
    );
    return asPushed;
  };
  /**
   * Answers whose taking was cut short (`TakenAnswers`): where the server's state was recorded,
   * each document is rebased onto it as `rebaseOnAnswer` would have (one still as pushed becomes
   * the server's state, a deletion the server did not keep included; one changed since keeps those
   * changes). Where it was not, the push is in doubt as any unanswered one and is sent again. Before
   * RxDB pushes: the document as pushed, sent against that record, took the merge back.
   */
  const retakeAnswers = async (internal: RxStorageInstanceReplicationState<RxDocType>) => {
    for (let round = 0; round < 3 && answers.size > 0; round += 1) {
      const ids = [...answers.keys()];
      const [stored, known] = await Promise.all([
        fork.findDocumentsById(ids, true),
        getAssumedMasterState(internal, ids),
      ]);
      const held = new Map(stored.map((doc) => [idOf(doc as Record<string, unknown>), doc]));
      const writes = ids.flatMap((id) => {
        const answer = answers.get(id);
        const previous = held.get(id);
        const recorded = (known as Record<string, { docData: Record<string, unknown> }>)[id]?.docData;
        const { _attachments, ...server } = recorded ?? {};
        if (!answer || !previous || !recorded || !deepEqual(asKept(server), asKept(answer.server))) {
          answers.delete(id);
          return [];
        }
        const { _meta, _rev, _attachments: _none, ...state } = previous as Record<string, unknown>;
        const asPushed = deepEqual(asKept(state), asKept(answer.pushed));
        // Deleted since the push: the user's deletion, sent against the server's state.
        if (previous._deleted && !asPushed) {
          answers.delete(id);
          return [];
        }
        const rebased = asPushed
          ? { ...answer.server, _deleted: false }
          : rebaseOnServerState(answer.pushed, state, answer.server as unknown as Record<string, unknown>);
        if (deepEqual(asKept(rebased), asKept(state))) {
          answers.delete(id);
          return [];
        }
        const document = {
          ...(rebased as unknown as RxDocumentData<RxDocType>),
          _attachments: previous._attachments ?? {},
          _meta: { ...previous._meta, lwt: now() },
          _rev: createRevision(options.collection.database.token, previous),
        };
        return [{ previous, document }];
      });
      if (writes.length === 0) return;
      const result = await fork.bulkWrite(writes, 'orbita-sync-answer');
      const refused = new Set(result.error.map((error) => error.documentId));
      // Written again meanwhile: read again and rebased in the next round.
      for (const { document } of writes) if (!refused.has(idOf(document))) answers.delete(idOf(document));
    }
  };
  /**
   * Documents the replica holds as deleted (RxDB's documents leave them out), answered with a live
   * server state: the server's deletion or hiding the replica had taken, sent back as it was held
   * (a change of the user's taken back, looked at by RxDB only after the pull that hid it), or the
   * user's deletion the server did not keep. One still as sent becomes the server's state, which is
   * now its record; left deleted, RxDB would push that deletion against the record and delete on
   * the server a task shared with the user again. One written again since keeps that write.
   */
  const takeBackHidden = async (
    answered: SyncDocument[],
    lastRows: Map<string, RxReplicationWriteToMasterRow<RxDocType>>,
    asPushed: Map<string, boolean>,
  ): Promise<void> => {
    const stored = await fork.findDocumentsById(answered.map(idOf), true);
    const held = new Map(stored.map((doc) => [idOf(doc as Record<string, unknown>), doc]));
    const writes = answered.flatMap((server) => {
      const id = idOf(server);
      const previous = held.get(id);
      const row = lastRows.get(id);
      if (!previous || !row || !previous._deleted) return [];
      const { _meta, _rev, _attachments, ...state } = previous as Record<string, unknown>;
      if (!sameState(state, row)) return [];
      asPushed.set(id, true);
      const document = {
        ...(server as unknown as RxDocumentData<RxDocType>),
        _deleted: false,
        _attachments: {},
        _meta: { ...previous._meta, lwt: now() },
        _rev: createRevision(options.collection.database.token, previous),
      };
      return [{ previous, document }];
    });
    if (writes.length > 0) {
      const result = await fork.bulkWrite(writes, 'orbita-sync-answer');
      // Written again meanwhile: that write is the user's, and is sent next.
      for (const error of result.error) asPushed.set(error.documentId, false);
    }
    for (const server of answered) answers.delete(idOf(server));
  };
  /**
   * Takes a push's answer into the replica (the states the server took, its merges, the edits it
   * reports lost); resolves what RxDB is handed as the push's conflicts.
   */
  const takeAnswer = async (
    rows: RxReplicationWriteToMasterRow<RxDocType>[],
    sent: RxReplicationWriteToMasterRow<RxDocType>[],
    result: PushResponse,
  ): Promise<never> => {
    // Answered: RxDB holds the server's state of these documents now. A state handed to RxDB and
    // not written (left for this push) is older than the answer: RxDB's write of the answer is not
    // a write of the user's that sets it aside (it came back over a bare tombstone, which has no
    // version to tell the two apart).
    // What the push sent is let go of at once, and in the records only once the answer is recorded:
    // let go there first, an app ending in between kept neither, and a change the push had made
    // and the user had taken back since was never sent again (a person taken off stayed assigned,
    // unseen). Kept there past the answer, it is sent again harmlessly, or let go when the replica
    // opens (`resendTakenBack`).
    const answered: Array<() => void> = [];
    for (const row of rows) {
      changedHere.delete(key(row));
      setAside.delete(key(row));
      answered.push(sentStates.letGo(key(row)));
      handed.delete(key(row));
      // Read again by every attempt until one is answered: an attempt that fails is retried
      // with RxDB's rows as they were.
      rerecorded.delete(key(row));
    }
    supersede(rows.map(key), complete(result.conflicts));
    // A record gone on the server (deleted, or no longer shared) is written into the document by
    // RxDB only while it is still as pushed; one changed again meanwhile kept it, and when that
    // change was taken back there was nothing left to push, so the record stayed on the device for
    // good. Its tombstone is set aside and taken once nothing of the user's is left to send.
    const gone = complete(result.conflicts).filter((document) => document._deleted);
    for (const tombstone of gone) {
      changedHere.add(idOf(tombstone));
      setAside.set(idOf(tombstone), tombstone);
    }
    if (gone.length > 0) takeSetAsideSoon();
    // A row sent again and the newer state after it may each lose the same value: the
    // newer state's loss is what the user last tried (the server answers rows in order).
    const lost = [...new Map(result.lost.map((edit) => [`${edit.id} ${edit.path}`, edit])).values()];
    for (const edit of lost) {
      const key = `${edit.id} ${edit.path}`;
      // The latest last: the oldest are let go first.
      lostEdits.delete(key);
      lostEdits.set(key, edit);
    }
    for (const key of [...lostEdits.keys()].slice(0, Math.max(0, lostEdits.size - MAX_KEPT_LOST)))
      lostEdits.delete(key);
    // What the answer leaves to be kept is stored before its records settle the push: nothing
    // would bring the edits lost or the documents gone again.
    await keptStored();
    const conflicting = new Set(result.conflicts.map(idOf));
    // A record that cannot be written leaves RxDB's: the state is pushed once more, as before.
    const recorded = await recordSentStates(sent.filter((row) => !conflicting.has(key(row)))).then(
      () => true,
      () => false,
    );
    const taken = await rebaseOnAnswer(sent, result.conflicts).then(
      (asPushed) => {
        if (recorded) for (const release of answered) release();
        return asPushed;
      },
      (error) => {
        console.warn(`Taking the answer to a push of ${remoteCollection} failed:`, error);
        return new Map<string, boolean>();
      },
    );
    if (lost.length > 0) options.onLostEdits?.(lost);
    if (options.onPushed) {
      // A document the answer was taken into is settled if it was still as pushed.
      const others = await settled(sent.filter((row) => !taken.has(key(row))));
      options.onPushed([...others, ...[...taken].filter(([, asPushed]) => asPushed).map(([id]) => id)]);
    }
    return complete(result.conflicts) as never;
  };
  const pullBatch = async (
    checkpoint: SyncCheckpoint | null,
    batchSize: number,
  ): Promise<{ documents: never; checkpoint: SyncCheckpoint | undefined }> => {
    // A batch larger than the server's page is fetched page after page: RxDB then writes it
    // to the replica in one transaction instead of one per page. A short page means the
    // server has nothing more; a failed page fails the batch (RxDB retries from `checkpoint`).
    const documents: SyncDocument[] = [];
    let next = checkpoint ?? null;
    while (documents.length < batchSize) {
      const pageSize = Math.min(SERVER_PAGE_SIZE, batchSize - documents.length);
      const from = next;
      const page = await backoff.run(() =>
        call<PullResponse>(
          socket,
          'sync:pull',
          { collection: remoteCollection, checkpoint: from, batchSize: pageSize },
          timing,
        ),
      );
      for (const document of page.documents) documents.push(document);
      next = page.checkpoint ?? next;
      if (page.documents.length < pageSize) break;
    }
    return { documents: complete(documents) as never, checkpoint: next ?? undefined };
  };
  /**
   * The edits the server reported lost (`onLostEdits`), one per record and value, kept with the
   * records until the user has seen them (`forgetLost`): stored before the push that reported them
   * is settled, since nothing reports them again, and reported again when the replication starts.
   */
  const lostEdits = new KeptMap('lost', undefined, isLostEdit);
  const kept = [sentStates, setAside, answers, lostEdits];
  let keptReading: Promise<unknown> | undefined;
  /** The kept maps, read from the records once the replication has them (`KeptRecord`). */
  const keptRead = (internal: RxStorageInstanceReplicationState<RxDocType>) => {
    const token = options.collection.database.token;
    keptReading ??= Promise.all([
      sentStates.attach(new KeptRecord(internal.input.metaInstance, token, 'sent')),
      setAside.attach(new KeptRecord(internal.input.metaInstance, token, 'setAside')),
      answers.attach(new KeptRecord(internal.input.metaInstance, token, 'answers')),
      lostEdits.attach(new KeptRecord(internal.input.metaInstance, token, 'lost')).then(() => {
        if (lostEdits.size > 0) options.onLostEdits?.([...lostEdits.values()]);
      }),
    ]);
    return keptReading;
  };
  const keptStored = () => Promise.all(kept.map((map) => map.stored()));
  /** Pushes storing what they send before it goes out (`sentStates`). */
  const storingSent = new Set<Promise<unknown>>();
  let preparing: Promise<unknown> | undefined;
  const prepared = () => {
    const internal: RxStorageInstanceReplicationState<RxDocType> | undefined = state.internalReplicationState;
    if (!internal) return undefined;
    const before = options.beforeFirstPull;
    preparing ??= Promise.resolve(stoppingOn.get(fork))
      .then(() => keptRead(internal))
      .then(() => Promise.all([before?.(internal), retakeAnswers(internal).then(() => resendTakenBack(internal))]))
      .catch((error) => console.warn(`Preparing the pull of ${remoteCollection} failed:`, error))
      // States set aside before the app last quit: taken once the first pull is written.
      .finally(() => setAside.size > 0 && takeSetAsideSoon());
    return preparing;
  };
  /**
   * Pushes left in doubt when the app quit, whose change the user took back entirely before it
   * opened again: the document holds its recorded server state, so RxDB has nothing to send, yet
   * the server may hold what an attempt sent, and the next pull would bring the change back over
   * the user's. The last state sent is recorded as the server's and the document written again
   * as it is: RxDB then pushes it, after what the attempts sent (`withCurrentStates`), so the
   * server takes the change back whichever attempt it applied — and until then no pull is written
   * over it. Before the first pull, which would otherwise settle those states by recording the
   * server's.
   */
  const resendTakenBack = async (internal: RxStorageInstanceReplicationState<RxDocType>) => {
    const ids = [...sentStates.keys()];
    if (ids.length === 0) return;
    const [{ held, pulled }, known] = await Promise.all([heldAndPulled(ids), getAssumedMasterState(internal, ids)]);
    const unrecorded: SyncDocument[] = [];
    const resent = ids.flatMap((id) => {
      const kept = sentStates.get(id);
      const current = held.get(id);
      const recorded = (known as Record<string, { docData: Record<string, unknown> }>)[id]?.docData;
      const last = kept?.states.at(-1);
      if (!kept || !current || !last) return [];
      const server = recorded
        ? asKept(Object.fromEntries(Object.entries(recorded).filter(([k]) => k !== '_attachments')))
        : null;
      // Written by a pull since: pulls are refused while a push of the document is in doubt, so
      // that push was answered and the states outlived it (the app ended before they were let go).
      // Kept, they had every later pulled state refused, for good; the pulled state is the server's.
      if (pulled.has(id)) {
        sentStates.delete(id);
        if (!deepEqual(asKept(current), server)) unrecorded.push(current as SyncDocument);
        return [];
      }
      // Settled by a server state taken since (kept by a release that wrote pulled states over
      // such documents): not sent again, and pulled states are written again.
      if (!deepEqual(server, kept.base) && !deepEqual(server, last)) {
        sentStates.delete(id);
        return [];
      }
      // Changed since: RxDB sends it, the kept states first.
      if (!deepEqual(asKept(current), server)) return [];
      // Nothing for RxDB to send: recorded against the last state sent (or, the document being
      // that state, the one the first attempt was sent against), it is sent after the attempts.
      const against = !deepEqual(asKept(current), last) ? last : kept.base;
      if (against === null || deepEqual(asKept(current), against)) {
        // Every attempt sent this very state, made from it: nothing is in doubt.
        sentStates.delete(id);
        return [];
      }
      return [against as unknown as SyncDocument];
    });
    if (unrecorded.length > 0) await recordServerStates(unrecorded);
    if (resent.length === 0) return;
    await recordServerStates(resent);
    const docs = await fork.findDocumentsById(resent.map(idOf), true);
    await fork.bulkWrite(
      docs.map((previous) => ({
        previous,
        document: {
          ...previous,
          _meta: { ...previous._meta, lwt: now() },
          _rev: createRevision(options.collection.database.token, previous),
        },
      })),
      'orbita-sync-resend',
    );
  };
  /**
   * Takes the set-aside pulled states of documents whose own change was taken back before it was
   * sent (they hold their recorded server state again, so RxDB sends nothing): passed to RxDB
   * again, they are written as any pulled state is. A document still differing from its recorded
   * state is left to its push, whose answer settles it.
   */
  let taking: ReturnType<typeof setTimeout> | undefined;
  const takeSetAside = async () => {
    const internal: RxStorageInstanceReplicationState<RxDocType> | undefined = state.internalReplicationState;
    if (!internal || setAside.size === 0 || state.isStopped()) return;
    // RxDB pushes the states its change events carried: while it has writes to look at, one taken
    // back may still go out, against the state taken here, and undo it. Looked at once it is idle.
    if (internal.events.active.up.getValue()) return takeSetAsideSoon();
    // A pull under way brings states at least as new, which RxDB writes before anything handed to
    // it now: a set-aside tombstone taken then was written over the visible state the pull brought
    // (a task shared with the user again). Once RxDB has written its answer, the pull has replaced
    // what it brought newer states of. RxDB's downstream stays busy while it waits to try a failed
    // pull again, which a tombstone taken in that wait was written after too.
    const pullUnderWay = () => internal.events.active.down.getValue();
    if (pullUnderWay()) return takeSetAsideSoon();
    const ids = [...setAside.keys()].filter((id) => !pushing.has(id) && !sentStates.has(id));
    if (ids.length === 0) return;
    const [held, known] = await Promise.all([heldStates(ids), getAssumedMasterState(internal, ids)]);
    // A pull begun while the states were read: looked at again once it is answered.
    if (pullUnderWay()) return takeSetAsideSoon();
    const taken: SyncDocument[] = [];
    for (const id of ids) {
      const pulled = setAside.get(id);
      const recorded = (known as Record<string, { docData: Record<string, unknown> }>)[id]?.docData;
      const current = held.get(id);
      if (!pulled || !recorded || !current) continue;
      const { _attachments, ...server } = recorded;
      if (!deepEqual(current, server)) continue;
      changedHere.delete(id);
      // Older than the state recorded since, or than a push's outcome: nothing to take.
      const version = versionOf(pulled);
      const recordedVersion = versionOf(server as SyncDocument);
      if (isStale(pulled) || (version && recordedVersion && version < recordedVersion) || deepEqual(server, pulled)) {
        setAside.delete(id);
        continue;
      }
      // Nothing pulls it again (its checkpoint is passed): kept in the record until RxDB has written it.
      settling.set(id, setAside.letGo(id));
      taken.push(pulled);
    }
    if (taken.length > 0 && !state.isStopped()) {
      noteHanded(taken);
      stream$.next({ documents: complete(taken) as never, checkpoint: undefined } as never);
    }
  };
  const takeSetAsideSoon = () => {
    if (taking) clearTimeout(taking);
    taking = setTimeout(() => {
      taking = undefined;
      takeSetAside().catch((error) =>
        console.warn(`Taking the pulled states of ${remoteCollection} set aside failed:`, error),
      );
    }, retryTimeMs);
  };
  // RxDB's replication writes pulled states through the collection's storage instance: those
  // older than a push's outcome the replica holds are refused there, as a write conflict (which
  // RxDB's downstream leaves be: the newer state stays, with its record).
  const fork = options.collection.storageInstance;
  const forkWrite = fork.bulkWrite;
  /** Set once the stopped replication's writes are over: its guard lets everything by. */
  let released = false;
  const writeUnlessStale: typeof fork.bulkWrite = async (rows, context) => {
    const internal: RxStorageInstanceReplicationState<RxDocType> | undefined = state.internalReplicationState;
    const stopped = internal?.events.canceled.getValue() === true;
    if (released || !internal || context !== (await internal.downstreamBulkWriteFlag)) {
      return forkWrite.call(fork, rows, context);
    }
    // Older than a push's outcome, or of a document whose push went out and is not answered: that
    // answer (the server merges a retry against its state then) is newer than anything pulled now.
    // Stopped (the app quitting), RxDB still writes what it read before (a state held back during
    // a push, once the push is answered) but no checkpoint past it: refused, it is pulled again
    // when the replication starts again.
    // Older than the server's state the document holds as pulled: RxDB writes a stream message it
    // held during a push once the push is answered, after a pull that began before the push and
    // brought a newer state. (A document made here carries this device's clock, no server version.)
    mark ??= pulledMark(internal);
    const replicationMark = await mark;
    const stale = rows.filter((row) => {
      const document = row.document as unknown as Record<string, unknown>;
      const version = versionOf(document as SyncDocument);
      const held =
        row.previous && isPulledState(row.previous as never, replicationMark)
          ? versionOf(row.previous as unknown as SyncDocument)
          : undefined;
      return (
        stopped ||
        isStale(document) ||
        sentStates.has(idOf(document)) ||
        (version !== undefined && held !== undefined && version < held)
      );
    });
    if (stale.length === 0) return forkWrite.call(fork, rows, context);
    const fresh = rows.filter((row) => !stale.includes(row));
    const written = fresh.length > 0 ? await forkWrite.call(fork, fresh, context) : { error: [] };
    return {
      error: [
        ...written.error,
        ...stale.map((row) => ({
          status: 409 as const,
          isError: true as const,
          documentId: idOf(row.document as unknown as Record<string, unknown>),
          writeRow: row,
          context,
          documentInDb: (row.previous ?? row.document) as never,
        })),
      ],
    };
  };
  fork.bulkWrite = writeUnlessStale;
  const localWrites = options.collection.storageInstance.changeStream().subscribe((bulk) => {
    if (handed.size > 0) {
      for (const event of bulk.events) {
        const pending = handed.get(event.documentId);
        if (!pending) continue;
        if (String(bulk.context).startsWith('replication-downstream')) {
          // Written: this state, or a newer one.
          const version = versionOf(pending);
          if (!version || (versionOf(event.documentData as unknown as SyncDocument) ?? '') >= version) {
            handed.delete(event.documentId);
            const release = settling.get(event.documentId);
            settling.delete(event.documentId);
            // Let go in a record written after RxDB's write, which the storage writes after it.
            release?.();
          }
          continue;
        }
        // The user's write came first: RxDB's write of that state is refused or skipped.
        handed.delete(event.documentId);
        settling.delete(event.documentId);
        const aside = setAside.get(event.documentId);
        const asideVersion = aside && versionOf(aside);
        const version = versionOf(pending);
        if (!asideVersion || (version && version >= asideVersion)) setAside.set(event.documentId, pending);
      }
    }
    if (String(bulk.context).startsWith('replication-downstream')) {
      // RxDB wrote a set-aside state after all, or a newer one: nothing is left to take. A bare
      // tombstone has no version and stays (a state RxDB wrote may be one received before it).
      for (const event of bulk.events) {
        const aside = setAside.get(event.documentId);
        const version = aside && versionOf(aside);
        if (version && (versionOf(event.documentData as unknown as SyncDocument) ?? '') >= version)
          setAside.delete(event.documentId);
      }
      return;
    }
    for (const event of bulk.events) changedHere.add(event.documentId);
    // The user's writes: the replication's own (answers, resends) start from states it recorded.
    if (!String(bulk.context).startsWith('orbita-sync') && !String(bulk.context).startsWith('replication-'))
      recordPulledStates(bulk.events);
    if (bulk.events.some((event) => setAside.has(event.documentId))) takeSetAsideSoon();
  });
  const state = replicateRxCollection<RxDocType, SyncCheckpoint>({
    collection: options.collection,
    replicationIdentifier: syncReplicationIdentifier(remoteCollection),
    live: options.live ?? true,
    // RxDB waits this fixed time after a failure; the backoff adds the growing part.
    retryTime: retryTimeMs,
    waitForLeadership: false,
    autoStart: true,
    deletedField: '_deleted',
    pull: {
      batchSize: options.batchSize ?? 100,
      stream$: stream$.asObservable(),
      async handler(checkpoint, batchSize) {
        pulling += 1;
        let batch: Awaited<ReturnType<typeof pullBatch>>;
        try {
          await prepared();
          batch = await pullBatch(checkpoint ?? null, batchSize);
          noteReceived(batch.documents);
          options.onSyncProblem?.('receive', undefined);
        } catch (error) {
          const trouble = troubleOf(error);
          if (trouble) options.onSyncProblem?.('receive', trouble);
          throw error;
        } finally {
          // Answered: a stream message arriving from now on was read after the pull, and is newer.
          pulling -= 1;
        }
        await answersTaken();
        // A newer state replaces a set-aside one, or, of a document not changed here since the app
        // opened, lets it go (a state kept from before the app quit, behind a deletion pulled now).
        if (changedHere.size > 0 || setAside.size > 0) setAsideIfChangedHere(batch.documents);
        noteHanded(batch.documents);
        return batch;
      },
    },
    push:
      options.push === false
        ? undefined
        : {
            batchSize: options.pushBatchSize ?? 100,
            async handler(rows) {
              // An answer left untaken when the app last quit is taken before anything is sent.
              await prepared();
              const ids = rows.map(key);
              for (const id of ids) pushing.set(id, (pushing.get(id) ?? 0) + 1);
              let result: PushResponse;
              let sent = rows;
              try {
                result = await backoff.run(async () => {
                  // The states are read once the connection is there, right before sending: a server
                  // state stored, or a document written again, while this push waited is sent along.
                  await whenConnected(socket, timing.connectWaitMs);
                  const noted = new Map(ids.map((id) => [id, sentStates.get(id)]));
                  // The states first: a write of the user's they hold has its pulled state recorded
                  // by the time the base is read (`recordPulledStates`).
                  const { held, pulled } = await heldAndPulled(ids);
                  // A state RxDB pulled and nobody changed since is the server's, not a change of
                  // the user's: RxDB's upstream sends it when its record never reached the disk
                  // (the replica process died between RxDB's two writes) and the upstream's
                  // checkpoint past it was lost too — a tombstone of a task hidden from the user
                  // went as their deletion, and the office's task was deleted once shared again.
                  // It is recorded as the server's instead.
                  const based = await withCurrentBase(rows);
                  const fromServer = based.filter((row) => {
                    const current = held.get(key(row));
                    const { _attachments, ...base } = (row.assumedMasterState ?? {}) as Record<string, unknown>;
                    return pulled.has(key(row)) && !deepEqual(asKept(current), asKept(base));
                  });
                  if (fromServer.length > 0)
                    await recordServerStates(fromServer.map((row) => held.get(key(row)) as SyncDocument));
                  options.onSending?.(based.filter((row) => !fromServer.includes(row)).map(key));
                  // Not connected, nothing goes out: nothing is in doubt, nothing is noted as sent.
                  if (!socket.connected) throw offlineProblem();
                  sent = withCurrentStates(
                    based.filter((row) => !fromServer.includes(row)),
                    held,
                  );
                  if (sent.length === 0) return { conflicts: [], lost: [] };
                  // Stored before it goes out; stopping waits for this, and for a refusal to be noted.
                  const storing = sentStates.stored();
                  storingSent.add(storing);
                  await storing.finally(() => storingSent.delete(storing));
                  return call<PushResponse>(
                    socket,
                    'sync:push',
                    {
                      collection: remoteCollection,
                      rows: sent.map((row) => ({
                        assumedMasterState: (row.assumedMasterState ?? null) as SyncDocument | null,
                        newDocumentState: row.newDocumentState as unknown as SyncDocument,
                      })),
                    },
                    // The connection was waited for above.
                    { ...timing, connectWaitMs: 0 },
                  ).catch((error: unknown) => {
                    // Refused before it went out (not connected): nothing of this attempt is in doubt.
                    if (error instanceof SyncProblemError && error.problem.code === 'offline') {
                      for (const [id, states] of noted) {
                        if (states) sentStates.set(id, states);
                        else sentStates.delete(id);
                      }
                    }
                    throw error;
                  });
                });
              } catch (error) {
                const trouble = troubleOf(error);
                if (trouble) options.onSyncProblem?.('send', trouble);
                throw error;
              } finally {
                for (const id of ids) {
                  const left = (pushing.get(id) ?? 1) - 1;
                  if (left > 0) pushing.set(id, left);
                  else pushing.delete(id);
                }
              }
              options.onSyncProblem?.('send', undefined);
              const taking = takeAnswer(rows, sent, result);
              answering.add(taking);
              try {
                return await taking;
              } finally {
                answering.delete(taking);
              }
            },
          },
  });
  // An answer is taken in two writes, its record of the server's state and then the document
  // rebased onto it. An app quitting between the two left the document as it was before the push,
  // against the answer's record, and its next push took back what the server had merged in (a
  // colleague's assignment and value gone, unseen). Stopping waits for the answers being taken:
  // writes to the replica, bounded all the same, as a storage that stopped answering must not
  // keep the app from quitting.
  const cancel = state.cancel.bind(state);
  let stopping = false;
  state.cancel = async () => {
    stopping = true;
    let waited: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      // A push refused as it went out (the socket closing) notes that nothing of it is in doubt.
      answersTaken()
        .then(() => Promise.allSettled([...storingSent]))
        .then(() => new Promise((resolve) => setTimeout(resolve, 0)))
        .then(keptStored),
      new Promise((resolve) => {
        waited = setTimeout(resolve, ANSWER_TAKING_WAIT_MS);
      }),
    ]);
    clearTimeout(waited);
    // RxDB closes the records: what changes from now on stays in memory.
    for (const map of kept) map.detach();
    return cancel();
  };
  // RxDB's protocol reads and writes its checkpoints, and reads changes since one, in calls some of
  // which nobody awaits: one failing as the replication stops — its storage gone with the replica
  // process — was a rejection nobody handled. Once stopping, such a failure is answered as nothing
  // found or written: the replication keeps no checkpoint and pushes nothing more anyway, and the
  // next start reads what is stored. The instances themselves are left as they are (storages wrap
  // them, and they outlive this replication): RxDB's protocol is handed copies.
  void state.startPromise.then(
    () => {
      const internal: RxStorageInstanceReplicationState<RxDocType> | undefined = state.internalReplicationState;
      if (!internal) return;
      const { input } = internal;
      const quiet = <T>(call: Promise<T>, nothing: () => T): Promise<T> =>
        call.catch((error: unknown) => {
          if (stopping) return nothing();
          throw error;
        });
      const meta = input.metaInstance;
      void keptRead(internal);
      const isCheckpoint = (id: string) => id.endsWith('|1');
      input.metaInstance = Object.assign(Object.create(meta) as typeof meta, {
        // A checkpoint passes the states it came with, set aside ones included: stored after them.
        bulkWrite: ((rows, context) =>
          context === 'replication-set-checkpoint'
            ? quiet(
                keptStored().then(() => meta.bulkWrite(rows, context)),
                () => ({ error: [] }),
              )
            : meta.bulkWrite(rows, context)) as typeof meta.bulkWrite,
        findDocumentsById: ((ids, withDeleted) =>
          ids.every(isCheckpoint)
            ? quiet(meta.findDocumentsById(ids, withDeleted), () => [])
            : meta.findDocumentsById(ids, withDeleted)) as typeof meta.findDocumentsById,
      });
      const forkInstance = input.forkInstance;
      // RxDB's helper reads a storage without changes by checkpoint through its queries.
      const changesSince: NonNullable<typeof forkInstance.getChangedDocumentsSince> = (limit, checkpoint) =>
        getChangedDocumentsSince(forkInstance, limit, checkpoint);
      input.forkInstance = Object.assign(Object.create(forkInstance) as typeof forkInstance, {
        getChangedDocumentsSince: ((limit, checkpoint) =>
          quiet(changesSince(limit, checkpoint), () => ({
            documents: [],
            checkpoint,
          }))) as typeof changesSince,
      });
    },
    () => undefined,
  );
  void state.canceled$.subscribe((canceled) => {
    if (!canceled) return;
    socket.off('sync:stream', onStream);
    socket.off('sync:resync', onResync);
    socket.off('connect', onConnect);
    localWrites.unsubscribe();
    // RxDB's downstream may be between reading a document and writing a pulled state over it.
    const over = (state.internalReplicationState?.streamQueue.down ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => {
        released = true;
        if (fork.bulkWrite === writeUnlessStale) fork.bulkWrite = forkWrite;
      });
    stoppingOn.set(fork, over);
    if (taking) clearTimeout(taking);
    stream$.complete();
  });
  /** Forgets the lost edits `seen` tells (the user has seen them): kept no more. */
  const forgetLost = (seen: (edit: LostEdit) => boolean) => {
    for (const [key, edit] of lostEdits) if (seen(edit)) lostEdits.delete(key);
  };
  return Object.assign(state, { forgetLost });
}
