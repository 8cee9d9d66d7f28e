import type { SyncCheckpoint } from '@shared/sync';
import type { Queryable } from '../../platform/db/db';
import { changedSince, checkpointParams, syncColumns } from '../../platform/sync/sync-source';

export interface ColumnDef {
  name: string;
  type: 'text' | 'number' | 'date' | 'checkbox';
}

export interface DirectoryRow {
  id: string;
  name: string;
  columns: ColumnDef[];
  parent_directory_id: string | null;
  parent_row_ids: string[];
  tree_display_column_index: number;
  tree_column_index: number | null;
  created_at: Date;
  updated_at: Date;
}

export interface RowRecord {
  id: string;
  directory_id: string;
  parent_id: string | null;
  position: number;
  cells: (string | number | boolean | null)[];
  parent_row_ids: string[];
  updated_at: Date;
  deleted_at: Date | null;
}

const DIRECTORY_COLUMNS = `id, name, columns, parent_directory_id, parent_row_ids::text[] AS parent_row_ids,
  tree_display_column_index, tree_column_index, created_at, updated_at`;
/** A row's columns as `RowRecord` has them, of the table or of its alias `table`. */
const rowColumns = (table?: string) => {
  const of = table ? `${table}.` : '';
  return `${of}id, ${of}directory_id, ${of}parent_id, ${of}position, ${of}cells,
    ${of}parent_row_ids::text[] AS parent_row_ids, ${of}updated_at, ${of}deleted_at`;
};
const ROW_COLUMNS = rowColumns();

