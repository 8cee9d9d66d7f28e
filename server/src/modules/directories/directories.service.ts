import {
  type CellChanges,
  type CreateDirectoryRequest,
  type DeletedDirectoryList,
  type DeletedRowList,
  type Directory,
  type Row,
  type RowInput,
  type TreeNodeShape,
  type UpdateDirectoryRequest,
  withCellChanges,
} from '@shared/api/directories';
import type { ProblemFieldError } from '@shared/api/problem';
import { normalizeNumber } from '@shared/number';
import { isIsoDate } from '@shared/values';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import type { AuthContext } from '../../platform/auth/auth-context';
import type { Db, Queryable } from '../../platform/db/db';
import { decodeCursor, encodeCursor } from '../../platform/http/cursor';
import { Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import * as repo from './directories.repo';

export interface DirectoriesDeps {
  db: Db;
}

type Cell = string | number | boolean | null;

export const directoryNotFound = (id: string) =>
  Problem.of('not_found', `There is no directory ${id} in your organization.`);
const rowNotFound = (id: string) => Problem.of('not_found', `There is no row ${id} in this directory.`);

export function presentDirectory(d: repo.DirectoryRow): Directory {
  return {
    id: d.id,
    name: d.name,
    columns: d.columns,
    parentDirectoryId: d.parent_directory_id,
    parentRowIds: d.parent_row_ids,
    tree_display_column_index: d.tree_display_column_index,
    treeColumnIndex: d.tree_column_index,
    createdAt: d.created_at.toISOString(),
    updatedAt: d.updated_at.toISOString(),
  };
}

export function presentRow(r: repo.RowRecord): Row {
  return {
    id: r.id,
    parentId: r.parent_id,
    position: r.position,
    cells: r.cells,
    parentRowIds: r.parent_row_ids,
    updatedAt: r.updated_at.toISOString(),
  };
}

/** Checks cells against the columns (padding missing trailing cells with null); numbers are normalised. */
function normalizeCells(columns: readonly repo.ColumnDef[], cells: readonly Cell[], pointer: string) {
  const errors: ProblemFieldError[] = [];
  if (cells.length > columns.length) {
    errors.push({
      location: 'body',
      pointer,
      detail: `The directory has ${columns.length} columns; got ${cells.length} cells`,
      code: 'too_many_cells',
    });
  }
  const out: Cell[] = columns.map((column, index) => {
    const value = cells[index] ?? null;
    if (value === null || value === '') return null;
    const at = `${pointer}/${index}`;
    switch (column.type) {
      case 'number': {
        const number = typeof value === 'boolean' ? undefined : normalizeNumber(value);
        if (number === undefined)
          errors.push({
            location: 'body',
            pointer: at,
            detail: `${column.name}: "${String(value)}" is not a number`,
            code: 'not_a_number',
          });
        return number ?? null;
      }
      case 'date':
        if (typeof value !== 'string' || !isIsoDate(value)) {
          errors.push({
            location: 'body',
            pointer: at,
            detail: `${column.name}: expected a date as YYYY-MM-DD`,
            code: 'invalid_date',
          });
        }
        return value;
      case 'checkbox':
        if (typeof value === 'boolean') return value;
        if (value === 'true' || value === 'false') return value === 'true';
        errors.push({
          location: 'body',
          pointer: at,
          detail: `${column.name}: expected true or false`,
          code: 'invalid_type',
        });
        return null;
      default:
        return String(value);
    }
  });
  return { cells: out, errors };
}

/**
 * The cells a patch leaves: every cell when it gives them in column order, else the row's cells
 * with those it names by column index changed (an index past the last column is refused).
 */
function patchedCells(
  columns: readonly repo.ColumnDef[],
  stored: readonly Cell[],
  patch: Cell[] | CellChanges | undefined,
): { cells: readonly Cell[]; errors: ProblemFieldError[] } {
  if (patch === undefined || Array.isArray(patch)) return { cells: patch ?? stored, errors: [] };
  const errors: ProblemFieldError[] = Object.keys(patch)
    .filter((key) => Number(key) >= columns.length)
    .map((key) => ({
      location: 'body',
      pointer: `#/cells/${key}`,
      detail: `The directory has ${columns.length} columns; there is no column ${key}`,
      code: 'no_such_column',
    }));
  return { cells: errors.length > 0 ? stored : withCellChanges(stored, patch), errors };
}

function searchText(cells: readonly Cell[]): string {
  return cells
    .filter((c) => c !== null)
    .map(String)
    .join('\u001f');
}

function invalid(detail: string, errors: ProblemFieldError[]) {
  return Problem.of('validation_failed', detail, { errors });
}

async function requireDirectory(db: Queryable, auth: AuthContext, id: string) {
  const directory = await repo.findDirectory(db, auth.organizationId, id);
  if (!directory) throw directoryNotFound(id);
  return directory;
}

/**
 * The directory, its row tree taken for this transaction first, so that changes of the tree's
 * shape run one after another: two moves checked at once each found no cycle (A under B, B under
 * A) and together made one, and both rows left the tree.
 */
async function requireDirectoryTree(tx: Queryable, auth: AuthContext, id: string) {
  await repo.lockRowTree(tx, id);
  return requireDirectory(tx, auth, id);
}

function checkIndexes(columns: readonly repo.ColumnDef[], display: number, tree: number | null): ProblemFieldError[] {
  const errors: ProblemFieldError[] = [];
  if (display >= columns.length)
    errors.push({
      location: 'body',
      pointer: '#/tree_display_column_index',
      detail: 'No such column',
      code: 'unknown_column',
    });
  if (tree !== null && tree >= columns.length)
    errors.push({ location: 'body', pointer: '#/treeColumnIndex', detail: 'No such column', code: 'unknown_column' });
  return errors;
}

async function checkParentRows(
  db: Queryable,
  auth: AuthContext,
  parentDirectoryId: string | null,
  parentRowIds: readonly string[],
  pointer: string,
  /** For a row: the parent rows its sub-directory is bound to (none: any row of the parent). */
  boundTo: readonly string[] = [],
) {
  if (parentRowIds.length === 0) return [];
  if (!parentDirectoryId)
    return [
      {
        location: 'body' as const,
        pointer,
        detail: 'Only a sub-directory binds to parent rows',
        code: 'not_a_sub_directory',
      },
    ];
  const found = await repo.findRows(db, auth.organizationId, parentRowIds);
  const valid = new Set(found.filter((r) => r.directory_id === parentDirectoryId && !r.deleted_at).map((r) => r.id));
  return parentRowIds
    .map((id, index) => ({ id, index }))
    .filter(({ id }) => !valid.has(id) || (boundTo.length > 0 && !boundTo.includes(id)))
    .map(({ id, index }) =>
      valid.has(id)
        ? {
            location: 'body' as const,
            pointer: `${pointer}/${index}`,
            detail: `Row ${id} is not one of the parent rows this sub-directory is bound to`,
            code: 'unbound_row',
          }
        : {
            location: 'body' as const,
            pointer: `${pointer}/${index}`,
            detail: `Row ${id} is not a row of the parent directory`,
            code: 'unknown_row',
          },
    );
}

export async function createDirectory(
  deps: DirectoriesDeps,
  auth: AuthContext,
  input: z.infer<typeof CreateDirectoryRequest>,
) {
  const id = input.id ?? newId();
  await deps.db.transaction(async (tx) => {
    const parent = input.parentDirectoryId
      ? await repo.findDirectory(tx, auth.organizationId, input.parentDirectoryId)
      : undefined;
    const errors = checkIndexes(input.columns, input.tree_display_column_index, input.treeColumnIndex);
    if (input.parentDirectoryId && !parent) {
      errors.push({
        location: 'body',
        pointer: '#/parentDirectoryId',
        detail: 'No such directory',
        code: 'unknown_directory',
      });
    }
    errors.push(...(await checkParentRows(tx, auth, parent?.id ?? null, input.parentRowIds, '#/parentRowIds')));
    if (errors.length > 0) throw invalid('The directory is not valid. Correct the listed fields.', errors);
    const inserted = await repo.insertDirectory(tx, auth.organizationId, {
      id,
      name: input.name,
      columns: input.columns,
      parent_directory_id: parent?.id ?? null,
      parent_row_ids: input.parentRowIds,
      tree_display_column_index: input.tree_display_column_index,
      tree_column_index: input.treeColumnIndex,
    });
    if (!inserted) throw Problem.of('conflict', `A directory with id ${id} already exists.`);
  });
  return presentDirectory(await requireDirectory(deps.db, auth, id));
}

export async function listDirectories(deps: DirectoriesDeps, auth: AuthContext) {
  return { items: (await repo.listDirectories(deps.db, auth.organizationId)).map(presentDirectory) };
}

export async function getDirectory(deps: DirectoriesDeps, auth: AuthContext, id: string) {
  return presentDirectory(await requireDirectory(deps.db, auth, id));
}

export async function updateDirectory(
  deps: DirectoriesDeps,
  auth: AuthContext,
  id: string,
  patch: z.infer<typeof UpdateDirectoryRequest>,
) {
  await deps.db.transaction(async (tx) => {
    const current = await requireDirectory(tx, auth, id);
    const columns = patch.columns ?? current.columns;
    const errors: ProblemFieldError[] = [];
    if (columns.length < current.columns.length) {
      errors.push({
        location: 'body',
        pointer: '#/columns',
        detail: 'Columns cannot be removed: cells of rows follow their order',
        code: 'column_removed',
      });
    }
    for (const [index, column] of current.columns.entries()) {
      if (
        columns[index] &&
        columns[index].type !== column.type &&
        (await repo.allRows(tx, auth.organizationId, id)).length > 0
      ) {
        errors.push({
          location: 'body',
          pointer: `#/columns/${index}/type`,
          detail: 'The directory has rows: a column keeps its type',
          code: 'type_locked',
        });
      }
    }
    const display = patch.tree_display_column_index ?? current.tree_display_column_index;
    const tree = patch.treeColumnIndex === undefined ? current.tree_column_index : patch.treeColumnIndex;
    errors.push(...checkIndexes(columns, display, tree));
    const parentRowIds = patch.parentRowIds ?? current.parent_row_ids;
    if (patch.parentRowIds)
      errors.push(...(await checkParentRows(tx, auth, current.parent_directory_id, parentRowIds, '#/parentRowIds')));
    if (errors.length > 0) throw invalid('The directory is not valid. Correct the listed fields.', errors);
    await repo.updateDirectory(tx, auth.organizationId, {
      ...current,
      name: patch.name ?? current.name,
      columns,
      parent_row_ids: parentRowIds,
      tree_display_column_index: display,
      tree_column_index: tree,
    });
  });
  return getDirectory(deps, auth, id);
}

export async function deleteDirectory(deps: DirectoriesDeps, auth: AuthContext, id: string) {
  await deps.db.transaction(async (tx) => {
    // Locked as a restore of a sub-directory locks it: one of the two waits for the other.
    const directory = await repo.lockAnyDirectory(tx, auth.organizationId, id);
    if (!directory || directory.deleted_at) throw directoryNotFound(id);
    if (await repo.hasSubDirectories(tx, auth.organizationId, id)) {
      throw Problem.of('conflict', 'The directory has sub-directories. Delete them first.');
    }
    await repo.softDeleteDirectory(tx, auth.organizationId, id);
  });
}

/** The organization's deleted directories, most recently deleted first (administrators restore them). */
export async function listDeletedDirectories(deps: DirectoriesDeps, auth: AuthContext): Promise<DeletedDirectoryList> {
  const rows = await repo.listDeletedDirectories(deps.db, auth.organizationId);
  return {
    items: rows.map((row) => ({
      id: row.id,
      name: row.name,
      parentDirectoryId: row.parent_directory_id,
      deletedAt: row.deleted_at.toISOString(),
      rowCount: Number(row.row_count),
    })),
  };
}

/**
 * Brings a deleted directory back as it was: its columns and rows, its tree, the rows tasks chose
 * from it. A sub-directory whose parent is deleted waits for that one (409); a directory not
 * deleted is answered as it is.
 */
export async function restoreDirectory(deps: DirectoriesDeps, auth: AuthContext, id: string): Promise<Directory> {
  await deps.db.transaction(async (tx) => {
    const directory = await repo.lockAnyDirectory(tx, auth.organizationId, id);
    if (!directory) throw directoryNotFound(id);
    if (!directory.deleted_at) return;
    if (directory.parent_directory_id) {
      const parent = await repo.lockAnyDirectory(tx, auth.organizationId, directory.parent_directory_id);
      if (parent?.deleted_at) {
        throw Problem.of('conflict', 'Its parent directory is deleted. Restore the parent directory first.');
      }
    }
    await repo.restoreDirectory(tx, auth.organizationId, id);
  });
  return getDirectory(deps, auth, id);
}

// ---- rows ----

export async function listRows(
  deps: DirectoriesDeps,
  auth: AuthContext,
  id: string,
  query: { q?: string; sort?: number; order: 'asc' | 'desc'; parentRowId?: string; limit: number; cursor?: string },
) {
  const directory = await requireDirectory(deps.db, auth, id);
  if (query.sort !== undefined && query.sort >= directory.columns.length) {
    throw invalid('There is no such column to sort by.', [
      { location: 'query', pointer: '#/sort', detail: 'No such column', code: 'unknown_column' },
    ]);
  }
  if (
    query.parentRowId &&
    directory.parent_row_ids.length > 0 &&
    !directory.parent_row_ids.includes(query.parentRowId)
  ) {
    return { items: [], nextCursor: null };
  }
  const offset = Number(decodeCursor(query.cursor)?.[0] ?? 0);
  const rows = await repo.pageRows(deps.db, auth.organizationId, id, {
    pattern: query.q ? `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null,
    sortColumn: query.sort ?? null,
    descending: query.order === 'desc',
    parentRowId: query.parentRowId ?? null,
    offset,
    limit: query.limit + 1,
  });
  return {
    items: rows.slice(0, query.limit).map(presentRow),
    nextCursor: rows.length > query.limit ? encodeCursor([offset + query.limit]) : null,
  };
}

async function checkParent(tx: Queryable, auth: AuthContext, directoryId: string, parentId: string | null) {
  if (!parentId) return;
  const [parent] = await repo.findRows(tx, auth.organizationId, [parentId]);
  if (!parent || parent.deleted_at) throw Problem.of('not_found', `There is no row ${parentId}.`);
  if (parent.directory_id !== directoryId) {
    throw Problem.of('cross_directory', 'A row’s parent must be a row of the same directory.');
  }
}

export async function createRow(
  deps: DirectoriesDeps,
  auth: AuthContext,
  directoryId: string,
  input: z.infer<typeof RowInput>,
) {
  const id = input.id ?? newId();
  await deps.db.transaction(async (tx) => {
    const directory = await requireDirectoryTree(tx, auth, directoryId);
    const { cells, errors } = normalizeCells(directory.columns, input.cells, '#/cells');
    errors.push(
      ...(await checkParentRows(
        tx,
        auth,
        directory.parent_directory_id,
        input.parentRowIds,
        '#/parentRowIds',
        directory.parent_row_ids,
      )),
    );
    if (errors.length > 0) throw invalid('The row is not valid. Correct the listed cells.', errors);
    await checkParent(tx, auth, directoryId, input.parentId);
    if ((await repo.findRows(tx, auth.organizationId, [id])).length > 0)
      throw Problem.of('conflict', `A row with id ${id} already exists.`);
    const siblings = await repo.lockSiblings(tx, auth.organizationId, directoryId, input.parentId);
    const inserted = await repo.insertRows(tx, auth.organizationId, directoryId, [
      {
        id,
        parentId: input.parentId,
        position: siblings.length,
        cells,
        parentRowIds: input.parentRowIds,
        searchText: searchText(cells),
      },
    ]);
    // Created by a request that ran alongside this one (the same client-made row sent twice).
    if (inserted === 0) throw Problem.of('conflict', `A row with id ${id} already exists.`);
    if (input.position !== undefined) {
      const ordered = [...siblings];
      ordered.splice(Math.min(input.position, ordered.length), 0, id);
      await repo.setParentAndPositions(tx, auth.organizationId, input.parentId, ordered);
    }
  });
  const [row] = await repo.findRows(deps.db, auth.organizationId, [id]);
  return presentRow(row as repo.RowRecord);
}

async function requireRow(tx: Queryable, auth: AuthContext, directoryId: string, rowId: string) {
  const [row] = await repo.findRows(tx, auth.organizationId, [rowId]);
  if (!row || row.deleted_at || row.directory_id !== directoryId) throw rowNotFound(rowId);
  return row;
}

export async function updateRow(
  deps: DirectoriesDeps,
  auth: AuthContext,
  directoryId: string,
  rowId: string,
  patch: { cells?: Cell[] | CellChanges; parentRowIds?: string[] },
) {
  await deps.db.transaction(async (tx) => {
    const directory = await requireDirectory(tx, auth, directoryId);
    // The values not patched are written back as read: no other change may come in between.
    await repo.lockRow(tx, auth.organizationId, rowId);
    const row = await requireRow(tx, auth, directoryId, rowId);
    const given = patchedCells(directory.columns, row.cells, patch.cells);
    const { cells, errors } = normalizeCells(directory.columns, given.cells, '#/cells');
    errors.unshift(...given.errors);
    const parentRowIds = patch.parentRowIds ?? row.parent_row_ids;
    if (patch.parentRowIds)
      errors.push(
        ...(await checkParentRows(
          tx,
          auth,
          directory.parent_directory_id,
          parentRowIds,
          '#/parentRowIds',
          directory.parent_row_ids,
        )),
      );
    if (errors.length > 0) throw invalid('The row is not valid. Correct the listed cells.', errors);
    await repo.updateRow(tx, auth.organizationId, rowId, { cells, parentRowIds, searchText: searchText(cells) });
  });
  const [row] = await repo.findRows(deps.db, auth.organizationId, [rowId]);
  return presentRow(row as repo.RowRecord);
}

/** Deletes a row; its children move up to its parent, in its place. Tasks that chose it show it as deleted. */
export async function deleteRow(deps: DirectoriesDeps, auth: AuthContext, directoryId: string, rowId: string) {
  await deps.db.transaction(async (tx) => {
    await requireDirectoryTree(tx, auth, directoryId);
    const row = await requireRow(tx, auth, directoryId, rowId);
    const siblings = await repo.lockSiblings(tx, auth.organizationId, directoryId, row.parent_id);
    const children = await repo.lockSiblings(tx, auth.organizationId, directoryId, rowId);
    const at = siblings.indexOf(rowId);
    const ordered = [...siblings.slice(0, at), ...children, ...siblings.slice(at + 1)];
    await repo.softDeleteRow(tx, auth.organizationId, rowId, children, auth.userId);
    await repo.setParentAndPositions(tx, auth.organizationId, row.parent_id, ordered);
  });
}

/** A page of the directory's deleted rows, most recently deleted first, to restore one. */
export async function listDeletedRows(
  deps: DirectoriesDeps,
  auth: AuthContext,
  directoryId: string,
  query: { limit: number; cursor?: string },
): Promise<DeletedRowList> {
  await requireDirectory(deps.db, auth, directoryId);
  const after = decodeCursor(query.cursor) as [string, string] | undefined;
  const rows = await repo.listDeletedRows(deps.db, auth.organizationId, directoryId, {
    after,
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map((row) => ({
      ...presentRow(row),
      deletedAt: row.deleted_at.toISOString(),
      deletedBy: row.deleted_by_id ? { id: row.deleted_by_id, name: row.deleted_by_name ?? '' } : null,
    })),
    nextCursor: rows.length > query.limit && last ? encodeCursor([last.deleted_us, last.id]) : null,
  };
}

/**
 * Brings a deleted row back (the undo of a deletion): in its place, under its parent (or, that one
 * deleted too, its nearest live ancestor), with the children its deletion moved up that are still
 * where it left them. A live row is returned as it is: the undo has nothing left to do.
 */
export async function restoreRow(deps: DirectoriesDeps, auth: AuthContext, directoryId: string, rowId: string) {
  await restoreDeletedRow(deps, auth, directoryId, rowId);
  const [row] = await repo.findRows(deps.db, auth.organizationId, [rowId]);
  if (!row || row.deleted_at || row.directory_id !== directoryId) throw rowNotFound(rowId);
  return presentRow(row);
}

/** `restoreRow`'s work: true when a deleted row of the directory was brought back. */
export async function restoreDeletedRow(
  deps: DirectoriesDeps,
  auth: AuthContext,
  directoryId: string,
  rowId: string,
): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    await requireDirectoryTree(tx, auth, directoryId);
    const row = await repo.lockDeletedRow(tx, auth.organizationId, directoryId, rowId);
    if (!row) return false;
    const ancestors = await repo.ancestorIds(tx, auth.organizationId, rowId);
    const live = new Set(
      (await repo.findRows(tx, auth.organizationId, ancestors)).filter((r) => !r.deleted_at).map((r) => r.id),
    );
    const parentId = ancestors.find((id) => live.has(id)) ?? null;
    const siblings = await repo.lockSiblings(tx, auth.organizationId, directoryId, parentId);
    const movedUp = new Set(row.moved_up_ids);
    const back = siblings.filter((id) => movedUp.has(id));
    const staying = siblings.filter((id) => !movedUp.has(id));
    // Where its first child still is, else where it was (its position when deleted).
    const at = back.length > 0 ? siblings.indexOf(back[0] as string) : Math.min(row.position, staying.length);
    staying.splice(at, 0, rowId);
    await repo.restoreRow(tx, auth.organizationId, rowId, parentId);
    await repo.setParentAndPositions(tx, auth.organizationId, parentId, staying);
    const children = await repo.lockSiblings(tx, auth.organizationId, directoryId, rowId);
    await repo.setParentAndPositions(tx, auth.organizationId, rowId, [...back, ...children]);
    return true;
  });
}

/** Re-parents a row and puts it at `position` among its new siblings; cycles and other directories are refused. */
export async function moveRow(
  deps: DirectoriesDeps,
  auth: AuthContext,
  directoryId: string,
  rowId: string,
  target: { parentId: string | null; position: number },
) {
  await deps.db.transaction(async (tx) => {
    await requireDirectoryTree(tx, auth, directoryId);
    const row = await requireRow(tx, auth, directoryId, rowId);
    await checkParent(tx, auth, directoryId, target.parentId);
    if (target.parentId) {
      if (
        target.parentId === rowId ||
        (await repo.ancestorIds(tx, auth.organizationId, target.parentId)).includes(rowId)
      ) {
        throw Problem.of('tree_cycle', 'A row cannot move under itself or one of its descendants.');
      }
    }
    const oldSiblings = await repo.lockSiblings(tx, auth.organizationId, directoryId, row.parent_id);
    const newSiblings = (await repo.lockSiblings(tx, auth.organizationId, directoryId, target.parentId)).filter(
      (id) => id !== rowId,
    );
    newSiblings.splice(Math.min(target.position, newSiblings.length), 0, rowId);
    if (row.parent_id !== target.parentId) {
      await repo.setParentAndPositions(
        tx,
        auth.organizationId,
        row.parent_id,
        oldSiblings.filter((id) => id !== rowId),
      );
    }
    await repo.setParentAndPositions(tx, auth.organizationId, target.parentId, newSiblings);
  });
  const [row] = await repo.findRows(deps.db, auth.organizationId, [rowId]);
  return presentRow(row as repo.RowRecord);
}

// ---- tree ----

function label(cells: readonly Cell[], index: number): string {
  const value = cells[index];
  return value === null || value === undefined ? '' : String(value);
}

/** Builds the row tree (by parent links) or the column-value tree, in one pass over the rows. */
export function buildTree(
  rows: readonly repo.RowRecord[],
  displayColumnIndex: number,
  treeColumnIndex: number | null,
): TreeNodeShape[] {
  const rowNode = (row: repo.RowRecord): TreeNodeShape => ({
    kind: 'row',
    id: row.id,
    rowId: row.id,
    label: label(row.cells, displayColumnIndex),
    children: [],
  });
  if (treeColumnIndex !== null) {
    const groups = new Map<string, TreeNodeShape>();
    const roots: TreeNodeShape[] = [];
    for (const row of rows) {
      const raw = row.cells[treeColumnIndex];
      const value = raw === null || raw === undefined || raw === '' ? null : String(raw);
      const key = value ?? '\u0000';
      let group = groups.get(key);
      if (!group) {
        group = { kind: 'column_value', id: `value:${value ?? ''}`, value, label: value ?? '', children: [] };
        groups.set(key, group);
        roots.push(group);
      }
      group.children.push(rowNode(row));
    }
    return roots.sort((a, b) =>
      a.value === null ? 1 : b.value === null ? -1 : (a.value ?? '').localeCompare(b.value ?? ''),
    );
  }
  const nodes = new Map(rows.map((row) => [row.id, rowNode(row)]));
  const roots: TreeNodeShape[] = [];
  // Rows arrive ordered by position, so children are appended in sibling order.
  for (const row of rows) {
    const node = nodes.get(row.id) as TreeNodeShape;
    const parent = row.parent_id ? nodes.get(row.parent_id) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  return roots;
}

export async function rowTree(
  deps: DirectoriesDeps,
  auth: AuthContext,
  directoryId: string,
  query: { treeColumnIndex?: number | 'none'; displayColumnIndex?: number },
) {
  const directory = await requireDirectory(deps.db, auth, directoryId);
  const displayColumnIndex = query.displayColumnIndex ?? directory.tree_display_column_index;
  const treeColumnIndex =
    query.treeColumnIndex === 'none' ? null : (query.treeColumnIndex ?? directory.tree_column_index);
  const errors = checkIndexes(directory.columns, displayColumnIndex, treeColumnIndex).map((e) => ({
    ...e,
    location: 'query' as const,
  }));
  if (errors.length > 0) throw invalid('There is no such column.', errors);
  const rows = await repo.allRows(deps.db, auth.organizationId, directoryId);
  return { displayColumnIndex, treeColumnIndex, nodes: buildTree(rows, displayColumnIndex, treeColumnIndex) };
}

// ---- CSV ----

const ID_HEADER = 'id';
const PARENT_HEADER = 'parent_id';

/** CSV of the directory: `id`, `parent_id`, then one column per directory column (UTF-8 with BOM, for spreadsheets). */
export async function exportCsv(deps: DirectoriesDeps, auth: AuthContext, directoryId: string): Promise<string> {
  const directory = await requireDirectory(deps.db, auth, directoryId);
  const rows = await repo.allRows(deps.db, auth.organizationId, directoryId);
  const ordered = buildTree(rows, 0, null);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const records: string[][] = [];
  // Parents before children, siblings in order: an import recreates the same tree.
  const walk = (nodes: TreeNodeShape[]) => {
    for (const node of nodes) {
      const row = byId.get(node.id) as repo.RowRecord;
      records.push([
        row.id,
        row.parent_id ?? '',
        ...directory.columns.map((_, i) =>
          row.cells[i] === null || row.cells[i] === undefined ? '' : String(row.cells[i]),
        ),
      ]);
      walk(node.children);
    }
  };
  walk(ordered);
  return `\ufeff${stringify([[ID_HEADER, PARENT_HEADER, ...directory.columns.map((c) => c.name)], ...records])}`;
}

/**
 * Imports CSV rows: a header names the columns (by name, any case; `id` and `parent_id` optional).
 * Every row is checked first; with any error nothing is written, and the errors are returned
 * (a dry run reports them without writing even when there are none).
 */
export async function importCsv(
  deps: DirectoriesDeps,
  auth: AuthContext,
  directoryId: string,
  input: { csv: string; mode: 'append' | 'replace'; dryRun: boolean },
) {
  return deps.db.transaction(async (tx) => {
    const directory = await requireDirectoryTree(tx, auth, directoryId);
    const errors: { line: number; column: string | null; detail: string }[] = [];
    let records: string[][];
    try {
      records = parse(input.csv.replace(/^\ufeff/, ''), {
        relax_column_count: true,
        skip_empty_lines: true,
        bom: true,
      });
    } catch (error) {
      throw Problem.of('validation_failed', `The file is not valid CSV: ${(error as Error).message}`, {
        errors: [{ location: 'body', pointer: '#/csv', detail: (error as Error).message, code: 'invalid_csv' }],
      });
    }
    const [header, ...lines] = records;
    if (!header) throw Problem.of('validation_failed', 'The file is empty: it needs a header line naming the columns.');
    const columnAt = header.map((name) => name.trim().toLowerCase());
    const indexOf = (name: string) => columnAt.indexOf(name.toLowerCase());
    for (const [i, name] of header.entries()) {
      const known = [ID_HEADER, PARENT_HEADER, ...directory.columns.map((c) => c.name.toLowerCase())].includes(
        columnAt[i] as string,
      );
      if (!known) errors.push({ line: 1, column: name, detail: `Unknown column "${name}"` });
    }
    const idIndex = indexOf(ID_HEADER);
    const parentIndex = indexOf(PARENT_HEADER);
    const rows: {
      id: string;
      parentId: string | null;
      position: number;
      cells: Cell[];
      parentRowIds: string[];
      searchText: string;
    }[] = [];
    const fileIds = new Set<string>();
    for (const [n, record] of lines.entries()) {
      const line = n + 2;
      const raw = directory.columns.map((column) => {
        const at = indexOf(column.name);
        return at === -1 ? null : (record[at] ?? null);
      });
      const { cells, errors: cellErrors } = normalizeCells(directory.columns, raw, '#');
      for (const e of cellErrors)
        errors.push({
          line,
          column: directory.columns[Number(e.pointer.split('/')[1])]?.name ?? null,
          detail: e.detail,
        });
      const id = idIndex >= 0 && record[idIndex] ? (record[idIndex] as string).trim() : newId();
      if (!z.uuid().safeParse(id).success) errors.push({ line, column: ID_HEADER, detail: `"${id}" is not a UUID` });
      if (fileIds.has(id)) errors.push({ line, column: ID_HEADER, detail: `Row id ${id} appears twice` });
      fileIds.add(id);
      const parentId = parentIndex >= 0 && record[parentIndex] ? (record[parentIndex] as string).trim() : null;
      rows.push({ id, parentId, position: 0, cells, parentRowIds: [], searchText: searchText(cells) });
    }
    const existing = await repo.findRows(
      tx,
      auth.organizationId,
      [...fileIds].filter((id) => z.uuid().safeParse(id).success),
    );
    const live = input.mode === 'replace' ? [] : await repo.allRows(tx, auth.organizationId, directoryId);
    for (const row of existing) {
      if (input.mode === 'append' || row.directory_id !== directoryId) {
        errors.push({
          line: 2 + rows.findIndex((r) => r.id === row.id),
          column: ID_HEADER,
          detail: `A row with id ${row.id} already exists`,
        });
      }
    }
    const liveIds = new Set(live.map((r) => r.id));
    for (const [n, row] of rows.entries()) {
      if (row.parentId && !fileIds.has(row.parentId) && !liveIds.has(row.parentId)) {
        errors.push({
          line: n + 2,
          column: PARENT_HEADER,
          detail: `Parent ${row.parentId} is neither in the file nor in the directory`,
        });
      }
    }
    if (errors.length > 0 || input.dryRun) {
      if (errors.length > 0 && !input.dryRun) {
        throw Problem.of(
          'validation_failed',
          `Nothing was imported: ${errors.length} problem(s), first on line ${errors[0]?.line}. Fix the file and import again.`,
          {
            errors: errors.slice(0, 1000).map((e) => ({
              location: 'body' as const,
              pointer: `#/csv/line/${e.line}`,
              detail: `${e.column ? `${e.column}: ` : ''}${e.detail}`,
              code: 'invalid_row',
            })),
          },
        );
      }
      return { imported: errors.length > 0 ? 0 : rows.length, dryRun: true, errors };
    }
    if (input.mode === 'replace') {
      if (existing.length > 0) {
        // Re-imported ids replace their old (now deleted) rows: free the ids first.
        await tx.query(
          'DELETE FROM directory_rows WHERE organization_id = $1 AND directory_id = $2 AND id = ANY($3::uuid[])',
          [auth.organizationId, directoryId, existing.map((r) => r.id)],
        );
      }
      await repo.deleteAllRows(tx, auth.organizationId, directoryId, auth.userId);
    }
    // Positions: after existing siblings, in file order.
    const nextPosition = new Map<string, number>();
    for (const row of live) {
      const key = row.parent_id ?? '';
      nextPosition.set(key, Math.max(nextPosition.get(key) ?? 0, row.position + 1));
    }
    for (const row of rows) {
      const key = row.parentId ?? '';
      row.position = nextPosition.get(key) ?? 0;
      nextPosition.set(key, row.position + 1);
    }
    // Parents first, so the parent link holds at every insert.
    const pending = [...rows];
    const inserted = new Set(liveIds);
    while (pending.length > 0) {
      const ready = pending.filter((r) => !r.parentId || inserted.has(r.parentId));
      if (ready.length === 0) throw Problem.of('validation_failed', 'The parent links in the file form a cycle.');
      if ((await repo.insertRows(tx, auth.organizationId, directoryId, ready)) < ready.length) {
        throw Problem.of(
          'conflict',
          'Rows with ids of this file were created meanwhile: nothing was imported. Import again.',
        );
      }
      for (const r of ready) inserted.add(r.id);
      for (const r of ready) pending.splice(pending.indexOf(r), 1);
    }
    return { imported: rows.length, dryRun: false, errors: [] };
  });
}

