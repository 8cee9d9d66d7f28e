import { z } from 'zod';
import { endpoint } from './endpoint';

/** Field types of forms (SPEC §2.4). `table` selects directory rows; `document_template` is reserved. */
export const FieldType = z.enum(['text', 'number', 'date', 'checkbox', 'select', 'user', 'table', 'document_template']);
export type FieldType = z.infer<typeof FieldType>;

const Name = z.string().trim().min(1, 'Enter a name').max(200);

export const FormFieldInput = z
  .object({
    id: z.uuid().optional(),
    name: Name,
    type: FieldType,
    required: z.boolean().default(false),
    options: z.array(z.string().trim().min(1).max(200)).max(1000).nullable().optional().meta({
      description: 'Choices of a `select` field',
    }),
    allow_multiple: z.boolean().default(false),
    directoryId: z.uuid().nullable().optional().meta({ description: 'Directory of a `table` field' }),
    displayColumn: z.string().max(200).nullable().optional().meta({
      description: 'Column of a `table` field shown in selects; empty: the directory’s tree display column',
    }),
  })
  .meta({ id: 'FormFieldInput' });
export type FormFieldInput = z.infer<typeof FormFieldInput>;

export const StatusInput = z
  .object({
    id: z.uuid().optional(),
    name: Name,
    initial: z.boolean().default(false),
    final: z.boolean().default(false),
  })
  .meta({ id: 'StatusInput' });

/** A move the workflow allows; `from` and `to` name statuses by id or by name. */
export const TransitionInput = z
  .object({ from: z.string().min(1).max(200), to: z.string().min(1).max(200) })
  .meta({ id: 'TransitionInput' });

export const CreateFormRequest = z
  .object({
    id: z.uuid().optional(),
    name: Name,
    fields: z.array(FormFieldInput).max(500).default([]),
    statuses: z.array(StatusInput).min(1).max(100).optional(),
    transitions: z.array(TransitionInput).max(10_000).optional(),
    qr_generation_enabled: z.boolean().default(false),
    visibleRoleIds: z.array(z.uuid()).max(500).default([]).meta({
      description: 'Roles whose members see and create the form’s tasks; empty: every member',
    }),
  })
  .meta({ id: 'CreateFormRequest' });

export const UpdateFormRequest = z
  .object({
    name: Name.optional(),
    fields: z.array(FormFieldInput).max(500).optional().meta({
      description: 'The whole field list: listed fields are kept or added, others removed (values stay in tasks)',
    }),
    qr_generation_enabled: z.boolean().optional(),
    visibleRoleIds: z.array(z.uuid()).max(500).optional(),
    statuses: z.array(StatusInput).min(1).max(100).optional().meta({
      description: 'With `transitions`: replaces the workflow in the same transaction as the rest of the change',
    }),
    transitions: z.array(TransitionInput).max(10_000).optional(),
  })
  .refine((patch) => (patch.statuses === undefined) === (patch.transitions === undefined), {
    message: 'Send statuses and transitions together',
    path: ['transitions'],
  })
  .meta({ id: 'UpdateFormRequest' });

export const WorkflowRequest = z
  .object({ statuses: z.array(StatusInput).min(1).max(100), transitions: z.array(TransitionInput).max(10_000) })
  .meta({ id: 'WorkflowRequest' });

export const FormField = z
  .object({
    id: z.uuid(),
    name: z.string(),
    type: FieldType,
    required: z.boolean(),
    options: z.array(z.string()).nullable(),
    allow_multiple: z.boolean(),
    directoryId: z.uuid().nullable(),
    displayColumn: z.string().nullable(),
  })
  .meta({ id: 'FormField' });
export type FormField = z.infer<typeof FormField>;

export const Status = z
  .object({ id: z.uuid(), name: z.string(), initial: z.boolean(), final: z.boolean() })
  .meta({ id: 'Status' });
export type Status = z.infer<typeof Status>;

export const Transition = z.object({ from: z.uuid(), to: z.uuid() }).meta({ id: 'Transition' });

export const Workflow = z
  .object({ statuses: z.array(Status), transitions: z.array(Transition) })
  .meta({ id: 'Workflow' });
export type Workflow = z.infer<typeof Workflow>;

