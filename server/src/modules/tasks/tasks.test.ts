import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createForm, createMember, createOrg, createTask, type Member } from '../../../../test/helpers/factories';
import type { DomainEvents } from '../../platform/events';

let t: TestApp;
let admin: Member;
let alice: Member;
let bob: Member;
// biome-ignore lint/suspicious/noExplicitAny: form bodies are read loosely in tests.
let form: any;
const field = (name: string) => form.fields.find((f: { name: string }) => f.name === name).id as string;

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
  alice = await createMember(t, admin, { name: 'Alice' });
  bob = await createMember(t, admin, { name: 'Bob' });
  form = await createForm(admin, {
    name: 'Service request',
    fields: [
      { name: 'Amount', type: 'number' },
      { name: 'Due', type: 'date' },
      { name: 'Urgent', type: 'checkbox' },
      { name: 'Kind', type: 'select', options: ['Repair', 'Install'] },
      { name: 'Owner', type: 'user' },
      { name: 'Team', type: 'user', allow_multiple: true },
      { name: 'Note', type: 'text', required: true },
    ],
  });
});
afterAll(() => t.close());

const statusId = (name: string) => form.statuses.find((s: { name: string }) => s.name === name).id as string;

describe('task values', () => {
  it.each([
    ['12 345 678 901 234 567 890,5', '12345678901234567890.5'],
    ['1\u00a0234,50', '1234.5'],
    ['123456789012345678901234567890', '123456789012345678901234567890'],
    [42, '42'],
  ])('stores the number %j as %j', async (input, stored) => {
    const task = await createTask(admin, form.id, { fields: { [field('Amount')]: input, [field('Note')]: 'n' } });
    expect(task.fields[field('Amount')]).toBe(stored);
    expect((await admin.client.get(`/api/tasks/${task.id}`)).body.fields[field('Amount')]).toBe(stored);
  });

  it('refuses garbage with a field error naming the field', async () => {
    const response = await admin.client.post('/api/tasks', {
      formId: form.id,
      title: 'Bad',
      fields: {
        [field('Amount')]: '12abc',
        [field('Due')]: '2024-02-30',
        [field('Urgent')]: 'yes',
        [field('Kind')]: 'Demolish',
        [field('Owner')]: 'user:not-a-uuid',
        [randomUUID()]: 'x',
      },
    });
    expect(response.status).toBe(400);
    const codes = Object.fromEntries(
      response.body.errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code]),
    );
    expect(codes).toMatchObject({
      [`#/fields/${field('Amount')}`]: 'not_a_number',
      [`#/fields/${field('Due')}`]: 'invalid_date',
      [`#/fields/${field('Urgent')}`]: 'invalid_type',
      [`#/fields/${field('Kind')}`]: 'invalid_choice',
      [`#/fields/${field('Owner')}`]: 'invalid_user',
      [`#/fields/${field('Note')}`]: 'required',
    });
    expect(response.body.errors.some((e: { code: string }) => e.code === 'unknown_field')).toBe(true);
  });

  it('refuses a title, description or value holding a NUL character with 400, changing nothing', async () => {
    const task = await createTask(admin, form.id, { title: 'Pump', fields: { [field('Note')]: 'n' } });
    for (const patch of [
      { title: 'Pu\u0000mp' },
      { description: '\u0000' },
      { fields: { [field('Note')]: 'a\u0000' } },
    ]) {
      const response = await admin.client.patch(`/api/tasks/${task.id}`, patch);
      expect(response.status, JSON.stringify(patch)).toBe(400);
      expect(response.body.errors[0]).toMatchObject({ code: 'nul_character' });
    }
    const stored = (await admin.client.get(`/api/tasks/${task.id}`)).body;
    expect([stored.title, stored.description, stored.fields[field('Note')]]).toEqual(['Pump', '', 'n']);
  });

  it('keeps a client-made id, and refuses it twice', async () => {
    const id = randomUUID();
    const task = await createTask(admin, form.id, { id, fields: { [field('Note')]: 'n' } });
    expect(task.id).toBe(id);
    const again = await admin.client.post('/api/tasks', {
      id,
      formId: form.id,
      title: 'dup',
      fields: { [field('Note')]: 'n' },
    });
    expect(again.status).toBe(409);
  });
});

