import type { TokenResponse } from '@shared/api/identity';
import type { AccessTokens } from '../../platform/auth/access-tokens';
import { unauthenticated } from '../../platform/auth/access-tokens';
import { randomToken, sha256Hex } from '../../platform/auth/secrets';
import type { Db, Queryable } from '../../platform/db/db';
import { inUnit, type UnitDeps } from '../../platform/db/unit-of-work';
import { Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import * as repo from './identity.repo';

export interface SessionDeps extends UnitDeps {
  tokens: AccessTokens;
  refreshTokenSeconds: number;
  refreshGraceSeconds: number;
}

/** Where a sign-in came from, kept on the session for the user's own review. */
export interface ClientInfo {
  userAgent: string | null;
  ipAddress: string | null;
}

/** A session just stored, whose access token is still to be signed (after commit). */
export interface IssuedSession {
  sessionId: string;
  refreshToken: string;
  userId: string;
  organizationId: string;
}

/**
 * Starts a session (a new family, or the next session of `familyId`). Only the SHA-256 hex of
 * the refresh token is stored; the plain token leaves in the response.
 */
export async function issueSession(
  deps: SessionDeps,
  tx: Queryable,
  user: { id: string; organizationId: string },
  client: ClientInfo,
  familyId: string = newId(),
): Promise<IssuedSession> {
  const sessionId = newId();
  const refreshToken = randomToken();
  await repo.insertSession(tx, {
    id: sessionId,
    organizationId: user.organizationId,
    userId: user.id,
    familyId,
    refreshTokenHash: sha256Hex(refreshToken),
    lifetimeSeconds: deps.refreshTokenSeconds,
    ...client,
  });
  return { sessionId, refreshToken, userId: user.id, organizationId: user.organizationId };
}

/**
 * The tokens of an issued session. Signed outside the transaction: the signing key may have to be
 * read from the database, and on PGlite a transaction holds its only connection.
 */
export async function sessionTokens(deps: SessionDeps, issued: IssuedSession): Promise<TokenResponse> {
  const accessToken = await deps.tokens.sign({
    userId: issued.userId,
    organizationId: issued.organizationId,
    sessionId: issued.sessionId,
  });
  return { accessToken, refreshToken: issued.refreshToken, expiresIn: deps.tokens.lifetimeSeconds };
}

type RefreshOutcome = { ok: true; issued: IssuedSession } | { ok: false; reused: boolean; deactivated?: boolean };

/** The answer to a token, refresh or sign-in of a deactivated account (403 `account_deactivated`). */
export function accountDeactivated(): Problem {
  return Problem.of('account_deactivated', 'This account is deactivated. Ask an administrator of your organization.');
}

const invalidRefresh = () =>
  unauthenticated('The refresh token is not valid or has expired. Sign in again.', 'invalid_refresh_token');

/**
 * Refresh-token rotation (SPEC §3, §5.2). The active session of the family is replaced by a new
 * one. A token of the family rotated less than the grace period ago still rotates the active
 * session, however often it is presented (tabs refreshing at once); a token rotated longer ago is
 * reuse and revokes the whole family.
 */
export async function refreshSession(
  deps: SessionDeps,
  refreshToken: string,
  client: ClientInfo,
): Promise<TokenResponse> {
  const tokenHash = sha256Hex(refreshToken);
  const outcome = await inUnit(deps, async ({ tx }): Promise<RefreshOutcome> => {
    const familyId = await repo.findSessionFamilyByTokenHash(tx, tokenHash);
    if (!familyId) return { ok: false, reused: false };
    const family = await repo.lockSessionFamily(tx, familyId, tokenHash, deps.refreshGraceSeconds);
    const presented = family.find((session) => session.presented);
    if (!presented) return { ok: false, reused: false };
    // Deactivation ended the session: its holder learns why (the app then removes the account's
    // data from the device), whichever of the family's tokens it holds.
    const user = await repo.findUser(tx, presented.organization_id, presented.user_id);
    if (user?.status === 'deactivated') return { ok: false, reused: false, deactivated: true };
    if (presented.revoked_at) return { ok: false, reused: false };
    const active = family.find((session) => !session.replaced_by_session_id && !session.revoked_at);
    if (!active || !user || user.status !== 'active') return { ok: false, reused: false };

    const isActive = presented.id === active.id;
    // Several tabs or windows of one device may present one token at once: each gets a rotation.
    const rotatedWithinGrace = presented.replaced_by_session_id !== null && presented.within_grace;
    if (!isActive && !rotatedWithinGrace) {
      // The committed revocation must survive the 401 this request answers.
      await repo.revokeSessionFamily(tx, familyId, 'refresh_token_reuse');
      return { ok: false, reused: true };
    }
    if (active.expired) return { ok: false, reused: false };
    const next = await issueSession(deps, tx, { id: user.id, organizationId: user.organization_id }, client, familyId);
    await repo.markSessionReplaced(tx, active.id, next.sessionId);
    return { ok: true, issued: next };
  });
  if (outcome.ok) return sessionTokens(deps, outcome.issued);
  if (outcome.deactivated) throw accountDeactivated();
  if (outcome.reused) {
    throw unauthenticated(
      'This refresh token was already used, so the session may be stolen: all its tokens are revoked. Sign in again.',
      'refresh_token_reused',
    );
  }
  throw invalidRefresh();
}

/**
 * Ends the session family of a refresh token, given as the token or its SHA-256 (sign-out; a
 * device signed out offline keeps only the hash). Unknown tokens are ignored.
 */
export async function endSessionFamily(
  db: Db,
  presented: { refreshToken?: string; refreshTokenHash?: string },
): Promise<void> {
  const hash = presented.refreshTokenHash ?? (presented.refreshToken ? sha256Hex(presented.refreshToken) : undefined);
  if (!hash) return;
  const familyId = await repo.findSessionFamilyByTokenHash(db, hash);
  if (familyId) await repo.revokeSessionFamily(db, familyId, 'logout');
}
