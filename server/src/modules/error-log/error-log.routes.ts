import { errorLogApi } from '@shared/api/error-log';
import type { Db } from '../../platform/db/db';
import { defineRoute } from '../../platform/http/routes';
import { deleteErrorLogs, listErrorLogs } from './error-log.service';

/** Administrators read and clear their organization's error log. */
export function errorLogRoutes(db: Db) {
  return [
    defineRoute({
      ...errorLogApi.listErrorLogs,
      access: 'admin',
      handler: async ({ auth, query }) => ({
        status: 200,
        body: await listErrorLogs(db, auth, query),
        headers: { 'Cache-Control': 'no-store' },
      }),
    }),
    defineRoute({
      ...errorLogApi.deleteErrorLogs,
      access: 'admin',
      handler: async ({ auth, query }) => ({ status: 200, body: await deleteErrorLogs(db, auth, query) }),
    }),
  ];
}
