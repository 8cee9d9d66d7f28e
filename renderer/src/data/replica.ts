import type { LostEdit } from '@shared/sync';
import { type RxStorage, removeRxDatabase } from 'rxdb';
import { type BehaviorSubject, Subject } from 'rxjs';
import { io, type Socket } from 'socket.io-client';
import {
  createOrbitaDatabase,
  type OrbitaDatabase,
  type ReplicaSync,
  startReplicaSync,
  type UpgradeProgress,
} from './database';
import { LostEditNotices } from './replica/lost-edit-notices';
import { forgetReplica, type Memory, RememberedValues, rememberedPendingCount } from './replica/memory';
import { PendingChanges, SETTLE_AFTER_WRITE_MS } from './replica/pending-changes';
import { DirectoryRowWriter, type MovedUpRow, type RowChange } from './replica/row-writer';
import { type ReplicaStatus, SyncStatus } from './replica/status';
import { type NewTask, type TaskChange, TaskWriter } from './replica/task-writer';
import type { RowDocument, TaskDocument } from './schemas';

export { removedRecord, writeBackDeleted } from './replica/deleted-records';
export { copiesHeld, type Memory, noteCopy } from './replica/memory';
export { changedRow, type MovedUpRow, type RowChange } from './replica/row-writer';
export type { ReplicaStatus } from './replica/status';
export { changedTask, type NewTask, type TaskChange } from './replica/task-writer';

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
 * The signed-in user's offline replica: the RxDB database, its replication over `/sync`, and what
 * the interface shows about it — connection, changes waiting to be sent, and offline edits the
 * server did not keep. It opens and ends the copy; the task and directory-row writers (`tasks`,
 * `rows`) change it, their methods offered here too.
 */
export class Replica {
  readonly status$: BehaviorSubject<ReplicaStatus>;
  readonly lost$: BehaviorSubject<LostEdit[]>;
  /** Ids of tasks whose push the server has just answered (its history and audit now hold them). */
  readonly pushed$ = new Subject<string[]>();
  readonly tasks: TaskWriter;
  readonly rows: DirectoryRowWriter;
  private readonly syncStatus: SyncStatus;
  private readonly pending: PendingChanges;
  private readonly lostEdits: LostEditNotices;
  private readonly cleanups: (() => void)[] = [];
  private ended = false;

  private constructor(
    readonly db: OrbitaDatabase,
    readonly socket: Socket,
    readonly sync: ReplicaSync,
    userId: string,
    private readonly remembered: RememberedValues,
    syncedAtEveryMs: number | undefined,
  ) {
    const pendingIds = new Set(this.remembered.recall<string[]>('pending', []));
    this.lostEdits = new LostEditNotices(this.remembered, sync);
    this.lost$ = this.lostEdits.lost$;
    const initial: ReplicaStatus = {
      online: socket.connected,
      connecting: false,
      ready: false,
      pending: pendingIds.size,
      pendingIds: new Set(pendingIds),
      signedOut: false,
      syncedAt: this.remembered.recall<number | undefined>('syncedAt', undefined),
    };
    this.syncStatus = new SyncStatus(initial, this.remembered, syncedAtEveryMs);
    this.status$ = this.syncStatus.status$;
    this.pending = new PendingChanges(pendingIds, db, sync, this.remembered, this.syncStatus);
    this.tasks = new TaskWriter(db, userId, this.pending);
    this.rows = new DirectoryRowWriter(db, this.pending);
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
    forgetReplica(options.userId, options.memory);
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
    forgetReplica(options.userId, options.memory);
  }

  /** How many changes wait to be sent in `userId`'s copy, as remembered (by whichever tab holds it). */
  static pendingCount(userId: string, memory: Memory): number {
    return rememberedPendingCount(userId, memory);
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
    const remembered = new RememberedValues(options.userId, options.memory);
    let replica: Replica | undefined;
    const sync = startReplicaSync(db, socket, {
      onLostEdits: (lost) => replica?.lostEdits.remember(lost),
      onPushed: (_collection, ids) => replica?.pushed(ids),
      onSending: (_collection, ids) => replica?.pending.sending(ids),
      onSyncProblem: (collection, direction, problem) =>
        replica?.syncStatus.troubled(`${direction} ${collection}`, problem),
      onSignedOut: () => replica?.syncStatus.update({ signedOut: true, online: false }),
      onDeactivated: options.onDeactivated,
      reauthenticate: async () => {
        const token = await options.reauthenticate(presented);
        if (token) presented = token;
        return token;
      },
      // Once per replica: a document marked or recorded since keeps its mark or its record.
      markUnrecordedPulls: !remembered.has('pullsMarked'),
      keepSentStates: (collection) => remembered.keptPerCollection('sent', collection),
      keepDeferredMasterStates: (collection) => remembered.keptPerCollection('deferred', collection),
      keepAnswers: (collection) => remembered.keptPerCollection('answers', collection),
    });
    replica = new Replica(db, socket, sync, options.userId, remembered, options.syncedAtEveryMs);
    const opened = replica;
    void sync.unrecordedPullsMarked?.then((ids) => {
      if (ids && !opened.ended) opened.remembered.keep('pullsMarked', true);
    });
    replica.watch(options.window);
    // Changes counted in an earlier session may have nothing left to send.
    if (replica.pending.size > 0) replica.pending.settleSoon(SETTLE_AFTER_WRITE_MS);
    if (!options.window || options.window.navigator.onLine) {
      replica.syncStatus.update({ connecting: true });
      socket.connect();
    }
    return replica;
  }

