import { createHash } from 'node:crypto';
import type { ProblemFieldError } from '@shared/api/problem';
import type { BatchTaskInput, CreateTaskRequest, DeletedTaskList, Task, UpdateTaskRequest } from '@shared/api/tasks';
import { userEntries } from '@shared/values';
import type { z } from 'zod';
import { type Actor, actedBy, actorId, memberOf, type SystemActor } from '../../platform/auth/actor';
import type { AuthContext } from '../../platform/auth/auth-context';
import type { Db, Queryable } from '../../platform/db/db';
import { inUnit, type Unit } from '../../platform/db/unit-of-work';
import type { EventBus } from '../../platform/events';
import { decodeCursor, encodeCursor } from '../../platform/http/cursor';
import { Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import { canUseForm, type FormDefinition, findForm, formNotFound, getFormDefinition } from '../forms/forms.service';
import * as members from '../identity/members.service';
import { checkFieldValues, sameValue } from './task-values';
import { mayChangeTask, mayDeleteTask, type TaskFacts, taskVisibility } from './tasks.policy';
import { presentTasks } from './tasks.presenter';
import * as repo from './tasks.repo';

export interface TasksDeps {
  db: Db;
  events: EventBus;
}

export const MAX_BATCH = 100;

/** Who acts on a task: an actor, or the server itself (re-expanding a role, say). */
export type Acting = Actor | SystemActor;

export const taskNotFound = (taskId: string) => Problem.of('not_found', `There is no task ${taskId} you can see.`);

export function audit(unit: Unit, auth: Acting, taskId: string, action: string, details: object = {}) {
  return auditEach(unit, auth, [taskId], action, details);
}

/** One audit row of the same action on each of the tasks. */
export function auditEach(unit: Unit, auth: Acting, taskIds: readonly string[], action: string, details: object) {
  const by = actedBy(auth);
  return repo.insertAudits(
    unit.tx,
    taskIds.map((taskId) => ({
      id: newId(),
      organizationId: auth.organizationId,
      taskId,
      action,
      ...by,
      details,
    })),
  );
}

/**
 * Adds assignees to a task. Every addition goes through here (manual, transition, user field,
 * tool protocol), so the delegation hook attaches in one place. Only active members of the
 * organization are added; returns who was actually added.
 */
export async function addAssignees(
  unit: Unit,
  auth: Acting,
  taskId: string,
  userIds: readonly string[],
  source: 'manual' | 'field' | 'transition' | 'tool',
): Promise<string[]> {
  const assignable = await members.activeUserIds(unit.tx, auth.organizationId, [...new Set(userIds)]);
  const added = await repo.insertAssignees(unit.tx, auth.organizationId, taskId, assignable, source);
  for (const userId of added) {
    await audit(unit, auth, taskId, 'assignee_added', { userId, source });
    await unit.emit('task.assignee_added', { organizationId: auth.organizationId, taskId, userId, source });
  }
  return added;
}

/**
 * People the task's user-type fields name, with roles expanded into their current members: for
 * each person, the names of the fields naming them.
 */
async function fieldAssignees(
  tx: Queryable,
  organizationId: string,
  definition: FormDefinition,
  values: Record<string, unknown>,
): Promise<Map<string, string[]>> {
  const fields = definition.fields
    .filter((f) => f.type === 'user')
    .map((field) => ({ field, entries: userEntries(values[field.id]) }));
  const roleMembers = await members.activeRoleMembers(
    tx,
    organizationId,
    fields.flatMap(({ entries }) => entries.filter((e) => e.kind === 'role').map((e) => e.id)),
  );
  const named = new Map<string, string[]>();
  for (const { field, entries } of fields) {
    const people = new Set(entries.flatMap((e) => (e.kind === 'user' ? [e.id] : (roleMembers.get(e.id) ?? []))));
    for (const userId of people) named.set(userId, [...(named.get(userId) ?? []), field.name]);
  }
  return named;
}

/** Makes the field-sourced assignees match the user-type fields; manual assignees stay. */
async function syncFieldAssignees(
  unit: Unit,
  auth: Acting,
  taskId: string,
  definition: FormDefinition,
  values: Record<string, unknown>,
) {
  const wanted = [...(await fieldAssignees(unit.tx, auth.organizationId, definition, values)).keys()];
  const current = await repo.listAssignees(unit.tx, auth.organizationId, [taskId]);
  const stale = current.filter((a) => a.source === 'field' && !wanted.includes(a.user_id)).map((a) => a.user_id);
  const removed = await repo.deleteAssignees(unit.tx, auth.organizationId, taskId, stale, 'field');
  for (const userId of removed) await audit(unit, auth, taskId, 'assignee_removed', { userId, source: 'field' });
  await addAssignees(unit, auth, taskId, wanted, 'field');
}

function validationProblem(errors: ProblemFieldError[]): Problem {
  const first = errors[0];
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return Problem.of('validation_failed', `${first?.detail ?? 'Invalid values'}${more}. Correct the listed fields.`, {
    errors,
  });
}

async function usableForm(tx: Queryable, auth: Actor, formId: string): Promise<FormDefinition> {
  await repo.holdWorkflow(tx, auth.organizationId, formId);
  const definition = await getFormDefinition(tx, auth.organizationId, formId);
  if (!definition || !canUseForm(auth, definition.form)) throw formNotFound(formId);
  if (definition.form.deleted_at) throw Problem.of('form_deleted', 'The form is deleted and takes no new tasks.');
  return definition;
}

async function insertOne(
  unit: Unit,
  auth: Actor,
  definition: FormDefinition,
  input: z.infer<typeof BatchTaskInput>,
  pointer: string,
): Promise<{ id: string } | { errors: ProblemFieldError[] }> {
  const checked = await checkFieldValues(
    unit.tx,
    auth.organizationId,
    definition.fields,
    input.fields,
    undefined,
    `${pointer}/fields`,
  );
  if (checked.errors.length > 0) return { errors: checked.errors };
  const initial = definition.statuses.find((s) => s.is_initial);
  if (!initial) throw Problem.of('conflict', 'The form has no initial status. An administrator must fix its workflow.');
  const id = input.id ?? newId();
  const inserted = await repo.insertTask(unit.tx, {
    id,
    organizationId: auth.organizationId,
    formId: definition.form.id,
    statusId: initial.id,
    title: input.title,
    description: input.description,
    fields: checked.values,
    createdBy: memberOf(auth)?.userId ?? null,
  });
  if (!inserted) {
    return {
      errors: [
        { location: 'body', pointer: `${pointer}/id`, detail: `A task with id ${id} already exists`, code: 'id_taken' },
      ],
    };
  }
  await audit(unit, auth, id, 'created', { formId: definition.form.id, statusId: initial.id });
  // A new task has no assignees yet: only a form with user fields can give it some.
  if (definition.fields.some((f) => f.type === 'user'))
    await syncFieldAssignees(unit, auth, id, definition, checked.values);
  return { id };
}

export async function getTask(
  deps: Pick<TasksDeps, 'db'>,
  auth: Actor,
  taskId: string,
  db: Queryable = deps.db,
): Promise<Task> {
  const row = await repo.findVisibleTask(db, taskVisibility(auth), taskId);
  if (!row) throw taskNotFound(taskId);
  return (await presentTasks(db, auth, [row]))[0] as Task;
}

export async function createTask(
  deps: TasksDeps,
  auth: Actor,
  input: z.infer<typeof CreateTaskRequest>,
): Promise<Task> {
  const id = await inUnit(deps, async (unit) => {
    const definition = await usableForm(unit.tx, auth, input.formId);
    const result = await insertOne(unit, auth, definition, input, '#');
    if ('errors' in result) {
      const taken = result.errors.find((e) => e.code === 'id_taken');
      if (taken) throw Problem.of('conflict', taken.detail);
      throw validationProblem(result.errors);
    }
    return result.id;
  });
  return getTask(deps, auth, id);
}

export async function listTasks(
  deps: Pick<TasksDeps, 'db'>,
  auth: Actor,
  query: {
    formId?: string;
    statusId?: string;
    assigneeId?: string;
    updatedSince?: string;
    limit: number;
    cursor?: string;
  },
) {
  const after = decodeCursor(query.cursor) as [string, string] | undefined;
  const rows = await repo.listVisibleTasks(deps.db, taskVisibility(auth), { ...query, after, limit: query.limit + 1 });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: await presentTasks(deps.db, auth, page),
    nextCursor: rows.length > query.limit && last ? encodeCursor([last.updated_us, last.id]) : null,
  };
}

