import { type CellChanges, withCellChanges } from '@shared/api/directories';
import type { LostEdit } from '@shared/sync';
import {
  deepEqual,
  getAssumedMasterState,
  type RxCollection,
  type RxDocument,
  type RxStorage,
  removeRxDatabase,
} from 'rxdb';
import { BehaviorSubject, Subject } from 'rxjs';
import { io, type Socket } from 'socket.io-client';
import { type AssigneesChange, reassigned } from './assignees';
import {
  createOrbitaDatabase,
  type OrbitaDatabase,
  type ReplicaSync,
  startReplicaSync,
  type UpgradeProgress,
} from './database';
import { RecordGoneError } from './replica-errors';
import { type CollectionName, type RowDocument, type TaskDocument, tombstoneDefaults, WRITABLE } from './schemas';
import type { KeptOnDevice, SyncDirection, SyncTrouble } from './socket-replication';

export interface ReplicaStatus {
  /** Connected to the server's sync stream. */
  online: boolean;
  /** The first connection since opening is still being tried: neither online nor known offline yet. */
  connecting: boolean;
  /** The first pull since opening has finished (lists are complete). */
  ready: boolean;
  /** Tasks and directory rows changed on this device and not yet accepted by the server. */
  pending: number;
  /** Their ids, so that screens can mark each one. */
  pendingIds: ReadonlySet<string>;
  /** The server ended the session: replication stopped until the next sign-in. */
  signedOut: boolean;
  /** Why changes made here do not go (the server's problem), until they do; they are tried again meanwhile. */
  sendFailure?: SyncTrouble;
  /** Why the server's changes do not come (the server's problem), until they do; tried again meanwhile. */
  receiveFailure?: SyncTrouble;
  /**
   * When this device last held everything the server had for the user (ms since the epoch): the
   * moment it stopped being connected after a completed pull, kept across restarts. Connected
   * after the first pull, it is up to date. Undefined: never synced here.
   */
  syncedAt?: number;
}

/** Remembered per user across restarts: what is waiting to be sent, and edits the server did not keep. */
export interface Memory {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove?(key: string): void;
}

/** Where the device lists the accounts whose copies it may hold (user id → e-mail). */
const COPIES_KEY = 'orbita.copies';