export async function findDirectory(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<DirectoryRow | undefined> {
  const { rows } = await db.query<DirectoryRow>(
    `SELECT ${DIRECTORY_COLUMNS} FROM directories WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL`,
    [organizationId, id],
  );
  return rows[0];
}

export async function listDirectories(db: Queryable, organizationId: string): Promise<DirectoryRow[]> {
  const { rows } = await db.query<DirectoryRow>(
    `SELECT ${DIRECTORY_COLUMNS} FROM directories WHERE organization_id = $1 AND deleted_at IS NULL ORDER BY lower(name), id`,
    [organizationId],
  );
  return rows;
}

export async function insertDirectory(
  db: Queryable,
  organizationId: string,
  d: Omit<DirectoryRow, 'created_at' | 'updated_at'>,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO directories (id, organization_id, name, columns, parent_directory_id, parent_row_ids, tree_display_column_index, tree_column_index)
     VALUES ($1, $2, $3, $4, $5, $6::uuid[], $7, $8) ON CONFLICT (id) DO NOTHING`,
    [
      d.id,
      organizationId,
      d.name,
      JSON.stringify(d.columns),
      d.parent_directory_id,
      d.parent_row_ids,
      d.tree_display_column_index,
      d.tree_column_index,
    ],
  );
  return rowCount === 1;
}

export async function updateDirectory(
  db: Queryable,
  organizationId: string,
  d: Omit<DirectoryRow, 'created_at' | 'updated_at'>,
) {
  await db.query(
    `UPDATE directories SET name = $3, columns = $4, parent_row_ids = $5::uuid[], tree_display_column_index = $6,
       tree_column_index = $7, updated_at = now() WHERE organization_id = $1 AND id = $2`,
    [
      organizationId,
      d.id,
      d.name,
      JSON.stringify(d.columns),
      d.parent_row_ids,
      d.tree_display_column_index,
      d.tree_column_index,
    ],
  );
}

export async function softDeleteDirectory(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE directories SET deleted_at = now(), updated_at = now() WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL',
    [organizationId, id],
  );
  return rowCount === 1;
}

export interface DeletedDirectoryRecord {
  id: string;
  name: string;
  parent_directory_id: string | null;
  deleted_at: Date;
  row_count: string;
}

/** The organization's deleted directories, most recently deleted first, with the rows each keeps. */
export async function listDeletedDirectories(db: Queryable, organizationId: string): Promise<DeletedDirectoryRecord[]> {
  const { rows } = await db.query<DeletedDirectoryRecord>(
    `SELECT d.id, d.name, d.parent_directory_id, d.deleted_at,
            (SELECT count(*) FROM directory_rows r
              WHERE r.organization_id = d.organization_id AND r.directory_id = d.id AND r.deleted_at IS NULL) AS row_count
       FROM directories d WHERE d.organization_id = $1 AND d.deleted_at IS NOT NULL
      ORDER BY d.deleted_at DESC, d.id DESC LIMIT 500`,
    [organizationId],
  );
  return rows;
}

/** A directory, deleted or not, locked for a restore. */
/** Whether the organization has the directory, live or deleted. */
export async function anyDirectoryExists(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM directories WHERE organization_id = $1 AND id = $2', [
    organizationId,
    id,
  ]);
  return rows.length > 0;
}

export async function lockAnyDirectory(db: Queryable, organizationId: string, id: string) {
  const { rows } = await db.query<{ id: string; parent_directory_id: string | null; deleted_at: Date | null }>(
    'SELECT id, parent_directory_id, deleted_at FROM directories WHERE organization_id = $1 AND id = $2 FOR UPDATE',
    [organizationId, id],
  );
  return rows[0];
}

export async function restoreDirectory(db: Queryable, organizationId: string, id: string): Promise<void> {
  await db.query(
    'UPDATE directories SET deleted_at = NULL, updated_at = now() WHERE organization_id = $1 AND id = $2 AND deleted_at IS NOT NULL',
    [organizationId, id],
  );
}

export async function hasSubDirectories(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rows } = await db.query<{ found: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM directories WHERE organization_id = $1 AND parent_directory_id = $2 AND deleted_at IS NULL) AS found',
    [organizationId, id],
  );
  return rows[0]?.found ?? false;
}

export async function findRows(db: Queryable, organizationId: string, ids: readonly string[]): Promise<RowRecord[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<RowRecord>(
    `SELECT ${ROW_COLUMNS} FROM directory_rows WHERE organization_id = $1 AND id = ANY($2::uuid[])`,
    [organizationId, ids],
  );
  return rows;
}

/** Every live row of a directory, parents' order first (for trees). */
export async function allRows(db: Queryable, organizationId: string, directoryId: string): Promise<RowRecord[]> {
  const { rows } = await db.query<RowRecord>(
    `SELECT ${ROW_COLUMNS} FROM directory_rows WHERE organization_id = $1 AND directory_id = $2 AND deleted_at IS NULL
      ORDER BY position, id`,
    [organizationId, directoryId],
  );
  return rows;
}

export async function pageRows(
  db: Queryable,
  organizationId: string,
  directoryId: string,
  q: {
    pattern: string | null;
    sortColumn: number | null;
    descending: boolean;
    parentRowId: string | null;
    offset: number;
    limit: number;
  },
): Promise<RowRecord[]> {
  const direction = q.descending ? 'DESC' : 'ASC';
  // Sorting by a column orders numbers numerically when every value of the column is a number.
  const order =
    q.sortColumn === null
      ? `position ${direction}, id ${direction}`
      : `CASE WHEN jsonb_typeof(cells -> $6::int) = 'number' OR (cells ->> $6::int) ~ '^-?[0-9]+(\\.[0-9]+)?$'
                THEN (cells ->> $6::int)::numeric END ${direction} NULLS LAST,
         lower(cells ->> $6::int) ${direction} NULLS LAST, id ${direction}`;
  const { rows } = await db.query<RowRecord>(
    `SELECT ${ROW_COLUMNS} FROM directory_rows
      WHERE organization_id = $1 AND directory_id = $2 AND deleted_at IS NULL
        AND ($3::text IS NULL OR search_text ILIKE $3)
        AND ($4::uuid IS NULL OR parent_row_ids = '{}' OR $4 = ANY(parent_row_ids))
        AND ($6::int IS NULL OR true)
      ORDER BY ${order} OFFSET $5 LIMIT $7`,
    [organizationId, directoryId, q.pattern, q.parentRowId, q.offset, q.sortColumn, q.limit],
  );
  return rows;
}

export async function insertRows(
  db: Queryable,
  organizationId: string,
  directoryId: string,
  rows: readonly {
    id: string;
    parentId: string | null;
    position: number;
    cells: unknown[];
    parentRowIds: string[];
    searchText: string;
  }[],
): Promise<number> {
  if (rows.length === 0) return 0;
  // An id taken meanwhile (the same client-made row sent twice at once) is skipped, not an error:
  // the caller compares the count with what it asked for.
  const { rowCount } = await db.query(
    `INSERT INTO directory_rows (id, organization_id, directory_id, parent_id, position, cells, parent_row_ids, search_text)
     SELECT r.id, $1, $2, r.parent_id, r.position, r.cells, ARRAY(SELECT jsonb_array_elements_text(r.parent_row_ids))::uuid[], r.search_text
       FROM jsonb_to_recordset($3::jsonb) AS r(id uuid, parent_id uuid, position int, cells jsonb, parent_row_ids jsonb, search_text text)
     ON CONFLICT (id) DO NOTHING`,
    [
      organizationId,
      directoryId,
      JSON.stringify(
        rows.map((r) => ({
          id: r.id,
          parent_id: r.parentId,
          position: r.position,
          cells: r.cells,
          parent_row_ids: r.parentRowIds,
          search_text: r.searchText,
        })),
      ),
    ],
  );
  return rowCount ?? 0;
}

export async function updateRow(
  db: Queryable,
  organizationId: string,
  rowId: string,
  patch: { cells: unknown[]; parentRowIds: string[]; searchText: string },
) {
  await db.query(
    `UPDATE directory_rows SET cells = $3, parent_row_ids = $4::uuid[], search_text = $5, updated_at = now()
      WHERE organization_id = $1 AND id = $2`,
    [organizationId, rowId, JSON.stringify(patch.cells), patch.parentRowIds, patch.searchText],
  );
}

/** How many live rows under `parentId`, other than `rowId`, come before the order value `position`. */
export async function countSiblingsBefore(
  db: Queryable,
  organizationId: string,
  directoryId: string,
  parentId: string | null,
  rowId: string,
  position: number,
): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM directory_rows WHERE organization_id = $1 AND directory_id = $2 AND deleted_at IS NULL
        AND parent_id IS NOT DISTINCT FROM $3 AND id <> $4 AND position < $5::float8`,
    [organizationId, directoryId, parentId, rowId, position],
  );
  return rows[0]?.n ?? 0;
}