/** Edits title, description and field values; each changed value is written to the field history. */
export async function updateTask(
  deps: TasksDeps,
  auth: Actor,
  taskId: string,
  patch: z.infer<typeof UpdateTaskRequest>,
) {
  await inUnit(deps, async (unit) => {
    await changeableTask(unit, auth, taskId);
    const task = await repo.lockTask(unit.tx, auth.organizationId, taskId);
    if (!task) throw taskNotFound(taskId);
    const definition = (await getFormDefinition(unit.tx, auth.organizationId, task.form_id)) as FormDefinition;
    const checked = await checkFieldValues(
      unit.tx,
      auth.organizationId,
      definition.fields,
      patch.fields ?? {},
      task.fields,
    );
    if (checked.errors.length > 0) throw validationProblem(checked.errors);
    const changedFields = Object.keys(patch.fields ?? {}).filter(
      (id) => !sameValue(task.fields[id], checked.values[id]),
    );
    const title = patch.title ?? task.title;
    const description = patch.description ?? task.description;
    if (changedFields.length === 0 && title === task.title && description === task.description) return;
    await repo.updateTask(unit.tx, auth.organizationId, taskId, {
      title,
      description,
      fields: checked.values,
      statusId: task.status_id,
    });
    await repo.insertFieldHistory(
      unit.tx,
      changedFields.map((fieldId) => ({
        id: newId(),
        organizationId: auth.organizationId,
        taskId,
        fieldId,
        oldValue: task.fields[fieldId] ?? null,
        newValue: checked.values[fieldId] ?? null,
        ...actedBy(auth),
      })),
    );
    await audit(unit, auth, taskId, 'updated', {
      fields: changedFields,
      ...(title !== task.title ? { title: { from: task.title, to: title } } : {}),
      ...(description !== task.description ? { description: true } : {}),
    });
    if (changedFields.some((id) => definition.fields.find((f) => f.id === id)?.type === 'user')) {
      await syncFieldAssignees(unit, auth, taskId, definition, checked.values);
    }
  });
  return getTask(deps, auth, taskId);
}

