import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createForm, createMember, createOrg, createTask, type Member } from '../../../../test/helpers/factories';

let t: TestApp;
let admin: Member;
beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
});
afterAll(() => t.close());

describe('forms', () => {
  it('creates a form with fields of every type, client ids kept, and the default workflow', async () => {
    const textId = randomUUID();
    const directory = await admin.client.post('/api/directories', { name: 'Sites', columns: [{ name: 'Name' }] });
    const form = await createForm(admin, {
      name: 'Заявка',
      fields: [
        { id: textId, name: 'Comment', type: 'text', required: true },
        { name: 'Amount', type: 'number' },
        { name: 'Due', type: 'date' },
        { name: 'Urgent', type: 'checkbox' },
        { name: 'Kind', type: 'select', options: ['Repair', 'Install'] },
        { name: 'Team', type: 'user', allow_multiple: true },
        { name: 'Site', type: 'table', directoryId: directory.body.id, displayColumn: 'Name' },
        { name: 'Act', type: 'document_template' },
      ],
    });
    expect(form.fields.map((f: { type: string }) => f.type)).toEqual([
      'text',
      'number',
      'date',
      'checkbox',
      'select',
      'user',
      'table',
      'document_template',
    ]);
    expect(form.fields[0]).toMatchObject({ id: textId, required: true });
    expect(form.fields[5].allow_multiple).toBe(true);
    expect(form.fields[6].displayColumn).toBe('Name');
    expect(form.qr_generation_enabled).toBe(false);
    // The creator speaks Russian: the default statuses are named in Russian.
    expect(form.statuses.map((s: { name: string }) => s.name)).toEqual(['Новая', 'В работе', 'Готово']);
    expect(form.statuses.filter((s: { initial: boolean }) => s.initial)).toHaveLength(1);
    expect(form.statuses[2].final).toBe(true);
    expect(form.transitions.length).toBeGreaterThan(0);
    expect((await admin.client.get(`/api/forms/${form.id}`)).body).toEqual(form);
  });

  it('takes a custom workflow with moves named by status', async () => {
    const form = await createForm(admin, {
      statuses: [
        { name: 'Draft', initial: true },
        { name: 'Approved', final: true },
      ],
      transitions: [{ from: 'Draft', to: 'Approved' }],
      qr_generation_enabled: true,
    });
    const [draft, approved] = form.statuses;
    expect(form.transitions).toEqual([{ from: draft.id, to: approved.id }]);
    expect(form.qr_generation_enabled).toBe(true);
  });

  it('refuses a workflow without exactly one initial status, or with moves to unknown statuses', async () => {
    const none = await admin.client.post('/api/forms', { name: 'X', statuses: [{ name: 'A' }, { name: 'B' }] });
    expect(none.status).toBe(400);
    expect(none.body.errors[0].code).toBe('one_initial_status');
    const unknown = await admin.client.post('/api/forms', {
      name: 'X',
      statuses: [{ name: 'A', initial: true }],
      transitions: [{ from: 'A', to: 'Nowhere' }],
    });
    expect(unknown.body.errors[0]).toMatchObject({ pointer: '#/transitions/0/to', code: 'unknown_status' });
    const select = await admin.client.post('/api/forms', { name: 'X', fields: [{ name: 'Kind', type: 'select' }] });
    expect(select.body.errors[0]).toMatchObject({ pointer: '#/fields/0/options', code: 'options_required' });
    const table = await admin.client.post('/api/forms', {
      name: 'X',
      fields: [{ name: 'Site', type: 'table', directoryId: randomUUID() }],
    });
    expect(table.body.errors[0]).toMatchObject({ pointer: '#/fields/0/directoryId', code: 'unknown_directory' });
  });

  it('edits fields without corrupting tasks: values stay, type is locked once used', async () => {
    const form = await createForm(admin, {
      fields: [
        { name: 'Amount', type: 'number' },
        { name: 'Note', type: 'text' },
      ],
    });
    const [amount, note] = form.fields;
    const task = await createTask(admin, form.id, { fields: { [amount.id]: '1 000', [note.id]: 'keep me' } });

    const retype = await admin.client.patch(`/api/forms/${form.id}`, {
      fields: [{ ...amount, type: 'text' }, note],
    });
    expect(retype.status).toBe(409);
    expect(retype.body.code).toBe('field_type_locked');

    // Removing a field and adding a required one: the task keeps its values and stays editable.
    const edited = await admin.client.patch(`/api/forms/${form.id}`, {
      name: 'Renamed',
      fields: [amount, { name: 'Approver', type: 'text', required: true }],
    });
    expect(edited.status).toBe(200);
    expect(edited.body.fields.map((f: { name: string }) => f.name)).toEqual(['Amount', 'Approver']);
    const reread = await admin.client.get(`/api/tasks/${task.id}`);
    expect(reread.body.fields[note.id]).toBe('keep me');
    expect((await admin.client.patch(`/api/tasks/${task.id}`, { fields: { [amount.id]: '2' } })).status).toBe(200);
  });

  it('saves settings, fields and the workflow in one update, all or nothing', async () => {
    const form = await createForm(admin);
    await createTask(admin, form.id);
    const [open, working, done] = form.statuses;
    const refused = await admin.client.patch(`/api/forms/${form.id}`, {
      name: 'Half saved?',
      fields: [{ name: 'Added', type: 'text' }],
      statuses: [{ ...working, initial: true }, done],
      transitions: [{ from: working.id, to: done.id }],
    });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('status_in_use');
    const unchanged = await admin.client.get(`/api/forms/${form.id}`);
    expect(unchanged.body.name).toBe(form.name);
    expect(unchanged.body.fields).toEqual(form.fields);
    const saved = await admin.client.patch(`/api/forms/${form.id}`, {
      name: 'Whole',
      fields: [{ name: 'Added', type: 'text' }],
      statuses: [{ ...open, name: 'Inbox' }, working, done, { name: 'Review' }],
      transitions: [
        { from: open.id, to: 'Review' },
        { from: 'Review', to: done.id },
      ],
    });
    expect(saved.status).toBe(200);
    expect(saved.body.name).toBe('Whole');
    expect(saved.body.fields.map((f: { name: string }) => f.name)).toEqual(['Added']);
    expect(saved.body.statuses.map((s: { name: string }) => s.name)).toEqual(['Inbox', 'В работе', 'Готово', 'Review']);
    expect(saved.body.transitions).toHaveLength(2);
    const alone = await admin.client.patch(`/api/forms/${form.id}`, { statuses: saved.body.statuses });
    expect(alone.status).toBe(400);
  });

  it('keeps statuses editable but refuses to remove one that tasks are in', async () => {
    const form = await createForm(admin);
    await createTask(admin, form.id);
    const [open, working, done] = form.statuses;
    const withoutOpen = await admin.client.put(`/api/forms/${form.id}/statuses`, {
      statuses: [{ ...working, initial: true }, done],
      transitions: [{ from: working.id, to: done.id }],
    });
    expect(withoutOpen.status).toBe(409);
    expect(withoutOpen.body.code).toBe('status_in_use');
    const renamed = await admin.client.put(`/api/forms/${form.id}/statuses`, {
      statuses: [{ ...open, name: 'Inbox' }, working, done, { name: 'Archived', final: true }],
      transitions: [
        { from: open.id, to: working.id },
        { from: done.id, to: 'Archived' },
      ],
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.statuses.map((s: { name: string }) => s.name)).toEqual([
      'Inbox',
      'В работе',
      'Готово',
      'Archived',
    ]);
    expect(renamed.body.transitions).toHaveLength(2);
  });

  it('lets only administrators change forms, and hides forms restricted to other roles', async () => {
    const member = await createMember(t, admin);
    expect((await member.client.post('/api/forms', { name: 'Mine' })).status).toBe(403);
    const role = await admin.client.post('/api/roles', { name: `Accountants ${randomUUID()}` });
    const restricted = await createForm(admin, { visibleRoleIds: [role.body.id] });
    const open = await createForm(admin);
    const visible = (await member.client.get('/api/forms')).body.items.map((f: { id: string }) => f.id);
    expect(visible).toContain(open.id);
    expect(visible).not.toContain(restricted.id);
    expect((await member.client.get(`/api/forms/${restricted.id}`)).status).toBe(404);
    expect((await member.client.post('/api/tasks', { formId: restricted.id, title: 'x' })).status).toBe(404);
    await admin.client.put(`/api/roles/${role.body.id}/members`, { userIds: [member.userId] });
    const refreshed = await member.client.get('/api/auth/me');
    expect(refreshed.body.roles).toHaveLength(1);
    expect((await member.client.get(`/api/forms/${restricted.id}`)).status).toBe(200);
  });

  it('refuses visibleRoleIds that are not roles of the organization, naming them, and changes nothing', async () => {
    const other = await createOrg(t, 'Another organization');
    const foreignRole = await other.client.post('/api/roles', { name: `Foreign ${randomUUID()}` });
    const ownRole = await admin.client.post('/api/roles', { name: `Own ${randomUUID()}` });
    const unknown = randomUUID();
    const created = await admin.client.post('/api/forms', {
      name: 'Restricted',
      visibleRoleIds: [ownRole.body.id, unknown, foreignRole.body.id],
    });
    expect(created.status).toBe(400);
    expect(created.body.code).toBe('validation_failed');
    expect(created.body.errors).toEqual([
      expect.objectContaining({ pointer: '#/visibleRoleIds/1', code: 'unknown_role' }),
      expect.objectContaining({ pointer: '#/visibleRoleIds/2', code: 'unknown_role' }),
    ]);
    const form = await createForm(admin, { visibleRoleIds: [ownRole.body.id] });
    const patched = await admin.client.patch(`/api/forms/${form.id}`, { visibleRoleIds: [foreignRole.body.id] });
    expect(patched.status).toBe(400);
    expect(patched.body.errors[0]).toMatchObject({ pointer: '#/visibleRoleIds/0', code: 'unknown_role' });
    expect((await admin.client.get(`/api/forms/${form.id}`)).body.visibleRoleIds).toEqual([ownRole.body.id]);
  });

  it('deletes a form: gone from lists, no new tasks, old tasks readable', async () => {
    const form = await createForm(admin);
    const task = await createTask(admin, form.id);
    expect((await admin.client.delete(`/api/forms/${form.id}`)).status).toBe(204);
    expect((await admin.client.get('/api/forms')).body.items.map((f: { id: string }) => f.id)).not.toContain(form.id);
    const refused = await admin.client.post('/api/tasks', { formId: form.id, title: 'late' });
    expect(refused.body.code).toBe('form_deleted');
    expect((await admin.client.get(`/api/tasks/${task.id}`)).status).toBe(200);
  });

  it('lists deleted forms to administrators and brings one back as it was, taking new tasks again', async () => {
    const org = await createOrg(t);
    const member = await createMember(t, org, { name: 'Mira' });
    const kept = await createForm(org, { name: 'Boiler checks', fields: [{ name: 'Pressure', type: 'number' }] });
    const other = await createForm(org, { name: 'Old intake' });
    await createTask(org, kept.id, { title: 'Morning round' });
    expect((await org.client.delete(`/api/forms/${other.id}`)).status).toBe(204);
    expect((await org.client.delete(`/api/forms/${kept.id}`)).status).toBe(204);

    const deleted = await org.client.get('/api/forms/deleted');
    expect(deleted.status).toBe(200);
    expect(deleted.body.items).toEqual([
      expect.objectContaining({ id: kept.id, name: 'Boiler checks', taskCount: 1 }),
      expect.objectContaining({ id: other.id, name: 'Old intake', taskCount: 0 }),
    ]);
    expect((await member.client.get('/api/forms/deleted')).status).toBe(403);
    expect((await member.client.post(`/api/forms/${kept.id}/restore`)).status).toBe(403);
    expect((await admin.client.get('/api/forms/deleted')).body.items.map((f: { id: string }) => f.id)).not.toContain(
      kept.id,
    );
    expect((await admin.client.post(`/api/forms/${kept.id}/restore`)).status).toBe(404);

    const restored = await org.client.post(`/api/forms/${kept.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id: kept.id, name: 'Boiler checks', fields: [{ name: 'Pressure' }] });
    expect(restored.body.statuses.map((s: { id: string }) => s.id)).toEqual(
      kept.statuses.map((s: { id: string }) => s.id),
    );
    // Again: nothing to undo, the form as it is.
    expect((await org.client.post(`/api/forms/${kept.id}/restore`)).status).toBe(200);
    expect((await member.client.get('/api/forms')).body.items.map((f: { id: string }) => f.id)).toContain(kept.id);
    expect((await member.client.post('/api/tasks', { formId: kept.id, title: 'Evening round' })).status).toBe(201);
    expect((await org.client.get('/api/forms/deleted')).body.items.map((f: { id: string }) => f.id)).toEqual([
      other.id,
    ]);
    expect((await org.client.post(`/api/forms/${randomUUID()}/restore`)).status).toBe(404);
  });
});
