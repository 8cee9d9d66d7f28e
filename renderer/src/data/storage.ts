import {
  REPLICA_FILES_ANSWER,
  REPLICA_FILES_REQUEST,
  type ReplicaFilesAnswer,
  type ReplicaFilesRequest,
} from '@shared/desktop/bridge';
import type { PortLike } from '@shared/message-port';
import { changedDocumentsSince } from '@shared/rx-changes';
import type { RxStorage, RxStorageDefaultCheckpoint } from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { getRxStorageRemote, type MessageFromRemote } from 'rxdb/plugins/storage-remote';
import { Subject } from 'rxjs';
import { ReplicaInUseError } from './replica-errors';

let remoteStorages = 0;

/**
 * The desktop replica's storage: the replica's storage in the utility process, reached over the
 * message port the preload hands to the window.
 */
export function remoteReplicaStorage(
  port: PortLike,
  options: {
    /** The port closed: called before the calls waiting for an answer fail. */
    onGone?: () => void;
  } = {},
): RxStorage<unknown, unknown> {
  return getRxStorageRemote({
    // RxDB shares message channels by identifier: one per port, so that a port opened after a
    // restart of the replica process never gets the dead one's channel.
    identifier: `orbita-replica-${++remoteStorages}`,
    mode: 'storage',
    async messageChannelCreator() {
      const messages$ = new Subject<MessageFromRemote>();
      const stop = port.onMessage((data) => messages$.next(data as MessageFromRemote));
      // A port that closed (its process is gone) answers nothing more: every call waiting for an
      // answer, and every later one, fails at once instead of waiting forever.
      const stopWatching = port.onClose?.(() => {
        options.onGone?.();
        messages$.complete();
      });
      return {
        messages$,
        send: (message) => port.postMessage(message),
        async close() {
          stop();
          stopWatching?.();
          messages$.complete();
        },
      };
    },
  }) as unknown as RxStorage<unknown, unknown>;
}

/**
 * The browser build's storage: RxDB's free IndexedDB (Dexie) storage, reading changes since a
 * checkpoint by index ranges (`changedDocumentsSince`).
 */
export function browserReplicaStorage(indexedDB?: {
  indexedDB: IDBFactory;
  IDBKeyRange: typeof IDBKeyRange;
}): RxStorage<unknown, unknown> {
  const storage = getRxStorageDexie(indexedDB ?? {}) as unknown as RxStorage<unknown, unknown>;
  const create = storage.createStorageInstance.bind(storage);
  storage.createStorageInstance = async (params) => {
    const instance = await create(params);
    instance.getChangedDocumentsSince = (limit, checkpoint) =>
      changedDocumentsSince(instance, limit, checkpoint as RxStorageDefaultCheckpoint | undefined) as never;
    const remove = instance.remove.bind(instance);
    instance.remove = async () => {
      const { dexieDb } = await (instance.internals as Promise<{ dexieDb: { name: string } }>);
      await remove();
      // RxDB's Dexie storage only empties the collection's IndexedDB database: a removed replica
      // leaves nothing on the device, not even database names made of the user's id.
      await deleteDatabase(indexedDB?.indexedDB ?? globalThis.indexedDB, dexieDb.name);
    };
    return instance;
  };
  return storage;
}

/** Deletes an IndexedDB database; one still open elsewhere goes once that connection closes. */
function deleteDatabase(factory: IDBFactory, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = factory.deleteDatabase(name);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(request.error);
    request.onblocked = () => resolve();
  });
}

/**
 * Deletes every IndexedDB database of the replica `databaseName` without opening it (RxDB's Dexie
 * storage keeps one per collection and schema version): the way out for a copy that cannot be
 * opened, which RxDB's own removal would have to open first.
 */
export async function discardBrowserCopy(databaseName: string, factory: IDBFactory = globalThis.indexedDB) {
  const prefix = `rxdb-dexie-${databaseName}--`;
  const names = (await factory.databases()).flatMap((info) => (info.name?.startsWith(prefix) ? [info.name] : []));
  for (const name of names) await deleteDatabase(factory, name);
}

/**
 * Has the desktop replica process delete the files of the replica `databaseName` without opening
 * them, over `port` (a port of its own: the one a failed open used may still be closing).
 */
export async function discardDesktopCopy(port: PortLike, databaseName: string): Promise<void> {
  await askReplicaProcess(port, databaseName, 'discard');
}

/** How many bytes the files of the desktop replica `databaseName` take on disk, asked over `port`. */
export async function desktopCopySize(port: PortLike, databaseName: string): Promise<number> {
  const { bytes } = await askReplicaProcess(port, databaseName, 'size');
  if (typeof bytes !== 'number') throw new Error('the replica process did not say the size');
  return bytes;
}

function askReplicaProcess(
  port: PortLike,
  databaseName: string,
  operation: ReplicaFilesRequest['operation'],
): Promise<ReplicaFilesAnswer> {
  const requestId = crypto.randomUUID();
  return new Promise<ReplicaFilesAnswer>((resolve, reject) => {
    const stopWatching = port.onClose?.(() => {
      stop();
      reject(new Error('the replica process stopped'));
    });
    const stop = port.onMessage((data) => {
      const answer = data as Partial<ReplicaFilesAnswer> | undefined;
      if (answer?.type !== REPLICA_FILES_ANSWER || answer.requestId !== requestId) return;
      stop();
      stopWatching?.();
      if (answer.inUse) reject(new ReplicaInUseError());
      else if (answer.error) reject(new Error(answer.error));
      else resolve(answer as ReplicaFilesAnswer);
    });
    const request: ReplicaFilesRequest = { type: REPLICA_FILES_REQUEST, requestId, databaseName, operation };
    port.postMessage(request);
  });
}

/**
 * Asks the browser to keep this site's storage (the replica, with the changes it has not sent)
 * rather than clear it when the disk runs short; answers whether it is kept (undefined where the
 * browser cannot say). Asked only while not kept: a browser may ask its user.
 */
export async function keepBrowserStorage(
  storage: Pick<StorageManager, 'persisted' | 'persist'> | undefined = globalThis.navigator?.storage,
): Promise<boolean | undefined> {
  if (!storage?.persisted) return undefined;
  try {
    if (await storage.persisted()) return true;
    return await storage.persist();
  } catch {
    return undefined;
  }
}
