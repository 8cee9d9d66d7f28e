import { ConfigError, loadConfig } from './platform/config';
import { DataDirLockedError } from './platform/db/data-dir-lock';
import { MigrationError } from './platform/db/migrations';
import { createLogger } from './platform/logging';
import { startServer } from './server';

const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
})();
const logger = createLogger(config);

function explain(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    return `Port ${config.port} is already in use: stop the program using it, or set PORT to another port.`;
  }
  if (code === 'ECONNREFUSED') {
    return 'The PostgreSQL server in DATABASE_URL refuses connections: start it, or unset DATABASE_URL to use the embedded database.';
  }
  if (error instanceof MigrationError || error instanceof DataDirLockedError) return error.message;
  return `Start-up failed: ${(error as Error).message}`;
}

try {
  const server = await startServer(config, logger);
  let signals = 0;
  const shutdown = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      logger.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    logger.info({ signal }, 'signal received');
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
} catch (error) {
  logger.fatal({ err: error }, explain(error));
  process.exitCode = 1;
}