  /** Creates a task on this device; it reaches the server with the next push. */
  createTask(task: NewTask): Promise<void> {
    return this.tasks.createTask(task);
  }

  /** Changes a task on this device (fields merge into its values); it reaches the server with the next push. */
  changeTask(id: string, change: TaskChange): Promise<void> {
    return this.tasks.changeTask(id, change);
  }

  /** Acknowledges the user's review of a task on this device (`TaskWriter.acknowledgeDelegation`). */
  acknowledgeDelegation(id: string): Promise<void> {
    return this.tasks.acknowledgeDelegation(id);
  }

  /** Deletes a task on this device; the deletion reaches the server with the next push. */
  removeTask(id: string): Promise<void> {
    return this.tasks.removeTask(id);
  }

  /** Takes back a deletion of a task made on this device (an undo: `TaskWriter.restoreTask`). */
  restoreTask(deleted: TaskDocument): Promise<boolean> {
    return this.tasks.restoreTask(deleted);
  }

  /** Creates a directory row on this device (last among its siblings); it reaches the server with the next push. */
  createRow(row: Omit<RowDocument, 'updatedAt'>): Promise<RowDocument> {
    return this.rows.createRow(row);
  }

  /** A directory's rows on this device, with those of `shown` not received yet (`DirectoryRowWriter.directoryRows`). */
  directoryRows<T extends { id: string }>(directoryId: string, shown?: readonly T[]): Promise<(RowDocument | T)[]> {
    return this.rows.directoryRows(directoryId, shown);
  }

  /** Changes a directory row on this device (cells, bindings, parent and order); pushed when online. */
  changeRow(id: string, change: RowChange, shown?: RowDocument): Promise<RowDocument> {
    return this.rows.changeRow(id, change, shown);
  }

  /** Deletes a directory row on this device, its children moved up; answers where each child was. */
  removeRow(id: string, shown?: RowDocument): Promise<MovedUpRow[]> {
    return this.rows.removeRow(id, shown);
  }

  /** Takes back a row's deletion made on this device, its children put back (`DirectoryRowWriter.restoreRow`). */
  restoreRow(deleted: RowDocument, movedUp?: readonly MovedUpRow[]): Promise<boolean> {
    return this.rows.restoreRow(deleted, movedUp);
  }

  /**
   * Writes one document of a collection the replica writes to (the map's geofences and routes), as
   * a change of the user's waiting to be sent.
   */
  trackWrite<T>(id: string, write: () => Promise<T>): Promise<T> {
    return this.pending.track(id, write);
  }

  /** Forgets every lost edit (the user has seen the notice). */
  dismissAllLost(): void {
    this.lostEdits.dismissAll();
  }

  /** Forgets the lost edits of one record, or only the one of its value at `path` (the user has seen them). */
  dismissLost(recordId: string, path?: string): void {
    this.lostEdits.dismiss(recordId, path);
  }

  /** Stops counting documents that hold their server state again (`PendingChanges.settleUnchanged`). */
  settleUnchanged(): Promise<void> {
    return this.pending.settleUnchanged();
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
      this.remembered.forget();
    });
  }

  private watch(window: OpenReplicaOptions['window']): void {
    const { socket, syncStatus } = this;
    const connected = () => syncStatus.update({ online: true, connecting: false });
    const disconnected = () => syncStatus.update({ online: false, connecting: false });
    // A first attempt that fails says "offline"; until then the app does not claim it.
    const failed = () => syncStatus.update({ connecting: false });
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
        syncStatus.update({ online: false, connecting: false });
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
      () => syncStatus.update({ ready: true }),
      () => undefined,
    );
  }

  /** The server answered a push: its documents no longer wait, and screens hear of them. */
  private pushed(ids: string[]): void {
    this.pending.accepted(ids);
    this.pushed$.next(ids);
  }

  private async end(finish: () => Promise<unknown>): Promise<void> {
    this.ended = true;
    this.syncStatus.end();
    this.pending.end();
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
