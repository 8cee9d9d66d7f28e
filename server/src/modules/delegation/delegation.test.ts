import { randomUUID } from 'node:crypto';
import type { SyncDocument } from '@shared/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createForm, createMember, createOrg, createTask, type Member } from '../../../../test/helpers/factories';
import { jobsDone } from '../../../../test/helpers/jobs';
import { syncClients } from '../../../../test/helpers/sync-client';
import { removeExpired } from './delegation.service';

let t: TestApp;
let admin: Member;
// biome-ignore lint/suspicious/noExplicitAny: bodies are read loosely in tests.
let form: any;
const replica = syncClients(() => t);
const hour = 3_600_000;
const now = () => Date.now();
const period = (fromHours: number, toHours: number) => ({
  from: new Date(now() + fromHours * hour).toISOString(),
  to: new Date(now() + toHours * hour).toISOString(),
});

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
  form = await createForm(admin, { fields: [{ name: 'Owner', type: 'user' }] });
});
afterAll(() => t.close());

/** `count` new members (the tuple lets callers name up to five). */
async function people(count: number): Promise<[Member, Member, Member, Member, Member]> {
  const made: Member[] = [];
  for (let i = 0; i < count; i++)
    made.push(await createMember(t, admin, { name: `Person ${randomUUID().slice(0, 6)}` }));
  return made as [Member, Member, Member, Member, Member];
}

