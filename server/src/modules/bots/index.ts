import type { ModuleFactory } from '../../platform/module';
import { botsRoutes } from './bots.routes';
import { createKeyResolver } from './bots.service';

export { createKeyResolver } from './bots.service';

/**
 * Bots: how machines act in an organization. Administrators manage them and their API keys (one
 * per bot, scoped by mode, forms and directories); a key authenticates as its bot on the routes
 * declared for bots (`bots` in `defineRoute`).
 */
export const botsModule: ModuleFactory = (context) => {
  const deps = { db: context.db, events: context.events };
  return {
    name: 'bots',
    routes: botsRoutes(deps),
    authenticateKey: createKeyResolver(deps),
  };
};
