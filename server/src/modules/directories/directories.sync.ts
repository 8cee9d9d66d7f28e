import type { GoneRecord, LostEdit, SyncDocument } from '@shared/sync';
import { z } from 'zod';
import type { AuthContext } from '../../platform/auth/auth-context';
import { defineSyncCollection, presentEach } from '../../platform/sync/sync-collection';
import {
  clientChanges,
  clientWins,
  createdOrMerged,
  keptValuesWithoutBase,
  keptWithoutBase,
  knownBase,
  lostWithRecord,
  refusedAsLost,
  refusedValuesAsLost,
  type SyncSource,
  sameValue,
  withValuesLeftOut,
} from '../../platform/sync/sync-source';
import { presentDirectory, presentRow } from './directories.presenter';
import type { RowRecord } from './directories.repo';
import * as repo from './directories.repo';
import type { DirectoriesDeps } from './directories.service';
import { createRow, deleteRow, moveRow, restoreDeletedRow, updateRow } from './rows.service';

type Cell = string | number | boolean | null;

/** Directories, read-only on replicas. */
export const directoriesSyncSource: SyncSource = defineSyncCollection({
  collection: 'directories',
  pull: {
    changes: (db, auth, checkpoint, limit) => repo.directoryChanges(db, auth.organizationId, checkpoint, limit),
    present: (_db, _auth, rows) => presentEach(rows, presentDirectory),
  },
});

type RowState = Pick<SyncDocument, 'id'> & Record<string, unknown>;

/** What a pushed live row must look like before any service sees it. */
const PushedRow = z.object({
  directoryId: z.uuid(),
  parentId: z.uuid().nullable().optional(),
  position: z.number().finite().optional(),
  cells: z
    .array(z.union([z.string(), z.number(), z.boolean(), z.null()]))
    .max(100)
    .optional(),
  parentRowIds: z.array(z.uuid()).max(10_000).optional(),
});

/** A row as replicas hold it: the REST row with its directory. */
function rowDocument(row: RowRecord): SyncDocument {
  return { ...presentRow(row), directoryId: row.directory_id, _deleted: false };
}

/** A row as an edit pushed for it has it, named by its label, to name it once it is not on the server. */
async function rowRecord(deps: DirectoriesDeps, auth: AuthContext, document: RowState): Promise<GoneRecord> {
  const directoryId = String(document.directoryId);
  const directory = await repo.findDirectory(deps.db, auth.organizationId, directoryId);
  const cells = (document.cells as Cell[]) ?? [];
  const label = cells[directory?.tree_display_column_index ?? 0] ?? cells.find((cell) => cell !== null) ?? '';
  return { name: String(label), directoryId };
}

/** The values of a row document that a replica edits (the rest are the server's). */
const ROW_VALUES = ['cells', 'parentId', 'position', 'parentRowIds'] as const;

/** A row document's values as a replica edits them, by lost-edit path. */
function rowValues(document: object): Map<string, unknown> {
  const doc = document as Record<string, unknown>;
  const values = new Map<string, unknown>(((doc.cells as Cell[]) ?? []).map((cell, index) => [`cells.${index}`, cell]));
  values.set('parentRowIds', doc.parentRowIds);
  values.set('parentId', doc.parentId);
  return values;
}

async function currentRow(deps: DirectoriesDeps, auth: AuthContext, id: string): Promise<SyncDocument | undefined> {
  const [row] = await repo.findRows(deps.db, auth.organizationId, [id]);
  return row && !row.deleted_at ? rowDocument(row) : undefined;
}

/**
 * Three-way merge of a row edited offline, like tasks: each cell the client changed and the
 * server did not takes the client's value, a cell changed on both sides keeps the server's and is
 * reported lost; a move is applied when the server did not move the row meanwhile (cycles and
 * other directories are refused as on REST); a deletion of a row changed on the server is refused.
 */
