import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import {
  apiInPage,
  chromiumAvailable,
  joinedPerson,
  launchChromium,
  registeredPage,
  serviceWorkerInControl,
  signInPage,
} from '../helpers/browser';
import {
  PMTILES_TYPE,
  pmtilesArchive,
  solidPng,
  squareVectorTile,
  startTileServer,
  type TileServer,
} from '../helpers/tile-fixtures';

/**
 * The organization's own tiles on the map in Chromium (WebGL through SwiftShader): PMTiles archives
 * of raster and of vector tiles written here, a MapLibre style of vector tiles, all from a local tile
 * server answering byte ranges; then that server stops and the tiles already seen still show (the
 * browser build's service worker kept them).
 */
const available = chromiumAvailable();
const SHOTS = 'test-artifacts/screenshots/gps';
const RASTER: [number, number, number] = [200, 60, 160];
/** The default style's area colour for a vector archive (#c8d7c0). */
const DEFAULT_VECTOR_FILL: [number, number, number] = [200, 215, 192];
/** The organization's style's area colour (#3f7fbf). */
const STYLE_FILL: [number, number, number] = [63, 127, 191];

let t: TestApp;
let browser: Browser;
let tiles: TileServer;

beforeAll(async () => {
  if (!available) return;
  mkdirSync(SHOTS, { recursive: true });
  t = await startTestApp();
  const vector = squareVectorTile('land');
  tiles = await startTileServer({
    '/raster.pmtiles': {
      body: pmtilesArchive({ tile: solidPng(RASTER), tileType: PMTILES_TYPE.png, maxZoom: 5 }),
      type: 'application/octet-stream',
    },
    '/vector.pmtiles': {
      body: pmtilesArchive({
        tile: vector,
        tileType: PMTILES_TYPE.mvt,
        maxZoom: 5,
        metadata: { vector_layers: [{ id: 'land', fields: {} }] },
      }),
      type: 'application/octet-stream',
    },
    '/style.json': {
      body: Buffer.from(
        JSON.stringify({
          version: 8,
          // A relative tile address: read against the style's own URL.
          sources: { region: { type: 'vector', tiles: ['vt/{z}/{x}/{y}.pbf'], maxzoom: 5 } },
          layers: [
            { id: 'land', type: 'fill', source: 'region', 'source-layer': 'land', paint: { 'fill-color': '#3f7fbf' } },
          ],
        }),
      ),
      type: 'application/json',
    },
    '/vt/{z}/{x}/{y}.pbf': { body: vector, type: 'application/x-protobuf' },
  });
  browser = await launchChromium({ webgl: true });
});
afterAll(async () => {
  await browser?.close();
  await tiles?.stop();
  await t?.close();
});

/** How many of the map canvas's pixels have `color` (within a small tolerance), once the map is idle. */
async function pixelsOf(page: Page, color: readonly [number, number, number]): Promise<number> {
  await page.waitForFunction(() => {
    const view = (window as unknown as { orbitaMap?: { map: { loaded: () => boolean } } }).orbitaMap;
    return view?.map.loaded() === true;
  });
  return page.evaluate((wanted) => {
    const canvas = document.querySelector('[data-testid="gps-map"] canvas') as HTMLCanvasElement;
    const gl = canvas.getContext('webgl2') as WebGL2RenderingContext;
    const pixels = new Uint8Array(4 * canvas.width * canvas.height);
    gl.readPixels(0, 0, canvas.width, canvas.height, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
    let count = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      if (wanted.every((value, channel) => Math.abs((pixels[i + channel] ?? 0) - value) <= 3)) count++;
    }
    return count;
  }, color);
}

/** Waits until the map shows at least `least` pixels of `color`. */
async function shows(page: Page, color: readonly [number, number, number], least = 20_000) {
  const end = Date.now() + 30_000;
  let count = 0;
  while (count < least) {
    if (Date.now() > end) throw new Error(`the map shows ${count} pixels of rgb(${color.join(',')})`);
    await page.waitForTimeout(250);
    count = await pixelsOf(page, color);
  }
}

/** The service worker's kept tiles (their keys). */
function keptTiles(page: Page): Promise<string[]> {
  return page.evaluate(async () => (await (await caches.open('orbita-tiles-v1')).keys()).map((request) => request.url));
}

/** Reloads the page until the service worker keeps tiles whose address holds `part` (a new worker takes over once). */
async function keptUntil(page: Page, part: string) {
  for (let attempt = 0; attempt < 10; attempt++) {
    await page.reload();
    await serviceWorkerInControl(page);
    for (let look = 0; look < 20; look++) {
      if ((await keptTiles(page)).some((url) => url.includes(part))) return;
      await page.waitForTimeout(250);
    }
  }
  throw new Error(`the service worker keeps no tile of ${part}: ${(await keptTiles(page)).join(', ')}`);
}

