import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, apiClient } from '../../../../test/helpers/api';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createForm, createMember, createOrg, createTask, type Member } from '../../../../test/helpers/factories';

let t: TestApp;
let admin: Member;
let member: Member;
// biome-ignore lint/suspicious/noExplicitAny: bodies are read loosely in tests.
let form: any;
// biome-ignore lint/suspicious/noExplicitAny: bodies are read loosely in tests.
let otherForm: any;
let directoryId: string;

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
  member = await createMember(t, admin);
  form = await createForm(admin, { name: 'Deliveries', fields: [{ name: 'Note', type: 'text' }] });
  otherForm = await createForm(admin, { name: 'Payroll' });
  directoryId = (await admin.client.post('/api/directories', { name: 'Depots', columns: [{ name: 'Name' }] })).body.id;
});
afterAll(() => t.close());

/** A client sending `key` the way bots do: `X-API-Key`, or `Authorization: Bearer`. */
function keyClient(key: string, header: 'x-api-key' | 'bearer' = 'x-api-key'): ApiClient {
  const client = apiClient(t);
  const headers: Record<string, string> =
    header === 'x-api-key' ? { 'X-API-Key': key } : { Authorization: `Bearer ${key}` };
  const request = client.request;
  client.request = (method, path, body, extra = {}) => request(method, path, body, { ...headers, ...extra });
  return client;
}

