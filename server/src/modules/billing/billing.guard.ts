import type { Queryable } from '../../platform/db/db';
import { Problem } from '../../platform/http/problem';
import type { RouteGuard } from '../../platform/http/routes';
import type { SyncPushGuard } from '../../platform/sync/sync-server';
import * as organization from '../identity/organization.service';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Routes a blocked organization still writes through: signing in and out, and billing itself (to pay). */
function exempt(path: string): boolean {
  return path.startsWith('/api/auth/') || path.startsWith('/api/billing/');
}

/** Refuses a write of a blocked organization (402 `billing_blocked`): routes, replica pushes, MCP tools. */
export async function refuseWhileBlocked(db: Queryable, organizationId: string): Promise<void> {
  if (await organization.isBillingBlocked(db, organizationId)) {
    throw Problem.of(
      'billing_blocked',
      'The organization is blocked until its balance is topped up; reading still works. Someone with Finance access can top it up on the Finance page.',
    );
  }
}

/** A replica's changes wait on the device while the organization is blocked (sent once it is not). */
export function billingPushGuard(db: Queryable): SyncPushGuard {
  return (auth) => refuseWhileBlocked(db, auth.organizationId);
}

/**
 * While an organization is blocked for non-payment, its members' and bots' writes answer 402
 * `billing_blocked`; reading stays possible.
 */
export function billingBlockGuard(db: Queryable): RouteGuard {
  return async ({ route, auth, req }) => {
    if (READS.has(req.method) || exempt(route.path)) return;
    await refuseWhileBlocked(db, auth.organizationId);
  };
}
