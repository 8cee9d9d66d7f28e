import type { Row } from '@shared/api/directories';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changedRow } from '../renderer/src/data/replica';
import { RecordGoneError } from '../renderer/src/data/replica-errors';
import { startTestApp, type TestApp } from './helpers/app';
import { createOrg, type Member } from './helpers/factories';
import { memberReplica } from './helpers/replica';

let t: TestApp;
let admin: Member;
const WAIT = { timeout: 15_000, interval: 50 };

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
});
afterAll(async () => {
  await t.close();
});

/** The admin's replica, opened with the network down; `online()` brings the network back. */
const offlineReplica = () => memberReplica(t, admin, { onLine: false });

describe('rows the screen had from the server before they reached the replica', () => {
  it('are taken in when edited, moved or deleted offline, and the changes reach the server', async () => {
    const directory = (
      await admin.client.post('/api/directories', { name: 'Quays', columns: [{ name: 'Name' }, { name: 'Depth' }] })
    ).body as { id: string };
    const make = async (cells: string[]) =>
      (await admin.client.post(`/api/directories/${directory.id}/rows`, { cells })).body as Row;
    const anchor = await make(['Anchor quay', '9']);
    const edited = await make(['Late edit', '4']);
    const deleted = await make(['Late delete', '5']);
    const moved = await make(['Late move', '6']);
    const changedThere = await make(['Changed there', '7']);
    const shown = (row: Row) => ({ ...row, directoryId: directory.id });
    // Changed on the server after the screen read it: the offline edit below is made on an old copy.
    await admin.client.patch(`/api/directories/${directory.id}/rows/${changedThere.id}`, {
      cells: ['Changed there', '8'],
    });

    // The replica has none of them: its pull was behind what the screen showed when the network went.
    const { replica, online } = await offlineReplica();
    try {
      expect(await replica.db.directory_rows.count().exec()).toBe(0);
      await replica.changeRow(edited.id, { cells: { '1': '4.5' } }, shown(edited));
      await replica.removeRow(deleted.id, shown(deleted));
      await replica.changeRow(moved.id, { parentId: anchor.id, position: 0 }, shown(moved));
      await replica.changeRow(changedThere.id, { cells: { '1': '7.5' } }, shown(changedThere));
      expect(replica.status$.value.pending).toBe(4);
      // Read offline, the directory has what the replica holds and the rows shown that it has not
      // received (the anchor), but not the row deleted here.
      const listed = await replica.directoryRows(
        directory.id,
        [anchor, edited, deleted, moved, changedThere].map(shown),
      );
      expect(Object.fromEntries(listed.map((row) => [row.cells[0], row.cells[1]]))).toEqual({
        'Anchor quay': '9',
        'Late edit': '4.5',
        'Late move': '6',
        'Changed there': '7.5',
      });
      // A row the screen did not have either is still refused.
      await expect(replica.changeRow(anchor.id, { cells: { '1': '10' } })).rejects.toThrow(/not in the replica/);

      online();
      const serverRows = async () =>
        new Map(
          ((await admin.client.get(`/api/directories/${directory.id}/rows?limit=100`)).body.items as Row[]).map(
            (row) => [row.cells[0], row],
          ),
        );
      await expect
        .poll(async () => [...(await serverRows()).keys()].sort(), WAIT)
        .toEqual(['Anchor quay', 'Changed there', 'Late edit', 'Late move']);
      await expect.poll(() => replica.status$.value.pending, WAIT).toBe(0);
      const rows = await serverRows();
      expect(rows.get('Late edit')?.cells).toEqual(['Late edit', '4.5']);
      expect(rows.get('Late move')?.parentId).toBe(anchor.id);
      // The server's change meanwhile stands, and the edit that lost to it is reported, not dropped.
      expect(rows.get('Changed there')?.cells).toEqual(['Changed there', '8']);
      expect(replica.lost$.value).toEqual([
        expect.objectContaining({ id: changedThere.id, path: 'cells.1', attempted: '7.5', kept: '8' }),
      ]);
      // The replica lands on the server's state of each.
      await expect
        .poll(async () => (await replica.db.directory_rows.findOne(changedThere.id).exec())?.cells, WAIT)
        .toEqual(['Changed there', '8']);
      expect(await replica.db.directory_rows.findOne(deleted.id).exec()).toBeNull();
    } finally {
      await replica.close();
    }
  });
});

describe('a row deleted on the server as it is edited on this device', () => {
  it('takes no edit onto the deletion: the save is refused as the record gone', async () => {
    const directory = (await admin.client.post('/api/directories', { name: 'Berths', columns: [{ name: 'Name' }] }))
      .body as { id: string };
    const row = (await admin.client.post(`/api/directories/${directory.id}/rows`, { cells: ['North'] })).body as Row;
    const { replica, online } = await offlineReplica();
    try {
      online();
      await expect.poll(async () => (await replica.db.directory_rows.findOne(row.id).exec()) !== null, WAIT).toBe(true);
      // The row editor holds the row; the office deletes it, and the deletion is pulled first.
      const held = await replica.db.directory_rows.findOne(row.id).exec(true);
      await admin.client.delete(`/api/directories/${directory.id}/rows/${row.id}`);
      await expect.poll(async () => (await replica.db.directory_rows.findOne(row.id).exec()) === null, WAIT).toBe(true);
      const saving = held.incrementalModify((current: unknown) =>
        changedRow(current as never, { cells: { '0': 'Too late' } }),
      );
      await expect(saving).rejects.toBeInstanceOf(RecordGoneError);
      const [tombstone] = await replica.db.directory_rows.storageInstance.findDocumentsById([row.id], true);
      expect((tombstone as { cells?: unknown } | undefined)?.cells).not.toEqual(['Too late']);
    } finally {
      await replica.close();
    }
  });
});
