import { runBillingCommand } from './modules/billing/billing.cli';
import { ConfigError, loadConfig } from './platform/config';
import { runMigrations } from './platform/db/migrations';
import { openDatabase } from './platform/db/open';
import { createLogger } from './platform/logging';

// `npm run billing -- block|unblock|adjust|threshold ORG …`: the operator's billing tools.
try {
  const config = loadConfig();
  const logger = createLogger({ logLevel: 'warn' });
  const db = await openDatabase(config);
  try {
    await runMigrations(db, { logger });
    const outcome = await runBillingCommand(db, logger, process.argv.slice(2));
    console.log(outcome.output);
    process.exitCode = outcome.exitCode;
  } finally {
    await db.close();
  }
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : `Billing command failed: ${(error as Error).message}`);
  process.exitCode = 1;
}
