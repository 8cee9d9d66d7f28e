import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GPS_POSITIONS_EVENT, type GpsLivePositions } from '@shared/gps-live';
import type { SyncDocument } from '@shared/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../../../../test/helpers/api';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createOrg, type Member } from '../../../../test/helpers/factories';
import { connectSync } from '../../../../test/helpers/sync-client';

let t: TestApp;
let admin: Member;
let token: string;
let geocoder: Server;
let base: string;
const asked: URLSearchParams[] = [];

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
  token = (await admin.client.post('/api/gps/ingestion-token')).body.token;
  // A local geocoder speaking Nominatim's /reverse: the address names the place and the language;
  // /broken answers 500, and latitude 0 is the sea ("Unable to geocode").
  geocoder = createServer((req, res) => {
    const url = new URL(req.url ?? '', 'http://x');
    asked.push(url.searchParams);
    if (url.pathname.startsWith('/broken')) {
      res.writeHead(500).end('down');
      return;
    }
    const lat = url.searchParams.get('lat');
    const lon = url.searchParams.get('lon');
    const language = url.searchParams.get('accept-language');
    res.setHeader('Content-Type', 'application/json');
    if (Number(lat) === 0) {
      res.end(JSON.stringify({ error: 'Unable to geocode' }));
      return;
    }
    const street = language === 'ru' ? 'Тверская улица' : 'Tverskaya Street';
    res.end(JSON.stringify({ place_id: 1, lat, lon, display_name: `${street} 7, ${lat}, ${lon}` }));
  });
  await new Promise<void>((resolve) => geocoder.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(geocoder.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t.close();
  await new Promise((resolve) => geocoder.close(resolve));
});

async function osmAnd(query: string) {
  const response = await t.request(`/api/gps/osmand?${query}&token=${token}`);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as { objectId: string };
}

describe('gps: an object’s address from the reverse geocoder', () => {
  it('answers 409 geocoder_not_configured while no geocoder is set', async () => {
    const { objectId } = await osmAnd('id=addr-none&lat=55.7&lon=37.6');
    const refused = await admin.client.get(`/api/gps/objects/${objectId}/address`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('geocoder_not_configured');
  });

  it('asks Nominatim’s /reverse in the user’s language, and asks once for the same place', async () => {
    expect((await admin.client.patch('/api/gps/settings', { geocoderUrl: `${base}/reverse` })).status).toBe(200);
    const { objectId } = await osmAnd('id=addr-1&lat=55.7601&lon=37.6101');
    asked.length = 0;
    const answer = await admin.client.get(`/api/gps/objects/${objectId}/address`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ address: 'Тверская улица 7, 55.7601, 37.6101', lat: 55.7601, lon: 37.6101 });
    expect(asked).toHaveLength(1);
    expect(Object.fromEntries(asked[0] as URLSearchParams)).toEqual({
      format: 'jsonv2',
      lat: '55.7601',
      lon: '37.6101',
      'accept-language': 'ru',
    });
    expect((await admin.client.get(`/api/gps/objects/${objectId}/address`)).body.address).toBe(answer.body.address);
    expect(asked).toHaveLength(1);

    // Another user of the organization reading English gets the English address.
    const email = `en-${Date.now()}@example.org`;
    const registered = await apiClient(t).post('/api/auth/register', {
      organizationName: 'English office',
      name: 'Ed',
      email,
      password: 'correct horse battery',
      locale: 'en',
    });
    expect(registered.status).toBe(201);
    const english = { client: apiClient(t, registered.body.accessToken) };
    await english.client.patch('/api/gps/settings', { geocoderUrl: `${base}/reverse` });
    const englishToken = (await english.client.post('/api/gps/ingestion-token')).body.token;
    const sent = await t.request(`/api/gps/osmand?id=addr-en&lat=55.7601&lon=37.6101&token=${englishToken}`);
    const englishObject = ((await sent.json()) as { objectId: string }).objectId;
    const englishAnswer = await english.client.get(`/api/gps/objects/${englishObject}/address`);
    expect(englishAnswer.body.address).toBe('Tverskaya Street 7, 55.7601, 37.6101');
  });

  it('gives a null address where the geocoder knows none, and 409 for an object with no position', async () => {
    await admin.client.patch('/api/gps/settings', { geocoderUrl: `${base}/reverse` });
    const sea = await osmAnd('id=addr-sea&lat=0&lon=-30');
    const answer = await admin.client.get(`/api/gps/objects/${sea.objectId}/address`);
    expect(answer.status).toBe(200);
    expect(answer.body.address).toBeNull();
    const created = await admin.client.post('/api/gps/objects', { name: 'Silent', trackerId: 'addr-silent' });
    const none = await admin.client.get(`/api/gps/objects/${created.body.id}/address`);
    expect(none.status).toBe(409);
    expect(none.body.code).toBe('conflict');
  });

  it('answers 502 geocoder_failed when the geocoder fails or cannot be reached, never a 500', async () => {
    const { objectId } = await osmAnd('id=addr-2&lat=55.7702&lon=37.6202');
    await admin.client.patch('/api/gps/settings', { geocoderUrl: `${base}/broken/reverse` });
    const failed = await admin.client.get(`/api/gps/objects/${objectId}/address`);
    expect(failed.status).toBe(502);
    expect(failed.body.code).toBe('geocoder_failed');
    expect(failed.body.detail).toContain('500');
    await admin.client.patch('/api/gps/settings', { geocoderUrl: 'http://127.0.0.1:9/reverse' });
    const unreachable = await admin.client.get(`/api/gps/objects/${objectId}/address`);
    expect(unreachable.status).toBe(502);
    expect(unreachable.body.code).toBe('geocoder_failed');
  });
});

