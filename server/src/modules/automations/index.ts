import { inUnit } from '../../platform/db/unit-of-work';
import type { ModuleFactory } from '../../platform/module';
import { automationJobs, automationScheduler, enqueueFiredRuns, tickSchedules } from './automations.jobs';
import { automationsRoutes } from './automations.routes';

/**
 * Automations: code run in a sandbox when a task's status changes or daily at a Moscow time, each
 * run a durable job whose writes commit with it, kept in a run log; administrators manage them.
 */
export const automationsModule: ModuleFactory = (context) => {
  const deps = { db: context.db, events: context.events };
  context.events.hook('task.status_changed', enqueueFiredRuns);
  return {
    name: 'automations',
    routes: automationsRoutes(deps),
    jobs: automationJobs(deps),
    scheduled: [automationScheduler((now) => inUnit(deps, (unit) => tickSchedules(unit, now)))],
  };
};
