import type { ModuleFactory } from '../../platform/module';
import { profileRoutes } from './profile.routes';

/**
 * Profile fields: fields the organization defines for its people, each user's values, and the
 * append-only history of `history-number` fields averaged by week, month, quarter or year.
 */
export const profileModule: ModuleFactory = (context) => ({
  name: 'profile',
  routes: profileRoutes({ db: context.db, events: context.events }),
});
