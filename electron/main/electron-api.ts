/**
 * The slices of Electron's main-process API this shell uses, with Electron 40's signatures. They
 * are declared here so the shell builds and is tested without Electron installed: each module takes
 * what it needs of them as arguments, and only `index.ts` hands it the real `electron` module.
 */

export interface Rectangle {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface MessagePortMainLike {
  postMessage(message: unknown): void;
  start(): void;
  close(): void;
}

export interface MessageChannelMainLike {
  port1: MessagePortMainLike;
  port2: MessagePortMainLike;
}

export interface PreventableEvent {
  preventDefault(): void;
}

export interface WebContentsLike {
  send(channel: string, ...args: unknown[]): void;
  postMessage(channel: string, message: unknown, transfer?: MessagePortMainLike[]): void;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
  on(event: 'will-navigate' | 'will-redirect', listener: (event: PreventableEvent, url: string) => void): unknown;
  on(event: 'did-start-loading' | 'did-finish-load' | 'destroyed', listener: () => void): unknown;
  isDestroyed(): boolean;
}

export interface WebPreferences {
  preload: string;
  contextIsolation: boolean;
  nodeIntegration: boolean;
  sandbox: boolean;
  webviewTag: boolean;
  /** Appended to the renderer's `process.argv`, which the sandboxed preload can read. */
  additionalArguments: string[];
}

export interface BrowserWindowOptions {
  x?: number;
  y?: number;
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
  show: boolean;
  title: string;
  backgroundColor: string;
  webPreferences: WebPreferences;
}

export interface BrowserWindowLike {
  readonly webContents: WebContentsLike;
  loadURL(url: string): Promise<void>;
  show(): void;
  focus(): void;
  restore(): void;
  maximize(): void;
  isMinimized(): boolean;
  isMaximized(): boolean;
  isDestroyed(): boolean;
  /** The bounds the window has when neither maximized nor minimized. */
  getNormalBounds(): Rectangle;
  on(event: 'resize' | 'move' | 'maximize' | 'unmaximize' | 'close' | 'closed', listener: () => void): unknown;
  once(event: 'ready-to-show', listener: () => void): unknown;
}

export type BrowserWindowConstructor = new (options: BrowserWindowOptions) => BrowserWindowLike;

export interface UtilityProcessLike {
  postMessage(message: unknown, transfer?: MessagePortMainLike[]): void;
  on(event: 'exit', listener: (code: number) => void): unknown;
  /** A message the process posted (`process.parentPort.postMessage`). */
  on(event: 'message', listener: (message: unknown) => void): unknown;
  kill(): boolean;
}

export interface UtilityProcessModule {
  fork(
    modulePath: string,
    args?: string[],
    options?: { serviceName?: string; stdio?: 'inherit' | 'pipe' | 'ignore' },
  ): UtilityProcessLike;
}

export interface AppLike {
  readonly isPackaged: boolean;
  requestSingleInstanceLock(): boolean;
  quit(): void;
  whenReady(): Promise<void>;
  /** The app's folder (where its package.json is). */
  getAppPath(): string;
  getPath(name: 'userData'): string;
  getLocale(): string;
  getVersion(): string;
  setAsDefaultProtocolClient(protocol: string, path?: string, args?: string[]): boolean;
  on(event: 'second-instance', listener: (event: unknown, argv: string[], workingDirectory: string) => void): unknown;
  on(event: 'open-url', listener: (event: PreventableEvent, url: string) => void): unknown;
  on(event: 'window-all-closed' | 'activate', listener: () => void): unknown;
  on(event: 'will-quit', listener: (event: PreventableEvent) => void): unknown;
}

export interface CustomScheme {
  scheme: string;
  privileges: {
    standard?: boolean;
    secure?: boolean;
    supportFetchAPI?: boolean;
    corsEnabled?: boolean;
    stream?: boolean;
    codeCache?: boolean;
  };
}

/** What a protocol handler reads of a request. */
export interface ProtocolRequest {
  url: string;
  method: string;
  /** The request's headers (a tile archive's byte range). */
  headers?: { get(name: string): string | null };
}

export interface ProtocolModule {
  registerSchemesAsPrivileged(schemes: CustomScheme[]): void;
  handle(scheme: string, handler: (request: ProtocolRequest) => Promise<Response>): void;
}

/** A menu item as `Menu.buildFromTemplate` takes it (the fields this shell sets). */
export interface MenuItemTemplate {
  label?: string;
  role?: string;
  type?: 'separator' | 'submenu';
  accelerator?: string;
  submenu?: MenuItemTemplate[];
  click?: () => void;
}

export interface MenuModule {
  buildFromTemplate(template: MenuItemTemplate[]): unknown;
  setApplicationMenu(menu: unknown): void;
}

export interface IpcMainEventLike {
  /** The frame that sent the message; null once it navigated away or was destroyed. */
  readonly senderFrame: { url: string } | null;
  /** The page that sent it. */
  readonly sender: WebContentsLike;
}

export interface IpcMainLike {
  on(channel: string, listener: (event: IpcMainEventLike, ...args: unknown[]) => void): unknown;
}

export interface DisplayLike {
  id: number;
  workArea: Rectangle;
}

export interface ScreenLike {
  getPrimaryDisplay(): DisplayLike;
  getAllDisplays(): DisplayLike[];
}

export interface ShellLike {
  openExternal(url: string): Promise<void>;
}

export type PermissionRequestHandler = (
  webContents: unknown,
  permission: string,
  callback: (granted: boolean) => void,
  details: { requestingUrl?: string },
) => void;

export interface SessionLike {
  setPermissionRequestHandler(handler: PermissionRequestHandler): void;
}

/** Everything the shell takes from the `electron` module. */
export interface ElectronMain {
  app: AppLike;
  BrowserWindow: BrowserWindowConstructor;
  Menu: MenuModule;
  MessageChannelMain: new () => MessageChannelMainLike;
  ipcMain: IpcMainLike;
  protocol: ProtocolModule;
  screen: ScreenLike;
  session: { defaultSession: SessionLike };
  shell: ShellLike;
  utilityProcess: UtilityProcessModule;
}
