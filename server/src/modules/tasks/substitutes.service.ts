import type { Task } from '@shared/api/tasks';
import type { AuthContext } from '../../platform/auth/auth-context';
import type { Queryable } from '../../platform/db/db';
import { inUnit, type Unit } from '../../platform/db/unit-of-work';
import { Problem } from '../../platform/http/problem';
import { taskVisibility } from './tasks.policy';
import * as repo from './tasks.repo';
import { type Acting, audit, getTask, type TasksDeps, taskNotFound } from './tasks.service';

/** Substitutes on tasks: who replaces an absent assignee, and the returning assignee's review. */

/** The form of a task in any state, for other modules' rules (which substitute applies). */
export function formOfTask(tx: Queryable, organizationId: string, taskId: string): Promise<string | undefined> {
  return repo.taskFormId(tx, organizationId, taskId);
}

/**
 * Adds `substituteUserId` to the task for the absent `absentUserId`, who stays an assignee with
 * changes to review on return. A person is an assignee once: one already on the task is left as
 * they are. Runs inside the unit that added the absent user, so the task is never seen without both.
 */
export async function addSubstitute(
  unit: Unit,
  acting: Acting,
  taskId: string,
  absentUserId: string,
  substituteUserId: string,
): Promise<boolean> {
  await repo.setPendingReview(unit.tx, acting.organizationId, taskId, absentUserId, true);
  const added = await repo.insertSubstitute(unit.tx, acting.organizationId, taskId, substituteUserId, absentUserId);
  if (!added) return false;
  await audit(unit, acting, taskId, 'assignee_added', {
    userId: substituteUserId,
    source: 'delegation',
    delegatedFromUserId: absentUserId,
  });
  await unit.emit('task.assignee_added', {
    organizationId: acting.organizationId,
    taskId,
    userId: substituteUserId,
    source: 'delegation',
  });
  return true;
}

/** The returning assignee has seen what changed while they were away: their review flag clears. */
export async function acknowledgeDelegation(deps: TasksDeps, auth: AuthContext, taskId: string): Promise<Task> {
  await inUnit(deps, async (unit) => {
    if (!(await repo.findVisibleTask(unit.tx, taskVisibility(auth), taskId))) throw taskNotFound(taskId);
    const cleared = await repo.setPendingReview(unit.tx, auth.organizationId, taskId, auth.userId, false);
    if (!cleared) {
      throw Problem.of('conflict', 'You have nothing to acknowledge on this task: no substitute worked on it for you.');
    }
    await audit(unit, auth, taskId, 'delegation_acknowledged', { userId: auth.userId });
  });
  return getTask(deps, auth, taskId);
}