async function away(who: Member, substitute: Member, formId: string | null = null) {
  const response = await who.client.post('/api/delegations', {
    userId: who.userId,
    substituteUserId: substitute.userId,
    formId,
    ...period(-1, 24),
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

async function assignees(taskId: string) {
  const task = await admin.client.get(`/api/tasks/${taskId}`);
  return task.body.assignees.map(
    (a: { userId: string; delegated_from_user_id: string | null; pending_review: boolean }) => ({
      userId: a.userId,
      for: a.delegated_from_user_id,
      review: a.pending_review,
    }),
  );
}

describe('delegations: managing them', () => {
  it('refuses bad references and periods naming the field, and an overlapping period with 409; nothing stored', async () => {
    const [anna, boris] = await people(2);
    const other = await createOrg(t, 'Elsewhere');
    const cases: [Record<string, unknown>, string, string][] = [
      [{ substituteUserId: other.userId }, '#/substituteUserId', 'unknown_user'],
      [{ substituteUserId: anna.userId }, '#/substituteUserId', 'self_delegation'],
      [{ formId: randomUUID() }, '#/formId', 'unknown_form'],
      [{ ...period(5, 1) }, '#/to', 'ends_before_start'],
    ];
    for (const [change, pointer, code] of cases) {
      const body = { userId: anna.userId, substituteUserId: boris.userId, formId: null, ...period(0, 5), ...change };
      const response = await anna.client.post('/api/delegations', body);
      expect(response.status, JSON.stringify(change)).toBe(400);
      expect(response.body.errors).toContainEqual(expect.objectContaining({ pointer, code }));
    }
    expect((await anna.client.get('/api/delegations')).body.items).toEqual([]);
    await away(anna, boris);
    const overlap = await anna.client.post('/api/delegations', {
      userId: anna.userId,
      substituteUserId: boris.userId,
      formId: null,
      ...period(2, 30),
    });
    expect(overlap.status).toBe(409);
    // Another scope (a form) may overlap the default one.
    expect(
      (
        await anna.client.post('/api/delegations', {
          userId: anna.userId,
          substituteUserId: boris.userId,
          formId: form.id,
          ...period(2, 30),
        })
      ).status,
    ).toBe(201);
  });

  it('lets users manage their own, administrators anyone’s, and nobody else', async () => {
    const [anna, boris, carl] = await people(3);
    const mine = await away(anna, boris);
    expect((await carl.client.get(`/api/delegations/${mine.id}`)).status).toBe(404);
    expect((await carl.client.get(`/api/delegations?userId=${anna.userId}`)).status).toBe(403);
    expect(
      (
        await carl.client.post('/api/delegations', {
          userId: anna.userId,
          substituteUserId: carl.userId,
          formId: null,
          ...period(30, 40),
        })
      ).status,
    ).toBe(403);
    expect((await admin.client.get(`/api/delegations?userId=${anna.userId}`)).body.items).toHaveLength(1);
    const moved = await admin.client.patch(`/api/delegations/${mine.id}`, { substituteUserId: carl.userId });
    expect(moved.body.substituteUserId).toBe(carl.userId);
    expect((await anna.client.delete(`/api/delegations/${mine.id}`)).status).toBe(204);
  });
});

describe('delegations: resolution', () => {
  it('adds the present substitute beside an absent assignee, in the same transaction, once', async () => {
    const [anna, boris] = await people(2);
    await away(anna, boris);
    const task = await createTask(admin, form.id);
    expect((await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: anna.userId })).status).toBe(200);
    expect(await assignees(task.id)).toEqual(
      expect.arrayContaining([
        { userId: anna.userId, for: null, review: true },
        { userId: boris.userId, for: anna.userId, review: false },
      ]),
    );
    const audit = (await admin.client.get(`/api/tasks/${task.id}/audit`)).body.items;
    expect(audit).toContainEqual(
      expect.objectContaining({
        action: 'assignee_added',
        details: expect.objectContaining({ source: 'delegation', delegatedFromUserId: anna.userId }),
      }),
    );
    // Boris assigned directly to another task already: no second row for him.
    const second = await createTask(admin, form.id);
    await admin.client.post(`/api/tasks/${second.id}/assignees`, { userId: boris.userId });
    await admin.client.post(`/api/tasks/${second.id}/assignees`, { userId: anna.userId });
    expect((await assignees(second.id)).filter((a: { userId: string }) => a.userId === boris.userId)).toEqual([
      { userId: boris.userId, for: null, review: false },
    ]);
  });

  it('follows a chain of absent substitutes, prefers the form’s over the default at every link, and adds nobody for a cycle', async () => {
    const [anna, boris, carl, dina, egor] = await people(5);
    await away(anna, boris);
    await away(boris, carl);
    const chained = await createTask(admin, form.id);
    await admin.client.post(`/api/tasks/${chained.id}/assignees`, { userId: anna.userId });
    expect((await assignees(chained.id)).map((a: { userId: string }) => a.userId).sort()).toEqual(
      [anna.userId, carl.userId].sort(),
    );

    await away(carl, dina, form.id);
    await away(carl, egor);
    const preferring = await createTask(admin, form.id);
    await admin.client.post(`/api/tasks/${preferring.id}/assignees`, { userId: anna.userId });
    expect((await assignees(preferring.id)).find((a: { for: string | null }) => a.for === anna.userId)?.userId).toBe(
      dina.userId,
    );

    const [x, y, z] = await people(3);
    await away(x, y);
    await away(y, x);
    const twoCycle = await createTask(admin, form.id);
    await admin.client.post(`/api/tasks/${twoCycle.id}/assignees`, { userId: x.userId });
    expect(await assignees(twoCycle.id)).toEqual([{ userId: x.userId, for: null, review: false }]);
    await away(z, x);
    const threeCycle = await createTask(admin, form.id);
    await admin.client.post(`/api/tasks/${threeCycle.id}/assignees`, { userId: z.userId });
    expect(await assignees(threeCycle.id)).toEqual([{ userId: z.userId, for: null, review: false }]);
  });

  it('substitutes on every entry point: a user field, batch creation and a replica’s push', async () => {
    const [anna, boris] = await people(2);
    await away(anna, boris);
    const owner = form.fields[0].id;
    const byField = await createTask(admin, form.id, { fields: { [owner]: `user:${anna.userId}` } });
    expect((await assignees(byField.id)).map((a: { userId: string }) => a.userId)).toContain(boris.userId);
    const batch = await admin.client.post(`/api/forms/${form.id}/tasks/batch`, {
      tasks: [{ title: 'One', fields: { [owner]: `user:${anna.userId}` } }],
    });
    expect((await assignees(batch.body.items[0].id)).map((a: { userId: string }) => a.userId)).toContain(boris.userId);
    const pushedTask = await createTask(admin, form.id);
    const client = await replica(admin);
    const pulled = await client.pullUntil('tasks', (docs) => docs.some((doc) => doc.id === pushedTask.id));
    const base = pulled.documents.findLast((doc) => doc.id === pushedTask.id) as SyncDocument;
    const pushed = await client.push('tasks', [
      { assumedMasterState: base, newDocumentState: { ...base, assignees: [{ userId: anna.userId }] } as SyncDocument },
    ]);
    expect(pushed.ok).toBe(true);
    expect((await assignees(pushedTask.id)).map((a: { userId: string }) => a.userId).sort()).toEqual(
      [anna.userId, boris.userId].sort(),
    );
  });

  it('substitutes on the other entry points: an automation’s host call and a role’s re-expansion, once each', async () => {
    const [anna, boris, carl] = await people(3);
    await away(anna, boris);
    const owner = form.fields[0].id;
    const working = form.statuses.find((s: { initial: boolean; final: boolean }) => !s.initial && !s.final).id;
    const substitutesFor = async (taskId: string) =>
      (await assignees(taskId)).filter((a: { for: string | null }) => a.for === anna.userId);

    const automation = await admin.client.post('/api/automations', {
      name: `Owner ${randomUUID()}`,
      trigger: 'task.status_changed',
      triggerConfig: { statusId: working, formId: form.id },
      code: `await ctx.updateFields({ '${owner}': 'user:${anna.userId}' });`,
    });
    expect(automation.status, JSON.stringify(automation.body)).toBe(201);
    const moved = await createTask(admin, form.id);
    await admin.client.post(`/api/tasks/${moved.id}/transition`, { statusId: working });
    await jobsDone(t);
    await admin.client.delete(`/api/automations/${automation.body.id}`);
    expect(await substitutesFor(moved.id)).toEqual([{ userId: boris.userId, for: anna.userId, review: false }]);

    const role = await admin.client.post('/api/roles', { name: `Shift ${randomUUID()}`, memberIds: [carl.userId] });
    const byRole = await createTask(admin, form.id, { fields: { [owner]: `role:${role.body.id}` } });
    expect(await substitutesFor(byRole.id)).toEqual([]);
    await admin.client.put(`/api/roles/${role.body.id}/members`, { userIds: [carl.userId, anna.userId] });
    await t.app.events.idle();
    expect(await substitutesFor(byRole.id)).toEqual([{ userId: boris.userId, for: anna.userId, review: false }]);
    expect((await assignees(byRole.id)).map((a: { userId: string }) => a.userId).sort()).toEqual(
      [anna.userId, boris.userId, carl.userId].sort(),
    );
  });

  it('shows the returning user what moved while away once back (closed tasks too); they acknowledge it, nobody else', async () => {
    const [anna, boris] = await people(2);
    const delegation = await away(anna, boris);
    const task = await createTask(admin, form.id);
    await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: anna.userId });
    const closed = await createTask(admin, form.id);
    await admin.client.post(`/api/tasks/${closed.id}/assignees`, { userId: anna.userId });
    for (const status of form.statuses.filter((s: { initial: boolean }) => !s.initial)) {
      expect((await boris.client.post(`/api/tasks/${closed.id}/transition`, { statusId: status.id })).status).toBe(200);
    }
    const substituteInbox = await boris.client.get('/api/home/inbox?reason=delegation');
    expect(substituteInbox.body.items.map((item: { task: { id: string } }) => item.task.id)).toContain(task.id);
    expect((await boris.client.post(`/api/tasks/${task.id}/delegation/ack`)).status).toBe(409);
    const reviews = async () =>
      (await anna.client.get('/api/home/inbox?reason=delegation_review')).body.items
        .map((item: { task: { id: string } }) => item.task.id)
        .sort();
    // Still away: nothing to review yet.
    expect(await reviews()).toEqual([]);
    // Back early: the delegation is cut short, and both tasks are there to review.
    const back = await anna.client.patch(`/api/delegations/${delegation.id}`, { to: new Date().toISOString() });
    expect(back.status).toBe(200);
    expect(await reviews()).toEqual([task.id, closed.id].sort());
    const acked = await anna.client.post(`/api/tasks/${task.id}/delegation/ack`);
    expect(acked.status).toBe(200);
    expect(acked.body.assignees).toContainEqual(
      expect.objectContaining({ userId: anna.userId, pending_review: false }),
    );
    expect(await reviews()).toEqual([closed.id]);
    // Deleting the delegation leaves the substitute on the task.
    await anna.client.delete(`/api/delegations/${delegation.id}`);
    expect((await assignees(task.id)).map((a: { userId: string }) => a.userId)).toContain(boris.userId);
  });

  it('takes an acknowledgement made offline from the user’s replica, and nobody else’s flag from theirs', async () => {
    const [anna, boris] = await people(2);
    const delegation = await away(anna, boris);
    const task = await createTask(admin, form.id);
    await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: anna.userId });
    await anna.client.patch(`/api/delegations/${delegation.id}`, { to: new Date().toISOString() });
    type Assignee = { userId: string; pending_review: boolean };
    const acknowledged = (doc: SyncDocument, userId: string) => ({
      ...doc,
      assignees: (doc.assignees as Assignee[]).map((a) => (a.userId === userId ? { ...a, pending_review: false } : a)),
    });
    const pulledBy = async (member: Member) => {
      const client = await replica(member);
      const pulled = await client.pullUntil('tasks', (docs) => docs.some((doc) => doc.id === task.id));
      return { client, base: pulled.documents.findLast((doc) => doc.id === task.id) as SyncDocument };
    };
    // Boris's replica cannot clear Anna's review.
    const his = await pulledBy(boris);
    await his.client.push('tasks', [
      { assumedMasterState: his.base, newDocumentState: acknowledged(his.base, anna.userId) as SyncDocument },
    ]);
    expect((await assignees(task.id)).find((a: { userId: string }) => a.userId === anna.userId).review).toBe(true);
    const hers = await pulledBy(anna);
    const pushed = await hers.client.push('tasks', [
      { assumedMasterState: hers.base, newDocumentState: acknowledged(hers.base, anna.userId) as SyncDocument },
    ]);
    expect(pushed.ok).toBe(true);
    expect((await assignees(task.id)).find((a: { userId: string }) => a.userId === anna.userId).review).toBe(false);
    expect((await anna.client.get('/api/home/inbox?reason=delegation_review')).body.items).toEqual([]);
  });

  it('puts the review in the inbox by itself when the period ends', async () => {
    const [anna, boris] = await people(2);
    const endsIn = 1_500;
    await anna.client.post('/api/delegations', {
      userId: anna.userId,
      substituteUserId: boris.userId,
      formId: null,
      from: new Date(now() - hour).toISOString(),
      to: new Date(now() + endsIn).toISOString(),
    });
    const task = await createTask(admin, form.id);
    await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: anna.userId });
    const inbox = async () =>
      (await anna.client.get('/api/home/inbox')).body.items
        .filter((item: { task: { id: string } }) => item.task.id === task.id)
        .map((item: { reason: string }) => item.reason);
    expect(await inbox()).toEqual(['assigned']);
    await new Promise((resolve) => setTimeout(resolve, endsIn + 100));
    expect(await inbox()).toEqual(['delegation_review']);
  });

  it('removes expired delegations, their substitutes staying on tasks', async () => {
    const [anna, boris] = await people(2);
    await away(anna, boris);
    const task = await createTask(admin, form.id);
    await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: anna.userId });
    expect(
      await removeExpired({ db: t.database.db, events: t.app.events }, new Date(now() + 48 * hour)),
    ).toBeGreaterThan(0);
    expect((await anna.client.get('/api/delegations')).body.items).toEqual([]);
    expect((await assignees(task.id)).map((a: { userId: string }) => a.userId)).toContain(boris.userId);
    const later = await createTask(admin, form.id);
    await admin.client.post(`/api/tasks/${later.id}/assignees`, { userId: anna.userId });
    expect(await assignees(later.id)).toEqual([{ userId: anna.userId, for: null, review: false }]);
  });
});

