import { type Directory, directoriesApi, type Row, type TreeNodeShape } from '@shared/api/directories';
import type { ProblemFieldError } from '@shared/api/problem';
import { v7 as uuidv7 } from 'uuid';
import { ApiError, call, callForFile, onTokens } from '../../api';
import type { Replica, RowChange } from '../../data/replica';
import { activeReplica } from '../../data/replica-context';

export type { Directory, Row, TreeNodeShape };
export type Cell = string | number | boolean | null;
export type ColumnType = Directory['columns'][number]['type'];

export { failureText, saveFailureText, useLoad } from '../../use-api';

/** The per-field errors of a refused request (validation problems), else none. */
export function fieldErrors(caught: unknown): ProblemFieldError[] {
  return caught instanceof ApiError ? (caught.problem.errors ?? []) : [];
}

/** Answers from (or writes to) the offline replica when the server cannot be reached; else rethrows. */
async function orFromReplica<T>(caught: unknown, read: (replica: Replica) => Promise<T>): Promise<T> {
  const replica = activeReplica();
  if (!(caught instanceof ApiError && caught.problem.status === 0) || !replica) throw caught;
  return read(replica);
}

/** The organization's directories, by name (from the replica without the server). */
export async function fetchDirectories(): Promise<{ items: Directory[] }> {
  try {
    return await call(directoriesApi.listDirectories);
  } catch (caught) {
    return orFromReplica(caught, async (replica) => ({
      items: (await replica.db.directories.find().exec())
        .map((doc) => doc.toJSON() as unknown as Directory)
        .sort((a, b) => a.name.localeCompare(b.name)),
    }));
  }
}

/** One directory (from the replica without the server). */
export async function fetchDirectory(directoryId: string): Promise<Directory> {
  try {
    return await call(directoriesApi.getDirectory, { params: { directoryId } });
  } catch (caught) {
    return orFromReplica(caught, async (replica) => {
      const doc = await replica.db.directories.findOne(directoryId).exec();
      if (!doc) throw caught;
      return doc.toJSON() as unknown as Directory;
    });
  }
}

/** What narrows a directory's rows: a substring of any cell (`q`), rows offered under a parent row. */
export interface RowsNarrowedBy {
  q?: string;
  parentRowId?: string;
}

/**
 * A directory's rows as the server narrows them: `q` is a case-insensitive substring of any cell;
 * `parentRowId` keeps rows bound to that parent row or to none (nothing when the sub-directory is
 * not bound to it).
 */
export function narrowRows(rows: readonly Row[], query: RowsNarrowedBy, boundTo: readonly string[] = []): Row[] {
  const needle = query.q?.trim().toLocaleLowerCase();
  const under = query.parentRowId;
  if (under && boundTo.length > 0 && !boundTo.includes(under)) return [];
  return rows.filter(
    (row) =>
      (!needle || row.cells.map(cellText).join(' ').toLocaleLowerCase().includes(needle)) &&
      (!under || row.parentRowIds.length === 0 || row.parentRowIds.includes(under)),
  );
}

/**
 * Each directory's rows as the server last showed them: the replica's pull may not have brought
 * them all yet when the connection goes. Forgotten at sign-out.
 */
const shownByServer = new Map<string, Row[]>();
onTokens((tokens) => {
  if (!tokens) shownByServer.clear();
});

/**
 * Every row of a directory, page after page; `query` narrows them (`q`, `parentRowId`). Without
 * the server: the replica's rows, with those the server showed that the replica has not received.
 */
export async function fetchAllRows(directoryId: string, query: RowsNarrowedBy = {}): Promise<Row[]> {
  try {
    const rows = await fetchRowPages(directoryId, query);
    if (Object.keys(query).length === 0) shownByServer.set(directoryId, rows);
    return rows;
  } catch (caught) {
    return orFromReplica(caught, async (replica) => {
      const directory = (await replica.db.directories.findOne(directoryId).exec())?.toJSON() as unknown as
        | Directory
        | undefined;
      const rows = (await replica.directoryRows(directoryId, shownByServer.get(directoryId))) as Row[];
      return narrowRows(rows, query, directory?.parentRowIds);
    });
  }
}

