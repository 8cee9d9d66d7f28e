import type { SyncDocument } from '@shared/sync';
import { addRxPlugin } from 'rxdb';
import { disableWarnings, RxDBDevModePlugin } from 'rxdb/plugins/dev-mode';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { runReplicationBaseTestSuite, setConfig } from 'rxdb/plugins/test-utils';
import { wrappedValidateAjvStorage } from 'rxdb/plugins/validate-ajv';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { replicateOverSocket } from '../renderer/src/data/socket-replication';
import type { ModuleFactory } from '../server/src/platform/module';
import {
  changedSince,
  checkpointParams,
  nextCheckpoint,
  type SyncSource,
  syncColumns,
} from '../server/src/platform/sync/sync-source';
import { startTestApp, type TestApp } from './helpers/app';
import { createOrg, type Member } from './helpers/factories';
import { connectSync, type SyncClient } from './helpers/sync-client';

// RxDB's suite creates databases with ignoreDuplicate, which needs dev-mode.
disableWarnings();
addRxPlugin(RxDBDevModePlugin);
// RxDB's suite is written for mocha's globals.
Object.assign(globalThis, { describe, it });
setConfig({
  storage: {
    name: 'memory',
    getStorage: () => wrappedValidateAjvStorage({ storage: getRxStorageMemory() }),
    getPerformanceStorage: () => ({ storage: getRxStorageMemory(), description: 'memory' }),
    hasPersistence: false,
    hasMultiInstance: false,
    hasAttachments: false,
    hasReplication: true,
  } as never,
});

function canonical(doc: Record<string, unknown> | null): string {
  if (!doc) return 'null';
  const { _meta, _rev, _attachments, ...rest } = doc;
  return JSON.stringify(Object.fromEntries(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b))));
}

/**
 * A test-only collection on the server ("humans" of RxDB's suite): documents stored as they come,
 * with RxDB's default master/fork protocol (a push whose assumed master state is not the current
 * one is a conflict answered with the master state).
 */
const humansModule: ModuleFactory = ({ db }) => {
  const source: SyncSource = {
    collection: 'humans',
    primaryKey: 'passportId',
    async pull(tx, auth, checkpoint, limit) {
      const { rows } = await tx.query<{ doc: SyncDocument; sync_xid: string; sync_seq: string }>(
        `SELECT h.doc, ${syncColumns('h')} FROM test_humans h WHERE h.organization_id = $1 AND ${changedSince('h', 2, 3)}
          ORDER BY h.sync_xid, h.sync_seq LIMIT $4`,
        [auth.organizationId, ...checkpointParams(checkpoint), limit],
      );
      return { documents: rows.map((row) => row.doc), checkpoint: nextCheckpoint(rows, checkpoint) };
    },
    async push(auth, rows) {
      const conflicts: SyncDocument[] = [];
      for (const row of rows) {
        const id = String(row.newDocumentState.passportId);
        await db.transaction(async (tx) => {
          const { rows: current } = await tx.query<{ doc: SyncDocument }>(
            'SELECT doc FROM test_humans WHERE organization_id = $1 AND id = $2 FOR UPDATE',
            [auth.organizationId, id],
          );
          const master = current[0]?.doc ?? null;
          if (canonical(master) !== canonical(row.assumedMasterState)) {
            if (master) conflicts.push(master);
            return;
          }
          const { _meta, _rev, _attachments, ...doc } = row.newDocumentState as Record<string, unknown>;
          await tx.query(
            `INSERT INTO test_humans (organization_id, id, doc) VALUES ($1, $2, $3)
             ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc`,
            [auth.organizationId, id, JSON.stringify(doc)],
          );
        });
      }
      return { conflicts, lost: [] };
    },
  };
  return { name: 'test-humans', routes: [], syncSources: [source] };
};

let t: TestApp;
let admin: Member;
const sockets: SyncClient[] = [];

beforeAll(async () => {
  t = await startTestApp({ extraModules: [humansModule], config: { syncPollMs: 30 } });
  await t.database.db.exec(`
    CREATE TABLE test_humans (organization_id uuid NOT NULL, id text PRIMARY KEY, doc jsonb NOT NULL,
      sync_xid xid8 NOT NULL DEFAULT pg_current_xact_id(), sync_seq bigint NOT NULL DEFAULT nextval('sync_seq'));
    CREATE TRIGGER sync_stamp BEFORE INSERT OR UPDATE ON test_humans FOR EACH ROW EXECUTE FUNCTION sync_stamp();`);
  admin = await createOrg(t);
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await t.close();
});

/**
 * Waits until every transaction that started before now has ended, so a pull sees all that is
 * committed (pulls stop at the oldest running transaction of the whole cluster, and other test
 * files run transactions in parallel).
 */
async function awaitSyncHorizon() {
  const { rows } = await t.database.db.query<{ horizon: string }>(
    'SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS horizon',
  );
  await vi.waitFor(
    async () => {
      const check = await t.database.db.query<{ reached: boolean }>(
        'SELECT pg_snapshot_xmin(pg_current_snapshot()) >= $1::text::xid8 AS reached',
        [rows[0]?.horizon],
      );
      expect(check.rows[0]?.reached).toBe(true);
    },
    { timeout: 10_000, interval: 10 },
  );
}

async function socket() {
  const client = await connectSync(t, admin.client.accessToken as string);
  sockets.push(client);
  return client.socket;
}

describe('replication over Socket.IO', () => {
  runReplicationBaseTestSuite({
    startReplication: async (collection) =>
      replicateOverSocket({ collection, remoteCollection: 'humans', socket: await socket(), retryTimeMs: 200 }),
    async syncOnce(collection) {
      await awaitSyncHorizon();
      const state = replicateOverSocket({
        collection,
        remoteCollection: 'humans',
        socket: await socket(),
        live: false,
      });
      await state.awaitInitialReplication();
      await state.cancel();
    },
    async getAllServerDocs() {
      const { rows } = await t.database.db.query<{ doc: SyncDocument }>('SELECT doc FROM test_humans ORDER BY id');
      return rows.map((row) => row.doc);
    },
    async cleanUpServer() {
      await t.database.db.query('DELETE FROM test_humans');
    },
    softDeletes: true,
    isDeleted: (doc) => doc._deleted === true,
    getPrimaryOfServerDoc: (doc) => doc.passportId,
    waitTime: 300,
  });
});
