import type { PullResponse, PushResponse, SyncAck, SyncCheckpoint, SyncDocument } from '@shared/sync';
import { META_INSTANCE_SCHEMA_TITLE, type RxStorage } from 'rxdb';
import type { RxReplicationState } from 'rxdb/plugins/replication';
import { io, type Socket } from 'socket.io-client';
import { afterAll } from 'vitest';
import WebSocket from 'ws';
import { type KeptName, KeptRecord, keptItemId } from '../../renderer/src/data/kept-records';
import type { KeptOnDevice, SentStates } from '../../renderer/src/data/socket-replication';
import type { TestApp } from './app';

export interface SyncClient {
  socket: Socket;
  /** Messages of `sync:stream` received so far. */
  streamed: { collection: string; documents: SyncDocument[]; checkpoint: SyncCheckpoint | null }[];
  pull(collection: string, checkpoint: SyncCheckpoint | null, batchSize?: number): Promise<SyncAck<PullResponse>>;
  /** Pulls page after page to the end; returns every document and the final checkpoint. */
  pullAll(
    collection: string,
    from?: SyncCheckpoint | null,
    batchSize?: number,
  ): Promise<PullResponse & { pages: number }>;
  /**
   * Pulls until `done(documents)` holds (or 5 s pass). A pull sees only transactions older than
   * every running one — in the whole PostgreSQL cluster, so parallel test files can delay (never
   * drop) what it returns.
   */
  pullUntil(
    collection: string,
    done: (documents: SyncDocument[]) => boolean,
    from?: SyncCheckpoint | null,
    batchSize?: number,
  ): Promise<PullResponse & { pages: number }>;
  push(
    collection: string,
    rows: { assumedMasterState: SyncDocument | null; newDocumentState: SyncDocument }[],
  ): Promise<SyncAck<PushResponse>>;
  close(): void;
}

