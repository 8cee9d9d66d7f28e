import type { GatedModule } from '@shared/api/access';
import type { Request } from 'express';
import type { BotActor } from './actor';

/** Who is calling: resolved from the bearer token on every request of a protected route. */
export interface AuthContext {
  kind: 'user';
  userId: string;
  organizationId: string;
  sessionId: string;
  isAdmin: boolean;
  /** The user's language (`ru` or `en`), for texts the server writes on their behalf. */
  locale: 'ru' | 'en';
  /** Roles the user is a member of. */
  roleIds: readonly string[];
  /** Gated modules the user has, directly, through a role, or as an administrator. */
  modules: readonly GatedModule[];
}

/** A caller a module authenticated with its own token (a GPS ingestion token): acts for one organization. */
export interface TokenCaller {
  kind: 'token';
  organizationId: string;
  /** The token's id, e.g. to note its last use. */
  tokenId: string;
}

/**
 * How a module authenticates its own tokens on its routes (devices and forwarders that are not
 * people or bots): reads the credential from the request and resolves it, or throws a 401 problem.
 */
export interface TokenAuthenticator {
  /** Words for the API description: what the token is and how it is sent. */
  description: string;
  authenticate(req: Request): Promise<TokenCaller>;
}

/**
 * Who may call a route: anyone (`public`), any signed-in member (`user`), administrators of the
 * organization (`admin`), members granted a gated module, or holders of a module's own token.
 */
export type Access = 'public' | 'user' | 'admin' | { module: GatedModule } | { token: TokenAuthenticator };

/** Resolves the caller of a request, or throws a 401 problem. */
export type Authenticate = (authorization: string | undefined) => Promise<AuthContext>;

/** Resolves a raw API key to the bot it acts as, or throws a 401 problem (malformed, unknown, revoked). */
export type AuthenticateKey = (key: string) => Promise<BotActor>;
