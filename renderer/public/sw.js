// Keeps the web interface's shell (the page and its hashed assets) so that it opens without the
// network; the data itself lives in the offline replica (IndexedDB). The API is never cached.
const SHELL = 'orbita-shell-v1';

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
      .then((names) => Promise.all(names.filter((name) => name !== SHELL).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
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
