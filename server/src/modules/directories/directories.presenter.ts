import type { DeletedDirectory, DeletedRow, Directory, Row, TreeNodeShape } from '@shared/api/directories';
import type { DeletedDirectoryRecord, DeletedRowRecord, DirectoryRow, RowRecord } from './directories.repo';

export function presentDirectory(d: DirectoryRow): Directory {
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

export function presentDeletedDirectory(d: DeletedDirectoryRecord): DeletedDirectory {
  return {
    id: d.id,
    name: d.name,
    parentDirectoryId: d.parent_directory_id,
    deletedAt: d.deleted_at.toISOString(),
    rowCount: Number(d.row_count),
  };
}

export function presentRow(r: RowRecord): Row {
  return {
    id: r.id,
    parentId: r.parent_id,
    position: r.position,
    cells: r.cells,
    parentRowIds: r.parent_row_ids,
    updatedAt: r.updated_at.toISOString(),
  };
}

export function presentDeletedRow(r: DeletedRowRecord): DeletedRow {
  return {
    ...presentRow(r),
    deletedAt: r.deleted_at.toISOString(),
    deletedBy: r.deleted_by_id ? { id: r.deleted_by_id, name: r.deleted_by_name ?? '' } : null,
  };
}

/** The cell at `index` as text (empty when there is none). */
export function cellLabel(cells: RowRecord['cells'], index: number): string {
  const value = cells[index];
  return value === null || value === undefined ? '' : String(value);
}

/** Builds the row tree (by parent links) or the column-value tree, in one pass over the rows. */
export function buildTree(
  rows: readonly RowRecord[],
  displayColumnIndex: number,
  treeColumnIndex: number | null,
): TreeNodeShape[] {
  const rowNode = (row: RowRecord): TreeNodeShape => ({
    kind: 'row',
    id: row.id,
    rowId: row.id,
    label: cellLabel(row.cells, displayColumnIndex),
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
