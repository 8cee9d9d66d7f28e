import type { SyncCheckpoint, SyncDocument } from '@shared/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createMember, createOrg, type Member } from '../../../../test/helpers/factories';
import { connectSync } from '../../../../test/helpers/sync-client';

let t: TestApp;
let admin: Member;

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
});
afterAll(() => t.close());

async function pulled(
  member: Member,
  collection: string,
  done: (documents: SyncDocument[]) => boolean,
  from: SyncCheckpoint | null = null,
) {
  const client = await connectSync(t, member.client.accessToken as string);
  try {
    return await client.pullUntil(collection, done, from);
  } finally {
    client.close();
  }
}

async function pushed(
  member: Member,
  collection: string,
  rows: { assumedMasterState: unknown; newDocumentState: unknown }[],
) {
  const client = await connectSync(t, member.client.accessToken as string);
  try {
    const answer = await client.push(collection, rows as never);
    if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
    return answer.data;
  } finally {
    client.close();
  }
}

const circle = (lat: number, radiusMeters = 300) => ({ type: 'circle', center: { lat, lon: 37.6 }, radiusMeters });
const has =
  (id: string, check: (document: SyncDocument) => boolean = () => true) =>
  (documents: SyncDocument[]) =>
    documents.some((document) => document.id === id && check(document));
const latest = (documents: SyncDocument[], id: string) => documents.filter((document) => document.id === id).at(-1);

async function gpsUser(): Promise<Member> {
  const member = await createMember(t, admin);
  const granted = await admin.client.put('/api/module-access', {
    users: [{ userId: member.userId, modules: ['gps'] }],
  });
  expect(granted.status, JSON.stringify(granted.body)).toBeLessThan(300);
  return member;
}

