import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase, testEngine } from '../../../../test/helpers/database';
import { currentSchemaVersion, MigrationError, readMigrations, runMigrations } from './migrations';
import { createPostgresDb } from './postgres';

let dir: string;
let database: TestDatabase;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'orbita-migrations-'));
  database = await createTestDatabase({ migrated: false });
});
afterEach(async () => {
  await database.drop();
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, sql: string) {
  await writeFile(path.join(dir, name), sql);
}

async function journal(db = database.db) {
  const { rows } = await db.query<{ version: number; name: string; checksum: string }>(
    'SELECT version, name, checksum FROM migration_journal ORDER BY version',
  );
  return rows;
}

describe('migrations', () => {
  it('applies files in numeric order and journals each with its checksum', async () => {
    await write('0002_add_color.sql', 'ALTER TABLE widgets ADD COLUMN IF NOT EXISTS color text;');
    await write('0001_widgets.sql', 'CREATE TABLE IF NOT EXISTS widgets (id int PRIMARY KEY);');
    const outcome = await runMigrations(database.db, { dir });
    expect(outcome).toEqual({ applied: ['0001_widgets', '0002_add_color'], schemaVersion: '0002_add_color' });
    const files = await readMigrations(dir);
    expect(await journal()).toEqual(files.map((f) => ({ version: f.version, name: f.name, checksum: f.checksum })));
    expect(files[0]?.checksum).toMatch(/^[0-9a-f]{64}$/);
    await database.db.query('INSERT INTO widgets (id, color) VALUES (1, $1)', ['red']);
  });

  it('applies nothing the second time, and only new files later', async () => {
    await write('0001_widgets.sql', 'CREATE TABLE widgets (id int PRIMARY KEY);');
    await runMigrations(database.db, { dir });
    expect((await runMigrations(database.db, { dir })).applied).toEqual([]);
    await write('0002_gadgets.sql', 'CREATE TABLE gadgets (id int PRIMARY KEY);');
    expect(await runMigrations(database.db, { dir })).toEqual({
      applied: ['0002_gadgets'],
      schemaVersion: '0002_gadgets',
    });
    expect(await currentSchemaVersion(database.db)).toBe('0002_gadgets');
  });

  it('refuses loudly to run when an applied file was changed', async () => {
    await write('0001_widgets.sql', 'CREATE TABLE widgets (id int PRIMARY KEY);');
    await runMigrations(database.db, { dir });
    await write('0001_widgets.sql', 'CREATE TABLE widgets (id bigint PRIMARY KEY);');
    await write('0002_gadgets.sql', 'CREATE TABLE gadgets (id int PRIMARY KEY);');
    await expect(runMigrations(database.db, { dir })).rejects.toThrow(MigrationError);
    await expect(runMigrations(database.db, { dir })).rejects.toThrow(
      /0001_widgets\.sql was changed after it was applied/,
    );
    // Nothing after the refusal ran.
    expect((await journal()).map((entry) => entry.name)).toEqual(['0001_widgets']);
  });

  it('does not count a CRLF checkout of the same file as a change', async () => {
    await write('0001_widgets.sql', 'CREATE TABLE widgets (id int);\nCREATE INDEX ON widgets (id);\n');
    await runMigrations(database.db, { dir });
    await write('0001_widgets.sql', 'CREATE TABLE widgets (id int);\r\nCREATE INDEX ON widgets (id);\r\n');
    expect((await runMigrations(database.db, { dir })).applied).toEqual([]);
  });

  it('refuses a database migrated by code that has files this code lacks', async () => {
    await write('0001_widgets.sql', 'CREATE TABLE widgets (id int);');
    await write('0002_gadgets.sql', 'CREATE TABLE gadgets (id int);');
    await runMigrations(database.db, { dir });
    await rm(path.join(dir, '0002_gadgets.sql'));
    await expect(runMigrations(database.db, { dir })).rejects.toThrow(
      /0002_gadgets applied, but this code has no such file/,
    );
  });

  it('refuses a new file numbered before an applied one', async () => {
    await write('0002_gadgets.sql', 'CREATE TABLE gadgets (id int);');
    await runMigrations(database.db, { dir });
    await write('0001_widgets.sql', 'CREATE TABLE widgets (id int);');
    await expect(runMigrations(database.db, { dir })).rejects.toThrow(/0001_widgets\.sql is new but a later migration/);
  });

  it('refuses badly named and duplicate-numbered files', async () => {
    await write('1_widgets.sql', 'SELECT 1;');
    await expect(readMigrations(dir)).rejects.toThrow(/1_widgets\.sql is not named NNNN_name\.sql/);
    await rm(path.join(dir, '1_widgets.sql'));
    await write('0001_a.sql', 'SELECT 1;');
    await write('0001_b.sql', 'SELECT 1;');
    await expect(readMigrations(dir)).rejects.toThrow(/share number 0001/);
  });

  it('leaves no trace of a migration that fails half-way', async () => {
    await write('0001_widgets.sql', 'CREATE TABLE widgets (id int);');
    await write('0002_broken.sql', 'CREATE TABLE gadgets (id int);\nSELECT no_such_function();');
    await expect(runMigrations(database.db, { dir })).rejects.toThrow(/no_such_function/);
    expect((await journal()).map((entry) => entry.name)).toEqual(['0001_widgets']);
    const { rows } = await database.db.query("SELECT to_regclass('gadgets')::text AS gadgets");
    expect(rows[0]).toEqual({ gadgets: null });
  });

  it('applies each file once when servers start together', async (context) => {
    if (testEngine() !== 'postgres') context.skip('needs a PostgreSQL server: PGlite has one connection');
    // Each migration counts its applications; a second application would make a second row.
    await write('0001_counter.sql', "CREATE TABLE applied (name text);\nINSERT INTO applied VALUES ('0001');");
    for (let n = 2; n <= 6; n++) {
      await write(`000${n}_step.sql`, `SELECT pg_sleep(0.02);\nINSERT INTO applied VALUES ('000${n}');`);
    }
    const servers = Array.from({ length: 4 }, () => createPostgresDb(database.url as string, { poolMax: 2 }));
    try {
      const outcomes = await Promise.all(servers.map((db) => runMigrations(db, { dir })));
      const appliedByAll = outcomes.flatMap((outcome) => outcome.applied).sort();
      expect(appliedByAll).toEqual(['0001_counter', '0002_step', '0003_step', '0004_step', '0005_step', '0006_step']);
      const { rows } = await database.db.query<{ name: string }>('SELECT name FROM applied ORDER BY name');
      expect(rows.map((row) => row.name)).toEqual(['0001', '0002', '0003', '0004', '0005', '0006']);
    } finally {
      await Promise.all(servers.map((db) => db.close()));
    }
  });
});

describe('the project migrations', () => {
  it('can each be run again without failing (written re-runnable)', async () => {
    const files = await readMigrations();
    for (const file of files) {
      await database.db.exec(file.sql);
      await database.db.exec(file.sql);
    }
  });

  it('give every table an organization_id except the tenant and platform tables', async () => {
    await runMigrations(database.db);
    const { rows } = await database.db.query<{ table_name: string }>(
      `SELECT t.table_name FROM information_schema.tables t
        WHERE t.table_schema = 'public' AND t.table_type = 'BASE TABLE'
          AND NOT EXISTS (SELECT 1 FROM information_schema.columns c
                           WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name
                             AND c.column_name = 'organization_id')
        ORDER BY 1`,
    );
    // organizations is the tenant itself; the others belong to the installation, not to a tenant:
    // the migration journal, installation secrets, and sign-in throttling keyed by e-mail and address.
    expect(rows.map((row) => row.table_name)).toEqual([
      'installation_secrets',
      'login_throttle',
      'migration_journal',
      'organizations',
    ]);
  });
});
