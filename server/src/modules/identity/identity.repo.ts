import type { GatedModule } from '@shared/api/access';
import type { SyncCheckpoint } from '@shared/sync';
import type { Queryable } from '../../platform/db/db';
import { changedSince, checkpointParams, syncColumns } from '../../platform/sync/sync-source';

export interface OrganizationRow {
  id: string;
  name: string;
  active_skin_id: string | null;
  health_schedule_enabled: boolean;
  billing_blocked: boolean;
}

export interface UserRow {
  id: string;
  organization_id: string;
  email: string;
  name: string;
  password_hash: string | null;
  is_admin: boolean;
  status: 'invited' | 'active' | 'deactivated';
  locale: 'ru' | 'en';
  role_ids: string[];
  created_at: Date;
}

export interface SessionRow {
  id: string;
  organization_id: string;
  user_id: string;
  family_id: string;
  replaced_by_session_id: string | null;
  revoked_at: Date | null;
  expired: boolean;
  /** Replaced within the grace period (computed by the database clock). */
  within_grace: boolean;
}

export interface RoleRow {
  id: string;
  name: string;
  member_ids: string[];
  created_at: Date;
}

const USER_COLUMNS = `u.id, u.organization_id, u.email, u.name, u.password_hash, u.is_admin, u.status, u.locale, u.created_at,
  ARRAY(SELECT rm.role_id FROM role_members rm WHERE rm.user_id = u.id ORDER BY rm.role_id)::text[] AS role_ids`;

// ---- organizations ----

export async function insertOrganization(db: Queryable, id: string, name: string): Promise<void> {
  await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [id, name]);
}

export async function findOrganization(db: Queryable, organizationId: string): Promise<OrganizationRow | undefined> {
  const { rows } = await db.query<OrganizationRow>(
    'SELECT id, name, active_skin_id, health_schedule_enabled, billing_blocked FROM organizations WHERE id = $1',
    [organizationId],
  );
  return rows[0];
}

/** Sets the billing block; true when it changed. */
export async function setBillingBlocked(db: Queryable, organizationId: string, blocked: boolean): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE organizations SET billing_blocked = $2, updated_at = now()
     WHERE id = $1 AND billing_blocked IS DISTINCT FROM $2`,
    [organizationId, blocked],
  );
  return rowCount > 0;
}

/** Organizations whose id or exact name is `reference` (an operator's way to name one). */
export async function findOrganizationsByReference(
  db: Queryable,
  reference: string,
): Promise<{ id: string; name: string }[]> {
  const { rows } = await db.query<{ id: string; name: string }>(
    `SELECT id, name FROM organizations WHERE id::text = $1 OR name = $1 ORDER BY created_at`,
    [reference],
  );
  return rows;
}

export async function updateOrganization(
  db: Queryable,
  organizationId: string,
  patch: { name?: string; health_schedule_enabled?: boolean; activeSkinId?: string | null },
): Promise<void> {
  await db.query(
    `UPDATE organizations SET name = COALESCE($2, name),
       health_schedule_enabled = COALESCE($3, health_schedule_enabled),
       active_skin_id = CASE WHEN $4 THEN $5::uuid ELSE active_skin_id END, updated_at = now()
     WHERE id = $1`,
    [
      organizationId,
      patch.name ?? null,
      patch.health_schedule_enabled ?? null,
      patch.activeSkinId !== undefined,
      patch.activeSkinId ?? null,
    ],
  );
}

// ---- users ----

export async function insertUser(
  db: Queryable,
  user: {
    id: string;
    organizationId: string;
    email: string;
    name: string;
    passwordHash: string | null;
    isAdmin: boolean;
    status: UserRow['status'];
    locale: UserRow['locale'];
  },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO users (id, organization_id, email, name, password_hash, is_admin, status, locale)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (email) DO NOTHING`,
    [user.id, user.organizationId, user.email, user.name, user.passwordHash, user.isAdmin, user.status, user.locale],
  );
  return rowCount === 1;
}