async function configureTiles(page: Page, tileSource: { kind: string; url: string }) {
  const settings = (await apiInPage(page, 'PATCH', '/api/gps/settings', { tileSource })) as {
    tileSource: unknown;
  };
  expect(settings.tileSource).toEqual(tileSource);
}

describe.skipIf(!available)('the organization’s tiles on the map', { timeout: 240_000 }, () => {
  it('draws PMTiles of raster and vector tiles and a vector style, and still shows the seen tiles with the tile server stopped', async () => {
    const { context, page } = await registeredPage(browser, t.url, {
      organization: 'Tundra Survey',
      name: 'Vera',
      email: 'vera@example.org',
    });
    const ingestion = ((await apiInPage(page, 'POST', '/api/gps/ingestion-token')) as { token: string }).token;
    const fix = new Date(Date.now() - 60_000).toISOString();
    const posted = await t.request('/api/gps/traccar/positions', {
      method: 'POST',
      headers: { Authorization: `Bearer ${ingestion}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        position: { fixTime: fix, deviceTime: fix, latitude: 55.75, longitude: 37.62, speed: 0, valid: true },
        device: { name: 'rover-1', uniqueId: 'rover-1' },
      }),
    });
    expect(posted.status).toBe(200);

    await configureTiles(page, { kind: 'pmtiles', url: `${tiles.origin}/raster.pmtiles` });
    await page.goto(`${t.url}/map`);
    await serviceWorkerInControl(page);
    await shows(page, RASTER);
    // The worker installed before the source was set knows nothing of it: the page brought the one
    // naming it, which keeps what the map reads from now on.
    await keptUntil(page, 'raster.pmtiles');
    await page.getByTestId('gps-object-row').filter({ hasText: 'rover-1' }).waitFor();
    await shows(page, RASTER);
    expect(tiles.requests.some((request) => request.startsWith('/raster.pmtiles bytes='))).toBe(true);
    await page.screenshot({ path: `${SHOTS}/tiles-pmtiles-raster.png` });

    await configureTiles(page, { kind: 'pmtiles', url: `${tiles.origin}/vector.pmtiles` });
    await page.reload();
    await shows(page, DEFAULT_VECTOR_FILL);
    expect(await pixelsOf(page, RASTER)).toBe(0);
    await page.screenshot({ path: `${SHOTS}/tiles-pmtiles-vector.png` });

    await configureTiles(page, { kind: 'style', url: `${tiles.origin}/style.json` });
    await page.reload();
    await shows(page, STYLE_FILL);
    expect(tiles.requests.some((request) => /^\/vt\/\d+\/\d+\/\d+\.pbf$/.test(request))).toBe(true);
    await keptUntil(page, '/vt/');
    const kept = await keptTiles(page);
    expect(kept.some((url) => url.endsWith('/style.json'))).toBe(true);
    // PMTiles byte ranges are kept one entry per range.
    expect(kept.filter((url) => url.includes('raster.pmtiles?orbita-range=bytes')).length).toBeGreaterThan(1);
    await page.screenshot({ path: `${SHOTS}/tiles-style.png` });

    // The tile server stops: the style and its tiles come from the service worker's copy …
    await tiles.stop();
    await page.reload();
    await page.getByTestId('gps-object-row').filter({ hasText: 'rover-1' }).waitFor();
    await shows(page, STYLE_FILL);
    await page.screenshot({ path: `${SHOTS}/tiles-style-offline.png` });

    // … and so do the byte ranges of the raster archive seen before.
    await configureTiles(page, { kind: 'pmtiles', url: `${tiles.origin}/raster.pmtiles` });
    await page.reload();
    await shows(page, RASTER);
    // The object, chosen, is ringed on the map over the kept tiles.
    await page.getByTestId('gps-object-row').filter({ hasText: 'rover-1' }).click();
    const objectDrawn = await page.evaluate(async () => {
      type Source = { getData: () => Promise<{ features: unknown[] }> };
      const view = (window as unknown as { orbitaMap?: { map: { getSource: (name: string) => Source | undefined } } })
        .orbitaMap;
      return (await view?.map.getSource('objects')?.getData())?.features.length ?? 0;
    });
    expect(objectDrawn).toBe(1);
    await page.screenshot({ path: `${SHOTS}/tiles-pmtiles-offline.png` });
    await context.close();
  });

  it('lets an administrator pre-download an area from the organization’s own source with an estimate, progress and cancel; refuses a public server; hidden from others', async () => {
    const slow = await startTileServer({ '/xyz/{z}/{x}/{y}.png': { body: solidPng(RASTER), type: 'image/png' } }, 50);
    try {
      const { context, page } = await registeredPage(browser, t.url, {
        organization: 'Taiga Rangers',
        name: 'Gleb',
        email: 'gleb@example.org',
      });
      await configureTiles(page, { kind: 'raster', url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png' });
      await page.goto(`${t.url}/map`);
      await serviceWorkerInControl(page);
      await page.getByTestId('gps-tile-download-open').click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Estimate the size' }).click();
      await dialog
        .getByTestId('gps-tile-error')
        .getByText(/public server whose usage policy forbids bulk downloads/)
        .waitFor();
      await page.screenshot({ path: `${SHOTS}/tiles-download-refused.png` });
      await dialog.getByRole('button', { name: 'Close' }).click();

      await configureTiles(page, { kind: 'raster', url: `${slow.origin}/xyz/{z}/{x}/{y}.png` });
      // Loaded again: the page's CSP and the service worker name the new origin.
      await keptUntil(page, '/xyz/');
      await page.getByTestId('gps-tile-download-open').click();
      const fill = async (label: string, value: number) => {
        await dialog.getByLabel(label, { exact: true }).fill(String(value));
      };
      await fill('West', 37.55);
      await fill('South', 55.72);
      await fill('East', 37.7);
      await fill('North', 55.78);
      await fill('Zoom from', 10);
      await fill('Zoom to', 13);
      await dialog.getByRole('button', { name: 'Estimate the size' }).click();
      const estimate = dialog.getByTestId('gps-tile-estimate');
      await estimate.waitFor();
      const count = Number(/^(\d+) tiles, about [\d.]+ MB/.exec((await estimate.textContent()) ?? '')?.[1]);
      expect(count).toBeGreaterThan(10);
      await page.screenshot({ path: `${SHOTS}/tiles-download-estimate.png` });
      await dialog.getByRole('button', { name: 'Download', exact: true }).click();
      await dialog.getByTestId('gps-tile-finished').getByText(`${count} of ${count} tiles kept`).waitFor();
      await page.screenshot({ path: `${SHOTS}/tiles-download-finished.png` });
      const kept = await keptTiles(page);
      expect(kept.filter((url) => /\/xyz\/13\//.test(url)).length).toBeGreaterThan(0);

      // A larger area, cancelled part way: fewer tiles asked of the server than the area has.
      await dialog.getByRole('button', { name: 'Close' }).click();
      await page.getByTestId('gps-tile-download-open').click();
      await fill('West', 37.3);
      await fill('South', 55.5);
      await fill('East', 37.9);
      await fill('North', 55.95);
      await fill('Zoom from', 14);
      await fill('Zoom to', 14);
      await dialog.getByRole('button', { name: 'Estimate the size' }).click();
      const large = Number(
        /^(\d+) tiles/.exec((await dialog.getByTestId('gps-tile-estimate').textContent()) ?? '')?.[1],
      );
      const before = slow.requests.length;
      await dialog.getByRole('button', { name: 'Download', exact: true }).click();
      await dialog.getByTestId('gps-tile-progress').waitFor();
      await page.screenshot({ path: `${SHOTS}/tiles-download-progress.png` });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog
        .getByTestId('gps-tile-finished')
        .getByText(/Download cancelled/)
        .waitFor();
      expect(slow.requests.length - before).toBeLessThan(large);

      // Someone who is not an administrator sees no pre-download, and the server refuses one.
      const ninaId = await joinedPerson(t, page, 'Nina', 'nina@example.org');
      await apiInPage(page, 'PUT', '/api/module-access', { users: [{ userId: ninaId, modules: ['gps'] }] });
      const member = await signInPage(browser, t.url, 'nina@example.org', 'Nina joins the crew');
      await member.page.getByTestId('organization-name').waitFor();
      await member.page.goto(`${t.url}/map`);
      await member.page.getByTestId('gps-map').waitFor();
      await member.page.getByTestId('gps-layers').waitFor();
      expect(await member.page.getByTestId('gps-tile-download-open').count()).toBe(0);
      const refused = (await apiInPage(member.page, 'POST', '/api/gps/tile-downloads', {
        west: 37.55,
        south: 55.72,
        east: 37.7,
        north: 55.78,
        minZoom: 10,
        maxZoom: 11,
      })) as { code: string };
      expect(refused.code).toBe('forbidden');
      await member.context.close();
      await context.close();
    } finally {
      await slow.stop();
    }
  });
});
