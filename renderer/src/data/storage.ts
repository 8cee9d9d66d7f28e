import type { PortLike } from '@shared/message-port';
import type { RxStorage } from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { getRxStorageRemote, type MessageFromRemote } from 'rxdb/plugins/storage-remote';
import { Subject } from 'rxjs';

/**
 * The desktop replica's storage: the SQLite storage in the utility process, reached over the
 * message port the preload hands to the window.
 */
export function remoteReplicaStorage(port: PortLike): RxStorage<unknown, unknown> {
  return getRxStorageRemote({
    identifier: 'orbita-replica',
    mode: 'storage',
    async messageChannelCreator() {
      const messages$ = new Subject<MessageFromRemote>();
      const stop = port.onMessage((data) => messages$.next(data as MessageFromRemote));
      return {
        messages$,
        send: (message) => port.postMessage(message),
        async close() {
          stop();
          messages$.complete();
        },
      };
    },
  }) as unknown as RxStorage<unknown, unknown>;
}

/** The browser build's storage: RxDB's free IndexedDB (Dexie) storage. */
export function browserReplicaStorage(indexedDB?: {
  indexedDB: IDBFactory;
  IDBKeyRange: typeof IDBKeyRange;
}): RxStorage<unknown, unknown> {
  return getRxStorageDexie(indexedDB ?? {}) as unknown as RxStorage<unknown, unknown>;
}
