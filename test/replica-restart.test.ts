import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PortLike } from '@shared/message-port';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplicaThread } from '../electron/backend/replica-thread.fixture';
import { followReplicaPorts } from '../renderer/src/data/desktop-replica';
import { Replica } from '../renderer/src/data/replica';
import { unhandledDuring } from './helpers/dying-storage';
import { deadPort } from './helpers/network';
import { taskOnDisk } from './helpers/replica';

const WAIT = { timeout: 15_000, interval: 20 };
const USER = '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b';
let dir: string;
let serverUrl: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'orbita-replica-restart-'));
  // A server nothing listens on: the replica works offline, so what it reads came from its disk.
  serverUrl = `http://127.0.0.1:${await deadPort()}`;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The replica process, in a thread of its own (as Electron's utility process), serving `dir`. */
async function replicaProcess() {
  const thread = await startReplicaThread(dir);
  return { port: thread.port, crash: () => thread.stop() };
}

/**
 * The page's side as the desktop window runs it: `followReplicaPorts` over a first port, with the
 * shell's "port replaced" event in the test's hands.
 */
function followFrom(firstPort: PortLike) {
  const replacedListeners = new Set<(port: PortLike) => void>();
  const events: string[] = [];
  const opened: Replica[] = [];
  const following = followReplicaPorts({
    firstPort: async () => firstPort,
    onReplaced: (listener) => {
      replacedListeners.add(listener);
      return () => replacedListeners.delete(listener);
    },
    open: (storage) =>
      Replica.open({
        userId: USER,
        serverUrl,
        storage,
        accessToken: () => undefined,
        reauthenticate: async () => undefined,
      }),
    opened: (replica) => {
      events.push(`opened ${opened.length + 1}`);
      opened.push(replica);
    },
    closing: (replica) => events.push(`closing ${opened.indexOf(replica) + 1}`),
    failed: (error) => events.push(`failed: ${String(error)}`),
  });
  return {
    events,
    opened,
    stop: () => following.stop(),
    /** The shell posts the port of the restarted process. */
    replace(port: PortLike) {
      for (const listener of replacedListeners) listener(port);
    },
  };
}

const TASK = {
  formId: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a61',
  statusId: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a62',
};

describe('the desktop replica across a restart of its process', () => {
  it('opens again on the new port with what was saved, and the old replica fails at once instead of hanging', async () => {
    const first = await replicaProcess();
    const page = followFrom(first.port);
    let second: Awaited<ReturnType<typeof replicaProcess>> | undefined;
    try {
      await expect.poll(() => page.opened.length, WAIT).toBe(1);
      const before = page.opened[0] as Replica;
      const taskId = '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a60';
      await before.createTask({ id: taskId, ...TASK, title: 'Written before the crash' });
      await expect.poll(() => taskOnDisk(dir, taskId) !== undefined, WAIT).toBe(true);

      // The process dies; the shell starts it again and posts the window a new port.
      await first.crash();
      second = await replicaProcess();
      page.replace(second.port);
      await expect.poll(() => page.opened.length, WAIT).toBe(2);
      expect(page.events).toEqual(['opened 1', 'closing 1', 'opened 2']);
      // The old replica was closed: its calls to the dead process failed at once instead of waiting.
      expect(before.db.closed).toBe(true);

      const after = page.opened[1] as Replica;
      const found = await after.db.tasks.findOne(taskId).exec();
      expect(found?.title).toBe('Written before the crash');
      await after.changeTask(taskId, { title: 'Edited after the restart' });
      expect((await after.db.tasks.findOne(taskId).exec())?.title).toBe('Edited after the restart');
    } finally {
      await page.stop();
      await second?.crash();
    }
    expect(page.events.at(-1)).toBe('closing 2');
  });

  it('stops replicating when the process dies mid-work: what was waiting fails quietly, nothing is left unhandled', async () => {
    const first = await replicaProcess();
    const page = followFrom(first.port);
    let second: Awaited<ReturnType<typeof replicaProcess>> | undefined;
    const unhandled = await unhandledDuring(async () => {
      try {
        await expect.poll(() => page.opened.length, WAIT).toBe(1);
        const before = page.opened[0] as Replica;
        // The replication is still setting up every collection, and a write is on its way: the
        // process dies with calls of both in flight.
        const writing = before
          .createTask({ id: '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a70', ...TASK, title: 'In flight' })
          .catch((error: unknown) => error);
        await first.crash();
        expect(await writing).toBeInstanceOf(Error);
        second = await replicaProcess();
        page.replace(second.port);
        await expect.poll(() => page.opened.length, WAIT).toBe(2);
        expect(page.events).toEqual(['opened 1', 'closing 1', 'opened 2']);
      } finally {
        await page.stop();
        await second?.crash();
      }
    });
    expect(unhandled).toEqual([]);
  });
});
