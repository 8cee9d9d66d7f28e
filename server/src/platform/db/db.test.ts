import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase, testEngine } from '../../../../test/helpers/database';
import { DataDirLockedError } from './data-dir-lock';
import { withinTransaction } from './db';
import { openDatabase } from './open';
import { createPgliteDb } from './pglite';

const engines = testEngine() === 'postgres' ? (['pglite', 'postgres'] as const) : (['pglite'] as const);

async function openEngine(engine: 'pglite' | 'postgres'): Promise<TestDatabase> {
  if (engine === 'postgres') return createTestDatabase();
  const db = await createPgliteDb(undefined);
  const { runMigrations } = await import('./migrations');
  await runMigrations(db);
  return { engine: 'pglite', db, drop: () => db.close() };
}

describe.each(engines)('Db on %s', (engine) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openEngine(engine);
  });
  afterAll(() => database.drop());

  it('commits a transaction and rolls back a failed one entirely', async () => {
    const { db } = database;
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO organizations (id, name) VALUES ('00000000-0000-4000-8000-000000000001', 'Kept')");
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO organizations (id, name) VALUES ('00000000-0000-4000-8000-000000000002', 'Lost')");
        await tx.query('SELECT 1 / 0');
      }),
    ).rejects.toThrow(/division by zero/);
    const { rows } = await db.query<{ name: string }>('SELECT name FROM organizations ORDER BY name');
    expect(rows.map((row) => row.name)).toEqual(['Kept']);
  });

  it('runs the transactions of a Db within a transaction as its steps: a failed one is undone alone', async () => {
    const { db } = database;
    const insert = (tx: { query: typeof db.query }, id: string, name: string) =>
      tx.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [id, name]);
    await expect(
      db.transaction(async (tx) => {
        const inner = withinTransaction(tx, db.engine);
        await inner.transaction((step) => insert(step, '00000000-0000-4000-8000-000000000011', 'Step kept'));
        await expect(
          inner.transaction(async (step) => {
            await insert(step, '00000000-0000-4000-8000-000000000012', 'Step undone');
            await step.query('SELECT 1 / 0');
          }),
        ).rejects.toThrow(/division by zero/);
        // The transaction goes on after the failed step, and sees what its steps kept.
        const { rows } = await inner.query<{ name: string }>("SELECT name FROM organizations WHERE name LIKE 'Step%'");
        expect(rows.map((row) => row.name)).toEqual(['Step kept']);
        await insert(tx, '00000000-0000-4000-8000-000000000013', 'Step later');
        throw new Error('the whole transaction fails');
      }),
    ).rejects.toThrow(/whole transaction/);
    // Its failure undoes every step, those that succeeded too.
    const { rows } = await db.query("SELECT name FROM organizations WHERE name LIKE 'Step%'");
    expect(rows).toEqual([]);
    await db.transaction(async (tx) => {
      await withinTransaction(tx, db.engine).transaction((step) =>
        insert(step, '00000000-0000-4000-8000-000000000014', 'Step committed'),
      );
    });
    const committed = await db.query<{ name: string }>("SELECT name FROM organizations WHERE name LIKE 'Step%'");
    expect(committed.rows.map((row) => row.name)).toEqual(['Step committed']);
  });

  it('returns the same JavaScript types on either engine', async () => {
    const { rows } = await database.db.query(
      `SELECT 9007199254740993::int8 AS big, 2::int4 AS small, 12345678901234567890.5::numeric AS exact,
              '2024-02-29'::date AS day, '2024-02-29T10:00:00Z'::timestamptz AS moment, '{"a":[1]}'::jsonb AS doc,
              ARRAY[1, NULL]::int8[] AS bigs, true AS flag, $1::text AS param`,
      ['value'],
    );
    expect(rows[0]).toEqual({
      big: '9007199254740993',
      small: 2,
      exact: '12345678901234567890.5',
      day: '2024-02-29',
      moment: new Date('2024-02-29T10:00:00Z'),
      doc: { a: [1] },
      bigs: ['1', null],
      flag: true,
      param: 'value',
    });
  });

  it('has pg_trgm for trigram search', async () => {
    const { rows } = await database.db.query<{ score: number }>("SELECT similarity('dispatch', 'dispatcher') AS score");
    expect(rows[0]?.score).toBeGreaterThan(0.5);
  });

  it('reports affected rows', async () => {
    const result = await database.db.query("UPDATE organizations SET name = name || '!' WHERE name = 'Kept'");
    expect(result.rowCount).toBe(1);
  });
});

describe('embedded engine on disk', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'orbita-data-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('keeps its data across a restart', async () => {
    const config = { databaseUrl: undefined, databasePoolMax: 1, dataDir };
    const first = await openDatabase(config);
    await first.exec('CREATE TABLE notes (body text)');
    await first.query('INSERT INTO notes VALUES ($1)', ['survives restarts']);
    await first.close();

    const second = await openDatabase(config);
    const { rows } = await second.query<{ body: string }>('SELECT body FROM notes');
    await second.close();
    expect(rows).toEqual([{ body: 'survives restarts' }]);
  });

  it('refuses a second process-level user of the same data directory', async () => {
    const config = { databaseUrl: undefined, databasePoolMax: 1, dataDir };
    const first = await openDatabase(config);
    try {
      // Pretend another live process holds the lock: our parent process is alive.
      const { writeFile } = await import('node:fs/promises');
      await writeFile(path.join(dataDir, 'pglite', 'orbita.lock'), String(process.ppid));
      await expect(openDatabase(config)).rejects.toThrow(DataDirLockedError);
      await expect(openDatabase(config)).rejects.toThrow(/in use by another Orbita process/);
    } finally {
      await first.close();
    }
  });

  it('takes over a lock left by a process that no longer runs', async () => {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(path.join(dataDir, 'pglite', 'orbita.lock'), '2147483646');
    const db = await openDatabase({ databaseUrl: undefined, databasePoolMax: 1, dataDir });
    const { rows } = await db.query('SELECT 1 AS one');
    await db.close();
    expect(rows).toEqual([{ one: 1 }]);
  });
});
