import { z } from 'zod';
import { endpoint } from './endpoint';

export const DelegationRequest = z
  .object({
    userId: z.uuid().meta({ description: 'The user who will be away' }),
    substituteUserId: z.uuid().meta({ description: 'Who replaces them' }),
    formId: z.uuid().nullable().meta({ description: 'Tasks of this form only; null: the default substitute' }),
    from: z.iso.datetime({ offset: true }).meta({ description: 'Start (ISO instant; entered in Moscow time)' }),
    to: z.iso.datetime({ offset: true }).meta({ description: 'End (ISO instant)' }),
  })
  .meta({ id: 'DelegationRequest' });

export const UpdateDelegationRequest = DelegationRequest.partial().meta({ id: 'UpdateDelegationRequest' });

export const DelegationApplication = z
  .object({
    state: z.enum(['scheduled', 'running', 'done']).meta({
      description: 'scheduled: waits for the start; running: being added to tasks; done',
    }),
    applied: z.int().meta({ description: 'Open tasks of the absent user gone through so far' }),
    total: z.int().nullable().meta({ description: 'Open tasks to go through (null until the run starts)' }),
  })
  .meta({ id: 'DelegationApplication' });
export type DelegationApplication = z.infer<typeof DelegationApplication>;

export const Delegation = z
  .object({
    id: z.uuid(),
    userId: z.uuid(),
    substituteUserId: z.uuid(),
    formId: z.uuid().nullable(),
    from: z.iso.datetime(),
    to: z.iso.datetime(),
    createdAt: z.iso.datetime(),
    application: DelegationApplication.nullable().meta({
      description:
        'Adding the substitute to the absent user’s open tasks, in chunks (null: the period is over before it could)',
    }),
  })
  .meta({ id: 'Delegation' });
export type Delegation = z.infer<typeof Delegation>;

export const DelegationList = z.object({ items: z.array(Delegation) }).meta({ id: 'DelegationList' });

export const DelegationListQuery = z.object({
  userId: z.uuid().optional().meta({ description: 'Whose delegations (administrators); yours by default' }),
});

const DelegationParams = z.object({ delegationId: z.uuid() });

/** Substitutes of absent users: users manage their own, administrators anyone's. */
export const delegationsApi = {
  listDelegations: endpoint({
    method: 'get',
    path: '/api/delegations',
    operationId: 'listDelegations',
    summary: 'Delegations of a user (yours unless an administrator names another), by start',
    tags: ['delegations'],
    request: { query: DelegationListQuery },
    responses: { 200: { description: 'Delegations', schema: DelegationList } },
  }),
  createDelegation: endpoint({
    method: 'post',
    path: '/api/delegations',
    operationId: 'createDelegation',
    summary: 'Name a substitute for a period (formId null: the default substitute)',
    description: 'A period overlapping another delegation of the same user and form answers 409 `conflict`.',
    tags: ['delegations'],
    request: { body: DelegationRequest },
    responses: { 201: { description: 'The delegation', schema: Delegation } },
  }),
  getDelegation: endpoint({
    method: 'get',
    path: '/api/delegations/:delegationId',
    operationId: 'getDelegation',
    summary: 'One delegation',
    tags: ['delegations'],
    request: { params: DelegationParams },
    responses: { 200: { description: 'The delegation', schema: Delegation } },
  }),
  updateDelegation: endpoint({
    method: 'patch',
    path: '/api/delegations/:delegationId',
    operationId: 'updateDelegation',
    summary: 'Change a delegation (substitutes already added to tasks stay)',
    tags: ['delegations'],
    request: { params: DelegationParams, body: UpdateDelegationRequest },
    responses: { 200: { description: 'The delegation', schema: Delegation } },
  }),
  deleteDelegation: endpoint({
    method: 'delete',
    path: '/api/delegations/:delegationId',
    operationId: 'deleteDelegation',
    summary: 'Delete a delegation (substitutes already added to tasks stay)',
    tags: ['delegations'],
    request: { params: DelegationParams },
    responses: { 204: { description: 'Deleted' } },
  }),
};
