import { createAccessTokens, loadSigningKey } from '../../platform/auth/access-tokens';
import type { ModuleFactory } from '../../platform/module';
import type { AuthDeps } from './auth.service';
import { createAuthenticator } from './authenticator';
import { identityJobs } from './identity.jobs';
import { authRoutes, organizationRoutes } from './identity.routes';
import { rolesSyncSource, usersSyncSource } from './identity.sync';

/**
 * Identity: organizations, users, roles, sessions with refresh rotation, password reset,
 * invitations and the GPS / Finance access matrix. Resolves the caller of every protected route.
 */
export const identityModule: ModuleFactory = (context) => {
  const { config, db } = context;
  const tokens = createAccessTokens(() => loadSigningKey(db, config.jwtSecret), config.accessTokenSeconds);
  const deps: AuthDeps = {
    db,
    tokens,
    mailer: context.mailer,
    events: context.events,
    logger: context.logger,
    publicUrl: config.publicUrl,
    refreshTokenSeconds: config.refreshTokenSeconds,
    refreshGraceSeconds: config.refreshGraceSeconds,
  };
  return {
    name: 'identity',
    routes: [...authRoutes(deps), ...organizationRoutes(deps)],
    authenticate: createAuthenticator(db, tokens),
    syncSources: [usersSyncSource, rolesSyncSource],
    jobs: identityJobs(deps),
  };
};
