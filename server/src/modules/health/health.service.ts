import type { Health } from '@shared/api/health';
import type { Db } from '../../platform/db/db';
import { currentSchemaVersion } from '../../platform/db/migrations';
import type { Logger } from '../../platform/logging';

const DATABASE_CHECK_TIMEOUT_MS = 3_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Asks the database a trivial question; a failure or a slow answer counts as down. */
export async function checkDatabase(db: Db, log: Pick<Logger, 'warn'>): Promise<Health['database']> {
  const started = performance.now();
  try {
    const schemaVersion = await withTimeout(currentSchemaVersion(db), DATABASE_CHECK_TIMEOUT_MS);
    const latencyMs = Math.round((performance.now() - started) * 100) / 100;
    return { status: 'up', engine: db.engine, latencyMs, schemaVersion };
  } catch (error) {
    log.warn({ err: error }, 'health check: the database did not answer');
    return { status: 'down', engine: db.engine };
  }
}
