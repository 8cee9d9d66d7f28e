import type { SyncDocument } from '@shared/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createForm, createMember, createOrg, createTask, type Member } from '../../../../test/helpers/factories';
import { connectSync } from '../../../../test/helpers/sync-client';

let t: TestApp;
let admin: Member;
beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
});
afterAll(() => t.close());

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely in tests.
async function ok(response: Promise<{ status: number; body: any }>, status = 201) {
  const answer = await response;
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return answer.body;
}

describe('presenting a page of tasks', () => {
  it('gives every task of a list or a pull the labels and assignees it gets alone', async () => {
    const bob = await createMember(t, admin, { name: 'Bob' });
    const places = await ok(
      admin.client.post('/api/directories', {
        name: 'Places',
        columns: [{ name: 'Name' }, { name: 'Code' }],
        tree_display_column_index: 1,
      }),
    );
    const kinds = await ok(admin.client.post('/api/directories', { name: 'Kinds', columns: [{ name: 'Kind' }] }));
    const row = (directoryId: string, cells: string[]) =>
      ok(admin.client.post(`/api/directories/${directoryId}/rows`, { cells, parentId: null }));
    const [moscow, tula, kazan] = [
      await row(places.id, ['Moscow', 'MSK']),
      await row(places.id, ['Tula', 'TUL']),
      await row(places.id, ['Kazan', 'KZN']),
    ];
    const [repair, survey] = [await row(kinds.id, ['Repair']), await row(kinds.id, ['Survey'])];
    // One directory read through two display columns, another directory, in two forms.
    const first = await createForm(admin, {
      fields: [
        { name: 'Places', type: 'table', directoryId: places.id, displayColumn: 'Name', allow_multiple: true },
        { name: 'Place code', type: 'table', directoryId: places.id },
        { name: 'Note', type: 'text' },
      ],
    });
    const second = await createForm(admin, {
      fields: [
        { name: 'Kind', type: 'table', directoryId: kinds.id },
        { name: 'Where', type: 'table', directoryId: places.id, displayColumn: 'Name' },
      ],
    });
    const [byName, byCode, note] = first.fields.map((f: { id: string }) => f.id);
    const [kind, where] = second.fields.map((f: { id: string }) => f.id);
    const tasks = [
      await createTask(admin, first.id, { fields: { [byName]: [moscow.id, kazan.id], [byCode]: tula.id } }),
      await createTask(admin, first.id, { fields: { [byName]: [tula.id], [note]: 'no rows here' } }),
      await createTask(admin, first.id, { fields: { [note]: 'nothing chosen' } }),
      await createTask(admin, second.id, { fields: { [kind]: survey.id, [where]: moscow.id } }),
      await createTask(admin, second.id, { fields: { [kind]: repair.id } }),
    ];
    await ok(admin.client.post(`/api/tasks/${tasks[1].id}/assignees`, { userId: bob.userId }), 200);
    await ok(admin.client.post(`/api/tasks/${tasks[3].id}/assignees`, { userId: bob.userId }), 200);
    await ok(admin.client.post(`/api/tasks/${tasks[3].id}/assignees`, { userId: admin.userId }), 200);
    await ok(admin.client.delete(`/api/directories/${places.id}/rows/${kazan.id}`), 204);

    const alone = new Map<string, unknown>();
    for (const task of tasks) alone.set(task.id, await ok(admin.client.get(`/api/tasks/${task.id}`), 200));
    expect((alone.get(tasks[0].id) as { labels: unknown }).labels).toEqual({
      [byName]: [
        { id: moscow.id, label: 'Moscow', deleted: false },
        { id: kazan.id, label: 'Kazan', deleted: true },
      ],
      [byCode]: [{ id: tula.id, label: 'TUL', deleted: false }],
    });
    expect((alone.get(tasks[2].id) as { labels: unknown }).labels).toEqual({});
    expect((alone.get(tasks[3].id) as { assignees: { userId: string }[] }).assignees.map((a) => a.userId)).toEqual([
      bob.userId,
      admin.userId,
    ]);

    for (const form of [first, second]) {
      const list = await ok(admin.client.get(`/api/tasks?formId=${form.id}&limit=200`), 200);
      for (const item of list.items) expect(item).toEqual(alone.get(item.id));
    }

    const replica = await connectSync(t, admin.client.accessToken as string);
    try {
      const wanted = tasks.map((task) => task.id);
      const pulled = await replica.pullUntil('tasks', (docs) => wanted.every((id) => docs.some((d) => d.id === id)));
      const latest = new Map<string, SyncDocument>(pulled.documents.map((doc) => [doc.id, doc]));
      for (const id of wanted) expect(latest.get(id)).toEqual({ ...(alone.get(id) as object), _deleted: false });
    } finally {
      replica.close();
    }
  });
});