describe('gps: groups, geofences and routes on replicas', () => {
  it('carries groups in gps_objects (type group) and geofences with routes in gps_geofences, for GPS users only', async () => {
    const group = (await admin.client.post('/api/gps/groups', { name: 'Night shift' })).body;
    const object = (await admin.client.post('/api/gps/objects', { name: 'Van 2', trackerId: `gf-${Date.now()}` })).body;
    const geofence = (await admin.client.post('/api/gps/geofences', { name: 'Depot', geometry: circle(55.7) })).body;
    const route = await admin.client.post('/api/gps/routes', {
      name: 'Morning round',
      objectIds: [object.id],
      stops: [{ geofenceId: geofence.id, expectedAt: '2026-12-03T08:00:00Z' }],
    });
    expect(route.status, JSON.stringify(route.body)).toBe(201);
    const dispatcher = await gpsUser();
    const other = await createMember(t, admin);

    const objects = await pulled(dispatcher, 'gps_objects', has(group.id));
    expect(latest(objects.documents, group.id)).toMatchObject({ type: 'group', name: 'Night shift', _deleted: false });
    expect(latest(objects.documents, object.id)).toMatchObject({ type: 'object', name: 'Van 2' });
    const shapes = await pulled(dispatcher, 'gps_geofences', has(route.body.id));
    expect(latest(shapes.documents, geofence.id)).toMatchObject({
      type: 'geofence',
      name: 'Depot',
      geometry: circle(55.7),
    });
    expect(latest(shapes.documents, route.body.id)).toMatchObject({
      type: 'route',
      name: 'Morning round',
      objectIds: [object.id],
    });
    // The pulls above reached past these commits: others are sent nothing at all.
    expect((await pulled(other, 'gps_geofences', () => true)).documents).toEqual([]);
    expect((await pulled(other, 'gps_objects', () => true)).documents).toEqual([]);

    expect((await admin.client.delete(`/api/gps/groups/${group.id}`)).status).toBe(204);
    expect((await admin.client.delete(`/api/gps/routes/${route.body.id}`)).status).toBe(204);
    const after = await pulled(
      dispatcher,
      'gps_objects',
      has(group.id, (d) => d._deleted),
      objects.checkpoint,
    );
    expect(latest(after.documents, group.id)).toEqual({ id: group.id, _deleted: true });
    const routesAfter = await pulled(
      dispatcher,
      'gps_geofences',
      has(route.body.id, (d) => d._deleted),
      shapes.checkpoint,
    );
    expect(latest(routesAfter.documents, route.body.id)).toEqual({ id: route.body.id, _deleted: true });
  });

  it('merges an offline rename with a concurrent geometry change on the server; the same field changed on both keeps the server’s', async () => {
    const dispatcher = await gpsUser();
    const created = (await admin.client.post('/api/gps/geofences', { name: 'Yard', geometry: circle(55.8) })).body;
    const base = latest(
      (await pulled(dispatcher, 'gps_geofences', has(created.id))).documents,
      created.id,
    ) as SyncDocument;

    // On the server meanwhile: the geometry moves.
    expect((await admin.client.patch(`/api/gps/geofences/${created.id}`, { geometry: circle(55.9, 500) })).status).toBe(
      200,
    );
    const answer = await pushed(dispatcher, 'gps_geofences', [
      { assumedMasterState: base, newDocumentState: { ...base, name: 'Yard North' } },
    ]);
    expect(answer.lost).toEqual([]);
    const merged = (await admin.client.get(`/api/gps/geofences/${created.id}`)).body;
    expect(merged).toMatchObject({ name: 'Yard North', geometry: circle(55.9, 500) });
    // The replica is sent the merged state.
    expect(answer.conflicts).toEqual([
      expect.objectContaining({ id: created.id, name: 'Yard North', geometry: circle(55.9, 500) }),
    ]);

    // Both renamed: the server's name stays, the replica's is reported lost.
    const second = latest(
      (
        await pulled(
          dispatcher,
          'gps_geofences',
          has(created.id, (d) => d.name === 'Yard North'),
        )
      ).documents,
      created.id,
    ) as SyncDocument;
    expect((await admin.client.patch(`/api/gps/geofences/${created.id}`, { name: 'Yard (old)' })).status).toBe(200);
    const clash = await pushed(dispatcher, 'gps_geofences', [
      { assumedMasterState: second, newDocumentState: { ...second, name: 'Yard South', geometry: circle(55.95, 200) } },
    ]);
    expect(clash.lost).toEqual([
      expect.objectContaining({
        id: created.id,
        path: 'name',
        attempted: 'Yard South',
        kept: 'Yard (old)',
        reason: 'changed_on_server',
      }),
    ]);
    expect((await admin.client.get(`/api/gps/geofences/${created.id}`)).body).toMatchObject({
      name: 'Yard (old)',
      geometry: circle(55.95, 200),
    });
  });

  it('creates geofences and routes made offline with their own ids, judged like REST; deletes them', async () => {
    const dispatcher = await gpsUser();
    const id = crypto.randomUUID();
    const made = { id, type: 'geofence', name: 'Gate', geometry: circle(55.5, 50), color: null, _deleted: false };
    const answer = await pushed(dispatcher, 'gps_geofences', [{ assumedMasterState: null, newDocumentState: made }]);
    expect(answer.lost).toEqual([]);
    expect((await admin.client.get(`/api/gps/geofences/${id}`)).body).toMatchObject({ id, name: 'Gate' });

    // A radius of 0 is refused as on REST; a route naming an unknown object too.
    const flat = { ...made, id: crypto.randomUUID(), geometry: circle(55.5, 0) };
    const routeId = crypto.randomUUID();
    const route = {
      id: routeId,
      type: 'route',
      name: 'Round',
      objectIds: [crypto.randomUUID()],
      stops: [{ geofenceId: id, expectedAt: '2026-12-03T09:00:00.000Z', toleranceMinutes: 10 }],
      _deleted: false,
    };
    const refused = await pushed(dispatcher, 'gps_geofences', [
      { assumedMasterState: null, newDocumentState: flat },
      { assumedMasterState: null, newDocumentState: route },
    ]);
    expect(refused.lost.map((edit) => [edit.id, edit.reason, edit.code])).toEqual(
      expect.arrayContaining([
        [flat.id, 'refused', 'validation_failed'],
        [routeId, 'refused', 'validation_failed'],
      ]),
    );
    expect((await admin.client.get(`/api/gps/geofences/${flat.id}`)).status).toBe(404);

    // A colour is #rrggbb offline as on REST: a malformed edit is refused, the geofence keeping its own.
    const master0 = latest((await pulled(dispatcher, 'gps_geofences', has(id))).documents, id) as SyncDocument;
    const named = await pushed(dispatcher, 'gps_geofences', [
      { assumedMasterState: master0, newDocumentState: { ...master0, color: 'red' } },
    ]);
    expect(named.lost.map((edit) => [edit.id, edit.reason, edit.code])).toEqual([[id, 'refused', 'validation_failed']]);
    expect((await admin.client.get(`/api/gps/geofences/${id}`)).body.color).toBeNull();
    const hex = await pushed(dispatcher, 'gps_geofences', [
      { assumedMasterState: master0, newDocumentState: { ...master0, color: '#22aa44' } },
    ]);
    expect(hex.lost).toEqual([]);
    expect((await admin.client.get(`/api/gps/geofences/${id}`)).body.color).toBe('#22aa44');
    expect((await admin.client.get(`/api/gps/routes/${routeId}`)).status).toBe(404);

    const fine = await pushed(dispatcher, 'gps_geofences', [
      { assumedMasterState: null, newDocumentState: { ...route, objectIds: [] } },
    ]);
    expect(fine.lost).toEqual([]);
    expect((await admin.client.get(`/api/gps/routes/${routeId}`)).body).toMatchObject({ name: 'Round', objectIds: [] });

    const master = latest((await pulled(dispatcher, 'gps_geofences', has(id))).documents, id) as SyncDocument;
    const gone = await pushed(dispatcher, 'gps_geofences', [
      { assumedMasterState: master, newDocumentState: { ...master, _deleted: true } },
    ]);
    expect(gone.lost).toEqual([]);
    expect((await admin.client.get(`/api/gps/geofences/${id}`)).status).toBe(404);
  });

  it('takes a route made offline with a geofence made offline that it names, whichever comes first in the push', async () => {
    const dispatcher = await gpsUser();
    const gate = {
      id: crypto.randomUUID(),
      type: 'geofence',
      name: 'Yard',
      geometry: circle(55.6, 40),
      _deleted: false,
    };
    const route = {
      id: crypto.randomUUID(),
      type: 'route',
      name: 'Yard loop',
      objectIds: [],
      stops: [{ geofenceId: gate.id, expectedAt: '2026-12-03T10:00:00.000Z', toleranceMinutes: 5 }],
      _deleted: false,
    };
    // The geofence edited after the route was made: the replica sends the route first.
    const answer = await pushed(dispatcher, 'gps_geofences', [
      { assumedMasterState: null, newDocumentState: route },
      { assumedMasterState: null, newDocumentState: gate },
    ]);
    expect(answer.lost).toEqual([]);
    expect((await admin.client.get(`/api/gps/routes/${route.id}`)).body).toMatchObject({
      name: 'Yard loop',
      stops: [expect.objectContaining({ geofenceId: gate.id })],
    });
  });

  it('refuses pushes of a user without GPS access, keeping nothing', async () => {
    const other = await createMember(t, admin);
    const id = crypto.randomUUID();
    const answer = await pushed(other, 'gps_geofences', [
      {
        assumedMasterState: null,
        newDocumentState: { id, type: 'geofence', name: 'Sneaky', geometry: circle(55.1), _deleted: false },
      },
    ]);
    // Each value entered is reported refused, with the reason.
    expect(answer.lost.map((edit) => [edit.path, edit.code])).toEqual([
      ['name', 'module_access_denied'],
      ['geometry', 'module_access_denied'],
    ]);
    expect(answer.conflicts).toEqual([{ id, _deleted: true }]);
    expect((await admin.client.get(`/api/gps/geofences/${id}`)).status).toBe(404);
  });

  it('sends a user whose GPS access is withdrawn a tombstone of every GPS record, then nothing; everything again once it returns', async () => {
    const org = await createOrg(t);
    const make = async () => {
      const object = (await org.client.post('/api/gps/objects', { name: 'Bus', trackerId: `w-${crypto.randomUUID()}` }))
        .body;
      const group = (await org.client.post('/api/gps/groups', { name: 'Buses' })).body;
      const geofence = (await org.client.post('/api/gps/geofences', { name: 'Stop', geometry: circle(55.2) })).body;
      return { object, group, geofence };
    };
    const records = [await make(), await make()];
    const member = await createMember(t, org);
    const grant = (modules: string[]) =>
      org.client.put('/api/module-access', { users: [{ userId: member.userId, modules }] });
    await grant(['gps']);
    const objectIds = records.flatMap(({ object, group }) => [object.id, group.id]).sort();
    const geofenceIds = records.map(({ geofence }) => geofence.id).sort();
    const objects = await pulled(member, 'gps_objects', (documents) => objectIds.every((id) => has(id)(documents)));
    const shapes = await pulled(member, 'gps_geofences', (documents) => geofenceIds.every((id) => has(id)(documents)));

    await grant([]);
    const client = await connectSync(t, member.client.accessToken as string);
    try {
      // Pages of 3: the tombstones come in id order, the checkpoint saying how far.
      const withdrawn = await client.pullAll('gps_objects', objects.checkpoint, 3);
      expect(withdrawn.documents).toEqual(objectIds.map((id) => ({ id, _deleted: true })));
      expect(withdrawn.checkpoint).toMatchObject({ xid: '0', seq: '0' });
      expect((await client.pullAll('gps_objects', withdrawn.checkpoint)).documents).toEqual([]);
      const withdrawnShapes = await client.pullAll('gps_geofences', shapes.checkpoint);
      expect(withdrawnShapes.documents).toEqual(geofenceIds.map((id) => ({ id, _deleted: true })));

      await grant(['gps']);
      const back = await client.pullAll('gps_objects', withdrawn.checkpoint);
      expect(
        back.documents
          .filter((d) => !d._deleted)
          .map((d) => d.id)
          .sort(),
      ).toEqual(objectIds);
    } finally {
      client.close();
    }
  });

  it('sends a user who never held GPS records nothing for a made-up checkpoint: no tombstone names a record', async () => {
    const org = await createOrg(t);
    await org.client.post('/api/gps/objects', { name: 'Van', trackerId: `f-${crypto.randomUUID()}` });
    await org.client.post('/api/gps/geofences', { name: 'Depot', geometry: circle(55.3) });
    const outsider = await createMember(t, org);
    const client = await connectSync(t, outsider.client.accessToken as string);
    try {
      for (const collection of ['gps_objects', 'gps_geofences', 'gps_tracks']) {
        for (const forged of [
          { xid: '1', seq: '1' },
          { xid: '0', seq: '0', withdrawnAfter: '0' },
        ]) {
          const answer = await client.pullAll(collection, forged);
          expect(answer.documents, `${collection} from ${JSON.stringify(forged)}`).toEqual([]);
        }
      }
      // Granted and then withdrawn, the records the replica was sent are cleared as before.
      const grant = (modules: string[]) =>
        org.client.put('/api/module-access', { users: [{ userId: outsider.userId, modules }] });
      await grant(['gps']);
      const held = await client.pullAll('gps_objects', null);
      expect(held.documents.filter((d) => !d._deleted)).toHaveLength(1);
      await grant([]);
      const cleared = await client.pullAll('gps_objects', held.checkpoint);
      expect(cleared.documents).toEqual([{ id: held.documents[0]?.id, _deleted: true }]);
    } finally {
      client.close();
    }
  });
});
