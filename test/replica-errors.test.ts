import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { emitterPort } from '@shared/message-port';
import i18next from 'i18next';
import { createRxDatabase, type RxStorage } from 'rxdb';
import { exposeRxStorageRemote, type MessageToRemote } from 'rxdb/plugins/storage-remote';
import { Subject } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRxStorageMemoryMapped } from '../electron/backend/rx-storage-memory-mapped';
import { getRxStorageBetterSqlite } from '../electron/backend/rx-storage-sqlite';
import { replicaFailureText } from '../renderer/src/data/replica-errors';
import { remoteReplicaStorage } from '../renderer/src/data/storage';
import { en } from '../renderer/src/i18n/en';
import { ru } from '../renderer/src/i18n/ru';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'orbita-replica-errors-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const NOTES = {
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: { id: { type: 'string', maxLength: 40 }, text: { type: 'string' } },
  required: ['id'],
} as const;

describe('a failed write to the desktop replica, as the page shows it', () => {
  it('says the disk is full and what to do, in the interface language, without the request dump', async () => {
    // The replica process's storage on a disk that fills up, served over a port as in the app.
    let diskFull = false;
    const sqlite = getRxStorageBetterSqlite({ databaseDirectory: dir, indexes: false }) as RxStorage<unknown, unknown>;
    const filling: RxStorage<unknown, unknown> = {
      ...sqlite,
      async createStorageInstance(params) {
        const instance = await sqlite.createStorageInstance(params);
        const bulkWrite = instance.bulkWrite.bind(instance);
        instance.bulkWrite = async (rows, context) => {
          if (diskFull) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
          return bulkWrite(rows, context);
        };
        return instance;
      },
    };
    const channel = new MessageChannel();
    const replicaEnd = emitterPort(channel.port2);
    const messages$ = new Subject<MessageToRemote>();
    replicaEnd.onMessage((data) => messages$.next(data as MessageToRemote));
    exposeRxStorageRemote({
      storage: getRxStorageMemoryMapped({ storage: filling }),
      messages$,
      send: (message) => replicaEnd.postMessage(message),
    });
    const db = await createRxDatabase({
      name: 'filling',
      storage: remoteReplicaStorage(emitterPort(channel.port1)),
      multiInstance: false,
    });
    try {
      const { notes } = await db.addCollections({ notes: { schema: NOTES } });
      diskFull = true;
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
      diskFull = false;
    } finally {
      await db.close().catch(() => undefined);
      channel.port1.close();
    }
  });
});
