import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createOrg, type Member } from '../../../../test/helpers/factories';

let t: TestApp;
let admin: Member;
let token: string;
let osrm: Server;
let osrmUrl: string;
const osrmCalls: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
  token = (await admin.client.post('/api/gps/ingestion-token')).body.token;
  // A local engine answering /match as OSRM does: one matching per request, the 2nd point an outlier.
  osrm = createServer((req, res) => {
    osrmCalls.push(req.url ?? '');
    const path = new URL(req.url ?? '', 'http://x').pathname;
    const coordinates = decodeURIComponent(path.split('/').at(-1) ?? '')
      .split(';')
      .map((pair) => pair.split(',').map(Number) as [number, number]);
    res.setHeader('Content-Type', 'application/json');
    res.end(
      JSON.stringify({
        code: 'Ok',
        matchings: [
          {
            confidence: 0.9,
            distance: 1,
            duration: 1,
            geometry: { type: 'LineString', coordinates: coordinates.map(([lon, lat]) => [lon + 0.0001, lat]) },
          },
        ],
        tracepoints: coordinates.map((coordinate, index) =>
          index === 1 ? null : { location: coordinate, matchings_index: 0, waypoint_index: index, name: 'Road' },
        ),
      }),
    );
  });
  await new Promise<void>((resolve) => osrm.listen(0, '127.0.0.1', resolve));
  osrmUrl = `http://127.0.0.1:${(osrm.address() as AddressInfo).port}`;
});
afterAll(async () => {
  osrm.close();
  await t.close();
});

const base = Date.parse('2026-03-02T08:00:00Z');
const at = (seconds: number) => new Date(base + seconds * 1000).toISOString();
const north = (meters: number) => 55.75 + meters / 111_195;
let trackers = 0;

async function send(tracker: string, seconds: number, meters: number, speedKnots = 20, east = 0) {
  const response = await t.request('/api/gps/traccar/positions', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({
      position: {
        fixTime: at(seconds),
        latitude: north(meters),
        longitude: 37.6 + east,
        speed: speedKnots,
        accuracy: 5,
        valid: true,
      },
      device: { uniqueId: tracker, name: tracker },
    }),
  });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body as { objectId: string; accepted: boolean };
}

const range = `from=${at(-3600)}&to=${at(86_400)}`;

describe('gps: trips and stops', () => {
  it('finds two trips around a stop, and ignores a short hop', async () => {
    const tracker = `trips-${++trackers}`;
    let objectId = '';
    // Trip 1: 3 km in 5 minutes; parked 20 minutes; trip 2: 2 km in 4 minutes; then a 50 m hop.
    for (let s = 0; s <= 300; s += 30) objectId = (await send(tracker, s, s * 10)).objectId;
    for (let s = 330; s <= 1500; s += 60) await send(tracker, s, 3000, 0);
    for (let s = 1530; s <= 1770; s += 30) await send(tracker, s, 3000 + (s - 1500) * 8);
    await send(tracker, 5000, 5200, 5);
    await send(tracker, 5060, 5250, 5);
    const trips = (await admin.client.get(`/api/gps/objects/${objectId}/trips?${range}`)).body.items;
    expect(trips).toHaveLength(2);
    expect(trips[0].distanceMeters).toBeGreaterThan(2900);
    expect(trips[0].distanceMeters).toBeLessThan(3100);
    expect(trips[0].maxSpeedKmh).toBeCloseTo(37, 0);
    expect(trips[1].start).toBe(at(1530));
    const stops = (await admin.client.get(`/api/gps/objects/${objectId}/stops?${range}`)).body.items;
    expect(stops).toHaveLength(1);
    expect(stops[0].durationSeconds).toBeGreaterThanOrEqual(1200);
    expect(stops[0].place.address).toBeNull();
  });
});

