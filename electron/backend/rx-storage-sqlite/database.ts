import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { EventBulk, RxDocumentData, RxJsonSchema, RxStorageChangeEvent, RxStorageDefaultCheckpoint } from 'rxdb';
import { deepEqual, getIndexableStringMonad, getPrimaryFieldOfPrimaryKey, META_INSTANCE_SCHEMA_TITLE } from 'rxdb';
import { Subject } from 'rxjs';
import {
  CATALOG_TABLE,
  collectionTableName,
  databaseFileName,
  indexColumnName,
  indexKey,
  indexLookupKey,
  quoteIdentifier,
  schemaIndexes,
} from './helpers';

export type Synchronous = 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';

export interface BetterSqliteSettings {
  /**
   * Directory holding one `<database name>.sqlite` file per RxDB database (created when missing),
   * or `':memory:'` for databases that live only while one of their storage instances is open.
   * Default: the current working directory.
   */
  databaseDirectory?: string | ':memory:';
  /** SQLite `synchronous` setting; with WAL, `NORMAL` loses no data on a process crash. Default `NORMAL`. */
  synchronous?: Synchronous;
  /**
   * Page size in bytes of a database file created from now on (a power of two, 512–65536); an
   * existing file keeps its own. Default 16384: a first sync writes fewer, fuller pages than with
   * SQLite's 4096, for some cost on single-document commits.
   */
  pageSize?: number;
  /**
   * Keep the schema's indexes as SQL indexes (default `true`). `false` keeps only the primary key and
   * what `getChangedDocumentsSince` and `cleanup` use: writes cost a fraction, queries scan the table.
   * For a storage whose queries are answered elsewhere (the memory-mapped storage reads everything
   * at open and queries in memory). Opening a table the other way adds or drops the index columns.
   */
  indexes?: boolean;
}

/** One index of the schema: the fields, the column holding its indexable string and how to compute it. */
export interface IndexColumn {
  fields: string[];
  column: string;
  indexableString: (doc: RxDocumentData<unknown>) => string;
}

export type ChangeBulk = EventBulk<RxStorageChangeEvent<RxDocumentData<unknown>>, RxStorageDefaultCheckpoint>;

interface Statements {
  insert: Database.Statement;
  update: Database.Statement;
  byId: Database.Statement;
  byIdLive: Database.Statement;
  byIds: Database.Statement;
  byIdsLive: Database.Statement;
  all: Database.Statement;
  changes: Database.Statement;
  changesAfter: Database.Statement;
  cleanup: Database.Statement;
}

/** State shared by every open storage instance of one (database, collection, schema version). */
export interface CollectionState {
  database: OpenDatabase;
  table: string;
  schema: RxJsonSchema<RxDocumentData<unknown>>;
  primaryPath: string;
  indexes: IndexColumn[];
  indexByKey: Map<string, IndexColumn>;
  statements: Statements;
  /** Range statements, prepared on first use. */
  rangeStatements: Map<string, Database.Statement>;
  changes$: Subject<ChangeBulk>;
  refs: number;
  removed: boolean;
}

/** One SQLite handle, shared by every storage instance of one RxDB database in this process. */
export interface OpenDatabase {
  key: string;
  /** Path of the SQLite file; undefined in memory. */
  file: string | undefined;
  db: Database.Database;
  refs: number;
  collections: Map<string, CollectionState>;
}

const openDatabases = new Map<string, OpenDatabase>();

/** WAL size at which a commit copies the WAL back into the database file. */
const WAL_CHECKPOINT_BYTES = 64 * 1024 * 1024;

/** Whether a database has anything stored: its file exists (in memory: it is open in this process). */
export function databaseExists(settings: BetterSqliteSettings, databaseName: string): boolean {
  const directory = settings.databaseDirectory ?? process.cwd();
  if (directory === ':memory:') return openDatabases.has(`:memory:${databaseName}`);
  const file = path.resolve(directory, databaseFileName(databaseName));
  return openDatabases.has(file) || existsSync(file);
}

/**
 * Deletes a database's file (with its WAL) without opening it: the way out for a file SQLite cannot
 * read. Refused while the database is open in this process (its writes would go on elsewhere).
 */
