import { directoriesApi } from '@shared/api/directories';
import { defineRoute } from '../../platform/http/routes';
import * as csv from './csv.service';
import * as directories from './directories.service';
import * as rows from './rows.service';

export function directoriesRoutes(deps: directories.DirectoriesDeps) {
  return [
    defineRoute({
      ...directoriesApi.listDirectories,
      bots: 'read',
      handler: async ({ auth }) => ({ status: 200, body: await directories.listDirectories(deps, auth) }),
    }),
    // Before /api/directories/:directoryId, which would otherwise take "deleted" for an id.
    defineRoute({
      ...directoriesApi.listDeletedDirectories,
      access: 'admin',
      bots: 'read',
      handler: async ({ auth }) => ({ status: 200, body: await directories.listDeletedDirectories(deps, auth) }),
    }),
    defineRoute({
      ...directoriesApi.restoreDirectory,
      access: 'admin',
      bots: 'write',
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await directories.restoreDirectory(deps, auth, params.directoryId),
      }),
    }),
    defineRoute({
      ...directoriesApi.createDirectory,
      access: 'admin',
      bots: 'write',
      handler: async ({ auth, body }) => ({ status: 201, body: await directories.createDirectory(deps, auth, body) }),
    }),
    defineRoute({
      ...directoriesApi.getDirectory,
      bots: 'read',
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await directories.getDirectory(deps, auth, params.directoryId),
      }),
    }),
    defineRoute({
      ...directoriesApi.updateDirectory,
      access: 'admin',
      bots: 'write',
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await directories.updateDirectory(deps, auth, params.directoryId, body),
      }),
    }),
    defineRoute({
      ...directoriesApi.deleteDirectory,
      access: 'admin',
      bots: 'write',
      handler: async ({ auth, params }) => {
        await directories.deleteDirectory(deps, auth, params.directoryId);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...directoriesApi.getRowTree,
      bots: 'read',
      handler: async ({ auth, params, query }) => ({
        status: 200,
        body: await rows.rowTree(deps, auth, params.directoryId, query),
      }),
    }),
    defineRoute({
      ...directoriesApi.listRows,
      bots: 'read',
      handler: async ({ auth, params, query }) => ({
        status: 200,
        body: await rows.listRows(deps, auth, params.directoryId, query),
      }),
    }),
    defineRoute({
      ...directoriesApi.createRow,
      bots: 'write',
      handler: async ({ auth, params, body }) => ({
        status: 201,
        body: await rows.createRow(deps, auth, params.directoryId, body),
      }),
    }),
    defineRoute({
      ...directoriesApi.updateRow,
      bots: 'write',
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await rows.updateRow(deps, auth, params.directoryId, params.rowId, body),
      }),
    }),
    defineRoute({
      ...directoriesApi.deleteRow,
      bots: 'write',
      handler: async ({ auth, params }) => {
        await rows.deleteRow(deps, auth, params.directoryId, params.rowId);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...directoriesApi.listDeletedRows,
      bots: 'read',
      handler: async ({ auth, params, query }) => ({
        status: 200,
        body: await rows.listDeletedRows(deps, auth, params.directoryId, query),
      }),
    }),
    defineRoute({
      ...directoriesApi.restoreRow,
      bots: 'write',
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await rows.restoreRow(deps, auth, params.directoryId, params.rowId),
      }),
    }),
    defineRoute({
      ...directoriesApi.moveRow,
      bots: 'write',
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await rows.moveRow(deps, auth, params.directoryId, params.rowId, body),
      }),
    }),
    defineRoute({
      ...directoriesApi.importRows,
      bots: 'write',
      // The CSV travels inside the JSON body: up to 20 million characters, beyond BODY_LIMIT.
      bodyLimit: '64mb',
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await csv.importCsv(deps, auth, params.directoryId, body),
      }),
    }),
    defineRoute({
      ...directoriesApi.exportRows,
      bots: 'read',
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await csv.exportCsv(deps, auth, params.directoryId),
        headers: { 'Content-Disposition': `attachment; filename="directory-${params.directoryId}.csv"` },
      }),
    }),
  ];
}
