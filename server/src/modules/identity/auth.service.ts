import type { Me, TokenResponse } from '@shared/api/identity';
import type { AuthContext } from '../../platform/auth/auth-context';
import { sha256Hex } from '../../platform/auth/secrets';
import { inUnit } from '../../platform/db/unit-of-work';
import type { EventBus } from '../../platform/events';
import { Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import type { Logger } from '../../platform/logging';
import type { Mailer } from '../../platform/mail/mailer';
import { enqueueMail, PASSWORD_RESET_MAIL } from './identity.jobs';
import { presentModules, presentOrganization, presentRole, presentUser } from './identity.presenter';
import * as repo from './identity.repo';
import { hashPassword, verifyPassword } from './passwords';
import { accountDeactivated, type ClientInfo, issueSession, type SessionDeps, sessionTokens } from './sessions.service';

export interface AuthDeps extends SessionDeps {
  events: EventBus;
  mailer: Mailer;
  logger: Logger;
  publicUrl: string;
}

/** Failed sign-ins: per account 5 in 15 minutes, per address 50 in 15 minutes; either locks 15 minutes. */
const ACCOUNT_RULE = { limit: 5, windowSeconds: 900, lockSeconds: 900 };
const ADDRESS_RULE = { limit: 50, windowSeconds: 900, lockSeconds: 900 };

/** Creates an organization with its first user as administrator, and signs them in. */
export async function register(
  deps: AuthDeps,
  input: { organizationName: string; name: string; email: string; password: string; locale?: 'ru' | 'en' },
  client: ClientInfo,
): Promise<TokenResponse> {
  const passwordHash = await hashPassword(input.password);
  const issued = await inUnit(deps, async ({ tx }) => {
    const organizationId = newId();
    const userId = newId();
    await repo.insertOrganization(tx, organizationId, input.organizationName);
    const inserted = await repo.insertUser(tx, {
      id: userId,
      organizationId,
      email: input.email,
      name: input.name,
      passwordHash,
      isAdmin: true,
      status: 'active',
      locale: input.locale ?? 'ru',
    });
    if (!inserted) {
      throw Problem.of('email_taken', `${input.email} already has an account. Sign in, or reset the password.`);
    }
    return issueSession(deps, tx, { id: userId, organizationId }, client);
  });
  return sessionTokens(deps, issued);
}

function retryAfter(until: Date): Problem {
  const seconds = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000));
  return Problem.of(
    'too_many_attempts',
    `Too many failed sign-ins. Try again in ${Math.ceil(seconds / 60)} min, or reset your password.`,
    { headers: { 'Retry-After': String(seconds) } },
  );
}

/** Signs in with e-mail and password, throttled per account and per client address. */
export async function login(
  deps: AuthDeps,
  input: { email: string; password: string },
  client: ClientInfo,
): Promise<TokenResponse> {
  const accountKey = `account:${input.email}`;
  const addressKey = `address:${client.ipAddress ?? 'unknown'}`;
  const locked = await repo.lockedUntil(deps.db, [accountKey, addressKey]);
  if (locked) throw retryAfter(locked);

  const user = await repo.findUserByEmail(deps.db, input.email);
  const valid = await verifyPassword(user?.password_hash ?? null, input.password);
  if (!user || !valid) {
    await repo.recordLoginFailure(deps.db, accountKey, ACCOUNT_RULE);
    await repo.recordLoginFailure(deps.db, addressKey, ADDRESS_RULE);
    throw new Problem(
      401,
      'invalid_credentials',
      'The e-mail or password is wrong. Check them, or reset the password.',
    );
  }
  if (user.status === 'deactivated') throw accountDeactivated();
  await repo.clearLoginFailures(deps.db, accountKey);
  const issued = await inUnit(deps, ({ tx }) =>
    issueSession(deps, tx, { id: user.id, organizationId: user.organization_id }, client),
  );
  return sessionTokens(deps, issued);
}

/**
 * Starts a password reset: answers the same whether or not the account exists; the e-mail with a
 * set-password link goes out as a durable job (`identity.jobs.ts`).
 */
export async function forgotPassword(deps: AuthDeps, email: string): Promise<void> {
  const user = await repo.findUserByEmail(deps.db, email);
  if (!user || user.status === 'deactivated') return;
  await inUnit(deps, (unit) => enqueueMail(unit, PASSWORD_RESET_MAIL, user.organization_id, { userId: user.id }));
}

/** Sets a new password with a reset (or invitation) token: single use, and every session ends. */
export async function resetPassword(deps: AuthDeps, token: string, password: string): Promise<void> {
  const passwordHash = await hashPassword(password);
  await inUnit(deps, async ({ tx }) => {
    const user = await repo.lockUserByResetToken(tx, sha256Hex(token));
    if (!user) {
      throw Problem.of(
        'invalid_reset_token',
        'The link is not valid: it was used already or has expired. Ask for a new one.',
      );
    }
    await repo.setPassword(tx, user.id, passwordHash);
    await repo.revokeUserSessions(tx, user.id, 'password_reset');
  });
}

/** The signed-in user, their roles and modules, and their organization. */
export async function currentUser(deps: Pick<AuthDeps, 'db'>, auth: AuthContext): Promise<Me> {
  const user = await repo.findUser(deps.db, auth.organizationId, auth.userId);
  const organization = await repo.findOrganization(deps.db, auth.organizationId);
  if (!user || !organization) throw Problem.of('not_found', 'The account no longer exists.');
  const roles = (await repo.listRoles(deps.db, auth.organizationId)).filter((role) => user.role_ids.includes(role.id));
  return {
    user: presentUser(user),
    roles: roles.map((role) => {
      const { id, name } = presentRole(role);
      return { id, name };
    }),
    modules: presentModules(auth.modules),
    organization: presentOrganization(organization),
  };
}