describe('gps: the battery level trackers report', () => {
  it('keeps Traccar’s batteryLevel, OsmAnd’s batt and the JSON form’s battery fraction as a percent', async () => {
    const traccar = await t.request('/api/gps/traccar/positions', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        position: {
          fixTime: new Date().toISOString(),
          latitude: 55.7,
          longitude: 37.6,
          attributes: { batteryLevel: 76 },
        },
        device: { uniqueId: 'batt-traccar' },
      }),
    });
    const traccarId = ((await traccar.json()) as { objectId: string }).objectId;
    const osm = await osmAnd('id=batt-osmand&lat=55.71&lon=37.61&batt=41');
    const json = await t.request('/api/gps/osmand', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        device_id: 'batt-json',
        location: {
          timestamp: new Date().toISOString(),
          coords: { latitude: 55.72, longitude: 37.62 },
          battery: { level: 0.5, is_charging: false },
        },
      }),
    });
    const jsonId = ((await json.json()) as { objectId: string }).objectId;
    const battery = async (id: string) =>
      (await admin.client.get(`/api/gps/objects/${id}`)).body.lastPosition?.batteryPercent;
    expect(await battery(traccarId)).toBe(76);
    expect(await battery(osm.objectId)).toBe(41);
    expect(await battery(jsonId)).toBe(50);

    // A message without a position still brings the battery, to replicas that pulled the object too;
    // one without a battery keeps the last.
    const replica = await connectSync(t, admin.client.accessToken as string);
    try {
      const objectOf = (documents: SyncDocument[]) => documents.find((d) => d.id === osm.objectId);
      const first = await replica.pullUntil('gps_objects', (documents) => objectOf(documents) !== undefined);
      await osmAnd('id=batt-osmand&batt=39');
      expect(await battery(osm.objectId)).toBe(39);
      const next = await replica.pullUntil(
        'gps_objects',
        (documents) => objectOf(documents) !== undefined,
        first.checkpoint,
      );
      expect(objectOf(next.documents)?.lastPosition).toMatchObject({ batteryPercent: 39 });
    } finally {
      replica.close();
    }
    await osmAnd(`id=batt-osmand&lat=55.711&lon=37.611&timestamp=${Math.floor(Date.now() / 1000) + 1}`);
    expect(await battery(osm.objectId)).toBe(39);
  });

  it('sends the battery level with the live position to the map', async () => {
    const client = await connectSync(t, admin.client.accessToken as string);
    const received: GpsLivePositions[] = [];
    client.socket.on(GPS_POSITIONS_EVENT, (message: GpsLivePositions) => received.push(message));
    try {
      const { objectId } = await osmAnd('id=batt-live&lat=55.73&lon=37.63&batt=57');
      const end = Date.now() + 5_000;
      const live = () => received.flatMap((message) => message.positions).find((p) => p.objectId === objectId);
      while (!live() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(live()?.batteryPercent).toBe(57);
    } finally {
      client.close();
    }
  });
});

describe('gps: a geofence’s colour', () => {
  const circle = { type: 'circle', center: { lat: 55.7, lon: 37.6 }, radiusMeters: 200 };

  it('keeps the colour it is given, changes it, clears it, and has none by default', async () => {
    const made = await admin.client.post('/api/gps/geofences', { name: 'Yard', geometry: circle, color: '#1e88e5' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.color).toBe('#1e88e5');
    const renamed = await admin.client.patch(`/api/gps/geofences/${made.body.id}`, { name: 'Yard 2' });
    expect(renamed.body).toMatchObject({ name: 'Yard 2', color: '#1e88e5' });
    const recoloured = await admin.client.patch(`/api/gps/geofences/${made.body.id}`, { color: '#e53935' });
    expect(recoloured.body.color).toBe('#e53935');
    const listed = (await admin.client.get('/api/gps/geofences')).body.items;
    expect(listed.find((g: { id: string }) => g.id === made.body.id).color).toBe('#e53935');
    const cleared = await admin.client.patch(`/api/gps/geofences/${made.body.id}`, { color: null });
    expect(cleared.body.color).toBeNull();
    const plain = await admin.client.post('/api/gps/geofences', { name: 'Plain', geometry: circle });
    expect(plain.body.color).toBeNull();
  });

  it('refuses a colour that is not #rrggbb, naming the field', async () => {
    const refused = await admin.client.post('/api/gps/geofences', { name: 'Bad', geometry: circle, color: 'red' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.pointer).toBe('#/color');
  });
});
