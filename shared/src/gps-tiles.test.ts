import { describe, expect, it } from 'vitest';
import { isPublicTileServer, tileCount, tilesInArea } from './gps-tiles';

describe('tiles of an area', () => {
  const moscow = { west: 37.3, south: 55.5, east: 37.9, north: 55.95 };

  it('lists the XYZ tiles of a bounding box by zoom, lowest first, and counts them alike', () => {
    const tiles = [...tilesInArea(moscow, 8, 11)];
    expect(tiles[0]).toEqual({ z: 8, x: 154, y: 79 });
    expect(tiles.at(-1)?.z).toBe(11);
    expect(tileCount(moscow, 8, 11)).toBe(tiles.length);
    expect(tileCount({ west: -180, south: -85.06, east: 180, north: 85.06 }, 0, 2)).toBe(1 + 4 + 16);
  });

  it('knows the public tile servers whose policies forbid bulk downloads, subdomains included', () => {
    for (const url of [
      'https://tile.openstreetmap.org/{z}/{x}/{y}.png',
      'https://a.tile.openstreetmap.fr/osmfr/{z}/{x}/{y}.png',
      'https://basemaps.cartocdn.com/light_all/{z}/{x}/{y}.png',
      'https://api.maptiler.com/maps/streets/style.json?key=x',
    ]) {
      expect(isPublicTileServer(url), url).toBe(true);
    }
    for (const url of [
      'https://tiles.example.org/{z}/{x}/{y}.png',
      'http://10.0.0.7:8080/region.pmtiles',
      'not a url',
    ]) {
      expect(isPublicTileServer(url), url).toBe(false);
    }
    expect(isPublicTileServer('https://notopenstreetmap.org/x')).toBe(false);
  });
});
