import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RxStorage } from 'rxdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replicaStorage } from '../electron/backend/replica-host';
import { getRxStorageBetterSqlite } from '../electron/backend/rx-storage-sqlite';
import type { KeptName } from '../renderer/src/data/kept-records';
import { Replica, type ReplicaStatus } from '../renderer/src/data/replica';
import { startTestApp, type TestApp } from './helpers/app';
import { createForm, createOrg, createTask, type Member } from './helpers/factories';
import { deadPort } from './helpers/network';
import { recordingKept } from './helpers/sync-client';

let t: TestApp;
let admin: Member;
const WAIT = { timeout: 15_000, interval: 20 };

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
});
afterAll(async () => {
  await t.close();
});

/** Opens the signed-in admin's replica against `serverUrl`, recording every status it reports. */
async function open(
  serverUrl: string,
  onLine = true,
  memory?: Map<string, string>,
  full?: (key: string) => boolean,
  storage: RxStorage<unknown, unknown> = getRxStorageBetterSqlite({ databaseDirectory: ':memory:' }) as never,
) {
  const listeners = new Map<string, () => void>();
  const replica = await Replica.open({
    userId: admin.userId,
    serverUrl,
    storage: storage as never,
    memory: memory && {
      get: (key) => memory.get(key) ?? null,
      set: (key, value) => {
        if (full?.(key)) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
        memory.set(key, value);
      },
    },
    accessToken: () => admin.client.accessToken,
    reauthenticate: async () => undefined,
    window: {
      navigator: { onLine },
      addEventListener: (type: string, listener: () => void) => listeners.set(type, listener),
      removeEventListener: (type: string) => listeners.delete(type),
    } as never,
  });
  const seen: ReplicaStatus[] = [];
  const subscription = replica.status$.subscribe((status) => seen.push(status));
  return {
    replica,
    seen,
    /** What the offline banner shows: "offline" only when not connected and not still trying. */
    offline: () => !replica.status$.value.online && !replica.status$.value.connecting,
    /** The browser says the network went: offline at once; online again once it is back. */
    async networkGoesAndComesBack() {
      listeners.get('offline')?.();
      expect(replica.status$.value).toMatchObject({ online: false, connecting: false });
      listeners.get('online')?.();
      await expect.poll(() => replica.status$.value.online, WAIT).toBe(true);
    },
    async close() {
      subscription.unsubscribe();
      await replica.close();
    },
  };
}

describe('replica status: connecting, online, offline', () => {
  it('is connecting, never offline, until the first connection; then online', async () => {
    const opened = await open(t.url);
    try {
      expect(opened.seen[0]).toMatchObject({ online: false, connecting: true });
      await expect.poll(() => opened.replica.status$.value.online, WAIT).toBe(true);
      expect(opened.replica.status$.value.connecting).toBe(false);
      // Between opening and connecting it never claimed to be offline.
      expect(opened.seen.some((status) => !status.online && !status.connecting)).toBe(false);

      await opened.networkGoesAndComesBack();
    } finally {
      await opened.close();
    }
  });

  it('says offline at once when the network goes while the first connection is still tried', async () => {
    const opened = await open(t.url);
    try {
      expect(opened.replica.status$.value.connecting).toBe(true);
      await opened.networkGoesAndComesBack();
    } finally {
      await opened.close();
    }
  });

  it('says offline once the first attempt fails when the server cannot be reached', async () => {
    const opened = await open(`http://127.0.0.1:${await deadPort()}`);
    try {
      expect(opened.seen[0]?.connecting).toBe(true);
      await expect.poll(() => opened.offline(), WAIT).toBe(true);
    } finally {
      await opened.close();
    }
  });

  it('says offline at once when the browser knows it has no network', async () => {
    const opened = await open(t.url, false);
    try {
      expect(opened.offline()).toBe(true);
      expect(opened.replica.socket.active).toBe(false);
    } finally {
      await opened.close();
    }
  });
  it('names the token the server refused when it asks for a fresh one, so a tab that refreshed first is followed', async () => {
    let token: string | undefined = 'expired';
    const refused: (string | undefined)[] = [];
    const replica = await Replica.open({
      userId: admin.userId,
      serverUrl: t.url,
      storage: getRxStorageBetterSqlite({ databaseDirectory: ':memory:' }) as never,
      accessToken: () => token,
      reauthenticate: async (rejected) => {
        refused.push(rejected);
        token = admin.client.accessToken;
        return token;
      },
    });
    try {
      await expect.poll(() => replica.status$.value.online, WAIT).toBe(true);
      await replica.sync.awaitInitial();
      expect(refused).toEqual(['expired']);
    } finally {
      await replica.close();
    }
  });
});

