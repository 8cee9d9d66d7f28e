import { z } from 'zod';
import { endpoint } from './endpoint';

const DateTime = z.iso.datetime({ offset: true });

/** One entry of the error log: identical errors within 60 seconds are one entry with a count. */
export const ErrorLogEntry = z
  .object({
    id: z.uuid(),
    method: z.string(),
    path: z.string().meta({ description: 'The request path, without its query string' }),
    status: z.number().int(),
    code: z.string().nullable().meta({ description: 'The problem code, e.g. `not_found`' }),
    message: z.string().meta({ description: 'The problem detail of the latest occurrence' }),
    requestId: z.string().meta({ description: 'The request id of the latest occurrence' }),
    userId: z.uuid().nullable().meta({ description: 'The caller of the latest occurrence, if signed in' }),
    botId: z
      .uuid()
      .nullable()
      .meta({ description: 'The bot whose API key made the latest occurrence, if a bot (null once deleted)' }),
    count: z.number().int().positive(),
    firstSeenAt: z.iso.datetime(),
    lastSeenAt: z.iso.datetime(),
  })
  .meta({ id: 'ErrorLogEntry' });
export type ErrorLogEntry = z.infer<typeof ErrorLogEntry>;

export const ErrorLogQuery = z.object({
  status: z.coerce.number().int().min(400).max(599).optional(),
  code: z.string().trim().min(1).max(100).optional(),
  method: z
    .string()
    .regex(/^[A-Za-z]{1,16}$/, 'Give an HTTP method such as GET')
    .toUpperCase()
    .optional(),
  path: z.string().min(1).max(2000).optional().meta({ description: 'Part of the path, case-insensitive' }),
  since: DateTime.optional().meta({ description: 'Last seen at or after this moment' }),
  until: DateTime.optional().meta({ description: 'Last seen before this moment' }),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
});

export const ErrorLogList = z
  .object({ items: z.array(ErrorLogEntry), nextCursor: z.string().nullable() })
  .meta({ id: 'ErrorLogList' });
export type ErrorLogList = z.infer<typeof ErrorLogList>;

const Ids = z
  .string()
  .transform((value) => value.split(',').map((id) => id.trim()))
  .pipe(z.array(z.uuid('Give entry ids as comma-separated UUIDs')).min(1).max(500));

/** Which entries to delete: the listed ones, or those last seen before a moment; neither: all. */
export const DeleteErrorLogsQuery = z
  .object({
    ids: Ids.optional().meta({ description: 'Comma-separated entry ids' }),
    before: DateTime.optional().meta({ description: 'Delete the entries last seen before this moment' }),
  })
  .refine((query) => query.ids === undefined || query.before === undefined, {
    message: 'Give ids or before, not both',
    path: ['before'],
  });

export const ErrorLogsDeleted = z.object({ deleted: z.number().int().nonnegative() }).meta({ id: 'ErrorLogsDeleted' });

/** Administrators read and clear their organization's error log. */
export const errorLogApi = {
  listErrorLogs: endpoint({
    method: 'get',
    path: '/api/error-logs',
    operationId: 'listErrorLogs',
    summary: 'Errors of the organization’s requests, newest first',
    description:
      'Responses with status 400 or higher, except 401, health checks and the event stream. Identical errors ' +
      '(same method, path, status and code) within 60 seconds of the first are one entry with a count.',
    tags: ['error-log'],
    request: { query: ErrorLogQuery },
    responses: { 200: { description: 'A page of entries', schema: ErrorLogList } },
  }),
  deleteErrorLogs: endpoint({
    method: 'delete',
    path: '/api/error-logs',
    operationId: 'deleteErrorLogs',
    summary: 'Delete entries of the error log: the listed ones, the older ones, or all',
    description: 'With `ids`, those entries; with `before`, the entries last seen before it; with neither, all.',
    tags: ['error-log'],
    request: { query: DeleteErrorLogsQuery },
    responses: { 200: { description: 'How many entries were deleted', schema: ErrorLogsDeleted } },
  }),
};
