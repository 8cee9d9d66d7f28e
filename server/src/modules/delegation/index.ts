import type { ModuleFactory } from '../../platform/module';
import { delegationRoutes } from './delegation.routes';
import { removeExpired, substituteAbsentAssignee } from './delegation.service';

/**
 * Delegation: substitutes for absent users, added beside them to every task they are assigned
 * while away (an in-transaction hook of the one assignee-adding function); expired ones removed daily.
 */
export const delegationModule: ModuleFactory = (context) => {
  const deps = { db: context.db, events: context.events };
  context.events.hook('task.assignee_added', substituteAbsentAssignee);
  return {
    name: 'delegation',
    routes: delegationRoutes(deps),
    scheduled: [
      {
        name: 'delegation.remove_expired',
        intervalMs: 86_400_000,
        run: async (now) => void (await removeExpired(deps, now)),
      },
    ],
  };
};