/** Sign-in looks users up by e-mail across the installation (e-mails are unique). */
export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.email = $1`, [email]);
  return rows[0];
}

export async function findUser(db: Queryable, organizationId: string, userId: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(
    `SELECT ${USER_COLUMNS} FROM users u WHERE u.organization_id = $1 AND u.id = $2`,
    [organizationId, userId],
  );
  return rows[0];
}

export async function listUsers(
  db: Queryable,
  organizationId: string,
  page: { limit: number; after?: [string, string] },
): Promise<UserRow[]> {
  const { rows } = await db.query<UserRow>(
    `SELECT ${USER_COLUMNS} FROM users u
      WHERE u.organization_id = $1 AND ($2::text IS NULL OR (u.name, u.id) > ($2::text, $3::uuid))
      ORDER BY u.name, u.id LIMIT $4`,
    [organizationId, page.after?.[0] ?? null, page.after?.[1] ?? null, page.limit],
  );
  return rows;
}

export async function updateUser(
  db: Queryable,
  organizationId: string,
  userId: string,
  patch: { name?: string; locale?: string; isAdmin?: boolean; status?: string },
): Promise<void> {
  await db.query(
    `UPDATE users SET name = COALESCE($3, name), locale = COALESCE($4, locale), is_admin = COALESCE($5, is_admin),
       status = COALESCE($6, status), updated_at = now()
     WHERE organization_id = $1 AND id = $2`,
    [organizationId, userId, patch.name ?? null, patch.locale ?? null, patch.isAdmin ?? null, patch.status ?? null],
  );
}

/** Locks the organization's active administrators (so two demotions cannot both pass). */
export async function lockActiveAdminIds(db: Queryable, organizationId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM users WHERE organization_id = $1 AND is_admin AND status = 'active' ORDER BY id FOR UPDATE`,
    [organizationId],
  );
  return rows.map((row) => row.id);
}

/** Ids among `ids` that are users of the organization. */
export async function existingUserIds(
  db: Queryable,
  organizationId: string,
  ids: readonly string[],
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM users WHERE organization_id = $1 AND id = ANY($2::uuid[])',
    [organizationId, ids],
  );
  return rows.map((row) => row.id);
}

export async function setResetToken(
  db: Queryable,
  userId: string,
  tokenHash: string,
  lifetimeSeconds: number,
): Promise<void> {
  await db.query(
    `UPDATE users SET reset_token_hash = $2, reset_token_expires_at = now() + make_interval(secs => $3)
     WHERE id = $1`,
    [userId, tokenHash, lifetimeSeconds],
  );
}

/** The user a reset token belongs to, locked, if the token has not expired. */
export async function lockUserByResetToken(db: Queryable, tokenHash: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(
    `SELECT ${USER_COLUMNS} FROM users u
      WHERE u.reset_token_hash = $1 AND u.reset_token_expires_at > now() AND u.status <> 'deactivated'
      FOR UPDATE`,
    [tokenHash],
  );
  return rows[0];
}

/** Sets the password and spends the reset token; an invited user becomes active. */
export async function setPassword(db: Queryable, userId: string, passwordHash: string): Promise<void> {
  await db.query(
    `UPDATE users SET password_hash = $2, reset_token_hash = NULL, reset_token_expires_at = NULL,
       status = CASE WHEN status = 'invited' THEN 'active' ELSE status END, updated_at = now()
     WHERE id = $1`,
    [userId, passwordHash],
  );
}

// ---- sessions ----

