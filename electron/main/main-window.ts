import { DESKTOP_CHANNELS } from '@shared/desktop/bridge';
import { appUrl } from './app-protocol';
import type { BrowserWindowConstructor, BrowserWindowLike, WebContentsLike, WebPreferences } from './electron-api';
import { guardNavigation } from './navigation-guard';
import { MIN_WINDOW_SIZE, type WindowStateStore } from './window-state';

/** The page's powers: no Node, its own JavaScript world, the OS sandbox; it reaches the shell only through the preload. */
export function secureWebPreferences(preload: string, additionalArguments: string[]): WebPreferences {
  return {
    preload,
    contextIsolation: true,
    nodeIntegration: false,
    sandbox: true,
    webviewTag: false,
    additionalArguments,
  };
}

export interface MainWindow {
  readonly window: BrowserWindowLike;
  /** Brings the window to the front, restoring it when minimized. */
  focus(): void;
  /** Opens an app path (`/tasks/<id>`) in the page, once the page has loaded. */
  openPath(path: string): void;
}

/**
 * The app's one window: restored to its remembered place, kept on the app's own pages, showing the
 * bundled renderer at `initialPath`. `onPageLoad` runs after each load of the page (reloads too).
 */
export function createMainWindow(deps: {
  BrowserWindow: BrowserWindowConstructor;
  preloadPath: string;
  bridgeArguments: string[];
  windowState: WindowStateStore;
  initialPath?: string;
  openExternal(url: string): void;
  onPageLoad(webContents: WebContentsLike): void;
  log?: (message: string) => void;
}): MainWindow {
  const log = deps.log ?? ((message: string) => console.error(message));
  const state = deps.windowState.load();
  const window = new deps.BrowserWindow({
    ...(state.x !== undefined && state.y !== undefined ? { x: state.x, y: state.y } : {}),
    width: state.width,
    height: state.height,
    minWidth: MIN_WINDOW_SIZE.width,
    minHeight: MIN_WINDOW_SIZE.height,
    // Shown once painted, so it never flashes empty.
    show: false,
    title: 'Orbita',
    backgroundColor: '#ffffff',
    webPreferences: secureWebPreferences(deps.preloadPath, deps.bridgeArguments),
  });
  window.once('ready-to-show', () => {
    if (state.maximized) window.maximize();
    window.show();
  });
  guardNavigation(window.webContents, { openExternal: deps.openExternal });
  deps.windowState.track(window);

  // A path sent while the page (re)loads would reach no preload; it waits for the load to finish.
  let loaded = false;
  const waiting: string[] = [];
  window.webContents.on('did-start-loading', () => {
    loaded = false;
  });
  window.webContents.on('did-finish-load', () => {
    loaded = true;
    for (const path of waiting.splice(0)) window.webContents.send(DESKTOP_CHANNELS.deepLink, path);
    deps.onPageLoad(window.webContents);
  });
  window.loadURL(appUrl(deps.initialPath)).catch((error: Error) => log(`The window did not load: ${error.message}`));

  return {
    window,
    focus() {
      if (window.isMinimized()) window.restore();
      window.show();
      window.focus();
    },
    openPath(path) {
      if (loaded) window.webContents.send(DESKTOP_CHANNELS.deepLink, path);
      else waiting.push(path);
    },
  };
}
