import { describe, expect, it, vi } from 'vitest';
import { ReplicaInUseError } from './replica-errors';
import { claimReplica, FIRST_WAIT_MS, type TabEnvironment } from './tab-owner';

/** Web Locks as a browser keeps them: one holder per name, the others granted in the order they asked. */
function fakeBrowser() {
  const held = new Set<string>();
  const lines = new Map<string, (() => void)[]>();
  const listeners = new Map<string, Set<(event: MessageEvent) => void>>();
  const tab = (): TabEnvironment => ({
    locks: {
      request(name, options, callback) {
        return new Promise((resolve, reject) => {
          const grant = () => {
            held.add(name);
            void callback({ name }).then(() => {
              held.delete(name);
              resolve(undefined);
              lines.get(name)?.shift()?.();
            });
          };
          if (!held.has(name)) return grant();
          const line = lines.get(name) ?? [];
          lines.set(name, line);
          line.push(grant);
          options.signal?.addEventListener('abort', () => {
            line.splice(line.indexOf(grant), 1);
            reject(new DOMException('aborted', 'AbortError'));
          });
        });
      },
    },
    channel(name) {
      const own = listeners.get(name) ?? new Set();
      listeners.set(name, own);
      const channel = {
        onmessage: null as ((event: MessageEvent) => void) | null,
        postMessage(data: unknown) {
          for (const listener of own) {
            if (listener !== deliver) setTimeout(() => listener({ data } as MessageEvent), 0);
          }
        },
        close() {
          own.delete(deliver);
        },
      };
      const deliver = (event: MessageEvent) => channel.onmessage?.(event);
      own.add(deliver);
      return channel;
    },
  });
  return { tab };
}

function tabState() {
  const state = { owned: 0, elsewhere: 0, handedOver: 0 };
  return {
    state,
    events: {
      owned: () => {
        state.owned += 1;
      },
      elsewhere: () => {
        state.elsewhere += 1;
      },
      handOver: async () => {
        state.handedOver += 1;
      },
    },
  };
}

describe('one tab holds the replica', () => {
  it('lets the first tab own it, tells the second, hands it over on request and back when that tab closes', async () => {
    vi.useFakeTimers();
    try {
      const browser = fakeBrowser();
      const first = tabState();
      const second = tabState();
      const a = claimReplica('u1', first.events, browser.tab());
      await vi.advanceTimersByTimeAsync(0);
      expect(first.state).toEqual({ owned: 1, elsewhere: 0, handedOver: 0 });

      const b = claimReplica('u1', second.events, browser.tab());
      // The newcomer waits a moment (a reload lets its lock go late), then says another tab has it.
      await vi.advanceTimersByTimeAsync(FIRST_WAIT_MS - 100);
      expect(second.state.elsewhere).toBe(0);
      await vi.advanceTimersByTimeAsync(200);
      expect(second.state).toEqual({ owned: 0, elsewhere: 1, handedOver: 0 });

      b.takeOver();
      await vi.advanceTimersByTimeAsync(10);
      expect(first.state).toEqual({ owned: 1, elsewhere: 1, handedOver: 1 });
      expect(second.state.owned).toBe(1);

      // The tab that has it closes: the other one takes it up again by itself.
      b.release();
      await vi.advanceTimersByTimeAsync(10);
      expect(first.state.owned).toBe(2);
      a.release();
    } finally {
      vi.useRealTimers();
    }
  });

  it('lets go as its page leaves, so the reloaded page gets the replica without waiting', async () => {
    const browser = fakeBrowser();
    let leave: (() => void) | undefined;
    const before = tabState();
    claimReplica('u1', before.events, {
      ...browser.tab(),
      onPageHide: (listener) => {
        leave = listener;
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(before.state.owned).toBe(1);
    const after = tabState();
    claimReplica('u1', after.events, browser.tab());
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(after.state.owned).toBe(0);
    leave?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(after.state).toEqual({ owned: 1, elsewhere: 0, handedOver: 0 });
  });

  it('runs a waiting tab’s removal once the holder lets go, never while it holds the replica, and gives up after a wait', async () => {
    vi.useFakeTimers();
    try {
      const browser = fakeBrowser();
      const holder = claimReplica('u1', tabState().events, browser.tab());
      const waiting = tabState();
      const other = claimReplica('u1', waiting.events, browser.tab());
      await vi.advanceTimersByTimeAsync(FIRST_WAIT_MS + 10);
      expect(waiting.state.elsewhere).toBe(1);

      const done: string[] = [];
      const removal = other.releaseThen(async () => {
        done.push('removed');
      });
      await vi.advanceTimersByTimeAsync(1_000);
      expect(done).toEqual([]);
      // The holder's session ends there too: it closes the replica and lets go.
      holder.release();
      await removal;
      expect(done).toEqual(['removed']);
      // The waiting tab gave up its own place in line: it never opened the replica.
      expect(waiting.state.owned).toBe(0);

      const stubborn = claimReplica('u2', tabState().events, browser.tab());
      const late = claimReplica('u2', tabState().events, browser.tab());
      await vi.advanceTimersByTimeAsync(FIRST_WAIT_MS + 10);
      const refused = late.releaseThen(async () => {
        done.push('too late');
      }, 2_000);
      const outcome = expect(refused).rejects.toBeInstanceOf(ReplicaInUseError);
      await vi.advanceTimersByTimeAsync(2_100);
      await outcome;
      stubborn.release();
      await vi.advanceTimersByTimeAsync(10);
      expect(done).toEqual(['removed']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('gives every tab its own user’s replica, and opens at once where the browser has no Web Locks', async () => {
    const browser = fakeBrowser();
    const ann = tabState();
    const bob = tabState();
    claimReplica('ann', ann.events, browser.tab());
    claimReplica('bob', bob.events, browser.tab());
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect([ann.state.owned, bob.state.owned]).toEqual([1, 1]);

    const insecure = tabState();
    claimReplica('ann', insecure.events, {});
    expect(insecure.state.owned).toBe(1);
  });
});
