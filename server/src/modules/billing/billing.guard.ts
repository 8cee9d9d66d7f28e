import type { Queryable } from '../../platform/db/db';
import { Problem } from '../../platform/http/problem';
import type { RouteGuard } from '../../platform/http/routes';
import * as organization from '../identity/organization.service';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Routes a blocked organization still writes through: signing in and out, and billing itself (to pay). */
function exempt(path: string): boolean {
  return path.startsWith('/api/auth/') || path.startsWith('/api/billing/');
}

/**
 * While an organization is blocked for non-payment, its members' and bots' writes answer 402
 * `billing_blocked`; reading stays possible.
 */
export function billingBlockGuard(db: Queryable): RouteGuard {
  return async ({ route, auth, req }) => {
    if (READS.has(req.method) || exempt(route.path)) return;
    if (await organization.isBillingBlocked(db, auth.organizationId)) {
      throw Problem.of(
        'billing_blocked',
        'The organization is blocked until its balance is topped up; reading still works. Someone with Finance access can top it up on the Finance page.',
      );
    }
  };
}
