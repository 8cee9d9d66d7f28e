import {
  type AppBridge,
  BRIDGE_ARGUMENTS,
  DEFAULT_SERVER_URL,
  DESKTOP_CHANNELS,
  isDesktopLanguage,
  isDesktopTileSource,
  isExternalUrl,
  REPLICA_PORT_MESSAGE,
} from '@shared/desktop/bridge';
import { appPathOf } from '@shared/desktop/deep-link';

/** The slices of Electron's preload API used here (declared because Electron's types are not a dependency). */
export interface IpcRendererEventLike {
  readonly ports: readonly MessagePort[];
}
export interface IpcRendererLike {
  send(channel: string, ...args: unknown[]): void;
  on(channel: string, listener: (event: IpcRendererEventLike, ...args: unknown[]) => void): unknown;
}
export interface ContextBridgeLike {
  exposeInMainWorld(key: string, api: unknown): void;
}
/** What the sandboxed preload's `process` offers that the bridge reads. */
export interface PreloadProcess {
  readonly argv: readonly string[];
  readonly platform: string;
}
/** The page's window, as far as handing it a port goes. */
export interface PageWindow {
  postMessage(message: unknown, targetOrigin: string, transfer: Transferable[]): void;
}

/** Deep links kept for a page that has not subscribed yet; older ones beyond this are dropped. */
const MAX_WAITING_LINKS = 20;

/**
 * The bridge the page sees as `window.orbita`. It holds no Electron object: each method checks
 * its input and sends one message on one channel.
 */
export function createBridge(ipcRenderer: IpcRendererLike, process: PreloadProcess, page: PageWindow): AppBridge {
  const listeners = new Set<(path: string) => void>();
  const waitingLinks: string[] = [];
  ipcRenderer.on(DESKTOP_CHANNELS.deepLink, (_event, value) => {
    const path = typeof value === 'string' ? appPathOf(value) : undefined;
    if (!path) return;
    if (listeners.size === 0) {
      waitingLinks.push(path);
      if (waitingLinks.length > MAX_WAITING_LINKS) waitingLinks.shift();
      return;
    }
    for (const listener of [...listeners]) listener(path);
  });

  // Until the page first asks, the latest port is held for it (a newer one, the replica process
  // restarted, replaces it). Once the page has a port, every port main hands is passed on at once:
  // the page routes it to a request of its own or, unasked, takes it for a restarted process.
  let heldPort: MessagePort | undefined;
  let asked = false;
  let passing = false;
  const passOn = (port: MessagePort) => {
    passing = true;
    // Ports cannot cross the context bridge; a window message carries them to the page's world.
    page.postMessage(REPLICA_PORT_MESSAGE, '*', [port]);
  };
  ipcRenderer.on(DESKTOP_CHANNELS.replicaPort, (event) => {
    const port = event.ports[0];
    if (!port) return;
    if (passing || asked) return passOn(port);
    heldPort?.close();
    heldPort = port;
  });

  const bridge = {
    platform: process.platform,
    appVersion: argumentValue(process.argv, BRIDGE_ARGUMENTS.appVersion) ?? '',
    serverUrl: argumentValue(process.argv, BRIDGE_ARGUMENTS.serverUrl) ?? DEFAULT_SERVER_URL,
    setLanguage(language) {
      if (!isDesktopLanguage(language)) throw new TypeError(`Unknown language: ${String(language)}`);
      ipcRenderer.send(DESKTOP_CHANNELS.setLanguage, language);
    },
    onDeepLink(listener) {
      if (typeof listener !== 'function') throw new TypeError('onDeepLink takes a function');
      listeners.add(listener);
      for (const path of waitingLinks.splice(0)) listener(path);
      return () => {
        listeners.delete(listener);
      };
    },
    openExternal(url) {
      if (!isExternalUrl(url)) throw new TypeError('Only http and https URLs open outside the app');
      ipcRenderer.send(DESKTOP_CHANNELS.openExternal, url);
    },
    requestReplicaPort() {
      if (heldPort) {
        const port = heldPort;
        heldPort = undefined;
        return passOn(port);
      }
      // The page took its port already (a new session, a copy deleted): main hands another. Else
      // the port of this page load is on its way.
      if (passing) ipcRenderer.send(DESKTOP_CHANNELS.replicaPortRequest);
      else asked = true;
    },
    setTileSource(source) {
      if (source !== null && !isDesktopTileSource(source)) throw new TypeError('A tile source is an http(s) URL');
      ipcRenderer.send(DESKTOP_CHANNELS.setTileSource, source === null ? null : { kind: source.kind, url: source.url });
    },
  } satisfies AppBridge;
  return bridge;
}

/** Exposes the bridge to the page as `window.orbita`. */
export function installPreload(
  electron: { contextBridge: ContextBridgeLike; ipcRenderer: IpcRendererLike },
  process: PreloadProcess,
  page: PageWindow,
): AppBridge {
  const bridge = createBridge(electron.ipcRenderer, process, page);
  electron.contextBridge.exposeInMainWorld('orbita', bridge);
  return bridge;
}

function argumentValue(argv: readonly string[], prefix: string): string | undefined {
  return argv.find((argument) => argument.startsWith(prefix))?.slice(prefix.length);
}