/** What the tasks policy looks at for a task: its form's restriction, author and assignees. */
async function taskFacts(tx: Queryable, organizationId: string, task: repo.TaskRow): Promise<TaskFacts> {
  const form = await findForm(tx, organizationId, task.form_id);
  const assignees = await repo.listAssignees(tx, organizationId, [task.id]);
  return {
    formId: task.form_id,
    formVisibleRoleIds: form?.visible_role_ids ?? [],
    createdBy: task.created_by,
    assigneeIds: assignees.map((assignee) => assignee.user_id),
  };
}

/** The task, if the actor sees it (else 404) and the tasks policy lets them change it (else 403). */
async function changeableTask(unit: Unit, auth: Actor, taskId: string): Promise<repo.TaskRow> {
  const task = await repo.findVisibleTask(unit.tx, taskVisibility(auth), taskId);
  if (!task) throw taskNotFound(taskId);
  if (!mayChangeTask(auth, await taskFacts(unit.tx, auth.organizationId, task))) {
    throw Problem.of('forbidden', 'Your access to this task is read-only.');
  }
  return task;
}

/** Refuses a deletion or restoration the tasks policy does not allow (`mayDeleteTask`). */
async function ensureMayDelete(unit: Unit, auth: Actor, task: repo.TaskRow, what: 'delete' | 'restore') {
  if (!mayDeleteTask(auth, await taskFacts(unit.tx, auth.organizationId, task))) {
    throw Problem.of(
      'forbidden',
      `Only the author, an administrator or someone the form is open to may ${what} this task.`,
    );
  }
}

