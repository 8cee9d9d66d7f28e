/**
 * The desktop app's bridge: what the preload exposes to the page as `window.orbita` (absent in the
 * browser build), and the names both sides of it agree on.
 */

/** Interface languages the desktop shell knows (its menus follow the page's choice). */
export type DesktopLanguage = 'ru' | 'en';

/** The object the preload exposes with `contextBridge.exposeInMainWorld('orbita', …)`. */
export interface AppBridge {
  /** Node's name of the operating system: `win32`, `darwin` or `linux`. */
  readonly platform: string;
  /** The desktop app's version (its package.json). */
  readonly appVersion: string;
  /** Base URL of the Orbita server, without a trailing slash (`ORBITA_SERVER_URL`, else the saved setting, else `http://localhost:3000`). */
  readonly serverUrl: string;
  /** Tells the shell the interface language, so its menus follow it. Throws on anything but `ru` / `en`. */
  setLanguage(language: DesktopLanguage): void;
  /**
   * Calls `listener` with each app path the shell is asked to open (an `orbita://` link, a menu
   * item), e.g. `/tasks/<id>`. Paths that arrived before the first listener are delivered to it.
   * Returns a function that stops listening.
   */
  onDeepLink(listener: (path: string) => void): () => void;
  /** Opens an http(s) URL in the system browser. Throws on any other URL. */
  openExternal(url: string): void;
  /**
   * Asks for a message port to the offline replica: it arrives as a window message whose data is
   * `REPLICA_PORT_MESSAGE` (ports cannot cross the context bridge). A new port is held for the page
   * whenever the replica process restarts.
   */
  requestReplicaPort(): void;
  /**
   * Tells the shell the organization's map tile source (null: none): its tile cache serves only that
   * source's origin, and its pages' Content-Security-Policy allows that origin. Throws on anything
   * but an http(s) URL.
   */
  setTileSource(source: DesktopTileSource | null): void;
}

/** The organization's tile source as the shell keeps it (GpsSettings.tileSource). */
export interface DesktopTileSource {
  kind: 'raster' | 'style' | 'pmtiles';
  url: string;
}

/** Whether `value` is a tile source the shell accepts (an http(s) URL of one of the kinds). */
export function isDesktopTileSource(value: unknown): value is DesktopTileSource {
  if (typeof value !== 'object' || value === null) return false;
  const { kind, url } = value as { kind?: unknown; url?: unknown };
  return (kind === 'raster' || kind === 'style' || kind === 'pmtiles') && isExternalUrl(url);
}

/** Every key of AppBridge, checked by the compiler: the preload exposes exactly these. */
const BRIDGE_KEYS: Record<keyof AppBridge, true> = {
  platform: true,
  appVersion: true,
  serverUrl: true,
  setLanguage: true,
  onDeepLink: true,
  openExternal: true,
  requestReplicaPort: true,
  setTileSource: true,
};
export const APP_BRIDGE_KEYS = Object.keys(BRIDGE_KEYS) as (keyof AppBridge)[];

/** IPC channels between the main process and the preload; nothing else is listened to. */
export const DESKTOP_CHANNELS = {
  /** page → main: the interface language. */
  setLanguage: 'orbita:set-language',
  /** page → main: an http(s) URL to open in the system browser. */
  openExternal: 'orbita:open-external',
  /** main → page: an app path to open. */
  deepLink: 'orbita:deep-link',
  /** main → preload: a message port to the replica process. */
  replicaPort: 'orbita:replica-port',
  /**
   * preload → main: another port, the page having taken the last one (a new session, the copy
   * deleted while none was held): main answers on `replicaPort`.
   */
  replicaPortRequest: 'orbita:replica-port-request',
  /** page → main: the organization's tile source (or null). */
  setTileSource: 'orbita:set-tile-source',
} as const;

/** Data of the window message that carries the replica port from the preload to the page. */
export const REPLICA_PORT_MESSAGE = 'orbita:replica-port';

/**
 * What the main process tells the replica process when the app quits: save everything still in
 * memory, then exit.
 */
export const REPLICA_STOP_MESSAGE = { type: 'orbita:replica-stop' } as const;

/**
 * A map tile the main process asks the backend (replica) process for, on behalf of the page's
 * `app://orbita/_tiles/<url>` request: the backend answers from the network, keeping it in its
 * SQLite tile cache, or from that cache when the network fails. `range` asks for a byte range.
 */
export interface TileRequest {
  type: 'orbita:tile-request';
  requestId: number;
  url: string;
  range?: string;
}
/** The backend's answer to a TileRequest: `data` undefined when neither the network nor the cache has it. */
export interface TileAnswer {
  type: 'orbita:tile-answer';
  requestId: number;
  data?: Uint8Array;
  contentType?: string;
}
export const TILE_REQUEST: TileRequest['type'] = 'orbita:tile-request';
export const TILE_ANSWER: TileAnswer['type'] = 'orbita:tile-answer';

/**
 * What the page asks the replica process about the files of a copy of the data (`databaseName`, a
 * replica's), over the port the copy is open on or failed to open on:
 * - `discard`: delete them without opening them (the copy cannot be opened: a damaged file);
 * - `size`: how many bytes they take on disk.
 * The process answers with the same `requestId`: `bytes` for a size, `error` when it could not.
 */
export interface ReplicaFilesRequest {
  type: 'orbita:replica-files';
  requestId: string;
  databaseName: string;
  operation: 'discard' | 'size';
}
export interface ReplicaFilesAnswer {
  type: 'orbita:replica-files-answer';
  requestId: string;
  bytes?: number;
  error?: string;
  /** The copy is still open in the replica process (a discard waited for it in vain). */
  inUse?: boolean;
}
export const REPLICA_FILES_REQUEST: ReplicaFilesRequest['type'] = 'orbita:replica-files';
export const REPLICA_FILES_ANSWER: ReplicaFilesAnswer['type'] = 'orbita:replica-files-answer';

/** Command-line switches through which the main process hands the preload its static values. */
export const BRIDGE_ARGUMENTS = {
  serverUrl: '--orbita-server-url=',
  appVersion: '--orbita-app-version=',
} as const;

export const DEFAULT_SERVER_URL = 'http://localhost:3000';

export function isDesktopLanguage(value: unknown): value is DesktopLanguage {
  return value === 'ru' || value === 'en';
}

/** Whether `value` is an absolute http(s) URL without credentials: the only kind opened outside the app. */
export function isExternalUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 8192) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
}