describe('assignees from user fields', () => {
  it('stores multi-user values as user:/role: strings and expands roles into members', async () => {
    const role = await admin.client.post('/api/roles', {
      name: `Crew ${randomUUID()}`,
      memberIds: [alice.userId, bob.userId],
    });
    const task = await createTask(admin, form.id, {
      fields: { [field('Team')]: [`role:${role.body.id}`], [field('Owner')]: admin.userId, [field('Note')]: 'n' },
    });
    // The legacy bare id is accepted and stored with its prefix.
    expect(task.fields[field('Owner')]).toBe(`user:${admin.userId}`);
    expect(task.fields[field('Team')]).toEqual([`role:${role.body.id}`]);
    expect(task.assignees.map((a: { userId: string }) => a.userId).sort()).toEqual(
      [admin.userId, alice.userId, bob.userId].sort(),
    );

    // Changing the field replaces the field-sourced assignees; a manual assignee stays.
    const carol = await createMember(t, admin, { name: 'Carol' });
    await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: carol.userId });
    const changed = await admin.client.patch(`/api/tasks/${task.id}`, {
      fields: { [field('Team')]: [`user:${bob.userId}`] },
    });
    expect(changed.body.assignees.map((a: { userId: string }) => a.userId).sort()).toEqual(
      [admin.userId, bob.userId, carol.userId].sort(),
    );
    expect(changed.body.assignees.find((a: { userId: string }) => a.userId === carol.userId).source).toBe('manual');
  });

  it('follows the role’s membership when it changes', async () => {
    const role = await admin.client.post('/api/roles', { name: `Shift ${randomUUID()}`, memberIds: [alice.userId] });
    const task = await createTask(admin, form.id, {
      fields: { [field('Team')]: [`role:${role.body.id}`], [field('Note')]: 'n' },
    });
    expect(task.assignees.map((a: { userId: string }) => a.userId)).toEqual([alice.userId]);
    await admin.client.put(`/api/roles/${role.body.id}/members`, { userIds: [bob.userId] });
    await t.app.events.idle();
    const after = await admin.client.get(`/api/tasks/${task.id}`);
    expect(after.body.assignees.map((a: { userId: string }) => a.userId)).toEqual([bob.userId]);
  });

  it('keeps a person the fields name: removing them alone is refused, naming the fields; out of the field they go', async () => {
    const role = await admin.client.post('/api/roles', { name: `Watch ${randomUUID()}`, memberIds: [bob.userId] });
    const carol = await createMember(t, admin, { name: 'Carol' });
    const task = await createTask(admin, form.id, {
      fields: {
        [field('Owner')]: `user:${alice.userId}`,
        [field('Team')]: [`role:${role.body.id}`, `user:${alice.userId}`],
        [field('Note')]: 'n',
      },
    });
    await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: carol.userId });

    const alone = await admin.client.delete(`/api/tasks/${task.id}/assignees/${alice.userId}`);
    expect(alone.status).toBe(409);
    expect(alone.body.code).toBe('assigned_by_field');
    expect(alone.body.detail).toContain('“Owner”, “Team”');
    // Through a role as well.
    const member = await admin.client.delete(`/api/tasks/${task.id}/assignees/${bob.userId}`);
    expect(member.status).toBe(409);
    expect(member.body.detail).toContain('“Team”');
    // Nothing changed, no trace in the audit.
    const kept = await admin.client.get(`/api/tasks/${task.id}`);
    expect(kept.body.assignees.map((a: { userId: string }) => a.userId).sort()).toEqual(
      [alice.userId, bob.userId, carol.userId].sort(),
    );
    const audit = await admin.client.get(`/api/tasks/${task.id}/audit`);
    expect(audit.body.items.filter((entry: { action: string }) => entry.action === 'assignee_removed')).toEqual([]);

    // A person assigned by hand is removed as before; so is one the fields name who has left (a
    // deactivated person is never assigned again).
    expect((await admin.client.delete(`/api/tasks/${task.id}/assignees/${carol.userId}`)).status).toBe(200);
    const dmitri = await createMember(t, admin, { name: 'Dmitri' });
    const his = await createTask(admin, form.id, {
      fields: { [field('Owner')]: `user:${dmitri.userId}`, [field('Note')]: 'n' },
    });
    expect((await admin.client.patch(`/api/users/${dmitri.userId}`, { status: 'deactivated' })).status).toBe(200);
    expect((await admin.client.delete(`/api/tasks/${his.id}/assignees/${dmitri.userId}`)).status).toBe(200);
    // Out of the fields, Alice is no longer assigned, and a later change of a people field leaves her off.
    await admin.client.patch(`/api/tasks/${task.id}`, {
      fields: { [field('Owner')]: null, [field('Team')]: [`role:${role.body.id}`] },
    });
    const later = await admin.client.patch(`/api/tasks/${task.id}`, {
      fields: { [field('Owner')]: `user:${admin.userId}` },
    });
    expect(later.body.assignees.map((a: { userId: string }) => a.userId).sort()).toEqual(
      [admin.userId, bob.userId].sort(),
    );
  });

  it('refuses people of another organization', async () => {
    const other = await createOrg(t);
    const response = await admin.client.post('/api/tasks', {
      formId: form.id,
      title: 'x',
      fields: { [field('Owner')]: `user:${other.userId}`, [field('Note')]: 'n' },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].code).toBe('unknown_user');
  });
});

