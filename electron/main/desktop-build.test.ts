import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { MessageChannel, Worker } from 'node:worker_threads';
import { REPLICA_STOP_MESSAGE } from '@shared/desktop/bridge';
import { emitterPort } from '@shared/message-port';
import { createRxDatabase } from 'rxdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteReplicaStorage } from '../../renderer/src/data/storage';
import { getRxStorageBetterSqlite } from '../backend/rx-storage-sqlite';
import { NOTE_SCHEMA } from '../backend/storage-documents.fixture';
import { BUNDLES } from './desktop-app';
import { REPLICA_CONNECT_MESSAGE } from './replica-service';

const root = fileURLToPath(new URL('../..', import.meta.url));

let outdir: string;

/** Every module a bundle requires, and how many `require(` calls name no module literally. */
function requiresOf(file: string): { modules: string[]; dynamic: number } {
  const code = readFileSync(file, 'utf8');
  const literal = [...code.matchAll(/\brequire\(\s*(["'`])([^"'`]+)\1\s*\)/g)].map((match) => match[2] ?? '');
  const all = code.match(/\brequire\(/g)?.length ?? 0;
  return { modules: [...new Set(literal)].sort(), dynamic: all - literal.length };
}

beforeAll(async () => {
  // Inside the project, so the bundles resolve better-sqlite3 from its node_modules as they would in the app.
  const cache = path.join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  outdir = await mkdtemp(path.join(cache, 'orbita-desktop-build-'));
  await promisify(execFile)(process.execPath, ['scripts/build-desktop.mjs', '--outdir', outdir], { cwd: root });
}, 120_000);

afterAll(async () => {
  await rm(outdir, { recursive: true, force: true });
});

const bundle = (name: keyof typeof BUNDLES) => path.join(outdir, path.basename(BUNDLES[name]));

/**
 * The bundled replica process in a worker thread, as Electron's utility process would run it, with
 * a database on the port handed to it as the main process does.
 */
async function bundledReplica(prefix: string, databaseName: string) {
  const databaseDirectory = await mkdtemp(path.join(tmpdir(), prefix));
  const worker = new Worker(fileURLToPath(new URL('./replica-process.fixture.cjs', import.meta.url)), {
    workerData: { bundle: bundle('replicaProcess') },
    argv: [databaseDirectory],
  });
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  const channel = new MessageChannel();
  const stop = async () => {
    channel.port1.close();
    await worker.terminate();
    await rm(databaseDirectory, { recursive: true, force: true });
  };
  try {
    await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    worker.postMessage({ message: REPLICA_CONNECT_MESSAGE, port: channel.port2 }, [channel.port2]);
    const db = await createRxDatabase({
      name: databaseName,
      storage: remoteReplicaStorage(emitterPort(channel.port1)),
      multiInstance: false,
    });
    const { notes } = await db.addCollections({ notes: { schema: NOTE_SCHEMA } });
    return { databaseDirectory, worker, exited, channel, db, notes, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

describe('desktop build', () => {
  it('writes the main, preload and replica-process bundles where the main process looks for them', () => {
    expect(readdirSync(outdir).sort()).toEqual(['main.cjs', 'preload.cjs', 'replica-process.cjs']);
    for (const name of ['main', 'preload', 'replicaProcess'] as const) {
      expect(BUNDLES[name].startsWith('electron/dist/')).toBe(true);
      const code = readFileSync(bundle(name), 'utf8');
      expect(code.startsWith('"use strict";'), name).toBe(true);
      expect(code, name).not.toMatch(/^import\s/m);
    }
  });

  it("bundles the preload into one file whose only require is 'electron'", () => {
    expect(requiresOf(bundle('preload'))).toEqual({ modules: ['electron'], dynamic: 0 });
    expect(readFileSync(bundle('preload'), 'utf8')).toContain('exposeInMainWorld("orbita"');
  });

  it('leaves only electron, better-sqlite3 and Node built-ins outside the other bundles', () => {
    const main = requiresOf(bundle('main'));
    expect(main.dynamic).toBe(0);
    expect(main.modules.filter((name) => !name.startsWith('node:'))).toEqual(['electron']);
    const replica = requiresOf(bundle('replicaProcess'));
    expect(replica.dynamic).toBe(0);
    expect(replica.modules.filter((name) => !name.startsWith('node:'))).toEqual(['better-sqlite3']);
  });

  it('runs the bundled replica process: it serves the replica over a port handed as the main process does', async () => {
    const replica = await bundledReplica('orbita-replica-bundle-', 'bundle-smoke');
    try {
      await replica.notes.insert({ id: 'n1', text: 'kept in SQLite' });
      const found = await replica.notes.findOne('n1').exec();
      expect(found?.get('text')).toBe('kept in SQLite');
      await replica.db.close();
      expect(readdirSync(replica.databaseDirectory).some((name) => name.endsWith('.sqlite'))).toBe(true);
    } finally {
      await replica.stop();
    }
  });

  it('saves the replica and exits when the main process tells it to stop', async () => {
    const replica = await bundledReplica('orbita-replica-stop-', 'quitting');
    try {
      await replica.notes.insert({ id: 'n1', text: 'written as the app quits' });
      // The window is still open: the app quits under it.
      replica.worker.postMessage({ message: REPLICA_STOP_MESSAGE });
      expect(await replica.exited).toBe(0);
      replica.channel.port1.close();

      const reopened = await createRxDatabase({
        name: 'quitting',
        storage: getRxStorageBetterSqlite({ databaseDirectory: replica.databaseDirectory }),
        multiInstance: false,
      });
      const again = (await reopened.addCollections({ notes: { schema: NOTE_SCHEMA } })).notes;
      expect((await again.findOne('n1').exec())?.get('text')).toBe('written as the app quits');
      await reopened.close();
    } finally {
      await replica.stop();
    }
  });

  it('answers tile requests from the bundled replica process through its SQLite tile cache, also with the tile server stopped', async () => {
    const replica = await bundledReplica('orbita-replica-tiles-', 'tiles');
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'image/png' });
      response.end(Buffer.from('a tile'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/3/4/2.png`;
    const ask = (requestId: number) =>
      new Promise<{ requestId: number; data?: Uint8Array; contentType?: string }>((resolve) => {
        const listen = (message: { fromProcess?: { type: string; requestId: number } }) => {
          if (message.fromProcess?.type !== 'orbita:tile-answer' || message.fromProcess.requestId !== requestId) return;
          replica.worker.off('message', listen);
          resolve(message.fromProcess);
        };
        replica.worker.on('message', listen);
        replica.worker.postMessage({ message: { type: 'orbita:tile-request', requestId, url } });
      });
    try {
      const online = await ask(1);
      expect(online.contentType).toBe('image/png');
      expect(Buffer.from(online.data ?? []).toString()).toBe('a tile');
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      expect(Buffer.from((await ask(2)).data ?? []).toString()).toBe('a tile');
      expect(readdirSync(replica.databaseDirectory)).toContain('tile-cache.sqlite');
    } finally {
      server.close();
      await replica.stop();
    }
  });

  it('starts the bundled main process against Electron: one window on the link it was given', async () => {
    // A folder of its own, so the bundle's require('electron') finds the stand-in.
    const sandbox = await mkdtemp(path.join(tmpdir(), 'orbita-main-bundle-'));
    try {
      mkdirSync(path.join(sandbox, 'node_modules', 'electron'), { recursive: true });
      copyFileSync(
        fileURLToPath(new URL('./fake-electron.fixture.cjs', import.meta.url)),
        path.join(sandbox, 'node_modules', 'electron', 'index.js'),
      );
      copyFileSync(bundle('main'), path.join(sandbox, 'main.cjs'));
      const appPath = path.join(sandbox, 'app');
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [path.join(sandbox, 'main.cjs'), 'orbita://tasks/0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b'],
        {
          cwd: sandbox,
          env: { ...process.env, FAKE_APP_PATH: appPath, FAKE_USER_DATA: path.join(sandbox, 'userData') },
        },
      );
      const report = JSON.parse(stdout);
      expect(report.calls.slice(0, 2)).toEqual(['registerSchemesAsPrivileged:app', 'requestSingleInstanceLock']);
      expect(report.calls).toContain('handle:app');
      expect(report.protocolClients).toEqual([['orbita']]);
      expect(report.forks).toEqual([
        { modulePath: path.join(appPath, BUNDLES.replicaProcess), args: [path.join(sandbox, 'userData', 'replica')] },
      ]);
      expect(report.menus).toEqual([['File', 'Edit', 'View', 'Window', 'Help']]);
      expect(report.windows).toHaveLength(1);
      expect(report.windows[0].loaded).toEqual(['app://orbita/tasks/0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b']);
      expect(report.windows[0].options.webPreferences).toMatchObject({
        preload: path.join(appPath, BUNDLES.preload),
        contextIsolation: true,
        nodeIntegration: false,
        sandbox: true,
        additionalArguments: ['--orbita-server-url=http://localhost:3000', '--orbita-app-version=9.9.9'],
      });
    } finally {
      await rm(sandbox, { recursive: true, force: true });
    }
  });
});

describe('desktop launcher', () => {
  const launcher = () =>
    import(pathToFileURL(path.join(root, 'electron', 'launch.mjs')).href) as Promise<{
      electronBinary(load: (name: string) => unknown): string | undefined;
      missingElectronMessage(version: string): string;
      nativeModuleMessage(version: string): string;
      sqliteLoadsIn(binary: string): boolean;
    }>;

  it('finds the Electron binary only when the package and its binary are installed', async () => {
    const { electronBinary } = await launcher();
    expect(
      electronBinary(() => {
        throw new Error("Cannot find module 'electron'");
      }),
    ).toBeUndefined();
    expect(electronBinary(() => path.join(root, 'no-such-electron-binary'))).toBeUndefined();
    expect(electronBinary(() => process.execPath)).toBe(process.execPath);
  });

  it('says how to install Electron when it is missing', async () => {
    const { missingElectronMessage } = await launcher();
    const message = missingElectronMessage('40.8.5');
    expect(message).toContain('Electron is not installed');
    expect(message).toContain('npm install --no-save electron@40.8.5');
    expect(message).toContain('npm run desktop');
  });

  it('checks that better-sqlite3 loads in the runtime it will run in, and says how to fix it', async () => {
    const { sqliteLoadsIn, nativeModuleMessage } = await launcher();
    // Under the tests it is built for this Node.
    expect(sqliteLoadsIn(process.execPath)).toBe(true);
    expect(sqliteLoadsIn(path.join(root, 'no-such-electron-binary'))).toBe(false);
    expect(nativeModuleMessage('40.8.5')).toContain('--runtime electron --target 40.8.5');
    expect(nativeModuleMessage('40.8.5')).toContain('npm rebuild better-sqlite3');
  });
});
