import {
  type Automation,
  type AutomationRun,
  type CreateAutomationRequest,
  type DryRunResult,
  ScheduleConfig,
  StatusChangeConfig,
  type UpdateAutomationRequest,
} from '@shared/api/automations';
import type { ProblemFieldError } from '@shared/api/problem';
import { z } from 'zod';
import { type Actor, type AutomationActor, actedBy } from '../../platform/auth/actor';
import type { Queryable } from '../../platform/db/db';
import { inUnit, type Unit, type UnitDeps } from '../../platform/db/unit-of-work';
import { decodeCursor, encodeCursor } from '../../platform/http/cursor';
import { fieldErrors, Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import * as forms from '../forms/forms.service';
import * as activity from '../tasks/task-activity.service';
import * as tasks from '../tasks/tasks.service';
import * as repo from './automations.repo';
import { compileError, type HostCall, runInSandbox, type SandboxLimits, type SandboxRun } from './sandbox';

export type AutomationsDeps = UnitDeps & { limits?: SandboxLimits };

const automationNotFound = (id: string) =>
  Problem.of('not_found', `There is no automation ${id} in your organization.`);

function present(row: repo.AutomationRow): Automation {
  return {
    id: row.id,
    name: row.name,
    enabled: row.enabled,
    trigger: row.trigger,
    triggerConfig: row.trigger_config,
    code: row.code,
    last_scheduled_run_at: row.last_scheduled_run_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function presentRun(row: repo.RunRow): AutomationRun {
  return {
    id: row.id,
    automationId: row.automation_id,
    triggerData: row.trigger_data,
    taskId: row.task_id,
    status: row.status,
    durationMs: Number(row.duration_ms),
    logs: row.logs,
    error: row.error,
    errorLine: row.error_line,
    startedAt: row.started_at.toISOString(),
  };
}

function invalid(errors: ProblemFieldError[]): Problem {
  const first = errors[0];
  return Problem.of('validation_failed', `${first?.detail ?? 'Invalid automation'}. Correct the listed fields.`, {
    errors,
  });
}

/** The trigger's configuration as stored, refused with the field named when it is not one of the organization's. */
async function checkedConfig(
  db: Queryable,
  organizationId: string,
  trigger: repo.AutomationRow['trigger'],
  config: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const schema = trigger === 'schedule' ? ScheduleConfig : StatusChangeConfig;
  const parsed = schema.safeParse(config);
  if (!parsed.success) {
    throw invalid(
      fieldErrors('body', parsed.error).map((error) => ({
        ...error,
        pointer: `#/triggerConfig${error.pointer.slice(1)}`,
      })),
    );
  }
  if (trigger === 'schedule') return parsed.data;
  const { statusId, formId } = parsed.data as z.infer<typeof StatusChangeConfig>;
  const errors: ProblemFieldError[] = [];
  const unknown = (key: string, detail: string, code: string) =>
    errors.push({ location: 'body', pointer: `#/triggerConfig/${key}`, detail, code });
  if (formId) {
    const form = await forms.findForm(db, organizationId, formId);
    if (!form || form.deleted_at) unknown('formId', 'There is no such form in your organization', 'unknown_form');
  }
  if (statusId) {
    const status = await forms.findStatus(db, organizationId, statusId);
    if (!status) unknown('statusId', 'There is no such status in your organization', 'unknown_status');
    else if (formId && status.form_id !== formId) unknown('statusId', 'Not a status of that form', 'unknown_status');
  }
  if (errors.length > 0) throw invalid(errors);
  return parsed.data;
}

async function checkedCode(code: string): Promise<void> {
  const error = await compileError(code);
  if (!error) return;
  const where = error.line ? ` (line ${error.line})` : '';
  throw invalid([
    { location: 'body', pointer: '#/code', detail: `${error.message}${where}`, code: 'does_not_compile' },
  ]);
}

export async function listAutomations(deps: UnitDeps, auth: Actor): Promise<{ items: Automation[] }> {
  assertMayUseAutomations(auth);
  return { items: (await repo.listAutomations(deps.db, auth.organizationId)).map(present) };
}

/**
 * Who may read and write automations: administrators (the routes admit only them), and a bot whose
 * key is `full` and reaches every form and directory — an automation acts across the whole
 * organization, and its code and trigger name any form.
 */
function assertMayUseAutomations(actor: Actor): void {
  if (actor.kind !== 'bot') return;
  const { mode, formIds, tableIds } = actor.scopes;
  if (mode !== 'full' || formIds !== undefined || tableIds !== undefined) {
    throw Problem.of(
      'scope_denied',
      'Only a key of full mode with no form or directory limits may write automations: an automation acts with an administrator’s rights across the organization.',
    );
  }
}

export async function getAutomation(deps: UnitDeps, auth: Actor, id: string): Promise<Automation> {
  assertMayUseAutomations(auth);
  const row = await repo.findAutomation(deps.db, auth.organizationId, id);
  if (!row) throw automationNotFound(id);
  return present(row);
}

export async function createAutomation(
  deps: UnitDeps,
  auth: Actor,
  input: z.output<typeof CreateAutomationRequest>,
): Promise<Automation> {
  assertMayUseAutomations(auth);
  await checkedCode(input.code);
  const id = newId();
  await inUnit(deps, async ({ tx }) => {
    const triggerConfig = await checkedConfig(tx, auth.organizationId, input.trigger, input.triggerConfig);
    await repo.insertAutomation(tx, {
      ...input,
      triggerConfig,
      id,
      organizationId: auth.organizationId,
      createdBy: actedBy(auth).actorUserId,
    });
  });
  return getAutomation(deps, auth, id);
}

export async function updateAutomation(
  deps: UnitDeps,
  auth: Actor,
  id: string,
  patch: z.output<typeof UpdateAutomationRequest>,
): Promise<Automation> {
  assertMayUseAutomations(auth);
  if (patch.code !== undefined) await checkedCode(patch.code);
  await inUnit(deps, async ({ tx }) => {
    const current = await repo.findAutomation(tx, auth.organizationId, id);
    if (!current) throw automationNotFound(id);
    const trigger = patch.trigger ?? current.trigger;
    if (patch.trigger && patch.trigger !== current.trigger && !patch.triggerConfig) {
      throw invalid([
        {
          location: 'body',
          pointer: '#/triggerConfig',
          detail: 'A new trigger needs its own triggerConfig',
          code: 'required',
        },
      ]);
    }
    const triggerConfig = await checkedConfig(
      tx,
      auth.organizationId,
      trigger,
      patch.triggerConfig ?? current.trigger_config,
    );
    await repo.updateAutomation(tx, auth.organizationId, id, {
      name: patch.name ?? current.name,
      enabled: patch.enabled ?? current.enabled,
      trigger,
      triggerConfig,
      code: patch.code ?? current.code,
    });
  });
  return getAutomation(deps, auth, id);
}

export async function deleteAutomation(deps: UnitDeps, auth: Actor, id: string): Promise<void> {
  assertMayUseAutomations(auth);
  if (!(await repo.deleteAutomation(deps.db, auth.organizationId, id))) throw automationNotFound(id);
}

const CursorKey = z.tuple([z.iso.datetime(), z.uuid()]);

export async function listRuns(
  deps: UnitDeps,
  auth: Actor,
  id: string,
  page: { limit: number; cursor?: string },
): Promise<{ items: AutomationRun[]; nextCursor: string | null }> {
  await getAutomation(deps, auth, id);
  const key = page.cursor === undefined ? undefined : CursorKey.safeParse(decodeCursor(page.cursor));
  if (key && !key.success) {
    throw Problem.of('validation_failed', 'The cursor is not one this API returned. Start again without a cursor.', {
      errors: [{ location: 'query', pointer: '#/cursor', detail: 'Unknown cursor', code: 'invalid_cursor' }],
    });
  }
  const rows = await repo.listRuns(deps.db, auth.organizationId, id, { after: key?.data, limit: page.limit + 1 });
  const items = rows.slice(0, page.limit);
  const last = items.at(-1);
  return {
    items: items.map(presentRun),
    nextCursor: rows.length > page.limit && last ? encodeCursor([last.started_at.toISOString(), last.id]) : null,
  };
}

// ---- runs ----

/** Moves automations make that fire further automations stop after this many (no endless ping-pong). */
export const MAX_CHAIN_DEPTH = 5;

const TaskId = z.uuid();
const FindQuery = z
  .object({
    formId: z.uuid().optional(),
    statusId: z.uuid().optional(),
    limit: z.number().int().min(1).max(100).default(20),
  })
  .strict();
const NewTask = z
  .object({
    formId: z.uuid(),
    title: z.string().trim().min(1).max(500),
    description: z.string().max(100_000).default(''),
    fields: z.record(z.uuid(), z.unknown()).default({}),
  })
  .strict();

function parsed<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new Error(`${what}: ${result.error.issues.map((issue) => issue.message).join('; ')}`);
  return result.data;
}

/** A service's refusal as the code reads it: the problem's detail. */
function refused<T>(work: Promise<T>): Promise<T> {
  return work.catch((error: unknown) => {
    throw new Error(error instanceof Problem ? error.message : 'The server could not do this.');
  });
}

/**
 * The calls `ctx` offers, each through the tasks services as the automation (its visibility is an
 * administrator's). A write is recorded in `changes` (what a dry run reports). A call naming no task
 * acts on the run's task.
 */
function hostCalls(
  deps: UnitDeps,
  actor: AutomationActor,
  runTaskId: string | null,
  changes: DryRunResult['changes'],
): Record<string, HostCall> {
  const taskOf = (value: unknown) => {
    const id = value ?? runTaskId;
    if (id === null) throw new Error('This run has no task: name one (its id as the first argument).');
    return parsed(TaskId, id, 'task id');
  };
  const write = (call: string, args: unknown[]) => changes.push({ call, args });
  return {
    findTasks: async (query) => {
      const { formId, statusId, limit } = parsed(FindQuery, query ?? {}, 'findTasks');
      return (await refused(tasks.listTasks(deps, actor, { formId, statusId, limit }))).items;
    },
    updateFields: async (first, second) => {
      const [taskId, fields] = second === undefined ? [taskOf(null), first] : [taskOf(first), second];
      write('updateFields', [taskId, fields]);
      const values = parsed(z.record(z.uuid(), z.unknown()), fields, 'fields');
      return refused(tasks.updateTask(deps, actor, taskId, { fields: values }));
    },
    transition: async (first, second, third) => {
      const explicit = typeof second === 'string' && TaskId.safeParse(second).success;
      const taskId = explicit ? taskOf(first) : taskOf(null);
      const statusId = parsed(TaskId, explicit ? second : first, 'status id');
      const comment = explicit ? third : second;
      write('transition', [taskId, statusId, ...(comment === undefined ? [] : [comment])]);
      const input = { statusId, ...(typeof comment === 'string' ? { comment } : {}) };
      return refused(tasks.executeTaskTransition(deps, actor, taskId, input));
    },
    comment: async (first, second) => {
      const [taskId, text] = second === undefined ? [taskOf(null), first] : [taskOf(first), second];
      const body = parsed(z.string().trim().min(1).max(20_000), text, 'comment');
      write('comment', [taskId, body]);
      return refused(activity.postMessage(deps, actor, taskId, { body, mentions: [] }));
    },
    createTask: async (input) => {
      const task = parsed(NewTask, input, 'createTask');
      write('createTask', [task]);
      return refused(tasks.createTask(deps, actor, task));
    },
  };
}

class RunUndone extends Error {
  constructor(readonly run: SandboxRun) {
    super(run.error?.message ?? run.status);
  }
}

/**
 * Runs an automation's code as a step of `unit`: what it writes is kept only when it succeeds
 * (and never in a dry run), all or nothing.
 */
async function execute(
  unit: Unit,
  deps: AutomationsDeps,
  automation: repo.AutomationRow,
  trigger: { data: Record<string, unknown>; taskId: string | null; depth: number },
  dryRun: boolean,
): Promise<SandboxRun & { changes: DryRunResult['changes'] }> {
  const actor: AutomationActor = {
    kind: 'automation',
    organizationId: automation.organization_id,
    automationId: automation.id,
    chainDepth: trigger.depth,
  };
  const changes: DryRunResult['changes'] = [];
  let run: SandboxRun;
  try {
    run = await inUnit(unit.bind(deps), async (step) => {
      const bound = step.bind(deps);
      const task = trigger.taskId ? await tasks.getTask(bound, actor, trigger.taskId).catch(() => null) : null;
      const result = await runInSandbox(
        automation.code,
        { trigger: trigger.data, task },
        hostCalls(bound, actor, trigger.taskId, changes),
        deps.limits,
      );
      if (result.status !== 'succeeded' || dryRun) throw new RunUndone(result);
      return result;
    });
  } catch (error) {
    if (!(error instanceof RunUndone)) throw error;
    run = error.run;
  }
  return { ...run, changes };
}

/** Runs an automation for its trigger and keeps the run in its log (the job `automations.run`). */
export async function runAutomation(
  unit: Unit,
  deps: AutomationsDeps,
  organizationId: string,
  payload: { automationId: string; triggerData: Record<string, unknown>; taskId?: string | null; depth?: number },
): Promise<void> {
  const automation = await repo.findAutomation(unit.tx, organizationId, payload.automationId);
  if (!automation?.enabled) return;
  const taskId = payload.taskId ?? null;
  const run = await execute(
    unit,
    deps,
    automation,
    { data: payload.triggerData, taskId, depth: payload.depth ?? 0 },
    false,
  );
  await repo.insertRun(unit.tx, {
    id: newId(),
    organizationId,
    automationId: automation.id,
    triggerData: payload.triggerData,
    taskId,
    status: run.status,
    durationMs: run.durationMs,
    logs: run.logs,
    error: run.error?.message ?? null,
    errorLine: run.error?.line ?? null,
  });
}

/** Runs the automation against a task and keeps nothing: its logs and the writes it asked for. */
export async function dryRun(deps: AutomationsDeps, auth: Actor, id: string, taskId: string): Promise<DryRunResult> {
  assertMayUseAutomations(auth);
  return inUnit(deps, async (unit) => {
    const automation = await repo.findAutomation(unit.tx, auth.organizationId, id);
    if (!automation) throw automationNotFound(id);
    await tasks.getTask(unit.bind(deps), auth, taskId);
    const data = { trigger: automation.trigger, taskId, test: true };
    const run = await execute(unit, deps, automation, { data, taskId, depth: 0 }, true);
    return {
      status: run.status,
      durationMs: run.durationMs,
      logs: run.logs,
      error: run.error?.message ?? null,
      errorLine: run.error?.line ?? null,
      changes: run.changes,
    };
  });
}
