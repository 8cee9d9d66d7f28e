import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, latestMigration, migrationCount, type TestDatabase, testEngine } from './helpers/database';
import { readJson } from './helpers/http';
import { runScript, type ServerProcess } from './helpers/server-process';

let dataDir: string;
const running: ServerProcess[] = [];
const databases: TestDatabase[] = [];

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'orbita-start-'));
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
  await Promise.all(databases.splice(0).map((database) => database.drop()));
  await rm(dataDir, { recursive: true, force: true });
});

function start(env: Record<string, string>) {
  const server = runScript('start', { PORT: '0', HOST: '127.0.0.1', ...env });
  running.push(server);
  return server;
}

async function health(url: string) {
  const response = await fetch(`${url}/api/health`);
  return { status: response.status, body: await readJson(response) };
}

describe('npm start', () => {
  // Each test starts real processes: cold starts take long on a busy machine.
  // Two cold starts of the real process on a fresh embedded database: slow on a busy machine.
  it('runs on the embedded engine with no set-up, stops cleanly, and keeps its data for the next start', async () => {
    const first = start({ DATA_DIR: dataDir });
    const url = await first.listening;
    expect(await health(url)).toMatchObject({
      status: 200,
      body: { status: 'ok', database: { engine: 'pglite', schemaVersion: await latestMigration() } },
    });
    expect(first.output.join('\n')).toContain(`${await migrationCount()} migrations applied now`);
    expect(await first.stop()).toBe(0);
    expect(first.output.join('\n')).toMatch(/shutdown complete/);

    const second = start({ DATA_DIR: dataDir });
    const secondUrl = await second.listening;
    expect((await health(secondUrl)).body.database.schemaVersion).toBe(await latestMigration());
    // The journal persisted: nothing is applied again.
    expect(second.output.join('\n')).toMatch(/0 migrations applied now/);
  }, 90_000);

  it('runs on the PostgreSQL server named by DATABASE_URL, migrating it at start', async (context) => {
    if (testEngine() !== 'postgres') context.skip('needs a PostgreSQL server');
    const database = await createTestDatabase({ migrated: false });
    databases.push(database);
    const server = start({ DATABASE_URL: database.url as string, DATA_DIR: dataDir });
    const url = await server.listening;
    expect((await health(url)).body.database).toMatchObject({ status: 'up', engine: 'postgres' });
    const { rows } = await database.db.query('SELECT name FROM migration_journal ORDER BY version DESC LIMIT 1');
    expect(rows).toEqual([{ name: await latestMigration() }]);
    expect(await server.stop()).toBe(0);
  }, 90_000);

  it('refuses a second server on the same data directory with a message saying what to do', async () => {
    const first = start({ DATA_DIR: dataDir });
    await first.listening;
    const second = start({ DATA_DIR: dataDir });
    expect(await second.exited).toBe(1);
    expect(second.output.join('\n')).toMatch(/in use by another Orbita process.*set DATA_DIR/);
    expect((await health(await first.listening)).status).toBe(200);
  }, 90_000);

  it('stops at once with a clear message on a bad setting', async () => {
    const server = start({ PORT: 'eighty', DATA_DIR: dataDir });
    expect(await server.exited).toBe(1);
    expect(server.output.join('\n')).toMatch(/PORT: .*"eighty"/);
  }, 90_000);
});

describe('npm run migrate', () => {
  it('applies the migrations to the configured database and exits', async () => {
    const migrate = runScript('migrate', { DATA_DIR: dataDir });
    running.push(migrate);
    expect(await migrate.exited).toBe(0);
    expect(migrate.output.join('\n')).toContain(
      `${await migrationCount()} migrations applied, schema at ${await latestMigration()}`,
    );
    const again = runScript('migrate', { DATA_DIR: dataDir });
    running.push(again);
    expect(await again.exited).toBe(0);
    expect(again.output.join('\n')).toMatch(/0 migrations applied/);
  }, 90_000);
});