describe('how old what the device shows may be', () => {
  it('is as of the moment the connection went after a completed pull, and stays so across a restart', async () => {
    const memory = new Map<string, string>();
    // Never in sync on this device: nothing to tell.
    const never = await open(t.url, false, memory);
    expect(never.replica.status$.value.syncedAt).toBeUndefined();
    await never.close();

    const opened = await open(t.url, true, memory);
    await expect.poll(() => opened.replica.status$.value.ready && opened.replica.status$.value.online, WAIT).toBe(true);
    expect(opened.replica.status$.value.syncedAt).toBeUndefined();
    const before = Date.now();
    await opened.networkGoesAndComesBack();
    const wentAt = opened.seen.find((status) => status.ready && !status.online)?.syncedAt as number;
    expect(wentAt).toBeGreaterThanOrEqual(before);
    expect(wentAt).toBeLessThanOrEqual(Date.now());
    await opened.close();
    // Closed while in sync: that moment.
    const closedAt = Number(memory.get(`orbita.replica.${admin.userId}.syncedAt`));
    expect(closedAt).toBeGreaterThanOrEqual(wentAt);

    // Opened again without the network, it says so.
    const again = await open(t.url, false, memory);
    expect(again.replica.status$.value.syncedAt).toBe(closedAt);
    await again.close();
  });
});

describe('how old what the device shows may be, for an app that ends without closing', () => {
  it('is remembered while in sync, and no longer once the connection went', async () => {
    const memory = new Map<string, string>();
    const key = `orbita.replica.${admin.userId}.syncedAt`;
    const replica = await Replica.open({
      userId: admin.userId,
      serverUrl: t.url,
      storage: getRxStorageBetterSqlite({ databaseDirectory: ':memory:' }) as never,
      memory: { get: (name) => memory.get(name) ?? null, set: (name, value) => void memory.set(name, value) },
      accessToken: () => admin.client.accessToken,
      reauthenticate: async () => undefined,
      syncedAtEveryMs: 50,
    });
    try {
      await expect.poll(() => replica.status$.value.ready && replica.status$.value.online, WAIT).toBe(true);
      // Remembered while the replica stays in sync, with no disconnection or closing to say it:
      // an app killed now says its data is as of a moment ago.
      await expect.poll(() => Number(memory.get(key) ?? 0), WAIT).toBeGreaterThan(0);
      const first = Number(memory.get(key));
      await expect.poll(() => Number(memory.get(key)), WAIT).toBeGreaterThan(first);
      // Out of sync, the moment the connection went stays what the data is as of.
      replica.socket.disconnect();
      const wentAt = replica.status$.value.syncedAt;
      expect(Number(memory.get(key))).toBe(wentAt);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(Number(memory.get(key))).toBe(wentAt);
    } finally {
      await replica.close();
    }
  });
});

describe('pulled documents without their mark', () => {
  it('are looked for once per replica, before its first pull, and not again once it has looked', async () => {
    const memory = new Map<string, string>();
    const first = await open(t.url, true, memory);
    expect(await first.replica.sync.unrecordedPullsMarked).toEqual([]);
    await expect.poll(() => memory.get(`orbita.replica.${admin.userId}.pullsMarked`), WAIT).toBe('true');
    await first.close();
    const again = await open(t.url, true, memory);
    expect(again.replica.sync.unrecordedPullsMarked).toBeUndefined();
    await again.close();
  });
});

