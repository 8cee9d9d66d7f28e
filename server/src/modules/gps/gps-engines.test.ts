import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createOrg, type Member } from '../../../../test/helpers/factories';
import { pruneOldPoints } from './gps.service';

let t: TestApp;
let admin: Member;
let token: string;
let engine: Server;
let engineUrl: string;
const nearestCalls: string[] = [];
const traceBodies: { shape: { lat: number; lon: number; time: number }[]; costing: string }[] = [];
let valhallaFails = false;

/** Encodes points as Valhalla's shapes are (polyline, precision 6). */
function encodePolyline6(points: { lat: number; lon: number }[]): string {
  let out = '';
  const put = (delta: number) => {
    let value = delta < 0 ? ~(delta << 1) : delta << 1;
    while (value >= 0x20) {
      out += String.fromCharCode((0x20 | (value & 0x1f)) + 63);
      value >>= 5;
    }
    out += String.fromCharCode(value + 63);
  };
  let lat = 0;
  let lon = 0;
  for (const point of points) {
    const nextLat = Math.round(point.lat * 1e6);
    const nextLon = Math.round(point.lon * 1e6);
    put(nextLat - lat);
    put(nextLon - lon);
    lat = nextLat;
    lon = nextLon;
  }
  return out;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => resolve(text));
  });

/** The snapped shape the fake Valhalla answers: every point moved 0.0002° east. */
const snapped = (shape: { lat: number; lon: number }[]) => shape.map(({ lat, lon }) => ({ lat, lon: lon + 0.0002 }));

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
  token = (await admin.client.post('/api/gps/ingestion-token')).body.token;
  // One local engine speaking both protocols: OSRM's /nearest (roads run along longitude 37.6: the
  // distance to a road is the east offset) and Valhalla's /trace_route.
  engine = createServer(async (req, res) => {
    const url = new URL(req.url ?? '', 'http://x');
    res.setHeader('Content-Type', 'application/json');
    if (url.pathname.startsWith('/nearest/v1/')) {
      nearestCalls.push(url.pathname);
      const [lon, lat] = decodeURIComponent(url.pathname.split('/').at(-1) ?? '')
        .split(',')
        .map(Number) as [number, number];
      const distance = Math.abs(lon - 37.6) * 111_195 * Math.cos((lat * Math.PI) / 180);
      res.end(
        JSON.stringify({
          code: 'Ok',
          waypoints: [{ nodes: [1, 2], hint: 'x', distance, name: 'Road', location: [37.6, lat] }],
        }),
      );
      return;
    }
    if (url.pathname === '/trace_route' && req.method === 'POST') {
      const body = JSON.parse(await readBody(req));
      traceBodies.push(body);
      if (valhallaFails) {
        res.statusCode = 400;
        res.end(JSON.stringify({ error_code: 442, error: 'No suitable edges near location', status_code: 400 }));
        return;
      }
      res.end(
        JSON.stringify({
          trip: {
            locations: [],
            legs: [{ shape: encodePolyline6(snapped(body.shape)), summary: { length: 1, time: 1 } }],
            summary: { length: 1, time: 1 },
            status: 0,
            status_message: 'Found route between points',
            units: 'kilometers',
          },
        }),
      );
      return;
    }
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
  engineUrl = `http://127.0.0.1:${(engine.address() as AddressInfo).port}`;
});
afterAll(async () => {
  engine.close();
  await t.close();
});

const base = Date.parse('2026-03-02T08:00:00Z');
const at = (seconds: number) => new Date(base + seconds * 1000).toISOString();
const north = (meters: number) => 55.75 + meters / 111_195;
/** Meters east of the road at longitude 37.6, in degrees of longitude at latitude 55.75. */
const east = (meters: number) => 37.6 + meters / (111_195 * Math.cos((55.75 * Math.PI) / 180));
let trackers = 0;

