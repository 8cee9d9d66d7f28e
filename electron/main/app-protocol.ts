import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { type DesktopTileSource, isExternalUrl, type TileAnswer } from '@shared/desktop/bridge';
import type { CustomScheme, ProtocolRequest } from './electron-api';

/**
 * `app://orbita/`: the origin the window loads the bundled renderer from. A privileged standard
 * scheme rather than `file://` gives the page a real origin (storage, fetch, relative URLs and
 * history routing work as on the web) and lets the shell tell its own pages from anything else.
 */
export const APP_SCHEME = 'app';
export const APP_HOST = 'orbita';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/** Registered before the app is ready (Electron allows it only then, once). */
export const APP_SCHEME_PRIVILEGES: CustomScheme = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true, stream: true, codeCache: true },
};

/** Whether `url` is a page of the app itself (`app://orbita/…`). */
export function isAppUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    // Node gives non-special schemes an opaque origin ('null'), so compare scheme and host.
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST;
  } catch {
    return false;
  }
}

/** The app URL that opens `appPath` (`/tasks/<id>` → `app://orbita/tasks/<id>`). */
export function appUrl(appPath = '/'): string {
  return `${APP_ORIGIN}${appPath}`;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
  '.pbf': 'application/x-protobuf',
};

/**
 * The pages' Content-Security-Policy: code and styles only from the bundle (Ant Design injects its
 * styles inline), network only to the Orbita server (HTTP and its WebSocket) and the organization's
 * configured tile origin, workers (MapLibre's) from the bundle or blob: URLs, nothing framed.
 */
export function contentSecurityPolicy(serverUrl: string, tileSourceUrl?: string): string {
  const server = new URL(serverUrl);
  const socket = `${server.protocol === 'https:' ? 'wss:' : 'ws:'}//${server.host}`;
  const tiles = tileSourceUrl && isExternalUrl(tileSourceUrl) ? ` ${new URL(tileSourceUrl).origin}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${server.origin} ${socket}${tiles}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Where the page reads the organization's map tiles: `app://orbita/_tiles/<tile URL>` is fetched by
 * the backend process through its SQLite tile cache, so the tiles seen once still show offline.
 */
export const TILE_PATH = '/_tiles/';

/** The tile cache's side of the `app://` handler: the configured source and the backend that fetches. */
export interface AppTiles {
  /** The organization's tile source as the page last said (undefined: none). */
  source(): DesktopTileSource | undefined;
  fetch(url: string, range?: string): Promise<TileAnswer>;
}

/** Paths that belong to the server: answered 404 rather than with the page, so a mistake is visible. */
const SERVER_PATHS = /^\/(api|socket\.io)(\/|$)/;

/**
 * The `app://` handler: serves files under `root` (the renderer's build), answers paths without a
 * file extension with `index.html` so the interface's own routes (`/tasks/<id>`) load the app, and
 * refuses anything that resolves outside `root`.
 */
export function createAppProtocolHandler(options: {
  root: string;
  /** The Orbita server the pages may connect to (their Content-Security-Policy). */
  serverUrl: string;
  tiles?: AppTiles;
}): (request: ProtocolRequest) => Promise<Response> {
  const root = path.resolve(options.root);
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'Method not allowed');
    if (request.url.startsWith(`${APP_ORIGIN}${TILE_PATH}`)) return tileResponse(request, options.tiles);
    let url: URL;
    let pathname: string;
    try {
      url = new URL(request.url);
      pathname = decodeURIComponent(url.pathname);
    } catch {
      return plain(400, 'Bad request');
    }
    if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return plain(404, 'Not found');
    if (pathname.includes('\0')) return plain(400, 'Bad request');
    const file = path.resolve(root, `.${pathname}`);
    if (file !== root && !file.startsWith(`${root}${path.sep}`)) return plain(403, 'Forbidden');

    const found = (await isFile(file)) ? file : undefined;
    const fallback =
      !found && !path.extname(pathname) && !SERVER_PATHS.test(pathname) ? path.join(root, 'index.html') : undefined;
    const served = found ?? fallback;
    if (!served) return plain(404, 'Not found');
    let body: Buffer;
    try {
      body = await readFile(served);
    } catch {
      return plain(404, 'Not found');
    }
    const extension = path.extname(served).toLowerCase();
    const headers: Record<string, string> = {
      'Content-Type': CONTENT_TYPES[extension] ?? 'application/octet-stream',
      'Content-Length': String(body.length),
      'X-Content-Type-Options': 'nosniff',
    };
    if (extension === '.html') {
      headers['Content-Security-Policy'] = contentSecurityPolicy(options.serverUrl, options.tiles?.source()?.url);
    }
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers });
  };
}

/**
 * A tile of the configured source through the backend's cache: only that source's origin (the page
 * cannot make the shell fetch anything else), a byte range answered as 206.
 */
async function tileResponse(request: ProtocolRequest, tiles: AppTiles | undefined): Promise<Response> {
  const url = request.url.slice(`${APP_ORIGIN}${TILE_PATH}`.length);
  const source = tiles?.source();
  if (!tiles || !source || !isExternalUrl(url) || new URL(url).origin !== new URL(source.url).origin) {
    return plain(403, 'Not the configured tile source');
  }
  const range = request.headers?.get('range') ?? undefined;
  let answer: TileAnswer;
  try {
    answer = await tiles.fetch(url, range);
  } catch {
    return plain(503, 'The tile cache is not available');
  }
  if (!answer.data) return plain(404, 'Not found');
  const headers: Record<string, string> = {
    'Content-Type': answer.contentType ?? 'application/octet-stream',
    'Content-Length': String(answer.data.byteLength),
    'X-Content-Type-Options': 'nosniff',
  };
  const start = /^bytes=(\d+)-/.exec(range ?? '')?.[1];
  if (start !== undefined) {
    headers['Content-Range'] = `bytes ${start}-${Number(start) + answer.data.byteLength - 1}/*`;
  }
  const body = request.method === 'HEAD' ? null : new Uint8Array(answer.data);
  return new Response(body, { status: start !== undefined ? 206 : 200, headers });
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

function plain(status: number, text: string): Response {
  return new Response(text, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
}
