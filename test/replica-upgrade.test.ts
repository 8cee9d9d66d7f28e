import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRxDatabase, type RxJsonSchema } from 'rxdb';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replicaStorage } from '../electron/backend/replica-host';
import { getRxStorageBetterSqlite } from '../electron/backend/rx-storage-sqlite';
import { createOrbitaDatabase, type OrbitaDatabase, startReplicaSync } from '../renderer/src/data/database';
import { type CollectionName, collectionSchemas } from '../renderer/src/data/schemas';
import { startTestApp, type TestApp } from './helpers/app';
import { createForm, createOrg, createTask, type Member } from './helpers/factories';

/**
 * The replica's schemas as each release shipped them (`fixtures/replica-schemas-<release>.json`):
 * a replica on a user's disk was written with one of these, and every later build must open it.
 */
const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const released = readdirSync(FIXTURES)
  .filter((name) => /^replica-schemas-.+\.json$/.test(name))
  .map((name) => ({
    release: name.replace(/^replica-schemas-|\.json$/g, ''),
    schemas: JSON.parse(readFileSync(path.join(FIXTURES, name), 'utf8')) as Record<
      CollectionName,
      RxJsonSchema<unknown>
    >,
  }));

/** One document per collection, as a replica holds them (a task with values, a row of a tree). */
const DOCUMENTS: Record<CollectionName, Record<string, unknown>> = {
  forms: { id: 'form-1', name: 'Inspections', fields: [], statuses: [], transitions: [], visibleRoleIds: [] },
  statuses: { id: 'status-1', formId: 'form-1', name: 'New', initial: true, final: false, position: 0 },
  tasks: {
    id: 'task-1',
    formId: 'form-1',
    statusId: 'status-1',
    title: 'Boiler room',
    description: 'Check the pressure',
    fields: { 'field-1': '12.5' },
    labels: {},
    assignees: [],
    createdBy: null,
    createdAt: '2026-11-01T10:00:00.000Z',
    updatedAt: '2026-11-02T10:00:00.000Z',
  },
  directories: {
    id: 'directory-1',
    name: 'Sites',
    columns: [{ name: 'Name' }],
    parentDirectoryId: null,
    parentRowIds: [],
  },
  directory_rows: {
    id: 'row-1',
    directoryId: 'directory-1',
    parentId: null,
    position: 0,
    cells: ['North yard'],
    parentRowIds: [],
    updatedAt: '2026-11-02T10:00:00.000Z',
  },
  users: {
    id: 'user-1',
    email: 'anna@example.org',
    name: 'Anna',
    isAdmin: true,
    status: 'active',
    locale: 'ru',
    roleIds: [],
  },
  roles: { id: 'role-1', name: 'Dispatchers', memberIds: ['user-1'] },
  gps_objects: {
    id: 'object-1',
    name: 'Tanker 4',
    kind: 'vehicle',
    trackerId: 'tanker-4',
    groupId: null,
    settings: {},
    last_seen: null,
    last_gps_fix_at: null,
    gpsLost: false,
    lastPosition: null,
    speedKmh: null,
    createdAt: '2026-11-01T10:00:00.000Z',
    updatedAt: '2026-11-01T10:00:00.000Z',
  },
  gps_geofences: {
    id: 'geofence-1',
    type: 'geofence',
    name: 'Depot',
    geometry: { type: 'circle', center: { lat: 55.75, lon: 37.62 }, radiusMeters: 300 },
    color: null,
    createdAt: '2026-11-01T10:00:00.000Z',
    updatedAt: '2026-11-01T10:00:00.000Z',
  },
  gps_tracks: {
    id: 'track-hour-1',
    objectId: 'object-1',
    hour: '2026-11-01T10:00:00.000Z',
    points: [[0, 55.75, 37.62, 42.5, 90, 0]],
  },
};

let dir: string;
let t: TestApp;
let admin: Member;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'orbita-upgrade-'));
  t = await startTestApp({ config: { syncPollMs: 50 } });
  admin = await createOrg(t);
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

/** A replica of the tasks collection on `schema`, replicating with the server; every event it sends is logged. */
async function replicatingTasks(name: string, schema: RxJsonSchema<unknown>, migrationStrategies = {}) {
  const db = await createRxDatabase({
    name,
    storage: replicaStorage(dir),
    multiInstance: false,
  });
  await db.addCollections({ tasks: { schema, migrationStrategies } } as never);
  const socket = io(`${t.url}/sync`, { auth: { token: admin.client.accessToken }, transports: ['websocket'] });
  const sent: { event: string; payload: Record<string, unknown> }[] = [];
  socket.onAnyOutgoing((event, payload) => sent.push({ event, payload }));
  const sync = startReplicaSync(db as unknown as OrbitaDatabase, socket);
  await sync.awaitInitial();
  return {
    db,
    sent,
    sync,
    async close() {
      await sync.cancel();
      socket.close();
      await db.close();
    },
  };
}

