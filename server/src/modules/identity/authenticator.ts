import { GATED_MODULES } from '@shared/api/access';
import { type AccessTokens, unauthenticated } from '../../platform/auth/access-tokens';
import type { Authenticate } from '../../platform/auth/auth-context';
import type { Db } from '../../platform/db/db';
import { Problem } from '../../platform/http/problem';
import { findCaller } from './identity.repo';

/**
 * Resolves `Authorization: Bearer <access JWT>` to the caller. The token's session and user are
 * checked on every request, so sign-out, reuse detection and deactivation take effect at once.
 */
export function createAuthenticator(db: Db, tokens: AccessTokens): Authenticate {
  return async (authorization) => {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    if (!match) {
      throw unauthenticated('Sign in and send the access token as Authorization: Bearer <token>.');
    }
    const claims = await tokens.verify(match[1] as string);
    const caller = await findCaller(db, claims.organizationId, claims.userId, claims.sessionId);
    if (!caller || caller.session_revoked) {
      throw unauthenticated('The session has ended. Sign in again.', 'invalid_token');
    }
    if (caller.status !== 'active') {
      throw Problem.of(
        'account_deactivated',
        'This account is deactivated. Ask an administrator of your organization.',
      );
    }
    return {
      kind: 'user',
      userId: claims.userId,
      organizationId: claims.organizationId,
      sessionId: claims.sessionId,
      isAdmin: caller.is_admin,
      roleIds: caller.role_ids,
      locale: caller.locale,
      // Administrators manage the matrix and have every module themselves.
      modules: caller.is_admin ? [...GATED_MODULES] : caller.modules,
    };
  };
}
