import { Onboarding } from '@shared/api/tasks';
import { defineRoute } from '../../platform/http/routes';
import * as onboarding from './onboarding.service';

export function onboardingRoutes(deps: onboarding.OnboardingDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/onboarding',
      operationId: 'getOnboarding',
      summary: 'The new-organization checklist: a form, colleagues, a task',
      description: 'Each step is done once the organization has it; `completed` when all are.',
      tags: ['home'],
      responses: { 200: { description: 'Checklist', schema: Onboarding } },
      handler: async ({ auth }) => ({ status: 200, body: await onboarding.getOnboarding(deps, auth) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/onboarding/dismiss',
      access: 'admin',
      operationId: 'dismissOnboarding',
      summary: 'Hide the checklist for the whole organization',
      tags: ['home'],
      responses: { 204: { description: 'Dismissed (also when it already was)' } },
      handler: async ({ auth }) => {
        await onboarding.dismissOnboarding(deps, auth);
        return { status: 204 };
      },
    }),
  ];
}
