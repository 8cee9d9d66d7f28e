import { automationsApi } from '@shared/api/automations';
import { defineRoute } from '../../platform/http/routes';
import * as automations from './automations.service';

export function automationsRoutes(deps: automations.AutomationsDeps) {
  return [
    defineRoute({
      ...automationsApi.listAutomations,
      access: 'admin',
      bots: 'read',
      handler: async ({ auth }) => ({ status: 200, body: await automations.listAutomations(deps, auth) }),
    }),
    defineRoute({
      ...automationsApi.createAutomation,
      access: 'admin',
      bots: 'write',
      handler: async ({ auth, body }) => ({ status: 201, body: await automations.createAutomation(deps, auth, body) }),
    }),
    defineRoute({
      ...automationsApi.getAutomation,
      access: 'admin',
      bots: 'read',
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await automations.getAutomation(deps, auth, params.automationId),
      }),
    }),
    defineRoute({
      ...automationsApi.updateAutomation,
      access: 'admin',
      bots: 'write',
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await automations.updateAutomation(deps, auth, params.automationId, body),
      }),
    }),
    defineRoute({
      ...automationsApi.deleteAutomation,
      access: 'admin',
      bots: 'write',
      handler: async ({ auth, params }) => {
        await automations.deleteAutomation(deps, auth, params.automationId);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...automationsApi.listAutomationRuns,
      access: 'admin',
      bots: 'read',
      handler: async ({ auth, params, query }) => ({
        status: 200,
        body: await automations.listRuns(deps, auth, params.automationId, query),
      }),
    }),
    defineRoute({
      ...automationsApi.testAutomation,
      access: 'admin',
      bots: 'write',
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await automations.dryRun(deps, auth, params.automationId, body.taskId),
      }),
    }),
  ];
}
