import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fetchTile, TileCache, tileKey } from './tile-cache';

let directory: string;
let cache: TileCache;
beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'orbita-tiles-'));
});
afterEach(() => {
  cache?.close();
  rmSync(directory, { recursive: true, force: true });
});

const tile = (size: number, fill = 1) => ({ data: Buffer.alloc(size, fill), contentType: 'image/png' });

/** A local tile server answering each /z/x/y.png with 1,000 bytes naming the tile. */
async function tileServer(): Promise<{ server: Server; template: string; served: string[] }> {
  const served: string[] = [];
  const server = createServer((request, response) => {
    served.push(request.url ?? '');
    response.writeHead(200, { 'Content-Type': 'image/png' });
    response.end(Buffer.alloc(1000, (request.url ?? '').length));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, template: `http://127.0.0.1:${port}/{z}/{x}/{y}.png`, served };
}

describe('the desktop tile cache', () => {
  it('evicts the least recently used tiles once the total passes its bound, and keeps them across opens', () => {
    const file = path.join(directory, 'tiles.sqlite');
    cache = new TileCache(file, 3000);
    cache.put('a', tile(1000));
    cache.put('b', tile(1000));
    cache.put('c', tile(1000));
    expect(cache.get('a')).toBeDefined(); // a is now the most recently used
    cache.put('d', tile(1000));
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')].every(Boolean)).toBe(true);
    expect(cache.totalBytes()).toBe(3000);
    cache.put('too big', tile(5000));
    expect(cache.get('too big')).toBeUndefined();
    cache.close();
    cache = new TileCache(file, 3000);
    expect(cache.count()).toBe(3);
    expect(cache.totalBytes()).toBe(3000);
    cache.put('e', tile(1000));
    // Use order survives reopening: the least recently used before closing (a) goes first.
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')?.data.byteLength).toBe(1000);
  });

  it('serves viewed tiles when the tile server is stopped mid-way, and says none for tiles never viewed', async () => {
    cache = new TileCache(path.join(directory, 'tiles.sqlite'), 1_000_000);
    const { server, template } = await tileServer();
    const url = (z: number, x: number, y: number) =>
      template.replace('{z}', String(z)).replace('{x}', String(x)).replace('{y}', String(y));
    expect((await fetchTile(cache, url(3, 4, 2)))?.contentType).toBe('image/png');
    expect(await fetchTile(cache, url(3, 4, 3))).toBeDefined();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const offline = await fetchTile(cache, url(3, 4, 2));
    expect(offline?.data.byteLength).toBe(1000);
    expect(await fetchTile(cache, url(3, 5, 2))).toBeUndefined();
  });
});

describe('byte ranges of a tile archive', () => {
  it('keeps each range apart and serves it with the server stopped', async () => {
    cache = new TileCache(path.join(directory, 'tiles.sqlite'), 1_000_000);
    const archive = Buffer.from(Array.from({ length: 2000 }, (_, i) => i % 251));
    const server = createServer((request, response) => {
      const [, start, end] = /bytes=(\d+)-(\d+)/.exec(request.headers.range ?? '') ?? [];
      if (!start) return void response.writeHead(200).end(archive);
      response.writeHead(206, { 'Content-Type': 'application/octet-stream' });
      response.end(archive.subarray(Number(start), Number(end) + 1));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/region.pmtiles`;
    expect((await fetchTile(cache, url, fetch, 'bytes=0-99'))?.data).toEqual(archive.subarray(0, 100));
    expect((await fetchTile(cache, url, fetch, 'bytes=1000-1009'))?.data).toEqual(archive.subarray(1000, 1010));
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(cache.get(tileKey(url, 'bytes=0-99'))?.data.byteLength).toBe(100);
    expect((await fetchTile(cache, url, fetch, 'bytes=1000-1009'))?.data).toEqual(archive.subarray(1000, 1010));
    expect(await fetchTile(cache, url, fetch, 'bytes=100-199')).toBeUndefined();
    expect(await fetchTile(cache, url)).toBeUndefined();
  });
});
