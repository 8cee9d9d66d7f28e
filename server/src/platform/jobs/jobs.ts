import type { Queryable } from '../db/db';
import { inUnit, type Unit, type UnitDeps } from '../db/unit-of-work';
import { newId } from '../ids';
import type { Logger } from '../logging';
import * as repo from './jobs.repo';

/** A job as its handler receives it. */
export interface RunningJob {
  id: string;
  kind: string;
  organizationId: string | null;
  payload: Record<string, unknown>;
  /** 1 on the first attempt. */
  attempt: number;
}

/**
 * What runs a kind of job. `database`: inside the transaction that claims the job, so its writes
 * commit together with its completion (exactly once; a run that died leaves nothing and runs
 * again). `outside`: effects beyond the database (sending an e-mail), run under a lease after the
 * claim commits — at least once: a runner that dies before recording the outcome is run again once
 * its lease is over.
 */
export type JobHandler =
  | { effects: 'database'; run(unit: Unit, job: RunningJob): Promise<void> }
  | { effects: 'outside'; leaseSeconds?: number; run(job: RunningJob): Promise<void> };

/** A job to enqueue. */
export interface NewJob {
  kind: string;
  organizationId: string | null;
  payload?: object;
  /** Enqueued once for good: a second job of the kind with this key is not added. */
  uniqueKey?: string;
  /** Not run before this time. */
  runAfter?: Date;
  /** Attempts before it is dead (10 unless said). */
  maxAttempts?: number;
}

/**
 * Writes a job in the unit's transaction (an outbox: it exists exactly when the change causing it
 * committed) and wakes this process's worker once the unit has committed. Its id, or undefined when
 * its unique key was enqueued already.
 */
export async function enqueueJob(unit: Pick<Unit, 'tx' | 'afterCommit'>, job: NewJob): Promise<string | undefined> {
  const id = newId();
  const added = await repo.insertJob(unit.tx, {
    id,
    organizationId: job.organizationId,
    kind: job.kind,
    payload: job.payload ?? {},
    uniqueKey: job.uniqueKey ?? null,
    runAfter: job.runAfter ?? null,
    maxAttempts: job.maxAttempts ?? 10,
  });
  if (!added) return undefined;
  unit.afterCommit(wakeWorkers);
  return id;
}

const sleepers = new Set<() => void>();
/** Wakes this process's job workers: jobs were enqueued and committed (by `enqueueJob`, or in bulk by SQL). */
export function wakeWorkers(): void {
  for (const wake of [...sleepers]) wake();
}

/** The wait before attempt `attempt + 1`: 5 s doubling up to an hour. */
export function retryDelaySeconds(attempt: number): number {
  return Math.min(5 * 2 ** Math.max(0, attempt - 1), 3_600);
}

export interface JobWorkerOptions extends UnitDeps {
  logger: Pick<Logger, 'error' | 'warn'>;
  handlers: ReadonlyMap<string, JobHandler>;
  /** How often due jobs are looked for when nothing woke the worker. */
  pollMs: number;
  retryDelaySeconds?: (attempt: number) => number;
}

export interface JobWorker {
  start(): void;
  /** Stops taking jobs and waits for the one running. */
  stop(): Promise<void>;
  /** Runs due jobs until none is left; how many ran (tests, and the loop itself). */
  runDue(): Promise<number>;
}

function runningJob(row: repo.JobRow, attempt: number): RunningJob {
  return { id: row.id, kind: row.kind, organizationId: row.organization_id, payload: row.payload, attempt };
}

function message(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Drains the jobs of the handlers' kinds: every server instance runs one, each job runs in one at a time. */
export function createJobWorker(options: JobWorkerOptions): JobWorker {
  const { handlers, logger } = options;
  const kinds = [...handlers.keys()];
  const delay = options.retryDelaySeconds ?? retryDelaySeconds;
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;

  const failure = (row: repo.JobRow, attempt: number, error: unknown) => {
    const dead = attempt >= row.max_attempts;
    logger[dead ? 'error' : 'warn']({ err: error, job: row.id, kind: row.kind, attempt }, 'job failed');
    return { attempts: attempt, error: message(error), retryInSeconds: delay(attempt), dead };
  };

  /** One due job: true when there was one. */
  async function runOne(): Promise<boolean> {
    const leased = await inUnit(options, async (unit) => {
      const row = await repo.lockDueJob(unit.tx, kinds);
      if (!row) return undefined;
      const handler = handlers.get(row.kind) as JobHandler;
      const attempt = row.attempts + 1;
      if (handler.effects === 'outside') {
        await repo.leaseJob(unit.tx, row.id, handler.leaseSeconds ?? 300);
        return { row, handler, attempt };
      }
      try {
        // A step of the claiming unit: a failure undoes the handler's writes, not the job's record.
        await inUnit(unit.bind(options), (step) => handler.run(step, runningJob(row, attempt)));
        await repo.completeJob(unit.tx, row.id, attempt);
      } catch (error) {
        await repo.failJob(unit.tx, row.id, failure(row, attempt, error));
      }
      return null;
    });
    if (leased === undefined) return false;
    if (leased === null) return true;
    const { row, handler, attempt } = leased;
    try {
      await handler.run(runningJob(row, attempt));
      await inUnit(options, ({ tx }) => repo.completeJob(tx, row.id, attempt));
    } catch (error) {
      await inUnit(options, ({ tx }) => repo.failJob(tx, row.id, failure(row, attempt, error)));
    }
    return true;
  }

  async function runDue(): Promise<number> {
    let ran = 0;
    while (kinds.length > 0 && (await runOne())) ran += 1;
    return ran;
  }

  const nap = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, options.pollMs);
      sleepers.add(done);
      wake = done;
    });

  return {
    start() {
      if (running || kinds.length === 0) return;
      running = true;
      loop = (async () => {
        while (running) {
          try {
            await runDue();
          } catch (error) {
            // The database may be down for a moment: the next round tries again.
            logger.error({ err: error }, 'the job worker could not look for jobs');
          }
          if (running) await nap();
        }
      })();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
    },
    runDue,
  };
}

/** Reads a job's state (tests and the operator's tools). */
export function findJob(db: Queryable, id: string) {
  return repo.findJob(db, id);
}

/** Work a module runs every `intervalMs` on every server instance (claiming what is due keeps it once). */
export interface ScheduledTask {
  name: string;
  intervalMs: number;
  run(now: Date): Promise<void>;
}

/** Starts the scheduled tasks (each once at start, then every interval); `stop` waits for a tick running. */
export function startScheduledTasks(
  tasks: readonly ScheduledTask[],
  logger: Pick<Logger, 'error'>,
): { stop(): Promise<void> } {
  const running = new Set<Promise<void>>();
  const tick = (task: ScheduledTask) => {
    const run = task
      .run(new Date())
      .catch((error: unknown) => logger.error({ err: error, task: task.name }, 'a scheduled task failed'))
      .finally(() => running.delete(run));
    running.add(run);
  };
  const timers = tasks.map((task) => {
    tick(task);
    return setInterval(() => tick(task), task.intervalMs);
  });
  return {
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await Promise.all([...running]);
    },
  };
}
