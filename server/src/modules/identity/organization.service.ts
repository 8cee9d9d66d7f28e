import type { Organization, UpdateOrganizationRequest } from '@shared/api/identity';
import type { z } from 'zod';
import type { AuthContext } from '../../platform/auth/auth-context';
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

/** Renames the organization or switches its modules (administrators: the route admits only them). */
export async function updateOrganization(
  deps: UnitDeps,
  auth: AuthContext,
  patch: z.infer<typeof UpdateOrganizationRequest>,
): Promise<Organization> {
  const row = await inUnit(deps, async ({ tx }) => {
    await repo.updateOrganization(tx, auth.organizationId, patch);
    return repo.findOrganization(tx, auth.organizationId);
  });
  if (!row) throw organizationGone();
  return presentOrganization(row);
}
