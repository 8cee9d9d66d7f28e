import { type App, createApp } from './app';
import type { Config } from './platform/config';
import type { Db } from './platform/db/db';
import { runMigrations } from './platform/db/migrations';
import { describeDatabase, openDatabase } from './platform/db/open';
import type { Logger } from './platform/logging';
import type { ModuleFactory } from './platform/module';

export interface RunningServer {
  app: App;
  db: Db;
  url: string;
  port: number;
  /** Graceful shutdown: in-flight requests finish, then sockets and the database pool close. */
  stop(): Promise<void>;
}

/** Opens the database, applies pending migrations, and starts serving. */
export async function startServer(
  config: Config,
  logger: Logger,
  options: { extraModules?: ModuleFactory[] } = {},
): Promise<RunningServer> {
  logger.info({ database: describeDatabase(config) }, `opening the database: ${describeDatabase(config)}`);
  const db = await openDatabase(config);
  try {
    const migrations = await runMigrations(db, { logger });
    logger.info(
      { applied: migrations.applied.length, schemaVersion: migrations.schemaVersion },
      `database schema at ${migrations.schemaVersion} (${migrations.applied.length} migrations applied now)`,
    );
    const app = createApp({ config, db, logger, extraModules: options.extraModules });
    const { port, url } = await app.listen();
    logger.info({ url, port, engine: db.engine }, `Orbita is listening on ${url}`);
    let stopping: Promise<void> | undefined;
    return {
      app,
      db,
      url,
      port,
      stop() {
        stopping ??= (async () => {
          logger.info('shutting down: finishing in-flight requests');
          await app.close();
          await db.close();
          logger.info('shutdown complete');
        })();
        return stopping;
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
