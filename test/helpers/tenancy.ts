import { expect } from 'vitest';
import { routeAccess } from '../../server/src/platform/http/routes';
import type { ApiClient } from './api';
import type { TestApp } from './app';

/**
 * Calls every protected route that takes ids in its path, with the ids of another organization's
 * records, as `intruder` (an administrator of their own organization), and expects 404 from each.
 *
 * `ids` maps path parameter names (`userId`, `roleId`, ...) to the other organization's records;
 * `bodies` gives a valid body per operationId for routes that take one (validation comes before
 * lookup, so an invalid body would answer 400 and prove nothing). A route with a parameter or a
 * body the test does not know fails the assertion: every new route must be added.
 */
export async function expectCrossTenantNotFound(
  t: TestApp,
  intruder: ApiClient,
  ids: Record<string, string>,
  bodies: Record<string, unknown>,
): Promise<string[]> {
  const checked: string[] = [];
  for (const route of t.app.routes) {
    const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1] as string);
    if (params.length === 0 || routeAccess(route) === 'public') continue;
    let path: string = route.path;
    for (const param of params) {
      expect(ids, `no id of another organization for :${param} of ${route.operationId}`).toHaveProperty(param);
      path = path.replace(`:${param}`, ids[param] as string);
    }
    if (route.request?.body) {
      expect(bodies, `no valid body for ${route.operationId}`).toHaveProperty(route.operationId);
    }
    const response = await intruder.request(route.method.toUpperCase(), path, bodies[route.operationId]);
    expect(
      response.status,
      `${route.method.toUpperCase()} ${route.path} (${route.operationId}): ${JSON.stringify(response.body)}`,
    ).toBe(404);
    checked.push(route.operationId);
  }
  return checked;
}