export async function deleteTask(deps: TasksDeps, auth: Actor, taskId: string): Promise<void> {
  await inUnit(deps, async (unit) => {
    const task = await repo.findVisibleTask(unit.tx, taskVisibility(auth), taskId);
    if (!task) throw taskNotFound(taskId);
    await ensureMayDelete(unit, auth, task, 'delete');
    await repo.softDeleteTask(unit.tx, auth.organizationId, taskId);
    await audit(unit, auth, taskId, 'deleted');
  });
}

/** The organization's deleted tasks, most recently deleted first, for an administrator to bring back. */
export async function listDeletedTasks(
  deps: Pick<TasksDeps, 'db'>,
  auth: AuthContext,
  query: { limit: number; cursor?: string },
): Promise<DeletedTaskList> {
  const after = decodeCursor(query.cursor) as [string, string] | undefined;
  const rows = await repo.listDeletedTasks(deps.db, auth.organizationId, { after, limit: query.limit + 1 });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map((row) => ({
      id: row.id,
      title: row.title,
      formId: row.form_id,
      formName: row.form_name,
      deletedAt: row.deleted_at.toISOString(),
      deletedBy: row.deleted_by_id ? { id: row.deleted_by_id, name: row.deleted_by_name ?? '' } : null,
    })),
    nextCursor: rows.length > query.limit && last ? encodeCursor([last.deleted_us, last.id]) : null,
  };
}

/**
 * Brings a deleted task back as it was (the undo of a deletion), for whoever may delete it. A task
 * that is not deleted is returned as it is: the undo has nothing left to do.
 */
export async function restoreTask(deps: TasksDeps, auth: Actor, taskId: string): Promise<Task> {
  await restoreDeletedTask(deps, auth, taskId);
  return getTask(deps, auth, taskId);
}

/** `restoreTask`'s work: true when a deleted task the caller could see was brought back. */
export async function restoreDeletedTask(deps: TasksDeps, auth: Actor, taskId: string): Promise<boolean> {
  return inUnit(deps, async (unit) => {
    const task = await repo.lockDeletedTask(unit.tx, taskVisibility(auth), taskId);
    if (!task) return false;
    await ensureMayDelete(unit, auth, task, 'restore');
    await repo.restoreTask(unit.tx, auth.organizationId, taskId);
    await audit(unit, auth, taskId, 'restored');
    return true;
  });
}

/**
 * Moves a task to another status if the form's workflow allows it, records the change, and after
 * commit publishes `task.status_changed` (automations listen to it).
 */
export async function executeTaskTransition(
  deps: TasksDeps,
  auth: Actor,
  taskId: string,
  input: { statusId: string; comment?: string },
): Promise<Task> {
  await inUnit(deps, async (unit) => {
    await changeableTask(unit, auth, taskId);
    const task = await repo.lockTask(unit.tx, auth.organizationId, taskId);
    if (!task) throw taskNotFound(taskId);
    const definition = (await getFormDefinition(unit.tx, auth.organizationId, task.form_id)) as FormDefinition;
    const from = definition.statuses.find((s) => s.id === task.status_id);
    const to = definition.statuses.find((s) => s.id === input.statusId);
    if (!to) {
      throw Problem.of('validation_failed', `The form has no status ${input.statusId}.`, {
        errors: [
          {
            location: 'body',
            pointer: '#/statusId',
            detail: 'Not a status of this task’s form',
            code: 'unknown_status',
          },
        ],
      });
    }
    const allowed = definition.transitions.some((t) => t.from_status_id === task.status_id && t.to_status_id === to.id);
    if (!allowed) {
      throw Problem.of(
        'transition_not_allowed',
        `The workflow does not allow moving from "${from?.name ?? 'the current status'}" to "${to.name}".`,
      );
    }
    await repo.updateTask(unit.tx, auth.organizationId, taskId, {
      title: task.title,
      description: task.description,
      fields: task.fields,
      statusId: to.id,
    });
    await audit(unit, auth, taskId, 'status_changed', {
      fromStatusId: task.status_id,
      toStatusId: to.id,
      ...(input.comment ? { comment: input.comment } : {}),
    });
    await unit.emit('task.status_changed', {
      organizationId: auth.organizationId,
      taskId,
      formId: task.form_id,
      fromStatusId: task.status_id,
      toStatusId: to.id,
      actor: actorId(auth),
      depth: auth.kind === 'automation' ? auth.chainDepth + 1 : 0,
    });
  });
  return getTask(deps, auth, taskId);
}

