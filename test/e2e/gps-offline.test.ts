import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepTrackHours } from '../../server/src/modules/gps/gps.sync';
import { startTestApp, type TestApp } from '../helpers/app';
import { apiInPage, chromiumAvailable, launchChromium, registeredPage, UI_WAIT_MS } from '../helpers/browser';

/**
 * The dispatcher's map with the server stopped, in Chromium (WebGL through SwiftShader): the
 * browser build's replica holds the geofences and yesterday's track, and the map shows them; a
 * route's progress is computed from the replica's track with the network cut.
 */
const available = chromiumAvailable();
const SHOTS = 'test-artifacts/screenshots/gps';
let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  if (!available) return;
  mkdirSync(SHOTS, { recursive: true });
  t = await startTestApp();
  browser = await launchChromium({ webgl: true });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function until(done: () => Promise<boolean>) {
  const end = Date.now() + UI_WAIT_MS;
  while (!(await done())) {
    if (Date.now() > end) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The live documents of the page's replica (IndexedDB) in `collection` that mention `text`. */
function heldByReplica(page: Page, collection: string, text: string): Promise<Record<string, unknown>[]> {
  return page.evaluate(
    async ([suffix, needle]) => {
      const databases = await indexedDB.databases();
      const found = databases.find(
        (database) => database.name?.startsWith('rxdb-dexie-orbita-') && database.name.endsWith(`--${suffix}`),
      );
      if (!found?.name) return [];
      const name = found.name;
      return new Promise<Record<string, unknown>[]>((resolve) => {
        const request = indexedDB.open(name);
        request.onerror = () => resolve([]);
        request.onsuccess = () => {
          const db = request.result;
          if (!db.objectStoreNames.contains('docs')) {
            db.close();
            resolve([]);
            return;
          }
          const all = db.transaction('docs').objectStore('docs').getAll();
          all.onerror = () => {
            db.close();
            resolve([]);
          };
          all.onsuccess = () => {
            db.close();
            // RxDB's Dexie storage keeps the deletion flag as '1' or '0' (IndexedDB indexes no booleans).
            const documents = all.result as { _deleted?: boolean | string }[];
            const live = documents.filter((doc) => doc._deleted !== true && doc._deleted !== '1');
            resolve(live.filter((doc) => JSON.stringify(doc).includes(needle)));
          };
        };
      });
    },
    [collection, text] as const,
  );
}

/** The features of one of the map's GeoJSON sources. */
function sourceFeatures(page: Page, source: string): Promise<{ properties: Record<string, unknown> }[]> {
  return page.evaluate(async (name) => {
    type Source = { getData: () => Promise<{ features: { properties: Record<string, unknown> }[] }> };
    const view = (window as unknown as { orbitaMap?: { map: { getSource: (id: string) => Source | undefined } } })
      .orbitaMap;
    return (await view?.map.getSource(name)?.getData())?.features ?? [];
  }, source);
}

describe.skipIf(!available)('the dispatcher’s map offline', { timeout: 180_000 }, () => {
  it('shows a geofence and yesterday’s track from the replica after the server is stopped', async () => {
    const { context, page } = await registeredPage(browser, t.url, {
      organization: 'Harbour Fleet',
      name: 'Vera',
      email: 'vera@example.org',
    });
    const { token } = (await apiInPage(page, 'POST', '/api/gps/ingestion-token')) as { token: string };
    // Yesterday (in this page's time zone) is kept whole: the organization keeps two days offline.
    await apiInPage(page, 'PATCH', '/api/gps/settings', { offlineTrackHours: 48 });
    const geofence = (await apiInPage(page, 'POST', '/api/gps/geofences', {
      name: 'Quay 5',
      geometry: { type: 'circle', center: { lat: 59.93, lon: 30.3 }, radiusMeters: 400 },
    })) as { id: string };
    const yesterdayEvening = await page.evaluate(() => {
      const midnight = new Date();
      midnight.setHours(0, 0, 0, 0);
      return midnight.getTime() - 2 * 3_600_000;
    });
    let objectId = '';
    for (let i = 0; i < 20; i++) {
      const fixTime = new Date(yesterdayEvening + i * 30_000).toISOString();
      const response = await t.request('/api/gps/traccar/positions', {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          position: { fixTime, latitude: 59.93 + i * 0.001, longitude: 30.3, speed: 12, course: 0, valid: true },
          device: { name: 'Tug 9', uniqueId: 'tug-9' },
        }),
      });
      expect(response.status).toBe(200);
      objectId = ((await response.json()) as { objectId: string }).objectId;
    }
    // The task the server runs every minute, now: the hours reach the replicas.
    await keepTrackHours(t.database.db);

    await page.goto(`${t.url}/map`);
    await page.getByTestId('gps-object-row').filter({ hasText: 'Tug 9' }).waitFor();
    const from = new Date(yesterdayEvening - 3_600_000).toISOString();
    const rest = (await apiInPage(
      page,
      'GET',
      `/api/gps/objects/${objectId}/track?from=${from}&to=${new Date(yesterdayEvening + 3_600_000).toISOString()}`,
    )) as { points: { lat: number; lon: number }[] };
    expect(rest.points.length).toBeGreaterThan(5);
    // The replica in this browser holds the geofence and the hour with every point (an hour's first
    // points may arrive before the rest: the hour is sent again once the task has run).
    await until(async () =>
      (await heldByReplica(page, 'gps_geofences', geofence.id)).some((d) => d.id === geofence.id),
    );
    await until(async () => {
      const hours = await heldByReplica(page, 'gps_tracks', objectId);
      return hours.length === 1 && (hours[0]?.points as unknown[] | undefined)?.length === rest.points.length;
    });
    // What the page itself kept is dropped: the geofences must come from the replica.
    await page.evaluate(() => {
      for (const key of Object.keys(localStorage)) if (key.startsWith('orbita.map-data.')) localStorage.removeItem(key);
    });

    await t.app.close();
    await page.reload();
    await page.getByTestId('gps-offline').waitFor();
    await until(async () =>
      (await sourceFeatures(page, 'geofences')).some((f) => JSON.stringify(f).includes('Quay 5')),
    );
    await page.getByTestId('gps-object-row').filter({ hasText: 'Tug 9' }).click();
    await page.getByTestId('gps-offline-track').waitFor();
    await page.getByText('Yesterday', { exact: true }).click();
    // Every point of the REST track, drawn from the replica's hour (points 30 s apart are all kept).
    const drawn = async () => {
      const lines = (await sourceFeatures(page, 'track')) as unknown as { geometry: { coordinates: number[][] } }[];
      return new Set(lines.flatMap((line) => line.geometry.coordinates.map(([lon, lat]) => `${lat},${lon}`)));
    };
    await until(async () => (await drawn()).size === rest.points.length);
    const at6 = (value: number) => Number(value.toFixed(6));
    expect([...(await drawn())].sort()).toEqual(
      rest.points.map((point) => `${at6(point.lat)},${at6(point.lon)}`).sort(),
    );
    await page.screenshot({ path: `${SHOTS}/map-offline-track.png` });
    await context.close();
  });

  it('lists the replica’s routes with no network, keeps a geofence renamed then on the device and merges it on reconnect with a geometry changed on the server', async () => {
    const server = await startTestApp();
    try {
      const { context, page } = await registeredPage(browser, server.url, {
        organization: 'Pier Works',
        name: 'Ilya',
        email: 'ilya@example.org',
      });
      const geofence = (await apiInPage(page, 'POST', '/api/gps/geofences', {
        name: 'Pier',
        geometry: { type: 'circle', center: { lat: 59.95, lon: 30.31 }, radiusMeters: 200 },
      })) as { id: string };
      const route = (await apiInPage(page, 'POST', '/api/gps/routes', {
        name: 'Pier round',
        stops: [{ geofenceId: geofence.id, expectedAt: new Date().toISOString() }],
      })) as { id: string };
      const { accessToken } = await page.evaluate(() => JSON.parse(localStorage.getItem('orbita.tokens') as string));
      await page.goto(`${server.url}/map`);
      await page.getByTestId('gps-geofence-row').filter({ hasText: 'Pier' }).waitFor();
      await until(async () =>
        (await heldByReplica(page, 'gps_geofences', geofence.id)).some((d) => d.id === geofence.id),
      );

      await until(async () => (await heldByReplica(page, 'gps_geofences', route.id)).length === 1);

      await context.setOffline(true);
      await page.getByTestId('gps-offline').waitFor();
      // The routes too are read from the replica.
      await page.getByTestId('gps-route-row').filter({ hasText: 'Pier round' }).waitFor();
      await page.getByTestId('gps-geofence-row').filter({ hasText: 'Pier' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Pier East');
      await page.getByTestId('gps-geofences').getByRole('button', { name: 'Save' }).click();
      await page.getByText('Geofence “Pier East” saved').waitFor();
      // Meanwhile on the server: the circle grows.
      const moved = { type: 'circle', center: { lat: 59.95, lon: 30.31 }, radiusMeters: 350 };
      const patched = await server.request(`/api/gps/geofences/${geofence.id}`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ geometry: moved }),
      });
      expect(patched.status).toBe(200);

      await context.setOffline(false);
      const onServer = async () =>
        (await (
          await server.request(`/api/gps/geofences/${geofence.id}`, {
            headers: { Authorization: `Bearer ${accessToken}` },
          })
        ).json()) as { name: string; geometry: unknown };
      await until(async () => (await onServer()).name === 'Pier East');
      expect((await onServer()).geometry).toEqual(moved);
      await context.close();
    } finally {
      await server.close();
    }
  });

  it('shows a route’s progress with the network cut, computed from the replica’s track as the server judged it, stops due before that track unknown', async () => {
    const server = await startTestApp();
    try {
      const { context, page } = await registeredPage(browser, server.url, {
        organization: 'Round Haulage',
        name: 'Roman',
        email: 'roman@example.org',
      });
      const { token } = (await apiInPage(page, 'POST', '/api/gps/ingestion-token')) as { token: string };
      const circle = (lat: number, lon: number) => ({ type: 'circle', center: { lat, lon }, radiusMeters: 300 });
      const made = async (name: string, geometry: unknown) =>
        ((await apiInPage(page, 'POST', '/api/gps/geofences', { name, geometry })) as { id: string }).id;
      const depot = await made('Depot', circle(55.7, 37.5));
      const client = await made('Client', circle(55.72, 37.55));
      const quay = await made('Quay', circle(55.8, 37.7));
      // A corridor 60 m wide: the truck passes about 20 m off its line.
      const road = await made('Road', {
        type: 'polyline',
        widthMeters: 60,
        points: [
          { lat: 55.705, lon: 37.51 },
          { lat: 55.715, lon: 37.53 },
        ],
      });
      const now = Date.now();
      const ago = (minutes: number) => new Date(now - minutes * 60_000);
      let objectId = '';
      const fix = async (when: Date, lat: number, lon: number) => {
        const response = await server.request('/api/gps/traccar/positions', {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({
            position: { fixTime: when.toISOString(), latitude: lat, longitude: lon, speed: 0, valid: true },
            device: { name: 'truck-9', uniqueId: 'truck-9' },
          }),
        });
        expect(response.status).toBe(200);
        objectId = ((await response.json()) as { objectId: string }).objectId;
      };
      // Yesterday, 30 hours ago (beyond the 24 the replicas keep): at the client.
      await fix(ago(30 * 60 + 10), 55.69, 37.48);
      await fix(ago(30 * 60), 55.72, 37.55);
      await fix(ago(30 * 60 - 10), 55.69, 37.48);
      // Today: from outside into the depot, along the road, to the client.
      await fix(ago(70), 55.69, 37.47);
      await fix(ago(50), 55.7, 37.5);
      await fix(ago(35), 55.71, 37.5205);
      await fix(ago(20), 55.72, 37.55);
      const stop = (geofenceId: string, when: Date, toleranceMinutes: number) => ({
        geofenceId,
        expectedAt: when.toISOString(),
        toleranceMinutes,
      });
      const route = (await apiInPage(page, 'POST', '/api/gps/routes', {
        name: 'Long round',
        objectIds: [objectId],
        stops: [
          stop(client, ago(30 * 60), 15),
          stop(depot, ago(45), 15),
          stop(quay, ago(42), 15),
          stop(road, ago(40), 15),
          stop(client, ago(40), 10),
          stop(depot, ago(-60), 15),
        ],
      })) as { id: string };
      await keepTrackHours(server.database.db);

      await page.goto(`${server.url}/map`);
      const progress = page.getByTestId('gps-route-progress');
      const shown = async () => {
        await page.getByTestId('gps-route-row').filter({ hasText: 'Long round' }).click();
        await progress.locator('tbody tr.ant-table-row').filter({ hasText: 'truck-9' }).waitFor();
        const statuses = await progress
          .locator('tbody tr.ant-table-row [data-status]')
          .evaluateAll((tags) => tags.map((tag) => tag.getAttribute('data-status')));
        const cells = await progress.locator('tbody tr.ant-table-row td').allInnerTexts();
        return { statuses, cells: cells.slice(1).map((cell) => cell.replace(/\s+/g, ' ').trim()) };
      };
      const online = await shown();
      expect(online.statuses).toEqual(['visited', 'visited', 'skipped', 'visited', 'late', 'pending']);
      expect(await page.getByTestId('gps-route-progress-computed').count()).toBe(0);
      const rest = (await apiInPage(page, 'GET', `/api/gps/routes/${route.id}/progress`)) as {
        items: { stops: { status: string }[] }[];
      };
      expect(rest.items[0]?.stops.map((one) => one.status)).toEqual(online.statuses);
      await page.getByTestId('gps-route-drawer').locator('.ant-drawer-close').click();

      // The replica holds the route, its geofences and today's hours with every point of them.
      for (const id of [route.id, depot, client, quay, road]) {
        await until(async () => (await heldByReplica(page, 'gps_geofences', id)).some((d) => d.id === id));
      }
      await until(async () => {
        const hours = await heldByReplica(page, 'gps_tracks', objectId);
        return hours.reduce((count, hour) => count + ((hour.points as unknown[] | undefined)?.length ?? 0), 0) === 4;
      });

      await context.setOffline(true);
      await page.getByTestId('gps-offline').waitFor();
      const offline = await shown();
      await page.getByTestId('gps-route-progress-computed').waitFor();
      // Yesterday's visit is not on this device: unknown, not skipped; the rest as the server said, times too.
      expect(offline.statuses).toEqual(['unknown', ...online.statuses.slice(1)]);
      expect(offline.cells.slice(1)).toEqual(online.cells.slice(1));
      expect(offline.cells[0]).toBe('unknown');
      expect(await page.getByTestId('gps-route-progress-computed').textContent()).toMatch(
        /computed on this device from the last \d+ h of track/,
      );
      await page.screenshot({ path: `${SHOTS}/map-offline-route-progress.png` });
      await context.close();
    } finally {
      await server.close();
    }
  });
});
