import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { apiInPage, chromiumAvailable, launchChromium, registeredPage, UI_WAIT_MS } from '../helpers/browser';

/**
 * The map's editors in Chromium (WebGL through SwiftShader, as the map test): a saved geofence
 * edited on the map, a route of two geofences with an object's progress, the object card's battery
 * and address from a local geocoder speaking Nominatim's /reverse, and the layer switch remembered.
 */
const available = chromiumAvailable();
const SHOTS = 'test-artifacts/screenshots/gps';
let t: TestApp;
let browser: Browser;
let geocoder: Server;
let geocoderUrl: string;
const languages: string[] = [];

beforeAll(async () => {
  if (!available) return;
  mkdirSync(SHOTS, { recursive: true });
  t = await startTestApp();
  browser = await launchChromium({ webgl: true });
  geocoder = createServer((req, res) => {
    const url = new URL(req.url ?? '', 'http://x');
    const language = url.searchParams.get('accept-language') ?? '';
    languages.push(language);
    res.setHeader('Content-Type', 'application/json');
    const street = language === 'ru' ? 'Тверская улица, 7, Москва' : 'Tverskaya Street 7, Moscow';
    res.end(JSON.stringify({ place_id: 7, display_name: street }));
  });
  await new Promise<void>((resolve) => geocoder.listen(0, '127.0.0.1', resolve));
  geocoderUrl = `http://127.0.0.1:${(geocoder.address() as AddressInfo).port}/reverse`;
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await new Promise((resolve) => geocoder?.close(resolve));
});

type MapWindow = {
  orbitaMap?: {
    map: {
      loaded: () => boolean;
      jumpTo: (options: { center: [number, number]; zoom: number }) => void;
      project: (point: [number, number]) => { x: number; y: number };
      querySourceFeatures: (source: string) => { properties: Record<string, unknown> }[];
      getSource: (name: string) => { getData: () => Promise<{ features: { properties: Record<string, unknown> }[] }> };
      getLayoutProperty: (layer: string, name: string) => unknown;
      isMoving: () => boolean;
    };
  };
};

