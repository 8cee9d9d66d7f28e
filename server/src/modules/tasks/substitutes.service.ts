import type { Task } from '@shared/api/tasks';
import type { AuthContext } from '../../platform/auth/auth-context';
import type { Queryable } from '../../platform/db/db';
import { inUnit, type Unit } from '../../platform/db/unit-of-work';
import { Problem } from '../../platform/http/problem';
import { taskVisibility } from './tasks.policy';
import * as repo from './tasks.repo';
import { type Acting, audit, auditEach, getTask, type TasksDeps, taskNotFound } from './tasks.service';

/** Substitutes on tasks: who replaces an absent assignee, and the returning assignee's review. */

/** The form of a task in any state, for other modules' rules (which substitute applies). */
export function formOfTask(tx: Queryable, organizationId: string, taskId: string): Promise<string | undefined> {
  return repo.taskFormId(tx, organizationId, taskId);
}

/**
 * Adds `substituteUserId` to the tasks for the absent `absentUserId`, who stays an assignee with
 * changes to review once back (`awayUntil`). A person is an assignee once: one already on a task is
 * left as they are. Runs inside the unit that added the absent user (or applies a delegation in
 * bulk), so a task is never seen without both. Returns the tasks the substitute was added to.
 */
export async function addSubstitute(
  unit: Unit,
  acting: Acting,
  taskIds: readonly string[],
  absent: { userId: string; awayUntil: Date },
  substituteUserId: string,
): Promise<string[]> {
  const absentUserId = absent.userId;
  await repo.markForReview(unit.tx, acting.organizationId, taskIds, absentUserId, absent.awayUntil);
  const added = await repo.insertSubstitutes(unit.tx, acting.organizationId, taskIds, substituteUserId, absentUserId);
  await auditEach(unit, acting, added, 'assignee_added', {
    userId: substituteUserId,
    source: 'delegation',
    delegatedFromUserId: absentUserId,
  });
  for (const taskId of added) {
    await unit.emit('task.assignee_added', {
      organizationId: acting.organizationId,
      taskId,
      userId: substituteUserId,
      source: 'delegation',
    });
  }
  return added;
}

/** The user is back at `at`, earlier than planned: their reviews (of tasks of `formId`, or all) fall due then. */
export function backAt(tx: Queryable, organizationId: string, userId: string, formId: string | null, at: Date) {
  return repo.reviewsDueAt(tx, organizationId, userId, formId, at);
}

/** A page of a user's open tasks (id order, after `afterTaskId`), for applying their delegation in bulk. */
export function openTasksOf(
  tx: Queryable,
  organizationId: string,
  userId: string,
  formId: string | null,
  afterTaskId: string | null,
  limit: number,
): Promise<{ id: string; formId: string }[]> {
  return repo
    .openTasksOfAssignee(tx, organizationId, userId, formId, afterTaskId, limit)
    .then((rows) => rows.map((row) => ({ id: row.id, formId: row.form_id })));
}

/** How many open tasks a user is an assignee of (of one form, or all). */
export function countOpenTasksOf(tx: Queryable, organizationId: string, userId: string, formId: string | null) {
  return repo.countOpenTasksOfAssignee(tx, organizationId, userId, formId);
}

/** The returning assignee has seen what changed while they were away: their review flag clears. */
export async function acknowledgeDelegation(deps: TasksDeps, auth: AuthContext, taskId: string): Promise<Task> {
  await inUnit(deps, async (unit) => {
    if (!(await repo.findVisibleTask(unit.tx, taskVisibility(auth), taskId))) throw taskNotFound(taskId);
    const cleared = await repo.clearReview(unit.tx, auth.organizationId, taskId, auth.userId);
    if (!cleared) {
      throw Problem.of('conflict', 'You have nothing to acknowledge on this task: no substitute worked on it for you.');
    }
    await audit(unit, auth, taskId, 'delegation_acknowledged', { userId: auth.userId });
  });
  return getTask(deps, auth, taskId);
}
