import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createPostgresDb } from '../server/src/platform/db/postgres';
import { benchApp } from './lib';

/**
 * The server in a process of its own over the bench database, as it runs in production (never in
 * the desktop app's process): its work overlaps the client's on another core. Returns its URL and
 * how to stop it.
 */
export async function benchServerProcess(databaseUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, ORBITA_BENCH_DATABASE_URL: databaseUrl },
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (message) => resolve(String(message)));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the bench server process exited (${code}) before listening`)));
  });
  return {
    url,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

// In the child: serve the database named by the parent until told to stop.
if (process.send && process.env.ORBITA_BENCH_DATABASE_URL) {
  const db = createPostgresDb(process.env.ORBITA_BENCH_DATABASE_URL);
  const { app, url } = await benchApp({ db, drop: async () => undefined });
  process.on('SIGTERM', () => {
    void app
      .close()
      .then(
        () => db.close(),
        () => undefined,
      )
      .finally(() => process.exit(0));
  });
  process.send(url);
}
