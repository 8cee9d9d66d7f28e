import type { GatedModule } from '@shared/api/access';
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

/**
 * Who may call a route: anyone (`public`), any signed-in member (`user`), administrators of the
 * organization (`admin`), or members granted a gated module.
 */
export type Access = 'public' | 'user' | 'admin' | { module: GatedModule };

/** Resolves the caller of a request, or throws a 401 problem. */
export type Authenticate = (authorization: string | undefined) => Promise<AuthContext>;

/** Resolves a raw API key to the bot it acts as, or throws a 401 problem (malformed, unknown, revoked). */
export type AuthenticateKey = (key: string) => Promise<BotActor>;
