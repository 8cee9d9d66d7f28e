import { delegationsApi } from '@shared/api/delegations';
import type { UnitDeps } from '../../platform/db/unit-of-work';
import { defineRoute } from '../../platform/http/routes';
import * as delegations from './delegation.service';

export function delegationRoutes(deps: UnitDeps) {
  return [
    defineRoute({
      ...delegationsApi.listDelegations,
      handler: async ({ auth, query }) => ({
        status: 200,
        body: await delegations.listDelegations(deps, auth, query.userId),
      }),
    }),
    defineRoute({
      ...delegationsApi.createDelegation,
      handler: async ({ auth, body }) => ({ status: 201, body: await delegations.createDelegation(deps, auth, body) }),
    }),
    defineRoute({
      ...delegationsApi.getDelegation,
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await delegations.getDelegation(deps, auth, params.delegationId),
      }),
    }),
    defineRoute({
      ...delegationsApi.updateDelegation,
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await delegations.updateDelegation(deps, auth, params.delegationId, body),
      }),
    }),
    defineRoute({
      ...delegationsApi.deleteDelegation,
      handler: async ({ auth, params }) => {
        await delegations.deleteDelegation(deps, auth, params.delegationId);
        return { status: 204 };
      },
    }),
  ];
}
