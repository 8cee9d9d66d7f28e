import type { PortLike } from '@shared/message-port';
import type { RxStorage } from 'rxdb';
import type { Replica } from './replica';
import { remoteReplicaStorage } from './storage';

export interface ReplicaPortsOptions {
  /** Asks the shell for a port to the replica process. */
  firstPort: () => Promise<PortLike>;
  /** Subscribes to the ports the shell posts unasked (the replica process restarted). */
  onReplaced: (listener: (port: PortLike) => void) => () => void;
  /** Opens the replica on a storage. */
  open: (storage: RxStorage<unknown, unknown>) => Promise<Replica>;
  /** Each replica opened. */
  opened: (replica: Replica) => void;
  /** A replica about to be closed (screens let it go first). */
  closing: (replica: Replica) => void;
  /** Opening failed. */
  failed: (error: unknown) => void;
  /**
   * Deletes the copy without opening it, over the port it failed to open on (the shell hands a
   * window one port at a time): for a removal or a new copy when the copy cannot be opened, and
   * after a removal, to be sure its files are gone.
   */
  discard?: (port: PortLike) => Promise<void>;
}

/**
 * The desktop replica, kept open across restarts of the replica process: opened on the first port;
 * when the shell posts another one (the process crashed and was started again), the old port is
 * closed first — the old replica's calls then fail at once instead of waiting for an answer that
 * never comes — the old replica is closed, and the replica is opened again on the new port, with
 * what the process had saved. `stop()` closes the replica properly (its process saves it), or
 * removes it, then closes its port.
 */
export function followReplicaPorts(options: ReplicaPortsOptions): {
  /** Closes the replica, or with `remove` deletes this device's copy (rejecting if that failed). */
  stop(options?: { remove?: boolean }): Promise<void>;
  /**
   * Deletes this device's copy — the open replica with its changes not yet sent, or one that could
   * not be opened (`discard`) — and opens a new one on the same port, which the first sync fills.
   * Rejects when it could not be deleted (an open replica is then opened again as it is).
   */
  openNewCopy(): Promise<void>;
  /** Asks the replica process over the port the replica is open on; undefined while none is open. */
  ask<T>(question: (port: PortLike) => Promise<T>): Promise<T | undefined>;
} {
  let current: { port: PortLike; replica?: Replica } | undefined;
  let stopped = false;
  let queue: Promise<void> = Promise.resolve();
  const run = (step: () => Promise<void>) => {
    queue = queue.then(step).catch(options.failed);
    return queue;
  };

  const drop = async (portIsDead: boolean, remove = false) => {
    const old = current;
    current = undefined;
    if (!old) return;
    if (portIsDead) {
      old.replica?.abandon();
      old.port.close?.();
    }
    try {
      if (old.replica) {
        options.closing(old.replica);
        // A removal that failed is the caller's to report; a close that failed leaves nothing to do.
        if (remove) {
          await old.replica.remove();
          // Removed once its files are gone: another page of the app that still has the copy open
          // (one reloading, say) holds them until it lets go.
          await options.discard?.(old.port);
        } else await old.replica.close().catch(() => undefined);
      } else if (remove && !portIsDead) {
        // It never opened: it is deleted unopened.
        await options.discard?.(old.port);
      }
    } finally {
      if (!portIsDead) old.port.close?.();
    }
  };

  const openOn = async (port: PortLike) => {
    if (stopped) {
      port.close?.();
      return;
    }
    const entry: { port: PortLike; replica?: Replica } = { port };
    current = entry;
    // The process behind the port died: the replica stops asking it anything before its calls fail.
    const replica = await options.open(remoteReplicaStorage(port, { onGone: () => entry.replica?.abandon() }));
    entry.replica = replica;
    if (current !== entry) {
      await replica.close().catch(() => undefined);
      return;
    }
    // Stopped meanwhile: the step `stop()` queued next closes or removes it.
    if (stopped) return;
    options.opened(replica);
  };

  const stopListening = options.onReplaced((port) => {
    void run(async () => {
      await drop(true);
      await openOn(port);
    });
  });
  void run(async () => openOn(await options.firstPort()));

  return {
    async ask(question) {
      const entry = current;
      return entry?.replica ? question(entry.port) : undefined;
    },
    async openNewCopy() {
      let failure: unknown;
      await run(async () => {
        const entry = current;
        if (stopped || !entry) return;
        const { replica } = entry;
        try {
          if (replica) {
            entry.replica = undefined;
            options.closing(replica);
            await replica.remove();
          } else await options.discard?.(entry.port);
        } catch (error) {
          failure = error;
          // A copy that could not be removed is opened again, as it is.
          if (!replica) return;
        }
        if (current === entry) await openOn(entry.port);
      });
      if (failure) throw failure;
    },
    async stop(stopOptions = {}) {
      stopped = true;
      stopListening();
      let failure: unknown;
      await run(() =>
        drop(false, stopOptions.remove).catch((error: unknown) => {
          failure = error;
        }),
      );
      if (failure) throw failure;
    },
  };
}
