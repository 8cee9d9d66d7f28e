import { type CellChanges, type DeletedRowList, type RowInput, withCellChanges } from '@shared/api/directories';
import type { ProblemFieldError } from '@shared/api/problem';
import { normalizeNumber } from '@shared/number';
import { isIsoDate } from '@shared/values';
import type { z } from 'zod';
import { type Actor, memberOf } from '../../platform/auth/actor';
import type { Queryable } from '../../platform/db/db';
import { inUnit } from '../../platform/db/unit-of-work';
import { decodeCursor, encodeCursor } from '../../platform/http/cursor';
import { Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import { mayEditRows, mayReadDirectory } from './directories.policy';
import { buildTree, presentDeletedRow, presentRow } from './directories.presenter';
import * as repo from './directories.repo';
import {
  checkIndexes,
  checkParentRows,
  type DirectoriesDeps,
  directoryNotFound,
  requireDirectory,
  requireDirectoryTree,
  validationFailed,
} from './directories.service';

export type Cell = string | number | boolean | null;

const rowNotFound = (id: string) => Problem.of('not_found', `There is no row ${id} in this directory.`);

/** Checks cells against the columns (padding missing trailing cells with null); numbers are normalised. */
export function normalizeCells(columns: readonly repo.ColumnDef[], cells: readonly Cell[], pointer: string) {
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

/** The text a row is searched by: its cells, joined. */
export function searchText(cells: readonly Cell[]): string {
  return cells
    .filter((c) => c !== null)
    .map(String)
    .join('\u001f');
}

export async function listRows(
  deps: DirectoriesDeps,
  auth: Actor,
  id: string,
  query: { q?: string; sort?: number; order: 'asc' | 'desc'; parentRowId?: string; limit: number; cursor?: string },
) {
  assertMayReadDirectory(auth, id);
  const directory = await requireDirectory(deps.db, auth, id);
  if (query.sort !== undefined && query.sort >= directory.columns.length) {
    throw validationFailed('There is no such column to sort by.', [
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

async function checkParent(tx: Queryable, auth: Actor, directoryId: string, parentId: string | null) {
  if (!parentId) return;
  const [parent] = await repo.findRows(tx, auth.organizationId, [parentId]);
  if (!parent || parent.deleted_at) throw Problem.of('not_found', `There is no row ${parentId}.`);
  if (parent.directory_id !== directoryId) {
    throw Problem.of('cross_directory', 'A row’s parent must be a row of the same directory.');
  }
}

export async function createRow(
  deps: DirectoriesDeps,
  auth: Actor,
  directoryId: string,
  input: z.infer<typeof RowInput>,
) {
  assertMayEditRows(auth, directoryId);
  const id = input.id ?? newId();
  await inUnit(deps, async ({ tx }) => {
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
    if (errors.length > 0) throw validationFailed('The row is not valid. Correct the listed cells.', errors);
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

async function requireRow(tx: Queryable, auth: Actor, directoryId: string, rowId: string) {
  const [row] = await repo.findRows(tx, auth.organizationId, [rowId]);
  if (!row || row.deleted_at || row.directory_id !== directoryId) throw rowNotFound(rowId);
  return row;
}

export async function updateRow(
  deps: DirectoriesDeps,
  auth: Actor,
  directoryId: string,
  rowId: string,
  patch: { cells?: Cell[] | CellChanges; parentRowIds?: string[] },
) {
  assertMayEditRows(auth, directoryId);
  await inUnit(deps, async ({ tx }) => {
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
    if (errors.length > 0) throw validationFailed('The row is not valid. Correct the listed cells.', errors);
    await repo.updateRow(tx, auth.organizationId, rowId, { cells, parentRowIds, searchText: searchText(cells) });
  });
  const [row] = await repo.findRows(deps.db, auth.organizationId, [rowId]);
  return presentRow(row as repo.RowRecord);
}

/** Deletes a row; its children move up to its parent, in its place. Tasks that chose it show it as deleted. */
export async function deleteRow(deps: DirectoriesDeps, auth: Actor, directoryId: string, rowId: string) {
  assertMayEditRows(auth, directoryId);
  await inUnit(deps, async ({ tx }) => {
    await requireDirectoryTree(tx, auth, directoryId);
    const row = await requireRow(tx, auth, directoryId, rowId);
    const siblings = await repo.lockSiblings(tx, auth.organizationId, directoryId, row.parent_id);
    const children = await repo.lockSiblings(tx, auth.organizationId, directoryId, rowId);
    const at = siblings.indexOf(rowId);
    const ordered = [...siblings.slice(0, at), ...children, ...siblings.slice(at + 1)];
    await repo.softDeleteRow(tx, auth.organizationId, rowId, children, memberOf(auth)?.userId ?? null);
    await repo.setParentAndPositions(tx, auth.organizationId, row.parent_id, ordered);
  });
}

/** A page of the directory's deleted rows, most recently deleted first, to restore one. */
export async function listDeletedRows(
  deps: DirectoriesDeps,
  auth: Actor,
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
    items: page.map(presentDeletedRow),
    nextCursor: rows.length > query.limit && last ? encodeCursor([last.deleted_us, last.id]) : null,
  };
}

/**
 * Brings a deleted row back (the undo of a deletion): in its place, under its parent (or, that one
 * deleted too, its nearest live ancestor), with the children its deletion moved up that are still
 * where it left them. A live row is returned as it is: the undo has nothing left to do.
 */
export async function restoreRow(deps: DirectoriesDeps, auth: Actor, directoryId: string, rowId: string) {
  await restoreDeletedRow(deps, auth, directoryId, rowId);
  const [row] = await repo.findRows(deps.db, auth.organizationId, [rowId]);
  if (!row || row.deleted_at || row.directory_id !== directoryId) throw rowNotFound(rowId);
  return presentRow(row);
}

/** `restoreRow`'s work: true when a deleted row of the directory was brought back. */
export async function restoreDeletedRow(
  deps: DirectoriesDeps,
  auth: Actor,
  directoryId: string,
  rowId: string,
): Promise<boolean> {
  assertMayEditRows(auth, directoryId);
  return inUnit(deps, async ({ tx }) => {
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
  auth: Actor,
  directoryId: string,
  rowId: string,
  target: { parentId: string | null; position: number },
) {
  assertMayEditRows(auth, directoryId);
  await inUnit(deps, async ({ tx }) => {
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

export async function rowTree(
  deps: DirectoriesDeps,
  auth: Actor,
  directoryId: string,
  query: { treeColumnIndex?: number | 'none'; displayColumnIndex?: number },
) {
  assertMayReadDirectory(auth, directoryId);
  const directory = await requireDirectory(deps.db, auth, directoryId);
  const displayColumnIndex = query.displayColumnIndex ?? directory.tree_display_column_index;
  const treeColumnIndex =
    query.treeColumnIndex === 'none' ? null : (query.treeColumnIndex ?? directory.tree_column_index);
  const errors = checkIndexes(directory.columns, displayColumnIndex, treeColumnIndex).map((e) => ({
    ...e,
    location: 'query' as const,
  }));
  if (errors.length > 0) throw validationFailed('There is no such column.', errors);
  const rows = await repo.allRows(deps.db, auth.organizationId, directoryId);
  return { displayColumnIndex, treeColumnIndex, nodes: buildTree(rows, displayColumnIndex, treeColumnIndex) };
}

/** Refuses a bot whose key does not reach the directory (members and automations read every one). */
export function assertMayReadDirectory(auth: Actor, directoryId: string): void {
  if (!mayReadDirectory(auth, directoryId)) throw directoryNotFound(directoryId);
}

/** Refuses a change of rows the directories policy does not allow (`mayEditRows`). */
export function assertMayEditRows(auth: Actor, directoryId: string): void {
  if (!mayEditRows(auth, directoryId)) {
    throw Problem.of('forbidden', 'Your access to this directory is read-only.');
  }
}
