import type { ModuleFactory } from '../../platform/module';
import { delegationRoutes } from './delegation.routes';
import { APPLY_JOB, applyChunk, removeExpired, substituteAbsentAssignee } from './delegation.service';

/**
 * Delegation: substitutes for absent users, added beside them to every task they are assigned
 * while away (an in-transaction hook of the one assignee-adding function) and, in bulk by a durable
 * job, to the open tasks they had when the period starts; expired ones removed daily.
 */
export const delegationModule: ModuleFactory = (context) => {
  const deps = { db: context.db, events: context.events };
  context.events.hook('task.assignee_added', substituteAbsentAssignee);
  return {
    name: 'delegation',
    routes: delegationRoutes(deps),
    jobs: {
      [APPLY_JOB]: {
        effects: 'database',
        run: (unit, job) =>
          applyChunk(
            unit,
            job.organizationId as string,
            String(job.payload.delegationId),
            Number(job.payload.generation),
          ),
      },
    },
    scheduled: [
      {
        name: 'delegation.remove_expired',
        intervalMs: 86_400_000,
        run: async (now) => void (await removeExpired(deps, now)),
      },
    ],
  };
};
