import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { createForm, createOrg, createTask, type Member } from './helpers/factories';

let t: TestApp;
let admin: Member;
beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
});
afterAll(() => t.close());

/** Half of a surrogate pair: JSON can carry it (`"\ud800"`), Unicode text cannot. */
const LONE = 'x\ud800';

describe('malformed requests on every route', () => {
  it('answers 400 bad_request to a malformed percent-encoding in any path parameter', async () => {
    const withParams = t.app.routes.filter((route) => route.path.includes('/:'));
    expect(withParams.length).toBeGreaterThan(30);
    const answers: string[] = [];
    for (const route of withParams) {
      const path = route.path.replace(/:[A-Za-z]+/g, '%E0%A4%A');
      const method = route.method.toUpperCase();
      const response = await admin.client.request(method, path, method === 'GET' ? undefined : {});
      answers.push(`${method} ${route.path}: ${response.status} ${response.body?.code}`);
    }
    expect(answers.filter((answer) => !answer.endsWith(': 400 bad_request'))).toEqual([]);
  });
});

describe('text that is not valid Unicode', () => {
  it('is refused at the edge with a 400 naming the field, on every write path, and nothing is stored', async () => {
    const form = await createForm(admin, { fields: [{ name: 'Note', type: 'text' }] });
    const fieldId = form.fields[0].id;
    const task = await createTask(admin, form.id, { title: 'Kept' });
    const directory = await admin.client.post('/api/directories', { name: 'Sites', columns: [{ name: 'Name' }] });
    const row = await admin.client.post(`/api/directories/${directory.body.id}/rows`, { cells: ['Kept'] });
    const profileField = await admin.client.post('/api/profile-fields', { name: 'Nickname', type: 'text' });
    const writes: [string, string, unknown, string][] = [
      ['POST', '/api/tasks', { formId: form.id, title: LONE }, '#/title'],
      ['POST', '/api/tasks', { formId: form.id, title: 'Fine', fields: { [fieldId]: LONE } }, `#/fields/${fieldId}`],
      ['PATCH', `/api/tasks/${task.id}`, { title: LONE }, '#/title'],
      ['PATCH', `/api/tasks/${task.id}`, { fields: { [fieldId]: LONE } }, `#/fields/${fieldId}`],
      ['POST', `/api/tasks/${task.id}/transition`, { statusId: form.statuses[1].id, comment: LONE }, '#/comment'],
      ['POST', `/api/tasks/${task.id}/messages`, { body: LONE }, '#/body'],
      ['POST', `/api/directories/${directory.body.id}/rows`, { cells: [LONE] }, '#/cells/0'],
      ['PATCH', `/api/directories/${directory.body.id}/rows/${row.body.id}`, { cells: [LONE] }, '#/cells/0'],
      ['PUT', `/api/users/${admin.userId}/fields`, { [profileField.body.id]: LONE }, `#/${profileField.body.id}`],
      ['PATCH', `/api/tasks/${task.id}`, { fields: { [`k${'\udc00'}`]: 'x' } }, `#/fields/k${'\udc00'}`],
    ];
    for (const [method, path, body, pointer] of writes) {
      const response = await admin.client.request(method, path, body);
      expect(response.status, `${method} ${path}`).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(response.body.errors).toContainEqual(expect.objectContaining({ pointer, code: 'lone_surrogate' }));
    }
    const stored = await admin.client.get(`/api/tasks/${task.id}`);
    expect(stored.body).toMatchObject({ title: 'Kept', statusId: task.statusId });
    const rows = await admin.client.get(`/api/directories/${directory.body.id}/rows`);
    expect(rows.body.items.map((r: { cells: string[] }) => r.cells)).toEqual([['Kept']]);
  });

  it('takes a surrogate pair that is whole (an emoji) as any other text', async () => {
    const form = await createForm(admin);
    const created = await admin.client.post('/api/tasks', { formId: form.id, title: 'Pump 🚒' });
    expect(created.status).toBe(201);
    expect(created.body.title).toBe('Pump 🚒');
  });
});
