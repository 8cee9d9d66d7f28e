import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createMember, createOrg, type Member } from '../../../../test/helpers/factories';

let t: TestApp;
let admin: Member;
let token: string;

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
  const created = await admin.client.post('/api/gps/ingestion-token');
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  token = created.body.token;
});
afterAll(() => t.close());

let trackerCounter = 0;
const newTracker = () => `tracker-${Date.now()}-${++trackerCounter}`;

async function send(path: string, init: RequestInit & { json?: unknown; bearer?: string } = {}) {
  const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
  if (init.bearer !== undefined) headers.Authorization = `Bearer ${init.bearer}`;
  let body = init.body;
  if (init.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  const response = await t.request(path, { method: init.method ?? 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** A Traccar forwarded position (forward.type=json), as Traccar's documentation shows it. */
function traccar(uniqueId: string, position: Record<string, unknown>, device: Record<string, unknown> = {}) {
  return {
    position: {
      id: 18336,
      attributes: { ignition: true, distance: 12.5 },
      deviceId: 7,
      protocol: 'teltonika',
      serverTime: new Date().toISOString(),
      outdated: false,
      valid: true,
      altitude: 100,
      course: 90,
      accuracy: 5,
      network: null,
      ...position,
    },
    device: { id: 7, name: `Truck ${uniqueId}`, uniqueId, status: 'online', attributes: {}, ...device },
  };
}

const base = Date.parse('2026-03-02T08:00:00Z');
const at = (seconds: number) => new Date(base + seconds * 1000).toISOString();
/** Meters north of the base point, in degrees of latitude. */
const north = (meters: number) => 55.75 + meters / 111_195;

async function postFix(uniqueId: string, seconds: number, meters: number, extra: Record<string, unknown> = {}) {
  const response = await send('/api/gps/traccar/positions', {
    bearer: token,
    json: traccar(uniqueId, {
      fixTime: at(seconds),
      deviceTime: at(seconds),
      latitude: north(meters),
      longitude: 37.6,
      speed: 20,
      ...extra,
    }),
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { objectId: string; accepted: boolean; reason: string | null };
}

async function trackOf(objectId: string, include = '') {
  const response = await admin.client.get(
    `/api/gps/objects/${objectId}/track?from=${at(-86_400)}&to=${at(86_400)}${include}`,
  );
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

describe('gps: objects and module access', () => {
  it('creates, lists, changes and deletes objects, one per tracker in the organization', async () => {
    const created = await admin.client.post('/api/gps/objects', { name: 'Truck 1', kind: 'vehicle', trackerId: 'T-1' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ name: 'Truck 1', trackerId: 'T-1', last_seen: null, last_gps_fix_at: null });
    const again = await admin.client.post('/api/gps/objects', { name: 'Other', trackerId: 'T-1' });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].pointer).toBe('#/trackerId');
    const group = await admin.client.post('/api/gps/groups', { name: 'Fleet', settings: { maxJumpSpeedKmh: 180 } });
    expect(group.status).toBe(201);
    const changed = await admin.client.patch(`/api/gps/objects/${created.body.id}`, {
      groupId: group.body.id,
      settings: { gpsLossHours: 5 },
    });
    expect(changed.body).toMatchObject({ groupId: group.body.id, settings: { gpsLossHours: 5 } });
    const badSettings = await admin.client.patch(`/api/gps/objects/${created.body.id}`, {
      settings: { maxJumpSpeedKmh: -1 },
    });
    expect(badSettings.status).toBe(400);
    expect(badSettings.body.errors[0].pointer).toBe('#/settings/maxJumpSpeedKmh');
    const list = await admin.client.get('/api/gps/objects');
    expect(list.body.items.map((o: { name: string }) => o.name)).toContain('Truck 1');
    expect((await admin.client.delete(`/api/gps/objects/${created.body.id}`)).status).toBe(204);
    expect((await admin.client.get(`/api/gps/objects/${created.body.id}`)).status).toBe(404);
  });

  it('refuses people without the GPS module with 403 on every route, and admits them once granted', async () => {
    const member = await createMember(t, admin);
    const refused = await member.client.get('/api/gps/objects');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('module_access_denied');
    expect((await member.client.post('/api/gps/ingestion-token')).status).toBe(403);
    const grant = await admin.client.put('/api/module-access', {
      users: [{ userId: member.userId, modules: ['gps'] }],
    });
    expect(grant.status, JSON.stringify(grant.body)).toBeLessThan(300);
    expect((await member.client.get('/api/gps/objects')).status).toBe(200);
    // A dispatcher reads the settings the map needs; changing them and the trackers' token is an administrator's.
    expect((await member.client.get('/api/gps/settings')).status).toBe(200);
    const change = await member.client.patch('/api/gps/settings', { gpsLossHours: 1 });
    expect(change.status).toBe(403);
    expect((await member.client.get('/api/gps/ingestion-token')).status).toBe(403);
    expect((await member.client.post('/api/gps/ingestion-token')).status).toBe(403);
    expect((await admin.client.get('/api/gps/settings')).body.gpsLossHours).not.toBe(1);
  });

  it('shows the ingestion token once, then only its prefix and last use', async () => {
    const shown = await admin.client.get('/api/gps/ingestion-token');
    expect(shown.body).toMatchObject({ exists: true, prefix: token.slice(0, 10) });
    expect(shown.body.token).toBeUndefined();
    await postFix(newTracker(), 0, 0);
    expect((await admin.client.get('/api/gps/ingestion-token')).body.lastUsedAt).not.toBeNull();
  });
});

describe('gps: ingestion', () => {
  it('refuses a missing or wrong token with 401 and stores nothing', async () => {
    const tracker = newTracker();
    const body = traccar(tracker, { fixTime: at(0), latitude: 55.75, longitude: 37.6 });
    expect((await send('/api/gps/traccar/positions', { json: body })).status).toBe(401);
    expect((await send('/api/gps/traccar/positions', { json: body, bearer: 'gps_wrong' })).status).toBe(401);
    expect(
      (await send(`/api/gps/osmand?id=${tracker}&lat=55.75&lon=37.6&token=gps_wrong`, { method: 'GET' })).status,
    ).toBe(401);
    const objects = (await admin.client.get('/api/gps/objects')).body.items;
    expect(objects.find((o: { trackerId: string }) => o.trackerId === tracker)).toBeUndefined();
  });

  it('creates an object named after an unknown device, converts knots to km/h, and keys points by fix time', async () => {
    const tracker = newTracker();
    const first = await postFix(tracker, 0, 0, { speed: 10 });
    expect(first.accepted).toBe(true);
    const object = (await admin.client.get(`/api/gps/objects/${first.objectId}`)).body;
    expect(object).toMatchObject({ name: `Truck ${tracker}`, kind: 'tracker', trackerId: tracker });
    expect(object.speedKmh).toBeCloseTo(18.52, 2);
    expect(object.last_gps_fix_at).toBe(at(0));
    const redelivered = await postFix(tracker, 0, 0, { speed: 10 });
    expect(redelivered).toMatchObject({ accepted: false, reason: 'duplicate' });
    const track = await trackOf(first.objectId);
    expect(track.points).toHaveLength(1);
    expect(track.points[0].speedKmh).toBeCloseTo(18.52, 2);
  });

  it('refuses an unknown tracker with 404 when the organization turned creation off', async () => {
    const other = await createOrg(t);
    const otherToken = (await other.client.post('/api/gps/ingestion-token')).body.token;
    // Ingestion has read the settings just before they change: the change still holds at once.
    const first = await send('/api/gps/traccar/positions', {
      bearer: otherToken,
      json: traccar('early', { fixTime: at(0), latitude: 55.75, longitude: 37.6 }),
    });
    expect(first.status).toBe(200);
    await other.client.patch('/api/gps/settings', { autoCreateObjects: false });
    const response = await send('/api/gps/traccar/positions', {
      bearer: otherToken,
      json: traccar('nobody', { fixTime: at(0), latitude: 55.75, longitude: 37.6 }),
    });
    expect(response.status).toBe(404);
    const names = (await other.client.get('/api/gps/objects')).body.items.map(
      (o: { trackerId: string }) => o.trackerId,
    );
    expect(names).toEqual(['early']);
  });

  it('takes OsmAnd messages as Traccar Client sends them: query, form and JSON (speed in m/s)', async () => {
    const tracker = newTracker();
    const seconds = Math.floor(base / 1000);
    const byQuery = await send(
      `/api/gps/osmand?id=${tracker}&timestamp=${seconds}&lat=55.75&lon=37.6&speed=10&bearing=45&altitude=120&accuracy=8&batt=87&token=${token}`,
      { method: 'GET' },
    );
    expect(byQuery.status, JSON.stringify(byQuery.body)).toBe(200);
    expect(byQuery.body.accepted).toBe(true);
    const byForm = await send('/api/gps/osmand', {
      bearer: token,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        id: tracker,
        timestamp: String((base + 60_000) as number),
        location: `${north(600)},37.6`,
        speed: '10',
        hdop: '1.2',
      }).toString(),
    });
    expect(byForm.status, JSON.stringify(byForm.body)).toBe(200);
    expect(byForm.body.accepted).toBe(true);
    const byJson = await send(`/api/gps/osmand?token=${token}`, {
      json: {
        device_id: tracker,
        location: {
          timestamp: at(120),
          coords: { latitude: north(1200), longitude: 37.6, accuracy: 5, speed: 10, heading: 10, altitude: 100 },
          is_moving: true,
          battery: { level: 0.8, is_charging: false },
        },
      },
    });
    expect(byJson.status, JSON.stringify(byJson.body)).toBe(200);
    const track = await trackOf(byQuery.body.objectId);
    expect(track.points.map((p: { speedKmh: number }) => Math.round(p.speedKmh * 100) / 100)).toEqual([
      18.52, 18.52, 36,
    ]);
    expect(track.points.map((p: { fixTime: string }) => p.fixTime)).toEqual([at(0), at(60), at(120)]);
    expect(track.distanceMeters).toBeGreaterThan(1150);
    expect(track.distanceMeters).toBeLessThan(1250);
  });

  it('answers 400 naming the field to a malformed message, and 415 to another body type', async () => {
    const noId = await send(`/api/gps/osmand?lat=55&lon=37&token=${token}`, { method: 'GET' });
    expect(noId.status).toBe(400);
    expect(noId.body.errors[0].pointer).toBe('#/id');
    const badTime = await send(`/api/gps/osmand?id=x&lat=55&lon=37&timestamp=yesterday&token=${token}`, {
      method: 'GET',
    });
    expect(badTime.status).toBe(400);
    expect(badTime.body.errors[0].pointer).toBe('#/timestamp');
    const noPosition = await send('/api/gps/traccar/positions', { bearer: token, json: { device: { uniqueId: 'x' } } });
    expect(noPosition.status).toBe(400);
    const text = await send('/api/gps/osmand', {
      bearer: token,
      headers: { 'Content-Type': 'text/plain' },
      body: 'id=1',
    });
    expect(text.status).toBe(415);
  });

  it('refuses a flood from one tracker with 429 while others still get through', async () => {
    const other = await createOrg(t);
    const otherToken = (await other.client.post('/api/gps/ingestion-token')).body.token;
    await other.client.patch('/api/gps/settings', { maxMessagesPerMinute: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await send(
        `/api/gps/osmand?id=flood&lat=55.75&lon=37.6&timestamp=${i + 1}&token=${otherToken}`,
        {
          method: 'GET',
        },
      );
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const calm = await send(`/api/gps/osmand?id=calm&lat=55.75&lon=37.6&token=${otherToken}`, { method: 'GET' });
    expect(calm.status).toBe(200);
  });

  it('lets heartbeat echoes move last_seen but not last_gps_fix_at, and shows GPS loss while heartbeats come', async () => {
    const tracker = newTracker();
    const recent = Date.now() - 3 * 3_600_000;
    const first = await send('/api/gps/traccar/positions', {
      bearer: token,
      json: traccar(tracker, { fixTime: new Date(recent).toISOString(), latitude: 55.75, longitude: 37.6 }),
    });
    const before = (await admin.client.get(`/api/gps/objects/${first.body.objectId}`)).body;
    const echo = await send('/api/gps/traccar/positions', {
      bearer: token,
      json: traccar(tracker, {
        fixTime: new Date(recent).toISOString(),
        deviceTime: new Date().toISOString(),
        outdated: true,
        latitude: 55.75,
        longitude: 37.6,
      }),
    });
    expect(echo.body).toMatchObject({ accepted: false, reason: 'echo' });
    const after = (await admin.client.get(`/api/gps/objects/${first.body.objectId}`)).body;
    expect(after.last_gps_fix_at).toBe(before.last_gps_fix_at);
    expect(Date.parse(after.last_seen)).toBeGreaterThanOrEqual(Date.parse(before.last_seen));
    expect(after.gpsLost).toBe(true);
    const from = new Date(recent - 60_000).toISOString();
    const to = new Date().toISOString();
    const track = await admin.client.get(`/api/gps/objects/${first.body.objectId}/track?from=${from}&to=${to}`);
    expect(track.body.points).toHaveLength(1);
  });

  it('places buffered points replayed out of order by fix time and keeps them', async () => {
    const tracker = newTracker();
    const objectId = (await postFix(tracker, 0, 0)).objectId;
    await postFix(tracker, 400, 4000);
    // The buffer of the minutes in between arrives after the newest point.
    for (const seconds of [100, 200, 300]) {
      expect((await postFix(tracker, seconds, seconds * 10)).accepted).toBe(true);
    }
    const track = await trackOf(objectId);
    expect(track.points.map((p: { fixTime: string }) => p.fixTime)).toEqual([
      at(0),
      at(100),
      at(200),
      at(300),
      at(400),
    ]);
    const object = (await admin.client.get(`/api/gps/objects/${objectId}`)).body;
    expect(object.lastPosition.fixTime).toBe(at(400));
    expect(object.last_gps_fix_at).toBe(at(400));
  });
});

describe('gps: filters', () => {
  it('refuses each kind of bad point with its reason, kept and shown with include=rejected', async () => {
    const tracker = newTracker();
    const objectId = (await postFix(tracker, 0, 0)).objectId;
    // The first stationary fix after moving is the stop itself, kept even where the last moving fix was.
    expect(await postFix(tracker, 250, 0, { speed: 0 })).toMatchObject({ accepted: true });
    const cases: [Record<string, unknown>, number, number, string][] = [
      [{ valid: false }, 10, 50, 'invalid'],
      [{ latitude: 95 }, 20, 0, 'invalid'],
      [{ latitude: 0, longitude: 0 }, 30, 0, 'zero'],
      [{ fixTime: new Date(Date.now() + 86_400_000).toISOString() }, 0, 100, 'future'],
      [{ outdated: true }, 0, 0, 'echo'],
      [{}, 200, 40_000, 'spike'],
      [{ speed: 0, accuracy: 10 }, 300, 0, 'jitter'],
      [{ attributes: { approximate: true }, accuracy: 9000 }, 400, 800, 'lbs_inaccurate'],
      [{ attributes: { approximate: true }, accuracy: 1500 }, 420, 900, 'lbs_inaccurate'],
    ];
    for (const [extra, seconds, meters, reason] of cases) {
      const result = await postFix(tracker, seconds, meters, extra);
      expect(result, JSON.stringify(extra)).toMatchObject({ accepted: false, reason });
    }
    await postFix(tracker, 1000, 3000);
    const stale = await postFix(tracker, 1060, 3000, { speed: 30 });
    expect(stale).toMatchObject({ accepted: false, reason: 'stale' });
    const duplicate = await postFix(tracker, 1000, 3000);
    expect(duplicate).toMatchObject({ accepted: false, reason: 'duplicate' });
    const track = await trackOf(objectId, '&include=rejected');
    const reasons = track.points.map((p: { reason?: string }) => p.reason ?? 'kept');
    expect(reasons).toEqual(
      expect.arrayContaining(['kept', 'invalid', 'zero', 'spike', 'jitter', 'lbs_inaccurate', 'stale']),
    );
    expect((await trackOf(objectId)).points.map((p: { fixTime: string }) => p.fixTime)).toEqual([
      at(0),
      at(250),
      at(1000),
    ]);
  });

  it('judges speeds in km/h against the object’s own setting over its group’s and the organization’s', async () => {
    const tracker = newTracker();
    const objectId = (await postFix(tracker, 0, 0)).objectId;
    // 1,000 m in 20 s is 180 km/h: within the default, beyond the object's 100 km/h.
    await admin.client.patch(`/api/gps/objects/${objectId}`, { settings: { maxJumpSpeedKmh: 100 } });
    expect(await postFix(tracker, 20, 1000)).toMatchObject({ accepted: false, reason: 'spike' });
    await admin.client.patch(`/api/gps/objects/${objectId}`, { settings: {} });
    expect(await postFix(tracker, 40, 1000)).toMatchObject({ accepted: true });
  });

  it('never makes a spike the reference: the next good point is judged against the last good one', async () => {
    const tracker = newTracker();
    const objectId = (await postFix(tracker, 0, 0)).objectId;
    expect((await postFix(tracker, 10, 50_000)).reason).toBe('spike');
    expect((await postFix(tracker, 20, 200)).accepted).toBe(true);
    expect((await trackOf(objectId)).points).toHaveLength(2);
  });

  it('gets out of the lock-on trap: consistent points overrule a bad reference', async () => {
    const tracker = newTracker();
    // The first fix after a cold start is 30 km off; the real ones follow every 10 s.
    const objectId = (await postFix(tracker, 0, 30_000)).objectId;
    const results = [];
    for (let i = 1; i <= 5; i++) results.push(await postFix(tracker, i * 10, i * 100));
    expect(results.map((r) => r.accepted)).toEqual([false, false, true, true, true]);
    const track = await trackOf(objectId);
    expect(track.points.map((p: { fixTime: string }) => p.fixTime)).toEqual([at(10), at(20), at(30), at(40), at(50)]);
    const object = (await admin.client.get(`/api/gps/objects/${objectId}`)).body;
    expect(object.lastPosition.fixTime).toBe(at(50));
    const rejected = (await trackOf(objectId, '&include=rejected')).points.filter((p: { reason?: string }) => p.reason);
    expect(rejected.map((p: { fixTime: string }) => p.fixTime)).toEqual([at(0)]);
  });

  it('judges a late point against its time neighbours, not the newest point', async () => {
    const tracker = newTracker();
    const objectId = (await postFix(tracker, 0, 0)).objectId;
    await postFix(tracker, 600, 6000);
    // Late and in line with its neighbours (0 m at 0 s, 6 km at 600 s): kept.
    expect((await postFix(tracker, 300, 3000)).accepted).toBe(true);
    // Late and 40 km away from both: a spike.
    expect((await postFix(tracker, 450, 40_000)).reason).toBe('spike');
    expect((await trackOf(objectId)).points).toHaveLength(3);
  });
});
