import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import {
  apiInPage,
  chromiumAvailable,
  launchChromium,
  registeredPage,
  serviceWorkerInControl,
  UI_WAIT_MS,
  waitOrExplain,
} from '../helpers/browser';

/**
 * The dispatcher's map in Chromium with WebGL through SwiftShader (the other suites run with
 * `--disable-gpu`, which leaves MapLibre no WebGL context): objects moving live, a track of
 * yesterday with its trips, a geofence drawn and saved, the map after the server stops.
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

let ingestion: string;
async function postFix(tracker: string, fixTime: Date, lat: number, lon: number, speedKnots: number, course = 0) {
  const response = await t.request('/api/gps/traccar/positions', {
    method: 'POST',
    headers: { Authorization: `Bearer ${ingestion}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      position: {
        fixTime: fixTime.toISOString(),
        deviceTime: fixTime.toISOString(),
        latitude: lat,
        longitude: lon,
        speed: speedKnots,
        course,
        valid: true,
      },
      device: { name: tracker, uniqueId: tracker },
    }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as { objectId: string; accepted: boolean; reason: string | null };
}

/** Where the map's objects source holds the object (undefined: not there). */
function drawnAt(page: Page, objectId: string): Promise<number[] | undefined> {
  return page.evaluate(async (id) => {
    type Source = {
      getData: () => Promise<{ features: { properties: { id: string }; geometry: { coordinates: number[] } }[] }>;
    };
    const view = (window as unknown as { orbitaMap?: { map: { getSource: (name: string) => Source | undefined } } })
      .orbitaMap;
    const data = await view?.map.getSource('objects')?.getData();
    return data?.features.find((feature) => feature.properties.id === id)?.geometry.coordinates;
  }, objectId);
}