export async function insertSession(
  db: Queryable,
  session: {
    id: string;
    organizationId: string;
    userId: string;
    familyId: string;
    refreshTokenHash: string;
    lifetimeSeconds: number;
    userAgent: string | null;
    ipAddress: string | null;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO user_sessions (id, organization_id, user_id, family_id, refresh_token_hash, expires_at, user_agent, ip_address)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6), $7, $8)`,
    [
      session.id,
      session.organizationId,
      session.userId,
      session.familyId,
      session.refreshTokenHash,
      session.lifetimeSeconds,
      session.userAgent,
      session.ipAddress,
    ],
  );
}

export async function findSessionFamilyByTokenHash(db: Queryable, tokenHash: string): Promise<string | undefined> {
  const { rows } = await db.query<{ family_id: string }>(
    'SELECT family_id FROM user_sessions WHERE refresh_token_hash = $1',
    [tokenHash],
  );
  return rows[0]?.family_id;
}

/** Every session of a family, locked, so concurrent refreshes of one family run one after another. */
export async function lockSessionFamily(
  db: Queryable,
  familyId: string,
  tokenHash: string,
  graceSeconds: number,
): Promise<(SessionRow & { presented: boolean })[]> {
  // Lock first, read after: a statement that waited for a concurrent rotation to commit does not
  // see the session that rotation inserted, the next statement does.
  await db.query('SELECT id FROM user_sessions WHERE family_id = $1 ORDER BY id FOR UPDATE', [familyId]);
  const { rows } = await db.query<SessionRow & { presented: boolean }>(
    `SELECT id, organization_id, user_id, family_id, replaced_by_session_id, revoked_at,
            expires_at <= now() AS expired,
            replaced_at IS NOT NULL AND replaced_at > now() - make_interval(secs => $3) AS within_grace,
            refresh_token_hash = $2 AS presented
       FROM user_sessions WHERE family_id = $1 ORDER BY created_at, id`,
    [familyId, tokenHash, graceSeconds],
  );
  return rows;
}

export async function markSessionReplaced(db: Queryable, sessionId: string, replacedBy: string): Promise<void> {
  await db.query('UPDATE user_sessions SET replaced_by_session_id = $2, replaced_at = now() WHERE id = $1', [
    sessionId,
    replacedBy,
  ]);
}

export async function revokeSessionFamily(db: Queryable, familyId: string, reason: string): Promise<void> {
  await db.query(
    'UPDATE user_sessions SET revoked_at = now(), revoked_reason = $2 WHERE family_id = $1 AND revoked_at IS NULL',
    [familyId, reason],
  );
}

export async function revokeUserSessions(db: Queryable, userId: string, reason: string): Promise<void> {
  await db.query(
    'UPDATE user_sessions SET revoked_at = now(), revoked_reason = $2 WHERE user_id = $1 AND revoked_at IS NULL',
    [userId, reason],
  );
}

export interface CallerRow {
  locale: 'ru' | 'en';
  role_ids: string[];
  is_admin: boolean;
  status: UserRow['status'];
  session_revoked: boolean;
  modules: GatedModule[];
}

/** What a request needs to know of its caller: one query per authenticated request. */
export async function findCaller(
  db: Queryable,
  organizationId: string,
  userId: string,
  sessionId: string,
): Promise<CallerRow | undefined> {
  const { rows } = await db.query<CallerRow>(
    `SELECT u.is_admin, u.status, u.locale, s.revoked_at IS NOT NULL AS session_revoked,
            ARRAY(SELECT rm.role_id FROM role_members rm WHERE rm.user_id = u.id ORDER BY rm.role_id)::text[] AS role_ids,
            ARRAY(SELECT DISTINCT ma.module FROM module_access ma
                   WHERE ma.organization_id = u.organization_id
                     AND (ma.user_id = u.id
                          OR ma.role_id IN (SELECT rm.role_id FROM role_members rm WHERE rm.user_id = u.id))
                   ORDER BY ma.module)::text[] AS modules
       FROM users u JOIN user_sessions s ON s.id = $3 AND s.user_id = u.id
      WHERE u.organization_id = $1 AND u.id = $2`,
    [organizationId, userId, sessionId],
  );
  return rows[0];
}

// ---- login throttle ----

export async function lockedUntil(db: Queryable, keys: readonly string[]): Promise<Date | undefined> {
  const { rows } = await db.query<{ until: Date | null }>(
    'SELECT max(locked_until) AS until FROM login_throttle WHERE key = ANY($1::text[]) AND locked_until > now()',
    [keys],
  );
  return rows[0]?.until ?? undefined;
}

/** Counts a failure in the key's window; reaching `limit` locks the key for `lockSeconds`. */
export async function recordLoginFailure(
  db: Queryable,
  key: string,
  rule: { limit: number; windowSeconds: number; lockSeconds: number },
): Promise<void> {
  await db.query(
    `INSERT INTO login_throttle AS t (key, failures, window_started_at) VALUES ($1, 1, now())
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN t.window_started_at > now() - make_interval(secs => $2) THEN t.failures + 1 ELSE 1 END,
       window_started_at = CASE WHEN t.window_started_at > now() - make_interval(secs => $2)
                                THEN t.window_started_at ELSE now() END`,
    [key, rule.windowSeconds],
  );
  await db.query(
    `UPDATE login_throttle SET locked_until = now() + make_interval(secs => $3), failures = 0, window_started_at = now()
      WHERE key = $1 AND failures >= $2`,
    [key, rule.limit, rule.lockSeconds],
  );
}

export async function clearLoginFailures(db: Queryable, key: string): Promise<void> {
  await db.query('DELETE FROM login_throttle WHERE key = $1', [key]);
}

// ---- roles ----

const ROLE_COLUMNS = `r.id, r.name, r.created_at,
  ARRAY(SELECT rm.user_id FROM role_members rm WHERE rm.role_id = r.id ORDER BY rm.user_id)::text[] AS member_ids`;

export async function listRoles(db: Queryable, organizationId: string): Promise<RoleRow[]> {
  const { rows } = await db.query<RoleRow>(
    `SELECT ${ROLE_COLUMNS} FROM roles r WHERE r.organization_id = $1 ORDER BY lower(r.name), r.id`,
    [organizationId],
  );
  return rows;
}

export async function findRole(db: Queryable, organizationId: string, roleId: string): Promise<RoleRow | undefined> {
  const { rows } = await db.query<RoleRow>(
    `SELECT ${ROLE_COLUMNS} FROM roles r WHERE r.organization_id = $1 AND r.id = $2`,
    [organizationId, roleId],
  );
  return rows[0];
}

/** Inserts a role; false when the organization already has a role of that name. */
export async function insertRole(db: Queryable, organizationId: string, id: string, name: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'INSERT INTO roles (id, organization_id, name) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
    [id, organizationId, name],
  );
  return rowCount === 1;
}

export async function renameRole(
  db: Queryable,
  organizationId: string,
  roleId: string,
  name: string,
): Promise<boolean> {
  const { rows } = await db.query<{ taken: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM roles WHERE organization_id = $1 AND lower(name) = lower($3) AND id <> $2) AS taken`,
    [organizationId, roleId, name],
  );
  if (rows[0]?.taken) return false;
  await db.query('UPDATE roles SET name = $3, updated_at = now() WHERE organization_id = $1 AND id = $2', [
    organizationId,
    roleId,
    name,
  ]);
  return true;
}

