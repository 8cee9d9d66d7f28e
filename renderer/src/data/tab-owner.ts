import { ReplicaInUseError } from './replica-errors';

/**
 * One tab of a browser holds a user's replica at a time: two tabs on one IndexedDB copy would
 * each cache and replicate it without seeing the other's writes. The owner holds a Web Lock;
 * other tabs wait in line for it. A tab asked to be used instead tells the owner over a
 * BroadcastChannel; the owner closes its replica and lets the lock go to the one waiting.
 */
export interface TabOwnership {
  /** Stops holding or waiting for the replica (sign-out, page closing). */
  release(): void;
  /** Asks the owning tab to hand the replica over to this one. */
  takeOver(): void;
  /**
   * Stops holding or waiting, then runs `work` once no tab holds the replica (this tab's sign-out
   * removing a copy another tab had open: that tab closes it as its session ends). Fails with
   * `ReplicaInUseError` when no tab has let it go after `patienceMs`.
   */
  releaseThen(work: () => Promise<void>, patienceMs?: number): Promise<void>;
}

/** How long a sign-out waits for another tab to close the replica it removes. */
export const RELEASE_WAIT_MS = 30_000;

export interface OwnershipEvents {
  /** This tab holds the replica now. */
  owned(): void;
  /** Another tab holds it (on start, or it took it over); `takeOver()` asks for it back. */
  elsewhere(): void;
  /** Another tab asks for the replica: close it; the lock is let go when the promise settles. */
  handOver(): Promise<void>;
}

interface LockManagerLike {
  request(
    name: string,
    options: { signal?: AbortSignal },
    callback: (lock: unknown) => Promise<void>,
  ): Promise<unknown>;
}

interface ChannelLike {
  postMessage(message: unknown): void;
  close(): void;
  onmessage: ((event: MessageEvent) => void) | null;
}

export interface TabEnvironment {
  locks?: LockManagerLike;
  channel?: (name: string) => ChannelLike;
  /** Calls back when the page is going away (reload, navigation, closing). */
  onPageHide?: (listener: () => void) => void;
}

const TAKE_OVER = 'take-over';
/**
 * How long a new tab waits for the replica before saying another tab has it: a reloaded page's
 * predecessor lets its lock go only once the browser has torn it down, seconds later on a busy machine.
 */
export const FIRST_WAIT_MS = 5_000;

function browserEnvironment(): TabEnvironment {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks as LockManagerLike | undefined;
  const channel = typeof BroadcastChannel === 'function' ? (name: string) => new BroadcastChannel(name) : undefined;
  const onPageHide = (listener: () => void) => {
    window.addEventListener('pagehide', listener);
    // A page restored from the back-forward cache no longer holds the lock: it starts again.
    window.addEventListener('pageshow', (event) => event.persisted && window.location.reload());
  };
  return { locks, channel, onPageHide };
}

/**
 * Claims the replica of `userId` for this tab. Without Web Locks (an insecure context, e.g. plain
 * HTTP on a LAN address) every tab opens it, as before: `owned` is called at once.
 */
export function claimReplica(
  userId: string,
  events: OwnershipEvents,
  environment: TabEnvironment = browserEnvironment(),
): TabOwnership {
  const { locks } = environment;
  if (!locks || !environment.channel) {
    events.owned();
    return { release() {}, takeOver() {}, releaseThen: (work) => work() };
  }
  const name = `orbita-replica-${userId}`;
  const channel = environment.channel(name);
  let released = false;
  let waiting = false;
  let letGo: (() => void) | undefined;

  const hold = async (lock: unknown) => {
    waiting = false;
    if (released || !lock) return;
    events.owned();
    await new Promise<void>((resolve) => {
      letGo = resolve;
    });
  };
  // Waits in line for the lock: granted when the owner closes its tab or hands the replica over.
  const queue = () => {
    if (released || waiting || letGo) return;
    waiting = true;
    void locks.request(name, {}, hold);
  };
  const elsewhere = () => {
    if (released) return;
    events.elsewhere();
    queue();
  };
  channel.onmessage = (event) => {
    if (event.data !== TAKE_OVER || !letGo) return;
    const resolve = letGo;
    letGo = undefined;
    void events.handOver().finally(() => {
      elsewhere();
      resolve();
    });
  };
  // Let go as the page leaves, so that its reload or the next page does not wait for its teardown.
  environment.onPageHide?.(() => {
    released = true;
    letGo?.();
    letGo = undefined;
  });
  // A wait, not none: a page whose predecessor could not say it was leaving gets the lock late.
  waiting = true;
  const patience = new AbortController();
  const timer = setTimeout(() => patience.abort(), FIRST_WAIT_MS);
  void locks
    .request(name, { signal: patience.signal }, (lock) => {
      clearTimeout(timer);
      return hold(lock);
    })
    .catch(() => {
      waiting = false;
      if (!letGo) elsewhere();
    });

  const release = () => {
    released = true;
    channel.onmessage = null;
    channel.close();
    letGo?.();
    letGo = undefined;
  };
  return {
    release,
    takeOver() {
      if (released || letGo) return;
      channel.postMessage(TAKE_OVER);
      queue();
    },
    async releaseThen(work, patienceMs = RELEASE_WAIT_MS) {
      // This tab's own place in line is given up first: granted now, it returns at once.
      release();
      const patience = new AbortController();
      const timer = setTimeout(() => patience.abort(), patienceMs);
      try {
        await locks.request(name, { signal: patience.signal }, async () => {
          clearTimeout(timer);
          await work();
        });
      } catch (error) {
        if (patience.signal.aborted) throw new ReplicaInUseError();
        throw error;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
