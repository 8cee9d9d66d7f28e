import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { emitterPort, type PortLike } from '@shared/message-port';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import type { RxStorage } from 'rxdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostReplicaStorage } from '../electron/backend/replica-host';
import { followReplicaPorts } from '../renderer/src/data/desktop-replica';
import { copiesHeld, type Memory, noteCopy, Replica } from '../renderer/src/data/replica';
import {
  browserReplicaStorage,
  desktopCopySize,
  discardBrowserCopy,
  discardDesktopCopy,
  remoteReplicaStorage,
} from '../renderer/src/data/storage';
import { deadPort } from './helpers/network';
import { withoutStores } from './helpers/replica';

const USER = '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4c01';
const TASK = {
  id: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4c10',
  formId: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4c61',
  statusId: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4c62',
  title: 'Written before the damage',
};

let dir: string;
let serverUrl: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'orbita-replica-files-'));
  // A server nothing listens on: the replica holds what was written on this device.
  serverUrl = `http://127.0.0.1:${await deadPort()}`;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function memoryOf(map: Map<string, string>): Memory {
  return {
    get: (key) => map.get(key) ?? null,
    set: (key, value) => void map.set(key, value),
    remove: (key) => void map.delete(key),
  };
}

function openReplica(storage: RxStorage<unknown, unknown>, memory: Memory) {
  return Replica.open({
    userId: USER,
    serverUrl,
    storage,
    accessToken: () => undefined,
    reauthenticate: async () => undefined,
    memory,
  });
}

/** The user's replica files in the replica process's directory. */
function filesOf(): string[] {
  return readdirSync(dir).filter((name) => name.includes(USER.slice(-12)));
}

/** Writes a task into a new copy of the user's data on the desktop, then damages its file past reading. */
async function damagedCopy(memory: Map<string, string>): Promise<void> {
  const first = await openReplica(remoteReplicaStorage(replicaPort()), memoryOf(memory));
  await first.createTask({ ...TASK, id: crypto.randomUUID() });
  await first.close();
  expect(filesOf().length).toBeGreaterThan(0);
  for (const file of filesOf()) writeFileSync(path.join(dir, file), 'not a database, whatever it was once'.repeat(200));
}

/**
 * The desktop window's side (`followReplicaPorts`) on one port, deleting a copy it cannot open over
 * that port as the app does.
 */
function followOn(port: PortLike, memory: Map<string, string>) {
  const events: string[] = [];
  const opened: Replica[] = [];
  const following = followReplicaPorts({
    firstPort: async () => port,
    onReplaced: () => () => undefined,
    open: (storage) => openReplica(storage, memoryOf(memory)),
    opened: (replica) => {
      events.push('opened');
      opened.push(replica);
    },
    closing: () => events.push('closing'),
    failed: (error) => events.push(`failed: ${error instanceof Error ? error.message : String(error)}`),
    discard: (on) =>
      Replica.discardCopy({
        userId: USER,
        discard: (databaseName) => discardDesktopCopy(on, databaseName),
        memory: memoryOf(memory),
      }),
  });
  return { following, events, opened };
}

/** A port of the page's own to the replica host serving `dir`, as each window of the desktop app gets. */
function replicaPort(): PortLike {
  const channel = new MessageChannel();
  hostReplicaStorage(emitterPort(channel.port2), { databaseDirectory: dir });
  return emitterPort(channel.port1);
}

