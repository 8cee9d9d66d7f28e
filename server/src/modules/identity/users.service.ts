import type { GatedModule } from '@shared/api/access';
import { GATED_MODULES } from '@shared/api/access';
import type { User } from '@shared/api/identity';
import type { AuthContext } from '../../platform/auth/auth-context';
import type { Queryable } from '../../platform/db/db';
import { inUnit } from '../../platform/db/unit-of-work';
import { decodeCursor, encodeCursor } from '../../platform/http/cursor';
import { Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import type { AuthDeps } from './auth.service';
import { enqueueMail, INVITATION_MAIL } from './identity.jobs';
import { presentRole, presentUser } from './identity.presenter';
import * as repo from './identity.repo';
import { assertRolesExist } from './members.service';

/** Tells other modules that who belongs to these roles changed (tasks re-expand `role:` values). */
function membershipChanged(deps: Pick<AuthDeps, 'events'>, organizationId: string, roleIds: readonly string[]) {
  for (const roleId of new Set(roleIds)) deps.events.publish('role.members_changed', { organizationId, roleId });
}

const userNotFound = (userId: string) => Problem.of('not_found', `There is no user ${userId} in your organization.`);

export async function listUsers(
  deps: Pick<AuthDeps, 'db'>,
  auth: AuthContext,
  page: { limit: number; cursor?: string },
) {
  const after = decodeCursor(page.cursor) as [string, string] | undefined;
  const rows = await repo.listUsers(deps.db, auth.organizationId, { limit: page.limit + 1, after });
  const items = rows.slice(0, page.limit).map(presentUser);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > page.limit && last ? encodeCursor([last.name, last.id]) : null };
}

export async function getUser(deps: Pick<AuthDeps, 'db'>, auth: AuthContext, userId: string): Promise<User> {
  const row = await repo.findUser(deps.db, auth.organizationId, userId);
  if (!row) throw userNotFound(userId);
  return presentUser(row);
}

/**
 * The status a change asks for, as it can be: someone who never set a password (deactivated while
 * still invited) returns as invited, and joins through a new invitation.
 */
function nextStatus(
  user: { status: string; password_hash: string | null },
  wanted: 'active' | 'deactivated' | undefined,
): 'invited' | 'active' | 'deactivated' | undefined {
  if (wanted !== 'active') return wanted;
  if (user.status === 'invited') return undefined;
  return user.password_hash ? 'active' : 'invited';
}

/** Invites a colleague: an `invited` user with no password, and an e-mail with a set-password link. */
export async function inviteUser(
  deps: AuthDeps,
  auth: AuthContext,
  input: { email: string; name: string; isAdmin: boolean; locale?: 'ru' | 'en'; roleIds: string[] },
): Promise<User> {
  const userId = newId();
  await inUnit(deps, async (unit) => {
    const { tx } = unit;
    await assertRolesExist(tx, auth.organizationId, input.roleIds);
    const inviter = await repo.findUser(tx, auth.organizationId, auth.userId);
    const inserted = await repo.insertUser(tx, {
      id: userId,
      organizationId: auth.organizationId,
      email: input.email,
      name: input.name,
      passwordHash: null,
      isAdmin: input.isAdmin,
      status: 'invited',
      locale: input.locale ?? inviter?.locale ?? 'ru',
    });
    if (!inserted) throw Problem.of('email_taken', `${input.email} already has an account.`);
    await repo.setUserRoles(tx, auth.organizationId, userId, input.roleIds);
    await enqueueMail(unit, INVITATION_MAIL, auth.organizationId, { userId, inviterId: auth.userId });
  });
  return getUser(deps, auth, userId);
}

/** Sends a new invitation link to a user who has not joined yet. */
export async function resendInvitation(deps: AuthDeps, auth: AuthContext, userId: string): Promise<void> {
  const user = await repo.findUser(deps.db, auth.organizationId, userId);
  if (!user) throw userNotFound(userId);
  if (user.status !== 'invited') {
    throw Problem.of('conflict', `${user.email} has already joined; they can reset their password instead.`);
  }
  await inUnit(deps, (unit) =>
    enqueueMail(unit, INVITATION_MAIL, auth.organizationId, { userId, inviterId: auth.userId }),
  );
}

