import type { ModuleFactory } from '../../platform/module';
import { tasksRoutes } from './tasks.routes';
import { resyncRoleAssignees } from './tasks.service';
import { tasksSyncSource } from './tasks.sync';

/**
 * Tasks: instances of forms with field values, statuses, assignees, history, audit, chat, views,
 * batch creation and search; the home lists (recent, inbox).
 */
export const tasksModule: ModuleFactory = (context) => {
  const deps = { db: context.db, events: context.events };
  context.events.subscribe('role.members_changed', ({ organizationId, roleId }) =>
    resyncRoleAssignees(deps, organizationId, roleId),
  );
  return { name: 'tasks', routes: tasksRoutes(deps), syncSources: [tasksSyncSource(deps)] };
};
