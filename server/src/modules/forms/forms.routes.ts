import { formsApi } from '@shared/api/forms';
import { defineRoute } from '../../platform/http/routes';
import * as forms from './forms.service';

export function formsRoutes(deps: forms.FormsDeps) {
  return [
    defineRoute({
      ...formsApi.listForms,
      bots: 'read',
      handler: async ({ auth }) => ({ status: 200, body: await forms.listForms(deps, auth) }),
    }),
    // Before /api/forms/:formId, which would otherwise take "deleted" for an id.
    defineRoute({
      ...formsApi.listDeletedForms,
      access: 'admin',
      bots: 'read',
      handler: async ({ auth }) => ({ status: 200, body: await forms.listDeletedForms(deps, auth) }),
    }),
    defineRoute({
      ...formsApi.restoreForm,
      access: 'admin',
      bots: 'write',
      handler: async ({ auth, params }) => ({ status: 200, body: await forms.restoreForm(deps, auth, params.formId) }),
    }),
    defineRoute({
      ...formsApi.createForm,
      access: 'admin',
      bots: 'write',
      handler: async ({ auth, body }) => ({
        status: 201,
        body: await forms.createForm(deps, auth, body),
      }),
    }),
    defineRoute({
      ...formsApi.getForm,
      bots: 'read',
      handler: async ({ auth, params }) => ({ status: 200, body: await forms.getForm(deps, auth, params.formId) }),
    }),
    defineRoute({
      ...formsApi.updateForm,
      access: 'admin',
      bots: 'write',
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await forms.updateForm(deps, auth, params.formId, body),
      }),
    }),
    defineRoute({
      ...formsApi.deleteForm,
      access: 'admin',
      bots: 'write',
      handler: async ({ auth, params }) => {
        await forms.deleteForm(deps, auth, params.formId);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...formsApi.getWorkflow,
      bots: 'read',
      handler: async ({ auth, params }) => ({ status: 200, body: await forms.getWorkflow(deps, auth, params.formId) }),
    }),
    defineRoute({
      ...formsApi.setWorkflow,
      access: 'admin',
      bots: 'write',
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await forms.setWorkflow(deps, auth, params.formId, body),
      }),
    }),
  ];
}
