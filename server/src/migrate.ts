import { ConfigError, loadConfig } from './platform/config';
import { runMigrations } from './platform/db/migrations';
import { describeDatabase, openDatabase } from './platform/db/open';
import { createLogger } from './platform/logging';

// `npm run migrate`: applies pending migrations to the configured database, then exits.
try {
  const config = loadConfig();
  const logger = createLogger(config);
  const db = await openDatabase(config);
  try {
    const outcome = await runMigrations(db, { logger });
    logger.info(
      { applied: outcome.applied, schemaVersion: outcome.schemaVersion },
      `${describeDatabase(config)}: ${outcome.applied.length} migrations applied, schema at ${outcome.schemaVersion}`,
    );
  } finally {
    await db.close();
  }
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : `Migration failed: ${(error as Error).message}`);
  process.exitCode = 1;
}
