import path from 'node:path';
import {
  REPLICA_FILES_ANSWER,
  REPLICA_FILES_REQUEST,
  type ReplicaFilesAnswer,
  type ReplicaFilesRequest,
} from '@shared/desktop/bridge';
import type { PortLike } from '@shared/message-port';
import { META_INSTANCE_SCHEMA_TITLE, type RxStorage } from 'rxdb';
import type { MessageToRemote } from 'rxdb/plugins/storage-remote';
import { exposeRxStorageRemote } from 'rxdb/plugins/storage-remote';
import { NEVER, Subject } from 'rxjs';
import { getRxStorageMemoryMapped } from './rx-storage-memory-mapped';
import { databaseFileSize, databaseIsOpen, discardDatabaseFile, getRxStorageBetterSqlite } from './rx-storage-sqlite';

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
 * How long a discard waits for the copy's storage instances to close: the page that failed to open
 * it, or one reloading, closes its port.
 */
const DISCARD_WAIT_MS = 10_000;

interface HostOptions {
  /** Where the replicas' SQLite files are. */
  databaseDirectory: string;
  /** How long a discard waits for the copy to close (`DISCARD_WAIT_MS` unless set). */
  discardWaitMs?: number;
}

/** The copy is still open in this process after the wait: not discarded. */
class CopyInUseError extends Error {
  constructor() {
    super('the copy is still open in this app');
  }
}
/** The replicas' database names (`Replica.databaseName`): nothing else in the directory is discarded. */
const REPLICA_DATABASE_NAME = /^orbita-[0-9a-f-]{36}$/;

/** The settings that find a replica's files; refuses a name that is not a replica's. */
function replicaFiles(databaseDirectory: string, databaseName: string) {
  if (!REPLICA_DATABASE_NAME.test(databaseName)) throw new Error(`${databaseName} is not a replica`);
  return { databaseDirectory: path.resolve(databaseDirectory) };
}

/** Does what the page asks of a replica's files: what the answer carries besides its identity. */
async function answerFilesRequest(
  options: HostOptions,
  request: Partial<ReplicaFilesRequest>,
): Promise<Pick<ReplicaFilesAnswer, 'bytes'>> {
  const { databaseDirectory } = options;
  const databaseName = String(request.databaseName);
  if (request.operation === 'discard') {
    await discardReplica(databaseDirectory, databaseName, options.discardWaitMs ?? DISCARD_WAIT_MS);
    return {};
  }
  if (request.operation === 'size') {
    return { bytes: databaseFileSize(replicaFiles(databaseDirectory, databaseName), databaseName) };
  }
  throw new Error(`unknown operation ${String(request.operation)}`);
}

/**
 * Deletes the files of a replica that cannot be opened, once nothing in this process has it open.
 * A page whose open failed may still be closing what it had opened of it: that is waited for.
 */
async function discardReplica(databaseDirectory: string, databaseName: string, waitMs: number): Promise<void> {
  const settings = replicaFiles(databaseDirectory, databaseName);
  const until = Date.now() + waitMs;
  while (databaseIsOpen(settings, databaseName)) {
    if (Date.now() > until) throw new CopyInUseError();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  discardDatabaseFile(settings, databaseName);
}

/**
 * Serves the replica's storage (SQLite files in `databaseDirectory`) over a message port. It runs
 * in the Electron utility process, so a heavy sync never blocks the window; the renderer reaches
 * it with RxDB's remote storage (`renderer/src/data/storage.ts`).
 */
export function hostReplicaStorage(port: PortLike, options: HostOptions): () => void {
  const send = (message: unknown) => {
    try {
      port.postMessage(message);
    } catch {
      // The page is gone; its instances are being closed.
    }
  };
  // RxDB's remote side keeps a failed instance creation for good (later ones wait on it for ever):
  // after a failure a fresh remote side creates new instances; each stays with the one that made it.
  const sideOf = new Map<string, Subject<MessageToRemote>>();
  const sides: Subject<MessageToRemote>[] = [];
  let current: Subject<MessageToRemote>;
  const exposeSide = () => {
    const messages$ = new Subject<MessageToRemote>();
    sides.push(messages$);
    current = messages$;
    exposeRxStorageRemote({
      storage: replicaStorage(options.databaseDirectory),
      messages$: messages$.asObservable(),
      send: (message) => {
        if (message.method === 'create' && message.error !== undefined) {
          sideOf.delete(message.connectionId);
          if (current === messages$) exposeSide();
        }
        send(message);
      },
    });
  };
  exposeSide();
  const stop = port.onMessage((data) => {
    const files = data as Partial<ReplicaFilesRequest> | undefined;
    if (files?.type === REPLICA_FILES_REQUEST) {
      const answer = { type: REPLICA_FILES_ANSWER, requestId: String(files.requestId) } as const;
      void answerFilesRequest(options, files).then(
        (result) => send({ ...answer, ...result } satisfies ReplicaFilesAnswer),
        (error: unknown) =>
          send({
            ...answer,
            error: error instanceof Error ? error.message : String(error),
            ...(error instanceof CopyInUseError ? { inUse: true } : {}),
          } satisfies ReplicaFilesAnswer),
      );
      return;
    }
    const message = data as MessageToRemote;
    if (message.method === 'create') sideOf.set(message.connectionId, current);
    const side = sideOf.get(message.connectionId) ?? current;
    if (message.method === 'close' || message.method === 'remove') sideOf.delete(message.connectionId);
    side.next(message);
  });
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    stop();
    // A reloaded or closed page never says goodbye: close what it left open, as it would have.
    for (const [connectionId, side] of sideOf) {
      side.next({ connectionId, requestId: `closed-${connectionId}`, method: 'close', params: [] } as never);
    }
    sideOf.clear();
    for (const side of sides) side.complete();
  };
  const stopWatching = port.onClose?.(end);
  return () => {
    stopWatching?.();
    end();
  };
}
