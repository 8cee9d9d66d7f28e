import { profileApi } from '@shared/api/profile';
import { defineRoute } from '../../platform/http/routes';
import * as profile from './profile.service';

/** Profile field definitions, users' values and the history of `history-number` fields. */
export function profileRoutes(deps: profile.ProfileDeps) {
  return [
    defineRoute({
      ...profileApi.listProfileFields,
      handler: async ({ auth }) => ({ status: 200, body: await profile.listFields(deps, auth) }),
    }),
    defineRoute({
      ...profileApi.createProfileField,
      access: 'admin',
      handler: async ({ auth, body }) => ({ status: 201, body: await profile.createField(deps, auth, body) }),
    }),
    defineRoute({
      ...profileApi.updateProfileField,
      access: 'admin',
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await profile.updateField(deps, auth, params.fieldId, body),
      }),
    }),
    defineRoute({
      ...profileApi.deleteProfileField,
      access: 'admin',
      handler: async ({ auth, params }) => {
        await profile.deleteField(deps, auth, params.fieldId);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...profileApi.getUserFieldValues,
      handler: async ({ auth, params }) => ({ status: 200, body: await profile.getValues(deps, auth, params.userId) }),
    }),
    defineRoute({
      ...profileApi.setUserFieldValues,
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await profile.setValues(deps, auth, params.userId, body),
      }),
    }),
    defineRoute({
      ...profileApi.getUserFieldHistory,
      handler: async ({ auth, params, query }) => ({
        status: 200,
        body: await profile.fieldHistory(deps, auth, params.userId, params.fieldId, query),
      }),
    }),
  ];
}