export function discardDatabaseFile(settings: BetterSqliteSettings, databaseName: string): void {
  const directory = settings.databaseDirectory ?? process.cwd();
  if (directory === ':memory:') throw new Error('better-sqlite3 storage: an in-memory database has no file to discard');
  const file = path.resolve(directory, databaseFileName(databaseName));
  if (openDatabases.has(file)) throw new Error(`better-sqlite3 storage: database ${databaseName} is open`);
  for (const suffix of FILE_SUFFIXES) rmSync(`${file}${suffix}`, { force: true });
}

/** A database's files: the database itself, its write-ahead log and the log's index. */
const FILE_SUFFIXES = ['', '-wal', '-shm'] as const;

/** How many bytes a database's files take (0 when it has none; in memory: nothing on disk). */
export function databaseFileSize(settings: BetterSqliteSettings, databaseName: string): number {
  const directory = settings.databaseDirectory ?? process.cwd();
  if (directory === ':memory:') return 0;
  const file = path.resolve(directory, databaseFileName(databaseName));
  let bytes = 0;
  for (const suffix of FILE_SUFFIXES) bytes += statSync(`${file}${suffix}`, { throwIfNoEntry: false })?.size ?? 0;
  return bytes;
}

/** Whether a database is open in this process (a storage instance of it is). */
export function databaseIsOpen(settings: BetterSqliteSettings, databaseName: string): boolean {
  const directory = settings.databaseDirectory ?? process.cwd();
  if (directory === ':memory:') return openDatabases.has(`:memory:${databaseName}`);
  return openDatabases.has(path.resolve(directory, databaseFileName(databaseName)));
}

/** Opens (or shares) the SQLite handle of a database and takes a reference on it. */
export function acquireDatabase(settings: BetterSqliteSettings, databaseName: string): OpenDatabase {
  const directory = settings.databaseDirectory ?? process.cwd();
  const inMemory = directory === ':memory:';
  const file = inMemory ? ':memory:' : path.resolve(directory, databaseFileName(databaseName));
  const key = inMemory ? `:memory:${databaseName}` : file;
  let open = openDatabases.get(key);
  if (!open) {
    if (!inMemory) mkdirSync(directory, { recursive: true });
    const db = new Database(file);
    try {
      // Only a new, empty file takes it (before WAL is on); an existing one ignores it.
      db.pragma(`page_size = ${Math.trunc(settings.pageSize ?? 16_384)}`);
      if (!inMemory) db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${settings.synchronous ?? 'NORMAL'}`);
      // A batch of a first sync dirties hundreds of pages: at SQLite's 1,000-page threshold nearly
      // every batch would copy the WAL back (and fsync). Checkpointing per 64 MiB copies a page
      // rewritten by several batches once; the WAL file is cut back to that size afterwards.
      const pageSize = db.pragma('page_size', { simple: true }) as number;
      db.pragma(`wal_autocheckpoint = ${Math.ceil(WAL_CHECKPOINT_BYTES / pageSize)}`);
      db.pragma(`journal_size_limit = ${WAL_CHECKPOINT_BYTES}`);
      db.exec(
        `CREATE TABLE IF NOT EXISTS ${CATALOG_TABLE} (
          table_name TEXT PRIMARY KEY NOT NULL,
          collection_name TEXT NOT NULL,
          schema_version INTEGER NOT NULL,
          primary_path TEXT NOT NULL,
          schema TEXT NOT NULL
        ) STRICT`,
      );
    } catch (error) {
      db.close();
      throw error;
    }
    open = { key, file: inMemory ? undefined : file, db, refs: 0, collections: new Map() };
    openDatabases.set(key, open);
  }
  open.refs += 1;
  return open;
}

/**
 * Drops a reference; the last one closes the SQLite handle. A database file left without any
 * collection table (every collection was removed, as `RxDatabase.remove()` does) is deleted.
 */
export function releaseDatabase(open: OpenDatabase): void {
  open.refs -= 1;
  if (open.refs > 0) return;
  if (openDatabases.get(open.key) === open) openDatabases.delete(open.key);
  for (const state of open.collections.values()) state.changes$.complete();
  open.collections.clear();
  if (!open.db.open) return;
  const empty = (open.db.prepare(`SELECT COUNT(*) FROM ${CATALOG_TABLE}`).pluck().get() as number) === 0;
  open.db.close();
  if (empty && open.file) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${open.file}${suffix}`, { force: true });
  }
}