describe('transitions', () => {
  it('moves along allowed moves, records it, and publishes task.status_changed after commit', async () => {
    const events: DomainEvents['task.status_changed'][] = [];
    const stop = t.app.events.subscribe('task.status_changed', (event) => {
      events.push(event);
    });
    const task = await createTask(alice, form.id, { fields: { [field('Note')]: 'n' } });
    const moved = await alice.client.post(`/api/tasks/${task.id}/transition`, {
      statusId: statusId('В работе'),
      comment: 'On it',
    });
    expect(moved.status).toBe(200);
    expect(moved.body.statusId).toBe(statusId('В работе'));
    await t.app.events.idle();
    stop();
    expect(events).toEqual([
      {
        organizationId: admin.organizationId,
        taskId: task.id,
        formId: form.id,
        fromStatusId: statusId('Новая'),
        toStatusId: statusId('В работе'),
        actor: { userId: alice.userId },
        depth: 0,
      },
    ]);
    const audit = await alice.client.get(`/api/tasks/${task.id}/audit`);
    expect(audit.body.items[0]).toMatchObject({
      action: 'status_changed',
      actorUserId: alice.userId,
      details: { fromStatusId: statusId('Новая'), toStatusId: statusId('В работе'), comment: 'On it' },
    });
  });

  it('refuses a move the workflow does not allow with 409 and leaves no trace', async () => {
    const published: unknown[] = [];
    const stop = t.app.events.subscribe('task.status_changed', (event) => {
      published.push(event);
    });
    const task = await createTask(alice, form.id, { fields: { [field('Note')]: 'n' } });
    const done = await alice.client.post(`/api/tasks/${task.id}/transition`, { statusId: statusId('Готово') });
    expect(done.status).toBe(200);
    const back = await alice.client.post(`/api/tasks/${task.id}/transition`, { statusId: statusId('Новая') });
    expect(back.status).toBe(409);
    expect(back.body.code).toBe('transition_not_allowed');
    await t.app.events.idle();
    stop();
    expect(published).toHaveLength(1);
    const after = await alice.client.get(`/api/tasks/${task.id}`);
    expect(after.body.statusId).toBe(statusId('Готово'));
    const audit = await alice.client.get(`/api/tasks/${task.id}/audit`);
    expect(audit.body.items.filter((e: { action: string }) => e.action === 'status_changed')).toHaveLength(1);
    const foreign = await alice.client.post(`/api/tasks/${task.id}/transition`, { statusId: randomUUID() });
    expect(foreign.status).toBe(400);
  });

  it('never leaves a task in a status removed at the moment it moved there', async () => {
    // A few rounds: requests that truly overlap are up to the scheduler.
    for (let round = 0; round < 4; round++) {
      const own = await createForm(admin);
      type Status = { id: string; name: string; initial: boolean; final: boolean };
      const [first, second, third] = own.statuses as [Status, Status, Status];
      const task = await createTask(admin, own.id);
      const kept = [first, third].map((s) => ({ id: s.id, name: s.name, initial: s.initial, final: s.final }));
      const [replaced, moved] = await Promise.all([
        admin.client.put(`/api/forms/${own.id}/statuses`, {
          statuses: kept,
          transitions: [{ from: first.id, to: third.id }],
        }),
        admin.client.post(`/api/tasks/${task.id}/transition`, { statusId: second.id }),
      ]);
      // Whichever came second saw the first: the move into a removed status, or the removal of a
      // status a task is now in, is refused.
      expect([replaced.status, moved.status].filter((status) => status === 200)).toHaveLength(1);
      const workflow = (await admin.client.get(`/api/forms/${own.id}/statuses`)).body.statuses as { id: string }[];
      const { statusId } = (await admin.client.get(`/api/tasks/${task.id}`)).body;
      expect(workflow.map((s) => s.id)).toContain(statusId);
    }
  });
});

