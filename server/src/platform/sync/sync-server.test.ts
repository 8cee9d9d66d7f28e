import type { SyncCheckpoint, SyncDocument } from '@shared/sync';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { testEngine } from '../../../../test/helpers/database';
import { createForm, createMember, createOrg, createTask, type Member } from '../../../../test/helpers/factories';
import { type SyncClient, syncClients } from '../../../../test/helpers/sync-client';
import { formsSyncSource } from '../../modules/forms/forms.sync';
import * as identityRepo from '../../modules/identity/identity.repo';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ config: { syncPollMs: 50 } });
});
afterAll(async () => {
  await t.close();
});

const replica = syncClients(() => t);

/** Four tasks of a form, pulled in full once (a short page: nothing is read ahead). */
async function fourTasks(member: Member, form: { id: string }, client: SyncClient) {
  const tasks = [];
  for (let i = 1; i <= 4; i++) tasks.push(await createTask(member, form.id, { title: `Task ${i}` }));
  const ids = tasks.map((task: { id: string }) => task.id);
  const all = await client.pullUntil('tasks', (docs) => ids.every((id) => docs.some((d) => d.id === id)));
  return { ids, all };
}

/** The first page of two (full, so the server reads the next one ahead). */
async function firstPage(client: SyncClient): Promise<SyncCheckpoint> {
  const page = await client.pull('tasks', null, 2);
  if (!page.ok) throw new Error(JSON.stringify(page.problem));
  expect(page.data.documents).toHaveLength(2);
  return page.data.checkpoint as SyncCheckpoint;
}

describe('pages read ahead', () => {
  it('never answer a pull after a push with a state read before it', async () => {
    const admin = await createOrg(t);
    const client = await replica(admin);
    const { ids, all } = await fourTasks(admin, await createForm(admin), client);
    const third = all.documents.find((doc) => doc.id === ids[2]) as SyncDocument;
    const checkpoint = await firstPage(client);
    const pushed = await client.push('tasks', [
      { assumedMasterState: third, newDocumentState: { ...third, title: 'Edited offline' } },
    ]);
    expect(pushed).toEqual({ ok: true, data: { conflicts: [], lost: [] } });
    const rest = await client.pullUntil(
      'tasks',
      (docs) => docs.some((doc) => doc.id === ids[2] && doc.title === 'Edited offline'),
      checkpoint,
      2,
    );
    expect(rest.documents.filter((doc) => doc.id === ids[2]).map((doc) => doc.title)).toEqual(['Edited offline']);
    expect(rest.documents.map((doc) => doc.id)).toContain(ids[3]);
  });

  it('are not answered after a stream message that carried newer states', async () => {
    const admin = await createOrg(t);
    const client = await replica(admin);
    const { ids } = await fourTasks(admin, await createForm(admin), client);
    const checkpoint = await firstPage(client);
    const edited = await admin.client.patch(`/api/tasks/${ids[2]}`, { title: 'Edited on the server' });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    await expect
      .poll(() => client.streamed.some((m) => m.documents.some((d) => d.title === 'Edited on the server')), {
        timeout: 10_000,
      })
      .toBe(true);
    const next = await client.pull('tasks', checkpoint, 2);
    expect(next.ok).toBe(true);
    const titles = next.ok ? next.data.documents.filter((doc) => doc.id === ids[2]).map((doc) => doc.title) : [];
    expect(titles).not.toContain('Task 3');
  });

  it('are not answered to a caller whose view changed meanwhile', async () => {
    const admin = await createOrg(t);
    const role = (await admin.client.post('/api/roles', { name: 'Crew', memberIds: [] })).body;
    const alice = await createMember(t, admin, { name: 'Alice', roleIds: [role.id] });
    const form = await createForm(admin, { visibleRoleIds: [role.id] });
    const client = await replica(alice);
    const { ids } = await fourTasks(admin, form, client);
    const checkpoint = await firstPage(client);
    const changed = await admin.client.patch(`/api/users/${alice.userId}`, { roleIds: [] });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    // The page read ahead held the next two tasks live; every task now arrives as a tombstone
    // (the change of roles sends them all again), and none of them live.
    const rest = await client.pullUntil(
      'tasks',
      (docs) => ids.every((id) => docs.some((doc) => doc.id === id && doc._deleted)),
      checkpoint,
      2,
    );
    expect(rest.documents.filter((doc) => ids.includes(doc.id) && !doc._deleted)).toEqual([]);
  });
});

/**
 * Makes `member` join `roleId` right after their view is next read (as a request or the stream
 * reads it), before anything is read with that view: the commit lands between the two reads.
 */
