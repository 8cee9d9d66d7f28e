import { DateTime } from 'luxon';
import type { Unit } from '../../platform/db/unit-of-work';
import type { DomainEvents } from '../../platform/events';
import { enqueueJob, type JobHandler, type ScheduledTask, wakeWorkers } from '../../platform/jobs/jobs';
import * as repo from './automations.repo';
import { type AutomationsDeps, MAX_CHAIN_DEPTH, runAutomation } from './automations.service';

/** The job that runs one automation for one trigger. */
export const AUTOMATION_RUN = 'automations.run';

/** Schedules are configured and run in Moscow time. */
export const SCHEDULE_ZONE = 'Europe/Moscow';

/**
 * The in-transaction hook of `task.status_changed`: a run of each automation the move fires is
 * enqueued in the transition's own transaction, so a crash right after its commit still runs it, once.
 */
export async function enqueueFiredRuns(unit: Unit, move: DomainEvents['task.status_changed']): Promise<void> {
  if (move.depth >= MAX_CHAIN_DEPTH) return;
  const fired = await repo.automationsFiredBy(unit.tx, move.organizationId, {
    formId: move.formId,
    statusId: move.toStatusId,
  });
  for (const automation of fired) {
    await enqueueJob(unit, {
      kind: AUTOMATION_RUN,
      organizationId: move.organizationId,
      payload: {
        automationId: automation.id,
        taskId: move.taskId,
        depth: move.depth,
        triggerData: {
          trigger: 'task.status_changed',
          taskId: move.taskId,
          formId: move.formId,
          fromStatusId: move.fromStatusId,
          toStatusId: move.toStatusId,
        },
      },
    });
  }
}

/** Today in Moscow at `now`: the date and the UTC offset its times are written with. */
export function moscowDay(now: Date): { date: string; offset: string } {
  const moscow = DateTime.fromJSDate(now, { zone: SCHEDULE_ZONE });
  return { date: moscow.toFormat('yyyy-MM-dd'), offset: moscow.toFormat('ZZ') };
}

/**
 * One tick of the scheduler: claims and enqueues today's due runs of every organization's schedules.
 * A run missed while the server was down is caught up later the same Moscow day, never after midnight.
 */
export async function tickSchedules(unit: Unit, now: Date): Promise<number> {
  const claimed = await repo.claimDueSchedules(unit.tx, now, moscowDay(now), AUTOMATION_RUN);
  if (claimed > 0) unit.afterCommit(wakeWorkers);
  return claimed;
}

export function automationJobs(deps: AutomationsDeps): Record<string, JobHandler> {
  return {
    [AUTOMATION_RUN]: {
      effects: 'database',
      run: (unit, job) =>
        runAutomation(unit, deps, job.organizationId as string, job.payload as Parameters<typeof runAutomation>[3]),
    },
  };
}

export const SCHEDULER_TICK_MS = 60_000;

export function automationScheduler(run: (now: Date) => Promise<unknown>): ScheduledTask {
  return { name: 'automations.schedule', intervalMs: SCHEDULER_TICK_MS, run: async (now) => void (await run(now)) };
}
