import type { Organization, UpdateOrganizationRequest } from '@shared/api/identity';
import type { z } from 'zod';
import type { AuthContext } from '../../platform/auth/auth-context';
import type { Queryable } from '../../platform/db/db';
import { inUnit, type UnitDeps } from '../../platform/db/unit-of-work';
import { Problem } from '../../platform/http/problem';
import { presentOrganization } from './identity.presenter';
import * as repo from './identity.repo';

const organizationGone = () => Problem.of('not_found', 'The organization no longer exists.');

/** The caller's organization. */
export async function getOrganization(
  deps: Pick<UnitDeps, 'db'>,
  auth: Pick<AuthContext, 'organizationId'>,
): Promise<Organization> {
  const row = await repo.findOrganization(deps.db, auth.organizationId);
  if (!row) throw organizationGone();
  return presentOrganization(row);
}

/**
 * Renames the organization, switches its modules or sets its skin (administrators: the route admits
 * only them). The skin must be one of the organization's own (the database's key says so).
 */
export async function updateOrganization(
  deps: UnitDeps,
  auth: AuthContext,
  patch: z.infer<typeof UpdateOrganizationRequest>,
): Promise<Organization> {
  const row = await inUnit(deps, async ({ tx }) => {
    await repo.updateOrganization(tx, auth.organizationId, patch).catch((error: unknown) => {
      if ((error as { code?: string }).code !== '23503') throw error;
      throw Problem.of('not_found', `No skin ${patch.activeSkinId} in your organization: choose one of its skins.`, {
        errors: [{ location: 'body', pointer: '#/activeSkinId', detail: 'No such skin', code: 'not_found' }],
      });
    });
    return repo.findOrganization(tx, auth.organizationId);
  });
  if (!row) throw organizationGone();
  return presentOrganization(row);
}

/** Whether the organization is blocked for non-payment (unknown organizations are not). */
export async function isBillingBlocked(db: Queryable, organizationId: string): Promise<boolean> {
  return (await repo.findOrganization(db, organizationId))?.billing_blocked ?? false;
}

/**
 * Sets or clears the organization's billing block, inside the caller's transaction (the billing
 * module, when a balance falls below its threshold, a payment succeeds or the operator says so).
 * True when it changed.
 */
export function setBillingBlocked(tx: Queryable, organizationId: string, blocked: boolean): Promise<boolean> {
  return repo.setBillingBlocked(tx, organizationId, blocked);
}

/** The organizations an operator names by id or exact name. */
export function findOrganizationsByReference(
  db: Queryable,
  reference: string,
): Promise<{ id: string; name: string }[]> {
  return repo.findOrganizationsByReference(db, reference);
}