describe('gps: geofences and routes', () => {
  it('refuses a self-intersecting polygon and a radius of 0, naming the field', async () => {
    const bowtie = await admin.client.post('/api/gps/geofences', {
      name: 'Bow tie',
      geometry: {
        type: 'polygon',
        points: [
          { lat: 55, lon: 37 },
          { lat: 55.01, lon: 37.01 },
          { lat: 55, lon: 37.01 },
          { lat: 55.01, lon: 37 },
        ],
      },
    });
    expect(bowtie.status).toBe(400);
    expect(bowtie.body.errors[0].code).toBe('self_intersecting');
    const zero = await admin.client.post('/api/gps/geofences', {
      name: 'Nothing',
      geometry: { type: 'circle', center: { lat: 55, lon: 37 }, radiusMeters: 0 },
    });
    expect(zero.status).toBe(400);
    expect(zero.body.errors[0].pointer).toBe('#/geometry/radiusMeters');
  });

  it('fires enter and exit on a polygon and a polyline corridor, never a false exit for a late point', async () => {
    const yard = await admin.client.post('/api/gps/geofences', {
      name: 'Yard',
      geometry: {
        type: 'polygon',
        points: [
          { lat: north(900), lon: 37.59 },
          { lat: north(900), lon: 37.61 },
          { lat: north(1100), lon: 37.61 },
          { lat: north(1100), lon: 37.59 },
        ],
      },
    });
    expect(yard.status, JSON.stringify(yard.body)).toBe(201);
    const road = await admin.client.post('/api/gps/geofences', {
      name: 'Road',
      geometry: {
        type: 'polyline',
        widthMeters: 40,
        points: [
          { lat: north(2000), lon: 37.6 },
          { lat: north(2600), lon: 37.6 },
        ],
      },
    });
    const events: string[] = [];
    const off = [
      t.app.events.subscribe('gps.geofence_entered', (e) => void events.push(`enter ${e.geofenceId}`)),
      t.app.events.subscribe('gps.geofence_exited', (e) => void events.push(`exit ${e.geofenceId}`)),
    ];
    const tracker = `fences-${++trackers}`;
    let objectId = '';
    for (let s = 0; s <= 300; s += 30) objectId = (await send(tracker, s, s * 10)).objectId;
    // A buffered point from inside the yard, replayed after the object left it: no new crossing.
    await send(tracker, 95, 950);
    await t.app.events.idle();
    for (const stop of off) stop();
    const list = (await admin.client.get(`/api/gps/objects/${objectId}/events?${range}`)).body.items;
    const crossings = list.map((e: { type: string; geofenceId: string; time: string }) => [
      e.type,
      e.geofenceId,
      e.time,
    ]);
    expect(crossings).toEqual([
      ['geofenceEnter', yard.body.id, at(90)],
      ['geofenceExit', yard.body.id, at(120)],
      ['geofenceEnter', road.body.id, at(210)],
      ['geofenceExit', road.body.id, at(270)],
    ]);
    expect(events).toEqual([
      `enter ${yard.body.id}`,
      `exit ${yard.body.id}`,
      `enter ${road.body.id}`,
      `exit ${road.body.id}`,
    ]);

    const route = await admin.client.post('/api/gps/routes', {
      name: 'Morning run',
      objectIds: [objectId],
      stops: [
        { geofenceId: yard.body.id, expectedAt: at(60), toleranceMinutes: 5 },
        { geofenceId: road.body.id, expectedAt: at(60), toleranceMinutes: 1 },
      ],
    });
    expect(route.status, JSON.stringify(route.body)).toBe(201);
    const progress = (await admin.client.get(`/api/gps/routes/${route.body.id}/progress`)).body;
    expect(progress).toEqual({
      items: [
        {
          objectId,
          stops: [
            { geofenceId: yard.body.id, expectedAt: at(60), status: 'visited', enteredAt: at(90) },
            { geofenceId: road.body.id, expectedAt: at(60), status: 'late', enteredAt: at(210) },
          ],
        },
      ],
    });

    // A stop never reached before a visited one is skipped; one not reached after the last visited is pending.
    const quay = await admin.client.post('/api/gps/geofences', {
      name: 'Quay',
      geometry: { type: 'circle', center: { lat: 55.8, lon: 37.7 }, radiusMeters: 100 },
    });
    const round = await admin.client.post('/api/gps/routes', {
      name: 'Full round',
      objectIds: [objectId],
      stops: [
        { geofenceId: yard.body.id, expectedAt: at(0), toleranceMinutes: 5 },
        { geofenceId: quay.body.id, expectedAt: at(100), toleranceMinutes: 5 },
        { geofenceId: road.body.id, expectedAt: at(200), toleranceMinutes: 10 },
        { geofenceId: yard.body.id, expectedAt: at(400), toleranceMinutes: 5 },
      ],
    });
    expect((await admin.client.get(`/api/gps/routes/${round.body.id}/progress`)).body).toEqual({
      items: [
        {
          objectId,
          stops: [
            { geofenceId: yard.body.id, expectedAt: at(0), status: 'visited', enteredAt: at(90) },
            { geofenceId: quay.body.id, expectedAt: at(100), status: 'skipped', enteredAt: null },
            { geofenceId: road.body.id, expectedAt: at(200), status: 'visited', enteredAt: at(210) },
            { geofenceId: yard.body.id, expectedAt: at(400), status: 'pending', enteredAt: null },
          ],
        },
      ],
    });
  });

  it('lists Traccar’s own events with the object’s history', async () => {
    const response = await t.request('/api/gps/traccar/events', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({
        event: { id: 1216, deviceId: 7, type: 'ignitionOn', eventTime: '2026-03-02T08:00:10.000+0000', positionId: 1 },
        position: { latitude: 55.75, longitude: 37.6, fixTime: '2026-03-02T08:00:10.000+0000' },
        device: { id: 7, name: 'Van', uniqueId: 'traccar-event-van' },
      }),
    });
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(200);
    const again = await t.request('/api/gps/traccar/events', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({
        event: { id: 1216, type: 'ignitionOn', eventTime: '2026-03-02T08:00:10.000+0000' },
        device: { uniqueId: 'traccar-event-van' },
      }),
    });
    expect(again.status).toBe(200);
    const list = (await admin.client.get(`/api/gps/objects/${body.objectId}/events?${range}`)).body.items;
    expect(list).toEqual([expect.objectContaining({ source: 'traccar', type: 'ignitionOn', time: at(10) })]);
  });
});

