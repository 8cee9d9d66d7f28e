import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Db } from '../db/db';
import { Problem } from '../http/problem';
import { randomToken } from './secrets';

const ISSUER = 'orbita';
const AUDIENCE = 'orbita-api';

export interface AccessClaims {
  userId: string;
  organizationId: string;
  sessionId: string;
}

/** Signs and verifies access JWTs (HS256). */
export interface AccessTokens {
  readonly lifetimeSeconds: number;
  sign(claims: AccessClaims): Promise<string>;
  /** The claims of a valid token; a 401 problem for an expired or invalid one. */
  verify(token: string): Promise<AccessClaims>;
}

/**
 * The signing key: JWT_SECRET when set, else one generated on first start and kept in the
 * database, so every instance and every restart signs with the same key.
 */
export async function loadSigningKey(db: Db, configured: string | undefined): Promise<Uint8Array> {
  if (configured) return new TextEncoder().encode(configured);
  await db.query(
    "INSERT INTO installation_secrets (name, value) VALUES ('jwt_signing_key', $1) ON CONFLICT (name) DO NOTHING",
    [randomToken()],
  );
  const { rows } = await db.query<{ value: string }>(
    "SELECT value FROM installation_secrets WHERE name = 'jwt_signing_key'",
  );
  return new TextEncoder().encode(rows[0]?.value as string);
}

export const unauthenticated = (detail: string, code = 'unauthenticated') =>
  new Problem(401, code, detail, { headers: { 'WWW-Authenticate': 'Bearer' } });

/** `signingKey` is read once, on first use. */
export function createAccessTokens(signingKey: () => Promise<Uint8Array>, lifetimeSeconds: number): AccessTokens {
  let loaded: Promise<Uint8Array> | undefined;
  const key = () => {
    loaded ??= signingKey().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  };
  return {
    lifetimeSeconds,
    async sign(claims) {
      return new SignJWT({ org: claims.organizationId, sid: claims.sessionId })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(claims.userId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(`${lifetimeSeconds}s`)
        .sign(await key());
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, await key(), {
          issuer: ISSUER,
          audience: AUDIENCE,
          algorithms: ['HS256'],
        });
        if (typeof payload.sub !== 'string' || typeof payload.org !== 'string' || typeof payload.sid !== 'string') {
          throw unauthenticated('The access token lacks its claims. Sign in again.', 'invalid_token');
        }
        return { userId: payload.sub, organizationId: payload.org, sessionId: payload.sid };
      } catch (error) {
        if (error instanceof Problem) throw error;
        if (error instanceof joseErrors.JWTExpired) {
          throw unauthenticated(
            'The access token has expired. Refresh it with POST /api/auth/refresh.',
            'token_expired',
          );
        }
        throw unauthenticated('The access token is not valid. Sign in again.', 'invalid_token');
      }
    },
  };
}
