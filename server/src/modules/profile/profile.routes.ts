import {
  CreateProfileFieldRequest,
  FieldHistoryQuery,
  ProfileField,
  ProfileFieldList,
  SetProfileValuesRequest,
  UpdateProfileFieldRequest,
  UserFieldHistory,
  UserProfileValues,
} from '@shared/api/profile';
import { z } from 'zod';
import { defineRoute } from '../../platform/http/routes';
import * as profile from './profile.service';

const FieldParams = z.object({ fieldId: z.uuid() });
const UserParams = z.object({ userId: z.uuid() });
const UserFieldParams = z.object({ userId: z.uuid(), fieldId: z.uuid() });

/** Profile field definitions, users' values and the history of `history-number` fields. */
export function profileRoutes(deps: profile.ProfileDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/profile-fields',
      operationId: 'listProfileFields',
      summary: 'Profile fields of the organization, in order',
      tags: ['profile'],
      responses: { 200: { description: 'Fields', schema: ProfileFieldList } },
      handler: async ({ auth }) => ({ status: 200, body: await profile.listFields(deps, auth) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/profile-fields',
      access: 'admin',
      operationId: 'createProfileField',
      summary: 'Add a profile field (after the last one)',
      tags: ['profile'],
      request: { body: CreateProfileFieldRequest },
      responses: { 201: { description: 'Field', schema: ProfileField } },
      handler: async ({ auth, body }) => ({ status: 201, body: await profile.createField(deps, auth, body) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/api/profile-fields/:fieldId',
      access: 'admin',
      operationId: 'updateProfileField',
      summary: 'Rename a profile field or change its choices (its type only while it has no values)',
      tags: ['profile'],
      request: { params: FieldParams, body: UpdateProfileFieldRequest },
      responses: { 200: { description: 'Field', schema: ProfileField } },
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await profile.updateField(deps, auth, params.fieldId, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/profile-fields/:fieldId',
      access: 'admin',
      operationId: 'deleteProfileField',
      summary: 'Delete a profile field (its values and history are kept, hidden)',
      tags: ['profile'],
      request: { params: FieldParams },
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ auth, params }) => {
        await profile.deleteField(deps, auth, params.fieldId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/users/:userId/fields',
      operationId: 'getUserFieldValues',
      summary: 'A user’s profile values (every member may read them)',
      tags: ['profile'],
      request: { params: UserParams },
      responses: { 200: { description: 'Values', schema: UserProfileValues } },
      handler: async ({ auth, params }) => ({ status: 200, body: await profile.getValues(deps, auth, params.userId) }),
    }),
    defineRoute({
      method: 'put',
      path: '/api/users/:userId/fields',
      operationId: 'setUserFieldValues',
      summary: 'Write profile values (own; administrators: anyone’s)',
      description:
        'Only the listed fields change. Every write of a history-number value appends to its history, ' +
        'the same value again too; null clears a value and records nothing.',
      tags: ['profile'],
      request: { params: UserParams, body: SetProfileValuesRequest },
      responses: { 200: { description: 'All values of the user after the change', schema: UserProfileValues } },
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await profile.setValues(deps, auth, params.userId, body),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/users/:userId/field-history/:fieldId',
      operationId: 'getUserFieldHistory',
      summary: 'History of a history-number field: AVG per week, month, quarter or year (Moscow time)',
      description:
        'Readable by the user themself and administrators. `from` (inclusive) and `to` (exclusive) limit the ' +
        'values averaged; a bucket the range cuts averages only the values inside it.',
      tags: ['profile'],
      request: { params: UserFieldParams, query: FieldHistoryQuery },
      responses: { 200: { description: 'Buckets, oldest first', schema: UserFieldHistory } },
      handler: async ({ auth, params, query }) => ({
        status: 200,
        body: await profile.fieldHistory(deps, auth, params.userId, params.fieldId, query),
      }),
    }),
  ];
}