/** A replica's connection to `/sync` of the app under test. */
export async function connectSync(t: Pick<TestApp, 'url'>, token: string): Promise<SyncClient> {
  const socket = io(`${t.url}/sync`, { auth: { token }, transports: ['websocket'], reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const streamed: SyncClient['streamed'] = [];
  socket.on('sync:stream', (message) => streamed.push(message));
  const client: SyncClient = {
    socket,
    streamed,
    pull: (collection, checkpoint, batchSize = 100) =>
      socket.emitWithAck('sync:pull', { collection, checkpoint, batchSize }),
    async pullAll(collection, from = null, batchSize = 100) {
      const documents: SyncDocument[] = [];
      let checkpoint: SyncCheckpoint | null = from;
      let pages = 0;
      for (;;) {
        const answer = await client.pull(collection, checkpoint, batchSize);
        if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
        pages += 1;
        documents.push(...answer.data.documents);
        checkpoint = answer.data.checkpoint;
        if (answer.data.documents.length < batchSize) return { documents, checkpoint, pages };
      }
    },
    async pullUntil(collection, done, from = null, batchSize = 100) {
      const documents: SyncDocument[] = [];
      let checkpoint: SyncCheckpoint | null = from;
      let pages = 0;
      const deadline = Date.now() + 5_000;
      for (;;) {
        const page = await client.pullAll(collection, checkpoint, batchSize);
        documents.push(...page.documents);
        pages += page.pages;
        checkpoint = page.checkpoint;
        if (done(documents) || Date.now() > deadline) return { documents, checkpoint, pages };
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    push: (collection, rows) => socket.emitWithAck('sync:push', { collection, rows }),
    close: () => socket.close(),
  };
  return client;
}

/**
 * Connects sync clients for a test file, signed in as the given members, and closes them after
 * the file's tests. `app` is read at each connection (the app starts in the file's beforeAll).
 */
export function syncClients(app: () => TestApp) {
  const clients: SyncClient[] = [];
  afterAll(() => {
    for (const client of clients) client.close();
  });
  return async (member: { client: { accessToken?: string } }): Promise<SyncClient> => {
    const client = await connectSync(app(), member.client.accessToken as string);
    clients.push(client);
    return client;
  };
}

/**
 * Sends one `/sync` event written as raw JSON text over Engine.IO's WebSocket transport, and
 * resolves with its acknowledgement: for messages the Socket.IO client cannot encode itself (it
 * walks every value recursively, so a document nested thousands deep overflows its stack first).
 */
export async function rawSyncCall(
  t: Pick<TestApp, 'url'>,
  token: string,
  event: string,
  payloadJson: string,
): Promise<unknown> {
  const socket = new WebSocket(`${t.url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`);
  try {
    return await new Promise((resolve, reject) => {
      socket.on('error', reject);
      socket.on('message', (data) => {
        const text = data.toString();
        if (text.startsWith('0')) socket.send(`40/sync,${JSON.stringify({ token })}`);
        else if (text === '2') socket.send('3');
        else if (text.startsWith('40/sync,')) socket.send(`42/sync,1[${JSON.stringify(event)},${payloadJson}]`);
        else if (text.startsWith('44/sync,')) reject(new Error(`refused: ${text}`));
        else if (text.startsWith('43/sync,1')) resolve((JSON.parse(text.slice('43/sync,1'.length)) as unknown[])[0]);
      });
    });
  } finally {
    socket.close();
  }
}

/**
 * What a replica of an earlier release kept on the device between two runs of the app (as JSON, as
 * it was stored): the replication takes it when it starts, then clears it.
 */
export function deviceKeeping<T = SentStates>(): KeptOnDevice<T> {
  let kept = {} as T;
  return {
    load: () => kept,
    save: (value: T) => {
      kept = JSON.parse(JSON.stringify(value)) as T;
    },
  };
}

/**
 * `storage` recording what replications keep with their records (`KeptRecord`): `saved(name)` is
 * every map stored under `name`, in order, whichever replication stored it; `now(name)` is what
 * every replication holds under `name` now, merged.
 */
export function recordingKept(storage: RxStorage<unknown, unknown>) {
  const saves: { records: string; itemId: string; kept: Record<string, unknown> }[] = [];
  const recording: RxStorage<unknown, unknown> = {
    ...storage,
    async createStorageInstance(params) {
      const instance = await storage.createStorageInstance(params);
      if (params.schema.title !== META_INSTANCE_SCHEMA_TITLE) return instance;
      const bulkWrite = instance.bulkWrite.bind(instance);
      return Object.assign(Object.create(instance) as typeof instance, {
        bulkWrite: (async (rows, context) => {
          const result = await bulkWrite(rows, context);
          const refused = new Set(result.error.map((error) => error.documentId));
          for (const { document } of rows) {
            const { id, itemId, checkpointData } = document as unknown as {
              id: string;
              itemId: string;
              checkpointData: unknown;
            };
            if (!itemId.startsWith('kept:') || refused.has(id)) continue;
            saves.push({
              records: params.collectionName,
              itemId,
              kept: JSON.parse(JSON.stringify(checkpointData)) as Record<string, unknown>,
            });
          }
          return result;
        }) as typeof instance.bulkWrite,
      });
    },
  };
  return {
    storage: recording,
    saved: (name: KeptName) => saves.filter((save) => save.itemId === keptItemId(name)).map((save) => save.kept),
    now(name: KeptName): Record<string, unknown> {
      const latest = new Map<string, Record<string, unknown>>();
      for (const save of saves) if (save.itemId === keptItemId(name)) latest.set(save.records, save.kept);
      return Object.assign({}, ...latest.values());
    },
  };
}

/**
 * Stores `kept` as what `replication` (started, not stopped) keeps with its records under `name`,
 * as an app quitting right then leaves it; the replication itself goes on with what it holds.
 */
export async function keepWithRecords(
  // biome-ignore lint/suspicious/noExplicitAny: any replication, whatever its documents and checkpoints.
  replication: RxReplicationState<any, any>,
  name: KeptName,
  kept: Record<string, unknown>,
): Promise<void> {
  await replication.startPromise;
  const internal = replication.internalReplicationState;
  if (!internal) throw new Error('The replication has not started');
  await new KeptRecord(internal.input.metaInstance, replication.collection.database.token, name).save(kept);
}
