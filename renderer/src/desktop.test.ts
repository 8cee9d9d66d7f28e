import type { AppBridge } from '@shared/desktop/bridge';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { desktopBridge, desktopReplicaPort, onReplacedReplicaPort } from './desktop';

type Listener = (event: MessageEvent) => void;

/** A page window whose postMessage delivers asynchronously, as a browser's does. */
class FakeWindow {
  listeners = new Set<Listener>();
  orbita?: AppBridge;
  addEventListener(_type: 'message', listener: Listener) {
    this.listeners.add(listener);
  }
  removeEventListener(_type: 'message', listener: Listener) {
    this.listeners.delete(listener);
  }
  deliver(data: unknown, ports: MessagePort[], source: unknown = this) {
    setTimeout(() => {
      for (const listener of [...this.listeners]) listener({ data, ports, source } as unknown as MessageEvent);
    });
  }
}

function fakeBridge(onRequest: () => void): AppBridge {
  return {
    platform: 'linux',
    appVersion: '1.2.3',
    serverUrl: 'http://localhost:3000',
    setLanguage: () => {},
    onDeepLink: () => () => {},
    openExternal: () => {},
    requestReplicaPort: onRequest,
    setTileSource: () => {},
  };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('renderer side of the desktop bridge', () => {
  it('finds no bridge and no replica port in a plain browser', () => {
    expect(desktopBridge()).toBeUndefined();
    expect(desktopReplicaPort()).toBeUndefined();
    vi.stubGlobal('window', new FakeWindow());
    expect(desktopBridge()).toBeUndefined();
    expect(desktopReplicaPort()).toBeUndefined();
  });

  it('reads the bridge the preload exposed as window.orbita', () => {
    const page = new FakeWindow();
    page.orbita = fakeBridge(() => {});
    vi.stubGlobal('window', page);
    expect(desktopBridge()).toBe(page.orbita);
  });

  it('asks for the replica port and resolves with it once the preload posts it, as a working port', async () => {
    const page = new FakeWindow();
    const channel = new MessageChannel();
    let requests = 0;
    page.orbita = fakeBridge(() => {
      requests += 1;
      // What the preload does: other messages may come first; only its own carries the port.
      page.deliver('orbita:replica-port', [channel.port1 as unknown as MessagePort], {});
      page.deliver('something else', [channel.port1 as unknown as MessagePort]);
      page.deliver('orbita:replica-port', []);
      page.deliver('orbita:replica-port', [channel.port2 as unknown as MessagePort]);
    });
    vi.stubGlobal('window', page);

    const port = await desktopReplicaPort();
    expect(requests).toBe(1);
    if (!port) throw new Error('no port');
    const received = new Promise((resolve) => port.onMessage(resolve));
    channel.port1.postMessage({ hello: 'replica' });
    expect(await received).toEqual({ hello: 'replica' });
    const replies = new Promise((resolve) => channel.port1.addEventListener('message', (event) => resolve(event.data)));
    port.postMessage({ hello: 'renderer' });
    expect(await replies).toEqual({ hello: 'renderer' });
    port.close?.();
    channel.port1.close();
  });

  it('hands a port posted unasked (the replica process restarted) to the listeners, not to a request', async () => {
    const page = new FakeWindow();
    const channels = [new MessageChannel(), new MessageChannel(), new MessageChannel()];
    const [first, restarted, later] = channels.map((channel) => channel.port1 as unknown as MessagePort);
    page.orbita = fakeBridge(() => page.deliver('orbita:replica-port', [first as MessagePort]));
    vi.stubGlobal('window', page);

    const asked = await desktopReplicaPort();
    const replaced: unknown[] = [];
    const stop = onReplacedReplicaPort((port) => replaced.push(port));
    page.deliver('orbita:replica-port', [restarted as MessagePort]);
    await vi.waitFor(() => expect(replaced).toHaveLength(1), { timeout: 10_000 });
    // The port works: what the process sends arrives.
    const port = replaced[0] as NonNullable<typeof asked>;
    const received = new Promise((resolve) => port.onMessage(resolve));
    channels[1]?.port2.postMessage('from the restarted process');
    expect(await received).toBe('from the restarted process');
    // Closing a port tells its listeners (the remote storage stops waiting for answers).
    let closed = 0;
    port.onClose?.(() => {
      closed += 1;
    });
    port.close?.();
    expect(closed).toBe(1);

    stop();
    page.deliver('orbita:replica-port', [later as MessagePort]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(replaced).toHaveLength(1);
    asked?.close?.();
    for (const channel of channels) channel.port2.close();
  });
});
