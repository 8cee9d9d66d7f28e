import type { DatabaseEngine } from '@shared/api/health';

export interface QueryResult<Row> {
  rows: Row[];
  /** Rows returned or affected by the statement. */
  rowCount: number;
}

/** What repositories write SQL against: plain parameterised queries. */
export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/**
 * The database, whichever engine serves it. Both engines return the same JavaScript types:
 * int8 and numeric as strings (no precision lost), `date` as `YYYY-MM-DD`, timestamps as Date,
 * json/jsonb parsed.
 *
 * On PGlite transactions run one at a time: inside `transaction` use only `tx`, never `db`.
 */
export interface Db extends Queryable {
  readonly engine: DatabaseEngine;
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** PostgreSQL type oids whose parsing both engines align. */
export const PG_TYPE = {
  INT8: 20,
  DATE: 1082,
  INT8_ARRAY: 1016,
  DATE_ARRAY: 1182,
} as const;

/** Parses a PostgreSQL array literal of unquoted elements (int8[], date[]) into strings. */
export function parseUnquotedArray(value: string): (string | null)[] {
  const inner = value.slice(1, -1);
  if (inner === '') return [];
  return inner.split(',').map((element) => (element === 'NULL' ? null : element));
}
