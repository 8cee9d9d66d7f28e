import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeBackDeletedTask } from '../renderer/src/data/replica';
import type { TaskDocument } from '../renderer/src/data/schemas';
import { startTestApp, type TestApp } from './helpers/app';
import { createForm, createOrg, createTask, type Member } from './helpers/factories';
import { memberReplica } from './helpers/replica';

let t: TestApp;
let admin: Member;
const WAIT = { timeout: 15_000, interval: 50 };

beforeAll(async () => {
  t = await startTestApp({ config: { syncPollMs: 50 } });
  admin = await createOrg(t);
});
afterAll(async () => {
  await t.close();
});

describe('a deletion taken back on the device', () => {
  it('brings the task back as it was, on the server too once the deletion had reached it', async () => {
    const form = await createForm(admin, { fields: [{ name: 'Note', type: 'text' }] });
    const note = form.fields[0].id as string;
    const task = await createTask(admin, form.id, { title: 'Deleted by mistake', fields: { [note]: 'keep me' } });
    const { replica } = await memberReplica(t, admin, { onLine: true });
    try {
      const held = async () => (await replica.db.tasks.findOne(task.id).exec())?.toJSON() as TaskDocument | undefined;
      await vi.waitFor(async () => expect(await held()).toBeDefined(), WAIT);
      const shown = (await held()) as TaskDocument;
      await replica.removeTask(task.id);
      await vi.waitFor(async () => expect((await admin.client.get(`/api/tasks/${task.id}`)).status).toBe(404), WAIT);
      // The deletion comes back from the server as its own tombstone, which carries no values.
      const stored = async () => (await replica.db.tasks.storageInstance.findDocumentsById([task.id], true))[0];
      await vi.waitFor(async () => {
        const tombstone = await stored();
        expect(tombstone?._deleted && !('title' in tombstone)).toBe(true);
      }, WAIT);

      // Taken back with the task as the page showed it.
      expect(await replica.restoreTask(shown)).toBe(true);
      expect(await held()).toMatchObject({ title: 'Deleted by mistake', fields: { [note]: 'keep me' } });
      await vi.waitFor(async () => expect((await admin.client.get(`/api/tasks/${task.id}`)).status).toBe(200), WAIT);
      const restored = (await admin.client.get(`/api/tasks/${task.id}`)).body;
      expect(restored).toMatchObject({ title: 'Deleted by mistake', fields: { [note]: 'keep me' } });
      expect(replica.lost$.value).toEqual([]);
      // Nothing left to take back.
      expect(await replica.restoreTask(shown)).toBe(false);
      // Nor when the task comes back between the look at the tombstone and the write (the server's
      // answer to the deletion kept it): the look is answered from before, the write meets the task.
      const [live] = await replica.db.tasks.storageInstance.findDocumentsById([task.id], false);
      const seenDeleted = {
        storageInstance: { findDocumentsById: async () => [{ ...live, _deleted: true }] },
        insert: (document: TaskDocument) => replica.db.tasks.insert(document),
      };
      expect(await writeBackDeletedTask(seenDeleted as never, shown)).toBe(false);
      expect(await held()).toMatchObject({ title: 'Deleted by mistake' });
    } finally {
      await replica.close();
    }
  });
});
