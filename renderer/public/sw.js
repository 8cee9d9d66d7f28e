// Keeps the web interface's shell (the page and its hashed assets) so that it opens without the
// network; the data itself lives in the offline replica (IndexedDB). The API is never cached.
const SHELL = 'orbita-shell-v1';

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
          if (response.ok) {
            const copy = response.clone();
            event.waitUntil(caches.open(SHELL).then((cache) => cache.put('/', copy)));
          }
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
