import type { PortLike } from '@shared/message-port';
import type { MessageToRemote } from 'rxdb/plugins/storage-remote';
import { exposeRxStorageRemote } from 'rxdb/plugins/storage-remote';
import { Subject } from 'rxjs';
import { getRxStorageBetterSqlite } from './rx-storage-sqlite';

/**
 * Serves the replica's storage (SQLite files in `databaseDirectory`) over a message port. It runs
 * in the Electron utility process, so a heavy sync never blocks the window; the renderer reaches
 * it with RxDB's remote storage (`renderer/src/data/storage.ts`).
 */
export function hostReplicaStorage(port: PortLike, options: { databaseDirectory: string }): () => void {
  const messages$ = new Subject<MessageToRemote>();
  const stop = port.onMessage((data) => messages$.next(data as MessageToRemote));
  exposeRxStorageRemote({
    storage: getRxStorageBetterSqlite({ databaseDirectory: options.databaseDirectory }),
    messages$: messages$.asObservable(),
    send: (message) => port.postMessage(message),
  });
  return () => {
    stop();
    messages$.complete();
  };
}
