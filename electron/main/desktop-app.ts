import path from 'node:path';
import { BRIDGE_ARGUMENTS, type DesktopLanguage, isDesktopTileSource, isExternalUrl } from '@shared/desktop/bridge';
import { DEEP_LINK_SCHEME, deepLinkInArguments, parseDeepLink } from '@shared/desktop/deep-link';
import { APP_SCHEME, APP_SCHEME_PRIVILEGES, createAppProtocolHandler } from './app-protocol';
import { registerBridgeHandlers } from './bridge-ipc';
import type { AppLike, ElectronMain, Rectangle, ScreenLike } from './electron-api';
import { createMainWindow, type MainWindow } from './main-window';
import { buildMenuTemplate } from './menu';
import { permissionRequestHandler } from './navigation-guard';
import { createReplicaService, type ReplicaService } from './replica-service';
import {
  type DesktopSettings,
  languageFromLocale,
  normalizeServerUrl,
  readSettings,
  resolveServerUrl,
  writeSettings,
} from './settings';
import { createWindowStateStore } from './window-state';

/** Where the build puts the bundles, relative to the app's folder (scripts/build-desktop.mjs). */
export const BUNDLES = {
  main: 'electron/dist/main.cjs',
  preload: 'electron/dist/preload.cjs',
  replicaProcess: 'electron/dist/replica-process.cjs',
} as const;

/** The renderer's build (`npm run build`), relative to the app's folder. */
export const RENDERER_DIST = 'renderer/dist';

export interface DesktopAppOptions {
  /** The app's folder: `app.getAppPath()`. */
  appPath: string;
  argv: string[];
  env: Record<string, string | undefined>;
  platform: string;
  /** `process.defaultApp`: started as `electron .` rather than installed. */
  defaultApp: boolean;
  execPath: string;
  appName?: string;
  log?: (message: string) => void;
}

export interface DesktopApp {
  /** Settles once the window exists (at once when another instance already runs). */
  ready: Promise<void>;
  /** The window, while it is open. */
  window(): MainWindow | undefined;
}

/**
 * The desktop shell: one instance, one window on `app://orbita/`, the replica in a utility
 * process, menus in the interface language, and `orbita://` links opened in the window.
 */