async function fetchRowPages(directoryId: string, query: RowsNarrowedBy): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: Row[]; nextCursor: string | null } = await call(directoriesApi.listRows, {
      params: { directoryId },
      query: { ...query, limit: 1000, ...(cursor ? { cursor } : {}) },
    });
    rows.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return rows;
}

/**
 * Whether a row's version reaching the replica is what the view already shows (same parent, place,
 * cells and bindings; for a deletion: not shown). The replica catching up with rows the view read
 * from the server needs no new read, and a tree rebuilt for nothing loses a drag under way.
 */
export function rowChangeIsShown(
  shown: ReadonlyMap<string, Row>,
  change: { id: string; deleted: boolean; row: Omit<Row, 'updatedAt'> | undefined },
): boolean {
  const held = shown.get(change.id);
  if (change.deleted || !change.row) return !held;
  if (!held) return false;
  const { row } = change;
  return (
    held.parentId === row.parentId &&
    held.position === row.position &&
    sameList(held.cells, row.cells) &&
    sameList(held.parentRowIds, row.parentRowIds)
  );
}

function sameList(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

// ---- writes: the server, or this device's replica when the server cannot be reached ----

/** A write's result: the row as stored, and whether it waits on this device for the connection. */
export interface RowWrite {
  row: Row;
  offline: boolean;
}

/**
 * The order value that puts a row at `index` among `siblings` (the other rows of its new parent):
 * between its neighbours' values, since a replica cannot renumber rows it does not own.
 */
export function orderBetween(siblings: readonly Pick<Row, 'position'>[], index: number): number {
  const sorted = siblings.map((row) => row.position).sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  const at = Math.max(0, Math.min(index, sorted.length));
  if (at === 0) return (sorted[0] as number) - 1;
  if (at === sorted.length) return (sorted[at - 1] as number) + 1;
  return ((sorted[at - 1] as number) + (sorted[at] as number)) / 2;
}

async function siblingsInReplica(replica: Replica, directoryId: string, parentId: string | null, rowId?: string) {
  const docs = await replica.db.directory_rows.find({ selector: { directoryId } }).exec();
  return docs.map((doc) => doc.toJSON() as unknown as Row).filter((r) => r.parentId === parentId && r.id !== rowId);
}

/**
 * What the row editor saves of a row: the cells its user changed (by column index) and the
 * bindings when changed. The rest stays as the server (or the replica) holds it when the change
 * arrives, so a colleague's change of another cell made while the editor was open is kept.
 */
export type RowEdit = Pick<RowChange, 'cells' | 'parentRowIds'>;

/** Saves the changes of a row (as shown). */
export async function saveRow(directoryId: string, row: Row, edit: RowEdit): Promise<RowWrite> {
  try {
    const saved = await call(directoriesApi.updateRow, { params: { directoryId, rowId: row.id }, body: edit });
    return { row: saved, offline: false };
  } catch (caught) {
    return orFromReplica(caught, async (replica) => ({
      row: await replica.changeRow(row.id, edit, { ...row, directoryId }),
      offline: true,
    }));
  }
}

/** Adds a row, last under `parentId`. */
export async function addRow(
  directoryId: string,
  input: { cells: Cell[]; parentRowIds: string[]; parentId: string | null },
): Promise<RowWrite> {
  const { cells, parentRowIds, parentId } = input;
  try {
    return { row: await call(directoriesApi.createRow, { params: { directoryId }, body: input }), offline: false };
  } catch (caught) {
    return orFromReplica(caught, async (replica) => {
      const siblings = await siblingsInReplica(replica, directoryId, parentId);
      const created = await replica.createRow({
        id: uuidv7(),
        directoryId,
        parentId,
        position: orderBetween(siblings, siblings.length),
        cells,
        parentRowIds,
      });
      return { row: created, offline: true };
    });
  }
}

/** Moves a row (as shown) under `parentId` (null: top level) to `index` among its new siblings. */
export async function moveRow(
  directoryId: string,
  row: Row,
  parentId: string | null,
  index: number,
): Promise<{ offline: boolean }> {
  const rowId = row.id;
  try {
    await call(directoriesApi.moveRow, { params: { directoryId, rowId }, body: { parentId, position: index } });
    return { offline: false };
  } catch (caught) {
    return orFromReplica(caught, async (replica) => {
      // Checked by the server when it arrives; a refused move comes back as a lost edit.
      if (parentId && (await ancestorsInReplica(replica, parentId)).includes(rowId)) throw cycleRefused();
      const siblings = await siblingsInReplica(replica, directoryId, parentId, rowId);
      await replica.changeRow(rowId, { parentId, position: orderBetween(siblings, index) }, { ...row, directoryId });
      return { offline: true };
    });
  }
}

/** A row's deletion as made — on the server, or on this device while offline — and its undo. */
export interface RowDeletion {
  offline: boolean;
  /** Takes the deletion back (the row in its place, with its children); false: nothing left to undo. */
  restore: () => Promise<boolean>;
}

/** Deletes a row (as shown); its children move up into its place. */
export async function deleteRow(directoryId: string, row: Row): Promise<RowDeletion> {
  const shown = { ...row, directoryId };
  try {
    await call(directoriesApi.deleteRow, { params: { directoryId, rowId: row.id } });
    return {
      offline: false,
      restore: async () => {
        try {
          await call(directoriesApi.restoreRow, { params: { directoryId, rowId: row.id } });
          return true;
        } catch (caught) {
          // Offline since: written back on the device once it holds the deletion, sent when online.
          return orFromReplica(caught, async (replica) => {
            if (await replica.restoreRow(shown)) return true;
            throw caught;
          });
        }
      },
    };
  } catch (caught) {
    return orFromReplica(caught, async (replica) => {
      const movedUp = await replica.removeRow(row.id, shown);
      return { offline: true, restore: () => replica.restoreRow(shown, movedUp) };
    });
  }
}

/** The row and its ancestors, from the replica. */
async function ancestorsInReplica(replica: Replica, rowId: string): Promise<string[]> {
  const chain: string[] = [];
  for (let id: string | null = rowId; id && !chain.includes(id); ) {
    chain.push(id);
    const found: Row | undefined = (await replica.db.directory_rows.findOne(id).exec())?.toJSON() as unknown as
      | Row
      | undefined;
    id = found?.parentId ?? null;
  }
  return chain;
}

/** The server's refusal of a cycle, given on the device when the server cannot be asked. */
function cycleRefused(): ApiError {
  return new ApiError({
    type: '/api/problems/tree_cycle',
    title: 'The move would make a cycle',
    status: 409,
    detail: 'A row cannot move under itself or one of its descendants.',
    code: 'tree_cycle',
  });
}

/** The directory's rows as a CSV file (its export), fetched with the session. */
export function fetchCsvExport(directoryId: string): Promise<Blob> {
  return callForFile(directoriesApi.exportRows, { params: { directoryId } });
}

/** A cell as text for labels and lists. */
export function cellText(cell: Cell | undefined): string {
  return cell === null || cell === undefined ? '' : String(cell);
}

// ---- trees ----

export interface NodePlace {
  node: TreeNodeShape;
  parentKey: string | null;
  depth: number;
}

/** Where every node of a tree sits: its parent and depth (roots are at depth 1). */
export function placeNodes(nodes: readonly TreeNodeShape[]): Map<string, NodePlace> {
  const places = new Map<string, NodePlace>();
  const walk = (list: readonly TreeNodeShape[], parentKey: string | null, depth: number) => {
    for (const node of list) {
      places.set(node.id, { node, parentKey, depth });
      walk(node.children, node.id, depth + 1);
    }
  };
  walk(nodes, null, 1);
  return places;
}

/** Ids of a node and of every node below it. */
export function subtreeIds(node: TreeNodeShape): Set<string> {
  const ids = new Set<string>();
  const walk = (current: TreeNodeShape) => {
    ids.add(current.id);
    for (const child of current.children) walk(child);
  };
  walk(node);
  return ids;
}

/**
 * The tree as it will be after a move, for showing the move before the server confirms it.
 * Unknown rows or targets leave the tree as it is.
 */
export function moveInTree(
  nodes: readonly TreeNodeShape[],
  rowId: string,
  parentId: string | null,
  position: number,
): TreeNodeShape[] {
  let moved: TreeNodeShape | undefined;
  const without = (list: readonly TreeNodeShape[]): TreeNodeShape[] =>
    list
      .filter((node) => {
        if (node.id !== rowId) return true;
        moved = node;
        return false;
      })
      .map((node) => ({ ...node, children: without(node.children) }));
  const rest = without(nodes);
  if (!moved) return [...nodes];
  const node = moved;
  const insert = (list: TreeNodeShape[]) => {
    list.splice(Math.min(position, list.length), 0, node);
  };
  if (parentId === null) {
    insert(rest);
    return rest;
  }
  let placed = false;
  const into = (list: TreeNodeShape[]) => {
    for (const candidate of list) {
      if (candidate.id === parentId) {
        insert(candidate.children);
        placed = true;
        return;
      }
      into(candidate.children);
      if (placed) return;
    }
  };
  into(rest);
  return placed ? rest : [...nodes];
}

/**
 * The parent-link tree built from rows, ordered by position. Used only when the directory's own
 * setting groups by a column: the tree endpoint then has no way to ask for the parent-link tree.
 */
export function treeFromRows(rows: readonly Row[], displayColumnIndex: number): TreeNodeShape[] {
  const ordered = [...rows].sort((a, b) => a.position - b.position || a.id.localeCompare(b.id));
  const nodes = new Map<string, TreeNodeShape>(
    ordered.map((row) => [
      row.id,
      { kind: 'row', id: row.id, rowId: row.id, label: cellText(row.cells[displayColumnIndex]), children: [] },
    ]),
  );
  const roots: TreeNodeShape[] = [];
  for (const row of ordered) {
    const node = nodes.get(row.id) as TreeNodeShape;
    const parent = row.parentId ? nodes.get(row.parentId) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  return roots;
}

/**
 * Rows grouped by the values of a column, as the server's column-value tree: groups sorted by
 * value with empty values last, rows in their order inside.
 */
export function groupRows(rows: readonly Row[], groupIndex: number, displayColumnIndex: number): TreeNodeShape[] {
  const ordered = [...rows].sort((a, b) => a.position - b.position || a.id.localeCompare(b.id));
  const groups = new Map<string | null, TreeNodeShape[]>();
  for (const row of ordered) {
    const raw = row.cells[groupIndex];
    const value = raw === null || raw === undefined || raw === '' ? null : String(raw);
    const node: TreeNodeShape = {
      kind: 'row',
      id: row.id,
      rowId: row.id,
      label: cellText(row.cells[displayColumnIndex]),
      children: [],
    };
    groups.set(value, [...(groups.get(value) ?? []), node]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : a.localeCompare(b)))
    .map(([value, children]) => ({
      kind: 'column_value' as const,
      id: `value:${value ?? ''}`,
      value,
      label: value ?? '',
      children,
    }));
}

/**
 * Keeps the rows in `keep` and the nodes above them; the nodes kept only as a path to a match
 * are listed in `context`, so they can be shown dimmed.
 */
export function filterTree(
  nodes: readonly TreeNodeShape[],
  keep: ReadonlySet<string>,
): { nodes: TreeNodeShape[]; context: Set<string> } {
  const context = new Set<string>();
  const walk = (list: readonly TreeNodeShape[]): TreeNodeShape[] => {
    const out: TreeNodeShape[] = [];
    for (const node of list) {
      const children = walk(node.children);
      const matches = node.kind === 'row' && keep.has(node.id);
      if (matches || children.length > 0) {
        if (!matches) context.add(node.id);
        out.push({ ...node, children });
      }
    }
    return out;
  };
  return { nodes: walk(nodes), context };
}
