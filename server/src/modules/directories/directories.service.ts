import type {
  CreateDirectoryRequest,
  DeletedDirectoryList,
  Directory,
  UpdateDirectoryRequest,
} from '@shared/api/directories';
import type { ProblemFieldError } from '@shared/api/problem';
import type { z } from 'zod';
import type { Actor } from '../../platform/auth/actor';
import type { Db, Queryable } from '../../platform/db/db';
import { inUnit } from '../../platform/db/unit-of-work';
import type { EventBus } from '../../platform/events';
import { Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import { mayManageDirectories, mayReadDirectory } from './directories.policy';
import { cellLabel, presentDeletedDirectory, presentDirectory } from './directories.presenter';
import * as repo from './directories.repo';

export interface DirectoriesDeps {
  db: Db;
  events: EventBus;
}

export const directoryNotFound = (id: string) =>
  Problem.of('not_found', `There is no directory ${id} in your organization.`);

/** A `validation_failed` problem listing the fields at fault. */
export function validationFailed(detail: string, errors: ProblemFieldError[]) {
  return Problem.of('validation_failed', detail, { errors });
}

/** Refuses changing the directory itself to one who may not (one outside a key's directories: as unknown). */
function assertMayManageDirectory(auth: Actor, id: string): void {
  if (!mayManageDirectories(auth, id)) throw directoryNotFound(id);
}

/** The organization's live directory, else `not_found`. */
export async function requireDirectory(db: Queryable, auth: Actor, id: string) {
  // A directory outside a bot's key is answered as one that does not exist.
  if (!mayReadDirectory(auth, id)) throw directoryNotFound(id);
  const directory = await repo.findDirectory(db, auth.organizationId, id);
  if (!directory) throw directoryNotFound(id);
  return directory;
}

/**
 * The directory, its row tree taken for this transaction first, so that changes of the tree's
 * shape run one after another: two moves checked at once each found no cycle (A under B, B under
 * A) and together made one, and both rows left the tree.
 */
export async function requireDirectoryTree(tx: Queryable, auth: Actor, id: string) {
  await repo.lockRowTree(tx, id);
  return requireDirectory(tx, auth, id);
}

/** Errors for a tree display or tree column index past the last column. */
export function checkIndexes(
  columns: readonly repo.ColumnDef[],
  display: number,
  tree: number | null,
): ProblemFieldError[] {
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

/** Errors for parent rows that are not live rows of the parent directory (or not among those bound). */
export async function checkParentRows(
  db: Queryable,
  auth: Actor,
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
  auth: Actor,
  input: z.infer<typeof CreateDirectoryRequest>,
) {
  // A new directory is in no key's list: only keys reaching every directory may make one.
  if (!mayManageDirectories(auth)) {
    throw Problem.of('scope_denied', 'Only a full key that reaches every directory may create directories.');
  }
  const id = input.id ?? newId();
  await inUnit(deps, async ({ tx }) => {
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
    if (errors.length > 0) throw validationFailed('The directory is not valid. Correct the listed fields.', errors);
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

export async function listDirectories(deps: DirectoriesDeps, auth: Actor) {
  const directories = await repo.listDirectories(deps.db, auth.organizationId);
  return { items: directories.filter((directory) => mayReadDirectory(auth, directory.id)).map(presentDirectory) };
}

export async function getDirectory(deps: DirectoriesDeps, auth: Actor, id: string) {
  return presentDirectory(await requireDirectory(deps.db, auth, id));
}

export async function updateDirectory(
  deps: DirectoriesDeps,
  auth: Actor,
  id: string,
  patch: z.infer<typeof UpdateDirectoryRequest>,
) {
  assertMayManageDirectory(auth, id);
  await inUnit(deps, async ({ tx }) => {
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
    if (errors.length > 0) throw validationFailed('The directory is not valid. Correct the listed fields.', errors);
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

export async function deleteDirectory(deps: DirectoriesDeps, auth: Actor, id: string) {
  assertMayManageDirectory(auth, id);
  await inUnit(deps, async ({ tx }) => {
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
export async function listDeletedDirectories(deps: DirectoriesDeps, auth: Actor): Promise<DeletedDirectoryList> {
  const rows = await repo.listDeletedDirectories(deps.db, auth.organizationId);
  return { items: rows.filter((row) => mayManageDirectories(auth, row.id)).map(presentDeletedDirectory) };
}

/**
 * Brings a deleted directory back as it was: its columns and rows, its tree, the rows tasks chose
 * from it. A sub-directory whose parent is deleted waits for that one (409); a directory not
 * deleted is answered as it is.
 */
export async function restoreDirectory(deps: DirectoriesDeps, auth: Actor, id: string): Promise<Directory> {
  assertMayManageDirectory(auth, id);
  await inUnit(deps, async ({ tx }) => {
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

/** Labels of chosen rows for a `table` field: `displayColumn` (a column name) or the tree display column. */
export async function rowLabels(
  db: Queryable,
  reader: Actor,
  directoryId: string,
  displayColumn: string | null,
  rowIds: readonly string[],
): Promise<Map<string, { label: string; deleted: boolean }>> {
  const labels = new Map<string, { label: string; deleted: boolean }>();
  // A directory outside a bot's key gives it no labels (its rows are not the key's to read).
  if (!mayReadDirectory(reader, directoryId)) return labels;
  const directory = await repo.findDirectory(db, reader.organizationId, directoryId);
  if (!directory) return labels;
  const named = displayColumn
    ? directory.columns.findIndex((c) => c.name.toLowerCase() === displayColumn.toLowerCase())
    : -1;
  const index = named >= 0 ? named : directory.tree_display_column_index;
  for (const row of await repo.findRows(db, reader.organizationId, rowIds)) {
    if (row.directory_id !== directoryId) continue;
    labels.set(row.id, { label: cellLabel(row.cells, index), deleted: row.deleted_at !== null });
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

/**
 * Whether the organization has the directory, deleted ones too (a key's list may keep a directory
 * that can be restored, as it keeps a deleted form).
 */
export function directoryKnown(db: Queryable, organizationId: string, directoryId: string): Promise<boolean> {
  return repo.anyDirectoryExists(db, organizationId, directoryId);
}

export async function directoryExists(db: Queryable, organizationId: string, directoryId: string): Promise<boolean> {
  return (await repo.findDirectory(db, organizationId, directoryId)) !== undefined;
}