describe('gps: road matching', () => {
  it('answers the raw track with matched: false without an engine, and the snapped one with it (cached)', async () => {
    const tracker = `match-${++trackers}`;
    let objectId = '';
    for (let s = 0; s <= 150; s += 30) objectId = (await send(tracker, s, s * 10)).objectId;
    // After a 20-minute gap: a second segment.
    for (let s = 1500; s <= 1560; s += 30) await send(tracker, s, 1600 + (s - 1500) * 10);
    const raw = (await admin.client.get(`/api/gps/objects/${objectId}/matched-track?${range}`)).body;
    expect(raw.matched).toBe(false);
    expect(raw.segments[0].coordinates).toHaveLength(9);
    await admin.client.patch('/api/gps/settings', { routingEngine: { kind: 'osrm', url: osrmUrl, maxPoints: 4 } });
    const matched = (await admin.client.get(`/api/gps/objects/${objectId}/matched-track?${range}`)).body;
    expect(matched.matched).toBe(true);
    // 6 points in pieces of 4 (sharing a point): 2 requests, then 1 for the segment after the gap.
    expect(osrmCalls.filter((call) => call.startsWith('/match/v1/driving/'))).toHaveLength(3);
    expect(matched.segments).toHaveLength(3);
    expect(matched.segments[0].coordinates[0].lon).toBeCloseTo(37.6001, 6);
    expect(matched.segments[0].outliers).toEqual([at(30)]);
    await admin.client.get(`/api/gps/objects/${objectId}/matched-track?${range}`);
    expect(osrmCalls.filter((call) => call.startsWith('/match/'))).toHaveLength(3);
    await admin.client.patch('/api/gps/settings', { routingEngine: { kind: 'osrm', url: 'http://127.0.0.1:9' } });
    const fallback = (await admin.client.get(`/api/gps/objects/${objectId}/matched-track?${range}`)).body;
    expect(fallback.matched).toBe(false);
    await admin.client.patch('/api/gps/settings', { routingEngine: null });
  });
});

