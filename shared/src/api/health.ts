import { z } from 'zod';
import { endpoint } from './endpoint';

/** The database the server stands on: a PostgreSQL server, or the embedded PGlite engine. */
export const DatabaseEngine = z.enum(['postgres', 'pglite']);
export type DatabaseEngine = z.infer<typeof DatabaseEngine>;

/** Server and database state, as reported by `GET /api/health`. */
export const Health = z
  .object({
    status: z.enum(['ok', 'degraded', 'stopping']).meta({
      description: '`ok`: serving; `degraded`: the database does not answer; `stopping`: shutting down',
    }),
    version: z.string(),
    uptimeSeconds: z.number().int().nonnegative(),
    database: z.object({
      status: z.enum(['up', 'down']),
      engine: DatabaseEngine,
      latencyMs: z.number().nonnegative().optional(),
      schemaVersion: z.string().nullable().optional().meta({
        description: 'The newest applied migration, e.g. `0001_organizations`',
      }),
    }),
    redis: z
      .object({ status: z.enum(['up', 'down']) })
      .optional()
      .meta({
        description:
          'Present when server instances share Redis (`REDIS_URL`); `down` does not make the server degraded: instances then find each other’s changes by polling',
      }),
  })
  .meta({ id: 'Health' });
export type Health = z.infer<typeof Health>;

/** The server's health check. */
export const healthApi = {
  getHealth: endpoint({
    method: 'get',
    path: '/api/health',
    operationId: 'getHealth',
    summary: 'Server, database and (when shared) Redis state',
    description:
      'Answers 200 while the database answers, 503 when it does not or the server is stopping. Redis, when configured, is reported without affecting the status.',
    tags: ['platform'],
    responses: {
      200: { description: 'Serving', schema: Health },
      503: { description: 'Database down or server stopping', schema: Health },
    },
  }),
};