describe('history and audit', () => {
  it('writes one history row per changed field with old, new and actor, newest first', async () => {
    const task = await createTask(admin, form.id, { fields: { [field('Amount')]: '1', [field('Note')]: 'first' } });
    await alice.client.patch(`/api/tasks/${task.id}`, {
      fields: { [field('Amount')]: '1,0', [field('Note')]: 'second', [field('Kind')]: 'Repair' },
    });
    await bob.client.patch(`/api/tasks/${task.id}`, { title: 'Retitled', fields: { [field('Note')]: 'third' } });
    const history = await admin.client.get(`/api/tasks/${task.id}/history`);
    // "1,0" normalises to "1": unchanged, so no row for Amount.
    const rowsOf = (items: { fieldId: string; oldValue: unknown; newValue: unknown; actorUserId: string }[]) =>
      items.map((h) => [h.fieldId, h.oldValue, h.newValue, h.actorUserId]);
    const [newest, ...earlier] = rowsOf(history.body.items);
    expect(newest).toEqual([field('Note'), 'second', 'third', bob.userId]);
    expect(earlier).toHaveLength(2);
    expect(earlier).toEqual(
      expect.arrayContaining([
        [field('Note'), 'first', 'second', alice.userId],
        [field('Kind'), null, 'Repair', alice.userId],
      ]),
    );
    const { rows } = await t.database.db.query('SELECT count(*)::int AS n FROM field_history WHERE task_id = $1', [
      task.id,
    ]);
    expect(rows[0]).toEqual({ n: 3 });
    const audit = await admin.client.get(`/api/tasks/${task.id}/audit`);
    expect(audit.body.items.map((e: { action: string }) => e.action)).toEqual(['updated', 'updated', 'created']);
    expect(audit.body.items[0].details.title).toEqual({ from: task.title, to: 'Retitled' });
  });
});

