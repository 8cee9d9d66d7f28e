import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { createForm, createMember, createOrg, createTask, type Member } from './helpers/factories';
import { expectCrossTenantNotFound } from './helpers/tenancy';

let t: TestApp;
let a: Member;
let aMember: Member;
let aRoleId: string;
let b: Member;
// biome-ignore lint/suspicious/noExplicitAny: bodies are read loosely in tests.
let aForm: any;
// biome-ignore lint/suspicious/noExplicitAny: bodies are read loosely in tests.
let aTask: any;
let aDirectoryId: string;
let aRowId: string;
let aWeightFieldId: string;
let aAutomationId: string;
let aDelegationId: string;
let aBotId: string;
let aKeyId: string;
let aGpsObjectId: string;
let aGpsGroupId: string;
let aGeofenceId: string;
let aGpsRouteId: string;
let aPaymentId: string;
let aSkinId: string;

beforeAll(async () => {
  t = await startTestApp();
  a = await createOrg(t, 'Organization A');
  aMember = await createMember(t, a, { name: 'A member' });
  aRoleId = (await a.client.post('/api/roles', { name: 'A role', memberIds: [aMember.userId] })).body.id;
  aForm = await createForm(a, { name: 'A form', fields: [{ name: 'Note', type: 'text' }] });
  aTask = await createTask(a, aForm.id, { title: 'A secret task about turbines' });
  await a.client.post(`/api/tasks/${aTask.id}/messages`, { body: 'A message' });
  aDirectoryId = (await a.client.post('/api/directories', { name: 'A places', columns: [{ name: 'Name' }] })).body.id;
  aRowId = (await a.client.post(`/api/directories/${aDirectoryId}/rows`, { cells: ['A row'] })).body.id;
  aWeightFieldId = (await a.client.post('/api/profile-fields', { name: 'Weight', type: 'history-number' })).body.id;
  await aMember.client.put(`/api/users/${aMember.userId}/fields`, { [aWeightFieldId]: '80' });
  aAutomationId = (
    await a.client.post('/api/automations', {
      name: 'A automation',
      trigger: 'schedule',
      triggerConfig: { time: '09:00' },
      code: '',
    })
  ).body.id;
  aDelegationId = (
    await a.client.post('/api/delegations', {
      userId: aMember.userId,
      substituteUserId: a.userId,
      formId: null,
      from: new Date(Date.now() + 86_400_000).toISOString(),
      to: new Date(Date.now() + 2 * 86_400_000).toISOString(),
    })
  ).body.id;
  const bot = await a.client.post('/api/bots', { name: 'A bot', apiAccess: { enabled: true, mode: 'read' } });
  aBotId = bot.body.id;
  aKeyId = bot.body.apiKey.id;
  aPaymentId = (
    await a.client.request(
      'POST',
      '/api/billing/payments',
      { amount: 10_000, currency: 'RUB' },
      { 'Idempotency-Key': 'a-1' },
    )
  ).body.id;
  const paid = await a.client.request(
    'POST',
    '/api/billing/payments',
    { amount: 2_500, currency: 'RUB' },
    {
      'Idempotency-Key': 'a-2',
    },
  );
  await a.client.post(`/api/billing/payments/${paid.body.id}/confirm-test`);
  aGpsGroupId = (await a.client.post('/api/gps/groups', { name: 'A fleet' })).body.id;
  aGpsObjectId = (
    await a.client.post('/api/gps/objects', { name: 'A truck', trackerId: 'shared-tracker', groupId: aGpsGroupId })
  ).body.id;
  aGeofenceId = (
    await a.client.post('/api/gps/geofences', {
      name: 'A yard',
      geometry: { type: 'circle', center: { lat: 55.7, lon: 37.6 }, radiusMeters: 100 },
    })
  ).body.id;
  aGpsRouteId = (
    await a.client.post('/api/gps/routes', {
      name: 'A route',
      objectIds: [aGpsObjectId],
      stops: [{ geofenceId: aGeofenceId, expectedAt: new Date().toISOString() }],
    })
  ).body.id;
  aSkinId = (await a.client.post('/api/skins', { name: 'A skin', tokens: { mode: 'light', colorPrimary: '#16a34a' } }))
    .body.id;
  await a.client.patch('/api/organization', { activeSkinId: aSkinId });
  b = await createOrg(t, 'Organization B');
});
afterAll(() => t.close());

