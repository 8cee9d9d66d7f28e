import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../../../test/helpers/api';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createMember, createOrg, type Member } from '../../../../test/helpers/factories';

let t: TestApp;
let admin: Member;
beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
});
afterAll(() => t.close());

interface TestForm {
  id: string;
  amountId: string;
  noteId: string;
}

/** A form with a number field and a text field, created through the API. */
async function newForm(owner: Member = admin): Promise<TestForm> {
  const response = await owner.client.post('/api/forms', {
    name: `Batch ${randomUUID().slice(0, 8)}`,
    fields: [
      { name: 'Amount', type: 'number' },
      { name: 'Note', type: 'text' },
    ],
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  const field = (name: string) => response.body.fields.find((f: { name: string }) => f.name === name).id as string;
  return { id: response.body.id, amountId: field('Amount'), noteId: field('Note') };
}

function rows(form: TestForm, count: number, label = 'Row') {
  return Array.from({ length: count }, (_, i) => ({
    title: `${label} ${i + 1}`,
    description: `Line ${i + 1} of the import`,
    fields: { [form.amountId]: String(i * 10 + 0.5), [form.noteId]: `note ${i + 1}` },
  }));
}

function batch(member: Member, formId: string, tasks: unknown[], key?: string): Promise<ApiResponse> {
  return member.client.request(
    'POST',
    `/api/forms/${formId}/tasks/batch`,
    { tasks },
    key === undefined ? {} : { 'Idempotency-Key': key },
  );
}

/** Tasks of the form in the database (not through the API, so nothing hides them). */
async function countTasks(formId: string): Promise<number> {
  const { rows } = await t.database.db.query<{ count: string }>(
    'SELECT count(*) AS count FROM tasks WHERE form_id = $1',
    [formId],
  );
  return Number(rows[0]?.count);
}

const ids = (response: ApiResponse): string[] => response.body.items.map((task: { id: string }) => task.id);

describe('batch creation', () => {
  it('creates 100 tasks and answers them in request order', async () => {
    const form = await newForm();
    const tasks = rows(form, 100);
    // A client-made id is kept.
    const clientId = randomUUID();
    tasks[10] = { ...(tasks[10] as (typeof tasks)[number]), id: clientId } as (typeof tasks)[number];
    const response = await batch(admin, form.id, tasks);
    expect(response.status, JSON.stringify(response.body).slice(0, 500)).toBe(201);
    expect(response.body.items).toHaveLength(100);
    expect(response.body.items.map((task: { title: string }) => task.title)).toEqual(tasks.map((task) => task.title));
    expect(response.body.items[10].id).toBe(clientId);
    expect(response.body.items[3]).toMatchObject({
      formId: form.id,
      description: 'Line 4 of the import',
      fields: { [form.amountId]: '30.5', [form.noteId]: 'note 4' },
      createdBy: admin.userId,
    });
    expect(new Set(ids(response)).size).toBe(100);
    expect(await countTasks(form.id)).toBe(100);
    const listed = await admin.client.get(`/api/tasks?formId=${form.id}&limit=200`);
    expect(listed.body.items).toHaveLength(100);
  });

  it('refuses 101 tasks with batch_too_large and creates nothing', async () => {
    const form = await newForm();
    const response = await batch(admin, form.id, rows(form, 101), 'too-large-1');
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('batch_too_large');
    expect(await countTasks(form.id)).toBe(0);
    // The refused request did not take the key either.
    expect((await batch(admin, form.id, rows(form, 100), 'too-large-1')).status).toBe(201);
  });

  it('creates none when one row is invalid, and points at the row and field', async () => {
    const form = await newForm();
    const tasks = rows(form, 100);
    (tasks[56] as (typeof tasks)[number]).fields[form.amountId] = 'abc';
    const response = await batch(admin, form.id, tasks);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors[0]).toMatchObject({
      location: 'body',
      pointer: `#/tasks/56/fields/${form.amountId}`,
      code: 'not_a_number',
    });
    expect(response.body.detail).toContain('57');
    expect(await countTasks(form.id)).toBe(0);
    const listed = await admin.client.get(`/api/tasks?formId=${form.id}`);
    expect(listed.body.items).toEqual([]);
  });

  it('refuses an unknown field and a title-less row before anything is written', async () => {
    const form = await newForm();
    const unknownField = randomUUID();
    const tasks = rows(form, 5);
    (tasks[2] as (typeof tasks)[number]).fields[unknownField] = 'x';
    const unknown = await batch(admin, form.id, tasks);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({
      pointer: `#/tasks/2/fields/${unknownField}`,
      code: 'unknown_field',
    });
    const untitled = await batch(admin, form.id, [{ title: 'ok' }, { title: '   ' }]);
    expect(untitled.status).toBe(400);
    expect(untitled.body.errors[0].pointer).toBe('#/tasks/1/title');
    expect(await countTasks(form.id)).toBe(0);
  });

  it('replays a repeat of the idempotency key and creates nothing more', async () => {
    const form = await newForm();
    const key = `import-${randomUUID()}`;
    const tasks = rows(form, 20);
    const first = await batch(admin, form.id, tasks, key);
    expect(first.status).toBe(201);
    const again = await batch(admin, form.id, tasks, key);
    expect(again.status).toBe(201);
    expect(ids(again)).toEqual(ids(first));
    expect(again.body).toEqual(first.body);
    expect(await countTasks(form.id)).toBe(20);
    // Without a key, the same body is a new batch.
    expect((await batch(admin, form.id, tasks)).status).toBe(201);
    expect(await countTasks(form.id)).toBe(40);
  });

  it('creates once when two requests with one key race', async () => {
    const form = await newForm();
    const key = `race-${randomUUID()}`;
    const tasks = rows(form, 50);
    const [a, b] = await Promise.all([batch(admin, form.id, tasks, key), batch(admin, form.id, tasks, key)]);
    expect([a.status, b.status], JSON.stringify([a.body, b.body]).slice(0, 500)).toEqual([201, 201]);
    expect(ids(a)).toHaveLength(50);
    expect(ids(b)).toEqual(ids(a));
    expect(await countTasks(form.id)).toBe(50);
  });

  it('refuses the same key with another body (422) and creates nothing', async () => {
    const form = await newForm();
    const key = `reuse-${randomUUID()}`;
    expect((await batch(admin, form.id, rows(form, 3), key)).status).toBe(201);
    const changed = await batch(admin, form.id, rows(form, 3, 'Other'), key);
    expect(changed.status).toBe(422);
    expect(changed.body.code).toBe('idempotency_key_reused');
    // Another form with the same key is another request too.
    const otherForm = await newForm();
    const elsewhere = await batch(admin, otherForm.id, rows(form, 3), key);
    expect(elsewhere.status).toBe(422);
    expect(await countTasks(form.id)).toBe(3);
    expect(await countTasks(otherForm.id)).toBe(0);
  });

  it('does not burn the key of a batch that failed validation', async () => {
    const form = await newForm();
    const key = `retry-${randomUUID()}`;
    const tasks = rows(form, 10);
    const broken = structuredClone(tasks);
    (broken[4] as (typeof tasks)[number]).fields[form.amountId] = 'abc';
    const failed = await batch(admin, form.id, broken, key);
    expect(failed.status).toBe(400);
    expect(failed.body.code).toBe('validation_failed');
    const corrected = await batch(admin, form.id, tasks, key);
    expect(corrected.status, JSON.stringify(corrected.body)).toBe(201);
    expect(ids(corrected)).toHaveLength(10);
    expect(await countTasks(form.id)).toBe(10);
    const replay = await batch(admin, form.id, tasks, key);
    expect(ids(replay)).toEqual(ids(corrected));
    expect(await countTasks(form.id)).toBe(10);
  });

  it('keeps idempotency keys per organization', async () => {
    const key = `shared-${randomUUID()}`;
    const form = await newForm();
    const first = await batch(admin, form.id, rows(form, 5), key);
    expect(first.status).toBe(201);
    const otherAdmin = await createOrg(t);
    const otherForm = await newForm(otherAdmin);
    const other = await batch(otherAdmin, otherForm.id, rows(otherForm, 5), key);
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    expect(ids(other)).toHaveLength(5);
    expect(ids(other).some((id) => ids(first).includes(id))).toBe(false);
    expect(other.body.items.every((task: { formId: string }) => task.formId === otherForm.id)).toBe(true);
    expect(await countTasks(otherForm.id)).toBe(5);
    expect(await countTasks(form.id)).toBe(5);
  });

  it('refuses a malformed key and another organization’s form', async () => {
    const form = await newForm();
    const bad = await batch(admin, form.id, rows(form, 1), 'has spaces in it');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ location: 'headers', code: 'invalid_key' });
    const stranger = await createOrg(t);
    const foreign = await batch(stranger, form.id, rows(form, 1));
    expect(foreign.status).toBe(404);
    expect(await countTasks(form.id)).toBe(0);
  });

  it('lets a member without the form’s role create nothing', async () => {
    const role = await admin.client.post('/api/roles', { name: `Batchers ${randomUUID().slice(0, 6)}` });
    expect(role.status).toBe(201);
    const restricted = await admin.client.post('/api/forms', {
      name: 'Restricted',
      fields: [],
      visibleRoleIds: [role.body.id],
    });
    const outsider = await createMember(t, admin);
    const refused = await batch(outsider, restricted.body.id, [{ title: 'Nope' }]);
    expect(refused.status).toBe(404);
    expect(await countTasks(restricted.body.id)).toBe(0);
  });
});
