import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import { emitterPort, type PortLike } from '@shared/message-port';

/**
 * The replica host in a worker thread serving `databaseDirectory`, standing in for the desktop
 * app's utility process (tests and benches): the page's end of its port, and how to stop it.
 */
export async function startReplicaThread(
  databaseDirectory: string,
): Promise<{ port: PortLike; stop(): Promise<void> }> {
  const channel = new MessageChannel();
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const worker = new Worker(fileURLToPath(new URL('./replica-worker.fixture.mjs', import.meta.url)), {
    workerData: { port: channel.port2, databaseDirectory },
    transferList: [channel.port2],
    env: { ...process.env, TSX_TSCONFIG_PATH: path.join(root, 'tsconfig.json') },
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  return {
    port: emitterPort(channel.port1),
    async stop() {
      channel.port1.close();
      await worker.terminate();
    },
  };
}