export const Form = z
  .object({
    id: z.uuid(),
    name: z.string(),
    fields: z.array(FormField),
    statuses: z.array(Status),
    transitions: z.array(Transition),
    qr_generation_enabled: z.boolean(),
    visibleRoleIds: z.array(z.uuid()),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Form' });
export type Form = z.infer<typeof Form>;

export const FormList = z.object({ items: z.array(Form) }).meta({ id: 'FormList' });

export const DeletedForm = z
  .object({
    id: z.uuid(),
    name: z.string(),
    deletedAt: z.iso.datetime(),
    /** Tasks of the form that are not deleted: they stay readable while the form is deleted. */
    taskCount: z.number().int().nonnegative(),
  })
  .meta({ id: 'DeletedForm' });
export type DeletedForm = z.infer<typeof DeletedForm>;

export const DeletedFormList = z
  .object({ items: z.array(DeletedForm) })
  .meta({ id: 'DeletedFormList', description: 'Deleted forms, most recently deleted first' });
export type DeletedFormList = z.infer<typeof DeletedFormList>;

const FormParams = z.object({ formId: z.uuid() });

/** The operations on forms and their workflows. */
export const formsApi = {
  listForms: endpoint({
    method: 'get',
    path: '/api/forms',
    operationId: 'listForms',
    summary: 'Forms the caller may use, with fields and workflow',
    tags: ['forms'],
    responses: { 200: { description: 'Forms', schema: FormList } },
  }),
  listDeletedForms: endpoint({
    method: 'get',
    path: '/api/forms/deleted',
    operationId: 'listDeletedForms',
    summary: 'The organization’s deleted forms, most recently deleted first (restore brings one back)',
    tags: ['forms'],
    responses: { 200: { description: 'Deleted forms', schema: DeletedFormList } },
  }),
  restoreForm: endpoint({
    method: 'post',
    path: '/api/forms/:formId/restore',
    operationId: 'restoreForm',
    summary: 'Bring a deleted form back; a form not deleted is returned as it is',
    tags: ['forms'],
    request: { params: FormParams },
    responses: { 200: { description: 'The form', schema: Form } },
  }),
  createForm: endpoint({
    method: 'post',
    path: '/api/forms',
    operationId: 'createForm',
    summary: 'Create a form (without statuses: New → In progress → Done)',
    tags: ['forms'],
    request: { body: CreateFormRequest },
    responses: { 201: { description: 'The whole form with its ids', schema: Form } },
  }),
  getForm: endpoint({
    method: 'get',
    path: '/api/forms/:formId',
    operationId: 'getForm',
    summary: 'One form',
    tags: ['forms'],
    request: { params: FormParams },
    responses: { 200: { description: 'Form', schema: Form } },
  }),
  updateForm: endpoint({
    method: 'patch',
    path: '/api/forms/:formId',
    operationId: 'updateForm',
    summary: 'Edit a form: name, fields (the whole list), QR button, visibility',
    description: 'A field that tasks hold values for keeps its type. Removed fields keep their values in tasks.',
    tags: ['forms'],
    request: { params: FormParams, body: UpdateFormRequest },
    responses: { 200: { description: 'Form', schema: Form } },
  }),
  deleteForm: endpoint({
    method: 'delete',
    path: '/api/forms/:formId',
    operationId: 'deleteForm',
    summary: 'Delete a form (its tasks stay readable)',
    tags: ['forms'],
    request: { params: FormParams },
    responses: { 204: { description: 'Deleted' } },
  }),
  getWorkflow: endpoint({
    method: 'get',
    path: '/api/forms/:formId/statuses',
    operationId: 'getWorkflow',
    summary: 'Statuses of a form and the moves allowed between them',
    tags: ['forms'],
    request: { params: FormParams },
    responses: { 200: { description: 'Workflow', schema: Workflow } },
  }),
  setWorkflow: endpoint({
    method: 'put',
    path: '/api/forms/:formId/statuses',
    operationId: 'setWorkflow',
    summary: 'Replace the statuses and allowed moves of a form',
    description: 'Exactly one status is initial. A status that tasks are in cannot be removed (409).',
    tags: ['forms'],
    request: { params: FormParams, body: WorkflowRequest },
    responses: { 200: { description: 'Workflow', schema: Workflow } },
  }),
};
