import { type ContextBridgeLike, type IpcRendererLike, installPreload } from './bridge';

// Required rather than imported: a sandboxed preload is one CommonJS file whose `require` knows
// only 'electron', and the shell is typed by its own slices of Electron's API.
const electron = require('electron') as { contextBridge: ContextBridgeLike; ipcRenderer: IpcRendererLike };

installPreload(electron, process, window);
