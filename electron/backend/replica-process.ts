import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { REPLICA_STOP_MESSAGE } from '@shared/desktop/bridge';
import { DESKTOP_TILE_CACHE_BYTES } from '@shared/gps-tiles';
import { emitterPort } from '@shared/message-port';
import { hostReplicaStorage } from './replica-host';
import { persistAllMemoryMapped } from './rx-storage-memory-mapped';
import { TileCache } from './tile-cache';
import { answerTileRequest, isTileRequest } from './tile-service';

/**
 * Entry of the Electron utility process that owns the replica. The main process forks it with the
 * data directory as argument and hands it one end of a MessageChannelMain per window; the other end
 * goes to the window through the preload.
 */
interface ElectronParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown; ports: ElectronMessagePort[] }) => void): void;
}
interface ElectronMessagePort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
  off(event: 'message', listener: (event: { data: unknown }) => void): void;
  start(): void;
  close(): void;
}

const parentPort = (process as unknown as { parentPort?: ElectronParentPort }).parentPort;
const databaseDirectory = process.argv[2];
if (!parentPort || !databaseDirectory) {
  throw new Error(
    'replica-process runs as an Electron utility process: utilityProcess.fork(file, [databaseDirectory])',
  );
}
// The map's tiles, kept beside the replica (a hyphenated name no replica database's file can have).
let tileCache: TileCache | undefined;
parentPort.on('message', ({ data, ports }) => {
  if (isTileRequest(data)) {
    mkdirSync(databaseDirectory, { recursive: true });
    tileCache ??= new TileCache(path.join(databaseDirectory, 'tile-cache.sqlite'), DESKTOP_TILE_CACHE_BYTES);
    void answerTileRequest(tileCache, data).then(
      (answer) => parentPort.postMessage(answer),
      () => parentPort.postMessage({ type: 'orbita:tile-answer', requestId: data.requestId }),
    );
    return;
  }
  if ((data as { type?: unknown } | undefined)?.type === REPLICA_STOP_MESSAGE.type) {
    // The app quits: what is still only in memory goes to disk, then the process ends.
    persistAllMemoryMapped()
      .catch((error: Error) => console.error(`The replica could not save everything: ${error.message}`))
      .finally(() => process.exit(0));
    return;
  }
  for (const port of ports) {
    hostReplicaStorage(
      emitterPort(port as never, (event) => (event as { data: unknown }).data),
      { databaseDirectory },
    );
  }
});
