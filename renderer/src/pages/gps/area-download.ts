import type { TileArea, TileDownloadPlan } from '@shared/api/gps';
import { type TileAddress, tilesInArea } from '@shared/gps-tiles';
import type { StyleSpecification } from 'maplibre-gl';
import { PMTiles } from 'pmtiles';
import { desktopBridge } from '../../desktop';
import { type TileSource, tileRequestUrl } from './tile-source';

/** Tiles the browser build's service worker keeps at most (renderer/public/sw.js). */
export const BROWSER_TILE_LIMIT = 20_000;

/** Reads one tile of the area (into the device's cache, on the way): its size in bytes, 0 when there is none. */
type TileReader = (tile: TileAddress, signal: AbortSignal) => Promise<number>;

async function fetchSize(url: string, signal: AbortSignal): Promise<number> {
  const response = await fetch(tileRequestUrl(url), { signal });
  if (response.status === 404 || response.status === 204) return 0;
  if (!response.ok) throw new Error(`The tile server answered ${response.status} for ${url}`);
  return (await response.arrayBuffer()).byteLength;
}

function fromTemplate(template: string, { z, x, y }: TileAddress): string {
  return template.replaceAll('{z}', String(z)).replaceAll('{x}', String(x)).replaceAll('{y}', String(y));
}

/**
 * The tile template of an organization's style: its first source with tiles (listed, or in the
 * TileJSON it names). Only a template on the style's own origin is downloaded from.
 */
async function styleTemplate(styleUrl: string): Promise<string> {
  const style = (await (await fetch(tileRequestUrl(styleUrl))).json()) as StyleSpecification;
  for (const source of Object.values(style.sources ?? {})) {
    const withTiles = source as { tiles?: string[]; url?: string };
    let tiles = withTiles.tiles;
    if (!tiles && typeof withTiles.url === 'string' && /^https?:|^\.{0,2}\//.test(withTiles.url)) {
      const tileJsonUrl = new URL(withTiles.url, styleUrl).href;
      tiles = ((await (await fetch(tileRequestUrl(tileJsonUrl))).json()) as { tiles?: string[] }).tiles;
    }
    const first = tiles?.[0];
    if (!first) continue;
    const template = /^[a-z][a-z0-9+.-]*:/i.test(first)
      ? first
      : new URL(first, styleUrl).href.replaceAll('%7B', '{').replaceAll('%7D', '}');
    if (new URL(template.replace(/\{[^}]*\}/g, '0')).origin !== new URL(styleUrl).origin) {
      throw new Error('The style’s tiles are not on the organization’s tile server');
    }
    return template;
  }
  throw new Error('The style names no tiles');
}

/** How the area's tiles are read from the organization's source, by its kind. */
async function tileReader(source: TileSource): Promise<TileReader> {
  if (source.kind === 'pmtiles') {
    const archive = new PMTiles(tileRequestUrl(source.url));
    return async ({ z, x, y }, signal) => (await archive.getZxy(z, x, y, signal))?.data.byteLength ?? 0;
  }
  const template = source.kind === 'raster' ? source.url : await styleTemplate(source.url);
  return (tile, signal) => fetchSize(fromTemplate(template, tile), signal);
}

/** Where the downloaded tiles are kept: the desktop app's SQLite cache or the browser's service worker. */
export function tileStore(): 'desktop' | 'browser' {
  return desktopBridge() ? 'desktop' : 'browser';
}

/** A few tiles from the middle of the area at its middle zoom (read, so also kept). */
function sampleTiles(area: TileArea): TileAddress[] {
  const z = Math.round((area.minZoom + area.maxZoom) / 2);
  const all = [...tilesInArea(area, z, z)];
  const middle = Math.floor(all.length / 2);
  return all.slice(Math.max(0, middle - 2), middle + 3);
}

/** The download's size estimate: the tile count times the average size of a sample of its tiles. */
export async function estimateDownload(
  plan: TileDownloadPlan,
  area: TileArea,
  signal: AbortSignal,
): Promise<{ tileCount: number; averageBytes: number; bytes: number }> {
  const read = await tileReader(plan.source);
  const sizes: number[] = [];
  for (const tile of sampleTiles(area)) sizes.push(await read(tile, signal));
  const present = sizes.filter((size) => size > 0);
  const averageBytes = present.length > 0 ? present.reduce((sum, size) => sum + size, 0) / present.length : 0;
  return { tileCount: plan.tileCount, averageBytes, bytes: Math.round(averageBytes * plan.tileCount) };
}

export interface DownloadProgress {
  done: number;
  total: number;
  bytes: number;
  failed: number;
}

/**
 * Reads every tile of the area from the organization's source, four at a time, so the device keeps
 * them (the desktop app's tile cache or the browser's service worker); `signal` cancels.
 */
export async function downloadArea(
  plan: TileDownloadPlan,
  area: TileArea,
  options: { signal: AbortSignal; onProgress: (progress: DownloadProgress) => void },
): Promise<DownloadProgress> {
  const read = await tileReader(plan.source);
  const tiles = tilesInArea(area, area.minZoom, area.maxZoom);
  const progress: DownloadProgress = { done: 0, total: plan.tileCount, bytes: 0, failed: 0 };
  const worker = async () => {
    for (let next = tiles.next(); !next.done; next = tiles.next()) {
      if (options.signal.aborted) return;
      try {
        progress.bytes += await read(next.value, options.signal);
      } catch {
        if (options.signal.aborted) return;
        progress.failed++;
      }
      progress.done++;
      options.onProgress({ ...progress });
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return progress;
}