async function until(done: () => Promise<boolean>) {
  const end = Date.now() + UI_WAIT_MS;
  while (!(await done())) {
    if (Date.now() > end) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function webglDrawn(page: Page) {
  await page.waitForFunction(() => {
    const view = (window as unknown as { orbitaMap?: { map: { loaded: () => boolean; painter?: unknown } } }).orbitaMap;
    return view?.map.loaded() === true;
  });
  // The canvas shows the bundled basemap's land (#f2efe9), drawn through WebGL.
  const land = await page.evaluate(() => {
    const canvas = document.querySelector('[data-testid="gps-map"] canvas') as HTMLCanvasElement;
    const gl = canvas.getContext('webgl2') as WebGL2RenderingContext;
    const pixels = new Uint8Array(4 * canvas.width * canvas.height);
    gl.readPixels(0, 0, canvas.width, canvas.height, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
    let count = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      if (Math.abs((pixels[i] ?? 0) - 242) < 3 && Math.abs((pixels[i + 1] ?? 0) - 239) < 3) count++;
    }
    return count;
  });
  expect(land).toBeGreaterThan(1000);
}

describe.skipIf(!available)('the dispatcher’s map', { timeout: 180_000 }, () => {
  it('shows objects moving live, yesterday’s track with its trips, and saves a drawn geofence', async () => {
    const { context, page } = await registeredPage(browser, t.url, {
      organization: 'Northern Haulage',
      name: 'Dina',
      email: 'dina@example.org',
    });
    ingestion = ((await apiInPage(page, 'POST', '/api/gps/ingestion-token')) as { token: string }).token;
    const now = Date.now();
    const first = await postFix('truck-7', new Date(now - 60_000), 55.75, 37.6, 20, 90);
    expect(first.accepted).toBe(true);
    await postFix('van-2', new Date(now - 60_000), 55.76, 37.65, 0);

    await page.goto(`${t.url}/map`);
    await waitOrExplain(page, page.getByTestId('gps-object-row').filter({ hasText: 'truck-7' }));
    await webglDrawn(page);
    await until(async () => (await drawnAt(page, first.objectId)) !== undefined);
    const before = await drawnAt(page, first.objectId);
    expect(before?.[1]).toBeCloseTo(55.75, 4);
    await page.screenshot({ path: `${SHOTS}/map-objects.png` });

    // Live: a later fix moves the truck with no reload.
    await postFix('truck-7', new Date(now - 30_000), 55.752, 37.6, 20, 0);
    await until(async () => ((await drawnAt(page, first.objectId))?.[1] ?? 0) > 55.7515);
    await page.screenshot({ path: `${SHOTS}/map-live.png` });

    // Yesterday: a drive of 20 minutes, a stop of 10, another drive.
    const yesterday = new Date(now);
    yesterday.setDate(yesterday.getDate() - 1);
    yesterday.setHours(10, 0, 0, 0);
    const at = (minutes: number) => new Date(yesterday.getTime() + minutes * 60_000);
    let lat = 55.7;
    for (let minute = 0; minute <= 20; minute++) {
      lat += 0.005;
      await postFix('bus-3', at(minute), lat, 37.5, 16, 0);
    }
    for (let minute = 21; minute <= 31; minute++) await postFix('bus-3', at(minute), lat, 37.5, 0, 0);
    for (let minute = 32; minute <= 45; minute++)
      await postFix('bus-3', at(minute), lat, 37.5 + (minute - 31) * 0.008, 16, 90);
    await page.getByLabel('Find an object').fill('bus');
    await page.getByTestId('gps-object-row').filter({ hasText: 'bus-3' }).click();
    await page.getByTestId('gps-object-card').waitFor();
    await page.getByTestId('gps-track').getByText('Yesterday').click();
    const trips = page.getByTestId('gps-trips').locator('tbody tr.ant-table-row');
    await trips.first().waitFor();
    expect(await trips.count()).toBeGreaterThanOrEqual(1);
    await trips.first().click();
    await page.waitForFunction(() => {
      const view = (window as unknown as { orbitaMap?: { map: { querySourceFeatures: (s: string) => unknown[] } } })
        .orbitaMap;
      return (view?.map.querySourceFeatures('track').length ?? 0) > 0;
    });
    await page.screenshot({ path: `${SHOTS}/map-track-yesterday.png` });

    // A circle geofence placed by a click and saved.
    await page.getByTestId('gps-geofences').getByRole('button', { name: 'Circle' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Depot');
    const box = (await page.getByTestId('gps-map').boundingBox()) as {
      x: number;
      y: number;
      width: number;
      height: number;
    };
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.getByTestId('gps-geofences').getByRole('button', { name: 'Save' }).click();
    await page.getByText('Geofence “Depot” saved').waitFor();
    const geofences = (await apiInPage(page, 'GET', '/api/gps/geofences')) as {
      items: { name: string; geometry: { type: string } }[];
    };
    expect(geofences.items.map((g) => [g.name, g.geometry.type])).toEqual([['Depot', 'circle']]);
    await page.screenshot({ path: `${SHOTS}/map-geofence.png` });
    await context.close();
  });

  it('still shows the replica’s objects over the bundled basemap after the server is stopped, marked offline', async () => {
    const { context, page } = await registeredPage(browser, t.url, {
      organization: 'Night Shift',
      name: 'Oleg',
      email: 'oleg@example.org',
    });
    ingestion = ((await apiInPage(page, 'POST', '/api/gps/ingestion-token')) as { token: string }).token;
    const parked = await postFix('crane-1', new Date(Date.now() - 60_000), 55.74, 37.61, 0);
    await page.goto(`${t.url}/map`);
    await serviceWorkerInControl(page);
    await page.getByTestId('gps-object-row').filter({ hasText: 'crane-1' }).waitFor();
    await until(async () => (await drawnAt(page, parked.objectId)) !== undefined);

    // What the page itself kept is dropped: the objects must come from the replica.
    await page.waitForTimeout(1500);
    await page.evaluate(() => {
      for (const key of Object.keys(localStorage)) if (key.startsWith('orbita.map-data.')) localStorage.removeItem(key);
    });
    await t.app.close();
    await page.reload();
    await page
      .getByTestId('gps-offline')
      .getByText(/Offline: data as of/)
      .waitFor();
    await page.getByTestId('gps-object-row').filter({ hasText: 'crane-1' }).waitFor();
    await until(async () => (await drawnAt(page, parked.objectId)) !== undefined);
    await webglDrawn(page);
    await page.screenshot({ path: `${SHOTS}/map-offline.png` });
    await context.close();
  });
});