describe('delegations: applied to the open tasks in bulk', () => {
  async function assignedTo(who: Member) {
    const task = await createTask(admin, form.id);
    expect((await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: who.userId })).status).toBe(200);
    return task.id as string;
  }
  const final = () => form.statuses.find((s: { final: boolean }) => s.final).id as string;
  const working = () => form.statuses.find((s: { initial: boolean; final: boolean }) => !s.initial && !s.final).id;
  const delegationRows = async (taskId: string) =>
    (await admin.client.get(`/api/tasks/${taskId}/audit`)).body.items.filter(
      (entry: { action: string; details: { source?: string } }) =>
        entry.action === 'assignee_added' && entry.details.source === 'delegation',
    );

  it('adds the substitute to the absent user’s open tasks once the delegation is named, showing applied/total', async () => {
    const [anna, boris] = await people(2);
    const open = [await assignedTo(anna), await assignedTo(anna), await assignedTo(anna)];
    const closed = await assignedTo(anna);
    for (const statusId of [working(), final()]) {
      expect((await admin.client.post(`/api/tasks/${closed}/transition`, { statusId })).status).toBe(200);
    }
    const deleted = await assignedTo(anna);
    expect((await admin.client.delete(`/api/tasks/${deleted}`)).status).toBe(204);
    const someoneElses = await assignedTo(boris);

    const delegation = await away(anna, boris);
    expect(delegation.application).toMatchObject({ state: 'scheduled', applied: 0 });
    await jobsDone(t);
    const shown = await anna.client.get(`/api/delegations/${delegation.id}`);
    expect(shown.body.application).toEqual({ state: 'done', applied: 3, total: 3 });
    for (const id of open) {
      expect(await assignees(id)).toEqual(
        expect.arrayContaining([
          { userId: anna.userId, for: null, review: true },
          { userId: boris.userId, for: anna.userId, review: false },
        ]),
      );
      expect(await delegationRows(id)).toHaveLength(1);
    }
    for (const id of [closed, someoneElses]) {
      expect((await assignees(id)).filter((a: { for: string | null }) => a.for !== null)).toEqual([]);
    }
    expect((await admin.client.get(`/api/tasks/${deleted}`)).status).toBe(404);
  });

  it('waits for a delegation’s start, then applies it; a later change of the substitute applies the new one', async () => {
    const [anna, boris, carl] = await people(3);
    const task = await assignedTo(anna);
    const startsIn = 1_500;
    const created = await anna.client.post('/api/delegations', {
      userId: anna.userId,
      substituteUserId: boris.userId,
      formId: null,
      from: new Date(now() + startsIn).toISOString(),
      to: new Date(now() + 24 * hour).toISOString(),
    });
    expect(created.status).toBe(201);
    await jobsDone(t);
    expect(await assignees(task)).toEqual([{ userId: anna.userId, for: null, review: false }]);
    expect((await anna.client.get(`/api/delegations/${created.body.id}`)).body.application.state).toBe('scheduled');

    await new Promise((resolve) => setTimeout(resolve, startsIn + 100));
    await t.app.jobs.runDue();
    expect((await assignees(task)).find((a: { for: string | null }) => a.for === anna.userId)?.userId).toBe(
      boris.userId,
    );
    const changed = await anna.client.patch(`/api/delegations/${created.body.id}`, { substituteUserId: carl.userId });
    // Applied again from the start; the app's own job runner may already be done with it when it answers.
    expect(changed.status).toBe(200);
    expect(['scheduled', 'running', 'done']).toContain(changed.body.application.state);
    await jobsDone(t);
    expect((await anna.client.get(`/api/delegations/${created.body.id}`)).body.application).toEqual({
      state: 'done',
      applied: 1,
      total: 1,
    });
    expect((await assignees(task)).map((a: { userId: string }) => a.userId).sort()).toEqual(
      [anna.userId, boris.userId, carl.userId].sort(),
    );
  });
});
