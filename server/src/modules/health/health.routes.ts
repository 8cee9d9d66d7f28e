import { type Health, healthApi } from '@shared/api/health';
import { defineRoute } from '../../platform/http/routes';
import type { ModuleContext } from '../../platform/module';
import { checkDatabase } from './health.service';

export function healthRoutes(context: ModuleContext) {
  return [
    defineRoute({
      ...healthApi.getHealth,
      access: 'public',
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
