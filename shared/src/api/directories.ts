import { z } from 'zod';
import { endpoint } from './endpoint';

export const ColumnType = z.enum(['text', 'number', 'date', 'checkbox']);

export const DirectoryColumn = z
  .object({ name: z.string().trim().min(1).max(200), type: ColumnType.default('text') })
  .meta({ id: 'DirectoryColumn' });

export const CreateDirectoryRequest = z
  .object({
    id: z.uuid().optional(),
    name: z.string().trim().min(1).max(200),
    columns: z.array(DirectoryColumn).min(1).max(100),
    parentDirectoryId: z.uuid().nullable().optional(),
    parentRowIds: z.array(z.uuid()).max(10_000).default([]),
    tree_display_column_index: z.number().int().min(0).default(0),
    treeColumnIndex: z.number().int().min(0).nullable().default(null),
  })
  .meta({ id: 'CreateDirectoryRequest' });

export const UpdateDirectoryRequest = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    columns: z.array(DirectoryColumn).min(1).max(100).optional().meta({
      description:
        'The whole column list; columns may be added at the end or renamed, not removed while rows hold values',
    }),
    parentRowIds: z.array(z.uuid()).max(10_000).optional(),
    tree_display_column_index: z.number().int().min(0).optional(),
    treeColumnIndex: z.number().int().min(0).nullable().optional(),
  })
  .meta({ id: 'UpdateDirectoryRequest' });

