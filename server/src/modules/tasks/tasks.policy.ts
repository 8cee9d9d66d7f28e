import { formOpenTo } from '@shared/form-access';
import { type Actor, botMayWrite, inScope } from '../../platform/auth/actor';
import type { Visibility } from './tasks.repo';

/** What the task rules look at: its form (and whom the form is restricted to), author and assignees. */
export interface TaskFacts {
  formId: string;
  formVisibleRoleIds: readonly string[];
  createdBy: string | null;
  assigneeIds: readonly string[];
}

/**
 * What the actor may see of tasks, as every visible-task query takes it (REST, search, inbox, the
 * sync pull): the parameters of the repo's one visibility condition.
 */
export function taskVisibility(actor: Actor): Visibility {
  const base = { organizationId: actor.organizationId, roleIds: [] as readonly string[], formIds: null };
  switch (actor.kind) {
    case 'user':
      return { ...base, userId: actor.userId, seesAll: actor.isAdmin, roleIds: actor.roleIds };
    case 'automation':
      return { ...base, userId: null, seesAll: true };
    case 'bot':
      return {
        ...base,
        userId: null,
        seesAll: actor.scopes.formIds === undefined,
        formIds: actor.scopes.formIds ?? null,
      };
  }
}

/**
 * Whether the actor sees the task: the same rule as the repo's condition, in code. Administrators
 * and automations see all; a bot, the forms its key names; a member, the tasks of forms open to
 * them (`formOpenTo`) and those they are assigned to.
 */
export function canSeeTask(actor: Actor, task: TaskFacts): boolean {
  switch (actor.kind) {
    case 'user':
      return formOpenTo(task.formVisibleRoleIds, actor) || task.assigneeIds.includes(actor.userId);
    case 'automation':
      return true;
    case 'bot':
      return inScope(actor.scopes.formIds, task.formId);
  }
}

/** Whether the actor may edit the task's values, move its status and change its assignees. */
export function mayChangeTask(actor: Actor, task: TaskFacts): boolean {
  if (actor.kind === 'bot' && !botMayWrite(actor)) return false;
  return canSeeTask(actor, task);
}

/**
 * Whether the actor may delete the task, and restore it once deleted: its author, an administrator,
 * anyone the form is open to (not an assignee only), an automation, a bot whose key writes its form.
 */
export function mayDeleteTask(actor: Actor, task: TaskFacts): boolean {
  switch (actor.kind) {
    case 'user':
      return task.createdBy === actor.userId || formOpenTo(task.formVisibleRoleIds, actor);
    case 'automation':
      return true;
    case 'bot':
      return botMayWrite(actor) && inScope(actor.scopes.formIds, task.formId);
  }
}