async function createBot(body: Record<string, unknown>) {
  const response = await admin.client.post('/api/bots', { name: 'Courier', ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

describe('bots and their API keys', () => {
  it('creates a bot with a key shown once, lists it with a summary only, and keeps no raw key in the database', async () => {
    const created = await createBot({
      description: 'Takes delivery requests',
      apiAccess: { enabled: true, mode: 'write', formIds: [form.id], tableIds: [directoryId] },
    });
    const key: string = created.apiKey.key;
    expect(key).toMatch(/^orb_[A-Za-z0-9_-]{43}$/);
    expect(created.apiKey).toMatchObject({
      mode: 'write',
      formIds: [form.id],
      tableIds: [directoryId],
      prefix: key.slice(0, 8),
      last4: key.slice(-4),
      lastUsedAt: null,
    });

    const list = await admin.client.get('/api/bots');
    expect(list.status).toBe(200);
    const listed = list.body.items.find((bot: { id: string }) => bot.id === created.id);
    expect(listed).toMatchObject({ name: 'Courier', description: 'Takes delivery requests' });
    expect(listed.apiKey).not.toHaveProperty('key');
    expect(JSON.stringify(list.body)).not.toContain(key);

    const dump = await t.database.db.query<{ dump: string }>(
      `SELECT (SELECT coalesce(json_agg(k), '[]') FROM organization_api_keys k)::text
           || (SELECT coalesce(json_agg(b), '[]') FROM bots b)::text
           || (SELECT coalesce(json_agg(e), '[]') FROM error_logs e)::text
           || (SELECT coalesce(json_agg(j), '[]') FROM jobs j)::text AS dump`,
    );
    expect(dump.rows[0]?.dump).not.toContain(key);
    expect(dump.rows[0]?.dump).not.toContain(key.slice(4));
  });

  it('lets the key act as its bot, through X-API-Key or a bearer header, and records the bot in audit and history', async () => {
    const created = await createBot({ apiAccess: { enabled: true, mode: 'write', formIds: [form.id] } });
    const task = await createTask(admin, form.id, { title: 'Parcel' });
    const noteId = form.fields[0].id;
    for (const header of ['x-api-key', 'bearer'] as const) {
      const bot = keyClient(created.apiKey.key, header);
      const read = await bot.get(`/api/tasks/${task.id}`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
    }
    const bot = keyClient(created.apiKey.key);
    const changed = await bot.patch(`/api/tasks/${task.id}`, { fields: { [noteId]: 'Left at the door' } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const comment = await bot.post(`/api/tasks/${task.id}/messages`, { body: 'Delivered' });
    expect(comment.status).toBe(201);
    expect(comment.body).toMatchObject({ botId: created.id, authorUserId: null });

    const audit = await admin.client.get(`/api/tasks/${task.id}/audit`);
    expect(audit.body.items).toContainEqual(
      expect.objectContaining({ action: 'updated', botId: created.id, actorUserId: null }),
    );
    const history = await admin.client.get(`/api/tasks/${task.id}/history`);
    expect(history.body.items).toContainEqual(
      expect.objectContaining({ fieldId: noteId, newValue: 'Left at the door', botId: created.id }),
    );
    const listed = (await admin.client.get('/api/bots')).body.items.find((b: { id: string }) => b.id === created.id);
    expect(listed.apiKey.lastUsedAt).not.toBeNull();

    // A failed call is in the error log under the bot, not under a user.
    const missing = `/api/tasks/${randomUUID()}`;
    expect((await bot.get(missing)).status).toBe(404);
    await expect
      .poll(async () => (await admin.client.get(`/api/error-logs?path=${encodeURIComponent(missing)}`)).body.items)
      .toEqual([expect.objectContaining({ path: missing, status: 404, botId: created.id, userId: null })]);
  });

  it('cuts the old key off at once when the key is regenerated, and shows the new one once', async () => {
    const created = await createBot({ apiAccess: { enabled: true, mode: 'read' } });
    const old = keyClient(created.apiKey.key);
    expect((await old.get('/api/forms')).status).toBe(200);
    const regenerated = await admin.client.post(`/api/bots/${created.id}/api-key/regenerate`);
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.key).not.toBe(created.apiKey.key);
    expect(regenerated.body).toMatchObject({ mode: 'read', formIds: null, tableIds: null });
    const refused = await old.get('/api/forms');
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('invalid_api_key');
    expect((await keyClient(regenerated.body.key).get('/api/forms')).status).toBe(200);
  });

  it('deletes the key when API access is disabled, and makes a new one when it is enabled again', async () => {
    const created = await createBot({ apiAccess: { enabled: true, mode: 'read' } });
    const disabled = await admin.client.put(`/api/bots/${created.id}`, {
      name: 'Courier',
      apiAccess: { enabled: false },
    });
    expect(disabled.status).toBe(200);
    expect(disabled.body.apiKey).toBeNull();
    expect((await keyClient(created.apiKey.key).get('/api/forms')).status).toBe(401);
    const enabled = await admin.client.put(`/api/bots/${created.id}`, {
      name: 'Courier 2',
      apiAccess: { enabled: true, mode: 'full' },
    });
    expect(enabled.body).toMatchObject({ name: 'Courier 2', apiKey: { mode: 'full' } });
    expect(enabled.body.apiKey.key).toMatch(/^orb_/);
    const rescoped = await admin.client.put(`/api/bots/${created.id}`, {
      name: 'Courier 2',
      apiAccess: { enabled: true, mode: 'read', formIds: [] },
    });
    expect(rescoped.body.apiKey).toMatchObject({ mode: 'read', formIds: [], id: enabled.body.apiKey.id });
    expect(rescoped.body.apiKey).not.toHaveProperty('key');
    expect((await keyClient(enabled.body.apiKey.key).get('/api/forms')).body.items).toEqual([]);

    expect((await admin.client.delete(`/api/bots/${created.id}`)).status).toBe(204);
    expect((await keyClient(enabled.body.apiKey.key).get('/api/forms')).status).toBe(401);
    const bots = (await admin.client.get('/api/bots')).body.items.map((b: { id: string }) => b.id);
    expect(bots).not.toContain(created.id);
  });

  it('answers 401 to malformed, unknown and revoked keys', async () => {
    for (const key of ['orb_', 'orb_short', `orb_${'A'.repeat(43)}`, 'not-a-key', '']) {
      const response = await keyClient(key).get('/api/tasks');
      expect(response.status, key).toBe(401);
      expect(response.body.code).toBe('invalid_api_key');
    }
    const bearer = await keyClient(`orb_${'B'.repeat(43)}`, 'bearer').get('/api/tasks');
    expect(bearer.status).toBe(401);
  });

  it('refuses a key on routes that are not for bots, and on administrators’ routes below a full key', async () => {
    const created = await createBot({ apiAccess: { enabled: true, mode: 'write' } });
    const bot = keyClient(created.apiKey.key);
    for (const path of ['/api/bots', '/api/users', '/api/roles', '/api/module-access', '/api/error-logs']) {
      const response = await bot.get(path);
      expect(response.status, path).toBe(403);
      expect(response.body.code).toBe('key_not_accepted');
    }
    const read = await createBot({ apiAccess: { enabled: true, mode: 'read' } });
    const task = await createTask(admin, form.id);
    const write = await keyClient(read.apiKey.key).patch(`/api/tasks/${task.id}`, { title: 'Changed' });
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('scope_denied');
  });

  it('refuses scopes of the wrong shape (400) and unknown or foreign form and directory ids, naming them', async () => {
    const other = await createOrg(t);
    const foreignForm = await createForm(other);
    const wrongShape = await admin.client.post('/api/bots', {
      name: 'X',
      apiAccess: { enabled: true, mode: 'admin', formIds: 'all' },
    });
    expect(wrongShape.status).toBe(400);
    expect(wrongShape.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(
      expect.arrayContaining(['#/apiAccess/mode', '#/apiAccess/formIds']),
    );
    const noMode = await admin.client.post('/api/bots', { name: 'X', apiAccess: { enabled: true } });
    expect(noMode.status).toBe(400);
    expect(noMode.body.errors[0].pointer).toBe('#/apiAccess/mode');

    const unknown = '00000000-0000-7000-8000-000000000000';
    const foreign = await admin.client.post('/api/bots', {
      name: 'X',
      apiAccess: { enabled: true, mode: 'read', formIds: [form.id, foreignForm.id], tableIds: [unknown] },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors).toEqual([
      expect.objectContaining({ pointer: '#/apiAccess/formIds/1', code: 'unknown_form' }),
      expect.objectContaining({ pointer: '#/apiAccess/tableIds/0', code: 'unknown_directory' }),
    ]);
    expect(foreign.body.detail).toContain(foreignForm.id);
    const names = (await admin.client.get('/api/bots')).body.items.map((b: { name: string }) => b.name);
    expect(names).not.toContain('X');

    const created = await createBot({ apiAccess: { enabled: true, mode: 'read' } });
    const keyId = created.apiKey.id;
    const patched = await admin.client.patch(`/api/mcp-keys/${keyId}`, {
      scopes: { mode: 'write', formIds: [otherForm.id] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ mode: 'write', formIds: [otherForm.id], tableIds: null });
    expect(patched.body).not.toHaveProperty('key');
    const bad = await admin.client.patch(`/api/mcp-keys/${keyId}`, { scopes: { mode: 'write', formIds: [unknown] } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ pointer: '#/scopes/formIds/0', code: 'unknown_form' });
    const shape = await admin.client.patch(`/api/mcp-keys/${keyId}`, { scopes: { mode: 'read', extra: 1 } });
    expect(shape.status).toBe(400);
    const full = await admin.client.patch(`/api/mcp-keys/${keyId}`, { scopes: null });
    expect(full.body).toMatchObject({ mode: 'full', formIds: null, tableIds: null });
  });

  it('keeps a deleted directory in a key’s list: the bot saves unchanged, and the directory is reached once restored', async () => {
    const directory = await admin.client.post('/api/directories', { name: 'Depots', columns: [{ name: 'Name' }] });
    const apiAccess = { enabled: true, mode: 'read', formIds: [form.id], tableIds: [directory.body.id] };
    const created = await createBot({ apiAccess });
    await admin.client.delete(`/api/directories/${directory.body.id}`);
    const saved = await admin.client.put(`/api/bots/${created.id}`, { name: 'Courier', apiAccess });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.apiKey.tableIds).toEqual([directory.body.id]);
    await admin.client.post(`/api/directories/${directory.body.id}/restore`);
    expect((await keyClient(created.apiKey.key).get(`/api/directories/${directory.body.id}`)).status).toBe(200);
  });

  it('gives a key no labels of rows from directories outside its list, even through a task it may read', async () => {
    const hidden = await admin.client.post('/api/directories', { name: 'Salaries', columns: [{ name: 'Name' }] });
    const row = await admin.client.post(`/api/directories/${hidden.body.id}/rows`, { cells: ['HIDDEN-LABEL'] });
    const withTable = await createForm(admin, {
      fields: [{ name: 'Payee', type: 'table', directoryId: hidden.body.id, displayColumn: 'Name' }],
    });
    const task = await createTask(admin, withTable.id, { fields: { [withTable.fields[0].id]: row.body.id } });
    expect(JSON.stringify((await admin.client.get(`/api/tasks/${task.id}`)).body.labels)).toContain('HIDDEN-LABEL');
    const created = await createBot({
      apiAccess: { enabled: true, mode: 'read', formIds: [withTable.id], tableIds: [] },
    });
    const bot = keyClient(created.apiKey.key);
    for (const path of [`/api/tasks/${task.id}`, `/api/tasks?formId=${withTable.id}`]) {
      const answer = await bot.get(path);
      expect(answer.status, path).toBe(200);
      expect(JSON.stringify(answer.body), path).not.toContain('HIDDEN-LABEL');
    }
  });

  it('is for administrators only', async () => {
    expect((await member.client.get('/api/bots')).status).toBe(403);
    expect((await member.client.post('/api/bots', { name: 'Mine' })).status).toBe(403);
  });
});
