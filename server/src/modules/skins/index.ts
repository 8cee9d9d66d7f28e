import type { ModuleFactory } from '../../platform/module';
import { skinsRoutes } from './skins.routes';

/** Organization skins (SPEC §13, §2.14): design tokens, the organization's own and each user's choice. */
export const skinsModule: ModuleFactory = (context) => ({
  name: 'skins',
  routes: skinsRoutes({ db: context.db, events: context.events }),
});
