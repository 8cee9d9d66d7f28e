import type { SyncCheckpoint, SyncDocument } from '@shared/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createForm, createMember, createOrg, createTask, type Member } from '../../../../test/helpers/factories';
import { type SyncClient, syncClients } from '../../../../test/helpers/sync-client';

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
      .poll(() => client.streamed.some((m) => m.documents.some((d) => d.title === 'Edited on the server')))
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
    const next = await client.pull('tasks', checkpoint, 2);
    expect(next.ok && next.data.documents).toEqual([
      { id: ids[2], _deleted: true },
      { id: ids[3], _deleted: true },
    ]);
  });
});