describe('a copy of the data that cannot be opened', () => {
  it('is deleted unopened by the desktop replica process, and a new copy opens in its place', async () => {
    const memory = new Map<string, string>();
    const first = await openReplica(remoteReplicaStorage(replicaPort()), memoryOf(memory));
    await first.createTask(TASK);
    noteCopy(memoryOf(memory), USER, 'ada@example.org');
    await first.close();
    const files = filesOf();
    expect(files.length).toBeGreaterThan(0);

    // The file is damaged: SQLite no longer reads it, and the replica does not open.
    for (const file of files) writeFileSync(path.join(dir, file), 'not a database, whatever it was once'.repeat(200));
    await expect(openReplica(remoteReplicaStorage(replicaPort()), memoryOf(memory))).rejects.toThrow(/not a database/);

    const port = replicaPort();
    await Replica.discardCopy({
      userId: USER,
      discard: (databaseName) => discardDesktopCopy(port, databaseName),
      memory: memoryOf(memory),
    });
    expect(filesOf()).toEqual([]);
    // What was remembered beside the copy went with it (changes waiting, the list of copies).
    expect([...memory.keys()].filter((key) => key.includes(USER))).toEqual([]);
    expect(copiesHeld(memoryOf(memory))).toEqual({});

    const fresh = await openReplica(remoteReplicaStorage(replicaPort()), memoryOf(memory));
    expect(await fresh.db.tasks.count().exec()).toBe(0);
    await fresh.createTask({ ...TASK, title: 'Written in the new copy' });
    expect((await fresh.db.tasks.findOne(TASK.id).exec())?.title).toBe('Written in the new copy');
    await fresh.close();
  });

  it('is brought again by the desktop window on the port it failed to open on, or deleted at a sign-out with removal', async () => {
    const memory = new Map<string, string>();
    await damagedCopy(memory);
    const page = followOn(replicaPort(), memory);
    await expect.poll(() => page.events.length).toBe(1);
    expect(page.events[0]).toMatch(/^failed: .*not a database/);

    await page.following.openNewCopy();
    expect(page.events.slice(1)).toEqual(['opened']);
    const fresh = page.opened[0] as Replica;
    expect(await fresh.db.tasks.count().exec()).toBe(0);
    await page.following.stop();
    expect(filesOf().length).toBeGreaterThan(0);

    // Damaged again, then signed out with removal: the copy goes without being opened.
    await damagedCopy(memory);
    const again = followOn(replicaPort(), memory);
    await expect.poll(() => again.events.length).toBe(1);
    await again.following.stop({ remove: true });
    expect(filesOf()).toEqual([]);
  });

  it('is brought again by the desktop window when it opens but the user asks for a new one', async () => {
    const memory = new Map<string, string>();
    const page = followOn(replicaPort(), memory);
    await expect.poll(() => page.events).toEqual(['opened']);
    const held = page.opened[0] as Replica;
    await held.createTask({ ...TASK, id: crypto.randomUUID(), title: 'Only on this device' });
    expect(await held.db.tasks.count().exec()).toBeGreaterThan(0);

    await page.following.openNewCopy();
    expect(page.events).toEqual(['opened', 'closing', 'opened']);
    expect(held.db.closed).toBe(true);
    const fresh = page.opened[1] as Replica;
    expect(await fresh.db.tasks.count().exec()).toBe(0);
    await page.following.stop();
  });

  it('is not confused with another file of the desktop replica process', async () => {
    const memory = new Map<string, string>();
    const open = await openReplica(remoteReplicaStorage(replicaPort()), memoryOf(memory));
    const port = replicaPort();
    writeFileSync(path.join(dir, 'settings.sqlite'), 'kept');
    await expect(discardDesktopCopy(port, '../settings')).rejects.toThrow(/is not a replica/);
    await expect(discardDesktopCopy(port, 'settings')).rejects.toThrow(/is not a replica/);
    expect(existsSync(path.join(dir, 'settings.sqlite'))).toBe(true);
    await open.close();
  });

  it('is deleted unopened from IndexedDB in the browser, and a new copy opens in its place', async () => {
    const indexedDB = new IDBFactory();
    const storage = () => browserReplicaStorage({ indexedDB, IDBKeyRange });
    const memory = new Map<string, string>();
    const first = await openReplica(storage(), memoryOf(memory));
    await first.createTask(TASK);
    await first.close();
    const names = async () =>
      (await indexedDB.databases()).map((info) => info.name ?? '').filter((name) => name.includes(USER));
    const held = await names();
    expect(held.length).toBeGreaterThan(1);

    // The tasks' database loses its tables (a damaged profile, a release that wrote it otherwise).
    const tasks = held.find((name) => name.endsWith('--tasks')) as string;
    await withoutStores(tasks, indexedDB);
    await expect(openReplica(storage(), memoryOf(memory))).rejects.toThrow();

    await Replica.discardCopy({
      userId: USER,
      discard: (databaseName) => discardBrowserCopy(databaseName, indexedDB),
      memory: memoryOf(memory),
    });
    expect(await names()).toEqual([]);
    const fresh = await openReplica(storage(), memoryOf(memory));
    expect(await fresh.db.tasks.count().exec()).toBe(0);
    await fresh.close();
  });
});

describe('the size of the copy on the desktop', () => {
  const name = Replica.databaseName(USER);
  const onDisk = () => filesOf().reduce((bytes, file) => bytes + statSync(path.join(dir, file)).size, 0);

  it('is what its files take on disk, told by the replica process over the port the copy is open on', async () => {
    await discardDesktopCopy(replicaPort(), name);
    expect(await desktopCopySize(replicaPort(), name)).toBe(0);

    const memory = new Map<string, string>();
    const page = followOn(replicaPort(), memory);
    const size = () => page.following.ask((port) => desktopCopySize(port, name));
    // Nothing is open yet to ask through.
    expect(await size()).toBeUndefined();
    await expect.poll(() => page.events).toEqual(['opened']);
    const opened = (await size()) as number;
    expect(opened).toBeGreaterThan(0);

    // The copy grows as tasks are written, once they reach the file.
    const replica = page.opened[0] as Replica;
    for (let i = 0; i < 200; i++) {
      await replica.createTask({ ...TASK, id: crypto.randomUUID(), title: `Task ${i} ${'words '.repeat(40)}` });
    }
    await expect.poll(size).toBeGreaterThan(opened + 200 * 240);
    await page.following.stop();
    expect(await desktopCopySize(replicaPort(), name)).toBe(onDisk());
  });

  it('is told only of a replica’s files', async () => {
    writeFileSync(path.join(dir, 'settings.sqlite'), 'kept');
    await expect(desktopCopySize(replicaPort(), '../settings')).rejects.toThrow(/is not a replica/);
    await expect(desktopCopySize(replicaPort(), 'settings')).rejects.toThrow(/is not a replica/);
  });
});
