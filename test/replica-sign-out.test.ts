import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { emitterPort } from '@shared/message-port';
import i18next from 'i18next';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostReplicaStorage } from '../electron/backend/replica-host';
import { followReplicaPorts } from '../renderer/src/data/desktop-replica';
import { copiesHeld, noteCopy, Replica } from '../renderer/src/data/replica';
import { copyRemovalReason, ReplicaInUseError } from '../renderer/src/data/replica-errors';
import { discardDesktopCopy } from '../renderer/src/data/storage';
import { en } from '../renderer/src/i18n/en';
import { ru } from '../renderer/src/i18n/ru';
import { deadPort } from './helpers/network';
import { copyHeldElsewhere } from './helpers/replica';

const WAIT = { timeout: 15_000, interval: 20 };
const LEAVING = '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4b01';
const STAYING = '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4b02';
const TASK = {
  formId: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4b61',
  statusId: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4b62',
};

let dir: string;
let serverUrl: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'orbita-replica-sign-out-'));
  // A server nothing listens on: what each replica holds was written on this device.
  serverUrl = `http://127.0.0.1:${await deadPort()}`;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The replica files of a user in the replica process's directory. */
function filesOf(userId: string): string[] {
  return readdirSync(dir).filter((name) => name.includes(userId.slice(-12)));
}

/**
 * A page of the desktop app signed in as `userId`, on a port of its own to the replica host serving
 * `dir` (as each window of the app gets one); what the page remembers is kept in `memory`.
 */
async function signedIn(userId: string, memory: Map<string, string>, host: { discardWaitMs?: number } = {}) {
  const channel = new MessageChannel();
  hostReplicaStorage(emitterPort(channel.port2), { databaseDirectory: dir, ...host });
  const opened: Replica[] = [];
  const following = followReplicaPorts({
    firstPort: async () => emitterPort(channel.port1),
    onReplaced: () => () => undefined,
    open: (storage) =>
      Replica.open({
        userId,
        serverUrl,
        storage,
        accessToken: () => undefined,
        reauthenticate: async () => undefined,
        memory: {
          get: (key) => memory.get(key) ?? null,
          set: (key, value) => void memory.set(key, value),
          remove: (key) => void memory.delete(key),
        },
      }),
    opened: (replica) => opened.push(replica),
    closing: () => undefined,
    failed: (error) => {
      throw error;
    },
    discard: (port) => discardDesktopCopy(port, Replica.databaseName(userId)),
  });
  await expect.poll(() => opened.length, WAIT).toBe(1);
  return { replica: opened[0] as Replica, stop: following.stop };
}

describe('signing out of the desktop app', () => {
  it("removes this device's copy when asked, changes not yet sent with it, and leaves other users' copies", async () => {
    const memory = new Map<string, string>();
    const pageMemory = { get: (key: string) => memory.get(key) ?? null, set: memory.set.bind(memory) };
    // One copy open at a time, as one app holds one signed-in user's (RxDB's free tier opens few
    // collections per process).
    const staying = await signedIn(STAYING, memory);
    noteCopy(pageMemory, STAYING, 'staying@example.org');
    await staying.replica.createTask({ id: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4b20', ...TASK, title: 'Boiler room' });
    await staying.stop();
    const leaving = await signedIn(LEAVING, memory);
    noteCopy(pageMemory, LEAVING, 'leaving@example.org');
    await leaving.replica.createTask({ id: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4b10', ...TASK, title: 'Pump room' });
    // Offline: each write waits to be sent, remembered beside the replica.
    expect(leaving.replica.status$.value.pending).toBe(1);
    await expect.poll(() => filesOf(LEAVING).some((name) => name.endsWith('.sqlite')), WAIT).toBe(true);
    expect([...memory.keys()].filter((key) => key.includes(LEAVING))).not.toEqual([]);

    await leaving.stop({ remove: true });

    // Nothing of the user who left stays on the disk or in the page's memory.
    expect(filesOf(LEAVING)).toEqual([]);
    expect([...memory.keys()].filter((key) => key.includes(LEAVING))).toEqual([]);
    // Nor among the copies the device lists: a deactivated account's sign-in finds nothing to remove.
    expect(copiesHeld(pageMemory)).toEqual({ [STAYING]: 'staying@example.org' });
    // The other user's copy is untouched, its unsent change with it.
    expect(filesOf(STAYING).some((name) => name.endsWith('.sqlite'))).toBe(true);
    const back = await signedIn(STAYING, memory);
    expect((await back.replica.db.tasks.find().exec()).map((task) => task.title)).toEqual(['Boiler room']);
    expect(back.replica.status$.value.pending).toBe(1);
    await back.stop();

    // Signing in again starts from an empty copy, to be filled by the first sync.
    const again = await signedIn(LEAVING, memory);
    expect(await again.replica.db.tasks.count().exec()).toBe(0);
    expect(again.replica.status$.value.pending).toBe(0);
    await again.stop({ remove: true });
  });

  it('says the copy is removed only once its files are gone, which another page that has it open holds', async () => {
    const memory = new Map<string, string>();
    const leaving = await signedIn(LEAVING, memory);
    await leaving.replica.createTask({ id: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4b40', ...TASK, title: 'Pump room' });
    const elsewhere = await copyHeldElsewhere(dir, LEAVING);
    let removed = false;
    const removal = leaving.stop({ remove: true }).then(() => {
      removed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(removed).toBe(false);
    expect(filesOf(LEAVING).some((name) => name.endsWith('.sqlite'))).toBe(true);
    // That page lets go: the files go, then the removal is done.
    await elsewhere.release();
    await removal;
    expect(filesOf(LEAVING)).toEqual([]);
  });

  it('fails saying, in the user’s language, that another page has the copy open, when it never lets go', async () => {
    const memory = new Map<string, string>();
    const leaving = await signedIn(LEAVING, memory, { discardWaitMs: 300 });
    await leaving.replica.createTask({ id: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4b50', ...TASK, title: 'Pump room' });
    const elsewhere = await copyHeldElsewhere(dir, LEAVING);
    const failure = await leaving.stop({ remove: true }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(failure).toBeInstanceOf(ReplicaInUseError);
    expect(filesOf(LEAVING).some((name) => name.endsWith('.sqlite'))).toBe(true);
    const words = async (lng: string, translation: typeof en) => {
      const i18n = i18next.createInstance();
      await i18n.init({ resources: { [lng]: { translation } }, lng, interpolation: { escapeValue: false } });
      return i18n.t;
    };
    expect(copyRemovalReason(failure, await words('en', en))).toBe('another Orbita tab or window still has it open');
    expect(copyRemovalReason(failure, await words('ru', ru))).toBe('её держит открытой другая вкладка или окно Orbita');
    // Once it lets go, a removal goes through.
    await elsewhere.release();
    const again = await signedIn(LEAVING, memory);
    await again.stop({ remove: true });
    expect(filesOf(LEAVING)).toEqual([]);
  });

  it('keeps the copy for the next sign-in by default', async () => {
    const memory = new Map<string, string>();
    const first = await signedIn(LEAVING, memory);
    await first.replica.createTask({ id: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4b30', ...TASK, title: 'Kept' });
    await first.stop();
    expect(filesOf(LEAVING).some((name) => name.endsWith('.sqlite'))).toBe(true);
    const next = await signedIn(LEAVING, memory);
    expect((await next.replica.db.tasks.find().exec()).map((task) => task.title)).toEqual(['Kept']);
    expect(next.replica.status$.value.pending).toBe(1);
    await next.stop({ remove: true });
    expect(filesOf(LEAVING)).toEqual([]);
  });
});
