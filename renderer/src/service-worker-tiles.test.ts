import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';

/**
 * The browser build's service worker (renderer/public/sw.js) run in a Node VM over a Cache Storage
 * stand-in that keeps insertion order as Chromium's does: its keeping of the map's tiles.
 */
const SOURCE = readFileSync(new URL('../public/sw.js', import.meta.url), 'utf8');
const TILES = 'https://tiles.example.org';

class FakeCache {
  readonly entries = new Map<string, { body: ArrayBuffer; status: number; headers: [string, string][] }>();
  private key(request: string | Request) {
    return typeof request === 'string' ? new URL(request, 'https://orbita.example').href : request.url;
  }
  async match(request: string | Request) {
    const entry = this.entries.get(this.key(request));
    return entry && new Response(entry.body.slice(0), { status: entry.status, headers: entry.headers });
  }
  async put(request: string | Request, response: Response) {
    const key = this.key(request);
    const body = await response.arrayBuffer();
    // Cache Storage puts a replaced entry last.
    this.entries.delete(key);
    this.entries.set(key, { body, status: response.status, headers: [...response.headers] });
  }
  async delete(request: string | Request) {
    return this.entries.delete(this.key(request));
  }
  async keys() {
    return [...this.entries.keys()].map((url) => new Request(url));
  }
}

function worker(options: { maxTiles?: number; maxBytes?: number } = {}) {
  const caches = new Map<string, FakeCache>();
  const listeners = new Map<string, (event: unknown) => void>();
  let online = true;
  const served: string[] = [];
  const network = async (request: Request) => {
    if (!online) throw new TypeError('Failed to fetch');
    const range = request.headers.get('Range');
    served.push(`${request.url} ${range ?? ''}`.trim());
    const body = new Uint8Array(1000).fill(request.url.length % 251);
    if (!range) return new Response(body, { status: 200, headers: { 'Content-Type': 'image/png' } });
    return new Response(body.slice(0, 10), { status: 206, headers: { 'Content-Range': 'bytes 0-9/1000' } });
  };
  let script = SOURCE.replace('const TILE_ORIGINS = [];', `const TILE_ORIGINS = ${JSON.stringify([TILES])};`);
  if (options.maxTiles) script = script.replace('const MAX_TILES = 20_000;', `const MAX_TILES = ${options.maxTiles};`);
  if (options.maxBytes) {
    script = script.replace('const MAX_TILE_BYTES = 256 * 1024 * 1024;', `const MAX_TILE_BYTES = ${options.maxBytes};`);
  }
  vm.runInNewContext(script, {
    self: {
      location: { origin: 'https://orbita.example' },
      addEventListener: (type: string, listener: (event: unknown) => void) => listeners.set(type, listener),
      skipWaiting: () => undefined,
      clients: { claim: async () => undefined },
    },
    caches: {
      open: async (name: string) => {
        if (!caches.has(name)) caches.set(name, new FakeCache());
        return caches.get(name);
      },
      match: async () => undefined,
      keys: async () => [...caches.keys()],
      delete: async (name: string) => caches.delete(name),
    },
    fetch: (request: Request) => network(request),
    Request,
    Response,
    Headers,
    URL,
  });

  /** A fetch event of the page: what the worker answers (undefined: left to the browser), once its work is done. */
  async function get(url: string, range?: string): Promise<Response | undefined> {
    let answer: Promise<Response> | undefined;
    const pending: Promise<unknown>[] = [];
    listeners.get('fetch')?.({
      request: new Request(url, range ? { headers: { Range: range } } : {}),
      respondWith: (response: Promise<Response>) => {
        answer = response;
      },
      waitUntil: (work: Promise<unknown>) => pending.push(work),
    });
    const response = await answer;
    for (let settled = 0; settled < pending.length; settled++) await pending[settled];
    return response;
  }
  const kept = () => [...(caches.get('orbita-tiles-v1')?.entries.keys() ?? [])];
  return { get, kept, served, cut: () => (online = false), restore: () => (online = true) };
}

describe('the service worker keeping the map’s tiles', () => {
  it('keeps the configured origin’s tiles and serves them without the network; leaves other origins alone', async () => {
    const sw = worker();
    expect((await sw.get(`${TILES}/3/4/2.png`))?.status).toBe(200);
    expect(await sw.get('https://elsewhere.example/3/4/2.png')).toBeUndefined();
    sw.cut();
    const offline = await sw.get(`${TILES}/3/4/2.png`);
    expect(offline?.status).toBe(200);
    expect(offline?.headers.get('content-type')).toBe('image/png');
    expect((await offline?.arrayBuffer())?.byteLength).toBe(1000);
    expect((await sw.get(`${TILES}/3/4/3.png`))?.type).toBe('error');
  });

  it('keeps each byte range of an archive apart and answers it again as 206', async () => {
    const sw = worker();
    await sw.get(`${TILES}/region.pmtiles`, 'bytes=0-9');
    await sw.get(`${TILES}/region.pmtiles`, 'bytes=500-509');
    expect(sw.kept()).toEqual([
      `${TILES}/region.pmtiles?orbita-range=bytes%3D0-9`,
      `${TILES}/region.pmtiles?orbita-range=bytes%3D500-509`,
    ]);
    sw.cut();
    const part = await sw.get(`${TILES}/region.pmtiles`, 'bytes=0-9');
    expect(part?.status).toBe(206);
    expect(part?.headers.get('content-range')).toBe('bytes 0-9/1000');
    expect((await sw.get(`${TILES}/region.pmtiles`, 'bytes=10-19'))?.type).toBe('error');
  });

  it('drops the least recently used tiles beyond its count, a tile read offline counting as used', async () => {
    const sw = worker({ maxTiles: 3 });
    for (const name of ['a', 'b', 'c']) await sw.get(`${TILES}/${name}.png`);
    sw.cut();
    await sw.get(`${TILES}/a.png`);
    sw.restore();
    await sw.get(`${TILES}/d.png`);
    expect(sw.kept()).toEqual([`${TILES}/c.png`, `${TILES}/a.png`, `${TILES}/d.png`]);
  });

  it('drops the least recently used tiles beyond its bytes', async () => {
    const sw = worker({ maxBytes: 2500 });
    for (const name of ['a', 'b', 'c', 'd']) await sw.get(`${TILES}/${name}.png`);
    expect(sw.kept()).toEqual([`${TILES}/c.png`, `${TILES}/d.png`]);
  });
});
