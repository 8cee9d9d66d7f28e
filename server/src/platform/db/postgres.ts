import pg from 'pg';
import { type Db, PG_TYPE, parseUnquotedArray, type Queryable, type QueryResult } from './db';

const identity = (value: string) => value;

// Per-pool parsers, so that no global state of the pg module is changed.
const typeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === PG_TYPE.DATE) return identity;
    if (oid === PG_TYPE.DATE_ARRAY) return parseUnquotedArray;
    return pg.types.getTypeParser(oid, format ?? 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

function toResult<Row>(result: pg.QueryResult): QueryResult<Row> {
  return { rows: result.rows as Row[], rowCount: result.rowCount ?? result.rows.length };
}

function queryable(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      return toResult<Row>(await client.query(sql, params as unknown[]));
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  };
}

export interface PostgresDbOptions {
  poolMax?: number;
  applicationName?: string;
}

/** A node-postgres pool to a PostgreSQL server. */
export function createPostgresDb(connectionString: string, options: PostgresDbOptions = {}): Db {
  const pool = new pg.Pool({
    connectionString,
    max: options.poolMax ?? 10,
    connectionTimeoutMillis: 5_000,
    application_name: options.applicationName ?? 'orbita',
    types: typeParsers,
  });
  // A connection dropped while idle (server restart, terminated backend) must not crash the process:
  // the pool discards it and the next query reconnects.
  pool.on('error', () => {});
  // A connection that dies while checked out (even between connecting and being handed over) fails
  // its query; its 'error' event must not also crash the process.
  pool.on('connect', (client) => client.on('error', () => undefined));
  let closed: Promise<void> | undefined;
  return {
    engine: 'postgres',
    ...queryable(pool),
    async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(queryable(client));
        await client.query('COMMIT');
        client.release();
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
          client.release();
        } catch {
          // The connection is broken: drop it instead of returning it to the pool.
          client.release(true);
        }
        throw error;
      }
    },
    close() {
      closed ??= pool.end();
      return closed;
    },
  };
}