describe('gps: the track as sent', () => {
  it('writes each point as before: times to the millisecond across a day, numbers as JSON.stringify writes them, nulls, cell-tower fixes, refused points after the accepted one of their time', async () => {
    const object = await admin.client.post('/api/gps/objects', {
      name: 'Odd values',
      kind: 'vehicle',
      trackerId: 'odd',
    });
    expect(object.status, JSON.stringify(object.body)).toBe(201);
    const objectId = object.body.id as string;
    const point = `INSERT INTO gps_points (object_id, organization_id, fix_time, lat, lon, speed_kmh, course, accuracy, is_lbs)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`;
    const refused = `INSERT INTO gps_rejected_points (object_id, organization_id, fix_time, reason, lat, lon, speed_kmh, course,
      accuracy, is_lbs) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;
    const ids = [objectId, admin.organizationId];
    // Stored out of time order; PostgreSQL writes 5e-05, -1e-07, 1e-05 and 1.234567e+06 for some of them.
    await t.database.db.query(point, [
      ...ids,
      '2026-03-03T01:30:00.000Z',
      55.75123456789012,
      37.6,
      18.52,
      359.9,
      5,
      false,
    ]);
    await t.database.db.query(point, [...ids, '2026-03-02T23:59:59.999Z', 0.00005, -1e-7, null, null, null, false]);
    await t.database.db.query(point, [...ids, '2026-03-03T00:00:00.001Z', 0.001, '-0', 1234567, 0.00001, 2500, true]);
    await t.database.db.query(point, [...ids, '2026-03-03T01:30:00.001Z', 55.8, 37.6, 10, 10, 5, false]);
    await t.database.db.query(refused, [...ids, '2026-03-03T00:00:00.001Z', 'spike', 1, 2, 3, 4, 5, false]);
    await t.database.db.query(refused, [...ids, '2026-03-03T00:00:00.001Z', 'jitter', 0.5, 0.25, 0, null, 10, false]);
    await t.database.db.query(refused, [
      ...ids,
      '2026-03-03T00:30:00.000Z',
      'invalid',
      null,
      null,
      null,
      null,
      null,
      false,
    ]);
    await t.database.db.query(refused, [
      ...ids,
      '2026-03-03T00:45:00.000Z',
      'lbs_inaccurate',
      55.7,
      null,
      0,
      0,
      9000,
      true,
    ]);

    const read = async (query = '') => {
      const response = await t.request(
        `/api/gps/objects/${objectId}/track?from=2026-03-02T23:59:59.999Z&to=2026-03-03T01:30:00.000Z${query}`,
        { headers: { Authorization: `Bearer ${admin.client.accessToken}` } },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      return response.text();
    };
    const first =
      '{"fixTime":"2026-03-02T23:59:59.999Z","lat":0.00005,"lon":-1e-7,"speedKmh":null,"course":null,"accuracy":null,"isLbs":false}';
    const second =
      '{"fixTime":"2026-03-03T00:00:00.001Z","lat":0.001,"lon":0,"speedKmh":1234567,"course":0.00001,"accuracy":2500,"isLbs":true}';
    const third =
      '{"fixTime":"2026-03-03T01:30:00.000Z","lat":55.75123456789012,"lon":37.6,"speedKmh":18.52,"course":359.9,"accuracy":5,"isLbs":false}';
    // The distance along the three accepted points in range (the last one is a millisecond past `to`).
    expect(await read()).toBe(`{"points":[${first},${second},${third}],"distanceMeters":7063078.8}`);
    const jitter =
      '{"fixTime":"2026-03-03T00:00:00.001Z","lat":0.5,"lon":0.25,"speedKmh":0,"course":null,"accuracy":10,"isLbs":false,"reason":"jitter"}';
    const spike =
      '{"fixTime":"2026-03-03T00:00:00.001Z","lat":1,"lon":2,"speedKmh":3,"course":4,"accuracy":5,"isLbs":false,"reason":"spike"}';
    // Without a position a refused point is left out; without a longitude it is drawn at 0.
    const lbs =
      '{"fixTime":"2026-03-03T00:45:00.000Z","lat":55.7,"lon":0,"speedKmh":0,"course":0,"accuracy":9000,"isLbs":true,"reason":"lbs_inaccurate"}';
    expect(await read('&include=rejected')).toBe(
      `{"points":[${first},${second},${jitter},${spike},${lbs},${third}],"distanceMeters":7063078.8}`,
    );
    const empty = await admin.client.get(
      `/api/gps/objects/${objectId}/track?from=2026-03-04T00:00:00Z&to=2026-03-05T00:00:00Z`,
    );
    expect(empty.body).toEqual({ points: [], distanceMeters: 0 });
  });
});