describe('a replica written by an earlier release', () => {
  it('has a schema fixture for the schemas of this build', () => {
    // A schema changed without a new version would break every replica on disk (RxDB refuses it).
    const current = JSON.parse(JSON.stringify(collectionSchemas));
    const latest = released.at(-1)?.schemas;
    for (const name of Object.keys(current) as CollectionName[]) {
      const shipped = released.flatMap(({ schemas }) => (schemas[name] ? [schemas[name]] : []));
      const sameVersion = shipped.find((schema) => schema.version === current[name].version);
      if (sameVersion) expect(current[name], `${name}: raise its version to change its schema`).toEqual(sameVersion);
      else expect(current[name].version).toBeGreaterThan(latest?.[name]?.version ?? -1);
    }
  });

  it.each(released)(
    'opens a replica of release $release with its documents, migrated to this build',
    async ({ release, schemas }) => {
      const name = `replica-${release}`;
      const storage = () => getRxStorageBetterSqlite({ databaseDirectory: dir });
      const old = await createRxDatabase({ name, storage: storage(), multiInstance: false });
      await old.addCollections(
        Object.fromEntries(Object.entries(schemas).map(([collection, schema]) => [collection, { schema }])) as never,
      );
      for (const [collection, document] of Object.entries(DOCUMENTS)) {
        await old.collections[collection]?.insert(document);
      }
      // Edited on the device (not yet pushed): the edit survives the upgrade too.
      await old.collections.tasks?.findOne('task-1').incrementalPatch({ title: 'Boiler room, edited offline' });
      await old.close();

      // This build's desktop storage opens what the release wrote.
      const db = await createOrbitaDatabase({ name, storage: replicaStorage(dir) as never });
      try {
        for (const [collection, document] of Object.entries(DOCUMENTS) as [CollectionName, Record<string, unknown>][]) {
          // A collection newer than the release starts empty.
          if (!schemas[collection]) continue;
          const found = await db[collection].findOne(String(document.id)).exec();
          expect(found?.toJSON(), collection).toMatchObject(
            collection === 'tasks' ? { ...document, title: 'Boiler room, edited offline' } : document,
          );
        }
      } finally {
        await db.close();
      }
    },
  );

  it('says how far the upgrade has come while it runs, up to every task', async () => {
    const oldest = released[0];
    if (!oldest) throw new Error('no released schemas');
    const name = 'replica-progress';
    const old = await createRxDatabase({ name, storage: replicaStorage(dir), multiInstance: false });
    const { tasks } = await old.addCollections({ tasks: { schema: oldest.schemas.tasks } } as never);
    const count = 1_000;
    await tasks?.bulkInsert(
      Array.from({ length: count }, (_, n) => ({ ...DOCUMENTS.tasks, id: `task-${n}`, title: `Task ${n}` })),
    );
    await old.close();

    const reported: { handled: number; total: number }[] = [];
    const db = await createOrbitaDatabase({
      name,
      storage: replicaStorage(dir) as never,
      collections: ['tasks'],
      onUpgrade: (progress) => reported.push(progress),
    });
    try {
      expect(await db.tasks.count().exec()).toBe(count);
      expect(reported.length).toBeGreaterThan(1);
      expect(reported.every((progress) => progress.total === count)).toBe(true);
      const handled = reported.map((progress) => progress.handled);
      expect(handled).toEqual([...handled].sort((a, b) => a - b));
      expect(handled.some((value) => value > 0 && value < count)).toBe(true);
      expect(handled.at(-1)).toBe(count);
    } finally {
      await db.close();
    }
  });

  it('keeps replicating after its schema version changes: from its checkpoint, pushing only its own edit', async () => {
    const form = await createForm(admin);
    const edited = (await createTask(admin, form.id, { title: 'Pump' })) as { id: string };
    for (const title of ['Valve', 'Gauge']) await createTask(admin, form.id, { title });
    const shipped = released.at(-1)?.schemas.tasks as RxJsonSchema<unknown>;
    const before = await replicatingTasks('replica-next', shipped);
    // The tasks reach the replica once their transactions are behind the pull's visibility horizon.
    await expect.poll(async () => before.db.tasks?.count().exec(), { timeout: 10_000 }).toBe(3);
    await before.sync.cancel();
    // Edited on the device, not yet pushed, when the app is upgraded.
    await before.db.tasks?.findOne(edited.id).incrementalPatch({ title: 'Pump, edited offline' });
    await before.close();

    // The next release: a new schema version (here: one more index), its documents unchanged.
    const next = {
      ...shipped,
      version: shipped.version + 1,
      properties: { ...shipped.properties, updatedAt: { type: 'string', maxLength: 40 } },
      indexes: ['updatedAt'],
    } as RxJsonSchema<unknown>;
    const after = await replicatingTasks('replica-next', next, { [next.version]: (doc: unknown) => doc });
    try {
      await after.sync.awaitInSync();
      const pulls = after.sent.filter(({ event }) => event === 'sync:pull');
      const pushes = after.sent.filter(({ event }) => event === 'sync:push');
      // It resumed from its checkpoint instead of pulling everything again…
      expect(pulls.length).toBeGreaterThan(0);
      expect(pulls.every(({ payload }) => payload.checkpoint !== null)).toBe(true);
      // …and pushed the one edit it had, with the server state it was based on.
      const rows = pushes.flatMap(
        ({ payload }) => payload.rows as { assumedMasterState: unknown; newDocumentState: { id: string } }[],
      );
      expect(rows.map((row) => row.newDocumentState.id)).toEqual([edited.id]);
      expect(rows[0]?.assumedMasterState).toMatchObject({ title: 'Pump' });
      await expect
        .poll(async () => (await admin.client.get(`/api/tasks/${edited.id}`)).body.title, { timeout: 10_000 })
        .toBe('Pump, edited offline');
    } finally {
      await after.close();
    }
  });
});