describe('tenant isolation', () => {
  it('answers 404 to every route given another organization’s ids, and changes nothing there', async () => {
    const checked = await expectCrossTenantNotFound(
      t,
      b.client,
      {
        userId: aMember.userId,
        roleId: aRoleId,
        formId: aForm.id,
        taskId: aTask.id,
        directoryId: aDirectoryId,
        rowId: aRowId,
        fieldId: aWeightFieldId,
        automationId: aAutomationId,
        delegationId: aDelegationId,
        botId: aBotId,
        keyId: aKeyId,
        objectId: aGpsObjectId,
        groupId: aGpsGroupId,
        geofenceId: aGeofenceId,
        routeId: aGpsRouteId,
        paymentId: aPaymentId,
        skinId: aSkinId,
      },
      {
        updateUser: { name: 'Taken over', status: 'deactivated' },
        renameRole: { name: 'Taken over' },
        setRoleMembers: { userIds: [b.userId] },
        updateForm: { name: 'Taken over' },
        updateSkin: { name: 'Taken over' },
        setWorkflow: { statuses: [{ name: 'Mine', initial: true }], transitions: [] },
        createTaskBatch: { tasks: [{ title: 'Injected' }] },
        updateTask: { title: 'Taken over' },
        transitionTask: { statusId: aForm.statuses[1].id },
        addAssignee: { userId: b.userId },
        postTaskMessage: { body: 'Hello from B' },
        updateDirectory: { name: 'Taken over' },
        createRow: { cells: ['Injected'] },
        updateRow: { cells: ['Taken over'] },
        moveRow: { parentId: null, position: 0 },
        importRows: { csv: 'Name\nInjected\n' },
        updateProfileField: { name: 'Taken over' },
        setUserFieldValues: { [aWeightFieldId]: '1' },
        generateFormQrCodes: {},
        updateAutomation: { name: 'Taken over', enabled: false },
        testAutomation: { taskId: aTask.id },
        updateDelegation: { substituteUserId: b.userId },
        updateBot: { name: 'Taken over', apiAccess: { enabled: false } },
        updateKeyScopes: { scopes: null },
        updateGpsObject: { name: 'Taken over' },
        updateGpsGroup: { name: 'Taken over' },
        updateGeofence: { name: 'Taken over' },
        updateGpsRoute: { name: 'Taken over' },
      },
    );
    expect(checked).toEqual(
      expect.arrayContaining([
        'getUser',
        'updateUser',
        'getRole',
        'deleteRole',
        'setRoleMembers',
        'getForm',
        'deleteForm',
        'getTask',
        'deleteTask',
        'transitionTask',
        'listTaskMessages',
        'recordTaskView',
        'moveRow',
        'exportRows',
        'updateProfileField',
        'deleteProfileField',
        'getUserFieldValues',
        'setUserFieldValues',
        'getUserFieldHistory',
        'generateFormQrCodes',
        'getTaskQrCode',
        'getAutomation',
        'updateAutomation',
        'deleteAutomation',
        'listAutomationRuns',
        'testAutomation',
        'getDelegation',
        'updateDelegation',
        'deleteDelegation',
        'acknowledgeDelegation',
        'updateBot',
        'deleteBot',
        'regenerateBotKey',
        'updateKeyScopes',
        'getGpsObject',
        'updateGpsObject',
        'deleteGpsObject',
        'getGpsTrack',
        'updateGpsGroup',
        'deleteGpsGroup',
        'listGpsTrips',
        'listGpsStops',
        'listGpsObjectEvents',
        'getGpsMatchedTrack',
        'getGpsObjectAddress',
        'getGeofence',
        'updateGeofence',
        'deleteGeofence',
        'getGpsRoute',
        'updateGpsRoute',
        'deleteGpsRoute',
        'getGpsRouteProgress',
        'getPayment',
        'confirmTestPayment',
      ]),
    );
    const task = await a.client.get(`/api/tasks/${aTask.id}`);
    expect(task.body).toMatchObject({ title: aTask.title, statusId: aTask.statusId, assignees: [] });
    expect((await a.client.get(`/api/forms/${aForm.id}`)).body.name).toBe('A form');
    expect((await a.client.get(`/api/tasks/${aTask.id}/messages`)).body.items).toHaveLength(1);
    const rows = await a.client.get(`/api/directories/${aDirectoryId}/rows`);
    expect(rows.body.items.map((r: { cells: string[] }) => r.cells)).toEqual([['A row']]);
    expect((await a.client.get('/api/profile-fields')).body.items.map((f: { name: string }) => f.name)).toEqual([
      'Weight',
    ]);
    expect((await a.client.get(`/api/users/${aMember.userId}/fields`)).body.values).toEqual({ [aWeightFieldId]: '80' });

    const member = await a.client.get(`/api/users/${aMember.userId}`);
    expect(member.body).toMatchObject({ name: 'A member', status: 'active' });
    const role = await a.client.get(`/api/roles/${aRoleId}`);
    expect(role.body).toMatchObject({ name: 'A role', memberIds: [aMember.userId] });
    const automation = await a.client.get(`/api/automations/${aAutomationId}`);
    expect(automation.body).toMatchObject({ name: 'A automation', enabled: true });
    const delegation = await a.client.get(`/api/delegations/${aDelegationId}`);
    expect(delegation.body).toMatchObject({ userId: aMember.userId, substituteUserId: a.userId });
    const bots = (await a.client.get('/api/bots')).body.items;
    expect(bots).toEqual([expect.objectContaining({ name: 'A bot', apiKey: expect.objectContaining({ id: aKeyId }) })]);
    const gpsObject = (await a.client.get(`/api/gps/objects/${aGpsObjectId}`)).body;
    expect(gpsObject).toMatchObject({ name: 'A truck', groupId: aGpsGroupId });
    expect((await a.client.get(`/api/gps/groups/${aGpsGroupId}`)).body.name).toBe('A fleet');
    expect((await a.client.get(`/api/gps/geofences/${aGeofenceId}`)).body.name).toBe('A yard');
    expect((await a.client.get(`/api/gps/routes/${aGpsRouteId}`)).body.name).toBe('A route');
    expect((await a.client.get(`/api/billing/payments/${aPaymentId}`)).body.status).toBe('pending');
    expect((await a.client.get('/api/billing/balance')).body.balance).toBe(2_500);
    expect((await a.client.get(`/api/skins/${aSkinId}`)).body.name).toBe('A skin');
    expect((await a.client.get('/api/organization')).body.activeSkinId).toBe(aSkinId);
  });

  it('never lists another organization’s records', async () => {
    const users = await b.client.get('/api/users?limit=200');
    expect(users.body.items.map((u: { id: string }) => u.id)).toEqual([b.userId]);
    expect((await b.client.get('/api/roles')).body.items).toEqual([]);
    const matrix = await b.client.get('/api/module-access');
    expect(matrix.body.users.map((u: { userId: string }) => u.userId)).toEqual([b.userId]);
    expect((await b.client.get('/api/organization')).body.name).toBe('Organization B');
    expect((await b.client.get('/api/forms')).body.items).toEqual([]);
    expect((await b.client.get('/api/directories')).body.items).toEqual([]);
    expect((await b.client.get('/api/profile-fields')).body.items).toEqual([]);
    expect((await b.client.get('/api/tasks')).body.items).toEqual([]);
    expect((await b.client.get('/api/tasks/search?q=turbines')).body.items).toEqual([]);
    expect((await b.client.get('/api/home/recent')).body.items).toEqual([]);
    expect((await b.client.get('/api/home/inbox')).body.items).toEqual([]);
    expect((await b.client.get('/api/automations')).body.items).toEqual([]);
    expect((await b.client.get(`/api/delegations?userId=${aMember.userId}`)).body.items).toEqual([]);
    expect((await b.client.get('/api/bots')).body.items).toEqual([]);
    expect((await b.client.get('/api/skins')).body.items).toEqual([]);
    // Another organization's skin can be neither B's nor any B member's.
    expect((await b.client.patch('/api/organization', { activeSkinId: aSkinId })).status).toBe(404);
    expect((await b.client.put('/api/skins/choice', { skinId: aSkinId })).status).toBe(404);
    expect((await b.client.get('/api/organization')).body.activeSkinId).toBeNull();
    expect((await b.client.get('/api/gps/objects')).body.items).toEqual([]);
    expect((await b.client.get('/api/gps/groups')).body.items).toEqual([]);
    expect((await b.client.get('/api/gps/geofences')).body.items).toEqual([]);
    expect((await b.client.get('/api/gps/routes')).body.items).toEqual([]);
    const foreignStop = await b.client.post('/api/gps/routes', {
      name: 'B route',
      objectIds: [aGpsObjectId],
      stops: [{ geofenceId: aGeofenceId, expectedAt: new Date().toISOString() }],
    });
    expect(foreignStop.status).toBe(400);
    expect((await b.client.get('/api/gps/ingestion-token')).body.exists).toBe(false);
    // B's token naming A's tracker reaches an object of B's own, never A's.
    const bToken = (await b.client.post('/api/gps/ingestion-token')).body.token;
    const sent = await t.request(`/api/gps/osmand?id=shared-tracker&lat=55.7&lon=37.6&token=${bToken}`);
    expect(sent.status).toBe(200);
    expect((await b.client.get('/api/gps/objects')).body.items.map((o: { id: string }) => o.id)).not.toContain(
      aGpsObjectId,
    );
    expect((await a.client.get(`/api/gps/objects/${aGpsObjectId}`)).body.last_seen).toBeNull();
    expect((await b.client.get('/api/billing/payments')).body.items).toEqual([]);
    expect((await b.client.get('/api/billing/ledger')).body.items).toEqual([]);
  });

  it('refuses another organization’s ids inside bodies as unknown', async () => {
    const role = await b.client.post('/api/roles', { name: 'B role', memberIds: [aMember.userId] });
    expect(role.status).toBe(400);
    const invite = await b.client.post('/api/users', { email: 'new@example.org', name: 'New', roleIds: [aRoleId] });
    expect(invite.status).toBe(400);
    const grant = await b.client.put('/api/module-access', { users: [{ userId: aMember.userId, modules: ['gps'] }] });
    expect(grant.status).toBe(400);
    expect((await aMember.client.get('/api/auth/me')).body.modules).toEqual({ gps: false, finance: false });
    const bForm = await createForm(b);
    const withForeignUser = await b.client.post('/api/tasks', {
      formId: bForm.id,
      title: 'x',
      fields: {},
    });
    expect(withForeignUser.status).toBe(201);
    const assignForeign = await b.client.post(`/api/tasks/${withForeignUser.body.id}/assignees`, {
      userId: aMember.userId,
    });
    expect(assignForeign.status).toBe(400);
    const mentionForeign = await b.client.post(`/api/tasks/${withForeignUser.body.id}/messages`, {
      body: 'hi',
      mentions: [aMember.userId],
    });
    expect(mentionForeign.status).toBe(400);
    const foreignField = await b.client.put(`/api/users/${b.userId}/fields`, { [aWeightFieldId]: '1' });
    expect(foreignField.status).toBe(400);
    expect(foreignField.body.errors[0].code).toBe('unknown_field');
  });
});
