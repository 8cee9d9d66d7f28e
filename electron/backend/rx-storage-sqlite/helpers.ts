import { createHash } from 'node:crypto';
import type { BulkWriteRow, RxJsonSchema } from 'rxdb';
import { toArray } from 'rxdb';

/** Name of this storage in RxDB (`RxStorage.name`). */
export const STORAGE_NAME = 'better-sqlite3';

/** Table that lists the collection tables of a database file (one row per collection and schema version). */
export const CATALOG_TABLE = 'rxdb_collections';

/** UTF-16 code units that UTF-8 (SQLite's TEXT order) would order differently from JavaScript. */
const HIGH_UNITS = /[\ud800-\uffff]/g;
const HAS_HIGH_UNIT = /[\ud800-\uffff]/;

function remapHighUnit(unit: string): string {
  const code = unit.charCodeAt(0);
  // Surrogate halves (D800–DFFF) → U+E000–U+E7FF; U+E000–U+FFFF → U+F0000–U+F1FFF (one code point each).
  return code < 0xe000 ? String.fromCharCode(code + 0x800) : String.fromCodePoint(code + 0xe2000);
}

/**
 * The SQL column value of one of RxDB's indexable strings.
 *
 * RxDB orders index strings with JavaScript's `<` (UTF-16 code units); SQLite compares TEXT as UTF-8
 * bytes (code points), which puts U+E000–U+FFFF after characters outside the BMP (emoji) — so an
 * emoji title would fall outside the `'\uffff'` upper bound RxDB uses for an open range. Each code
 * unit from U+D800 up is therefore mapped to one code point so that code point order equals code
 * unit order (below U+D800 nothing changes, ASCII keys stay readable). Embedded NULs (RxDB's lower
 * bounds) compare correctly: SQLite's BINARY collation compares whole lengths.
 */
export function indexKey(indexString: string): string {
  // Most keys have no such unit; testing first is much cheaper than a global replace.
  return HAS_HIGH_UNIT.test(indexString) ? indexString.replace(HIGH_UNITS, remapHighUnit) : indexString;
}

/** Bumped when `indexKey` changes, so index columns of another format are rebuilt, not misread. */
const INDEX_KEY_FORMAT = 1;

/** Ids as the JSON array the by-ids statements read, each once (the statements join on it). */
export function idList(ids: readonly string[]): string {
  return JSON.stringify([...new Set(ids)]);
}

/** Double-quotes an SQL identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * A name made of `[a-z0-9]` and escapes: every other character becomes `_<hex code point>_`.
 * Injective, and stable across case-insensitive SQLite identifiers and file systems.
 */
function escapeName(name: string): string {
  let out = '';
  for (const char of name) {
    out += /^[a-z0-9]$/.test(char) ? char : `_${(char.codePointAt(0) ?? 0).toString(16)}_`;
  }
  return out;
}

/** File name (inside the database directory) of the SQLite database holding one RxDB database. */
export function databaseFileName(databaseName: string): string {
  return `${escapeName(databaseName)}.sqlite`;
}

/** Table holding the documents of one collection at one schema version. */
export function collectionTableName(collectionName: string, schemaVersion: number): string {
  return `rx_${escapeName(collectionName)}__v${schemaVersion}`;
}

/** Column holding the indexable string of one index; named by a hash of the index's fields. */
export function indexColumnName(fields: readonly string[]): string {
  return `ix_${createHash('sha256')
    .update(JSON.stringify([INDEX_KEY_FORMAT, ...fields]))
    .digest('hex')
    .slice(0, 16)}`;
}

/** The indexes of a schema as field arrays (RxDB's `fillWithDefaultSettings` already added `_deleted` and the primary key). */
export function schemaIndexes(schema: Pick<RxJsonSchema<unknown>, 'indexes'>): string[][] {
  return (schema.indexes ?? []).map((index) => [...toArray(index as string | string[])]);
}

/** Key under which an index is looked up from a query plan's `index`. */
export function indexLookupKey(fields: readonly string[]): string {
  return JSON.stringify(fields);
}

/** The error of a call on a closed storage instance (`instance`: which kind). */
export function closedError(what: string, instance = 'RxStorageInstanceBetterSqlite'): Error {
  return new Error(`${instance} is closed: ${what}`);
}

/** The error of a call on an instance of a removed collection. */
export function removedError(what: string, instance = 'RxStorageInstanceBetterSqlite'): Error {
  return new Error(`${instance} was removed: ${what}`);
}

/**
 * The rows of a batch in runs that name each document at most once, in order. A batch without a
 * repeated id (every batch RxDB itself sends) is one run.
 */
export function runsWithoutRepeatedIds<RxDocType>(
  rows: BulkWriteRow<RxDocType>[],
  primaryPath: string,
): BulkWriteRow<RxDocType>[][] {
  const runs: BulkWriteRow<RxDocType>[][] = [];
  let run: BulkWriteRow<RxDocType>[] = [];
  let seen = new Set<string>();
  for (const row of rows) {
    const id = (row.document as Record<string, unknown>)[primaryPath] as string;
    if (seen.has(id)) {
      runs.push(run);
      run = [];
      seen = new Set();
    }
    seen.add(id);
    run.push(row);
  }
  runs.push(run);
  return runs;
}
