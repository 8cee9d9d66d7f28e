import type { PullResponse, PushResponse, SyncAck, SyncCheckpoint, SyncCollection, SyncDocument } from '@shared/sync';
import { io, type Socket } from 'socket.io-client';
import type { TestApp } from './app';

export interface SyncClient {
  socket: Socket;
  /** Messages of `sync:stream` received so far. */
  streamed: { collection: SyncCollection; documents: SyncDocument[]; checkpoint: SyncCheckpoint | null }[];
  pull(
    collection: SyncCollection,
    checkpoint: SyncCheckpoint | null,
    batchSize?: number,
  ): Promise<SyncAck<PullResponse>>;
  /** Pulls page after page to the end; returns every document and the final checkpoint. */
  pullAll(
    collection: SyncCollection,
    from?: SyncCheckpoint | null,
    batchSize?: number,
  ): Promise<PullResponse & { pages: number }>;
  push(
    collection: SyncCollection,
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
      let checkpoint = from;
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
    push: (collection, rows) => socket.emitWithAck('sync:push', { collection, rows }),
    close: () => socket.close(),
  };
  return client;
}