describe('chat, views and home', () => {
  it('keeps a conversation with mentions that reach the inbox until the task is viewed', async () => {
    const task = await createTask(admin, form.id, { fields: { [field('Note')]: 'n' } });
    const posted = await admin.client.post(`/api/tasks/${task.id}/messages`, {
      body: 'Bob, look',
      mentions: [bob.userId],
    });
    expect(posted.status).toBe(201);
    expect(posted.body).toMatchObject({ body: 'Bob, look', mentions: [bob.userId], authorUserId: admin.userId });
    const reply = await bob.client.post(`/api/tasks/${task.id}/messages`, { body: 'Done' });
    expect(reply.status).toBe(201);
    const thread = await alice.client.get(`/api/tasks/${task.id}/messages`);
    expect(thread.body.items.map((m: { body: string }) => m.body)).toEqual(['Bob, look', 'Done']);

    const inbox = await bob.client.get('/api/home/inbox?reason=mentioned');
    expect(inbox.body.items.map((i: { task: { id: string } }) => i.task.id)).toContain(task.id);
    await bob.client.post(`/api/tasks/${task.id}/view`);
    const after = await bob.client.get('/api/home/inbox?reason=mentioned');
    expect(after.body.items.map((i: { task: { id: string } }) => i.task.id)).not.toContain(task.id);
    const unknown = await admin.client.post(`/api/tasks/${task.id}/messages`, { body: 'x', mentions: [randomUUID()] });
    expect(unknown.status).toBe(400);
  });

  it('lists assigned open tasks in the inbox with their reason', async () => {
    const task = await createTask(admin, form.id, {
      fields: { [field('Owner')]: `user:${alice.userId}`, [field('Note')]: 'n' },
    });
    const inbox = await alice.client.get('/api/home/inbox?reason=assigned');
    expect(inbox.body.items.find((i: { task: { id: string } }) => i.task.id === task.id)?.reason).toBe('assigned');
    await alice.client.post(`/api/tasks/${task.id}/transition`, { statusId: statusId('Готово') });
    const closed = await alice.client.get('/api/home/inbox');
    expect(closed.body.items.map((i: { task: { id: string } }) => i.task.id)).not.toContain(task.id);
  });

  it('lists recently viewed tasks newest first, one entry per task', async () => {
    const member = await createMember(t, admin);
    const [a, b, c] = [
      await createTask(admin, form.id, { fields: { [field('Note')]: 'n' } }),
      await createTask(admin, form.id, { fields: { [field('Note')]: 'n' } }),
      await createTask(admin, form.id, { fields: { [field('Note')]: 'n' } }),
    ];
    for (const task of [a, b, c, a]) {
      expect((await member.client.post(`/api/tasks/${task.id}/view`)).status).toBe(204);
    }
    const recent = await member.client.get('/api/home/recent');
    expect(recent.body.items.map((i: { task: { id: string } }) => i.task.id)).toEqual([a.id, c.id, b.id]);
    const { rows } = await t.database.db.query('SELECT count(*)::int AS n FROM task_views WHERE user_id = $1', [
      member.userId,
    ]);
    expect(rows[0]).toEqual({ n: 3 });
  });
});

