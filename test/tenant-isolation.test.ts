import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { createMember, createOrg, type Member } from './helpers/factories';
import { expectCrossTenantNotFound } from './helpers/tenancy';

let t: TestApp;
let a: Member;
let aMember: Member;
let aRoleId: string;
let b: Member;

beforeAll(async () => {
  t = await startTestApp();
  a = await createOrg(t, 'Organization A');
  aMember = await createMember(t, a, { name: 'A member' });
  aRoleId = (await a.client.post('/api/roles', { name: 'A role', memberIds: [aMember.userId] })).body.id;
  b = await createOrg(t, 'Organization B');
});
afterAll(() => t.close());

describe('tenant isolation', () => {
  it('answers 404 to every route given another organization’s ids, and changes nothing there', async () => {
    const checked = await expectCrossTenantNotFound(
      t,
      b.client,
      { userId: aMember.userId, roleId: aRoleId },
      {
        updateUser: { name: 'Taken over', status: 'deactivated' },
        renameRole: { name: 'Taken over' },
        setRoleMembers: { userIds: [b.userId] },
      },
    );
    expect(checked).toEqual(
      expect.arrayContaining(['getUser', 'updateUser', 'getRole', 'deleteRole', 'setRoleMembers']),
    );

    const member = await a.client.get(`/api/users/${aMember.userId}`);
    expect(member.body).toMatchObject({ name: 'A member', status: 'active' });
    const role = await a.client.get(`/api/roles/${aRoleId}`);
    expect(role.body).toMatchObject({ name: 'A role', memberIds: [aMember.userId] });
  });

  it('never lists another organization’s records', async () => {
    const users = await b.client.get('/api/users?limit=200');
    expect(users.body.items.map((u: { id: string }) => u.id)).toEqual([b.userId]);
    expect((await b.client.get('/api/roles')).body.items).toEqual([]);
    const matrix = await b.client.get('/api/module-access');
    expect(matrix.body.users.map((u: { userId: string }) => u.userId)).toEqual([b.userId]);
    expect((await b.client.get('/api/organization')).body.name).toBe('Organization B');
  });

  it('refuses another organization’s ids inside bodies as unknown', async () => {
    const role = await b.client.post('/api/roles', { name: 'B role', memberIds: [aMember.userId] });
    expect(role.status).toBe(400);
    const invite = await b.client.post('/api/users', { email: 'new@example.org', name: 'New', roleIds: [aRoleId] });
    expect(invite.status).toBe(400);
    const grant = await b.client.put('/api/module-access', { users: [{ userId: aMember.userId, modules: ['gps'] }] });
    expect(grant.status).toBe(400);
    expect((await aMember.client.get('/api/auth/me')).body.modules).toEqual({ gps: false, finance: false });
  });
});
