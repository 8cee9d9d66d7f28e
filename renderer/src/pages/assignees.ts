import { map } from 'rxjs';
import { useLive } from '../data/replica-context';
import type { TaskDocument } from '../data/schemas';

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

/** The people who can be assigned (the server refuses anyone not active), by name, from the replica. */
export function useAssignableUsers(): { id: string; name: string }[] | undefined {
  return useLive(
    (r) =>
      r.db.users
        .find({ selector: { status: 'active' } })
        .$.pipe(
          map((docs) =>
            docs
              .map((doc) => doc.toJSON() as { id: string; name: string })
              .sort((a, b) => a.name.localeCompare(b.name)),
          ),
        ),
    [],
  );
}
