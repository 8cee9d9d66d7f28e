import { GATED_MODULES } from '@shared/api/access';
import { type AccessTokens, unauthenticated } from '../../platform/auth/access-tokens';
import type { Authenticate } from '../../platform/auth/auth-context';
import type { Db } from '../../platform/db/db';
import { findCaller } from './identity.repo';
import { accountDeactivated } from './sessions.service';

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
    if (!caller) throw unauthenticated('The session has ended. Sign in again.', 'invalid_token');
    // Said before the session's end (deactivation ends every session): the holder of the token
    // learns why, and the app removes the account's data from the device.
    if (caller.status !== 'active') throw accountDeactivated();
    if (caller.session_revoked) throw unauthenticated('The session has ended. Sign in again.', 'invalid_token');
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
