import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { apiClient } from '../../../../test/helpers/api';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createMember, createOrg, type Member, signIn, tokenFromOutbox } from '../../../../test/helpers/factories';
import { jobsDone } from '../../../../test/helpers/jobs';
import { defineRoute } from '../../platform/http/routes';
import { readOutbox } from '../../platform/mail/mailer';
import type { ModuleFactory } from '../../platform/module';

/** A route of a GPS-gated module, to show the reusable module guard. */
const gpsProbe: ModuleFactory = () => ({
  name: 'gps-probe',
  routes: [
    defineRoute({
      method: 'get',
      path: '/api/probe/gps',
      access: { module: 'gps' },
      operationId: 'probeGps',
      summary: 'A GPS-only route',
      tags: ['probe'],
      responses: { 200: { description: 'Reached', schema: z.object({ reached: z.literal(true) }) } },
      handler: () => ({ status: 200, body: { reached: true as const } }),
    }),
  ],
});

let t: TestApp;
let admin: Member;
beforeAll(async () => {
  t = await startTestApp({ extraModules: [gpsProbe] });
  admin = await createOrg(t);
});
afterAll(() => t.close());

describe('invitations', () => {
  it('invites a colleague who joins by setting a password from the e-mail', async () => {
    const invited = await admin.client.post('/api/users', { email: 'Olga@Example.org', name: 'Ольга', locale: 'en' });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ email: 'olga@example.org', status: 'invited', isAdmin: false, locale: 'en' });
    await jobsDone(t);
    const mail = (await readOutbox(t.dataDir)).find((m) => m.to === 'olga@example.org');
    expect(mail?.subject).toContain('invites you');
    expect(mail?.text).toContain('/reset-password?token=');
    // No password yet: sign-in fails like any wrong password.
    expect((await apiClient(t).post('/api/auth/login', { email: 'olga@example.org', password: 'x' })).status).toBe(401);
    const token = await tokenFromOutbox(t, 'olga@example.org');
    expect((await apiClient(t).post('/api/auth/reset-password', { token, password: 'olga password 1' })).status).toBe(
      204,
    );
    await signIn(t, 'olga@example.org', 'olga password 1');
    expect((await admin.client.get(`/api/users/${invited.body.id}`)).body.status).toBe('active');
  });

  it('resends an invitation; the earlier link stops working', async () => {
    const invited = await admin.client.post('/api/users', { email: 'late@example.org', name: 'Late' });
    const first = await tokenFromOutbox(t, 'late@example.org');
    expect((await admin.client.post(`/api/users/${invited.body.id}/invitation`)).status).toBe(202);
    const second = await tokenFromOutbox(t, 'late@example.org');
    expect(second).not.toBe(first);
    expect(
      (await apiClient(t).post('/api/auth/reset-password', { token: first, password: 'late password 1' })).status,
    ).toBe(400);
    expect(
      (await apiClient(t).post('/api/auth/reset-password', { token: second, password: 'late password 1' })).status,
    ).toBe(204);
    const joined = await admin.client.post(`/api/users/${invited.body.id}/invitation`);
    expect(joined.status).toBe(409);
  });

  it('refuses an address that already has an account', async () => {
    const response = await admin.client.post('/api/users', { email: admin.email, name: 'Twin' });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('email_taken');
  });
});

