import { readdirSync } from 'node:fs';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { emitterPort } from '@shared/message-port';
import Database from 'better-sqlite3';
import { fillWithDefaultSettings, getRxReplicationMetaInstanceSchema } from 'rxdb';
import { hostReplicaStorage } from '../../electron/backend/replica-host';
import { getRxStorageBetterSqlite } from '../../electron/backend/rx-storage-sqlite';
import { Replica } from '../../renderer/src/data/replica';
import { collectionSchemas } from '../../renderer/src/data/schemas';
import { remoteReplicaStorage } from '../../renderer/src/data/storage';
import type { TestApp } from './app';
import type { Member } from './factories';

/**
 * `member`'s replica as the app opens it, on SQLite in memory, with a network that starts up or
 * down (`onLine`); `online()` brings it back, `offline()` takes it away.
 */
export async function memberReplica(t: TestApp, member: Member, options: { onLine: boolean }) {
  const listeners = new Map<string, () => void>();
  const replica = await Replica.open({
    userId: member.userId,
    serverUrl: t.url,
    storage: getRxStorageBetterSqlite({ databaseDirectory: ':memory:' }) as never,
    accessToken: () => member.client.accessToken,
    reauthenticate: async () => undefined,
    window: {
      navigator: { onLine: options.onLine },
      addEventListener: (type: string, listener: () => void) => listeners.set(type, listener),
      removeEventListener: (type: string) => listeners.delete(type),
    } as never,
  });
  return { replica, online: () => listeners.get('online')?.(), offline: () => listeners.get('offline')?.() };
}

/**
 * Takes every store out of the IndexedDB database `name` by upgrading it past the version its owner
 * opens (a damaged browser profile): its owner can no longer read it. Self-contained, so that it
 * also runs in a page (`page.evaluate(withoutStores, name)`, on the page's `indexedDB`).
 */
export function withoutStores(name: string, factory?: IDBFactory): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const request = (factory ?? indexedDB).open(name, 10_000);
    request.onupgradeneeded = () => {
      for (const store of [...request.result.objectStoreNames]) request.result.deleteObjectStore(store);
    };
    request.onsuccess = () => {
      request.result.close();
      resolve();
    };
    request.onerror = () => reject(request.error);
  });
}

/**
 * A task as a desktop replica keeps it in the SQLite files of `directory` (read beside the replica
 * process, as SQLite allows); undefined while none holds it.
 */
export function taskOnDisk(directory: string, taskId: string): { title?: string } | undefined {
  for (const file of readdirSync(directory).filter((name) => name.endsWith('.sqlite'))) {
    const db = new Database(path.join(directory, file), { readonly: true, fileMustExist: true });
    try {
      const tables = db
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'rx_tasks%'")
        .pluck()
        .all() as string[];
      for (const table of tables) {
        const data = db.prepare(`SELECT data FROM "${table}" WHERE id = ?`).pluck().get(taskId) as string | undefined;
        if (data) return JSON.parse(data) as { title?: string };
      }
    } finally {
      db.close();
    }
  }
  return undefined;
}

/**
 * `userId`'s desktop copy in `databaseDirectory` held open on a port of its own to the replica host,
 * as a page reloading holds it until its old port closes: the record of its replication of tasks,
 * which the replica process keeps on disk only. `release()` lets it go.
 */
export async function copyHeldElsewhere(databaseDirectory: string, userId: string) {
  const channel = new MessageChannel();
  const stopHosting = hostReplicaStorage(emitterPort(channel.port2), { databaseDirectory });
  const held = await remoteReplicaStorage(emitterPort(channel.port1)).createStorageInstance({
    databaseInstanceToken: 'reloading-page',
    databaseName: Replica.databaseName(userId),
    collectionName: 'rx-replication-meta-tasks-of-the-reloading-page',
    schema: getRxReplicationMetaInstanceSchema(fillWithDefaultSettings(collectionSchemas.tasks), false) as never,
    options: {},
    multiInstance: false,
    devMode: false,
  });
  return {
    async release() {
      await held.close();
      stopHosting();
      channel.port1.close();
    },
  };
}
