import { type CellChanges, withCellChanges } from '@shared/api/directories';
import type { RxDocument } from 'rxdb';
import type { OrbitaDatabase } from '../database';
import { RecordGoneError } from '../replica-errors';
import type { RowDocument } from '../schemas';
import { removedRecord, writeBackDeleted } from './deleted-records';
import type { PendingChanges } from './pending-changes';

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

/** Reads and writes directory rows on this device, each write counted as a pending push. */
export class DirectoryRowWriter {
  constructor(
    private readonly db: OrbitaDatabase,
    private readonly pending: PendingChanges,
  ) {}

  /** Creates a directory row on this device (last among its siblings); it reaches the server with the next push. */
  async createRow(row: Omit<RowDocument, 'updatedAt'>): Promise<RowDocument> {
    const doc = await this.pending.track(row.id, () =>
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
    return this.pending.track(id, async () => {
      const changed = await doc.incrementalModify((current: RowDocument) => changedRow(current, change));
      return changed.toJSON() as unknown as RowDocument;
    });
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
    // write counts as waiting on its own: one refused halfway leaves only what was written counted.
    for (const [index, child] of children.entries()) {
      await this.pending.track(child.primary, () =>
        child.incrementalPatch({
          parentId: row.parentId,
          position: row.position - 0.5 + (index + 1) / (children.length + 1),
        }),
      );
    }
    await this.pending.track(id, () => doc.incrementalModify(removedRecord));
    return movedUp;
  }

  /**
   * Takes back a row's deletion made on this device (an undo, as `restoreTask`): the row is written
   * back as it was, and the children its deletion moved up go back under it, in their order — those
   * still where the deletion left them (one moved elsewhere since stays). The next push sends it
   * all; a deletion that had reached the server is undone there too, children and all.
   */
  async restoreRow(deleted: RowDocument, movedUp: readonly MovedUpRow[] = []): Promise<boolean> {
    const restored = await this.pending.track(deleted.id, () => writeBackDeleted(this.db.directory_rows, deleted));
    if (!restored) return false;
    const children = await this.db.directory_rows.findByIds(movedUp.map((child) => child.id)).exec();
    for (const child of movedUp) {
      const doc = children.get(child.id);
      if (!doc || doc.toJSON().parentId !== deleted.parentId) continue;
      await this.pending.track(child.id, () =>
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
    return this.pending.track(id, () => this.db.directory_rows.insert(row)) as Promise<RxDocument<RowDocument>>;
  }
}