/** Takes a row for update (a change that reads its values first), whatever its state. */
export async function lockRow(db: Queryable, organizationId: string, rowId: string): Promise<void> {
  await db.query('SELECT 1 FROM directory_rows WHERE organization_id = $1 AND id = $2 FOR UPDATE', [
    organizationId,
    rowId,
  ]);
}

/**
 * Takes the directory's row tree for the rest of the transaction: changes of its shape (moves,
 * new rows, deletions, imports) run one after another, so each sees the tree the one before left.
 */
export async function lockRowTree(db: Queryable, directoryId: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`directory_rows:${directoryId}`]);
}

/** Live children of a parent (null: roots), in order, locked. */
export async function lockSiblings(
  db: Queryable,
  organizationId: string,
  directoryId: string,
  parentId: string | null,
) {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM directory_rows WHERE organization_id = $1 AND directory_id = $2 AND deleted_at IS NULL
        AND parent_id IS NOT DISTINCT FROM $3 ORDER BY position, id FOR UPDATE`,
    [organizationId, directoryId, parentId],
  );
  return rows.map((row) => row.id);
}

export async function setParentAndPositions(
  db: Queryable,
  organizationId: string,
  parentId: string | null,
  orderedIds: readonly string[],
): Promise<void> {
  await db.query(
    `UPDATE directory_rows r SET parent_id = $2, position = o.ordinality - 1, updated_at = now()
       FROM unnest($3::uuid[]) WITH ORDINALITY AS o(id, ordinality)
      WHERE r.organization_id = $1 AND r.id = o.id`,
    [organizationId, parentId, orderedIds],
  );
}

/** Ancestors of a row, nearest first (stops at a cycle, which the service never lets happen). */
export async function ancestorIds(db: Queryable, organizationId: string, rowId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `WITH RECURSIVE up(id, parent_id, depth) AS (
       SELECT id, parent_id, 0 FROM directory_rows WHERE organization_id = $1 AND id = $2
       UNION ALL
       SELECT r.id, r.parent_id, up.depth + 1 FROM directory_rows r JOIN up ON r.id = up.parent_id
        WHERE up.depth < 10000
     ) SELECT id FROM up WHERE depth > 0 ORDER BY depth`,
    [organizationId, rowId],
  );
  return rows.map((row) => row.id);
}

/** Deletes a row, remembering the children its deletion moves up (`restoreRow` puts them back). */
export async function softDeleteRow(
  db: Queryable,
  organizationId: string,
  rowId: string,
  movedUpIds: readonly string[],
  deletedBy: string | null,
): Promise<void> {
  await db.query(
    `UPDATE directory_rows SET deleted_at = now(), updated_at = now(), moved_up_ids = $3::uuid[], deleted_by = $4
      WHERE organization_id = $1 AND id = $2`,
    [organizationId, rowId, movedUpIds, deletedBy],
  );
}

export type DeletedRowRecord = RowRecord & {
  deleted_at: Date;
  deleted_us: string;
  deleted_by_id: string | null;
  deleted_by_name: string | null;
};

/** A page of a directory's deleted rows, most recently deleted first, after the cursor `(deleted_us, id)`. */
export async function listDeletedRows(
  db: Queryable,
  organizationId: string,
  directoryId: string,
  page: { after?: [string, string]; limit: number },
): Promise<DeletedRowRecord[]> {
  const { rows } = await db.query<DeletedRowRecord>(
    `SELECT ${rowColumns('r')}, (extract(epoch FROM r.deleted_at) * 1000000)::bigint::text AS deleted_us,
            u.id AS deleted_by_id, u.name AS deleted_by_name
       FROM directory_rows r
       LEFT JOIN users u ON u.organization_id = r.organization_id AND u.id = r.deleted_by
      WHERE r.organization_id = $1 AND r.directory_id = $2 AND r.deleted_at IS NOT NULL
        AND ($3::bigint IS NULL OR ((extract(epoch FROM r.deleted_at) * 1000000)::bigint, r.id) < ($3::bigint, $4::uuid))
      ORDER BY r.deleted_at DESC, r.id DESC
      LIMIT $5`,
    [organizationId, directoryId, page.after?.[0] ?? null, page.after?.[1] ?? null, page.limit],
  );
  return rows;
}

/** A deleted row of the directory, locked, with the children its deletion moved up; none when live or unknown. */
export async function lockDeletedRow(
  db: Queryable,
  organizationId: string,
  directoryId: string,
  rowId: string,
): Promise<(RowRecord & { moved_up_ids: string[] }) | undefined> {
  const { rows } = await db.query<RowRecord & { moved_up_ids: string[] }>(
    `SELECT ${ROW_COLUMNS}, COALESCE(moved_up_ids, '{}')::text[] AS moved_up_ids FROM directory_rows
      WHERE organization_id = $1 AND directory_id = $2 AND id = $3 AND deleted_at IS NOT NULL FOR UPDATE`,
    [organizationId, directoryId, rowId],
  );
  return rows[0];
}

/** Brings a deleted row back under `parentId` (its place among its siblings is set by the caller). */
export async function restoreRow(
  db: Queryable,
  organizationId: string,
  rowId: string,
  parentId: string | null,
): Promise<void> {
  await db.query(
    `UPDATE directory_rows SET deleted_at = NULL, moved_up_ids = NULL, parent_id = $3, updated_at = now()
      WHERE organization_id = $1 AND id = $2`,
    [organizationId, rowId, parentId],
  );
}

/** Deletes every live row of the directory, each as a root (a replacing import). */
export async function deleteAllRows(
  db: Queryable,
  organizationId: string,
  directoryId: string,
  deletedBy: string | null,
): Promise<void> {
  await db.query(
    `UPDATE directory_rows SET deleted_at = now(), updated_at = now(), parent_id = NULL, deleted_by = $3
      WHERE organization_id = $1 AND directory_id = $2 AND deleted_at IS NULL`,
    [organizationId, directoryId, deletedBy],
  );
}

/** Removes rows for good, not leaving them deleted: a replacing import frees the ids it brings again. */
export async function hardDeleteRows(
  db: Queryable,
  organizationId: string,
  directoryId: string,
  ids: readonly string[],
): Promise<void> {
  await db.query(
    'DELETE FROM directory_rows WHERE organization_id = $1 AND directory_id = $2 AND id = ANY($3::uuid[])',
    [organizationId, directoryId, ids],
  );
}

/** Where a record stands in commit order, as a pull reads it. */
interface SyncPosition {
  sync_xid: string;
  sync_seq: string;
}

/** Directories changed after `checkpoint`, in commit order. */
export async function directoryChanges(
  db: Queryable,
  organizationId: string,
  checkpoint: SyncCheckpoint | null,
  limit: number,
): Promise<(DirectoryRow & SyncPosition & { deleted_at: Date | null })[]> {
  const { rows } = await db.query<DirectoryRow & SyncPosition & { deleted_at: Date | null }>(
    `SELECT d.id, d.name, d.columns, d.parent_directory_id, d.parent_row_ids::text[] AS parent_row_ids,
            d.tree_display_column_index, d.tree_column_index, d.created_at, d.updated_at, d.deleted_at, ${syncColumns('d')}
       FROM directories d WHERE d.organization_id = $1 AND ${changedSince('d', 2, 3)}
      ORDER BY d.sync_xid, d.sync_seq LIMIT $4`,
    [organizationId, ...checkpointParams(checkpoint), limit],
  );
  return rows;
}

/** Directory rows changed after `checkpoint`, in commit order. */
export async function rowChanges(
  db: Queryable,
  organizationId: string,
  checkpoint: SyncCheckpoint | null,
  limit: number,
): Promise<(RowRecord & SyncPosition)[]> {
  const { rows } = await db.query<RowRecord & SyncPosition>(
    `SELECT r.id, r.directory_id, r.parent_id, r.position, r.cells, r.parent_row_ids::text[] AS parent_row_ids,
            r.updated_at, r.deleted_at, ${syncColumns('r')}
       FROM directory_rows r WHERE r.organization_id = $1 AND ${changedSince('r', 2, 3)}
      ORDER BY r.sync_xid, r.sync_seq LIMIT $4`,
    [organizationId, ...checkpointParams(checkpoint), limit],
  );
  return rows;
}
