import {
  CreateFormRequest,
  DeletedFormList,
  Form,
  FormList,
  UpdateFormRequest,
  Workflow,
  WorkflowRequest,
} from '@shared/api/forms';
import { z } from 'zod';
import { defineRoute } from '../../platform/http/routes';
import * as forms from './forms.service';

const FormParams = z.object({ formId: z.uuid() });

export function formsRoutes(deps: forms.FormsDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/forms',
      operationId: 'listForms',
      summary: 'Forms the caller may use, with fields and workflow',
      tags: ['forms'],
      responses: { 200: { description: 'Forms', schema: FormList } },
      handler: async ({ auth }) => ({ status: 200, body: await forms.listForms(deps, auth) }),
    }),
    // Before /api/forms/:formId, which would otherwise take "deleted" for an id.
    defineRoute({
      method: 'get',
      path: '/api/forms/deleted',
      access: 'admin',
      operationId: 'listDeletedForms',
      summary: 'The organization’s deleted forms, most recently deleted first (restore brings one back)',
      tags: ['forms'],
      responses: { 200: { description: 'Deleted forms', schema: DeletedFormList } },
      handler: async ({ auth }) => ({ status: 200, body: await forms.listDeletedForms(deps, auth) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/forms/:formId/restore',
      access: 'admin',
      operationId: 'restoreForm',
      summary: 'Bring a deleted form back; a form not deleted is returned as it is',
      tags: ['forms'],
      request: { params: FormParams },
      responses: { 200: { description: 'The form', schema: Form } },
      handler: async ({ auth, params }) => ({ status: 200, body: await forms.restoreForm(deps, auth, params.formId) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/forms',
      access: 'admin',
      operationId: 'createForm',
      summary: 'Create a form (without statuses: New → In progress → Done)',
      tags: ['forms'],
      request: { body: CreateFormRequest },
      responses: { 201: { description: 'The whole form with its ids', schema: Form } },
      handler: async ({ auth, body }) => ({
        status: 201,
        body: await forms.createForm(deps, auth, body),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/forms/:formId',
      operationId: 'getForm',
      summary: 'One form',
      tags: ['forms'],
      request: { params: FormParams },
      responses: { 200: { description: 'Form', schema: Form } },
      handler: async ({ auth, params }) => ({ status: 200, body: await forms.getForm(deps, auth, params.formId) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/api/forms/:formId',
      access: 'admin',
      operationId: 'updateForm',
      summary: 'Edit a form: name, fields (the whole list), QR button, visibility',
      description: 'A field that tasks hold values for keeps its type. Removed fields keep their values in tasks.',
      tags: ['forms'],
      request: { params: FormParams, body: UpdateFormRequest },
      responses: { 200: { description: 'Form', schema: Form } },
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await forms.updateForm(deps, auth, params.formId, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/forms/:formId',
      access: 'admin',
      operationId: 'deleteForm',
      summary: 'Delete a form (its tasks stay readable)',
      tags: ['forms'],
      request: { params: FormParams },
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ auth, params }) => {
        await forms.deleteForm(deps, auth, params.formId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/forms/:formId/statuses',
      operationId: 'getWorkflow',
      summary: 'Statuses of a form and the moves allowed between them',
      tags: ['forms'],
      request: { params: FormParams },
      responses: { 200: { description: 'Workflow', schema: Workflow } },
      handler: async ({ auth, params }) => ({ status: 200, body: await forms.getWorkflow(deps, auth, params.formId) }),
    }),
    defineRoute({
      method: 'put',
      path: '/api/forms/:formId/statuses',
      access: 'admin',
      operationId: 'setWorkflow',
      summary: 'Replace the statuses and allowed moves of a form',
      description: 'Exactly one status is initial. A status that tasks are in cannot be removed (409).',
      tags: ['forms'],
      request: { params: FormParams, body: WorkflowRequest },
      responses: { 200: { description: 'Workflow', schema: Workflow } },
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await forms.setWorkflow(deps, auth, params.formId, body),
      }),
    }),
  ];
}
