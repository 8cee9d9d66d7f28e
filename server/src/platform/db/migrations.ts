import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../logging';
import type { Db, Queryable } from './db';

/** The project's migrations folder. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../../migrations', import.meta.url));

/** Serialises migration runs across every server starting on the same database. */
const MIGRATION_LOCK_KEY = 4_242_001;

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export interface MigrationFile {
  version: number;
  /** File name without `.sql`, e.g. `0001_organizations`. */
  name: string;
  checksum: string;
  sql: string;
}

interface JournalEntry {
  version: number;
  name: string;
  checksum: string;
}

/** A migration history that must not be run: a changed, missing or out-of-order file. */
export class MigrationError extends Error {}

export interface MigrationOutcome {
  /** Names of the migrations this run applied, in order. */
  applied: string[];
  /** The newest applied migration after the run. */
  schemaVersion: string | null;
}

/** Reads `NNNN_name.sql` files in version order; anything else ending in `.sql` is refused. */
export async function readMigrations(dir: string = MIGRATIONS_DIR): Promise<MigrationFile[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.sql')).sort();
  const files: MigrationFile[] = [];
  for (const fileName of names) {
    const match = FILE_NAME.exec(fileName);
    if (!match) {
      throw new MigrationError(
        `Migration file ${fileName} is not named NNNN_name.sql (four digits, lowercase words joined by _).`,
      );
    }
    // Line endings are normalised so a checkout with CRLF does not count as a changed file.
    const sql = (await readFile(path.join(dir, fileName), 'utf8')).replace(/\r\n/g, '\n');
    const version = Number(match[1]);
    const previous = files.at(-1);
    if (previous?.version === version) {
      throw new MigrationError(`Two migrations share number ${match[1]}: ${previous.name}.sql and ${fileName}.`);
    }
    files.push({
      version,
      name: fileName.slice(0, -'.sql'.length),
      checksum: createHash('sha256').update(sql).digest('hex'),
      sql,
    });
  }
  return files;
}

/** Refuses a journal that does not match the files: changed, unknown or skipped migrations. */
function verifyHistory(files: MigrationFile[], journal: JournalEntry[]): void {
  const byVersion = new Map(files.map((file) => [file.version, file]));
  for (const entry of journal) {
    const file = byVersion.get(entry.version);
    if (!file) {
      throw new MigrationError(
        `The database has migration ${entry.name} applied, but this code has no such file. ` +
          'It was made by a newer version of Orbita: run that version, or restore the database from a backup.',
      );
    }
    if (file.checksum !== entry.checksum || file.name !== entry.name) {
      throw new MigrationError(
        `Migration ${file.name}.sql was changed after it was applied ` +
          `(journal: ${entry.name}, checksum ${entry.checksum.slice(0, 12)}; file checksum ${file.checksum.slice(0, 12)}). ` +
          'An applied migration is never edited: restore the file and put the change in a new migration.',
      );
    }
  }
  const newest = journal.reduce((max, entry) => Math.max(max, entry.version), 0);
  const applied = new Set(journal.map((entry) => entry.version));
  const skipped = files.find((file) => file.version < newest && !applied.has(file.version));
  if (skipped) {
    throw new MigrationError(
      `Migration ${skipped.name}.sql is new but a later migration is already applied. ` +
        'Renumber it after the newest applied migration.',
    );
  }
}

async function readJournal(tx: Queryable): Promise<JournalEntry[]> {
  await tx.exec(`
    CREATE TABLE IF NOT EXISTS migration_journal (
      version integer PRIMARY KEY,
      name text NOT NULL,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
  const { rows } = await tx.query<JournalEntry>(
    'SELECT version, name, checksum FROM migration_journal ORDER BY version',
  );
  return rows;
}

/**
 * Applies pending migrations in order, each in its own transaction holding an advisory lock, so
 * servers starting together apply each file once. The history is verified before anything runs.
 */
export async function runMigrations(
  db: Db,
  options: { dir?: string; logger?: Pick<Logger, 'info'> } = {},
): Promise<MigrationOutcome> {
  const files = await readMigrations(options.dir);
  const applied: string[] = [];
  for (;;) {
    const step = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const journal = await readJournal(tx);
      verifyHistory(files, journal);
      const done = new Set(journal.map((entry) => entry.version));
      const pending = files.filter((file) => !done.has(file.version));
      const next = pending[0];
      if (!next) return { finished: true as const, schemaVersion: journal.at(-1)?.name ?? null };
      options.logger?.info(
        { migration: next.name, remaining: pending.length },
        `applying migration ${next.name} (${pending.length} pending)`,
      );
      await tx.exec(next.sql);
      await tx.query('INSERT INTO migration_journal (version, name, checksum) VALUES ($1, $2, $3)', [
        next.version,
        next.name,
        next.checksum,
      ]);
      return { finished: false as const, name: next.name };
    });
    if (step.finished) return { applied, schemaVersion: step.schemaVersion };
    applied.push(step.name);
  }
}

/** The newest applied migration, or null on a database never migrated. */
export async function currentSchemaVersion(db: Queryable): Promise<string | null> {
  const exists = await db.query<{ journal: string | null }>("SELECT to_regclass('migration_journal')::text AS journal");
  if (!exists.rows[0]?.journal) return null;
  const { rows } = await db.query<{ name: string }>('SELECT name FROM migration_journal ORDER BY version DESC LIMIT 1');
  return rows[0]?.name ?? null;
}
