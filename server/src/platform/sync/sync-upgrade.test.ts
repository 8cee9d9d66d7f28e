import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/helpers/database';
import { runMigrations } from '../db/migrations';

const MIGRATIONS = path.join(import.meta.dirname, '../../../../migrations');
/** The first migration of the rules that decide by who may see a record (0009–0011). */
const ACCESS_RULES = '0009';

let dir: string;
let database: TestDatabase;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'orbita-sync-upgrade-'));
  database = await createTestDatabase({ migrated: false });
});
afterEach(async () => {
  await database.drop();
  await rm(dir, { recursive: true, force: true });
});

async function migrateThrough(filter: (name: string) => boolean) {
  for (const name of (await readdir(MIGRATIONS)).filter((file) => file.endsWith('.sql') && filter(file))) {
    await copyFile(path.join(MIGRATIONS, name), path.join(dir, name));
  }
  await runMigrations(database.db, { dir });
}

describe('upgrading to the access rules of replicas', () => {
  it('sends restricted forms with their tasks, and deleted forms, again once, keeping their versions', async () => {
    await migrateThrough((name) => name < ACCESS_RULES);
    const ids = {
      org: '00000000-0000-4000-8000-000000000001',
      role: '00000000-0000-4000-8000-000000000002',
      restricted: '00000000-0000-4000-8000-000000000003',
      open: '00000000-0000-4000-8000-000000000004',
      deleted: '00000000-0000-4000-8000-000000000005',
      restrictedStatus: '00000000-0000-4000-8000-000000000006',
      openStatus: '00000000-0000-4000-8000-000000000007',
      restrictedTask: '00000000-0000-4000-8000-000000000008',
      openTask: '00000000-0000-4000-8000-000000000009',
    };
    const { db } = database;
    await db.query(`INSERT INTO organizations (id, name) VALUES ($1, 'Org')`, [ids.org]);
    await db.query(`INSERT INTO roles (id, organization_id, name) VALUES ($1, $2, 'Vault')`, [ids.role, ids.org]);
    await db.query(
      `INSERT INTO forms (id, organization_id, name, visible_role_ids, deleted_at) VALUES
         ($1, $4, 'Restricted', ARRAY[$5]::uuid[], NULL), ($2, $4, 'Open', '{}', NULL), ($3, $4, 'Deleted', '{}', now())`,
      [ids.restricted, ids.open, ids.deleted, ids.org, ids.role],
    );
    await db.query(
      `INSERT INTO form_statuses (id, organization_id, form_id, name, is_initial, position) VALUES
         ($1, $3, $4, 'New', true, 0), ($2, $3, $5, 'New', true, 0)`,
      [ids.restrictedStatus, ids.openStatus, ids.org, ids.restricted, ids.open],
    );
    await db.query(
      `INSERT INTO tasks (id, organization_id, form_id, status_id, title) VALUES
         ($1, $3, $4, $5, 'Count the vault'), ($2, $3, $6, $7, 'Sweep the yard')`,
      [ids.restrictedTask, ids.openTask, ids.org, ids.restricted, ids.restrictedStatus, ids.open, ids.openStatus],
    );
    const stamps = async () => {
      const { rows } = await db.query<{ id: string; seq: string; version: string }>(
        `SELECT id, sync_seq::text AS seq, updated_at::text AS version FROM forms
         UNION ALL SELECT id, sync_seq::text, '' FROM form_statuses
         UNION ALL SELECT id, sync_seq::text, updated_at::text FROM tasks`,
      );
      return new Map(rows.map((row) => [row.id, row]));
    };
    const before = await stamps();

    await migrateThrough((name) => name >= ACCESS_RULES);
    const after = await stamps();
    const sentAgain = [...after.keys()].filter((id) => after.get(id)?.seq !== before.get(id)?.seq).sort();
    expect(sentAgain).toEqual([ids.restricted, ids.deleted, ids.restrictedStatus, ids.restrictedTask].sort());
    for (const id of after.keys()) expect(after.get(id)?.version).toBe(before.get(id)?.version);
  });
});
