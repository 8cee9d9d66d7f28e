import path from 'node:path';
import type { PortLike } from '@shared/message-port';
import { META_INSTANCE_SCHEMA_TITLE, type RxStorage } from 'rxdb';
import type { MessageToRemote } from 'rxdb/plugins/storage-remote';
import { exposeRxStorageRemote } from 'rxdb/plugins/storage-remote';
import { NEVER, Subject } from 'rxjs';
import { getRxStorageMemoryMapped } from './rx-storage-memory-mapped';
import { getRxStorageBetterSqlite } from './rx-storage-sqlite';

/**
 * The storage with the change events of RxDB's replication meta data left out. The remote side
 * sends every instance's events to the page, and nothing there reads these: each pulled document
 * would cross the port once more, for nothing.
 */
function withoutMetaChangeEvents<Internals, Options>(
  storage: RxStorage<Internals, Options>,
): RxStorage<Internals, Options> {
  return {
    ...storage,
    async createStorageInstance(params) {
      const instance = await storage.createStorageInstance(params);
      if (params.schema.title !== META_INSTANCE_SCHEMA_TITLE) return instance;
      return new Proxy(instance, {
        get(target, key) {
          if (key === 'changeStream') return () => NEVER;
          const value = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
  };
}

/**
 * One storage per replica directory in this process: every page served from it shares one copy of
 * the documents in memory (two copies would each persist their own writes over the other's).
 */
const replicaStorages = new Map<string, RxStorage<unknown, unknown>>();

/**
 * The replica's documents in memory (reads and writes answered there), persisted to SQLite files in
 * `databaseDirectory` on the next turn of the event loop.
 */
export function replicaStorage(databaseDirectory: string): RxStorage<unknown, unknown> {
  const key = path.resolve(databaseDirectory);
  let storage = replicaStorages.get(key);
  if (!storage) {
    storage = withoutMetaChangeEvents(
      // Memory answers every query: the files need no query indexes, and writes are far cheaper.
      getRxStorageMemoryMapped({ storage: getRxStorageBetterSqlite({ databaseDirectory: key, indexes: false }) }),
    ) as RxStorage<unknown, unknown>;
    replicaStorages.set(key, storage);
  }
  return storage;
}

/**
 * Serves the replica's storage (SQLite files in `databaseDirectory`) over a message port. It runs
 * in the Electron utility process, so a heavy sync never blocks the window; the renderer reaches
 * it with RxDB's remote storage (`renderer/src/data/storage.ts`).
 */
export function hostReplicaStorage(port: PortLike, options: { databaseDirectory: string }): () => void {
  const messages$ = new Subject<MessageToRemote>();
  // Storage instances the page opened and has not closed.
  const open = new Set<string>();
  const stop = port.onMessage((data) => {
    const message = data as MessageToRemote;
    if (message.method === 'create') open.add(message.connectionId);
    if (message.method === 'close' || message.method === 'remove') open.delete(message.connectionId);
    messages$.next(message);
  });
  exposeRxStorageRemote({
    storage: replicaStorage(options.databaseDirectory),
    messages$: messages$.asObservable(),
    send: (message) => {
      try {
        port.postMessage(message);
      } catch {
        // The page is gone; its instances are being closed.
      }
    },
  });
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    stop();
    // A reloaded or closed page never says goodbye: close what it left open, as it would have.
    for (const connectionId of open) {
      messages$.next({ connectionId, requestId: `closed-${connectionId}`, method: 'close', params: [] } as never);
    }
    open.clear();
    messages$.complete();
  };
  const stopWatching = port.onClose?.(end);
  return () => {
    stopWatching?.();
    end();
  };
}
