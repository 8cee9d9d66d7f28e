import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { io as connectSocket } from 'socket.io-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testConfig } from '../../test/helpers/app';
import { createTestDatabase, latestMigration, type TestDatabase } from '../../test/helpers/database';
import { readJson } from '../../test/helpers/http';
import { probeModule } from '../../test/helpers/probe-module';
import { createLogger } from './platform/logging';
import { type RunningServer, startServer } from './server';

let database: TestDatabase | undefined;
let dataDir: string;
let server: RunningServer;

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'orbita-server-'));
  database = undefined;
});

afterEach(async () => {
  await server?.stop();
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

async function start(): Promise<RunningServer> {
  // On PostgreSQL the server gets an empty database of its own and migrates it at start; on the
  // embedded engine it opens DATA_DIR itself.
  const empty = await createTestDatabase({ migrated: false });
  if (empty.engine === 'postgres') database = empty;
  else await empty.drop();
  const config = testConfig({ databaseUrl: empty.engine === 'postgres' ? empty.url : undefined, dataDir });
  server = await startServer(config, createLogger(config), { extraModules: [probeModule] });
  return server;
}

describe('server lifecycle', () => {
  it('migrates its database at start and serves', async () => {
    const { url } = await start();
    const health = await readJson(await fetch(`${url}/api/health`));
    expect(health.database).toMatchObject({ status: 'up', schemaVersion: await latestMigration() });
  });

  it('finishes in-flight requests on shutdown, then refuses connections and closes the database', async () => {
    const { url, db } = await start();
    const inFlight = fetch(`${url}/api/probe/slow?ms=400`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopped = server.stop();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({ waitedMs: 400 });
    await stopped;
    await expect(fetch(`${url}/api/health`)).rejects.toThrow();
    await expect(db.query('SELECT 1')).rejects.toThrow();
  });

  it('reports stopping in health while draining', async () => {
    const { url } = await start();
    const inFlight = fetch(`${url}/api/probe/slow?ms=300`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    server.app.state.stopping = true;
    const health = await fetch(`${url}/api/health`);
    expect(health.status).toBe(503);
    expect(health.headers.get('connection')).toBe('close');
    expect((await readJson(health)).status).toBe('stopping');
    await inFlight;
  });

  it('serves Socket.IO on the same port and drops clients on shutdown so they reconnect elsewhere', async () => {
    const { url } = await start();
    const socket = connectSocket(url, { transports: ['websocket'], reconnection: false });
    await new Promise<void>((resolve, reject) => {
      socket.on('connect', () => resolve());
      socket.on('connect_error', reject);
    });
    expect(server.app.io.engine.clientsCount).toBe(1);
    const reason = new Promise<string>((resolve) => socket.on('disconnect', resolve));
    await server.stop();
    // 'transport close' (not 'io server disconnect') keeps the client's automatic reconnection on.
    expect(await reason).toBe('transport close');
    socket.close();
  });
});
