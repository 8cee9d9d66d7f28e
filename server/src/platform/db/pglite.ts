import { mkdir } from 'node:fs/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { type Db, PG_TYPE, parseUnquotedArray, type Queryable, type QueryResult } from './db';

const identity = (value: string) => value;

// Align with node-postgres: int8 as string (no precision lost), date as `YYYY-MM-DD`.
const parsers = {
  [PG_TYPE.INT8]: identity,
  [PG_TYPE.DATE]: identity,
  [PG_TYPE.INT8_ARRAY]: parseUnquotedArray,
  [PG_TYPE.DATE_ARRAY]: parseUnquotedArray,
};

function queryable(target: PGlite | Transaction): Queryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
      const result = await target.query<Row>(sql, params as unknown[]);
      return { rows: result.rows, rowCount: result.affectedRows || result.rows.length };
    },
    async exec(sql: string) {
      await target.exec(sql);
    },
  };
}

/**
 * The embedded PostgreSQL engine (PGlite, in process), persisted under `dataDir`, or in memory when
 * `dataDir` is undefined. `pg_trgm` is loaded and can be created by migrations.
 */
export async function createPgliteDb(dataDir: string | undefined): Promise<Db> {
  if (dataDir) await mkdir(dataDir, { recursive: true });
  const pglite = await PGlite.create({ dataDir, extensions: { pg_trgm }, parsers });
  let closed: Promise<void> | undefined;
  return {
    engine: 'pglite',
    ...queryable(pglite),
    transaction<T>(work: (tx: Queryable) => Promise<T>) {
      return pglite.transaction((tx) => work(queryable(tx)));
    },
    close() {
      closed ??= pglite.closed ? Promise.resolve() : pglite.close();
      return closed;
    },
  };
}
