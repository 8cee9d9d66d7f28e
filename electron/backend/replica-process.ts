import { REPLICA_STOP_MESSAGE } from '@shared/desktop/bridge';
import { emitterPort } from '@shared/message-port';
import { hostReplicaStorage } from './replica-host';
import { persistAllMemoryMapped } from './rx-storage-memory-mapped';

/**
 * Entry of the Electron utility process that owns the replica. The main process forks it with the
 * data directory as argument and hands it one end of a MessageChannelMain per window; the other end
 * goes to the window through the preload.
 */
interface ElectronParentPort {
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
parentPort.on('message', ({ data, ports }) => {
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
