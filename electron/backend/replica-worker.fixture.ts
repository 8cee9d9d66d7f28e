import { parentPort, workerData } from 'node:worker_threads';
import { emitterPort } from '@shared/message-port';
import { hostReplicaStorage } from './replica-host';

// Stands in for the Electron utility process in tests: a separate thread owning the SQLite files.
const { port, databaseDirectory } = workerData as {
  port: import('node:worker_threads').MessagePort;
  databaseDirectory: string;
};
hostReplicaStorage(emitterPort(port), { databaseDirectory });
parentPort?.postMessage('ready');
