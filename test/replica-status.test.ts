import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRxStorageBetterSqlite } from '../electron/backend/rx-storage-sqlite';
import { Replica, type ReplicaStatus } from '../renderer/src/data/replica';
import { startTestApp, type TestApp } from './helpers/app';
import { createOrg, type Member } from './helpers/factories';
import { deadPort } from './helpers/network';

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
async function open(serverUrl: string, onLine = true) {
  const listeners = new Map<string, () => void>();
  const replica = await Replica.open({
    userId: admin.userId,
    serverUrl,
    storage: getRxStorageBetterSqlite({ databaseDirectory: ':memory:' }) as never,
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
});
