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
  // Storage instances the page opened and has not closed.
  const open = new Set<string>();
  const stop = port.onMessage((data) => {
    const message = data as MessageToRemote;
    if (message.method === 'create') open.add(message.connectionId);
    if (message.method === 'close' || message.method === 'remove') open.delete(message.connectionId);
    messages$.next(message);
  });
  exposeRxStorageRemote({
    storage: getRxStorageBetterSqlite({ databaseDirectory: options.databaseDirectory }),
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