async function post(tracker: string, position: Record<string, unknown>, bearer = token) {
  const response = await t.request('/api/gps/traccar/positions', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${bearer}` },
    body: JSON.stringify({
      position: { speed: 20, accuracy: 5, valid: true, longitude: 37.6, ...position },
      device: { uniqueId: tracker, name: tracker },
    }),
  });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body as { objectId: string; accepted: boolean; reason: string | null };
}

/** A cell-tower position (Traccar's `approximate`) with a 500 m radius. */
const tower = (seconds: number, meters: number, eastMeters: number) => ({
  fixTime: at(seconds),
  latitude: north(meters),
  longitude: east(eastMeters),
  speed: 0,
  accuracy: 500,
  attributes: { approximate: true },
});

async function osmand(query: string) {
  const response = await t.request(`/api/gps/osmand?${query}&token=${token}`);
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body as { objectId: string; accepted: boolean; reason: string | null };
}

async function trackOf(objectId: string, include = '') {
  const response = await admin.client.get(
    `/api/gps/objects/${objectId}/track?from=${at(-86_400 * 400)}&to=${new Date(Date.now() + 3_600_000).toISOString()}${include}`,
  );
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as {
    points: { fixTime: string; lat: number; lon: number; reason?: string }[];
    distanceMeters: number;
  };
}

describe('gps: off_road (cell-tower points far from a road)', () => {
  it('refuses a cell-tower point farther than offRoadMeters from the nearest road once an engine is set', async () => {
    const tracker = `tower-${++trackers}`;
    // Without an engine, a tower point 2 km from the road is kept: nothing says where roads are.
    const first = await post(tracker, tower(0, 0, 2000));
    expect(first).toMatchObject({ accepted: true, reason: null });
    expect(nearestCalls).toHaveLength(0);

    await admin.client.patch('/api/gps/settings', { routingEngine: { kind: 'osrm', url: engineUrl } });
    // 1 km from the road (over the default 300 m): refused as off_road.
    expect(await post(tracker, tower(1200, 0, 1000))).toMatchObject({ accepted: false, reason: 'off_road' });
    expect(nearestCalls.at(-1)).toMatch(/^\/nearest\/v1\/driving\/37\.\d+,55\.\d+$/);
    // 100 m from the road: kept.
    expect(await post(tracker, tower(2400, 0, 100))).toMatchObject({ accepted: true });
    // A satellite fix far from any road (a field, a yard) is never asked about nor refused for it.
    const asked = nearestCalls.length;
    expect(await post(tracker, { fixTime: at(3600), latitude: north(0), longitude: east(1500) })).toMatchObject({
      accepted: true,
    });
    expect(nearestCalls).toHaveLength(asked);

    // The organization's (or object's) offRoadMeters decides: 1,200 m lets a 1 km point through.
    await admin.client.patch(`/api/gps/objects/${first.objectId}`, { settings: { offRoadMeters: 1200 } });
    expect(await post(tracker, tower(5400, 0, 900))).toMatchObject({ accepted: true });

    const track = await trackOf(first.objectId, '&include=rejected');
    expect(track.points.map((p) => [p.fixTime, p.reason ?? 'kept'])).toEqual([
      [at(0), 'kept'],
      [at(1200), 'off_road'],
      [at(2400), 'kept'],
      [at(3600), 'kept'],
      [at(5400), 'kept'],
    ]);
    await admin.client.patch('/api/gps/settings', { routingEngine: null });
  });

  it('keeps the point when the engine cannot say (down or answering an error)', async () => {
    const tracker = `tower-${++trackers}`;
    await admin.client.patch('/api/gps/settings', { routingEngine: { kind: 'osrm', url: 'http://127.0.0.1:9' } });
    expect(await post(tracker, tower(0, 0, 5000))).toMatchObject({ accepted: true });
    await admin.client.patch('/api/gps/settings', { routingEngine: null });
  });
});

describe('gps: matching with Valhalla', () => {
  it('snaps the track through trace_route and falls back to the raw track when Valhalla refuses', async () => {
    const tracker = `valhalla-${++trackers}`;
    let objectId = '';
    for (let s = 0; s <= 120; s += 30)
      objectId = (await post(tracker, { fixTime: at(s), latitude: north(s * 10) })).objectId;
    await admin.client.patch('/api/gps/settings', { routingEngine: { kind: 'valhalla', url: engineUrl } });
    const range = `from=${at(-60)}&to=${at(600)}`;
    const matched = await admin.client.get(`/api/gps/objects/${objectId}/matched-track?${range}`);
    expect(matched.status, JSON.stringify(matched.body)).toBe(200);
    expect(matched.body.matched).toBe(true);
    // Valhalla was sent the shape with times and the costing for the driving profile.
    const sent = traceBodies.at(-1);
    expect(sent?.costing).toBe('auto');
    expect(sent?.shape.map((p) => p.time)).toEqual([0, 30, 60, 90, 120].map((s) => (base + s * 1000) / 1000));
    // The answer's encoded shape decoded: the snapped points, 0.0002° east of the raw ones.
    const coordinates = matched.body.segments.flatMap((s: { coordinates: unknown[] }) => s.coordinates);
    expect(coordinates).toHaveLength(5);
    expect(coordinates[0].lon).toBeCloseTo(37.6002, 6);
    expect(coordinates[4].lat).toBeCloseTo(north(1200), 5);
    expect(matched.body.distanceMeters).toBeGreaterThan(1150);
    expect(matched.body.distanceMeters).toBeLessThan(1250);

    // A later point makes a new piece; Valhalla refusing it gives the raw track, not an error.
    await post(tracker, { fixTime: at(150), latitude: north(1500) });
    valhallaFails = true;
    const fallback = await admin.client.get(`/api/gps/objects/${objectId}/matched-track?${range}`);
    valhallaFails = false;
    expect(fallback.status).toBe(200);
    expect(fallback.body.matched).toBe(false);
    expect(fallback.body.segments[0].coordinates[0].lon).toBeCloseTo(37.6, 6);
    await admin.client.patch('/api/gps/settings', { routingEngine: null });
  });
});

describe('gps: daily retention', () => {
  it('prunes points older than the organization’s retention and refused points older than 7 days', async () => {
    const org = await createOrg(t);
    const orgToken = (await org.client.post('/api/gps/ingestion-token')).body.token;
    expect((await org.client.patch('/api/gps/settings', { retentionDays: 30 })).status).toBe(200);
    const tracker = `retention-${++trackers}`;
    const now = Date.now();
    const ago = (days: number) => new Date(now - days * 86_400_000).toISOString();
    const old = await post(tracker, { fixTime: ago(40), latitude: north(0) }, orgToken);
    await post(tracker, { fixTime: ago(10), latitude: north(100) }, orgToken);
    await post(tracker, { fixTime: ago(1), latitude: north(200) }, orgToken);
    // Two refused points; one of them received 8 days ago.
    expect(await post(tracker, { fixTime: ago(2), valid: false, latitude: north(50) }, orgToken)).toMatchObject({
      reason: 'invalid',
    });
    expect(await post(tracker, { fixTime: ago(3), valid: false, latitude: north(60) }, orgToken)).toMatchObject({
      reason: 'invalid',
    });
    await t.database.db.query(
      `UPDATE gps_rejected_points SET received_at = now() - interval '8 days' WHERE object_id = $1 AND fix_time = $2`,
      [old.objectId, ago(3)],
    );
    // Another organization's points of the same age stay under its default 180 days.
    const other = await post(`${tracker}-default`, { fixTime: ago(40), latitude: north(0) });

    const pruned = await pruneOldPoints({ db: t.database.db } as Parameters<typeof pruneOldPoints>[0]);
    expect(pruned.points).toBeGreaterThanOrEqual(1);
    expect(pruned.rejected).toBeGreaterThanOrEqual(1);

    const range = `from=${ago(400)}&to=${ago(-1)}&include=rejected`;
    const left = (await org.client.get(`/api/gps/objects/${old.objectId}/track?${range}`)).body;
    expect(left.points.map((p: { fixTime: string; reason?: string }) => [p.fixTime, p.reason ?? 'kept'])).toEqual([
      [ago(10), 'kept'],
      [ago(2), 'invalid'],
      [ago(1), 'kept'],
    ]);
    const kept = (await admin.client.get(`/api/gps/objects/${other.objectId}/track?${range}`)).body;
    expect(kept.points).toHaveLength(1);
  });
});

describe('gps: bad input', () => {
  it('stores out-of-range coordinates as refused with reason invalid (not a 500), whatever the protocol', async () => {
    const tracker = `range-${++trackers}`;
    const seconds = Math.floor(base / 1000);
    const lat = await osmand(`id=${tracker}&lat=91.5&lon=37.6&timestamp=${seconds}`);
    expect(lat).toMatchObject({ accepted: false, reason: 'invalid' });
    expect(await osmand(`id=${tracker}&lat=55.75&lon=-180.5&timestamp=${seconds + 10}`)).toMatchObject({
      accepted: false,
      reason: 'invalid',
    });
    expect(await osmand(`id=${tracker}&location=-95,37.6&timestamp=${seconds + 20}`)).toMatchObject({
      accepted: false,
      reason: 'invalid',
    });
    expect(await post(tracker, { fixTime: at(30), latitude: 55.75, longitude: 1e6 }).then((r) => r.reason)).toBe(
      'invalid',
    );
    const phone = await t.request(`/api/gps/osmand?token=${token}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        device_id: tracker,
        location: { timestamp: at(40), coords: { latitude: -120, longitude: 37.6, speed: 1 } },
      }),
    });
    expect(phone.status).toBe(200);
    expect((await phone.json()).reason).toBe('invalid');
    const track = await trackOf(lat.objectId, '&include=rejected');
    expect(track.points.map((p) => [p.fixTime, p.reason, p.lat])).toEqual([
      [at(0), 'invalid', 91.5],
      [at(10), 'invalid', 55.75],
      [at(20), 'invalid', -95],
      [at(30), 'invalid', 55.75],
      [at(40), 'invalid', -120],
    ]);
  });

  it('takes fix times in seconds, milliseconds and ISO 8601 (with Traccar’s +0000 offsets), each placed at its instant', async () => {
    const tracker = `times-${++trackers}`;
    const ms = base + 60_000;
    const forms = [
      String(Math.floor(base / 1000)),
      String(ms),
      encodeURIComponent(at(120)),
      encodeURIComponent(at(180).replace('.000Z', '+0000')),
      encodeURIComponent(at(240).replace('Z', '+03:00').replace('T08', 'T11')),
      String((base + 300_000) / 1000 + 0.5),
    ];
    let objectId = '';
    for (const [index, timestamp] of forms.entries()) {
      const result = await osmand(`id=${tracker}&lat=${north(index * 600)}&lon=37.6&speed=20&timestamp=${timestamp}`);
      expect(result, timestamp).toMatchObject({ accepted: true });
      objectId = result.objectId;
    }
    const traccarIso = await post(tracker, { fixTime: at(360).replace('.000Z', '.000+0000'), latitude: north(3600) });
    expect(traccarIso.accepted).toBe(true);
    const track = await trackOf(objectId);
    expect(track.points.map((p) => p.fixTime)).toEqual([
      at(0),
      at(60),
      at(120),
      at(180),
      at(240),
      new Date(base + 300_500).toISOString(),
      at(360),
    ]);
  });
});
