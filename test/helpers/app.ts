import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type App, createApp } from '../../server/src/app';
import { type Config, loadConfig } from '../../server/src/platform/config';
import { createLogger } from '../../server/src/platform/logging';
import type { Mailer } from '../../server/src/platform/mail/mailer';
import type { ModuleFactory } from '../../server/src/platform/module';
import { createTestDatabase, type TestDatabase } from './database';

/** Configuration for an app under test: ephemeral port on loopback, silent logs. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({ NODE_ENV: 'test', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' }),
    ...overrides,
  };
}

export interface TestApp {
  app: App;
  database: TestDatabase;
  url: string;
  /** The app's DATA_DIR: a fresh temporary directory unless the test gave one (mail outbox is here). */
  dataDir: string;
  /** fetch() relative to the app's URL. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Stops the app and drops its database. */
  close(): Promise<void>;
}

/** Boots the real app on an ephemeral port over a fresh database of its own. */
export async function startTestApp(
  options: {
    extraModules?: ModuleFactory[];
    config?: Partial<Config>;
    database?: TestDatabase;
    webRoot?: string;
    mailer?: Mailer;
  } = {},
): Promise<TestApp> {
  const ownDataDir = options.config?.dataDir === undefined;
  const dataDir = options.config?.dataDir ?? mkdtempSync(path.join(tmpdir(), 'orbita-app-'));
  const config = testConfig({ ...options.config, dataDir });
  const database = options.database ?? (await createTestDatabase());
  const app = createApp({
    config,
    db: database.db,
    logger: createLogger(config),
    extraModules: options.extraModules,
    // E2E_WEB_ROOT: a build of the interface of one's own, served instead of renderer/dist.
    webRoot: options.webRoot ?? process.env.E2E_WEB_ROOT,
    mailer: options.mailer,
  });
  const { url } = await app.listen();
  return {
    app,
    database,
    url,
    dataDir,
    request: (route, init) => fetch(`${url}${route}`, init),
    async close() {
      await app.close();
      await database.drop();
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
