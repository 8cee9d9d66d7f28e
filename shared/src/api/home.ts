import { endpoint } from './endpoint';
import { Onboarding } from './tasks';

/** The new organization's checklist on the home page. */
export const homeApi = {
  getOnboarding: endpoint({
    method: 'get',
    path: '/api/onboarding',
    operationId: 'getOnboarding',
    summary: 'The new-organization checklist: a form, colleagues, a task',
    description: 'Each step is done once the organization has it; `completed` when all are.',
    tags: ['home'],
    responses: { 200: { description: 'Checklist', schema: Onboarding } },
  }),
  dismissOnboarding: endpoint({
    method: 'post',
    path: '/api/onboarding/dismiss',
    operationId: 'dismissOnboarding',
    summary: 'Hide the checklist for the whole organization',
    tags: ['home'],
    responses: { 204: { description: 'Dismissed (also when it already was)' } },
  }),
};
