// Keeps the web interface's shell (the page and its hashed assets) so that it opens without the
// network; the data itself lives in the offline replica (IndexedDB). The API is never cached.
// The map's tiles of the organization's own tile source are kept too (bounded, least recently used
// dropped first), so the places viewed once still show offline.
const SHELL = 'orbita-shell-v1';
const TILES = 'orbita-tiles-v1';
/**
 * The organizations' configured tile origins, written in by the server as it serves this script
 * (its Content-Security-Policy lets the worker fetch from exactly these).
 */
const TILE_ORIGINS = [];
const MAX_TILES = 20_000;
const MAX_TILE_BYTES = 256 * 1024 * 1024;

/** The `/assets/…` files a page refers to. */
function assetPaths(html) {
  return new Set(Array.from(html.matchAll(/["'](\/assets\/[^"'?#]+)/g), (match) => match[1]));
}

/**
 * Keeps a freshly loaded page as the shell. When it is a new release, the assets only the previous
 * page referred to are dropped: each release would otherwise stay on disk for good.
 */
async function keepPage(response) {
  const cache = await caches.open(SHELL);
  const previous = await cache.match('/');
  const html = await response.clone().text();
  await cache.put('/', response);
  if (!previous) return;
  const current = assetPaths(html);
  for (const path of assetPaths(await previous.text())) {
    // Kept responses vary on Accept-Encoding, which a request made here does not carry.
    if (!current.has(path)) await cache.delete(path, { ignoreVary: true });
  }
}

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(SHELL).then((cache) => cache.add('/')));
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(names.filter((name) => name !== SHELL && name !== TILES).map((name) => caches.delete(name))),
      )
      .then(() => self.clients.claim()),
  );
});

/**
 * The kept tiles in use order (oldest first) with their sizes. Cache Storage lists keys in the
 * order they were put, and a tile used again is put again, so that order is the use order.
 */
let tileIndex;
async function tilesInUseOrder(cache) {
  if (!tileIndex) {
    const index = new Map();
    for (const request of await cache.keys()) {
      const response = await cache.match(request);
      index.set(request.url, Number(response?.headers.get('X-Orbita-Size') ?? 0));
    }
    tileIndex = index;
  }
  return tileIndex;
}

/** A PMTiles archive is read by byte ranges: each range of it is an entry of its own. */
function tileKey(request) {
  const range = request.headers.get('Range');
  if (!range) return request.url;
  const url = new URL(request.url);
  url.searchParams.append('orbita-range', range);
  return url.href;
}

/**
 * Keeps a tile (a 206 part as a 200 body with its status noted: Cache Storage refuses partial
 * responses), then drops the least recently used ones beyond the bounds.
 */
async function keepTile(key, response) {
  const body = await response.arrayBuffer();
  if (body.byteLength > MAX_TILE_BYTES) return;
  const headers = new Headers({ 'X-Orbita-Size': String(body.byteLength), 'X-Orbita-Status': String(response.status) });
  // The body is already decoded: no Content-Encoding.
  for (const name of ['Content-Type', 'Content-Range', 'ETag', 'Last-Modified']) {
    const value = response.headers.get(name);
    if (value) headers.set(name, value);
  }
  const cache = await caches.open(TILES);
  const index = await tilesInUseOrder(cache);
  await cache.put(key, new Response(body, { status: 200, headers }));
  index.delete(key);
  index.set(key, body.byteLength);
  let bytes = 0;
  for (const size of index.values()) bytes += size;
  for (const [oldest, size] of index) {
    if (index.size <= MAX_TILES && bytes <= MAX_TILE_BYTES) break;
    index.delete(oldest);
    bytes -= size;
    await cache.delete(oldest);
  }
}

/** A kept tile as the page asked for it (a range again as 206), put again as the most recently used. */
async function keptTile(key) {
  const cache = await caches.open(TILES);
  const kept = await cache.match(key);
  if (!kept) return undefined;
  const index = await tilesInUseOrder(cache);
  const body = await kept.arrayBuffer();
  const headers = new Headers(kept.headers);
  await cache.put(key, new Response(body, { status: 200, headers }));
  index.delete(key);
  index.set(key, body.byteLength);
  return new Response(body, { status: Number(headers.get('X-Orbita-Status') ?? 200), headers });
}

/** The organization's tiles: the network first (a fresh tile is kept), the kept copy when it fails. */
function tileResponse(event) {
  const key = tileKey(event.request);
  return fetch(event.request)
    .then((response) => {
      if (response.ok) {
        event.waitUntil(keepTile(key, response.clone()));
        return response;
      }
      return response.status >= 500 ? keptTile(key).then((kept) => kept ?? response) : response;
    })
    .catch(() => keptTile(key).then((kept) => kept ?? Response.error()));
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== 'GET') return;
  if (url.origin !== self.location.origin) {
    if (TILE_ORIGINS.includes(url.origin)) event.respondWith(tileResponse(event));
    return;
  }
  if (/^\/(api|socket\.io)(\/|$)/i.test(url.pathname)) return;
  if (request.mode === 'navigate') {
    // The network first, so a new release shows at once; the kept page when there is none.
    event.respondWith(
      fetch(request)
        .then((response) => {
          if (response.ok) event.waitUntil(keepPage(response.clone()));
          return response;
        })
        .catch(() => caches.match('/').then((kept) => kept ?? Response.error())),
    );
    return;
  }
  if (url.pathname.startsWith('/assets/')) {
    // Hashed file names never change content: kept ones are served as they are.
    event.respondWith(
      caches.match(request).then(
        (kept) =>
          kept ??
          fetch(request).then((response) => {
            if (response.ok) {
              const copy = response.clone();
              event.waitUntil(caches.open(SHELL).then((cache) => cache.put(request, copy)));
            }
            return response;
          }),
      ),
    );
  }
});