export async function assignManually(deps: TasksDeps, auth: Actor, taskId: string, userId: string): Promise<Task> {
  await inUnit(deps, async (unit) => {
    await changeableTask(unit, auth, taskId);
    const known = await members.activeUserIds(unit.tx, auth.organizationId, [userId]);
    if (known.length === 0) {
      throw Problem.of('validation_failed', `There is no active user ${userId} in your organization.`, {
        errors: [{ location: 'body', pointer: '#/userId', detail: 'Unknown or inactive user', code: 'unknown_user' }],
      });
    }
    await addAssignees(unit, auth, taskId, [userId], 'manual');
  });
  return getTask(deps, auth, taskId);
}

/**
 * Takes a person off a task. One whom the task's user fields name is refused: the fields would
 * assign them again at their next change, so it is the field that has to change.
 */
export async function unassign(deps: TasksDeps, auth: Actor, taskId: string, userId: string): Promise<Task> {
  await inUnit(deps, async (unit) => {
    await changeableTask(unit, auth, taskId);
    // Locked: a change of its fields waits, so the fields read here are the ones that stand.
    const task = await repo.lockTask(unit.tx, auth.organizationId, taskId);
    if (!task) throw taskNotFound(taskId);
    const definition = (await getFormDefinition(unit.tx, auth.organizationId, task.form_id)) as FormDefinition;
    const naming = (await fieldAssignees(unit.tx, auth.organizationId, definition, task.fields)).get(userId);
    // Only active people are assigned by the fields: one deactivated would not come back.
    if (naming && (await members.activeUserIds(unit.tx, auth.organizationId, [userId])).length > 0) {
      const fields = naming.map((name) => `“${name}”`).join(', ');
      throw Problem.of(
        'assigned_by_field',
        `The task's ${naming.length === 1 ? 'field' : 'fields'} ${fields} ${naming.length === 1 ? 'names' : 'name'} this person (or a role of theirs), so they stay assigned. Take them out of ${naming.length === 1 ? 'that field' : 'those fields'} to take them off the task.`,
      );
    }
    const removed = await repo.deleteAssignees(unit.tx, auth.organizationId, taskId, [userId]);
    if (removed.length === 0) throw Problem.of('not_found', `User ${userId} is not an assignee of this task.`);
    await audit(unit, auth, taskId, 'assignee_removed', { userId, source: 'manual' });
  });
  return getTask(deps, auth, taskId);
}

/** Re-expands `role:<id>` values after the role's membership changed. */
export async function resyncRoleAssignees(deps: TasksDeps, organizationId: string, roleId: string): Promise<void> {
  const taskIds = await repo.tasksWithUserReference(deps.db, organizationId, `role:${roleId}`);
  for (const taskId of taskIds) {
    await inUnit(deps, async (unit) => {
      const task = await repo.lockTask(unit.tx, organizationId, taskId);
      if (!task) return;
      const definition = (await getFormDefinition(unit.tx, organizationId, task.form_id)) as FormDefinition;
      // The system acts here: the audit names no user.
      await syncFieldAssignees(unit, { kind: 'system', organizationId }, taskId, definition, task.fields);
    });
  }
}

export async function searchTasks(deps: Pick<TasksDeps, 'db'>, auth: Actor, text: string, limit: number) {
  const rows = await repo.searchVisibleTasks(deps.db, taskVisibility(auth), text, limit);
  return { items: await presentTasks(deps.db, auth, rows), nextCursor: null };
}

/** How many tasks the caller can see: what a first sync of their replica brings (its progress). */
export async function countTasks(deps: Pick<TasksDeps, 'db'>, auth: Actor) {
  return { count: await repo.countVisibleTasks(deps.db, taskVisibility(auth)) };
}

