import { startDesktopApp } from './desktop-app';
import type { ElectronMain } from './electron-api';

// Required rather than imported: the shell is typed by its own slices of Electron's API
// (electron-api.ts), so it builds whether or not Electron and its types are installed.
const electron = require('electron') as ElectronMain;

startDesktopApp(electron, {
  appPath: electron.app.getAppPath(),
  argv: process.argv,
  env: process.env,
  platform: process.platform,
  defaultApp: (process as { defaultApp?: boolean }).defaultApp === true,
  execPath: process.execPath,
});
