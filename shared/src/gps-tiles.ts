/** Bytes of tiles the desktop app keeps at most (least recently used dropped first). */
export const DESKTOP_TILE_CACHE_BYTES = 512 * 1024 * 1024;

/** A bounding box in degrees (WGS 84). */
export interface TileBounds {
  west: number;
  south: number;
  east: number;
  north: number;
}

/** One XYZ tile: zoom, column and row (Web Mercator, rows from the north). */
export interface TileAddress {
  z: number;
  x: number;
  y: number;
}

const MAX_LATITUDE = 85.0511;

/** The columns and rows of zoom `z` covering `bounds` (inclusive). */
export function tileRange(bounds: TileBounds, z: number): { minX: number; maxX: number; minY: number; maxY: number } {
  const last = 2 ** z - 1;
  const column = (lon: number) => Math.min(last, Math.max(0, Math.floor(((lon + 180) / 360) * 2 ** z)));
  const row = (lat: number) => {
    const radians = (Math.max(-MAX_LATITUDE, Math.min(MAX_LATITUDE, lat)) * Math.PI) / 180;
    const y = Math.floor(((1 - Math.log(Math.tan(radians) + 1 / Math.cos(radians)) / Math.PI) / 2) * 2 ** z);
    return Math.min(last, Math.max(0, y));
  };
  return { minX: column(bounds.west), maxX: column(bounds.east), minY: row(bounds.north), maxY: row(bounds.south) };
}

/** How many tiles cover `bounds` from `minZoom` to `maxZoom`. */
export function tileCount(bounds: TileBounds, minZoom: number, maxZoom: number): number {
  let count = 0;
  for (let z = minZoom; z <= maxZoom; z++) {
    const { minX, maxX, minY, maxY } = tileRange(bounds, z);
    count += (maxX - minX + 1) * (maxY - minY + 1);
  }
  return count;
}

/** The tiles covering `bounds` from `minZoom` to `maxZoom`, lowest zoom first. */
export function* tilesInArea(bounds: TileBounds, minZoom: number, maxZoom: number): Generator<TileAddress> {
  for (let z = minZoom; z <= maxZoom; z++) {
    const { minX, maxX, minY, maxY } = tileRange(bounds, z);
    for (let x = minX; x <= maxX; x++) for (let y = minY; y <= maxY; y++) yield { z, x, y };
  }
}

/**
 * Public tile servers whose usage policies forbid bulk downloading (OpenStreetMap's own, and the
 * commercial ones whose terms allow viewing only): an area is never pre-downloaded from them.
 */
const PUBLIC_TILE_HOSTS = [
  'openstreetmap.org',
  'openstreetmap.fr',
  'openstreetmap.de',
  'osm.org',
  'opentopomap.org',
  'thunderforest.com',
  'cartocdn.com',
  'arcgisonline.com',
  'arcgis.com',
  'google.com',
  'googleapis.com',
  'mapbox.com',
  'maptiler.com',
  'stadiamaps.com',
  'tiles.stadiamaps.com',
  'openfreemap.org',
  'yandex.net',
  'yandex.ru',
  'here.com',
  'hereapi.com',
  'tomtom.com',
  'bing.com',
  'virtualearth.net',
];

/** Whether `url` is on a public tile server that forbids bulk downloads (the host or any subdomain of it). */
export function isPublicTileServer(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return PUBLIC_TILE_HOSTS.some((public_) => host === public_ || host.endsWith(`.${public_}`));
}