async function postFix(token: string, tracker: string, fixTime: Date, lat: number, lon: number, battery?: number) {
  const response = await t.request('/api/gps/traccar/positions', {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      position: {
        fixTime: fixTime.toISOString(),
        latitude: lat,
        longitude: lon,
        speed: 0,
        valid: true,
        attributes: battery === undefined ? {} : { batteryLevel: battery },
      },
      device: { name: tracker, uniqueId: tracker },
    }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as { objectId: string; accepted: boolean };
}

async function until(done: () => Promise<boolean>) {
  const end = Date.now() + UI_WAIT_MS;
  while (!(await done())) {
    if (Date.now() > end) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Opens the map looking at a place at a zoom where handles are far apart. */
async function mapAt(page: Page, center: [number, number], zoom: number) {
  await page.goto(`${t.url}/map`);
  await page.waitForFunction(() => (window as unknown as MapWindow).orbitaMap?.map.loaded() === true);
  await page.evaluate(
    ([lon, lat, z]) => (window as unknown as MapWindow).orbitaMap?.map.jumpTo({ center: [lon, lat], zoom: z }),
    [center[0], center[1], zoom] as const,
  );
  await page.waitForFunction(() => (window as unknown as MapWindow).orbitaMap?.map.isMoving() === false);
}

/** Where a place is on the page, in pixels. */
async function onScreen(page: Page, lon: number, lat: number) {
  const box = (await page.getByTestId('gps-map').boundingBox()) as { x: number; y: number };
  const point = await page.evaluate(([x, y]) => (window as unknown as MapWindow).orbitaMap?.map.project([x, y]), [
    lon,
    lat,
  ] as const);
  return { x: box.x + (point?.x ?? 0), y: box.y + (point?.y ?? 0) };
}

const localInput = (date: Date) => {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
};

describe.skipIf(!available)('the map’s editors', { timeout: 180_000 }, () => {
  it('edits a saved geofence chosen on the map: a vertex moved, one removed and one added on a side (each undone), renamed, recoloured, saved, then deleted', async () => {
    const { context, page } = await registeredPage(browser, t.url, {
      organization: 'Yard Keepers',
      name: 'Vera',
      email: 'vera@example.org',
    });
    const square = [
      { lat: 55.745, lon: 37.59 },
      { lat: 55.745, lon: 37.61 },
      { lat: 55.755, lon: 37.61 },
      { lat: 55.755, lon: 37.59 },
    ];
    const made = (await apiInPage(page, 'POST', '/api/gps/geofences', {
      name: 'Yard',
      geometry: { type: 'polygon', points: square },
    })) as { id: string };
    await mapAt(page, [37.6, 55.75], 14);
    await page.getByTestId('gps-geofence-row').filter({ hasText: 'Yard' }).waitFor();

    // Chosen by a click inside it on the map: its handles appear.
    const inside = await onScreen(page, 37.6, 55.75);
    await page.mouse.click(inside.x, inside.y);
    await page.getByText('Editing a geofence').waitFor();
    await until(async () => {
      const data = await page.evaluate(() =>
        (window as unknown as MapWindow).orbitaMap?.map.getSource('handles').getData(),
      );
      return data?.features.length === 4;
    });

    // The first vertex dragged north-west.
    const from = await onScreen(page, 37.59, 55.745);
    const to = await onScreen(page, 37.585, 55.743);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    for (let step = 1; step <= 10; step++) {
      await page.mouse.move(from.x + ((to.x - from.x) * step) / 10, from.y + ((to.y - from.y) * step) / 10);
    }
    await page.mouse.up();
    // A vertex double-clicked goes; Undo brings it back.
    const handles = () =>
      page.evaluate(async () => {
        const data = await (window as unknown as MapWindow).orbitaMap?.map.getSource('handles').getData();
        return data?.features.length;
      });
    const third = await onScreen(page, 37.61, 55.755);
    await page.mouse.dblclick(third.x, third.y);
    await until(async () => (await handles()) === 3);
    await page.getByTestId('gps-geofences').getByRole('button', { name: 'Undo' }).click();
    await until(async () => (await handles()) === 4);
    // A click on the east side puts a point on it, between its two vertices; Undo takes it away.
    const side = await onScreen(page, 37.61, 55.75);
    await page.mouse.click(side.x, side.y);
    await until(async () => (await handles()) === 5);
    const added = await page.evaluate(async () => {
      const data = await (window as unknown as MapWindow).orbitaMap?.map.getSource('handles').getData();
      return (
        (data?.features[2] as unknown as { geometry: { coordinates: number[] } } | undefined)?.geometry.coordinates ??
        []
      );
    });
    expect(added[0]).toBeCloseTo(37.61, 3);
    expect(added[1]).toBeCloseTo(55.75, 3);
    await page.getByTestId('gps-geofences').getByRole('button', { name: 'Undo' }).click();
    await until(async () => (await handles()) === 4);
    await page.getByLabel('Name', { exact: true }).fill('Yard north');
    await page.getByRole('button', { name: 'Colour #1e88e5' }).click();
    await page.screenshot({ path: `${SHOTS}/editor-geofence-editing.png` });
    await page.getByTestId('gps-geofences').getByRole('button', { name: 'Save' }).click();
    await page.getByText('Geofence “Yard north” saved').waitFor();

    const saved = (await apiInPage(page, 'GET', `/api/gps/geofences/${made.id}`)) as {
      name: string;
      color: string;
      geometry: { points: { lat: number; lon: number }[] };
    };
    expect(saved.name).toBe('Yard north');
    expect(saved.color).toBe('#1e88e5');
    expect(saved.geometry.points[0]?.lat).toBeCloseTo(55.743, 3);
    expect(saved.geometry.points[0]?.lon).toBeCloseTo(37.585, 3);
    expect(saved.geometry.points.slice(1)).toEqual(square.slice(1));
    // Drawn again in its colour.
    await until(async () => {
      const data = await page.evaluate(() =>
        (window as unknown as MapWindow).orbitaMap?.map.getSource('geofences').getData(),
      );
      return data?.features.some((feature) => feature.properties.color === '#1e88e5') ?? false;
    });
    await page.screenshot({ path: `${SHOTS}/editor-geofence-saved.png` });

    // Chosen in the list this time, and deleted.
    await page.getByTestId('gps-geofence-row').filter({ hasText: 'Yard north' }).click();
    await page.getByTestId('gps-geofences').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('tooltip').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Geofence “Yard north” deleted').waitFor();
    expect(((await apiInPage(page, 'GET', '/api/gps/geofences')) as { items: unknown[] }).items).toEqual([]);
    await context.close();
  });

  it('makes a route of two geofences and shows an object’s progress on it', async () => {
    const { context, page } = await registeredPage(browser, t.url, {
      organization: 'Round Trips',
      name: 'Roman',
      email: 'roman@example.org',
    });
    const token = ((await apiInPage(page, 'POST', '/api/gps/ingestion-token')) as { token: string }).token;
    const circle = (lat: number, lon: number) => ({ type: 'circle', center: { lat, lon }, radiusMeters: 300 });
    await apiInPage(page, 'POST', '/api/gps/geofences', {
      name: 'Depot',
      geometry: circle(55.7, 37.5),
      color: '#43a047',
    });
    await apiInPage(page, 'POST', '/api/gps/geofences', { name: 'Client', geometry: circle(55.72, 37.55) });
    // The truck leaves from outside, enters the depot 50 minutes ago and the client 20 minutes ago.
    const now = Date.now();
    const ago = (minutes: number) => new Date(now - minutes * 60_000);
    await postFix(token, 'truck-9', ago(60), 55.69, 37.48);
    await postFix(token, 'truck-9', ago(50), 55.7, 37.5);
    await postFix(token, 'truck-9', ago(35), 55.71, 37.52);
    await postFix(token, 'truck-9', ago(20), 55.72, 37.55);

    await mapAt(page, [37.525, 55.71], 12);
    await page.getByTestId('gps-object-row').filter({ hasText: 'truck-9' }).waitFor();
    await page.getByTestId('gps-routes').getByRole('button', { name: 'New route' }).click();
    const form = page.getByTestId('gps-route-form');
    await form.getByLabel('Route name').fill('Morning round');
    await form.getByLabel('Objects on the route').fill('truck-9');
    await page.keyboard.press('Enter');
    await form.getByLabel('Geofence of stop 1').fill('Depot');
    await page.keyboard.press('Enter');
    // Expected 45 minutes ago, ±15: entered in time.
    await form.getByLabel('Expected time of stop 1').fill(localInput(ago(45)));
    await form.getByRole('button', { name: 'Add a stop' }).click();
    await form.getByLabel('Geofence of stop 2').fill('Client');
    await page.keyboard.press('Enter');
    // Expected an hour ago, ±10: entered 40 minutes late.
    await form.getByLabel('Expected time of stop 2').fill(localInput(ago(60)));
    await form.getByLabel('Tolerance of stop 2, min').fill('10');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Route “Morning round” saved').waitFor();

    const progress = page.getByTestId('gps-route-progress');
    await progress.locator('tbody tr.ant-table-row').filter({ hasText: 'truck-9' }).waitFor();
    const statuses = await progress
      .locator('tbody tr.ant-table-row [data-status]')
      .evaluateAll((tags) => tags.map((tag) => tag.getAttribute('data-status')));
    expect(statuses).toEqual(['visited', 'late']);
    await expect(progress.getByText('Depot')).toBeTruthy();
    const routes = (await apiInPage(page, 'GET', '/api/gps/routes')) as {
      items: { name: string; stops: { toleranceMinutes: number }[]; objectIds: string[] }[];
    };
    expect(
      routes.items.map((route) => [route.name, route.stops.map((s) => s.toleranceMinutes), route.objectIds.length]),
    ).toEqual([['Morning round', [15, 10], 1]]);
    // Shown on the map: both geofences in view.
    await page.evaluate(() => (window as unknown as MapWindow).orbitaMap?.map.jumpTo({ center: [30, 60], zoom: 10 }));
    await page.getByTestId('gps-route-drawer').getByRole('button', { name: 'Show on the map' }).click();
    await until(async () => {
      const bounds = await page.evaluate(() => {
        const map = (window as unknown as { orbitaMap?: { map: { getBounds: () => { toArray: () => number[][] } } } })
          .orbitaMap?.map;
        return map?.getBounds().toArray();
      });
      const [[west, south], [east, north]] = bounds as [[number, number], [number, number]];
      return west < 37.5 && east > 37.55 && south < 55.7 && north > 55.72 && east - west < 1;
    });
    await page.screenshot({ path: `${SHOTS}/editor-route-progress.png` });
    await context.close();
  });

  it('shows the battery and the address on the card, and remembers the layer switch', async () => {
    const { context, page } = await registeredPage(browser, t.url, {
      organization: 'Battery Watch',
      name: 'Bella',
      email: 'bella@example.org',
    });
    const token = ((await apiInPage(page, 'POST', '/api/gps/ingestion-token')) as { token: string }).token;
    await apiInPage(page, 'PATCH', '/api/gps/settings', { geocoderUrl });
    await postFix(token, 'phone-4', new Date(Date.now() - 60_000), 55.757, 37.613, 82);
    await mapAt(page, [37.613, 55.757], 13);
    await page.getByTestId('gps-object-row').filter({ hasText: 'phone-4' }).click();
    const card = page.getByTestId('gps-object-card');
    await card.getByTestId('gps-battery').getByText('82 %').waitFor();
    await card.getByTestId('gps-address').getByText('Tverskaya Street 7, Moscow').waitFor();
    expect(languages.at(-1)).toBe('en');
    await page.screenshot({ path: `${SHOTS}/editor-card-battery-address.png` });

    // Geofences and labels switched off stay off after a reload.
    const layers = page.getByTestId('gps-layers');
    await layers.getByLabel('Geofences').uncheck();
    await layers.getByLabel('Labels').uncheck();
    const visibility = (layer: string) =>
      page.evaluate(
        (id) => (window as unknown as MapWindow).orbitaMap?.map.getLayoutProperty(id, 'visibility') ?? 'visible',
        layer,
      );
    await until(async () => (await visibility('geofences-fill')) === 'none' && (await visibility('labels')) === 'none');
    expect(await visibility('objects')).toBe('visible');
    await page.reload();
    await page.waitForFunction(() => (window as unknown as MapWindow).orbitaMap?.map.loaded() === true);
    expect(await page.getByTestId('gps-layers').getByLabel('Geofences').isChecked()).toBe(false);
    expect(await page.getByTestId('gps-layers').getByLabel('Objects').isChecked()).toBe(true);
    await until(async () => (await visibility('geofences-fill')) === 'none' && (await visibility('labels')) === 'none');
    await page.screenshot({ path: `${SHOTS}/editor-layers.png` });
    await context.close();
  });
});