/** Number of SQLite handles open in this process (for tests). */
export function openDatabaseCount(): number {
  return openDatabases.size;
}

/**
 * The shared state of a collection table, creating the table (and bringing its index columns in
 * line with the schema) when this is the first instance of it in the process.
 */
export function acquireCollection(
  open: OpenDatabase,
  collectionName: string,
  schema: RxJsonSchema<RxDocumentData<unknown>>,
  devMode: boolean,
  withIndexes = true,
): CollectionState {
  const table = collectionTableName(collectionName, schema.version);
  let state = open.collections.get(table);
  if (state) {
    if (devMode && !deepEqual(state.schema, schema)) {
      throw new Error(
        `better-sqlite3 storage: collection ${collectionName} (schema version ${schema.version}) is already open with a different schema`,
      );
    }
    state.refs += 1;
    return state;
  }
  const primaryPath = getPrimaryFieldOfPrimaryKey(schema.primaryKey) as string;
  // RxDB reads a replication's meta data (one row per replicated document) by id and never queries
  // it: index columns there would be written for nothing. A query still answers, by a full scan.
  const queried = withIndexes && schema.title !== META_INSTANCE_SCHEMA_TITLE;
  const indexes = (queried ? schemaIndexes(schema) : []).map<IndexColumn>((fields) => ({
    fields,
    column: indexColumnName(fields),
    indexableString: getIndexableStringMonad(schema, fields) as (doc: RxDocumentData<unknown>) => string,
  }));
  open.db.transaction(() => prepareTable(open.db, table, collectionName, schema, primaryPath, indexes)).immediate();
  state = {
    database: open,
    table,
    schema,
    primaryPath,
    indexes,
    indexByKey: new Map(indexes.map((index) => [indexLookupKey(index.fields), index])),
    statements: prepareStatements(open.db, table, indexes),
    rangeStatements: new Map(),
    changes$: new Subject(),
    refs: 1,
    removed: false,
  };
  open.collections.set(table, state);
  return state;
}

function prepareTable(
  db: Database.Database,
  table: string,
  collectionName: string,
  schema: RxJsonSchema<RxDocumentData<unknown>>,
  primaryPath: string,
  indexes: IndexColumn[],
) {
  const t = quoteIdentifier(table);
  const catalog = db.prepare(`SELECT primary_path FROM ${CATALOG_TABLE} WHERE table_name = ?`).get(table) as
    | { primary_path: string }
    | undefined;
  if (catalog && catalog.primary_path !== primaryPath) {
    throw new Error(
      `better-sqlite3 storage: table ${table} holds documents keyed by "${catalog.primary_path}", the schema's primary key is "${primaryPath}"`,
    );
  }
  const exists = db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?`).get(table) !== undefined;
  const indexStatements = [
    ...indexes.map(
      (index) =>
        `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${table}__${index.column}`)} ON ${t} (${quoteIdentifier(index.column)});`,
    ),
    // getChangedDocumentsSince() pages on (lwt, id); cleanup() finds old tombstones.
    `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${table}__changes`)} ON ${t} (lwt, id);`,
    `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${table}__tombstones`)} ON ${t} (lwt) WHERE deleted = 1;`,
  ];
  if (!exists) {
    // A new table gets its index columns in its definition: one schema change instead of one per index.
    db.exec(
      `CREATE TABLE ${t} (
        id TEXT PRIMARY KEY NOT NULL,
        deleted INTEGER NOT NULL,
        lwt REAL NOT NULL,
        data TEXT NOT NULL${indexes.map((index) => `,\n        ${quoteIdentifier(index.column)} TEXT`).join('')}
      ) STRICT;${indexStatements.join('')}`,
    );
  } else {
    const existing = new Set(
      (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[])
        .map((row) => row.name)
        .filter((name) => name.startsWith('ix_')),
    );
    const wanted = new Set(indexes.map((index) => index.column));
    // Columns of indexes the schema no longer has would go stale: drop them.
    for (const column of existing) {
      if (wanted.has(column)) continue;
      db.exec(`DROP INDEX IF EXISTS ${quoteIdentifier(`${table}__${column}`)}`);
      db.exec(`ALTER TABLE ${t} DROP COLUMN ${quoteIdentifier(column)}`);
    }
    // Columns of new indexes are added and filled from the stored documents.
    const added = indexes.filter((index) => !existing.has(index.column));
    if (added.length > 0) {
      for (const index of added) db.exec(`ALTER TABLE ${t} ADD COLUMN ${quoteIdentifier(index.column)} TEXT`);
      const rows = db.prepare(`SELECT rowid AS rowid, data FROM ${t}`).all() as { rowid: number; data: string }[];
      if (rows.length > 0) {
        const fill = db.prepare(
          `UPDATE ${t} SET ${added.map((index) => `${quoteIdentifier(index.column)} = ?`).join(', ')} WHERE rowid = ?`,
        );
        for (const row of rows) {
          const doc = JSON.parse(row.data) as RxDocumentData<unknown>;
          fill.run(...added.map((index) => indexKey(index.indexableString(doc))), row.rowid);
        }
      }
    }
    db.exec(indexStatements.join(''));
  }
  db.prepare(
    `INSERT INTO ${CATALOG_TABLE} (table_name, collection_name, schema_version, primary_path, schema)
     VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (table_name) DO UPDATE SET schema = excluded.schema`,
  ).run(table, collectionName, schema.version, primaryPath, JSON.stringify(schema));
}