/**
 * Edits a user. Members may change their own name and language; administrators anything. The
 * organization always keeps an active administrator; a deactivated user's sessions end at once.
 */
export async function updateUser(
  deps: AuthDeps,
  auth: AuthContext,
  userId: string,
  patch: {
    name?: string;
    locale?: 'ru' | 'en';
    isAdmin?: boolean;
    status?: 'active' | 'deactivated';
    roleIds?: string[];
  },
): Promise<User> {
  const adminOnly = patch.isAdmin !== undefined || patch.status !== undefined || patch.roleIds !== undefined;
  if (!auth.isAdmin && (userId !== auth.userId || adminOnly)) {
    throw Problem.of('forbidden', 'Only an administrator may change other users, roles, rights or status.');
  }
  const affectedRoles = await inUnit(deps, async ({ tx }) => {
    const admins = await repo.lockActiveAdminIds(tx, auth.organizationId);
    const user = await repo.findUser(tx, auth.organizationId, userId);
    if (!user) throw userNotFound(userId);
    const staysAdmin = (patch.isAdmin ?? user.is_admin) && (patch.status ?? user.status) === 'active';
    if (admins.includes(userId) && !staysAdmin && admins.length === 1) {
      throw Problem.of(
        'last_admin',
        'This is the last active administrator. Make someone else an administrator first.',
      );
    }
    if (user.status === 'invited' && patch.status === 'active') {
      throw Problem.of('conflict', 'An invited user becomes active by setting a password from the invitation.');
    }
    if (patch.roleIds) {
      await assertRolesExist(tx, auth.organizationId, patch.roleIds);
      await repo.setUserRoles(tx, auth.organizationId, userId, patch.roleIds);
    }
    await repo.updateUser(tx, auth.organizationId, userId, { ...patch, status: nextStatus(user, patch.status) });
    if (patch.status === 'deactivated') await repo.revokeUserSessions(tx, userId, 'deactivated');
    // Roles whose active membership this change affects.
    return patch.roleIds || patch.status ? [...user.role_ids, ...(patch.roleIds ?? [])] : [];
  });
  membershipChanged(deps, auth.organizationId, affectedRoles);
  return getUser(deps, auth, userId);
}

// ---- roles ----

const roleNotFound = (roleId: string) => Problem.of('not_found', `There is no role ${roleId} in your organization.`);
const nameTaken = (name: string) => Problem.of('name_taken', `The organization already has a role named "${name}".`);

async function assertUsersExist(tx: Queryable, organizationId: string, userIds: readonly string[], field: string) {
  const found = new Set(await repo.existingUserIds(tx, organizationId, userIds));
  const missing = userIds.filter((id) => !found.has(id));
  if (missing.length > 0) {
    throw Problem.of('validation_failed', `Unknown users: ${missing.join(', ')}.`, {
      errors: missing.map((id) => ({
        location: 'body' as const,
        pointer: `#/${field}/${userIds.indexOf(id)}`,
        detail: `There is no user ${id} in your organization`,
        code: 'unknown_user',
      })),
    });
  }
}

export async function listRoles(deps: Pick<AuthDeps, 'db'>, auth: AuthContext) {
  return { items: (await repo.listRoles(deps.db, auth.organizationId)).map(presentRole) };
}

export async function getRole(deps: Pick<AuthDeps, 'db'>, auth: AuthContext, roleId: string) {
  const row = await repo.findRole(deps.db, auth.organizationId, roleId);
  if (!row) throw roleNotFound(roleId);
  return presentRole(row);
}

