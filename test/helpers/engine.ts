import type { DatabaseEngine } from '@shared/api/health';

/** What the global set-up found, handed to every test file through vitest's `provide`/`inject`. */
export interface TestDatabaseInfo {
  engine: DatabaseEngine;
  /** Superuser connection to the PostgreSQL server (postgres engine only). */
  adminUrl?: string;
  /** Migrated template database each test file copies (postgres engine only). */
  template?: string;
  /** Prefix of the databases this run creates, so the run's teardown can drop leftovers. */
  prefix: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    testDatabase: TestDatabaseInfo;
  }
}

/** The PostgreSQL server tests use: TEST_DATABASE_URL, else DATABASE_URL, else the local one. */
export function testServerUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.TEST_DATABASE_URL || env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
}

/** The URL of another database on the same server. */
export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}
