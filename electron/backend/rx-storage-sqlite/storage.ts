import type { RxDocumentData, RxJsonSchema, RxStorage, RxStorageInstanceCreationParams } from 'rxdb';
import { ensureRxStorageInstanceParamsAreCorrect, RXDB_VERSION } from 'rxdb';
import type { BetterSqliteSettings } from './database';
import { acquireCollection, acquireDatabase, databaseExists, releaseDatabase } from './database';
import { STORAGE_NAME } from './helpers';
import {
  type BetterSqliteInstanceOptions,
  type BetterSqliteInternals,
  RxStorageInstanceBetterSqlite,
} from './instance';

export class RxStorageBetterSqlite implements RxStorage<BetterSqliteInternals, BetterSqliteInstanceOptions> {
  readonly name = STORAGE_NAME;
  readonly rxdbVersion = RXDB_VERSION;

  constructor(readonly settings: Readonly<BetterSqliteSettings>) {}

  /** Whether the database has anything stored yet (its file exists); opening it would create it. */
  hasDatabase(databaseName: string): boolean {
    return databaseExists(this.settings, databaseName);
  }

  async createStorageInstance<RxDocType>(
    params: RxStorageInstanceCreationParams<RxDocType, BetterSqliteInstanceOptions>,
  ): Promise<RxStorageInstanceBetterSqlite<RxDocType>> {
    ensureRxStorageInstanceParamsAreCorrect(params);
    if (params.schema.attachments) {
      throw new Error(
        `better-sqlite3 storage does not support attachments (collection ${params.collectionName} declares them)`,
      );
    }
    const database = acquireDatabase(this.settings, params.databaseName);
    try {
      const state = acquireCollection(
        database,
        params.collectionName,
        params.schema as unknown as RxJsonSchema<RxDocumentData<unknown>>,
        params.devMode,
        this.settings.indexes ?? true,
      );
      return new RxStorageInstanceBetterSqlite<RxDocType>(
        params.databaseName,
        params.collectionName,
        params.schema,
        params.options,
        this.settings,
        state,
      );
    } catch (error) {
      releaseDatabase(database);
      throw error;
    }
  }
}

/**
 * RxDB storage on better-sqlite3: one SQLite file (WAL) per RxDB database in `databaseDirectory`
 * (or in memory with `':memory:'`), one table per collection and schema version.
 */
export function getRxStorageBetterSqlite(settings: BetterSqliteSettings = {}): RxStorageBetterSqlite {
  return new RxStorageBetterSqlite({ ...settings });
}
