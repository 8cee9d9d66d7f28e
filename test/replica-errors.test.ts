import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { emitterPort } from '@shared/message-port';
import i18next from 'i18next';
import { createRxDatabase, type RxStorage } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { exposeRxStorageRemote, type MessageToRemote } from 'rxdb/plugins/storage-remote';
import { Subject } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRxStorageMemoryMapped } from '../electron/backend/rx-storage-memory-mapped';
import { getRxStorageBetterSqlite } from '../electron/backend/rx-storage-sqlite';
import { NOTE_SCHEMA } from '../electron/backend/storage-documents.fixture';
import { ApiError } from '../renderer/src/api';
import { Replica } from '../renderer/src/data/replica';
import { RecordGoneError, replicaFailureText } from '../renderer/src/data/replica-errors';
import { remoteReplicaStorage } from '../renderer/src/data/storage';
import { en } from '../renderer/src/i18n/en';
import { ru } from '../renderer/src/i18n/ru';
import { saveFailureText } from '../renderer/src/use-api';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'orbita-replica-errors-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Our SQLite storage on a disk that fills up: while `full`, every write throws SQLite's error. */
function fillingDisk() {
  const sqlite = getRxStorageBetterSqlite({ databaseDirectory: dir, indexes: false }) as RxStorage<unknown, unknown>;
  const disk = {
    full: false,
    storage: {
      ...sqlite,
      async createStorageInstance(params) {
        const instance = await sqlite.createStorageInstance(params);
        const bulkWrite = instance.bulkWrite.bind(instance);
        instance.bulkWrite = async (rows, context) => {
          if (disk.full) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
          return bulkWrite(rows, context);
        };
        return instance;
      },
    } as RxStorage<unknown, unknown>,
  };
  return disk;
}

