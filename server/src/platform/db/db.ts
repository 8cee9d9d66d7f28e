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

let savepoints = 0;

/**
 * A `Db` inside the transaction `tx`: its queries run in that transaction, and each of its own
 * transactions is a savepoint of it, undone alone when its work fails while `tx` goes on. Lets a
 * service's units of work run as steps of a larger transaction that holds locks across all of
 * them. Closing it does nothing: `tx` belongs to whoever opened it.
 */
export function withinTransaction(tx: Queryable, engine: DatabaseEngine): Db {
  return {
    engine,
    query: (sql, params) => tx.query(sql, params),
    exec: (sql) => tx.exec(sql),
    async transaction(work) {
      const name = `step_${++savepoints}`;
      await tx.query(`SAVEPOINT ${name}`);
      try {
        const result = await work(tx);
        await tx.query(`RELEASE SAVEPOINT ${name}`);
        return result;
      } catch (error) {
        await tx.query(`ROLLBACK TO SAVEPOINT ${name}`);
        throw error;
      }
    },
    close: async () => undefined,
  };
}
