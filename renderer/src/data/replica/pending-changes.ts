import { deepEqual, getAssumedMasterState } from 'rxdb';
import type { OrbitaDatabase, ReplicaSync } from '../database';
import { WRITABLE } from '../schemas';
import type { RememberedValues } from './memory';
import type { SyncStatus } from './status';

/** When a write's document is checked for holding its server state again, and how often after. */
export const SETTLE_AFTER_WRITE_MS = 500;
const SETTLE_EVERY_MS = 3_000;

/** The documents a replica counts as waiting to be sent, and those it is writing now. */
interface PendingBookkeeping {
  /** Tasks and directory rows changed on this device and not yet accepted by the server. */
  readonly ids: Set<string>;
  /** Documents being written here now, and how many writes each has had: see `settleUnchanged`. */
  readonly writing: Set<string>;
  readonly writes: Map<string, number>;
  /** The next `settleUnchanged`, when one is due. */
  settling?: ReturnType<typeof setTimeout>;
  /** The replica was closed: `settleUnchanged` is not scheduled again. */
  ended: boolean;
}

/**
 * The pending pushes of a replica: tasks and directory rows changed on this device and not yet
 * accepted by the server, remembered across restarts and shown in the status.
 */
export class PendingChanges {
  private readonly bookkeeping: PendingBookkeeping;

  constructor(
    ids: Iterable<string>,
    private readonly db: OrbitaDatabase,
    private readonly sync: ReplicaSync,
    private readonly remembered: RememberedValues,
    private readonly status: SyncStatus,
  ) {
    this.bookkeeping = { ids: new Set(ids), writing: new Set(), writes: new Map(), ended: false };
  }

  get size(): number {
    return this.bookkeeping.ids.size;
  }

  /**
   * Runs a write of one document, counting it as waiting to be sent from before the write (its
   * push may follow at once); a write the replica refused is not counted.
   */
  async track<T>(id: string, write: () => Promise<T>): Promise<T> {
    const { ids, writing, writes } = this.bookkeeping;
    const already = ids.has(id);
    ids.add(id);
    writing.add(id);
    writes.set(id, (writes.get(id) ?? 0) + 1);
    this.save();
    try {
      return await write();
    } catch (error) {
      if (!already) {
        ids.delete(id);
        this.save();
      }
      throw error;
    } finally {
      writing.delete(id);
      this.settleSoon(SETTLE_AFTER_WRITE_MS);
    }
  }

  /** The server answered the push of `ids`: they no longer wait. */
  accepted(ids: string[]): void {
    for (const id of ids) this.bookkeeping.ids.delete(id);
    this.save();
  }

  /**
   * Counts the documents a push is about to send: the count kept in this device's memory may have
   * missed them (an app killed before the window saved it), and the offline banner, the "Not sent
   * yet" tags and the sign-out dialog would say nothing waits while changes do.
   */
  sending(ids: string[]): void {
    const unseen = ids.filter((id) => !this.bookkeeping.ids.has(id));
    if (unseen.length === 0) return;
    for (const id of unseen) this.bookkeeping.ids.add(id);
    this.save();
  }

  /** Runs `settleUnchanged` after `ms`, and again every few seconds while changes are counted. */
  settleSoon(ms: number): void {
    const { bookkeeping } = this;
    if (bookkeeping.settling) clearTimeout(bookkeeping.settling);
    bookkeeping.settling = setTimeout(() => {
      bookkeeping.settling = undefined;
      void this.settleUnchanged()
        .catch(() => undefined)
        .finally(() => {
          if (bookkeeping.ids.size > 0 && !bookkeeping.ended) this.settleSoon(SETTLE_EVERY_MS);
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
    const { writing, writes } = this.bookkeeping;
    const ids = [...this.bookkeeping.ids].filter((id) => !writing.has(id));
    if (ids.length === 0) return;
    const seen = new Map(ids.map((id) => [id, writes.get(id) ?? 0]));
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
    const settled = unchanged.filter((id) => !writing.has(id) && (writes.get(id) ?? 0) === seen.get(id));
    if (settled.length === 0) return;
    for (const id of settled) this.bookkeeping.ids.delete(id);
    this.save();
  }

  /** The replica is closing: no more settling is scheduled. */
  end(): void {
    this.bookkeeping.ended = true;
    if (this.bookkeeping.settling) clearTimeout(this.bookkeeping.settling);
  }

  private save(): void {
    const { ids } = this.bookkeeping;
    this.remembered.keep('pending', [...ids]);
    this.status.update({ pending: ids.size, pendingIds: new Set(ids) });
  }
}
