import {
  DESKTOP_CHANNELS,
  type DesktopLanguage,
  type DesktopTileSource,
  isDesktopLanguage,
  isDesktopTileSource,
  isExternalUrl,
} from '@shared/desktop/bridge';
import { isAppUrl } from './app-protocol';
import type { IpcMainEventLike, IpcMainLike, WebContentsLike } from './electron-api';

/**
 * The main process's side of the bridge: the only channels it listens to, each taking a message
 * only from the app's own pages and only with a valid value (the preload checks too, but a page is
 * never trusted).
 */
export function registerBridgeHandlers(
  ipcMain: IpcMainLike,
  handlers: {
    setLanguage(language: DesktopLanguage): void;
    openExternal(url: string): void;
    /** The page took its port and wants another (it answers on `replicaPort`). */
    replicaPort(page: WebContentsLike): void;
    /** The organization's tile source (null: none), as the page read it from its settings. */
    setTileSource(source: DesktopTileSource | null): void;
  },
): void {
  ipcMain.on(DESKTOP_CHANNELS.setLanguage, (event, language) => {
    if (fromAppPage(event) && isDesktopLanguage(language)) handlers.setLanguage(language);
  });
  ipcMain.on(DESKTOP_CHANNELS.openExternal, (event, url) => {
    if (fromAppPage(event) && isExternalUrl(url)) handlers.openExternal(url);
  });
  ipcMain.on(DESKTOP_CHANNELS.replicaPortRequest, (event) => {
    if (fromAppPage(event)) handlers.replicaPort(event.sender);
  });
  ipcMain.on(DESKTOP_CHANNELS.setTileSource, (event, source) => {
    if (!fromAppPage(event)) return;
    if (source === null) handlers.setTileSource(null);
    else if (isDesktopTileSource(source)) handlers.setTileSource({ kind: source.kind, url: source.url });
  });
}

function fromAppPage(event: IpcMainEventLike): boolean {
  return event.senderFrame !== null && isAppUrl(event.senderFrame.url);
}
