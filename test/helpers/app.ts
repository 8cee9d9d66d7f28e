import { type App, createApp } from '../../server/src/app';
import { type Config, loadConfig } from '../../server/src/platform/config';
import { createLogger } from '../../server/src/platform/logging';
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
  /** fetch() relative to the app's URL. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Stops the app and drops its database. */
  close(): Promise<void>;
}

/** Boots the real app on an ephemeral port over a fresh database of its own. */
export async function startTestApp(
  options: { extraModules?: ModuleFactory[]; config?: Partial<Config>; database?: TestDatabase } = {},
): Promise<TestApp> {
  const config = testConfig(options.config);
  const database = options.database ?? (await createTestDatabase());
  const app = createApp({ config, db: database.db, logger: createLogger(config), extraModules: options.extraModules });
  const { url } = await app.listen();
  return {
    app,
    database,
    url,
    request: (path, init) => fetch(`${url}${path}`, init),
    async close() {
      await app.close();
      await database.drop();
    },
  };
}