describe('changes counted as waiting to be sent', () => {
  /** Opens the admin's replica on `storage`, with `remembered` as the window's memory, the network on or not. */
  const openOn = (storage: never, remembered: Map<string, string>, onLine: boolean) =>
    Replica.open({
      userId: admin.userId,
      serverUrl: t.url,
      storage,
      memory: {
        get: (key: string) => remembered.get(key) ?? null,
        set: (key: string, value: string) => void remembered.set(key, value),
        remove: (key: string) => void remembered.delete(key),
      },
      accessToken: () => admin.client.accessToken,
      reauthenticate: async () => undefined,
      window: {
        navigator: { onLine },
        addEventListener: () => undefined,
        removeEventListener: () => undefined,
      } as never,
    });

  it('stop counting a task changed and changed back while offline, once the replica opens again', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'orbita-pending-'));
    const remembered = new Map<string, string>();
    const form = await createForm(admin);
    const task = await createTask(admin, form.id, { title: 'As the server has it' });
    const storage = replicaStorage(dir) as never;
    const openHere = (onLine: boolean) => openOn(storage, remembered, onLine);
    try {
      const first = await openHere(true);
      await first.sync.awaitInitial();
      await expect.poll(async () => (await first.db.tasks.findOne(task.id).exec())?.title, WAIT).toBe(task.title);
      await first.sync.awaitInSync();
      // Offline, the title is changed and changed back; the app closes before anything is sent.
      first.socket.disconnect();
      await first.changeTask(task.id, { title: 'Changed for a moment' });
      await first.changeTask(task.id, { title: 'As the server has it' });
      expect(first.status$.value.pending).toBe(1);
      await first.close();

      const again = await openHere(false);
      try {
        // Nothing differs from the server's state: nothing is waiting to be sent.
        await expect.poll(() => again.status$.value.pending, WAIT).toBe(0);
        expect(
          Replica.pendingCount(admin.userId, { get: (key) => remembered.get(key) ?? null, set: () => undefined }),
        ).toBe(0);
      } finally {
        await again.close();
      }
      // A real change still counts until the server has it.
      const third = await openHere(true);
      try {
        await third.sync.awaitInitial();
        // Nothing is being sent (replication paused): the check compares, and keeps the change.
        await third.sync.pause();
        await third.changeTask(task.id, { title: 'Changed for good' });
        await third.settleUnchanged();
        expect(third.status$.value.pending).toBe(1);
      } finally {
        await third.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('count a change the device has not sent when the app opens, also when its memory lost the count', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'orbita-pending-'));
    const form = await createForm(admin);
    const task = await createTask(admin, form.id, { title: 'As the server has it' });
    const storage = replicaStorage(dir) as never;
    const openHere = (onLine: boolean, remembered: Map<string, string>) => openOn(storage, remembered, onLine);
    try {
      const first = await openHere(true, new Map());
      await first.sync.awaitInitial();
      await expect.poll(async () => (await first.db.tasks.findOne(task.id).exec())?.title, WAIT).toBe(task.title);
      await first.sync.awaitInSync();
      first.socket.disconnect();
      await first.changeTask(task.id, { title: 'Changed offline' });
      expect(first.status$.value.pendingIds).toEqual(new Set([task.id]));
      await first.close();

      // The app was killed before its window's memory reached the disk: the replica has the change,
      // the count is gone. Opened without the network, the change is counted again.
      const again = await openHere(false, new Map());
      try {
        await expect.poll(() => [...again.status$.value.pendingIds], WAIT).toEqual([task.id]);
        expect(again.status$.value.pending).toBe(1);
      } finally {
        await again.close();
      }
      // Once the server has it, it is no longer counted.
      const online = await openHere(true, new Map());
      try {
        await expect
          .poll(async () => (await admin.client.get(`/api/tasks/${task.id}`)).body.title, WAIT)
          .toBe('Changed offline');
        await expect.poll(() => online.status$.value.pending, WAIT).toBe(0);
      } finally {
        await online.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('edits the server did not keep', () => {
  it('are remembered once per task and value, the latest, until that value is dismissed', async () => {
    const form = await createForm(admin);
    const task = await createTask(admin, form.id, { title: 'First' });
    const here = await open(t.url);
    const { replica } = here;
    const titleHere = async () => (await replica.db.tasks.findOne(task.id).exec())?.title;
    try {
      await replica.sync.awaitInitial();
      await expect.poll(titleHere, WAIT).toBe('First');
      // Twice the title is changed offline while a colleague changes it on the server.
      for (const [mine, theirs] of [
        ['Mine, first try', 'Theirs, first'],
        ['Mine, second try', 'Theirs, second'],
      ] as const) {
        replica.socket.disconnect();
        await replica.changeTask(task.id, { title: mine });
        expect((await admin.client.patch(`/api/tasks/${task.id}`, { title: theirs })).status).toBe(200);
        replica.socket.connect();
        await expect.poll(() => replica.lost$.value.map((edit) => edit.attempted), WAIT).toContain(mine);
        await expect.poll(titleHere, WAIT).toBe(theirs);
      }
      // Only the latest loss of the title is shown: the first is stale.
      expect(replica.lost$.value).toEqual([
        expect.objectContaining({ id: task.id, path: 'title', attempted: 'Mine, second try', kept: 'Theirs, second' }),
      ]);
      // Dismissing another value of the task leaves this one ("Use my value" on another field).
      replica.dismissLost(task.id, 'description');
      expect(replica.lost$.value).toHaveLength(1);
      replica.dismissLost(task.id, 'title');
      expect(replica.lost$.value).toEqual([]);
    } finally {
      await here.close();
    }
  });
});

/**
 * The replica opened on a storage that records what its replications keep with their records, and
 * a task of a form of its own, once the replica holds it; `kept()` is every map stored under
 * `name`, in order, and `now()` what the replica holds under `name` now (`recordingKept`).
 */
async function openRecordingKept<T>(name: KeptName) {
  const form = await createForm(admin);
  const task = await createTask(admin, form.id, { title: 'Before' });
  const recording = recordingKept(getRxStorageBetterSqlite({ databaseDirectory: ':memory:' }) as never);
  const here = await open(t.url, true, new Map(), undefined, recording.storage);
  await here.replica.sync.awaitInitial();
  await expect.poll(async () => (await here.replica.db.tasks.findOne(task.id).exec())?.title, WAIT).toBe('Before');
  return {
    here,
    task,
    kept: () => recording.saved(name) as Record<string, T>[],
    now: () => recording.now(name) as Record<string, T>,
  };
}

describe('pushes not answered yet', () => {
  it('keep what they sent on the device until the server answers', async () => {
    const { here, task, kept, now } = await openRecordingKept<{ states: { title?: string }[] }>('sent');
    const { replica } = here;
    try {
      await replica.changeTask(task.id, { title: 'Mine' });
      await expect.poll(() => replica.status$.value.pending, WAIT).toBe(0);
      // Stored before the push went out: an app quitting before its answer sends it again.
      expect(kept().some((sent) => sent[task.id]?.states.at(-1)?.title === 'Mine')).toBe(true);
      // Answered: nothing of it is left.
      await expect.poll(() => now()[task.id], WAIT).toBeUndefined();
      expect((await admin.client.get(`/api/tasks/${task.id}`)).body.title).toBe('Mine');
    } finally {
      await here.close();
    }
  });
});

describe('master states deferred for a change of the user’s', () => {
  it('are kept on the device until they are taken', async () => {
    const { here, task, kept, now } = await openRecordingKept<{ _deleted?: boolean }>('deferred');
    const { replica } = here;
    try {
      // Offline, the user renames the task the office deletes meanwhile: the deletion waits for
      // that change's push to settle, and is kept, so that an app quitting first takes it next time.
      replica.socket.disconnect();
      await replica.changeTask(task.id, { title: 'Mine' });
      expect((await admin.client.delete(`/api/tasks/${task.id}`)).status).toBe(204);
      replica.socket.connect();
      await expect.poll(async () => (await replica.db.tasks.findOne(task.id).exec())?.title, WAIT).toBeUndefined();
      expect(kept().some((deferred) => deferred[task.id]?._deleted === true)).toBe(true);
      // Taken: nothing of it is left.
      await expect.poll(() => now()[task.id], WAIT).toBeUndefined();
    } finally {
      await here.close();
    }
  });
});

describe('answers to pushes', () => {
  it('are kept on the device while they are taken into the replica', async () => {
    const { here, task, kept, now } = await openRecordingKept<{ server: { title?: string; description?: string } }>(
      'answers',
    );
    const { replica } = here;
    try {
      // Offline, the user renames the task while the office describes it: the push is answered
      // with the two merged, kept until the replica holds the merge, so that a replica process
      // dying meanwhile takes it when it opens again.
      replica.socket.disconnect();
      await replica.changeTask(task.id, { title: 'Mine' });
      expect((await admin.client.patch(`/api/tasks/${task.id}`, { description: 'Theirs' })).status).toBe(200);
      replica.socket.connect();
      await expect.poll(async () => (await replica.db.tasks.findOne(task.id).exec())?.description, WAIT).toBe('Theirs');
      expect(
        kept().some(
          (answers) => answers[task.id]?.server.title === 'Mine' && answers[task.id]?.server.description === 'Theirs',
        ),
      ).toBe(true);
      // Taken: nothing of it is left.
      await expect.poll(() => now()[task.id], WAIT).toBeUndefined();
      expect((await replica.db.tasks.findOne(task.id).exec())?.title).toBe('Mine');
    } finally {
      await here.close();
    }
  });
});

describe('what an earlier release kept on the device for the sync', () => {
  it('is taken once and then no longer kept there', async () => {
    const memory = new Map<string, string>();
    const key = (name: string) => `orbita.replica.${admin.userId}.${name}`;
    // Damaged, or of a release that kept them otherwise: nothing of it can be taken.
    memory.set(key('sent'), JSON.stringify({ tasks: { gone: 7 } }));
    memory.set(key('answers'), JSON.stringify({ tasks: { gone: { pushed: 1 } } }));
    const here = await open(t.url, true, memory);
    try {
      await here.replica.sync.awaitInitial();
      const kept = (name: string) => JSON.parse(memory.get(key(name)) ?? '{}') as unknown;
      await expect.poll(() => [kept('sent'), kept('answers')], WAIT).toEqual([{}, {}]);
    } finally {
      await here.close();
    }
  });
});

describe('a device that cannot remember more', () => {
  it('still shows an edit the server did not keep, and the push that reported it is done', async () => {
    const form = await createForm(admin);
    const task = await createTask(admin, form.id, { title: 'Before' });
    const memory = new Map<string, string>();
    const here = await open(t.url, true, memory, (key) => key.endsWith('.lost'));
    const { replica } = here;
    try {
      await replica.sync.awaitInitial();
      await expect.poll(async () => (await replica.db.tasks.findOne(task.id).exec())?.title, WAIT).toBe('Before');
      replica.socket.disconnect();
      await replica.changeTask(task.id, { title: 'Mine' });
      expect((await admin.client.patch(`/api/tasks/${task.id}`, { title: 'Theirs' })).status).toBe(200);
      replica.socket.connect();
      await expect.poll(() => replica.lost$.value.map((edit) => edit.attempted), WAIT).toEqual(['Mine']);
      // The push was answered: nothing waits to be sent, and it is not sent again.
      await expect.poll(() => replica.status$.value.pending, WAIT).toBe(0);
      expect(memory.has(`orbita.replica.${admin.userId}.lost`)).toBe(false);
    } finally {
      await here.close();
    }
  });
});

describe('edits the server did not keep, when the app ends', () => {
  it('are shown again after the app ended before this device remembered them, until dismissed', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'orbita-lost-'));
    const storage = replicaStorage(dir) as never;
    const form = await createForm(admin);
    const task = await createTask(admin, form.id, { title: 'Before' });
    // Each run of the app with a memory of its own: the window's last writes never reached the disk.
    const openWithout = () => open(t.url, true, new Map(), undefined, storage);
    try {
      const first = await openWithout();
      try {
        await first.replica.sync.awaitInitial();
        await expect
          .poll(async () => (await first.replica.db.tasks.findOne(task.id).exec())?.title, WAIT)
          .toBe('Before');
        first.replica.socket.disconnect();
        await first.replica.changeTask(task.id, { title: 'Mine' });
        expect((await admin.client.patch(`/api/tasks/${task.id}`, { title: 'Theirs' })).status).toBe(200);
        first.replica.socket.connect();
        await expect.poll(() => first.replica.lost$.value.map((edit) => edit.attempted), WAIT).toEqual(['Mine']);
      } finally {
        await first.close();
      }
      const second = await openWithout();
      try {
        await expect.poll(() => second.replica.lost$.value.map((edit) => edit.attempted), WAIT).toEqual(['Mine']);
        second.replica.dismissLost(task.id, 'title');
        expect(second.replica.lost$.value).toEqual([]);
      } finally {
        await second.close();
      }
      const third = await openWithout();
      try {
        await third.replica.sync.awaitInSync();
        expect(third.replica.lost$.value).toEqual([]);
      } finally {
        await third.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('server changes that cannot be received', () => {
  it('say why while they are tried again, and stop once they come', async () => {
    const form = await createForm(admin);
    const task = await createTask(admin, form.id, { title: 'Held on the server' });
    // The server cannot read its tasks: it answers their pulls with a problem.
    await t.database.db.query('ALTER TABLE tasks RENAME COLUMN description TO description_hidden');
    let renamed = true;
    const here = await open(t.url);
    const { replica } = here;
    try {
      await expect.poll(() => replica.status$.value.receiveFailure?.detail, WAIT).toContain('Retry later');
      // With the id the server logged it under, to report it by.
      expect(replica.status$.value.receiveFailure).toMatchObject({ status: 500, code: 'internal_error' });
      expect(replica.status$.value.receiveFailure?.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(replica.status$.value).toMatchObject({ online: true, ready: false, sendFailure: undefined });
      await t.database.db.query('ALTER TABLE tasks RENAME COLUMN description_hidden TO description');
      renamed = false;
      await replica.sync.awaitInitial();
      await expect.poll(async () => (await replica.db.tasks.findOne(task.id).exec())?.title, WAIT).toBe(task.title);
      expect(replica.status$.value.receiveFailure).toBeUndefined();
    } finally {
      await here.close();
      if (renamed) await t.database.db.query('ALTER TABLE tasks RENAME COLUMN description_hidden TO description');
    }
  });
});

describe('changes the server does not take', () => {
  it('say why while they are tried again, and go once the server takes them', async () => {
    const form = await createForm(admin);
    const task = await createTask(admin, form.id, { title: 'Before' });
    // The database refuses this title: the server answers the push with a problem.
    await t.database.db.query(`ALTER TABLE tasks ADD CONSTRAINT refuses_title CHECK (title <> 'Refused title')`);
    const here = await open(t.url);
    const { replica } = here;
    try {
      await replica.sync.awaitInitial();
      await expect.poll(async () => (await replica.db.tasks.findOne(task.id).exec())?.title, WAIT).toBe('Before');
      await replica.changeTask(task.id, { title: 'Refused title' });
      await expect.poll(() => replica.status$.value.sendFailure?.detail, WAIT).toContain('Retry later');
      expect(replica.status$.value.sendFailure).toMatchObject({ status: 500, code: 'internal_error' });
      expect(replica.status$.value.sendFailure?.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(replica.status$.value).toMatchObject({ online: true, pending: 1 });
      // The server takes it again: the next try goes through and the reason is gone.
      await t.database.db.query('ALTER TABLE tasks DROP CONSTRAINT refuses_title');
      await expect.poll(() => replica.status$.value.pending, WAIT).toBe(0);
      expect(replica.status$.value.sendFailure).toBeUndefined();
      expect((await admin.client.get(`/api/tasks/${task.id}`)).body.title).toBe('Refused title');
    } finally {
      await here.close();
      await t.database.db.query('ALTER TABLE tasks DROP CONSTRAINT IF EXISTS refuses_title');
    }
  });
});