describe('users and roles', () => {
  it('lists users by name with cursor pagination', async () => {
    const org = await createOrg(t);
    for (const name of ['Борис', 'Анна', 'Вера']) await createMember(t, org, { name });
    const first = await org.client.get('/api/users?limit=2');
    expect(first.body.items.map((u: { name: string }) => u.name)).toEqual(['Admin', 'Анна']);
    const second = await org.client.get(`/api/users?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((u: { name: string }) => u.name)).toEqual(['Борис', 'Вера']);
    expect(second.body.nextCursor).toBeNull();
    expect((await org.client.get('/api/users?cursor=garbage')).status).toBe(400);
  });

  it('lets every member read users and roles but only administrators change them', async () => {
    const member = await createMember(t, admin, { name: 'Reader' });
    expect((await member.client.get('/api/users')).status).toBe(200);
    expect((await member.client.get('/api/roles')).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/api/users', { email: 'x@example.org', name: 'X' }],
      ['POST', '/api/roles', { name: 'Sneaky' }],
      ['PATCH', `/api/users/${admin.userId}`, { name: 'Renamed' }],
      ['PATCH', `/api/users/${member.userId}`, { isAdmin: true }],
      ['GET', '/api/module-access', undefined],
      ['PATCH', '/api/organization', { name: 'Mine now' }],
    ] as const) {
      const response = await member.client.request(method, path, body);
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.code).toBe('forbidden');
    }
    const own = await member.client.patch(`/api/users/${member.userId}`, { name: 'Reader Two', locale: 'en' });
    expect(own.body).toMatchObject({ name: 'Reader Two', locale: 'en' });
  });

  it('creates, renames, fills and deletes roles', async () => {
    const member = await createMember(t, admin);
    const created = await admin.client.post('/api/roles', { name: 'Диспетчеры', memberIds: [member.userId] });
    expect(created.status).toBe(201);
    expect(created.body.memberIds).toEqual([member.userId]);
    expect((await admin.client.post('/api/roles', { name: 'диспетчеры' })).body.code).toBe('name_taken');
    const renamed = await admin.client.patch(`/api/roles/${created.body.id}`, { name: 'Dispatchers' });
    expect(renamed.body.name).toBe('Dispatchers');
    const unknown = await admin.client.put(`/api/roles/${created.body.id}/members`, {
      userIds: [member.userId, '00000000-0000-4000-8000-000000000000'],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ pointer: '#/userIds/1', code: 'unknown_user' });
    const emptied = await admin.client.put(`/api/roles/${created.body.id}/members`, { userIds: [admin.userId] });
    expect(emptied.body.memberIds).toEqual([admin.userId]);
    expect((await member.client.get('/api/auth/me')).body.roles).toEqual([]);
    expect((await admin.client.delete(`/api/roles/${created.body.id}`)).status).toBe(204);
    expect((await admin.client.get(`/api/roles/${created.body.id}`)).status).toBe(404);
  });

  it('answers a role deleted at the moment its members are set with 404 or a set done before it, never a 500', async () => {
    // A few rounds: requests that truly overlap are up to the scheduler.
    for (let round = 0; round < 6; round++) {
      const role = (await admin.client.post('/api/roles', { name: `Shift ${round}` })).body as { id: string };
      const [deleted, members] = await Promise.all([
        admin.client.delete(`/api/roles/${role.id}`),
        admin.client.put(`/api/roles/${role.id}/members`, { userIds: [admin.userId] }),
      ]);
      expect(deleted.status).toBe(204);
      expect([200, 404]).toContain(members.status);
      expect((await admin.client.get(`/api/roles/${role.id}`)).status).toBe(404);
    }
  });

  it('brings back a user deactivated before joining as invited, who then joins from a new invitation', async () => {
    const invited = await admin.client.post('/api/users', { email: 'paused@example.org', name: 'Paused' });
    await admin.client.patch(`/api/users/${invited.body.id}`, { status: 'deactivated' });
    const back = await admin.client.patch(`/api/users/${invited.body.id}`, { status: 'active' });
    expect(back.status).toBe(200);
    expect(back.body.status).toBe('invited');
    expect((await admin.client.post(`/api/users/${invited.body.id}/invitation`)).status).toBe(202);
    const token = await tokenFromOutbox(t, 'paused@example.org');
    expect((await apiClient(t).post('/api/auth/reset-password', { token, password: 'paused password 1' })).status).toBe(
      204,
    );
    await signIn(t, 'paused@example.org', 'paused password 1');
    expect((await admin.client.get(`/api/users/${invited.body.id}`)).body.status).toBe('active');
  });

  it('deactivation ends the user’s sessions at once, saying why, and blocks sign-in', async () => {
    const member = await createMember(t, admin);
    // A token of an earlier session, signed out since, is told too.
    const earlier = await signIn(t, member.email, member.password);
    await apiClient(t).post('/api/auth/logout', { refreshToken: earlier.refreshToken });
    expect((await admin.client.patch(`/api/users/${member.userId}`, { status: 'deactivated' })).body.status).toBe(
      'deactivated',
    );
    // Whoever holds the session's tokens learns why it ended (the app removes the account's data).
    const me = await member.client.get('/api/auth/me');
    expect([me.status, me.body.code]).toEqual([403, 'account_deactivated']);
    for (const refreshToken of [member.refreshToken, earlier.refreshToken]) {
      const refresh = await apiClient(t).post('/api/auth/refresh', { refreshToken });
      expect([refresh.status, refresh.body.code]).toEqual([403, 'account_deactivated']);
    }
    const unknown = await apiClient(t).post('/api/auth/refresh', { refreshToken: 'never issued' });
    expect(unknown.status).toBe(401);
    const login = await apiClient(t).post('/api/auth/login', { email: member.email, password: member.password });
    expect(login.status).toBe(403);
    expect(login.body.code).toBe('account_deactivated');
    await admin.client.patch(`/api/users/${member.userId}`, { status: 'active' });
    // Active again, the ended sessions stay ended: signing in starts a new one.
    const after = await member.client.get('/api/auth/me');
    expect([after.status, after.body.code]).toEqual([401, 'invalid_token']);
    const refresh = await apiClient(t).post('/api/auth/refresh', { refreshToken: member.refreshToken });
    expect([refresh.status, refresh.body.code]).toEqual([401, 'invalid_refresh_token']);
    await signIn(t, member.email, member.password);
  });

  it('keeps an active administrator in every organization', async () => {
    const org = await createOrg(t);
    const demote = await org.client.patch(`/api/users/${org.userId}`, { isAdmin: false });
    expect(demote.status).toBe(409);
    expect(demote.body.code).toBe('last_admin');
    const second = await createMember(t, org, { isAdmin: true });
    expect((await org.client.patch(`/api/users/${org.userId}`, { isAdmin: false })).status).toBe(200);
    expect((await second.client.patch(`/api/users/${second.userId}`, { status: 'deactivated' })).body.code).toBe(
      'last_admin',
    );
  });
});

describe('module access matrix', () => {
  it('grants GPS and Finance per user and per role, and the guard follows it', async () => {
    const org = await createOrg(t);
    const driver = await createMember(t, org, { name: 'Driver' });
    const accountant = await createMember(t, org, { name: 'Accountant' });
    expect((await driver.client.get('/api/auth/me')).body.modules).toEqual({ gps: false, finance: false });
    const denied = await driver.client.get('/api/probe/gps');
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('module_access_denied');

    const role = await org.client.post('/api/roles', { name: 'Drivers', memberIds: [driver.userId] });
    const matrix = await org.client.put('/api/module-access', {
      roles: [{ roleId: role.body.id, modules: ['gps'] }],
      users: [{ userId: accountant.userId, modules: ['finance'] }],
    });
    expect(matrix.status).toBe(200);
    expect(matrix.body.roles).toEqual([{ roleId: role.body.id, name: 'Drivers', modules: ['gps'] }]);
    expect(matrix.body.users.find((u: { userId: string }) => u.userId === accountant.userId).modules).toEqual([
      'finance',
    ]);

    expect((await driver.client.get('/api/auth/me')).body.modules).toEqual({ gps: true, finance: false });
    expect((await driver.client.get('/api/probe/gps')).status).toBe(200);
    expect((await accountant.client.get('/api/auth/me')).body.modules).toEqual({ gps: false, finance: true });
    expect((await accountant.client.get('/api/probe/gps')).status).toBe(403);
    // Administrators have every module.
    expect((await org.client.get('/api/probe/gps')).status).toBe(200);

    // Leaving the role takes the module away at once.
    await org.client.put(`/api/roles/${role.body.id}/members`, { userIds: [] });
    expect((await driver.client.get('/api/probe/gps')).status).toBe(403);
    expect((await org.client.get('/api/module-access')).body.modules).toEqual(['gps', 'finance']);
  });
});

describe('organization', () => {
  it('lets an administrator rename it and switch the health-schedule module', async () => {
    const org = await createOrg(t);
    const updated = await org.client.patch('/api/organization', { name: 'Renamed', health_schedule_enabled: true });
    expect(updated.body).toMatchObject({ name: 'Renamed', health_schedule_enabled: true, billingBlocked: false });
    expect((await org.client.get('/api/auth/me')).body.organization.health_schedule_enabled).toBe(true);
  });
});
