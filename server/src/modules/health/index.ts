import type { ModuleFactory } from '../../platform/module';
import { healthRoutes } from './health.routes';

/** Health: `GET /api/health` for load balancers and operators. */
export const healthModule: ModuleFactory = (context) => ({
  name: 'health',
  routes: healthRoutes(context),
});