/** A task as other modules name it: no values, no assignees. */
export interface TaskSummary {
  id: string;
  formId: string;
  title: string;
  createdAt: Date;
}

function summary(row: repo.TaskRow): TaskSummary {
  return { id: row.id, formId: row.form_id, title: row.title, createdAt: row.created_at };
}

/** The task if the actor sees it, else a 404 problem. */
export async function visibleTaskSummary(db: Queryable, actor: Actor, taskId: string): Promise<TaskSummary> {
  const row = await repo.findVisibleTask(db, taskVisibility(actor), taskId);
  if (!row) throw taskNotFound(taskId);
  return summary(row);
}

/** Those of `ids` the actor sees. */
export async function visibleTaskSummaries(
  db: Queryable,
  actor: Actor,
  ids: readonly string[],
): Promise<TaskSummary[]> {
  return (await repo.visibleTasksByIds(db, taskVisibility(actor), ids)).map(summary);
}

/** Up to `limit` tasks of the form the actor sees, most recently changed first. */
export async function visibleTaskSummariesOfForm(
  db: Queryable,
  actor: Actor,
  formId: string,
  limit: number,
): Promise<TaskSummary[]> {
  return (await repo.listVisibleTasks(db, taskVisibility(actor), { formId, limit })).map(summary);
}

export function organizationHasTasks(db: Queryable, organizationId: string): Promise<boolean> {
  return repo.hasTasks(db, organizationId);
}

// ---- batch creation ----

function requestHash(formId: string, tasks: unknown): string {
  return createHash('sha256').update(JSON.stringify({ formId, tasks })).digest('hex');
}

/**
 * Creates up to 100 tasks of one form, all or none. With an idempotency key, a repeat returns the
 * first result and creates nothing, also when the two requests race; the same key with another
 * body is refused.
 */
export async function createBatch(
  deps: TasksDeps,
  auth: Actor,
  formId: string,
  tasks: z.infer<typeof BatchTaskInput>[],
  idempotencyKey: string | undefined,
): Promise<{ status: number; body: { items: Task[] } }> {
  if (tasks.length > MAX_BATCH) {
    throw Problem.of(
      'batch_too_large',
      `A batch holds at most ${MAX_BATCH} tasks; this one has ${tasks.length}. Send it in chunks of ${MAX_BATCH}.`,
    );
  }
  const hash = requestHash(formId, tasks);
  return inUnit(deps, async (unit) => {
    if (idempotencyKey) {
      await repo.forgetOldIdempotencyKeys(unit.tx);
      const claim = await repo.claimIdempotencyKey(unit.tx, auth.organizationId, idempotencyKey, hash);
      if (!claim.claimed) {
        if (claim.requestHash !== hash) {
          throw Problem.of(
            'idempotency_key_reused',
            'This Idempotency-Key was used for a different request. Use a new key for new content.',
          );
        }
        return { status: claim.status ?? 201, body: claim.response as { items: Task[] } };
      }
    }
    const definition = await usableForm(unit.tx, auth, formId);
    const ids: string[] = [];
    const errors: ProblemFieldError[] = [];
    for (const [index, input] of tasks.entries()) {
      const result = await insertOne(unit, auth, definition, input, `#/tasks/${index}`);
      if ('errors' in result) errors.push(...result.errors);
      else ids.push(result.id);
    }
    if (errors.length > 0) {
      const rows = new Set(errors.map((e) => Number(e.pointer.split('/')[2]) + 1));
      throw Problem.of(
        'validation_failed',
        `No task was created: ${errors.length} problem(s) in row(s) ${[...rows].slice(0, 10).join(', ')}. Correct them and send the batch again.`,
        { errors },
      );
    }
    const rows = await repo.visibleTasksByIds(unit.tx, taskVisibility(auth), ids);
    const inOrder = ids.map((id) => rows.find((row) => row.id === id)).filter((row) => row !== undefined);
    const body = { items: await presentTasks(unit.tx, auth, inOrder) };
    if (idempotencyKey) await repo.storeIdempotentResponse(unit.tx, auth.organizationId, idempotencyKey, 201, body);
    return { status: 201, body };
  });
}