// ---- for table fields ----

/** Labels of chosen rows for a `table` field: `displayColumn` (a column name) or the tree display column. */
export async function rowLabels(
  db: Queryable,
  organizationId: string,
  directoryId: string,
  displayColumn: string | null,
  rowIds: readonly string[],
): Promise<Map<string, { label: string; deleted: boolean }>> {
  const directory = await repo.findDirectory(db, organizationId, directoryId);
  const labels = new Map<string, { label: string; deleted: boolean }>();
  if (!directory) return labels;
  const named = displayColumn
    ? directory.columns.findIndex((c) => c.name.toLowerCase() === displayColumn.toLowerCase())
    : -1;
  const index = named >= 0 ? named : directory.tree_display_column_index;
  for (const row of await repo.findRows(db, organizationId, rowIds)) {
    if (row.directory_id !== directoryId) continue;
    labels.set(row.id, { label: label(row.cells, index), deleted: row.deleted_at !== null });
  }
  return labels;
}

/** Ids among `rowIds` that are live rows of the directory. */
export async function liveRowIds(
  db: Queryable,
  organizationId: string,
  directoryId: string,
  rowIds: readonly string[],
): Promise<string[]> {
  const rows = await repo.findRows(db, organizationId, rowIds);
  return rows.filter((r) => r.directory_id === directoryId && !r.deleted_at).map((r) => r.id);
}

export async function directoryExists(db: Queryable, organizationId: string, directoryId: string): Promise<boolean> {
  return (await repo.findDirectory(db, organizationId, directoryId)) !== undefined;
}
