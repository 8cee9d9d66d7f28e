import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { DESKTOP_CHANNELS } from '@shared/desktop/bridge';
import { emitterPort } from '@shared/message-port';
import { build } from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';
import { hostReplicaStorage } from '../../electron/backend/replica-host';

let shellScript: Promise<string> | undefined;

/** The page-side shell (`test/e2e/desktop-shell.page.ts`) bundled for the page, once per test file. */
function bundledShell(): Promise<string> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  shellScript ??= build({
    entryPoints: [path.join(root, 'test/e2e/desktop-shell.page.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    tsconfig: path.join(root, 'tsconfig.json'),
    logLevel: 'silent',
  }).then((result) => result.outputFiles[0]?.text ?? '');
  return shellScript;
}

/** The page-side shell (`window.desktopShell`); page functions name it inline, as they run in the page. */
type ShellWindow = {
  desktopShell: { hand(id: number): number[]; deliver(id: number, message: unknown): void; cut(id: number): void };
};

/**
 * The desktop app around one page in Chromium: the real preload's bridge in the page, and this test
 * playing Electron's main process and the replica process — a replica port handed at each page load
 * and whenever the page asks, each served by the replica host over SQLite files in
 * `databaseDirectory`; the ports of a document the page has left close when the next is handed.
 * `crash()` ends the replica process as a crash would, and hands the page the restarted one's port
 * unasked, as main does.
 */
export function desktopShell(databaseDirectory: string, host: { discardWaitMs?: number } = {}) {
  let page: Page | undefined;
  let next = 0;
  const ports = new Map<number, MessagePort>();
  /** The ports whose page end has been given to a document. */
  const handed = new Set<number>();
  const hand = async () => {
    if (!page) return;
    const id = ++next;
    const channel = new MessageChannel();
    hostReplicaStorage(emitterPort(channel.port2), { databaseDirectory, ...host });
    const on = page;
    channel.port1.on('message', (message: unknown) => {
      on.evaluate(([i, m]) => (window as unknown as ShellWindow).desktopShell.deliver(i, m), [
        id,
        message,
      ] as const).catch(() => undefined);
    });
    ports.set(id, channel.port1);
    const held = await on.evaluate((i) => (window as unknown as ShellWindow).desktopShell.hand(i), id);
    // The ports handed to a document the page has left are gone with it: their replica-process ends
    // close, as Electron's do when the window's end is destroyed, and the host closes what they left
    // open. (A port still being handed is not one of them.)
    for (const other of handed) {
      if (held.includes(other)) continue;
      ports.get(other)?.close();
      ports.delete(other);
      handed.delete(other);
    }
    handed.add(id);
  };
  return {
    /** Installs the shell in `context`, whose next page is the app's window. */
    async install(context: BrowserContext) {
      await context.addInitScript({ content: await bundledShell() });
      await context.exposeBinding('desktopShellIpc', (_source, channel: string) => {
        if (channel === DESKTOP_CHANNELS.replicaPortRequest) void hand().catch(() => undefined);
      });
      await context.exposeBinding('desktopShellSend', (_source, id: number, message: unknown) => {
        ports.get(id)?.postMessage(message);
      });
      context.on('page', (created) => {
        page ??= created;
        // Main hands the window a port at every page load.
        created.on('domcontentloaded', () => void hand().catch(() => undefined));
      });
    },
    /** Ports handed to the page so far. */
    handed: () => next,
    /**
     * The replica process dies (its ports close) and is started again — after `whileDown`, say a
     * damage to its files: the page gets a new port, unasked.
     */
    async crash(whileDown?: () => Promise<void>) {
      await this.close();
      await whileDown?.();
      await hand();
    },
    /** Closes every port handed (the replica process is gone). */
    async close() {
      for (const [id, port] of ports) {
        port.close();
        await page?.evaluate((i) => (window as unknown as ShellWindow).desktopShell.cut(i), id).catch(() => undefined);
      }
      ports.clear();
      handed.clear();
    },
  };
}