export async function deleteRole(db: Queryable, organizationId: string, roleId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM roles WHERE organization_id = $1 AND id = $2', [
    organizationId,
    roleId,
  ]);
  return rowCount === 1;
}

export async function existingRoleIds(
  db: Queryable,
  organizationId: string,
  ids: readonly string[],
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM roles WHERE organization_id = $1 AND id = ANY($2::uuid[])',
    [organizationId, ids],
  );
  return rows.map((row) => row.id);
}

/**
 * The ids of these that are roles of the organization, held for the rest of the (writing)
 * transaction: a deletion of one waits, so memberships written meanwhile never name a role gone.
 */
export async function holdRoles(db: Queryable, organizationId: string, ids: readonly string[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM roles WHERE organization_id = $1 AND id = ANY($2::uuid[]) FOR KEY SHARE',
    [organizationId, ids],
  );
  return rows.map((row) => row.id);
}

export async function setRoleMembers(
  db: Queryable,
  organizationId: string,
  roleId: string,
  userIds: readonly string[],
): Promise<void> {
  await db.query(
    'DELETE FROM role_members WHERE organization_id = $1 AND role_id = $2 AND NOT (user_id = ANY($3::uuid[]))',
    [organizationId, roleId, userIds],
  );
  await db.query(
    `INSERT INTO role_members (organization_id, role_id, user_id)
     SELECT $1, $2, unnest($3::uuid[]) ON CONFLICT DO NOTHING`,
    [organizationId, roleId, userIds],
  );
}

export async function setUserRoles(
  db: Queryable,
  organizationId: string,
  userId: string,
  roleIds: readonly string[],
): Promise<void> {
  await db.query(
    'DELETE FROM role_members WHERE organization_id = $1 AND user_id = $2 AND NOT (role_id = ANY($3::uuid[]))',
    [organizationId, userId, roleIds],
  );
  await db.query(
    `INSERT INTO role_members (organization_id, role_id, user_id)
     SELECT $1, unnest($3::uuid[]), $2 ON CONFLICT DO NOTHING`,
    [organizationId, userId, roleIds],
  );
}

// ---- module access ----

export async function listModuleGrants(
  db: Queryable,
  organizationId: string,
): Promise<{ module: GatedModule; user_id: string | null; role_id: string | null }[]> {
  const { rows } = await db.query<{ module: GatedModule; user_id: string | null; role_id: string | null }>(
    'SELECT module, user_id, role_id FROM module_access WHERE organization_id = $1 ORDER BY module',
    [organizationId],
  );
  return rows;
}