describe('a failed write to the desktop replica, as the page shows it', () => {
  it('says the disk is full and what to do, in the interface language, without the request dump', async () => {
    // The replica process's storage on a disk that fills up, served over a port as in the app.
    const disk = fillingDisk();
    const channel = new MessageChannel();
    const replicaEnd = emitterPort(channel.port2);
    const messages$ = new Subject<MessageToRemote>();
    replicaEnd.onMessage((data) => messages$.next(data as MessageToRemote));
    exposeRxStorageRemote({
      storage: getRxStorageMemoryMapped({ storage: disk.storage }),
      messages$,
      send: (message) => replicaEnd.postMessage(message),
    });
    const db = await createRxDatabase({
      name: 'filling',
      storage: remoteReplicaStorage(emitterPort(channel.port1)),
      multiInstance: false,
    });
    try {
      const { notes } = await db.addCollections({ notes: { schema: NOTE_SCHEMA } });
      disk.full = true;
      await notes.insert({ id: 'n1', text: 'answered from memory, then not saved' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const caught = await notes.insert({ id: 'n2', text: 'refused' }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(String(caught)).toContain('could not requestRemote');

      const english = i18next.createInstance();
      await english.init({ resources: { en: { translation: en } }, lng: 'en', interpolation: { escapeValue: false } });
      expect(replicaFailureText(caught, english.t)).toBe(
        'The change could not be saved on this device: its disk is full or cannot be written. Free some disk space and try again; earlier changes are kept and saved then.',
      );
      const russian = i18next.createInstance();
      await russian.init({ resources: { ru: { translation: ru } }, lng: 'ru', interpolation: { escapeValue: false } });
      expect(replicaFailureText(caught, russian.t)).toMatch(
        /^Изменение не удалось сохранить на этом устройстве: диск заполнен/,
      );

      // Any other failure gives the replica's own reason, one line, not RxDB's request.
      const other = new Error(
        `could not requestRemote: ${JSON.stringify({ methodName: 'bulkWrite', params: [{ big: 'x'.repeat(500) }], error: { message: 'schema mismatch\nat line 2' } }, null, 4)}`,
      );
      expect(replicaFailureText(other, english.t)).toBe(
        'The change could not be saved on this device: schema mismatch',
      );
      disk.full = false;
    } finally {
      await db.close().catch(() => undefined);
      channel.port1.close();
    }
  });

  it('tells why a save failed, whether the server, the network or this device refused it', async () => {
    const english = i18next.createInstance();
    await english.init({ resources: { en: { translation: en } }, lng: 'en', interpolation: { escapeValue: false } });
    const russian = i18next.createInstance();
    await russian.init({ resources: { ru: { translation: ru } }, lng: 'ru', interpolation: { escapeValue: false } });
    const refused = new ApiError({
      type: 'about:blank',
      title: 'Forbidden',
      status: 403,
      detail: 'Not yours to edit.',
      code: 'forbidden',
    });
    expect(saveFailureText(refused, english.t)).toContain('Not yours to edit.');
    const unreachable = new ApiError({
      type: 'about:blank',
      title: 'Unreachable',
      status: 0,
      detail: '',
      code: 'unreachable',
    });
    expect(saveFailureText(unreachable, english.t)).toBe(en.errors.network);
    // Saved on the device instead, and refused there: not blamed on the network.
    expect(saveFailureText(new RecordGoneError('r1'), english.t)).toBe(en.errors.recordGone);
    expect(saveFailureText(new RecordGoneError('r1'), russian.t)).toBe(ru.errors.recordGone);
    expect(saveFailureText(new Error('could not save its changes to disk'), english.t)).toBe(en.errors.replicaDisk);
  });

  it('does not count a refused change as waiting to be sent', async () => {
    const disk = fillingDisk();
    const replica = await Replica.open({
      userId: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a70',
      // Nothing listens there: the changes stay on the device.
      serverUrl: 'http://127.0.0.1:9',
      storage: getRxStorageMemoryMapped({ storage: disk.storage }),
      accessToken: () => undefined,
      reauthenticate: async () => undefined,
    });
    try {
      const task = { formId: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a71', statusId: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a72' };
      disk.full = true;
      await replica.createTask({ ...task, id: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a73', title: 'Kept in memory' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      await expect(
        replica.createTask({ ...task, id: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a74', title: 'Refused' }),
      ).rejects.toThrow(/could not save its changes to disk/);
      expect(replica.status$.value.pending).toBe(1);
      // Once the disk takes writes again, the next change goes through with the kept one.
      disk.full = false;
      await replica.changeTask('0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a73', { title: 'Kept, then edited' });
      expect(replica.status$.value.pending).toBe(1);
    } finally {
      await replica.close().catch(() => undefined);
    }
  });

  it('counts a row deletion refused halfway by what it wrote: the moves made wait to be sent, the rest does not', async () => {
    // A storage that, once `refusing`, refuses any write of one document (a disk failing mid-way).
    let refusing = false;
    const memory = getRxStorageMemory() as RxStorage<unknown, unknown>;
    const refused = '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a93';
    const storage = {
      ...memory,
      async createStorageInstance(params) {
        const instance = await memory.createStorageInstance(params);
        const bulkWrite = instance.bulkWrite.bind(instance);
        instance.bulkWrite = async (rows, context) => {
          if (refusing && rows.some((row) => (row.document as { id?: string }).id === refused))
            throw new Error('disk I/O error');
          return bulkWrite(rows, context);
        };
        return instance;
      },
    } as RxStorage<unknown, unknown>;
    const replica = await Replica.open({
      userId: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a80',
      serverUrl: 'http://127.0.0.1:9',
      storage,
      accessToken: () => undefined,
      reauthenticate: async () => undefined,
    });
    try {
      // Rows as the server sent them: nothing waits to be sent.
      const row = (id: string, parentId: string | null, position: number) => ({
        id,
        directoryId: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a81',
        parentId,
        position,
        cells: [id.slice(-2)],
        parentRowIds: [],
        updatedAt: '2026-11-01T00:00:00.000Z',
      });
      const parent = '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a90';
      const moved = '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a91';
      await replica.db.directory_rows.bulkInsert([
        row(parent, null, 1),
        row(moved, parent, 1),
        row(refused, parent, 2),
        row('0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a94', parent, 3),
      ]);
      expect(replica.status$.value.pending).toBe(0);

      refusing = true;
      await expect(replica.removeRow(parent)).rejects.toThrow(/disk I\/O error/);
      // The first child moved up and waits to be sent; the refused one, the one after it and the
      // row itself are as they were, and not counted.
      expect(replica.status$.value.pending).toBe(1);
      const rows = await replica.db.directory_rows.find().exec();
      expect(Object.fromEntries(rows.map((doc) => [doc.id, doc.parentId]))).toEqual({
        [parent]: null,
        [moved]: null,
        [refused]: parent,
        '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a94': parent,
      });
    } finally {
      await replica.close().catch(() => undefined);
    }
  });
});