export const Directory = z
  .object({
    id: z.uuid(),
    name: z.string(),
    columns: z.array(z.object({ name: z.string(), type: ColumnType })),
    parentDirectoryId: z.uuid().nullable(),
    parentRowIds: z.array(z.uuid()),
    tree_display_column_index: z.number().int(),
    treeColumnIndex: z.number().int().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Directory' });
export type Directory = z.infer<typeof Directory>;

export const DirectoryList = z.object({ items: z.array(Directory) }).meta({ id: 'DirectoryList' });

export const DeletedDirectory = z
  .object({
    id: z.uuid(),
    name: z.string(),
    /** The sub-directory's parent, when it has one: restored only while that one is not deleted. */
    parentDirectoryId: z.uuid().nullable(),
    deletedAt: z.iso.datetime(),
    /** Rows it keeps: a restored directory has them all, its tree as it was. */
    rowCount: z.number().int().nonnegative(),
  })
  .meta({ id: 'DeletedDirectory' });
export type DeletedDirectory = z.infer<typeof DeletedDirectory>;

export const DeletedDirectoryList = z
  .object({ items: z.array(DeletedDirectory) })
  .meta({ id: 'DeletedDirectoryList', description: 'Deleted directories, most recently deleted first' });
export type DeletedDirectoryList = z.infer<typeof DeletedDirectoryList>;

/** A cell value: text, a normalised number (string), a date, a boolean, or null. */
export const Cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const RowInput = z
  .object({
    id: z.uuid().optional(),
    parentId: z.uuid().nullable().default(null),
    position: z.number().int().min(0).optional(),
    cells: z.array(Cell).max(100),
    parentRowIds: z.array(z.uuid()).max(10_000).default([]),
  })
  .meta({ id: 'RowInput' });

/**
 * Cells named by their column's index (`{"2": "Tula"}`): only these change, the row's other cells
 * stay as they are on the server, so an editor saving what its user changed keeps a colleague's
 * change of another cell made meanwhile.
 */
export const CellChanges = z
  .record(z.string().regex(/^(0|[1-9][0-9]{0,2})$/, 'a column index'), Cell)
  .refine((changes) => Object.keys(changes).length <= 100, 'at most 100 cells')
  .meta({ id: 'CellChanges' });
export type CellChanges = z.infer<typeof CellChanges>;
type CellValue = z.infer<typeof Cell>;

/** A row's cells with `changes` made (by column index); cells missing before a changed one are null. */
export function withCellChanges(cells: readonly CellValue[], changes: CellChanges): CellValue[] {
  const out = [...cells];
  for (const [key, value] of Object.entries(changes)) {
    const index = Number(key);
    while (out.length < index) out.push(null);
    out[index] = value;
  }
  return out;
}

export const UpdateRowRequest = z
  .object({
    cells: z
      .union([z.array(Cell).max(100), CellChanges])
      .optional()
      .meta({ description: 'Every cell in column order, or only the cells to change by column index' }),
    parentRowIds: z.array(z.uuid()).max(10_000).optional(),
  })
  .meta({ id: 'UpdateRowRequest' });

export const MoveRowRequest = z
  .object({ parentId: z.uuid().nullable(), position: z.number().int().min(0) })
  .meta({ id: 'MoveRowRequest' });

export const Row = z
  .object({
    id: z.uuid(),
    parentId: z.uuid().nullable(),
    position: z.number().int(),
    cells: z.array(Cell),
    parentRowIds: z.array(z.uuid()),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Row' });
export type Row = z.infer<typeof Row>;

export const RowList = z.object({ items: z.array(Row), nextCursor: z.string().nullable() }).meta({ id: 'RowList' });

export const DeletedRow = Row.extend({
  deletedAt: z.iso.datetime(),
  /** Who deleted it (null for rows deleted before this was recorded, or by someone since removed). */
  deletedBy: z.object({ id: z.uuid(), name: z.string() }).nullable(),
}).meta({ id: 'DeletedRow' });
export type DeletedRow = z.infer<typeof DeletedRow>;

export const DeletedRowList = z
  .object({ items: z.array(DeletedRow), nextCursor: z.string().nullable() })
  .meta({ id: 'DeletedRowList', description: 'A directory’s deleted rows, most recently deleted first' });
export type DeletedRowList = z.infer<typeof DeletedRowList>;

export const DeletedRowQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(300).optional(),
});

export const RowListQuery = z.object({
  q: z.string().trim().max(200).optional().meta({ description: 'Substring of any cell, case-insensitive' }),
  sort: z.coerce.number().int().min(0).optional().meta({ description: 'Column index to sort by' }),
  order: z.enum(['asc', 'desc']).default('asc'),
  parentRowId: z.uuid().optional().meta({ description: 'Only rows offered under this row of the parent directory' }),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z.string().max(300).optional(),
});

export interface TreeNodeShape {
  kind: 'row' | 'column_value';
  id: string;
  label: string;
  rowId?: string;
  value?: string | null;
  children: TreeNodeShape[];
}

export const TreeNode: z.ZodType<TreeNodeShape> = z
  .lazy(() =>
    z.object({
      kind: z.enum(['row', 'column_value']),
      id: z.string().meta({ description: 'Row id, or `value:<value>` for a column-value node' }),
      label: z.string(),
      rowId: z.uuid().optional(),
      value: z.string().nullable().optional(),
      children: z.array(TreeNode),
    }),
  )
  .meta({ id: 'TreeNode' });

export const RowTree = z
  .object({
    displayColumnIndex: z.number().int(),
    treeColumnIndex: z.number().int().nullable(),
    nodes: z.array(TreeNode),
  })
  .meta({ id: 'RowTree' });

export const TreeQuery = z.object({
  treeColumnIndex: z
    .union([z.literal('none'), z.coerce.number().int().min(0)])
    .optional()
    .meta({
      description:
        'Group rows by this column’s values; `none` asks for the parent-row tree even when the directory groups by default',
    }),
  displayColumnIndex: z.coerce.number().int().min(0).optional(),
});

export const CsvImportRequest = z
  .object({
    csv: z.string().max(20_000_000),
    mode: z.enum(['append', 'replace']).default('append'),
    dryRun: z
      .boolean()
      .default(false)
      .meta({ description: 'Check only: report what would be imported and every error' }),
  })
  .meta({ id: 'CsvImportRequest' });

export const CsvImportResult = z
  .object({
    imported: z.number().int(),
    dryRun: z.boolean(),
    errors: z.array(z.object({ line: z.number().int(), column: z.string().nullable(), detail: z.string() })),
  })
  .meta({ id: 'CsvImportResult' });
export type CsvImportResult = z.infer<typeof CsvImportResult>;

const DirectoryParams = z.object({ directoryId: z.uuid() });
const RowParams = DirectoryParams.extend({ rowId: z.uuid() });

/** The operations on directories, their rows, row trees and CSV import and export. */
export const directoriesApi = {
  listDirectories: endpoint({
    method: 'get',
    path: '/api/directories',
    operationId: 'listDirectories',
    summary: 'Directories (reference tables) of the organization',
    tags: ['directories'],
    responses: { 200: { description: 'Directories', schema: DirectoryList } },
  }),
  listDeletedDirectories: endpoint({
    method: 'get',
    path: '/api/directories/deleted',
    operationId: 'listDeletedDirectories',
    summary: 'The organization’s deleted directories, most recently deleted first (restore brings one back)',
    tags: ['directories'],
    responses: { 200: { description: 'Deleted directories', schema: DeletedDirectoryList } },
  }),
  restoreDirectory: endpoint({
    method: 'post',
    path: '/api/directories/:directoryId/restore',
    operationId: 'restoreDirectory',
    summary: 'Bring a deleted directory back with its rows; a directory not deleted is returned as it is',
    description: 'A sub-directory whose parent directory is deleted answers 409: restore the parent first.',
    tags: ['directories'],
    request: { params: DirectoryParams },
    responses: { 200: { description: 'Directory', schema: Directory } },
  }),
  createDirectory: endpoint({
    method: 'post',
    path: '/api/directories',
    operationId: 'createDirectory',
    summary: 'Create a directory, or a sub-directory bound to rows of its parent',
    tags: ['directories'],
    request: { body: CreateDirectoryRequest },
    responses: { 201: { description: 'Directory', schema: Directory } },
  }),
  getDirectory: endpoint({
    method: 'get',
    path: '/api/directories/:directoryId',
    operationId: 'getDirectory',
    summary: 'One directory',
    tags: ['directories'],
    request: { params: DirectoryParams },
    responses: { 200: { description: 'Directory', schema: Directory } },
  }),
  updateDirectory: endpoint({
    method: 'patch',
    path: '/api/directories/:directoryId',
    operationId: 'updateDirectory',
    summary: 'Rename, add columns, set the tree columns or the bound parent rows',
    tags: ['directories'],
    request: { params: DirectoryParams, body: UpdateDirectoryRequest },
    responses: { 200: { description: 'Directory', schema: Directory } },
  }),
  deleteDirectory: endpoint({
    method: 'delete',
    path: '/api/directories/:directoryId',
    operationId: 'deleteDirectory',
    summary: 'Delete a directory (tasks keep showing the rows they chose, as deleted)',
    tags: ['directories'],
    request: { params: DirectoryParams },
    responses: { 204: { description: 'Deleted' } },
  }),
  getRowTree: endpoint({
    method: 'get',
    path: '/api/directories/:directoryId/rows/tree',
    operationId: 'getRowTree',
    summary: 'The rows as a tree (by parent links, or grouped by a column’s values)',
    tags: ['directories'],
    request: { params: DirectoryParams, query: TreeQuery },
    responses: { 200: { description: 'Tree', schema: RowTree } },
  }),
  listRows: endpoint({
    method: 'get',
    path: '/api/directories/:directoryId/rows',
    operationId: 'listRows',
    summary: 'Rows, page by page, sorted by a column or by position, searched by substring',
    tags: ['directories'],
    request: { params: DirectoryParams, query: RowListQuery },
    responses: { 200: { description: 'A page of rows', schema: RowList } },
  }),
  createRow: endpoint({
    method: 'post',
    path: '/api/directories/:directoryId/rows',
    operationId: 'createRow',
    summary: 'Add a row (cells in column order)',
    tags: ['directories'],
    request: { params: DirectoryParams, body: RowInput },
    responses: { 201: { description: 'Row', schema: Row } },
  }),
  updateRow: endpoint({
    method: 'patch',
    path: '/api/directories/:directoryId/rows/:rowId',
    operationId: 'updateRow',
    summary: 'Edit a row’s cells or bound parent rows',
    tags: ['directories'],
    request: { params: RowParams, body: UpdateRowRequest },
    responses: { 200: { description: 'Row', schema: Row } },
  }),
  deleteRow: endpoint({
    method: 'delete',
    path: '/api/directories/:directoryId/rows/:rowId',
    operationId: 'deleteRow',
    summary: 'Delete a row (its children move up to its parent)',
    tags: ['directories'],
    request: { params: RowParams },
    responses: { 204: { description: 'Deleted' } },
  }),
  listDeletedRows: endpoint({
    method: 'get',
    path: '/api/directories/:directoryId/rows/deleted',
    operationId: 'listDeletedRows',
    summary: 'The directory’s deleted rows, most recently deleted first (restore brings one back)',
    tags: ['directories'],
    request: { params: DirectoryParams, query: DeletedRowQuery },
    responses: { 200: { description: 'A page of deleted rows', schema: DeletedRowList } },
  }),
  restoreRow: endpoint({
    method: 'post',
    path: '/api/directories/:directoryId/rows/:rowId/restore',
    operationId: 'restoreRow',
    summary: 'Restore a deleted row, in its place, with the children its deletion moved up',
    description:
      'A row not deleted is answered as it is. A row whose parent was deleted too comes back under its nearest live ancestor.',
    tags: ['directories'],
    request: { params: RowParams },
    responses: { 200: { description: 'Row', schema: Row } },
  }),
  moveRow: endpoint({
    method: 'patch',
    path: '/api/directories/:directoryId/rows/:rowId/move',
    operationId: 'moveRow',
    summary: 'Re-parent a row and place it among its siblings (drag and drop)',
    description:
      'A move under the row itself or its descendants answers 409 `tree_cycle`; a parent of another directory 409 `cross_directory`.',
    tags: ['directories'],
    request: { params: RowParams, body: MoveRowRequest },
    responses: { 200: { description: 'Row', schema: Row } },
  }),
  importRows: endpoint({
    method: 'post',
    path: '/api/directories/:directoryId/import',
    operationId: 'importRows',
    summary: 'Import rows from CSV, all or nothing (dryRun previews every error)',
    tags: ['directories'],
    request: { params: DirectoryParams, body: CsvImportRequest },
    responses: { 200: { description: 'Import result', schema: CsvImportResult } },
  }),
  exportRows: endpoint({
    method: 'get',
    path: '/api/directories/:directoryId/export',
    operationId: 'exportRows',
    summary: 'The rows as CSV (id, parent_id, then the columns)',
    tags: ['directories'],
    request: { params: DirectoryParams },
    responses: { 200: { description: 'CSV file', contentType: 'text/csv' } },
  }),
};
