import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPLICA_STOP_MESSAGE } from '@shared/desktop/bridge';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BUNDLES, type DesktopAppOptions, startDesktopApp } from './desktop-app';
import type {
  BrowserWindowOptions,
  ElectronMain,
  MenuItemTemplate,
  MessagePortMainLike,
  PermissionRequestHandler,
  ProtocolRequest,
} from './electron-api';

const TASK_ID = '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b';

class FakePort {
  postMessage() {}
  start() {}
  close() {}
}

class FakeWebContents extends EventEmitter {
  sent: { channel: string; args: unknown[] }[] = [];
  posted: { channel: string; ports: MessagePortMainLike[] }[] = [];
  openHandler?: (details: { url: string }) => { action: 'deny' };
  send(channel: string, ...args: unknown[]) {
    this.sent.push({ channel, args });
  }
  postMessage(channel: string, _message: unknown, ports: MessagePortMainLike[] = []) {
    this.posted.push({ channel, ports });
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }) {
    this.openHandler = handler;
  }
  isDestroyed = () => false;
  /** The page finished (re)loading. */
  load() {
    this.emit('did-start-loading');
    this.emit('did-finish-load');
  }
}

class FakeBrowserWindow extends EventEmitter {
  static created: FakeBrowserWindow[] = [];
  webContents = new FakeWebContents();
  loaded: string[] = [];
  calls: string[] = [];
  minimized = false;
  constructor(readonly options: BrowserWindowOptions) {
    super();
    FakeBrowserWindow.created.push(this);
  }
  loadURL(url: string) {
    this.loaded.push(url);
    return Promise.resolve();
  }
  show = () => this.calls.push('show');
  focus = () => this.calls.push('focus');
  restore = () => {
    this.calls.push('restore');
    this.minimized = false;
  };
  maximize = () => this.calls.push('maximize');
  isMinimized = () => this.minimized;
  isMaximized = () => false;
  isDestroyed = () => false;
  getNormalBounds = () => ({ x: 10, y: 10, width: 1000, height: 700 });
}

class FakeUtilityProcess extends EventEmitter {
  received: MessagePortMainLike[][] = [];
  /** Messages sent without ports (the stop request). */
  messages: unknown[] = [];
  constructor(
    readonly modulePath: string,
    readonly args: string[],
  ) {
    super();
  }
  postMessage(message: unknown, ports: MessagePortMainLike[] = []) {
    if (ports.length > 0) this.received.push(ports);
    else this.messages.push(message);
  }
  kill() {
    this.emit('exit', 0);
    return true;
  }
}

function fakeElectron(options: { locked?: boolean; locale?: string; userData: string; appPath: string }) {
  const app = new EventEmitter() as EventEmitter & Record<string, unknown>;
  const calls: string[] = [];
  const menus: MenuItemTemplate[][] = [];
  const forks: FakeUtilityProcess[] = [];
  const externals: string[] = [];
  const protocolClients: unknown[][] = [];
  const handlers = new Map<string, (request: ProtocolRequest) => Promise<Response>>();
  let permissionHandler: PermissionRequestHandler | undefined;
  let becomeReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    becomeReady = resolve;
  });
  const ipcMain = new EventEmitter();
  Object.assign(app, {
    isPackaged: false,
    requestSingleInstanceLock: () => options.locked !== false,
    quit: () => calls.push('quit'),
    whenReady: () => ready,
    getAppPath: () => options.appPath,
    getPath: () => options.userData,
    getLocale: () => options.locale ?? 'ru-RU',
    getVersion: () => '1.2.3',
    setAsDefaultProtocolClient: (...args: unknown[]) => {
      protocolClients.push(args);
      return true;
    },
  });
  const electron = {
    app,
    BrowserWindow: FakeBrowserWindow,
    Menu: {
      buildFromTemplate: (template: MenuItemTemplate[]) => template,
      setApplicationMenu: (menu: MenuItemTemplate[]) => menus.push(menu),
    },
    MessageChannelMain: class {
      port1 = new FakePort();
      port2 = new FakePort();
    },
    ipcMain,
    protocol: {
      registerSchemesAsPrivileged: () => calls.push('registerSchemesAsPrivileged'),
      handle: (scheme: string, handler: (request: ProtocolRequest) => Promise<Response>) =>
        handlers.set(scheme, handler),
    },
    screen: {
      getPrimaryDisplay: () => ({ id: 1, workArea: { x: 0, y: 0, width: 1920, height: 1040 } }),
      getAllDisplays: () => [{ id: 1, workArea: { x: 0, y: 0, width: 1920, height: 1040 } }],
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (handler: PermissionRequestHandler) => {
          permissionHandler = handler;
        },
      },
    },
    shell: {
      openExternal: async (url: string) => {
        externals.push(url);
      },
    },
    utilityProcess: {
      fork: (modulePath: string, args: string[] = []) => {
        const child = new FakeUtilityProcess(modulePath, args);
        forks.push(child);
        return child;
      },
    },
  };
  return {
    electron: electron as unknown as ElectronMain,
    app,
    ipcMain,
    calls,
    menus,
    forks,
    externals,
    protocolClients,
    handlers,
    permissionHandler: () => permissionHandler,
    becomeReady: () => becomeReady(),
  };
}