describe('lists and visibility', () => {
  it('filters by form, status, assignee and update time, page by page', async () => {
    const other = await createForm(admin);
    const mine = [];
    for (let i = 0; i < 5; i++) mine.push(await createTask(admin, other.id, { title: `List ${i}` }));
    await admin.client.post(`/api/tasks/${mine[1].id}/assignees`, { userId: bob.userId });
    const page1 = await admin.client.get(`/api/tasks?formId=${other.id}&limit=2`);
    const page2 = await admin.client.get(`/api/tasks?formId=${other.id}&limit=2&cursor=${page1.body.nextCursor}`);
    const page3 = await admin.client.get(`/api/tasks?formId=${other.id}&limit=2&cursor=${page2.body.nextCursor}`);
    const ids = [...page1.body.items, ...page2.body.items, ...page3.body.items].map((x: { id: string }) => x.id);
    expect(new Set(ids).size).toBe(5);
    expect(page3.body.nextCursor).toBeNull();
    const byAssignee = await admin.client.get(`/api/tasks?formId=${other.id}&assigneeId=${bob.userId}`);
    expect(byAssignee.body.items.map((x: { id: string }) => x.id)).toEqual([mine[1].id]);
    const byStatus = await admin.client.get(`/api/tasks?formId=${other.id}&statusId=${other.statuses[1].id}`);
    expect(byStatus.body.items).toEqual([]);
    const since = await admin.client.get(
      `/api/tasks?formId=${other.id}&updatedSince=${encodeURIComponent(mine[4].updatedAt)}`,
    );
    expect(since.body.items.map((x: { id: string }) => x.id)).toContain(mine[4].id);
    expect(since.body.items.map((x: { id: string }) => x.id)).not.toContain(mine[0].id);
  });

  it('hides tasks of restricted forms except from assignees, and answers 404 to others', async () => {
    const role = await admin.client.post('/api/roles', { name: `Finance ${randomUUID()}` });
    const secret = await createForm(admin, { visibleRoleIds: [role.body.id] });
    const task = await createTask(admin, secret.id);
    expect((await alice.client.get(`/api/tasks/${task.id}`)).status).toBe(404);
    expect((await alice.client.get(`/api/tasks?formId=${secret.id}`)).body.items).toEqual([]);
    await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: alice.userId });
    expect((await alice.client.get(`/api/tasks/${task.id}`)).status).toBe(200);
    expect((await bob.client.patch(`/api/tasks/${task.id}`, { title: 'peek' })).status).toBe(404);
  });

  it('counts the tasks the caller can see: of their organization, not deleted, restricted ones only when allowed', async () => {
    const other = await createOrg(t);
    const count = async (member: Member) => {
      const response = await member.client.get('/api/tasks/count');
      expect(response.status).toBe(200);
      return response.body.count as number;
    };
    const [adminBefore, aliceBefore, otherBefore] = [await count(admin), await count(alice), await count(other)];
    const role = await admin.client.post('/api/roles', { name: `Audit ${randomUUID()}` });
    const restricted = await createForm(admin, { visibleRoleIds: [role.body.id] });
    await createTask(admin, form.id, { fields: { [field('Note')]: 'n' } });
    const gone = await createTask(admin, form.id, { fields: { [field('Note')]: 'n' } });
    await createTask(admin, restricted.id);
    await admin.client.delete(`/api/tasks/${gone.id}`);
    expect(await count(admin)).toBe(adminBefore + 2);
    expect(await count(alice)).toBe(aliceBefore + 1);
    expect(await count(other)).toBe(otherBefore);
    // As many as the list shows, page by page.
    let listed = 0;
    for (let cursor: string | null = ''; cursor !== null; ) {
      const page = await admin.client.get(`/api/tasks?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      listed += page.body.items.length;
      cursor = page.body.nextCursor;
    }
    expect(await count(admin)).toBe(listed);
  });

  it('deletes a task: it leaves lists and answers 404', async () => {
    const task = await createTask(admin, form.id, { fields: { [field('Note')]: 'n' } });
    expect((await admin.client.delete(`/api/tasks/${task.id}`)).status).toBe(204);
    expect((await admin.client.get(`/api/tasks/${task.id}`)).status).toBe(404);
  });

  it('restores a deleted task as it was for whoever may delete it, once, and logs who did', async () => {
    const task = await createTask(admin, form.id, { title: 'Undo me', fields: { [field('Note')]: 'kept note' } });
    await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: bob.userId });
    // The form is open to everyone: Alice may delete the task and bring it back.
    expect((await alice.client.delete(`/api/tasks/${task.id}`)).status).toBe(204);
    const restored = await alice.client.post(`/api/tasks/${task.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id: task.id, title: 'Undo me', fields: { [field('Note')]: 'kept note' } });
    expect(restored.body.assignees.map((a: { userId: string }) => a.userId)).toEqual([bob.userId]);
    expect(restored.body.updatedAt > task.updatedAt).toBe(true);
    expect((await admin.client.get(`/api/tasks/${task.id}`)).status).toBe(200);
    const listed = await admin.client.get(`/api/tasks?formId=${form.id}&limit=100`);
    expect(listed.body.items.map((i: { id: string }) => i.id)).toContain(task.id);
    // Asked again, there is nothing left to undo: the task as it is, nothing logged twice.
    const again = await alice.client.post(`/api/tasks/${task.id}/restore`);
    expect(again.status).toBe(200);
    expect(again.body.updatedAt).toBe(restored.body.updatedAt);
    const log = await admin.client.get(`/api/tasks/${task.id}/audit`);
    const actions = log.body.items.map((i: { action: string; actorUserId: string }) => [i.action, i.actorUserId]);
    // Newest first.
    expect(actions.filter(([action]: string[]) => action === 'deleted' || action === 'restored')).toEqual([
      ['restored', alice.userId],
      ['deleted', alice.userId],
    ]);
  });

  it('lists the deleted tasks to administrators, most recently deleted first, with who deleted them', async () => {
    const org = await createOrg(t);
    const member = await createMember(t, org, { name: 'Dora' });
    const repairs = await createForm(org, { name: 'Repairs', fields: [] });
    const made = [];
    for (const title of ['First gone', 'Second gone', 'Third gone', 'Still here']) {
      made.push(await createTask(org, repairs.id, { title }));
    }
    expect((await member.client.delete(`/api/tasks/${made[0].id}`)).status).toBe(204);
    expect((await org.client.delete(`/api/tasks/${made[1].id}`)).status).toBe(204);
    expect((await member.client.delete(`/api/tasks/${made[2].id}`)).status).toBe(204);

    const first = await org.client.get('/api/tasks/deleted?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.items).toEqual([
      expect.objectContaining({
        id: made[2].id,
        title: 'Third gone',
        formName: 'Repairs',
        deletedBy: { id: member.userId, name: 'Dora' },
      }),
      expect.objectContaining({ id: made[1].id, title: 'Second gone', formId: repairs.id }),
    ]);
    expect(first.body.items[1].deletedBy.id).toBe(org.userId);
    const rest = await org.client.get(`/api/tasks/deleted?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(rest.body).toEqual({ items: [expect.objectContaining({ id: made[0].id })], nextCursor: null });

    // Brought back, it leaves the list; members may not read it; other organizations see none of it.
    expect((await org.client.post(`/api/tasks/${made[1].id}/restore`)).status).toBe(200);
    const after = await org.client.get('/api/tasks/deleted');
    expect(after.body.items.map((i: { id: string }) => i.id)).toEqual([made[2].id, made[0].id]);
    const refused = await member.client.get('/api/tasks/deleted');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(
      (await admin.client.get('/api/tasks/deleted?limit=200')).body.items.map((i: { id: string }) => i.id),
    ).not.toContain(made[0].id);
    expect((await org.client.get('/api/tasks/deleted?limit=0')).status).toBe(400);
  });

  it('restores only what the caller may delete, in their organization', async () => {
    const role = await admin.client.post('/api/roles', { name: `Night shift ${randomUUID()}` });
    const restricted = await createForm(admin, { name: 'Night rounds', visibleRoleIds: [role.body.id], fields: [] });
    const task = await createTask(admin, restricted.id, { title: 'Check the valve' });
    // Bob sees it as its assignee but may not delete it: nor may he bring it back.
    await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: bob.userId });
    expect((await bob.client.delete(`/api/tasks/${task.id}`)).status).toBe(403);
    expect((await admin.client.delete(`/api/tasks/${task.id}`)).status).toBe(204);
    const refused = await bob.client.post(`/api/tasks/${task.id}/restore`);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect((await admin.client.get(`/api/tasks/${task.id}`)).status).toBe(404);
    // Another organization's administrator finds nothing to restore.
    const other = await createOrg(t);
    expect((await other.client.post(`/api/tasks/${task.id}/restore`)).status).toBe(404);
    expect((await admin.client.post(`/api/tasks/${randomUUID()}/restore`)).status).toBe(404);
    expect((await admin.client.get(`/api/tasks/${task.id}`)).status).toBe(404);
  });
});
