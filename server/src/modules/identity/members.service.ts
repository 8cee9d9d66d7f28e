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
  const { rows } = await db.query<{ role_id: string; user_id: string }>(
    `SELECT rm.role_id, rm.user_id FROM role_members rm JOIN users u ON u.id = rm.user_id
      WHERE rm.organization_id = $1 AND rm.role_id = ANY($2::uuid[]) AND u.status = 'active'
      ORDER BY rm.user_id`,
    [organizationId, roleIds],
  );
  for (const row of rows) members.get(row.role_id)?.push(row.user_id);
  return members;
}

/** Ids among `ids` that are active users of the organization (assignable). */
export async function activeUserIds(db: Queryable, organizationId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM users WHERE organization_id = $1 AND id = ANY($2::uuid[]) AND status = 'active'`,
    [organizationId, ids],
  );
  return rows.map((row) => row.id);
}

/** How many people the organization has (invited ones included). */
export async function memberCount(db: Queryable, organizationId: string): Promise<number> {
  const { rows } = await db.query<{ count: string }>(
    "SELECT count(*) AS count FROM users WHERE organization_id = $1 AND status <> 'deactivated'",
    [organizationId],
  );
  return Number(rows[0]?.count ?? 0);
}

export async function onboardingDismissed(db: Queryable, organizationId: string): Promise<boolean> {
  const { rows } = await db.query<{ dismissed: boolean }>(
    'SELECT onboarding_dismissed_at IS NOT NULL AS dismissed FROM organizations WHERE id = $1',
    [organizationId],
  );
  return rows[0]?.dismissed ?? false;
}

export async function dismissOnboarding(db: Queryable, organizationId: string): Promise<void> {
  await db.query(
    'UPDATE organizations SET onboarding_dismissed_at = COALESCE(onboarding_dismissed_at, now()) WHERE id = $1',
    [organizationId],
  );
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
