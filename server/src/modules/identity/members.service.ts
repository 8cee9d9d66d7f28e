import type { Queryable } from '../../platform/db/db';
import { Problem } from '../../platform/http/problem';
import * as repo from './identity.repo';

/** What other modules may ask of the organization's people (they never read identity tables). */

/** Ids among `ids` that are users of the organization. */
export function knownUserIds(db: Queryable, organizationId: string, ids: readonly string[]): Promise<string[]> {
  return ids.length === 0 ? Promise.resolve([]) : repo.existingUserIds(db, organizationId, ids);
}

/** Ids among `ids` that are roles of the organization. */
export function knownRoleIds(db: Queryable, organizationId: string, ids: readonly string[]): Promise<string[]> {
  return ids.length === 0 ? Promise.resolve([]) : repo.existingRoleIds(db, organizationId, ids);
}

/** Current active members of each role. */
export async function activeRoleMembers(
  db: Queryable,
  organizationId: string,
  roleIds: readonly string[],
): Promise<Map<string, string[]>> {
  const members = new Map<string, string[]>(roleIds.map((id) => [id, []]));
  if (roleIds.length === 0) return members;
  for (const row of await repo.activeRoleMemberships(db, organizationId, roleIds)) {
    members.get(row.role_id)?.push(row.user_id);
  }
  return members;
}

/** Ids among `ids` that are active users of the organization (assignable). */
export function activeUserIds(db: Queryable, organizationId: string, ids: readonly string[]): Promise<string[]> {
  return ids.length === 0 ? Promise.resolve([]) : repo.activeUserIds(db, organizationId, ids);
}

/** How many people the organization has (invited ones included). */
export function memberCount(db: Queryable, organizationId: string): Promise<number> {
  return repo.memberCount(db, organizationId);
}

export function onboardingDismissed(db: Queryable, organizationId: string): Promise<boolean> {
  return repo.onboardingDismissed(db, organizationId);
}

export function dismissOnboarding(db: Queryable, organizationId: string): Promise<void> {
  return repo.dismissOnboarding(db, organizationId);
}

/**
 * Refuses ids that are not roles of the organization, naming them at `#/<field>/<index>` (another
 * organization's look unknown); the known ones are held for the rest of the transaction.
 */
export async function assertRolesExist(
  tx: Queryable,
  organizationId: string,
  roleIds: readonly string[],
  field = 'roleIds',
): Promise<void> {
  const found = new Set(roleIds.length === 0 ? [] : await repo.holdRoles(tx, organizationId, roleIds));
  const missing = roleIds.filter((id) => !found.has(id));
  if (missing.length > 0) {
    throw Problem.of('validation_failed', `Unknown roles: ${missing.join(', ')}.`, {
      errors: missing.map((id) => ({
        location: 'body' as const,
        pointer: `#/${field}/${roleIds.indexOf(id)}`,
        detail: `There is no role ${id} in your organization`,
        code: 'unknown_role',
      })),
    });
  }
}
