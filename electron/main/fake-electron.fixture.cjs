// A stand-in for the `electron` module, so the bundled main process can run under Node in tests:
// it records what the app asks of Electron and prints it once the window has loaded.
const { EventEmitter } = require('node:events');

const report = { calls: [], windows: [], forks: [], menus: [], protocolClients: [] };
const finish = () =>
  setImmediate(() => {
    process.stdout.write(JSON.stringify(report));
    process.exit(0);
  });

const app = new EventEmitter();
Object.assign(app, {
  isPackaged: true,
  requestSingleInstanceLock: () => {
    report.calls.push('requestSingleInstanceLock');
    return true;
  },
  quit: () => report.calls.push('quit'),
  whenReady: () => Promise.resolve(),
  getAppPath: () => process.env.FAKE_APP_PATH,
  getPath: () => process.env.FAKE_USER_DATA,
  getLocale: () => 'en-US',
  getVersion: () => '9.9.9',
  setAsDefaultProtocolClient: (...args) => report.protocolClients.push(args),
});

class WebContents extends EventEmitter {
  send() {}
  postMessage() {}
  setWindowOpenHandler() {}
  isDestroyed() {
    return false;
  }
}

class BrowserWindow extends EventEmitter {
  constructor(options) {
    super();
    this.webContents = new WebContents();
    this.record = { options, loaded: [] };
    report.windows.push(this.record);
  }
  loadURL(url) {
    this.record.loaded.push(url);
    finish();
    return Promise.resolve();
  }
  show() {}
  focus() {}
  restore() {}
  maximize() {}
  isMinimized() {
    return false;
  }
  isMaximized() {
    return false;
  }
  isDestroyed() {
    return false;
  }
  getNormalBounds() {
    return { x: 0, y: 0, width: 1280, height: 800 };
  }
}

const display = { id: 1, workArea: { x: 0, y: 0, width: 1920, height: 1080 } };

module.exports = {
  app,
  BrowserWindow,
  Menu: {
    buildFromTemplate: (template) => template,
    setApplicationMenu: (menu) => report.menus.push(menu.map((item) => item.label)),
  },
  MessageChannelMain: class {
    port1 = { postMessage() {}, start() {}, close() {} };
    port2 = { postMessage() {}, start() {}, close() {} };
  },
  ipcMain: new EventEmitter(),
  protocol: {
    registerSchemesAsPrivileged: (schemes) => report.calls.push(`registerSchemesAsPrivileged:${schemes[0].scheme}`),
    handle: (scheme) => report.calls.push(`handle:${scheme}`),
  },
  screen: { getPrimaryDisplay: () => display, getAllDisplays: () => [display] },
  session: { defaultSession: { setPermissionRequestHandler: () => report.calls.push('setPermissionRequestHandler') } },
  shell: { openExternal: async () => {} },
  utilityProcess: {
    fork: (modulePath, args) => {
      report.forks.push({ modulePath, args });
      const child = new EventEmitter();
      child.postMessage = () => {};
      child.kill = () => true;
      return child;
    },
  },
};