async function pushRow(
  deps: DirectoriesDeps,
  auth: AuthContext,
  pushedBase: RowState | null,
  pushed: RowState,
  lost: LostEdit[],
  beforePush: SyncDocument | undefined,
): Promise<void> {
  const id = pushed.id;
  // Held until the push of this row commits (`appliedTogether`): its directory's tree first, as
  // moves and deletions take it, then the row.
  const [stored] = await repo.findRows(deps.db, auth.organizationId, [id]);
  await repo.lockRowTree(deps.db, stored?.directory_id ?? String(pushed.directoryId));
  await repo.lockRow(deps.db, auth.organizationId, id);
  const current = await currentRow(deps, auth, id);
  const next = withValuesLeftOut(pushed, pushedBase ?? current, ROW_VALUES);
  if (!current) {
    if (next._deleted) return; // deleted on both sides
    // A row made and deleted on the device before it was sent, then taken back (an undo): its
    // deletion was pushed as a tombstone the server had nothing for, so it is made now, as sent.
    if (pushedBase !== null && (stored || !pushedBase._deleted)) {
      // An undo of a deletion (the base is a tombstone): the row comes back with the children its
      // deletion moved up, then the user's values merge onto it.
      if (pushedBase._deleted && stored?.deleted_at) {
        let restored = false;
        const before = lost.length;
        await refusedAsLost(
          lost,
          { id, path: '_deleted', attempted: false, kept: true, record: await rowRecord(deps, auth, next) },
          async () => {
            restored = await restoreDeletedRow(deps, auth, stored.directory_id, id);
          },
        );
        const back = restored ? await currentRow(deps, auth, id) : undefined;
        if (back) {
          const base: RowState = Array.isArray(pushedBase.cells)
            ? { ...pushedBase, _deleted: false }
            : { ...back, parentId: next.parentId, position: next.position };
          return pushRow(deps, auth, base, pushed, lost, back);
        }
        if (lost.length > before) return;
      }
      // Deleted on the server meanwhile (or its directory is): the server wins, and the user is
      // told what they changed, the row named by its label as the edit had it.
      const record = await rowRecord(deps, auth, next);
      return lostWithRecord(lost, id, record, { base: rowValues(pushedBase), next: rowValues(next) });
    }
    const directoryId = String(next.directoryId);
    const parentId = typeof next.parentId === 'string' ? next.parentId : null;
    const order = typeof next.position === 'number' ? next.position : undefined;
    return createdOrMerged(
      async () => {
        await createRow(deps, auth, directoryId, {
          id,
          parentId,
          position:
            order === undefined
              ? undefined
              : await repo.countSiblingsBefore(deps.db, auth.organizationId, directoryId, parentId, id, order),
          cells: (next.cells as Cell[]) ?? [],
          parentRowIds: (next.parentRowIds as string[]) ?? [],
        });
      },
      async () => (await currentRow(deps, auth, id)) !== undefined,
      () => pushRow(deps, auth, pushedBase, pushed, lost, undefined),
    );
  }
  // The version a row without a base names is looked up as the server held it when the push began:
  // an earlier row of the same push (a sibling deleted or moved) renumbers the row, a new version
  // that is this replica's own doing, not a change made elsewhere meanwhile.
  const base = knownBase(pushedBase, beforePush ?? current, next);
  if (base === null) {
    if (next._deleted) return keptWithoutBase(lost, { id, path: '_deleted' }, { current: false, next: true });
    keptValuesWithoutBase(lost, id, { current: rowValues(current), next: rowValues(next) });
    return;
  }
  const directoryId = String(current.directoryId);
  if (next._deleted && !base._deleted) {
    const changed = ['cells', 'parentId', 'parentRowIds'].some((key) => !sameValue(current[key], base[key]));
    if (changed) lost.push({ id, path: '_deleted', attempted: true, kept: false, reason: 'changed_on_server' });
    else await deleteRow(deps, auth, directoryId, id);
    return;
  }
  const won = clientChanges(
    lost,
    id,
    { base: rowValues(base), current: rowValues(current), next: rowValues(next) },
    (path) => path.startsWith('cells.') || path === 'parentRowIds',
  );
  const merged = [...((current.cells as Cell[]) ?? [])];
  const patch: { cells?: Cell[]; parentRowIds?: string[] } = {};
  for (const [path, value] of won) {
    if (path === 'parentRowIds') patch.parentRowIds = (value as string[] | null) ?? [];
    else {
      merged[Number(path.slice('cells.'.length))] = value as Cell;
      patch.cells = merged;
    }
  }
  if (Object.keys(patch).length > 0) {
    const currentValues = rowValues(current);
    const changed = [
      ...(patch.cells ?? [])
        .map((cell, index) => ({ path: `cells.${index}`, attempted: cell }))
        .filter(({ path, attempted }) => !sameValue(attempted, currentValues.get(path))),
      ...(patch.parentRowIds ? [{ path: 'parentRowIds', attempted: patch.parentRowIds }] : []),
    ].map((value) => ({ ...value, kept: currentValues.get(value.path) ?? null }));
    await refusedValuesAsLost(lost, id, changed, () => updateRow(deps, auth, directoryId, id, patch));
  }
  const moved = !sameValue(next.parentId, base.parentId) || !sameValue(next.position, base.position);
  if (!moved) return;
  // Moved by the server meanwhile: its place stands (lost when the parents differ).
  if (!sameValue(current.parentId, base.parentId)) {
    clientWins(lost, { id, path: 'parentId' }, { base: base.parentId, current: current.parentId, next: next.parentId });
    return;
  }
  // A replica orders a moved row between its new neighbours with a value in between (it cannot
  // renumber rows it does not own): the row goes after the siblings whose positions are lower.
  const parentId = typeof next.parentId === 'string' ? next.parentId : null;
  const order = typeof next.position === 'number' && Number.isFinite(next.position) ? next.position : 0;
  await refusedAsLost(lost, { id, path: 'parentId', attempted: next.parentId, kept: current.parentId }, async () => {
    const position = await repo.countSiblingsBefore(deps.db, auth.organizationId, directoryId, parentId, id, order);
    await moveRow(deps, auth, directoryId, id, { parentId, position });
  });
}

