import type { FormField } from '@shared/api/forms';
import { parseUserEntry, userEntries } from '@shared/values';
import { map } from 'rxjs';
import { useLive } from '../../data/replica-context';

export {
  type Assignee,
  assigneesChange,
  manualAssignee,
  withAssignees,
} from '../../data/assignees';

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

/** A `user` field of the task naming a person: directly, or through a role they belong to (`roleId`). */
export interface FieldNaming {
  fieldId: string;
  roleId?: string;
}

/**
 * Where the task's `user` fields name `userId`. The server keeps everyone these fields name assigned
 * (a change of such a field assigns them again), so taking a person off the task means taking them
 * out of the fields naming them directly; a role's member can only leave with the role.
 */
export function fieldsNaming(
  fields: readonly FormField[],
  values: Record<string, unknown>,
  userId: string,
  roleMembers: ReadonlyMap<string, readonly string[]>,
): FieldNaming[] {
  const found: FieldNaming[] = [];
  for (const field of fields) {
    if (field.type !== 'user') continue;
    const entries = userEntries(values[field.id]);
    if (entries.some((entry) => entry.kind === 'user' && entry.id === userId)) {
      found.push({ fieldId: field.id });
      continue;
    }
    const role = entries.find((entry) => entry.kind === 'role' && roleMembers.get(entry.id)?.includes(userId));
    if (role) found.push({ fieldId: field.id, roleId: role.id });
  }
  return found;
}

/** A `user` field's value without `userId` named directly in it (a single value becomes empty). */
export function withoutPerson(value: unknown, userId: string): unknown {
  const names = (item: unknown) => {
    const entry = parseUserEntry(item);
    return entry?.kind === 'user' && entry.id === userId;
  };
  if (Array.isArray(value)) return value.filter((item) => !names(item));
  return names(value) ? null : value;
}

/** Members of each role, from the replica. */
export function useRoleMembers(): ReadonlyMap<string, readonly string[]> | undefined {
  return useLive(
    (r) =>
      r.db.roles.find().$.pipe(
        map(
          (docs) =>
            new Map(
              docs.map((doc) => {
                const role = doc.toJSON() as { id: string; memberIds?: string[] };
                return [role.id, role.memberIds ?? []];
              }),
            ),
        ),
      ),
    [],
  );
}