export async function setSubjectModules(
  db: Queryable,
  organizationId: string,
  subject: { userId: string } | { roleId: string },
  modules: readonly GatedModule[],
): Promise<void> {
  const column = 'userId' in subject ? 'user_id' : 'role_id';
  const id = 'userId' in subject ? subject.userId : subject.roleId;
  await db.query(`DELETE FROM module_access WHERE organization_id = $1 AND ${column} = $2`, [organizationId, id]);
  await db.query(`INSERT INTO module_access (organization_id, module, ${column}) SELECT $1, unnest($3::text[]), $2`, [
    organizationId,
    id,
    modules,
  ]);
}

/** Memberships of active users in these roles. */
export async function activeRoleMemberships(
  db: Queryable,
  organizationId: string,
  roleIds: readonly string[],
): Promise<{ role_id: string; user_id: string }[]> {
  const { rows } = await db.query<{ role_id: string; user_id: string }>(
    `SELECT rm.role_id, rm.user_id FROM role_members rm JOIN users u ON u.id = rm.user_id
      WHERE rm.organization_id = $1 AND rm.role_id = ANY($2::uuid[]) AND u.status = 'active'
      ORDER BY rm.user_id`,
    [organizationId, roleIds],
  );
  return rows;
}

/** Ids among `ids` that are active users of the organization. */
export async function activeUserIds(db: Queryable, organizationId: string, ids: readonly string[]): Promise<string[]> {
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

/** A colleague changed since a checkpoint (no secrets: the columns are chosen here). */
/** What a user is presented from (no secrets). */
export type PresentableUser = Pick<
  UserRow,
  'id' | 'email' | 'name' | 'is_admin' | 'status' | 'locale' | 'role_ids' | 'created_at'
>;

export type UserChange = PresentableUser & { sync_xid: string; sync_seq: string };

/** Users changed after `checkpoint`, in commit order, with their roles. */
export async function userChanges(
  db: Queryable,
  organizationId: string,
  checkpoint: SyncCheckpoint | null,
  limit: number,
): Promise<UserChange[]> {
  const { rows } = await db.query<UserChange>(
    `SELECT u.id, u.email, u.name, u.is_admin, u.status, u.locale, u.created_at,
            ARRAY(SELECT rm.role_id FROM role_members rm WHERE rm.user_id = u.id ORDER BY rm.role_id)::text[] AS role_ids,
            ${syncColumns('u')}
       FROM users u WHERE u.organization_id = $1 AND ${changedSince('u', 2, 3)} ORDER BY u.sync_xid, u.sync_seq LIMIT $4`,
    [organizationId, ...checkpointParams(checkpoint), limit],
  );
  return rows;
}

/** A role changed since a checkpoint; a deleted one has no name and no members (its tombstone). */
export interface RoleChange {
  id: string;
  name: string | null;
  member_ids: string[] | null;
  sync_xid: string;
  sync_seq: string;
}

/** Roles changed or deleted after `checkpoint`, in commit order, with their members. */
export async function roleChanges(
  db: Queryable,
  organizationId: string,
  checkpoint: SyncCheckpoint | null,
  limit: number,
): Promise<RoleChange[]> {
  const { rows } = await db.query<RoleChange>(
    `SELECT * FROM (
       SELECT r.id, r.name, ARRAY(SELECT rm.user_id FROM role_members rm WHERE rm.role_id = r.id ORDER BY rm.user_id)::text[] AS member_ids,
              r.sync_xid, r.sync_seq
         FROM roles r WHERE r.organization_id = $1 AND ${changedSince('r', 2, 3)}
       UNION ALL
       SELECT d.document_id AS id, NULL, NULL, d.sync_xid, d.sync_seq
         FROM sync_tombstones d WHERE d.organization_id = $1 AND d.collection = 'roles' AND ${changedSince('d', 2, 3)}
     ) changes ORDER BY sync_xid, sync_seq LIMIT $4`,
    [organizationId, ...checkpointParams(checkpoint), limit],
  );
  return rows.map((row) => ({ ...row, sync_xid: String(row.sync_xid), sync_seq: String(row.sync_seq) }));
}