function joinAfterNextViewRead(admin: Member, member: Member, roleId: string) {
  const findCaller = identityRepo.findCaller;
  let pending = true;
  const spy = vi.spyOn(identityRepo, 'findCaller').mockImplementation(async (...args) => {
    const view = await findCaller(...args);
    if (pending && args[2] === member.userId) {
      pending = false;
      const joined = await admin.client.patch(`/api/users/${member.userId}`, { roleIds: [roleId] });
      expect(joined.status).toBe(200);
    }
    return view;
  });
  return { done: () => !pending, restore: () => spy.mockRestore() };
}

describe('a change of who may see what', () => {
  it('is never decided on the view read just before it committed', async () => {
    const admin = await createOrg(t);
    const role = (await admin.client.post('/api/roles', { name: 'Vault', memberIds: [] })).body;
    const boris = await createMember(t, admin, { name: 'Boris' });
    const form = await createForm(admin, { visibleRoleIds: [role.id] });
    const task = await createTask(admin, form.id, { title: 'Count the vault' });
    const client = await replica(boris);
    const before = await client.pullAll('tasks');
    expect(before.documents.filter((doc) => doc.id === task.id && !doc._deleted)).toEqual([]);

    // Boris's view is read for his next pull; right after, before the pull reads the tasks, he
    // joins the role (a commit that sends the form's tasks again).
    const join = joinAfterNextViewRead(admin, boris, role.id);
    try {
      const next = await client.pull('tasks', before.checkpoint, 100);
      expect(join.done()).toBe(true);
      if (!next.ok) throw new Error(JSON.stringify(next.problem));
      // A transaction still running elsewhere in the cluster can hold the task back from that
      // pull (never lose it): the later pulls read it then. Either way it arrives live, never as
      // a tombstone decided on the view from before the change.
      const rest = await client.pullUntil(
        'tasks',
        (docs) => [...next.data.documents, ...docs].some((doc) => doc.id === task.id),
        next.data.checkpoint,
      );
      expect([...next.data.documents, ...rest.documents].filter((doc) => doc.id === task.id)).toEqual([
        expect.objectContaining({ id: task.id, title: 'Count the vault' }),
      ]);
    } finally {
      join.restore();
    }
  });

  it('is never decided on the view read just before it committed, in the live stream either', async () => {
    const admin = await createOrg(t);
    const role = (await admin.client.post('/api/roles', { name: 'Vault', memberIds: [] })).body;
    const boris = await createMember(t, admin, { name: 'Boris' });
    const open = await createForm(admin);
    const form = await createForm(admin, { visibleRoleIds: [role.id] });
    const task = await createTask(admin, form.id, { title: 'Count the vault' });
    const client = await replica(boris);
    // Pulled to the end: from here on, changes reach Boris through the stream.
    await client.pullAll('tasks');

    // The stream reads Boris's view for the next change (an unrelated task); right after, before
    // it reads the tasks, he joins the role.
    const join = joinAfterNextViewRead(admin, boris, role.id);
    try {
      await createTask(admin, open.id, { title: 'Unrelated' });
      const streamedTask = () =>
        client.streamed.flatMap((message) => message.documents).filter((doc) => doc.id === task.id);
      await expect
        .poll(streamedTask, { timeout: 5_000 })
        .toEqual([expect.objectContaining({ id: task.id, title: 'Count the vault' })]);
      expect(join.done()).toBe(true);
    } finally {
      join.restore();
    }
  });
});

describe('the live stream', () => {
  it('reads every collection of a round from one snapshot: a task never comes a round before its new form', async (context) => {
    if (testEngine() !== 'postgres') context.skip('commits during a stream round: needs a PostgreSQL server');
    const admin = await createOrg(t);
    const form = await createForm(admin);
    const client = await replica(admin);
    // Forms pulled first, then tasks: each stream round reads them in that order.
    await client.pullAll('forms');
    await client.pullAll('tasks');
    // Right after a round has read the forms, a new form and a task on it commit.
    let created: { form: { id: string }; task: { id: string } } | undefined;
    const pull = formsSyncSource.pull;
    const spy = vi.spyOn(formsSyncSource, 'pull').mockImplementation(async (...args) => {
      const result = await pull.apply(formsSyncSource, args);
      if (!created && args[1].userId === admin.userId) {
        created = { form: { id: '' }, task: { id: '' } };
        const late = await createForm(admin, { name: 'Late form' });
        created = { form: late, task: await createTask(admin, late.id, { title: 'On the late form' }) };
      }
      return result;
    });
    try {
      await createTask(admin, form.id, { title: 'Starts a round' });
      const at = (collection: string, id: () => string | undefined) =>
        client.streamed.findIndex((m) => m.collection === collection && m.documents.some((d) => d.id === id()));
      await expect.poll(() => at('tasks', () => created?.task.id), { timeout: 15_000 }).toBeGreaterThanOrEqual(0);
      const formAt = at('forms', () => created?.form.id);
      expect(formAt).toBeGreaterThanOrEqual(0);
      expect(formAt).toBeLessThan(at('tasks', () => created?.task.id));
    } finally {
      spy.mockRestore();
    }
  });
});
