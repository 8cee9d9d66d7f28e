import {
  CreateDirectoryRequest,
  CsvImportRequest,
  CsvImportResult,
  DeletedDirectoryList,
  DeletedRowList,
  DeletedRowQuery,
  Directory,
  DirectoryList,
  MoveRowRequest,
  Row,
  RowInput,
  RowList,
  RowListQuery,
  RowTree,
  TreeQuery,
  UpdateDirectoryRequest,
  UpdateRowRequest,
} from '@shared/api/directories';
import { z } from 'zod';
import { defineRoute } from '../../platform/http/routes';
import * as csv from './csv.service';
import * as directories from './directories.service';
import * as rows from './rows.service';

const DirectoryParams = z.object({ directoryId: z.uuid() });
const RowParams = DirectoryParams.extend({ rowId: z.uuid() });

export function directoriesRoutes(deps: directories.DirectoriesDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/directories',
      operationId: 'listDirectories',
      summary: 'Directories (reference tables) of the organization',
      tags: ['directories'],
      responses: { 200: { description: 'Directories', schema: DirectoryList } },
      handler: async ({ auth }) => ({ status: 200, body: await directories.listDirectories(deps, auth) }),
    }),
    // Before /api/directories/:directoryId, which would otherwise take "deleted" for an id.
    defineRoute({
      method: 'get',
      path: '/api/directories/deleted',
      access: 'admin',
      operationId: 'listDeletedDirectories',
      summary: 'The organization’s deleted directories, most recently deleted first (restore brings one back)',
      tags: ['directories'],
      responses: { 200: { description: 'Deleted directories', schema: DeletedDirectoryList } },
      handler: async ({ auth }) => ({ status: 200, body: await directories.listDeletedDirectories(deps, auth) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/directories/:directoryId/restore',
      access: 'admin',
      operationId: 'restoreDirectory',
      summary: 'Bring a deleted directory back with its rows; a directory not deleted is returned as it is',
      description: 'A sub-directory whose parent directory is deleted answers 409: restore the parent first.',
      tags: ['directories'],
      request: { params: DirectoryParams },
      responses: { 200: { description: 'Directory', schema: Directory } },
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await directories.restoreDirectory(deps, auth, params.directoryId),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/directories',
      access: 'admin',
      operationId: 'createDirectory',
      summary: 'Create a directory, or a sub-directory bound to rows of its parent',
      tags: ['directories'],
      request: { body: CreateDirectoryRequest },
      responses: { 201: { description: 'Directory', schema: Directory } },
      handler: async ({ auth, body }) => ({ status: 201, body: await directories.createDirectory(deps, auth, body) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/directories/:directoryId',
      operationId: 'getDirectory',
      summary: 'One directory',
      tags: ['directories'],
      request: { params: DirectoryParams },
      responses: { 200: { description: 'Directory', schema: Directory } },
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await directories.getDirectory(deps, auth, params.directoryId),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/api/directories/:directoryId',
      access: 'admin',
      operationId: 'updateDirectory',
      summary: 'Rename, add columns, set the tree columns or the bound parent rows',
      tags: ['directories'],
      request: { params: DirectoryParams, body: UpdateDirectoryRequest },
      responses: { 200: { description: 'Directory', schema: Directory } },
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await directories.updateDirectory(deps, auth, params.directoryId, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/directories/:directoryId',
      access: 'admin',
      operationId: 'deleteDirectory',
      summary: 'Delete a directory (tasks keep showing the rows they chose, as deleted)',
      tags: ['directories'],
      request: { params: DirectoryParams },
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ auth, params }) => {
        await directories.deleteDirectory(deps, auth, params.directoryId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/directories/:directoryId/rows/tree',
      operationId: 'getRowTree',
      summary: 'The rows as a tree (by parent links, or grouped by a column’s values)',
      tags: ['directories'],
      request: { params: DirectoryParams, query: TreeQuery },
      responses: { 200: { description: 'Tree', schema: RowTree } },
      handler: async ({ auth, params, query }) => ({
        status: 200,
        body: await rows.rowTree(deps, auth, params.directoryId, query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/directories/:directoryId/rows',
      operationId: 'listRows',
      summary: 'Rows, page by page, sorted by a column or by position, searched by substring',
      tags: ['directories'],
      request: { params: DirectoryParams, query: RowListQuery },
      responses: { 200: { description: 'A page of rows', schema: RowList } },
      handler: async ({ auth, params, query }) => ({
        status: 200,
        body: await rows.listRows(deps, auth, params.directoryId, query),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/directories/:directoryId/rows',
      operationId: 'createRow',
      summary: 'Add a row (cells in column order)',
      tags: ['directories'],
      request: { params: DirectoryParams, body: RowInput },
      responses: { 201: { description: 'Row', schema: Row } },
      handler: async ({ auth, params, body }) => ({
        status: 201,
        body: await rows.createRow(deps, auth, params.directoryId, body),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/api/directories/:directoryId/rows/:rowId',
      operationId: 'updateRow',
      summary: 'Edit a row’s cells or bound parent rows',
      tags: ['directories'],
      request: { params: RowParams, body: UpdateRowRequest },
      responses: { 200: { description: 'Row', schema: Row } },
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await rows.updateRow(deps, auth, params.directoryId, params.rowId, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/directories/:directoryId/rows/:rowId',
      operationId: 'deleteRow',
      summary: 'Delete a row (its children move up to its parent)',
      tags: ['directories'],
      request: { params: RowParams },
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ auth, params }) => {
        await rows.deleteRow(deps, auth, params.directoryId, params.rowId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/directories/:directoryId/rows/deleted',
      operationId: 'listDeletedRows',
      summary: 'The directory’s deleted rows, most recently deleted first (restore brings one back)',
      tags: ['directories'],
      request: { params: DirectoryParams, query: DeletedRowQuery },
      responses: { 200: { description: 'A page of deleted rows', schema: DeletedRowList } },
      handler: async ({ auth, params, query }) => ({
        status: 200,
        body: await rows.listDeletedRows(deps, auth, params.directoryId, query),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/directories/:directoryId/rows/:rowId/restore',
      operationId: 'restoreRow',
      summary: 'Restore a deleted row, in its place, with the children its deletion moved up',
      description:
        'A row not deleted is answered as it is. A row whose parent was deleted too comes back under its nearest live ancestor.',
      tags: ['directories'],
      request: { params: RowParams },
      responses: { 200: { description: 'Row', schema: Row } },
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await rows.restoreRow(deps, auth, params.directoryId, params.rowId),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/api/directories/:directoryId/rows/:rowId/move',
      operationId: 'moveRow',
      summary: 'Re-parent a row and place it among its siblings (drag and drop)',
      description:
        'A move under the row itself or its descendants answers 409 `tree_cycle`; a parent of another directory 409 `cross_directory`.',
      tags: ['directories'],
      request: { params: RowParams, body: MoveRowRequest },
      responses: { 200: { description: 'Row', schema: Row } },
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await rows.moveRow(deps, auth, params.directoryId, params.rowId, body),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/directories/:directoryId/import',
      operationId: 'importRows',
      summary: 'Import rows from CSV, all or nothing (dryRun previews every error)',
      tags: ['directories'],
      request: { params: DirectoryParams, body: CsvImportRequest },
      // The CSV travels inside the JSON body: up to 20 million characters, beyond BODY_LIMIT.
      bodyLimit: '64mb',
      responses: { 200: { description: 'Import result', schema: CsvImportResult } },
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await csv.importCsv(deps, auth, params.directoryId, body),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/directories/:directoryId/export',
      operationId: 'exportRows',
      summary: 'The rows as CSV (id, parent_id, then the columns)',
      tags: ['directories'],
      request: { params: DirectoryParams },
      responses: { 200: { description: 'CSV file', contentType: 'text/csv' } },
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await csv.exportCsv(deps, auth, params.directoryId),
        headers: { 'Content-Disposition': `attachment; filename="directory-${params.directoryId}.csv"` },
      }),
    }),
  ];
}
