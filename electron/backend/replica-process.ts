import { emitterPort } from '@shared/message-port';
import { hostReplicaStorage } from './replica-host';

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
parentPort.on('message', ({ ports }) => {
  for (const port of ports) {
    hostReplicaStorage(
      emitterPort(port as never, (event) => (event as { data: unknown }).data),
      { databaseDirectory },
    );
  }
});