/** Whether a push ended as sent: both deleted, or both live with the same cells, parent and bindings. */
function sameRowState(master: SyncDocument, pushed: SyncDocument): boolean {
  if (Boolean(master._deleted) !== Boolean(pushed._deleted)) return false;
  return master._deleted || ['cells', 'parentId', 'parentRowIds'].every((key) => sameValue(master[key], pushed[key]));
}

/** Rows of directories: pulled by everyone, and written offline (cells, new rows, moves, deletions). */
export function directoryRowsSyncSource(deps: DirectoriesDeps): SyncSource {
  return defineSyncCollection({
    collection: 'directory_rows',
    pull: {
      changes: (db, auth, checkpoint, limit) => repo.rowChanges(db, auth.organizationId, checkpoint, limit),
      present: (_db, _auth, rows) => new Map(rows.map((row) => [row.id, rowDocument(row)])),
    },
    push: {
      deps,
      shape: PushedRow,
      noun: 'row',
      values: rowValues,
      record: (held, auth, document) => rowRecord(held, auth, document),
      master: async (held, auth, id) => (await currentRow(held, auth, id)) ?? { id, _deleted: true },
      // The rows as the server held them when the push began (see `pushRow`).
      prepare: async (held, auth, ids) =>
        new Map(
          (await repo.findRows(held.db, auth.organizationId, ids))
            .filter((record) => !record.deleted_at)
            .map((record) => [record.id, rowDocument(record)]),
        ),
      apply: (held, auth, { base, next, lost }, beforePush) =>
        pushRow(held, auth, base, next, lost, beforePush.get(next.id)),
      sameState: sameRowState,
    },
  });
}