export function startDesktopApp(electron: ElectronMain, options: DesktopAppOptions): DesktopApp {
  const { app } = electron;
  const log = options.log ?? ((message: string) => console.error(message));
  const appName = options.appName ?? 'Orbita';
  electron.protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]);

  // A second launch hands its link to the first instance (second-instance) and ends.
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return { ready: Promise.resolve(), window: () => undefined };
  }
  registerProtocolClient(app, options);

  let main: MainWindow | undefined;
  let createWindow: ((initialPath?: string) => MainWindow) | undefined;
  let replica: ReplicaService | undefined;
  // Windows and Linux start the app with the link as an argument; macOS sends open-url.
  let initialPath = deepLinkInArguments(options.argv);

  const open = (appPath?: string) => {
    if (!createWindow) {
      if (appPath) initialPath = appPath;
      return;
    }
    if (!main) {
      main = createWindow(appPath);
      return;
    }
    main.focus();
    if (appPath) main.openPath(appPath);
  };

  app.on('second-instance', (_event, argv) => open(deepLinkInArguments(argv)));
  app.on('open-url', (event, url) => {
    event.preventDefault();
    const appPath = parseDeepLink(url);
    if (appPath) open(appPath);
  });
  app.on('window-all-closed', () => {
    if (options.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (createWindow && !main) open();
  });
  // The replica process saves what it holds in memory before the app ends.
  let replicaStopped = false;
  app.on('will-quit', (event) => {
    if (!replica || replicaStopped) return;
    event.preventDefault();
    replicaStopped = true;
    replica.stop().finally(() => app.quit());
  });

  const ready = app.whenReady().then(() => {
    const userData = app.getPath('userData');
    const settingsFile = path.join(userData, 'settings.json');
    const settings = readSettings(settingsFile);
    const serverUrl = resolveServerUrl(options.env.ORBITA_SERVER_URL, settings);
    if (options.env.ORBITA_SERVER_URL && !normalizeServerUrl(options.env.ORBITA_SERVER_URL)) {
      log(`ORBITA_SERVER_URL is not an http(s) URL; using ${serverUrl}.`);
    }
    let language: DesktopLanguage = settings.language ?? languageFromLocale(app.getLocale());
    let tileSource = settings.tileSource && isDesktopTileSource(settings.tileSource) ? settings.tileSource : undefined;
    const saveSettings = (changes: Partial<DesktopSettings>) => {
      try {
        writeSettings(settingsFile, { ...readSettings(settingsFile), ...changes });
      } catch (error) {
        log(`Could not save the settings: ${(error as Error).message}`);
      }
    };

    electron.protocol.handle(
      APP_SCHEME,
      createAppProtocolHandler({
        root: path.join(options.appPath, RENDERER_DIST),
        serverUrl,
        tiles: {
          source: () => tileSource,
          fetch: (url, range) => {
            if (!replica) return Promise.reject(new Error('The replica process is not running'));
            return replica.fetchTile(url, range);
          },
        },
      }),
    );
    electron.session.defaultSession.setPermissionRequestHandler(permissionRequestHandler);

    const openExternal = (url: string) => {
      if (!isExternalUrl(url)) return;
      electron.shell.openExternal(url).catch((error: Error) => log(`Could not open ${url}: ${error.message}`));
    };

    const applyMenu = () => {
      const template = buildMenuTemplate({
        language,
        platform: options.platform,
        appName,
        serverUrl,
        developerTools: !app.isPackaged,
        navigate: open,
        openExternal,
      });
      electron.Menu.setApplicationMenu(electron.Menu.buildFromTemplate(template));
    };
    applyMenu();

    registerBridgeHandlers(electron.ipcMain, {
      setLanguage(next) {
        if (next === language) return;
        language = next;
        applyMenu();
        saveSettings({ language });
      },
      setTileSource(next) {
        if (JSON.stringify(next ?? undefined) === JSON.stringify(tileSource)) return;
        tileSource = next ?? undefined;
        saveSettings({ tileSource });
      },
      openExternal,
      replicaPort: (page) => replica?.connect(page),
    });

    const activeReplica = createReplicaService({
      fork: () =>
        electron.utilityProcess.fork(
          path.join(options.appPath, BUNDLES.replicaProcess),
          [path.join(userData, 'replica')],
          { serviceName: `${appName} replica`, stdio: 'inherit' },
        ),
      createChannel: () => new electron.MessageChannelMain(),
      log,
    });
    replica = activeReplica;
    activeReplica.start();

    const windowState = createWindowStateStore({
      file: path.join(userData, 'window-state.json'),
      workAreas: () => workAreas(electron.screen),
    });
    const bridgeArguments = [
      `${BRIDGE_ARGUMENTS.serverUrl}${serverUrl}`,
      `${BRIDGE_ARGUMENTS.appVersion}${app.getVersion()}`,
    ];
    createWindow = (appPath) => {
      const created = createMainWindow({
        BrowserWindow: electron.BrowserWindow,
        preloadPath: path.join(options.appPath, BUNDLES.preload),
        bridgeArguments,
        windowState,
        initialPath: appPath,
        openExternal,
        onPageLoad: (webContents) => activeReplica.connect(webContents),
        log,
      });
      created.window.on('closed', () => {
        if (main === created) main = undefined;
      });
      return created;
    };
    main = createWindow(initialPath);
  });

  return { ready, window: () => main };
}

/**
 * Makes the OS open `orbita://` links with this app. Started as `electron .`, the OS must also
 * pass Electron the app's folder.
 */
export function registerProtocolClient(
  app: AppLike,
  options: { defaultApp: boolean; execPath: string; argv: string[] },
): void {
  const appFolder = options.argv[1];
  if (options.defaultApp && appFolder) {
    app.setAsDefaultProtocolClient(DEEP_LINK_SCHEME, options.execPath, [path.resolve(appFolder)]);
  } else {
    app.setAsDefaultProtocolClient(DEEP_LINK_SCHEME);
  }
}

/** Work areas of the displays, the primary one first. */
function workAreas(screen: ScreenLike): Rectangle[] {
  const primary = screen.getPrimaryDisplay();
  const others = screen.getAllDisplays().filter((display) => display.id !== primary.id);
  return [primary, ...others].map((display) => display.workArea);
}
