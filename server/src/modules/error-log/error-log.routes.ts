import { DeleteErrorLogsQuery, ErrorLogList, ErrorLogQuery, ErrorLogsDeleted } from '@shared/api/error-log';
import type { Db } from '../../platform/db/db';
import { defineRoute } from '../../platform/http/routes';
import { deleteErrorLogs, listErrorLogs } from './error-log.service';

/** Administrators read and clear their organization's error log. */
export function errorLogRoutes(db: Db) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/error-logs',
      access: 'admin',
      operationId: 'listErrorLogs',
      summary: 'Errors of the organization’s requests, newest first',
      description:
        'Responses with status 400 or higher, except 401, health checks and the event stream. Identical errors ' +
        '(same method, path, status and code) within 60 seconds of the first are one entry with a count.',
      tags: ['error-log'],
      request: { query: ErrorLogQuery },
      responses: { 200: { description: 'A page of entries', schema: ErrorLogList } },
      handler: async ({ auth, query }) => ({
        status: 200,
        body: await listErrorLogs(db, auth, query),
        headers: { 'Cache-Control': 'no-store' },
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/error-logs',
      access: 'admin',
      operationId: 'deleteErrorLogs',
      summary: 'Delete entries of the error log: the listed ones, the older ones, or all',
      description: 'With `ids`, those entries; with `before`, the entries last seen before it; with neither, all.',
      tags: ['error-log'],
      request: { query: DeleteErrorLogsQuery },
      responses: { 200: { description: 'How many entries were deleted', schema: ErrorLogsDeleted } },
      handler: async ({ auth, query }) => ({ status: 200, body: await deleteErrorLogs(db, auth, query) }),
    }),
  ];
}
