import { identityApi, type Me } from '@shared/api/identity';
import { tasksApi } from '@shared/api/tasks';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { clientAgainstTestApp } from '../../test/helpers/client-under-node';
import { createOrg, signIn } from '../../test/helpers/factories';
import { ApiError, call, storedTokens, storeTokens } from './api';

const client = clientAgainstTestApp();
const app = () => client.app();

async function signedInAdmin() {
  const admin = await createOrg(app());
  storeTokens(await signIn(app(), admin.email, admin.password));
  return admin;
}

describe('calling an operation of the contract', () => {
  it('sends its method, path parameters, query and body, and answers its success response', async () => {
    const admin = await signedInAdmin();
    const me = await call(identityApi.getCurrentUser);
    expect(me.user.email).toBe(admin.email);

    const renamed = await call(identityApi.updateUser, { params: { userId: me.user.id }, body: { name: 'Renamed' } });
    expect(renamed.name).toBe('Renamed');
    const page = await call(identityApi.listUsers, { query: { limit: 1 } });
    expect(page.items.map((user) => user.name)).toEqual(['Renamed']);
  });

  it('answers nothing for an operation without a body, and throws the problem of a refusal', async () => {
    await signedInAdmin();
    const missing = '00000000-0000-4000-8000-000000000000';
    await expect(call(tasksApi.recordTaskView, { params: { taskId: missing } })).rejects.toBeInstanceOf(ApiError);
    await expect(call(tasksApi.getTask, { params: { taskId: missing } })).rejects.toMatchObject({
      problem: { status: 404 },
    });
  });

  it('refreshes an expired session once and calls again', async () => {
    await signedInAdmin();
    const tokens = storedTokens();
    storeTokens(tokens && { ...tokens, accessToken: 'expired' });
    expect((await call(identityApi.getCurrentUser)).user.isAdmin).toBe(true);
    expect(storedTokens()?.accessToken).not.toBe('expired');
  });

  it('is checked by the compiler: a wrong body, a wrong or missing parameter do not compile', () => {
    // Never run: the compiler checks these calls' types, and refuses each marked one.
    const typed = () => {
      expectTypeOf(call(identityApi.getCurrentUser)).resolves.toEqualTypeOf<Me>();
      expectTypeOf(call(tasksApi.deleteTask, { params: { taskId: 't' } })).resolves.toEqualTypeOf<undefined>();
    };
    const refused = () => [
      // @ts-expect-error `nom` is not a field of the body.
      call(identityApi.updateUser, { params: { userId: 'u' }, body: { nom: 'Renamed' } }),
      // @ts-expect-error a user's status is one of the contract's words.
      call(identityApi.updateUser, { params: { userId: 'u' }, body: { status: 'gone' } }),
      // @ts-expect-error the path parameter is `userId`.
      call(identityApi.getUser, { params: { id: 'u' } }),
      // @ts-expect-error reading a user needs their id.
      call(identityApi.getUser),
      // @ts-expect-error `limit` is a number.
      call(identityApi.listUsers, { query: { limit: 'all' } }),
    ];
    expect([typed, refused].map((check) => typeof check)).toEqual(['function', 'function']);
  });
});
