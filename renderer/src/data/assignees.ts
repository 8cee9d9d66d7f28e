import type { TaskDocument } from './schemas';

export type Assignee = NonNullable<TaskDocument['assignees']>[number];

/** A person assigned on this device by hand; the server fills in the rest when it takes the change. */
export function manualAssignee(userId: string): Assignee {
  return {
    userId,
    source: 'manual',
    delegated_from_user_id: null,
    pending_review: false,
    addedAt: new Date().toISOString(),
  };
}

/** The assignees with `userIds` as the people assigned, keeping the entries of those already there. */
export function withAssignees(current: Assignee[], userIds: string[]): Assignee[] {
  return userIds.map((userId) => current.find((assignee) => assignee.userId === userId) ?? manualAssignee(userId));
}

/** People put on a task and taken off it, whoever else it has when the change is written. */
export interface AssigneesChange {
  add: string[];
  remove: string[];
}

/**
 * What choosing `userIds` on a page showing `shown` changes: the people put on and taken off. A
 * page shows the replica a moment late, and a person a colleague assigned meanwhile is not the
 * user's to take off by choosing someone else.
 */
export function assigneesChange(shown: readonly Assignee[], userIds: readonly string[]): AssigneesChange {
  const before = shown.map((assignee) => assignee.userId);
  return {
    add: userIds.filter((userId) => !before.includes(userId)),
    remove: before.filter((userId) => !userIds.includes(userId)),
  };
}

/** The assignees a task has now, with `change` made to them (those added last, in its order). */
export function reassigned(current: readonly Assignee[], change: AssigneesChange): Assignee[] {
  const kept = current.filter((assignee) => !change.remove.includes(assignee.userId));
  const added = change.add
    .filter((userId, index) => change.add.indexOf(userId) === index)
    .filter((userId) => !kept.some((assignee) => assignee.userId === userId))
    .map(manualAssignee);
  return [...kept, ...added];
}