function prepareStatements(db: Database.Database, table: string, indexes: IndexColumn[]): Statements {
  const t = quoteIdentifier(table);
  const columns = indexes.map((index) => quoteIdentifier(index.column));
  const pluck = (sql: string) => db.prepare(sql).pluck();
  return {
    insert: db.prepare(
      `INSERT INTO ${t} (id, deleted, lwt, data${columns.map((c) => `, ${c}`).join('')})
       VALUES (?, ?, ?, ?${columns.map(() => ', ?').join('')})`,
    ),
    update: db.prepare(
      `UPDATE ${t} SET deleted = ?, lwt = ?, data = ?${columns.map((c) => `, ${c} = ?`).join('')} WHERE id = ?`,
    ),
    byId: pluck(`SELECT data FROM ${t} WHERE id = ?`),
    byIdLive: pluck(`SELECT data FROM ${t} WHERE id = ? AND deleted = 0`),
    // Driving the primary-key lookups from the id list (CROSS JOIN keeps that order of the loops)
    // reads a third faster than `id IN (…)`; the list holds no duplicates (see `idList`).
    byIds: pluck(`SELECT d.data FROM json_each(?) j CROSS JOIN ${t} d ON d.id = j.value`),
    byIdsLive: pluck(`SELECT d.data FROM json_each(?) j CROSS JOIN ${t} d ON d.id = j.value AND d.deleted = 0`),
    all: pluck(`SELECT data FROM ${t}`),
    changes: pluck(`SELECT data FROM ${t} ORDER BY lwt, id LIMIT ?`),
    changesAfter: pluck(`SELECT data FROM ${t} WHERE (lwt, id) > (?, ?) ORDER BY lwt, id LIMIT ?`),
    cleanup: db.prepare(
      `DELETE FROM ${t} WHERE rowid IN (SELECT rowid FROM ${t} WHERE deleted = 1 AND lwt <= ? ORDER BY lwt LIMIT ?)`,
    ),
  };
}

/** Drops a collection's table; every instance sharing the state fails from then on. */
export function dropCollection(state: CollectionState): void {
  const { db } = state.database;
  db.transaction(() => {
    db.exec(`DROP TABLE IF EXISTS ${quoteIdentifier(state.table)}`);
    db.prepare(`DELETE FROM ${CATALOG_TABLE} WHERE table_name = ?`).run(state.table);
  }).immediate();
  state.removed = true;
  if (state.database.collections.get(state.table) === state) state.database.collections.delete(state.table);
  state.changes$.complete();
}

/** Drops an instance's reference on its collection state. */
export function releaseCollection(state: CollectionState): void {
  state.refs -= 1;
  if (state.refs > 0 || state.removed) return;
  if (state.database.collections.get(state.table) === state) state.database.collections.delete(state.table);
  state.changes$.complete();
}