let dir: string;
let appPath: string;
let userData: string;

beforeEach(() => {
  FakeBrowserWindow.created = [];
  dir = mkdtempSync(path.join(tmpdir(), 'orbita-desktop-app-'));
  appPath = path.join(dir, 'app');
  userData = path.join(dir, 'userData');
  mkdirSync(path.join(appPath, 'renderer', 'dist'), { recursive: true });
  writeFileSync(path.join(appPath, 'renderer', 'dist', 'index.html'), '<title>Orbita</title>');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function start(overrides: Partial<DesktopAppOptions> = {}, fakeOptions: { locked?: boolean; locale?: string } = {}) {
  const fake = fakeElectron({ ...fakeOptions, userData, appPath });
  const logs: string[] = [];
  const desktop = startDesktopApp(fake.electron, {
    appPath,
    argv: ['/usr/lib/electron/electron', '.'],
    env: {},
    platform: 'linux',
    defaultApp: true,
    execPath: '/usr/lib/electron/electron',
    log: (message) => logs.push(message),
    ...overrides,
  });
  return { ...fake, desktop, logs };
}

async function started(
  overrides: Partial<DesktopAppOptions> = {},
  fakeOptions: { locked?: boolean; locale?: string } = {},
) {
  const running = start(overrides, fakeOptions);
  running.becomeReady();
  await running.desktop.ready;
  const window = FakeBrowserWindow.created[0];
  if (!window) throw new Error('no window');
  return { ...running, window };
}

const fromPage = (url = 'app://orbita/tasks') => ({ senderFrame: { url } });

describe('desktop app', () => {
  it('opens one window on app://orbita/ with a sandboxed, isolated page and the preload', async () => {
    const { window, handlers, calls } = await started({ env: { ORBITA_SERVER_URL: 'https://orbita.example.org/' } });
    expect(FakeBrowserWindow.created).toHaveLength(1);
    expect(window.loaded).toEqual(['app://orbita/']);
    expect(window.options.show).toBe(false);
    expect(window.options.webPreferences).toMatchObject({
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
      webviewTag: false,
      preload: path.join(appPath, BUNDLES.preload),
    });
    expect(window.options.webPreferences.additionalArguments).toEqual([
      '--orbita-server-url=https://orbita.example.org',
      '--orbita-app-version=1.2.3',
    ]);
    expect(calls[0]).toBe('registerSchemesAsPrivileged');
    const page = await handlers.get('app')?.({ url: `app://orbita/tasks/${TASK_ID}`, method: 'GET' });
    expect(await page?.text()).toContain('<title>Orbita</title>');
    window.emit('ready-to-show');
    expect(window.calls).toContain('show');
  });

  it('falls back to the saved server, then to localhost:3000, saying why it ignores a bad ORBITA_SERVER_URL', async () => {
    mkdirSync(userData, { recursive: true });
    writeFileSync(path.join(userData, 'settings.json'), JSON.stringify({ serverUrl: 'http://10.0.0.5:3000' }));
    const saved = await started();
    expect(saved.window.options.webPreferences.additionalArguments[0]).toBe('--orbita-server-url=http://10.0.0.5:3000');
    rmSync(userData, { recursive: true });
    FakeBrowserWindow.created = [];
    const fallback = await started({ env: { ORBITA_SERVER_URL: 'localhost:3000' } });
    expect(fallback.window.options.webPreferences.additionalArguments[0]).toBe(
      '--orbita-server-url=http://localhost:3000',
    );
    expect(fallback.logs).toEqual(['ORBITA_SERVER_URL is not an http(s) URL; using http://localhost:3000.']);
  });

  it('registers as the handler of orbita:// links, with the app folder when run as `electron .`', async () => {
    const dev = start();
    expect(dev.protocolClients).toEqual([['orbita', '/usr/lib/electron/electron', [path.resolve('.')]]]);
    const installed = start({ defaultApp: false, argv: ['/opt/Orbita/orbita'] });
    expect(installed.protocolClients).toEqual([['orbita']]);
  });

  it('ends a second launch at once: the running instance gets its link', () => {
    const second = start({ argv: ['/opt/Orbita/orbita', `orbita://tasks/${TASK_ID}`] }, { locked: false });
    expect(second.calls).toEqual(['registerSchemesAsPrivileged', 'quit']);
    second.becomeReady();
    expect(FakeBrowserWindow.created).toHaveLength(0);
  });

  it("focuses the window on a second launch and opens the second launch's link", async () => {
    const { app, window } = await started();
    window.webContents.load();
    window.minimized = true;
    app.emit('second-instance', {}, ['/opt/Orbita/orbita', `orbita://tasks/${TASK_ID}`], '/home/user');
    expect(window.calls).toEqual(['restore', 'show', 'focus']);
    expect(window.webContents.sent).toEqual([{ channel: 'orbita:deep-link', args: [`/tasks/${TASK_ID}`] }]);

    app.emit('second-instance', {}, ['/opt/Orbita/orbita', 'orbita://admin/delete-everything'], '/home/user');
    app.emit('second-instance', {}, ['/opt/Orbita/orbita'], '/home/user');
    expect(window.webContents.sent).toHaveLength(1);
    expect(window.calls.filter((call) => call === 'focus')).toHaveLength(3);
  });

  it('keeps a link that arrives while the page loads until it has loaded', async () => {
    const { app, window } = await started();
    app.emit('second-instance', {}, ['orbita', `orbita://tasks/${TASK_ID}`], '/');
    expect(window.webContents.sent).toEqual([]);
    window.webContents.load();
    expect(window.webContents.sent).toEqual([{ channel: 'orbita:deep-link', args: [`/tasks/${TASK_ID}`] }]);
  });

  it('opens the window at the link the app was started with (Windows, Linux)', async () => {
    const { window } = await started({ argv: ['/opt/Orbita/orbita', `orbita://tasks/${TASK_ID}`] });
    expect(window.loaded).toEqual([`app://orbita/tasks/${TASK_ID}`]);
  });

  it('opens a link macOS sends before the app is ready, and ignores unknown ones', async () => {
    const running = start({ platform: 'darwin', argv: ['/Applications/Orbita.app/Contents/MacOS/Orbita'] });
    let prevented = 0;
    const event = { preventDefault: () => (prevented += 1) };
    running.app.emit('open-url', event, `orbita://tasks/${TASK_ID}`);
    running.app.emit('open-url', event, 'orbita://somewhere-else');
    running.becomeReady();
    await running.desktop.ready;
    expect(prevented).toBe(2);
    expect(FakeBrowserWindow.created[0]?.loaded).toEqual([`app://orbita/tasks/${TASK_ID}`]);
  });

  it('forks the replica with its data directory and gives the page a port on each load, and when it asks', async () => {
    const { window, forks, ipcMain } = await started();
    expect(forks).toHaveLength(1);
    expect(forks[0]?.modulePath).toBe(path.join(appPath, BUNDLES.replicaProcess));
    expect(forks[0]?.args).toEqual([path.join(userData, 'replica')]);
    window.webContents.load();
    window.webContents.load();
    expect(window.webContents.posted.map((post) => post.channel)).toEqual([
      'orbita:replica-port',
      'orbita:replica-port',
    ]);
    expect(forks[0]?.received).toHaveLength(2);

    // A page that took its port asks for another (a new session): only the app's own pages are heard.
    ipcMain.emit('orbita:replica-port-request', { ...fromPage(), sender: window.webContents });
    ipcMain.emit('orbita:replica-port-request', { ...fromPage('https://evil.example/'), sender: window.webContents });
    expect(window.webContents.posted.map((post) => post.channel)).toHaveLength(3);
    expect(forks[0]?.received).toHaveLength(3);
  });

  it('starts the menus in the OS language and follows the language the page reports', async () => {
    const { menus, ipcMain } = await started({}, { locale: 'ru-RU' });
    const topLabels = () => menus.at(-1)?.map((item) => item.label);
    expect(topLabels()).toEqual(['Файл', 'Правка', 'Вид', 'Окно', 'Справка']);
    ipcMain.emit('orbita:set-language', fromPage(), 'en');
    expect(topLabels()).toEqual(['File', 'Edit', 'View', 'Window', 'Help']);
    expect(JSON.parse(readFileSync(path.join(userData, 'settings.json'), 'utf8'))).toEqual({ language: 'en' });

    FakeBrowserWindow.created = [];
    const restarted = await started({}, { locale: 'ru-RU' });
    expect(restarted.menus[0]?.map((item) => item.label)[0]).toBe('File');
  });

  it('takes bridge messages only from its own pages and only with valid values', async () => {
    const { menus, ipcMain, externals } = await started({}, { locale: 'en-US' });
    const count = menus.length;
    ipcMain.emit('orbita:set-language', fromPage('https://evil.example/'), 'ru');
    ipcMain.emit('orbita:set-language', { senderFrame: null }, 'ru');
    ipcMain.emit('orbita:set-language', fromPage(), 'de');
    expect(menus).toHaveLength(count);

    ipcMain.emit('orbita:open-external', fromPage(), 'https://example.org/docs');
    ipcMain.emit('orbita:open-external', fromPage(), 'file:///etc/passwd');
    ipcMain.emit('orbita:open-external', fromPage('https://evil.example/'), 'https://example.org/other');
    expect(externals).toEqual(['https://example.org/docs']);
  });

  it('serves the configured source’s tiles through the backend’s tile cache, lets its pages reach that origin only, and remembers it', async () => {
    const { handlers, ipcMain, forks } = await started({ env: { ORBITA_SERVER_URL: 'https://orbita.example.org' } });
    const app = handlers.get('app') as (request: ProtocolRequest) => Promise<Response>;
    const policy = async () =>
      (await app({ url: 'app://orbita/map', method: 'GET' })).headers.get('content-security-policy') ?? '';
    const tile = 'app://orbita/_tiles/https://tiles.example.org/region.pmtiles';
    expect((await app({ url: tile, method: 'GET' })).status).toBe(403);
    expect(await policy()).not.toContain('tiles.example.org');

    const source = { kind: 'pmtiles', url: 'https://tiles.example.org/region.pmtiles' };
    ipcMain.emit('orbita:set-tile-source', fromPage('https://evil.example/'), source);
    ipcMain.emit('orbita:set-tile-source', fromPage(), { kind: 'pmtiles', url: 'file:///etc/passwd' });
    expect(await policy()).not.toContain('tiles.example.org');
    ipcMain.emit('orbita:set-tile-source', fromPage(), source);
    const connect = (await policy()).split('; ').find((directive) => directive.startsWith('connect-src'));
    expect(connect).toBe(
      "connect-src 'self' https://orbita.example.org wss://orbita.example.org https://tiles.example.org",
    );
    expect(await policy()).toContain("worker-src 'self' blob:");

    // A byte range of the archive: asked of the backend process, answered as 206.
    const child = forks[0] as FakeUtilityProcess;
    const pending = app({ url: tile, method: 'GET', headers: new Headers({ Range: 'bytes=0-3' }) });
    const asked = child.messages.at(-1) as { type: string; requestId: number; url: string; range?: string };
    expect(asked).toMatchObject({ type: 'orbita:tile-request', url: source.url, range: 'bytes=0-3' });
    child.emit('message', {
      type: 'orbita:tile-answer',
      requestId: asked.requestId,
      data: new Uint8Array([80, 77, 84, 105]),
      contentType: 'application/octet-stream',
    });
    const answered = await pending;
    expect(answered.status).toBe(206);
    expect(answered.headers.get('content-range')).toBe('bytes 0-3/*');
    expect(Buffer.from(await answered.arrayBuffer()).toString()).toBe('PMTi');

    // Neither the network nor the cache has it: 404. Another origin is never fetched.
    const missing = app({ url: `${tile}?v=2`, method: 'GET' });
    const second = child.messages.at(-1) as { requestId: number };
    child.emit('message', { type: 'orbita:tile-answer', requestId: second.requestId });
    expect((await missing).status).toBe(404);
    const before = child.messages.length;
    for (const other of [
      'app://orbita/_tiles/https://tile.openstreetmap.org/1/0/0.png',
      'app://orbita/_tiles/file:///etc/passwd',
    ]) {
      expect((await app({ url: other, method: 'GET' })).status).toBe(403);
    }
    expect(child.messages).toHaveLength(before);

    // The next start knows the source before the page says it.
    expect(JSON.parse(readFileSync(path.join(userData, 'settings.json'), 'utf8')).tileSource).toEqual(source);
    FakeBrowserWindow.created = [];
    const again = await started({ env: { ORBITA_SERVER_URL: 'https://orbita.example.org' } });
    const page = await again.handlers.get('app')?.({ url: 'app://orbita/', method: 'GET' });
    expect(page?.headers.get('content-security-policy')).toContain('https://tiles.example.org');
    ipcMain.emit('orbita:set-tile-source', fromPage(), null);
    again.ipcMain.emit('orbita:set-tile-source', fromPage(), null);
    expect(JSON.parse(readFileSync(path.join(userData, 'settings.json'), 'utf8')).tileSource).toBeUndefined();
  });

  it('guards the window: new windows denied, web links to the browser', async () => {
    const { window, externals } = await started();
    expect(window.webContents.openHandler?.({ url: 'https://example.org/' })).toEqual({ action: 'deny' });
    expect(externals).toEqual(['https://example.org/']);
  });

  it('refuses permissions to anything but its pages', async () => {
    const { permissionHandler } = await started();
    let granted: boolean | undefined;
    permissionHandler()?.({}, 'notifications', (answer) => (granted = answer), { requestingUrl: 'https://x.example/' });
    expect(granted).toBe(false);
  });

  it('quits when the window is closed except on macOS, where the dock reopens it', async () => {
    const linux = await started();
    linux.app.emit('window-all-closed');
    expect(linux.calls).toContain('quit');

    FakeBrowserWindow.created = [];
    const mac = await started({ platform: 'darwin' });
    mac.window.emit('closed');
    mac.app.emit('window-all-closed');
    expect(mac.calls).not.toContain('quit');
    mac.app.emit('activate');
    expect(FakeBrowserWindow.created).toHaveLength(2);
    expect(mac.desktop.window()?.window).toBe(FakeBrowserWindow.created[1]);
  });

  it('lets the replica process save before the app quits, and does not restart it', async () => {
    const { app, forks, calls } = await started();
    const exits: number[] = [];
    forks[0]?.on('exit', (code: number) => exits.push(code));
    vi.useFakeTimers();
    try {
      let prevented = false;
      app.emit('will-quit', { preventDefault: () => (prevented = true) });
      expect(prevented).toBe(true);
      expect(forks[0]?.messages).toEqual([REPLICA_STOP_MESSAGE]);
      expect(calls.filter((call) => call === 'quit')).toEqual([]);
      // Saved: the process exits, and the app quits for real.
      forks[0]?.emit('exit', 0);
      await vi.advanceTimersByTimeAsync(0);
      expect(calls.filter((call) => call === 'quit')).toEqual(['quit']);
      let preventedAgain = false;
      app.emit('will-quit', { preventDefault: () => (preventedAgain = true) });
      expect(preventedAgain).toBe(false);
      vi.advanceTimersByTime(60_000);
      expect(forks).toHaveLength(1);
      expect(exits).toEqual([0]);
    } finally {
      vi.useRealTimers();
    }
  });
});
