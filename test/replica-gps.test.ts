import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  offlineGeofences,
  offlineGroups,
  offlineObjects,
  offlineRoutes,
  offlineTrack,
  saveGeofence,
} from '../renderer/src/pages/gps/offline-data';
import { keepTrackHours } from '../server/src/modules/gps/gps.sync';
import { startTestApp, type TestApp } from './helpers/app';
import { createMember, createOrg, type Member } from './helpers/factories';
import { memberReplica } from './helpers/replica';

let t: TestApp;
let admin: Member;
let token: string;
const WAIT = { timeout: 15_000, interval: 50 };

beforeAll(async () => {
  // Frequent looks for changes: a withdrawn access reaches the open replica by the stream.
  t = await startTestApp({ config: { syncPollMs: 100 } });
  admin = await createOrg(t);
  token = (await admin.client.post('/api/gps/ingestion-token')).body.token;
});
afterAll(() => t.close());

async function send(tracker: string, time: number, step: number) {
  const response = await t.request('/api/gps/traccar/positions', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({
      position: {
        fixTime: new Date(time).toISOString(),
        latitude: 55.75 + (step * 40) / 111_195,
        longitude: 37.6,
        speed: 10,
        accuracy: 5,
        valid: true,
      },
      device: { uniqueId: tracker, name: 'Tanker 7' },
    }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { objectId: string };
}

const circle = (lat: number, radiusMeters = 300) => ({ type: 'circle', center: { lat, lon: 37.6 }, radiusMeters });
const grant = (member: Member, modules: string[]) =>
  admin.client.put('/api/module-access', { users: [{ userId: member.userId, modules }] });

describe('the replica’s GPS collections', () => {
  it('hold objects, groups, geofences, routes and recent tracks for a GPS user, and nothing for others; emptied when access is withdrawn', async () => {
    const group = (await admin.client.post('/api/gps/groups', { name: 'Tankers' })).body;
    const tracker = `replica-${Date.now()}`;
    // Yesterday's track at this hour (in the default 24-hour window when just under a day old).
    // Trackers report whole seconds, as the replica keeps them.
    const start = Math.floor((Date.now() - 23 * 3_600_000) / 1000) * 1000;
    let objectId = '';
    for (let i = 0; i < 12; i++) objectId = (await send(tracker, start + i * 15_000, i)).objectId;
    await admin.client.patch(`/api/gps/objects/${objectId}`, { groupId: group.id });
    const geofence = (await admin.client.post('/api/gps/geofences', { name: 'Depot', geometry: circle(55.76) })).body;
    const route = (
      await admin.client.post('/api/gps/routes', {
        name: 'Night round',
        objectIds: [objectId],
        stops: [{ geofenceId: geofence.id, expectedAt: '2026-12-03T22:00:00Z' }],
      })
    ).body;
    await keepTrackHours(t.database.db);
    const dispatcher = await createMember(t, admin);
    await grant(dispatcher, ['gps']);
    const other = await createMember(t, admin);

    // Replicas are opened one after the other (RxDB's free tier opens few collections per process).
    const { replica, offline, online } = await memberReplica(t, dispatcher, { onLine: true });
    try {
      const rest = (
        await admin.client.get(
          `/api/gps/objects/${objectId}/track?from=${new Date(start - 1).toISOString()}&to=${new Date().toISOString()}`,
        )
      ).body.points as { fixTime: string; lat: number }[];
      expect(rest.length).toBeGreaterThan(8);
      // 15 s apart: every accepted point, at the REST track's times and places.
      await expect
        .poll(async () => {
          const track = await offlineTrack(replica.db, objectId, new Date(start - 1), new Date());
          return track.map((point) => [point.fixTime, point.lat]);
        }, WAIT)
        .toEqual(rest.map((point) => [point.fixTime, Number(point.lat.toFixed(6))]));
      await expect
        .poll(async () => (await offlineRoutes(replica.db)).map((r) => r.name), WAIT)
        .toContain('Night round');
      expect((await offlineObjects(replica.db)).find((o) => o.id === objectId)).toMatchObject({ groupId: group.id });
      expect((await offlineGroups(replica.db)).map((g) => g.id)).toContain(group.id);
      expect((await offlineGeofences(replica.db)).map((g) => g.id)).toContain(geofence.id);
      expect((await offlineRoutes(replica.db)).find((r) => r.id === route.id)?.objectIds).toEqual([objectId]);

      // Withdrawn: the open replica is emptied of every GPS record.
      await grant(dispatcher, []);
      await expect
        .poll(
          async () =>
            (await replica.db.gps_objects.count().exec()) +
            (await replica.db.gps_geofences.count().exec()) +
            (await replica.db.gps_tracks.count().exec()),
          WAIT,
        )
        .toBe(0);

      // Granted again: at the next connection everything comes again.
      await grant(dispatcher, ['gps']);
      offline();
      online();
      await expect
        .poll(async () => (await offlineTrack(replica.db, objectId, new Date(start - 1), new Date())).length, WAIT)
        .toBe(rest.length);
      await expect.poll(async () => (await offlineGeofences(replica.db)).map((g) => g.id), WAIT).toContain(geofence.id);
      expect((await offlineGroups(replica.db)).map((g) => g.id)).toContain(group.id);
    } finally {
      await replica.close();
    }

    const refused = await memberReplica(t, other, { onLine: true });
    try {
      await refused.replica.sync.awaitInitial();
      expect(await refused.replica.db.gps_objects.count().exec()).toBe(0);
      expect(await refused.replica.db.gps_geofences.count().exec()).toBe(0);
      expect(await refused.replica.db.gps_tracks.count().exec()).toBe(0);
    } finally {
      await refused.replica.close();
    }
  });

  it('merges a geofence renamed offline with its geometry changed on the server meanwhile', async () => {
    const dispatcher = await createMember(t, admin);
    await grant(dispatcher, ['gps']);
    const geofence = (await admin.client.post('/api/gps/geofences', { name: 'Quay', geometry: circle(55.7) })).body;
    const { replica, offline, online } = await memberReplica(t, dispatcher, { onLine: true });
    try {
      await expect
        .poll(async () => (await offlineGeofences(replica.db)).some((g) => g.id === geofence.id), WAIT)
        .toBe(true);
      offline();
      const made = await saveGeofence(replica, { name: 'Gate 3', geometry: circle(55.71, 40), color: '#d4380d' });
      await saveGeofence(replica, { id: geofence.id, name: 'Quay North' });
      expect(replica.status$.value.pending).toBe(2);
      // Meanwhile on the server: the geometry moves.
      expect(
        (await admin.client.patch(`/api/gps/geofences/${geofence.id}`, { geometry: circle(55.72, 500) })).status,
      ).toBe(200);

      online();
      await expect
        .poll(async () => (await admin.client.get(`/api/gps/geofences/${geofence.id}`)).body.name, WAIT)
        .toBe('Quay North');
      expect((await admin.client.get(`/api/gps/geofences/${geofence.id}`)).body.geometry).toEqual(circle(55.72, 500));
      expect((await admin.client.get(`/api/gps/geofences/${made.id}`)).body).toMatchObject({
        name: 'Gate 3',
        color: '#d4380d',
      });
      // The replica holds the merge too.
      await expect
        .poll(async () => (await offlineGeofences(replica.db)).find((g) => g.id === geofence.id)?.geometry, WAIT)
        .toEqual(circle(55.72, 500));
      expect(replica.lost$.value).toEqual([]);
    } finally {
      await replica.close();
    }
  });
});
