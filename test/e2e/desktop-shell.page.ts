/**
 * The desktop shell's preload, as the window of the desktop app runs it, for a page in Chromium:
 * the real bridge (`createBridge`) over an `ipcRenderer` whose other side is the test, playing
 * Electron's main process. Each replica port main hands is a `MessageChannel` made here: the page
 * gets one end through the preload, and the other end's messages are relayed to and from the test,
 * which serves them with the replica host (`hostReplicaStorage`) as the replica process would.
 * Bundled by the test and run before the page's own scripts (`addInitScript`).
 */
import { createBridge, type IpcRendererEventLike } from '../../electron/preload/bridge';

declare global {
  interface Window {
    orbita?: unknown;
    /**
     * Test → page: main hands the page the replica port `id` (answering the ports this document
     * holds); messages arriving on it from the replica; the replica process's end closed.
     */
    desktopShell: { hand(id: number): number[]; deliver(id: number, message: unknown): void; cut(id: number): void };
    /** Page → test: an IPC message to main. */
    desktopShellIpc(channel: string, ...args: unknown[]): void;
    /** Page → test: a message for the replica process on port `id`. */
    desktopShellSend(id: number, message: unknown): void;
  }
}

const listeners = new Map<string, (event: IpcRendererEventLike, ...args: unknown[]) => void>();
const relayed = new Map<number, MessagePort>();

window.desktopShell = {
  hand(id) {
    const channel = new MessageChannel();
    relayed.set(id, channel.port1);
    channel.port1.onmessage = (event) => window.desktopShellSend(id, event.data);
    listeners.get('orbita:replica-port')?.({ ports: [channel.port2] });
    return [...relayed.keys()];
  },
  deliver(id, message) {
    relayed.get(id)?.postMessage(message);
  },
  cut(id) {
    relayed.get(id)?.close();
    relayed.delete(id);
  },
};

window.orbita = createBridge(
  {
    on: (channel, listener) => listeners.set(channel, listener),
    send: (channel, ...args) => window.desktopShellIpc(channel, ...args),
  },
  { platform: 'linux', argv: [`--orbita-server-url=${location.origin}`, '--orbita-app-version=0.0.0-test'] },
  window,
);
