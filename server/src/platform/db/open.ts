import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config';
import { lockDataDir } from './data-dir-lock';
import type { Db } from './db';
import { createPgliteDb } from './pglite';
import { createPostgresDb } from './postgres';

/** Where the embedded engine keeps its files inside DATA_DIR. */
export function pgliteDirectory(dataDir: string): string {
  return path.join(dataDir, 'pglite');
}

/**
 * Opens the configured database: a pool to DATABASE_URL, or the embedded engine under DATA_DIR
 * (locked to this process while open).
 */
export async function openDatabase(config: Pick<Config, 'databaseUrl' | 'databasePoolMax' | 'dataDir'>): Promise<Db> {
  if (config.databaseUrl) return createPostgresDb(config.databaseUrl, { poolMax: config.databasePoolMax });
  const directory = pgliteDirectory(config.dataDir);
  await mkdir(directory, { recursive: true });
  const unlock = await lockDataDir(directory);
  try {
    const db = await createPgliteDb(directory);
    return {
      ...db,
      async close() {
        await db.close();
        await unlock();
      },
    };
  } catch (error) {
    await unlock();
    throw error;
  }
}

/** How the database is named in logs: never with its password. */
export function describeDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  if (!config.databaseUrl) return `embedded PGlite at ${path.resolve(pgliteDirectory(config.dataDir))}`;
  try {
    const url = new URL(config.databaseUrl);
    return `PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname}`;
  } catch {
    return 'PostgreSQL';
  }
}
