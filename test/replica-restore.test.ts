import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeBackDeleted } from '../renderer/src/data/replica';
import type { RowDocument, TaskDocument } from '../renderer/src/data/schemas';
import { startTestApp, type TestApp } from './helpers/app';
import { createForm, createOrg, createTask, type Member, rowTreeShape } from './helpers/factories';
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
      expect(await writeBackDeleted(seenDeleted as never, shown)).toBe(false);
      expect(await held()).toMatchObject({ title: 'Deleted by mistake' });
    } finally {
      await replica.close();
    }
  });
});

describe('a directory row’s deletion taken back on the device', () => {
  async function stations() {
    const directory = (
      await admin.client.post('/api/directories', { name: `Stations ${Date.now()}`, columns: [{ name: 'Name' }] })
    ).body as { id: string };
    const post = async (cells: string[], parentId: string | null = null) =>
      (await admin.client.post(`/api/directories/${directory.id}/rows`, { cells, parentId })).body as { id: string };
    const station = await post(['Station']);
    const pump = await post(['Pump'], station.id);
    await post(['Valve'], pump.id);
    await post(['Gauge'], pump.id);
    await post(['Tank'], station.id);
    const tree = () => rowTreeShape(admin, directory.id);
    return { directory, pump, tree };
  }
  const WHOLE = [['Station', [['Pump', ['Valve', 'Gauge']], 'Tank']]];

  it('puts the row and its children back; offline, the server sees nothing at all', async () => {
    const { directory, pump, tree } = await stations();
    const before = (await admin.client.get(`/api/directories/${directory.id}/rows`)).body.items;
    const { replica, online, offline } = await memberReplica(t, admin, { onLine: true });
    try {
      const rows = async () => (await replica.directoryRows(directory.id)) as RowDocument[];
      await vi.waitFor(async () => expect(await rows()).toHaveLength(5), WAIT);
      offline();
      const shown = (await rows()).find((row) => row.id === pump.id) as RowDocument;
      const movedUp = await replica.removeRow(pump.id);
      expect((await rows()).filter((row) => row.parentId === shown.parentId)).toHaveLength(3);
      expect(await replica.restoreRow(shown, movedUp)).toBe(true);
      const children = (await rows()).filter((row) => row.parentId === pump.id).sort((a, b) => a.position - b.position);
      expect(children.map((row) => row.cells[0])).toEqual(['Valve', 'Gauge']);
      expect(await replica.restoreRow(shown, movedUp)).toBe(false);
      online();
      await expect.poll(() => replica.status$.value.pending, WAIT).toBe(0);
      expect(await tree()).toEqual(WHOLE);
      expect((await admin.client.get(`/api/directories/${directory.id}/rows`)).body.items).toEqual(before);
      expect(replica.lost$.value).toEqual([]);
    } finally {
      await replica.close();
    }
  });

  it('brings the row back on the server, children and all, once the deletion had reached it', async () => {
    const { directory, pump, tree } = await stations();
    const { replica } = await memberReplica(t, admin, { onLine: true });
    try {
      const rows = async () => (await replica.directoryRows(directory.id)) as RowDocument[];
      await vi.waitFor(async () => expect(await rows()).toHaveLength(5), WAIT);
      const shown = (await rows()).find((row) => row.id === pump.id) as RowDocument;
      const movedUp = await replica.removeRow(pump.id);
      await vi.waitFor(async () => expect(await tree()).toEqual([['Station', ['Valve', 'Gauge', 'Tank']]]), WAIT);
      // Taken back once the server's own tombstone (no values) has come back: as the screen showed it.
      await vi.waitFor(async () => {
        const [tombstone] = await replica.db.directory_rows.storageInstance.findDocumentsById([pump.id], true);
        expect(tombstone?._deleted && !('cells' in tombstone)).toBe(true);
      }, WAIT);
      expect(await replica.restoreRow(shown, movedUp)).toBe(true);
      await vi.waitFor(async () => expect(await tree()).toEqual(WHOLE), WAIT);
      // The replica settles on the same tree, nothing reported lost.
      await vi.waitFor(async () => {
        const held = await rows();
        expect(held.filter((row) => row.parentId === pump.id)).toHaveLength(2);
        expect(replica.status$.value.pending).toBe(0);
      }, WAIT);
      expect(replica.lost$.value).toEqual([]);
    } finally {
      await replica.close();
    }
  });
});
