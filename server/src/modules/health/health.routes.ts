import { Health } from '@shared/api/health';
import { defineRoute } from '../../platform/http/routes';
import type { ModuleContext } from '../../platform/module';
import { checkDatabase } from './health.service';

export function healthRoutes(context: ModuleContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/health',
      access: 'public',
      operationId: 'getHealth',
      summary: 'Server, database and (when shared) Redis state',
      description:
        'Answers 200 while the database answers, 503 when it does not or the server is stopping. Redis, when configured, is reported without affecting the status.',
      tags: ['platform'],
      responses: {
        200: { description: 'Serving', schema: Health },
        503: { description: 'Database down or server stopping', schema: Health },
      },
      handler: async ({ log }) => {
        const database = await checkDatabase(context.db, log);
        const status = context.state.stopping ? 'stopping' : database.status === 'up' ? 'ok' : 'degraded';
        const body: Health = {
          status,
          version: context.state.version,
          uptimeSeconds: Math.floor((Date.now() - context.state.startedAt) / 1000),
          database,
          ...(context.fanOut ? { redis: { status: context.fanOut.connected() ? 'up' : 'down' } } : {}),
        };
        return { status: status === 'ok' ? 200 : 503, body, headers: { 'Cache-Control': 'no-store' } };
      },
    }),
  ];
}
