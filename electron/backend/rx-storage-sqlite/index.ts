export type { BetterSqliteSettings, Synchronous } from './database';
export { databaseFileSize, databaseIsOpen, discardDatabaseFile, openDatabaseCount } from './database';
export type { BetterSqliteInstanceOptions, BetterSqliteInternals } from './instance';
export { RxStorageInstanceBetterSqlite } from './instance';
export { getRxStorageBetterSqlite, RxStorageBetterSqlite } from './storage';