export async function createRole(
  deps: Pick<AuthDeps, 'db' | 'events'>,
  auth: AuthContext,
  input: { name: string; memberIds: string[] },
) {
  const roleId = newId();
  await inUnit(deps, async ({ tx }) => {
    await assertUsersExist(tx, auth.organizationId, input.memberIds, 'memberIds');
    if (!(await repo.insertRole(tx, auth.organizationId, roleId, input.name))) throw nameTaken(input.name);
    await repo.setRoleMembers(tx, auth.organizationId, roleId, input.memberIds);
  });
  membershipChanged(deps, auth.organizationId, [roleId]);
  return getRole(deps, auth, roleId);
}

export async function renameRole(
  deps: Pick<AuthDeps, 'db' | 'events'>,
  auth: AuthContext,
  roleId: string,
  name: string,
) {
  await inUnit(deps, async ({ tx }) => {
    if (!(await repo.findRole(tx, auth.organizationId, roleId))) throw roleNotFound(roleId);
    if (!(await repo.renameRole(tx, auth.organizationId, roleId, name))) throw nameTaken(name);
  });
  return getRole(deps, auth, roleId);
}

export async function deleteRole(
  deps: Pick<AuthDeps, 'db' | 'events'>,
  auth: AuthContext,
  roleId: string,
): Promise<void> {
  if (!(await repo.deleteRole(deps.db, auth.organizationId, roleId))) throw roleNotFound(roleId);
  membershipChanged(deps, auth.organizationId, [roleId]);
}

export async function setRoleMembers(
  deps: Pick<AuthDeps, 'db' | 'events'>,
  auth: AuthContext,
  roleId: string,
  userIds: string[],
) {
  await inUnit(deps, async ({ tx }) => {
    // Held: a deletion of the role at the same moment waits for this, instead of failing it.
    if ((await repo.holdRoles(tx, auth.organizationId, [roleId])).length === 0) throw roleNotFound(roleId);
    await assertUsersExist(tx, auth.organizationId, userIds, 'userIds');
    await repo.setRoleMembers(tx, auth.organizationId, roleId, [...new Set(userIds)]);
  });
  membershipChanged(deps, auth.organizationId, [roleId]);
  return getRole(deps, auth, roleId);
}

// ---- module access matrix ----

export async function moduleAccessMatrix(deps: Pick<AuthDeps, 'db'>, auth: AuthContext) {
  const grants = await repo.listModuleGrants(deps.db, auth.organizationId);
  const users: { userId: string; name: string; isAdmin: boolean; modules: GatedModule[] }[] = [];
  for (let after: [string, string] | undefined; ; ) {
    const page = await repo.listUsers(deps.db, auth.organizationId, { limit: 500, after });
    for (const user of page) {
      if (user.status === 'deactivated') continue;
      const modules = grants.filter((g) => g.user_id === user.id).map((g) => g.module);
      users.push({ userId: user.id, name: user.name, isAdmin: user.is_admin, modules });
    }
    const last = page.at(-1);
    if (page.length < 500 || !last) break;
    after = [last.name, last.id];
  }
  const roles = (await repo.listRoles(deps.db, auth.organizationId)).map((role) => ({
    roleId: role.id,
    name: role.name,
    modules: grants.filter((g) => g.role_id === role.id).map((g) => g.module),
  }));
  return { modules: [...GATED_MODULES], users, roles };
}

export async function updateModuleAccess(
  deps: Pick<AuthDeps, 'db' | 'events'>,
  auth: AuthContext,
  input: { users: { userId: string; modules: GatedModule[] }[]; roles: { roleId: string; modules: GatedModule[] }[] },
) {
  await inUnit(deps, async ({ tx }) => {
    await assertUsersExist(
      tx,
      auth.organizationId,
      input.users.map((u) => u.userId),
      'users',
    );
    await assertRolesExist(
      tx,
      auth.organizationId,
      input.roles.map((r) => r.roleId),
      'roles',
    );
    for (const user of input.users) {
      await repo.setSubjectModules(tx, auth.organizationId, { userId: user.userId }, [...new Set(user.modules)]);
    }
    for (const role of input.roles) {
      await repo.setSubjectModules(tx, auth.organizationId, { roleId: role.roleId }, [...new Set(role.modules)]);
    }
  });
  return moduleAccessMatrix(deps, auth);
}