/** The accounts whose copies this device may hold, as `memory` lists them (user id → e-mail). */
export function copiesHeld(memory: Memory): Record<string, string> {
  try {
    const copies: unknown = JSON.parse(memory.get(COPIES_KEY) ?? '{}');
    return copies && typeof copies === 'object' && !Array.isArray(copies) ? (copies as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** Lists `userId` (signing in as `email`) among the accounts whose copies this device may hold. */
export function noteCopy(memory: Memory, userId: string, email: string): void {
  const copies = copiesHeld(memory);
  if (copies[userId] === email) return;
  memory.set(COPIES_KEY, JSON.stringify({ ...copies, [userId]: email }));
}

/** Takes `userId` off the list, its copy removed (`Replica.remove`, `Replica.removeCopy`). */
function forgetCopy(memory: Memory, userId: string): void {
  const { [userId]: _removed, ...rest } = copiesHeld(memory);
  if (Object.keys(rest).length > 0) memory.set(COPIES_KEY, JSON.stringify(rest));
  else if (memory.remove) memory.remove(COPIES_KEY);
  else memory.set(COPIES_KEY, '{}');
}

/** When a write's document is checked for holding its server state again, and how often after. */
const SETTLE_AFTER_WRITE_MS = 500;
const SETTLE_EVERY_MS = 3_000;

/**
 * What a replica remembers beside its database, per user (`orbita.replica.<user id>.<name>`);
 * `pullsMarked`: its pulled documents were looked over once for a missing mark (`markUnrecordedPulls`).
 */
const REMEMBERED = ['pending', 'lost', 'syncedAt', 'pullsMarked', 'sent', 'setAside', 'answers'] as const;

export interface OpenReplicaOptions {
  userId: string;
  /** The server (empty: this page's origin). */
  serverUrl?: string;
  storage: RxStorage<unknown, unknown>;
  accessToken: () => string | undefined;
  /**
   * A fresh access token, or undefined when the session is over. `rejected` is the token the server
   * refused: another tab may have refreshed since, and then its tokens are taken rather than
   * refreshing again.
   */
  reauthenticate: (rejected: string | undefined) => Promise<string | undefined>;
  /** The server said the account is deactivated (the replica has paused as signed out). */
  onDeactivated?: () => void;
  memory?: Memory;
  /** Follow the browser's online/offline events (the window's network). */
  window?: Pick<Window, 'addEventListener' | 'removeEventListener'> & { navigator: { onLine: boolean } };
  /** A replica written by an earlier release is being brought to the current schemas before it opens. */
  onUpgrade?: (progress: UpgradeProgress) => void;
  /** How often, while in sync, now is remembered as the moment the data is as of (default a minute). */
  syncedAtEveryMs?: number;
}

/**
 * While in sync, now is remembered this often as what the data is as of: an app killed (it never
 * left the synced state in an orderly way) says "as of" no earlier than this before the end.
 */
const SYNCED_AT_EVERY_MS = 60_000;

/** Lost edits kept at the most (the oldest go first): a value each, so a few hundred records' worth. */
const MAX_LOST = 1_000;

/** Connected, with the first pull since opening done: every change of the server arrives at once. */
function insync(status: ReplicaStatus): boolean {
  return status.online && status.ready && !status.signedOut;
}

/**
 * A task as `change` leaves it (its fields merge into the task's values). A task deleted or hidden
 * from the user while the edit was being saved — a pulled deletion came first — is not written to:
 * the edit would be a deletion carrying values, which the server takes for nothing to report.
 */
export function changedTask(current: TaskDocument & { _deleted?: boolean }, change: TaskChange): TaskDocument {
  if (current._deleted) throw new RecordGoneError(current.id);
  const { assign, ...values } = change;
  const changed = {
    ...current,
    ...values,
    fields: change.fields ? { ...current.fields, ...change.fields } : current.fields,
  };
  return assign ? { ...changed, assignees: reassigned(current.assignees ?? [], assign) } : changed;
}

/**
 * A change of a task made on a page: values, and people put on or taken off (`assign`, applied to
 * the assignees the task has when written, so that one a pulled change added meanwhile stays).
 */
export type TaskChange = Partial<Pick<TaskDocument, 'title' | 'description' | 'statusId' | 'fields' | 'assignees'>> & {
  assign?: AssigneesChange;
};

/**
 * A task or directory row as deleted. Like an edit, a deletion is not written onto a record the
 * replica has just learned was deleted or hidden from the user: nothing would be sent (a tombstone
 * over a tombstone), and a task still on the server but no longer shared would stay there unseen.
 */
export function removedRecord<T extends { id: string; _deleted?: boolean }>(current: T): T {
  if (current._deleted) throw new RecordGoneError(current.id);
  return { ...current, _deleted: true };
}

/**
 * Writes `deleted`, a task or directory row as it was when deleted on this device, over the
 * tombstone `collection` holds of it (an undo). The tombstone keeps the values of a deletion made
 * here, which are taken; once the server's own tombstone (no values) has come back with the
 * stream, `deleted` is. False when the replica does not hold it as deleted: brought back already,
 * or its tombstone cleaned up.
 */
export async function writeBackDeleted<T extends { id: string }>(
  collection: RxCollection<T>,
  deleted: T,
): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const [held] = await collection.storageInstance.findDocumentsById([deleted.id], true);
    if (!held?._deleted) return false;
    const { _deleted, _rev, _meta, _attachments, ...values } = held;
    const bare = new Set(['id', ...Object.keys(tombstoneDefaults[collection.name as CollectionName] ?? {})]);
    const carriesValues = Object.keys(values).some((key) => !bare.has(key));
    try {
      // RxDB writes an insert over a tombstone as the next revision of that document.
      await collection.insert((carriesValues ? values : deleted) as never);
      return true;
    } catch (error) {
      const inDb = (error as { parameters?: { writeError?: { documentInDb?: { _deleted?: boolean } } } }).parameters
        ?.writeError?.documentInDb;
      if ((error as { code?: string }).code !== 'CONFLICT' || !inDb) throw error;
      // Brought back meanwhile (the server's answer to the deletion kept it): nothing to undo.
      if (!inDb._deleted) return false;
      // Another tombstone written meanwhile (the server's, streamed back): written over in turn.
      if (attempt === 3) throw error;
    }
  }
}

/** Where a directory row's deletion moved one of its children: put back there by its undo. */
export interface MovedUpRow {
  id: string;
  /** The child's parent and order before the deletion (the deleted row, and its order under it). */
  parentId: string;
  position: number;
}

/**
 * A change of a directory row made on a screen: the cells its user changed (by column index,
 * applied to the cells the replica holds when written, so that a cell a pulled change set
 * meanwhile stays), its bindings, a move.
 */
export type RowChange = Partial<Pick<RowDocument, 'parentRowIds' | 'parentId' | 'position'>> & {
  cells?: CellChanges;
};

/** A directory row as `change` leaves it; like a task, one deleted meanwhile is not written to. */
export function changedRow(current: RowDocument & { _deleted?: boolean }, change: RowChange): RowDocument {
  if (current._deleted) throw new RecordGoneError(current.id);
  const { cells, ...values } = change;
  return { ...current, ...values, ...(cells ? { cells: withCellChanges(current.cells, cells) } : {}) };
}

/**
 * The signed-in user's offline replica: the RxDB database, its replication over `/sync`, and what
 * the interface shows about it — connection, changes waiting to be sent, and offline edits the
 * server did not keep.
 */
export class Replica {
  readonly status$: BehaviorSubject<ReplicaStatus>;
  readonly lost$: BehaviorSubject<LostEdit[]>;
  /** Ids of tasks whose push the server has just answered (its history and audit now hold them). */
  readonly pushed$ = new Subject<string[]>();
  private readonly pending: Set<string>;
  /** Why pulls or pushes of a collection fail now, by direction and collection. */
  private readonly troubles = new Map<string, SyncTrouble>();
  private readonly cleanups: (() => void)[] = [];
  /** Documents being written here now, and how many writes each has had: see `settleUnchanged`. */
  private readonly writing = new Set<string>();
  private readonly writes = new Map<string, number>();
  private settling?: ReturnType<typeof setTimeout>;
  /** Remembers now every `syncedAtEveryMs` while in sync (`keepSyncedAt`). */
  private keepingSyncedAt?: ReturnType<typeof setInterval>;
  private ended = false;

  private constructor(
    readonly db: OrbitaDatabase,
    readonly socket: Socket,
    readonly sync: ReplicaSync,
    private readonly userId: string,
    private readonly memory: Memory | undefined,
    private readonly syncedAtEveryMs = SYNCED_AT_EVERY_MS,
  ) {
    this.pending = new Set(this.recall<string[]>('pending', []));
    this.lost$ = new BehaviorSubject(this.recall<LostEdit[]>('lost', []));
    this.status$ = new BehaviorSubject<ReplicaStatus>({
      online: socket.connected,
      connecting: false,
      ready: false,
      pending: this.pending.size,
      pendingIds: new Set(this.pending),
      signedOut: false,
      syncedAt: this.recall<number | undefined>('syncedAt', undefined),
    });
  }

  /** The name of `userId`'s copy: its database (RxDB's), its file on the desktop. */
  static databaseName(userId: string): string {
    return `orbita-${userId.toLowerCase()}`;
  }

  /**
   * Deletes the copy of `userId`'s data that no one has open (another tab held it): every
   * collection's documents and the replication's data, and what is remembered beside them.
   */
  static async removeCopy(options: { userId: string; storage: RxStorage<unknown, unknown>; memory?: Memory }) {
    await removeRxDatabase(Replica.databaseName(options.userId), options.storage, false);
    Replica.forget(options.userId, options.memory);
  }

  /**
   * Deletes `userId`'s copy that cannot be opened (a damaged file, a database the browser cannot
   * read), without opening it, as `removeCopy` would: `discard` deletes the copy's storage by its
   * database name, and what is remembered beside the copy goes with it (its changes not yet sent
   * are lost).
   */
  static async discardCopy(options: {
    userId: string;
    discard: (databaseName: string) => Promise<void>;
    memory?: Memory;
  }): Promise<void> {
    await options.discard(Replica.databaseName(options.userId));
    Replica.forget(options.userId, options.memory);
  }

  /** What is remembered beside `userId`'s copy, once the copy is gone: its keys, its entry in the list. */
  private static forget(userId: string, memory: Memory | undefined): void {
    if (!memory) return;
    for (const name of REMEMBERED) memory.remove?.(Replica.memoryKey(userId, name));
    forgetCopy(memory, userId);
  }

  /** How many changes wait to be sent in `userId`'s copy, as remembered (by whichever tab holds it). */
  static pendingCount(userId: string, memory: Memory): number {
    try {
      const ids: unknown = JSON.parse(memory.get(Replica.memoryKey(userId, 'pending')) ?? '[]');
      return Array.isArray(ids) ? ids.length : 0;
    } catch {
      return 0;
    }
  }

  static async open(options: OpenReplicaOptions): Promise<Replica> {
    const db = await createOrbitaDatabase({
      name: Replica.databaseName(options.userId),
      storage: options.storage,
      onUpgrade: options.onUpgrade,
    });
    // The token the server last received (at the handshake, or with `sync:auth`).
    let presented: string | undefined;
    const socket = io(`${options.serverUrl ?? ''}/sync`, {
      // Read at every (re)connect, so a refreshed token is used.
      auth: (send) => {
        presented = options.accessToken();
        send({ token: presented });
      },
      transports: ['websocket'],
      autoConnect: false,
    });
    let replica: Replica | undefined;
    const sync = startReplicaSync(db, socket, {
      onLostEdits: (lost) => replica?.remember(lost),
      onPushed: (_collection, ids) => replica?.pushed(ids),
      onSending: (_collection, ids) => replica?.sending(ids),
      onSyncProblem: (collection, direction, problem) => replica?.troubled(`${direction} ${collection}`, problem),
      onSignedOut: () => replica?.update({ signedOut: true, online: false }),
      onDeactivated: options.onDeactivated,
      reauthenticate: async () => {
        const token = await options.reauthenticate(presented);
        if (token) presented = token;
        return token;
      },
      // Once per replica: a document marked or recorded since keeps its mark or its record.
      markUnrecordedPulls: !options.memory?.get(Replica.memoryKey(options.userId, 'pullsMarked')),
      keepSentStates: (collection) => Replica.keptPerCollection(options.userId, 'sent', collection, options.memory),
      keepSetAside: (collection) => Replica.keptPerCollection(options.userId, 'setAside', collection, options.memory),
      keepAnswers: (collection) => Replica.keptPerCollection(options.userId, 'answers', collection, options.memory),
    });
    replica = new Replica(db, socket, sync, options.userId, options.memory, options.syncedAtEveryMs);
    const opened = replica;
    void sync.unrecordedPullsMarked?.then((ids) => {
      if (ids && !opened.ended) opened.keep('pullsMarked', true);
    });
    replica.watch(options.window);
    // Changes counted in an earlier session may have nothing left to send.
    if (replica.pending.size > 0) replica.settleSoon(SETTLE_AFTER_WRITE_MS);
    if (!options.window || options.window.navigator.onLine) {
      replica.update({ connecting: true });
      socket.connect();
    }
    return replica;
  }

  private watch(window: OpenReplicaOptions['window']): void {
    const { socket } = this;
    const connected = () => this.update({ online: true, connecting: false });
    const disconnected = () => this.update({ online: false, connecting: false });
    // A first attempt that fails says "offline"; until then the app does not claim it.
    const failed = () => this.update({ connecting: false });
    socket.on('connect', connected);
    socket.on('disconnect', disconnected);
    socket.on('connect_error', failed);
    this.cleanups.push(() => {
      socket.off('connect', connected);
      socket.off('disconnect', disconnected);
      socket.off('connect_error', failed);
    });
    if (window) {
      // The browser knows at once when the network goes; the socket's heartbeat would take a minute.
      // A socket still connecting says nothing when disconnected: the status is set here.
      const offline = () => {
        socket.disconnect();
        this.update({ online: false, connecting: false });
      };
      const online = () => socket.connect();
      window.addEventListener('offline', offline);
      window.addEventListener('online', online);
      this.cleanups.push(() => {
        window.removeEventListener('offline', offline);
        window.removeEventListener('online', online);
      });
    }
    void this.sync.awaitInitial().then(
      () => this.update({ ready: true }),
      () => undefined,
    );
  }

  private update(change: Partial<ReplicaStatus>): void {
    const before = this.status$.value;
    const next = { ...before, ...change };
    // Leaving the synced state (connected after a completed pull): that moment is what the data
    // shown from now on is as of.
    if (insync(before) && !insync(next)) next.syncedAt = this.keepSyncedAt();
    this.keepSyncedAtWhileInSync(insync(next));
    this.status$.next(next);
  }

  /** Starts or stops remembering now while in sync (an app killed then never leaves it in order). */
  private keepSyncedAtWhileInSync(inSync: boolean): void {
    if (inSync && !this.keepingSyncedAt && !this.ended) {
      this.keepingSyncedAt = setInterval(() => this.keepSyncedAt(), this.syncedAtEveryMs);
    } else if (!inSync && this.keepingSyncedAt) {
      clearInterval(this.keepingSyncedAt);
      this.keepingSyncedAt = undefined;
    }
  }

  /** Now, remembered as the last moment this device held everything the server had. */
  private keepSyncedAt(): number {
    const now = Date.now();
    this.keep('syncedAt', now);
    return now;
  }

  /**
   * What a collection's replication kept on the device with the replica's other remembered values
   * in earlier releases, under `name` beside the other collections': what its pushes not answered
   * yet sent (`sent`), the server states it set aside for the user's changes (`setAside`) and the
   * answers it was taking into the replica (`answers`). The replication now keeps them with its
   * records in the replica (`KeptRecord`: the window's local storage reaches the disk seconds after
   * a write, so an app killed meanwhile kept the records and lost these); what is found here is
   * taken once when it starts, then cleared.
   */
  private static keptPerCollection<T extends Record<string, unknown>>(
    userId: string,
    name: 'sent' | 'setAside' | 'answers',
    collection: string,
    memory: Memory | undefined,
  ): KeptOnDevice<T> | undefined {
    if (!memory) return undefined;
    const key = Replica.memoryKey(userId, name);
    const all = (): Record<string, T> => {
      try {
        return JSON.parse(memory.get(key) ?? '{}') as Record<string, T>;
      } catch {
        return {};
      }
    };
    return {
      load: () => all()[collection] ?? ({} as T),
      save: (value: T) => {
        const kept = { ...all(), [collection]: value };
        if (Object.keys(value).length === 0) delete kept[collection];
        try {
          if (Object.keys(kept).length > 0) memory.set(key, JSON.stringify(kept));
          else if (memory.remove) memory.remove(key);
          else memory.set(key, '{}');
        } catch (error) {
          // A full store: this session still holds them, only a restart would not.
          console.warn(`The replica could not remember its ${name} states on this device:`, error);
        }
      },
    };
  }

  private static memoryKey(userId: string, name: (typeof REMEMBERED)[number]): string {
    return `orbita.replica.${userId}.${name}`;
  }

  private recall<T>(name: (typeof REMEMBERED)[number], fallback: T): T {
    try {
      const raw = this.memory?.get(Replica.memoryKey(this.userId, name));
      return raw ? (JSON.parse(raw) as T) : fallback;
    } catch {
      return fallback;
    }
  }

  private keep(name: (typeof REMEMBERED)[number], value: unknown): void {
    try {
      this.memory?.set(Replica.memoryKey(this.userId, name), JSON.stringify(value));
    } catch (error) {
      // A full store (the browser's quota) must not fail the sync that reported it: this session
      // still holds the value, only a restart would not.
      console.warn(`The replica could not remember its ${name} on this device:`, error);
    }
  }

  private savePending(): void {
    this.keep('pending', [...this.pending]);
    this.update({ pending: this.pending.size, pendingIds: new Set(this.pending) });
  }

  /**
   * Records how the last pull or push of a collection went (`key`: direction and collection); the
   * status says the first reason of each direction still standing.
   */
  private troubled(key: string, problem: SyncTrouble | undefined): void {
    if (problem) this.troubles.set(key, problem);
    else if (!this.troubles.delete(key)) return;
    const first = (direction: SyncDirection) =>
      [...this.troubles].find(([where]) => where.startsWith(`${direction} `))?.[1];
    const change = { sendFailure: first('send'), receiveFailure: first('receive') };
    const { sendFailure, receiveFailure } = this.status$.value;
    if (change.sendFailure !== sendFailure || change.receiveFailure !== receiveFailure) this.update(change);
  }

  private pushed(ids: string[]): void {
    for (const id of ids) this.pending.delete(id);
    this.savePending();
    this.pushed$.next(ids);
  }

  /**
   * Counts the documents a push is about to send: the count kept in this device's memory may have
   * missed them (an app killed before the window saved it), and the offline banner, the "Not sent
   * yet" tags and the sign-out dialog would say nothing waits while changes do.
   */
  private sending(ids: string[]): void {
    const unseen = ids.filter((id) => !this.pending.has(id));
    if (unseen.length === 0) return;
    for (const id of unseen) this.pending.add(id);
    this.savePending();
  }

  private remember(lost: LostEdit[]): void {
    // One entry per record and value, the latest: a value edited offline and lost again (or a push
    // sent again) replaces the earlier entry, which no longer says what the user last tried.
    const newer = new Set(lost.map((edit) => `${edit.id} ${edit.path}`));
    const kept = this.lost$.value.filter((edit) => !newer.has(`${edit.id} ${edit.path}`));
    const next = [...kept, ...lost].slice(-MAX_LOST);
    this.keep('lost', next);
    this.lost$.next(next);
  }

  /**
   * Forgets every lost edit (the user has seen the notice), here and in the replications' records,
   * which keep them for an app ended before this device's memory had them.
   */
  dismissAllLost(): void {
    this.keep('lost', []);
    this.lost$.next([]);
    this.sync.forgetLost(() => true);
  }

  /** Forgets the lost edits of one record, or only the one of its value at `path` (the user has seen them). */
  dismissLost(recordId: string, path?: string): void {
    const seen = (edit: LostEdit) => edit.id === recordId && (path === undefined || edit.path === path);
    const next = this.lost$.value.filter((edit) => !seen(edit));
    this.keep('lost', next);
    this.lost$.next(next);
    this.sync.forgetLost(seen);
  }

  /**
   * Runs a write of one document, counting it as waiting to be sent from before the write (its
   * push may follow at once); a write the replica refused is not counted.
   */
  private async tracked<T>(id: string, write: () => Promise<T>): Promise<T> {
    const already = this.pending.has(id);
    this.pending.add(id);
    this.writing.add(id);
    this.writes.set(id, (this.writes.get(id) ?? 0) + 1);
    this.savePending();
    try {
      return await write();
    } catch (error) {
      if (!already) {
        this.pending.delete(id);
        this.savePending();
      }
      throw error;
    } finally {
      this.writing.delete(id);
      this.settleSoon(SETTLE_AFTER_WRITE_MS);
    }
  }

  /** Runs `settleUnchanged` after `ms`, and again every few seconds while changes are counted. */
  private settleSoon(ms: number): void {
    if (this.settling) clearTimeout(this.settling);
    this.settling = setTimeout(() => {
      this.settling = undefined;
      void this.settleUnchanged()
        .catch(() => undefined)
        .finally(() => {
          if (this.pending.size > 0 && !this.ended) this.settleSoon(SETTLE_EVERY_MS);
        });
    }, ms);
  }

  /**
   * Stops counting documents that hold their server state again: changed and changed back before
   * RxDB sent the change (or while the app was closed), RxDB has nothing to send for them, so no
   * push answer would ever settle them. Checked while nothing is being sent, and never for a
   * document written meanwhile.
   */
  async settleUnchanged(): Promise<void> {
    const ids = [...this.pending].filter((id) => !this.writing.has(id));
    if (ids.length === 0) return;
    const seen = new Map(ids.map((id) => [id, this.writes.get(id) ?? 0]));
    const unchanged: string[] = [];
    for (const name of WRITABLE) {
      const internal = this.sync.states[name]?.internalReplicationState;
      if (!internal || internal.events.active.up.getValue()) return;
      const collection = this.db[name];
      if (!collection) continue;
      const [held, known] = await Promise.all([
        collection.storageInstance.findDocumentsById(ids, true),
        getAssumedMasterState(internal as never, ids),
      ]);
      for (const doc of held as Record<string, unknown>[]) {
        const id = String(doc.id);
        const server = (known as Record<string, { docData: Record<string, unknown> }>)[id]?.docData;
        if (!server) continue;
        const { _meta, _rev, _attachments, ...state } = doc;
        const { _attachments: _serverAttachments, ...serverState } = server;
        if (deepEqual(state, serverState)) unchanged.push(id);
      }
    }
    const settled = unchanged.filter((id) => !this.writing.has(id) && (this.writes.get(id) ?? 0) === seen.get(id));
    if (settled.length === 0) return;
    for (const id of settled) this.pending.delete(id);
    this.savePending();
  }

  /** Creates a task on this device; it reaches the server with the next push. */
  async createTask(task: Required<Pick<TaskDocument, 'id' | 'formId' | 'statusId' | 'title'>> & TaskDocument) {
    const now = new Date().toISOString();
    await this.tracked(task.id, () =>
      this.db.tasks.insert({
        description: '',
        fields: {},
        labels: {},
        assignees: [],
        createdBy: this.userId,
        createdAt: now,
        updatedAt: now,
        ...task,
      }),
    );
  }

  /** Changes a task on this device (fields merge into its values); it reaches the server with the next push. */
  async changeTask(id: string, change: TaskChange) {
    const doc = await this.db.tasks.findOne(id).exec();
    if (!doc) throw new RecordGoneError(id);
    await this.tracked(id, () => doc.incrementalModify((current: TaskDocument) => changedTask(current, change)));
  }

  /** Deletes a task on this device; the deletion reaches the server with the next push. */
  async removeTask(id: string): Promise<void> {
    const doc = await this.db.tasks.findOne(id).exec();
    if (!doc) throw new RecordGoneError(id);
    await this.tracked(id, () => doc.incrementalModify(removedRecord));
  }

  /**
   * Takes back a deletion made on this device (an undo; `writeBackDeleted`): it reaches the
   * server with the next push, which brings the task back there if the deletion had reached it.
   */
  async restoreTask(deleted: TaskDocument): Promise<boolean> {
    return this.tracked(deleted.id, () => writeBackDeleted(this.db.tasks, deleted));
  }

  /** Creates a directory row on this device (last among its siblings); it reaches the server with the next push. */
  async createRow(row: Omit<RowDocument, 'updatedAt'>): Promise<RowDocument> {
    const doc = await this.tracked(row.id, () =>
      this.db.directory_rows.insert({ ...row, updatedAt: new Date().toISOString() }),
    );
    return doc.toJSON() as unknown as RowDocument;
  }

  /**
   * A directory's rows on this device: those the replica holds, and those of `shown` (the rows the
   * server last showed of it) that the replica has not received yet — it neither holds them nor
   * has them deleted (here, or by a pulled deletion) — so rows on the screen do not vanish when
   * the view reads the replica instead of the server. Editing such a row takes it in as shown.
   */
  async directoryRows<T extends { id: string }>(
    directoryId: string,
    shown: readonly T[] = [],
  ): Promise<(RowDocument | T)[]> {
    const collection = this.db.directory_rows;
    const held = (await collection.find({ selector: { directoryId } }).exec()).map(
      (doc) => doc.toJSON() as unknown as RowDocument,
    );
    const heldIds = new Set(held.map((row) => row.id));
    const missing = shown.filter((row) => !heldIds.has(row.id));
    if (missing.length === 0) return held;
    // Looked up with deletions: a row received since the read above is taken as the replica has it.
    const known = new Map(
      (
        (await collection.storageInstance.findDocumentsById(
          missing.map((row) => row.id),
          true,
        )) as unknown as (RowDocument & { _deleted: boolean })[]
      ).map((doc) => [doc.id, doc]),
    );
    const rows: (RowDocument | T)[] = [...held];
    for (const row of missing) {
      const doc = known.get(row.id);
      if (!doc) rows.push(row);
      else if (!doc._deleted && doc.directoryId === directoryId) {
        const { _deleted, _meta, _rev, _attachments, ...state } = doc as unknown as Record<string, unknown>;
        rows.push(state as unknown as RowDocument);
      }
    }
    return rows;
  }

  /**
   * Changes a directory row on this device (cells, bindings, parent and order); pushed when online.
   * Its `updatedAt` stays the server's: it names the version the edit was made from.
   */
  async changeRow(id: string, change: RowChange, shown?: RowDocument): Promise<RowDocument> {
    const doc = await this.db.directory_rows.findOne(id).exec();
    if (!doc) {
      const taken = await this.takeShownRow(id, shown, change);
      return taken.toJSON() as unknown as RowDocument;
    }
    return this.tracked(id, async () => {
      const changed = await doc.incrementalModify((current: RowDocument) => changedRow(current, change));
      return changed.toJSON() as unknown as RowDocument;
    });
  }

  /**
   * A row the screen has from the server that has not reached the replica yet (its pull is behind
   * the server's reads, as while a long transaction holds the sync horizon back), taken in as shown
   * with `change` applied, so an edit made offline is kept. The replica holds no server state for
   * it: the push sends none, and the server merges the edit against the version the row names
   * (`updatedAt`, the server's), or reports it lost when the row changed there meanwhile.
   */
  private async takeShownRow(
    id: string,
    shown: RowDocument | undefined,
    change: RowChange = {},
  ): Promise<RxDocument<RowDocument>> {
    if (!shown || shown.id !== id) throw new Error(`Row ${id} is not in the replica`);
    const { directoryId, parentId, position, cells, parentRowIds, updatedAt } = shown;
    const row = changedRow({ id, directoryId, parentId, position, cells, parentRowIds, updatedAt }, change);
    return this.tracked(id, () => this.db.directory_rows.insert(row)) as Promise<RxDocument<RowDocument>>;
  }

  /**
   * Deletes a directory row on this device; its children move up into its place, as the server
   * does (their moves are pushed too). Answers where each child was, for `restoreRow`.
   */
  async removeRow(id: string, shown?: RowDocument): Promise<MovedUpRow[]> {
    const doc = (await this.db.directory_rows.findOne(id).exec()) ?? (await this.takeShownRow(id, shown));
    const row = doc.toJSON() as unknown as RowDocument;
    const children = (await this.db.directory_rows.find({ selector: { parentId: id } }).exec()).sort(
      (a, b) => (a.toJSON().position ?? 0) - (b.toJSON().position ?? 0),
    );
    const movedUp = children.map((child) => ({ id: child.primary, parentId: id, position: child.toJSON().position }));
    // In the deleted row's place, in their order: strictly between its neighbours' positions. Each
    // write counts as waiting on its own: one refused halfway leaves only what was written counted
    // (trying the deletion again moves the rest).
    for (const [index, child] of children.entries()) {
      await this.tracked(child.primary, () =>
        child.incrementalPatch({
          parentId: row.parentId,
          position: row.position - 0.5 + (index + 1) / (children.length + 1),
        }),
      );
    }
    await this.tracked(id, () => doc.incrementalModify(removedRecord));
    return movedUp;
  }

  /**
   * Takes back a row's deletion made on this device (an undo, as `restoreTask`): the row is written
   * back as it was, and the children its deletion moved up go back under it, in their order — those
   * still where the deletion left them (one moved elsewhere since stays). The next push sends it
   * all; a deletion that had reached the server is undone there too, children and all.
   */
  async restoreRow(deleted: RowDocument, movedUp: readonly MovedUpRow[] = []): Promise<boolean> {
    if (!(await this.tracked(deleted.id, () => writeBackDeleted(this.db.directory_rows, deleted)))) return false;
    const children = await this.db.directory_rows.findByIds(movedUp.map((child) => child.id)).exec();
    for (const child of movedUp) {
      const doc = children.get(child.id);
      if (!doc || doc.toJSON().parentId !== deleted.parentId) continue;
      await this.tracked(child.id, () =>
        doc.incrementalModify((current: RowDocument) =>
          current.parentId === deleted.parentId
            ? { ...current, parentId: child.parentId, position: child.position }
            : current,
        ),
      );
    }
    return true;
  }

  /**
   * The replica's storage is gone (the replica process died): the socket and the replication stop
   * at once, so nothing more is asked of the dead storage; `close()` still follows.
   */
  abandon(): void {
    this.socket.disconnect();
    this.sync.abandon();
  }

  /** Stops replicating and closes the database; each step runs even when one before it failed. */
  async close(): Promise<void> {
    await this.end(() => this.db.close());
  }

  /**
   * Stops replicating and deletes this device's copy: every collection's documents (the desktop
   * replica's SQLite file, the browser's IndexedDB databases) and what is remembered beside them.
   * Changes not yet sent are discarded with it.
   */
  async remove(): Promise<void> {
    await this.end(async () => {
      await this.db.remove();
      Replica.forget(this.userId, this.memory);
    });
  }

  private async end(finish: () => Promise<unknown>): Promise<void> {
    this.ended = true;
    if (insync(this.status$.value)) this.keepSyncedAt();
    if (this.keepingSyncedAt) clearInterval(this.keepingSyncedAt);
    if (this.settling) clearTimeout(this.settling);
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    const cancelled = await this.sync.cancel().then(
      () => undefined,
      (error: unknown) => error,
    );
    this.socket.close();
    await finish();
    if (cancelled) throw cancelled;
  }
}
