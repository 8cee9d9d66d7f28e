import { EventEmitter } from 'node:events';
import { APP_BRIDGE_KEYS, type AppBridge } from '@shared/desktop/bridge';
import { describe, expect, it } from 'vitest';
import { type IpcRendererLike, installPreload, type PageWindow } from './bridge';

const TASK_ID = '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b';

class FakeIpcRenderer extends EventEmitter {
  sent: { channel: string; args: unknown[] }[] = [];
  send(channel: string, ...args: unknown[]) {
    this.sent.push({ channel, args });
  }
  /** The main process sends on `channel`. */
  receive(channel: string, ports: unknown[], ...args: unknown[]) {
    this.emit(channel, { ports, sender: this }, ...args);
  }
}

class FakePort {
  closed = false;
  constructor(readonly name: string) {}
  close() {
    this.closed = true;
  }
}

function preload(argv: string[] = ['--orbita-server-url=http://10.0.0.5:3000', '--orbita-app-version=1.2.3']) {
  const ipcRenderer = new FakeIpcRenderer();
  const exposed: { key: string; api: unknown }[] = [];
  const posted: { message: unknown; targetOrigin: string; transfer: unknown[] }[] = [];
  const page: PageWindow = {
    postMessage: (message, targetOrigin, transfer) => posted.push({ message, targetOrigin, transfer }),
  };
  installPreload(
    {
      contextBridge: { exposeInMainWorld: (key, api) => exposed.push({ key, api }) },
      ipcRenderer: ipcRenderer as unknown as IpcRendererLike,
    },
    { argv: ['/opt/Orbita/orbita', '--type=renderer', ...argv], platform: 'linux' },
    page,
  );
  const first = exposed[0];
  if (!first) throw new Error('nothing exposed');
  return {
    ipcRenderer,
    exposed,
    posted,
    bridge: first.api as Record<string, unknown> & AppBridge,
  };
}

describe('preload bridge', () => {
  it('exposes exactly the AppBridge keys as window.orbita, and nothing of Electron', () => {
    const { exposed, bridge, ipcRenderer } = preload();
    expect(exposed.map((entry) => entry.key)).toEqual(['orbita']);
    const keys = Object.keys(bridge).sort();
    expect(keys).toEqual([...APP_BRIDGE_KEYS].sort());
    expect(keys).toEqual(
      [
        'appVersion',
        'onDeepLink',
        'openExternal',
        'platform',
        'requestReplicaPort',
        'serverUrl',
        'setLanguage',
        'setTileSource',
      ].sort(),
    );
    for (const value of Object.values(bridge)) {
      expect(value).not.toBe(ipcRenderer);
      expect(['string', 'function']).toContain(typeof value);
    }
  });

  it('reads the platform, version and server URL the main process passed', () => {
    const { bridge } = preload();
    expect(bridge.platform).toBe('linux');
    expect(bridge.appVersion).toBe('1.2.3');
    expect(bridge.serverUrl).toBe('http://10.0.0.5:3000');
    const bare = preload([]).bridge;
    expect(bare.serverUrl).toBe('http://localhost:3000');
    expect(bare.appVersion).toBe('');
  });

  it('sends a valid language to the main process and refuses anything else', () => {
    const { bridge, ipcRenderer } = preload();
    bridge.setLanguage('en');
    expect(ipcRenderer.sent).toEqual([{ channel: 'orbita:set-language', args: ['en'] }]);
    for (const wrong of ['de', 'EN', '', null, { toString: () => 'en' }]) {
      expect(() => bridge.setLanguage(wrong as never)).toThrow(TypeError);
    }
    expect(ipcRenderer.sent).toHaveLength(1);
  });

  it('tells the main process the organization’s tile source (or none) and refuses anything but http(s)', () => {
    const { bridge, ipcRenderer } = preload();
    bridge.setTileSource({ kind: 'pmtiles', url: 'https://tiles.example.org/region.pmtiles' });
    bridge.setTileSource(null);
    for (const wrong of [
      { kind: 'raster', url: 'file:///etc/passwd' },
      { kind: 'vector', url: 'https://tiles.example.org/{z}/{x}/{y}.pbf' },
      'https://tiles.example.org/{z}/{x}/{y}.png',
    ]) {
      expect(() => bridge.setTileSource(wrong as never)).toThrow(TypeError);
    }
    expect(ipcRenderer.sent).toEqual([
      {
        channel: 'orbita:set-tile-source',
        args: [{ kind: 'pmtiles', url: 'https://tiles.example.org/region.pmtiles' }],
      },
      { channel: 'orbita:set-tile-source', args: [null] },
    ]);
  });

  it('opens only http(s) URLs outside the app', () => {
    const { bridge, ipcRenderer } = preload();
    bridge.openExternal('https://example.org/help');
    for (const wrong of ['file:///etc/passwd', 'javascript:alert(1)', '/tasks', 'smb://host/share', 42]) {
      expect(() => bridge.openExternal(wrong as never)).toThrow(TypeError);
    }
    expect(ipcRenderer.sent).toEqual([{ channel: 'orbita:open-external', args: ['https://example.org/help'] }]);
  });

  it('delivers deep links to listeners until they unsubscribe, dropping unknown paths', () => {
    const { bridge, ipcRenderer } = preload();
    const first: string[] = [];
    const second: string[] = [];
    const stopFirst = bridge.onDeepLink((path) => first.push(path));
    bridge.onDeepLink((path) => second.push(path));
    ipcRenderer.receive('orbita:deep-link', [], `/tasks/${TASK_ID}`);
    ipcRenderer.receive('orbita:deep-link', [], 'https://evil.example/');
    ipcRenderer.receive('orbita:deep-link', [], '/nowhere');
    ipcRenderer.receive('orbita:deep-link', [], { path: '/tasks' });
    stopFirst();
    ipcRenderer.receive('orbita:deep-link', [], '/settings');
    expect(first).toEqual([`/tasks/${TASK_ID}`]);
    expect(second).toEqual([`/tasks/${TASK_ID}`, '/settings']);
    expect(() => bridge.onDeepLink('not a function' as never)).toThrow(TypeError);
  });

  it('keeps deep links that arrive before the page subscribes for its first listener', () => {
    const { bridge, ipcRenderer } = preload();
    ipcRenderer.receive('orbita:deep-link', [], `/tasks/${TASK_ID}`);
    const received: string[] = [];
    bridge.onDeepLink((path) => received.push(path));
    const later: string[] = [];
    bridge.onDeepLink((path) => later.push(path));
    expect(received).toEqual([`/tasks/${TASK_ID}`]);
    expect(later).toEqual([]);
  });

  it('holds the replica port until the page asks, then posts it to the page', () => {
    const { bridge, ipcRenderer, posted } = preload();
    const port = new FakePort('first');
    ipcRenderer.receive('orbita:replica-port', [port]);
    expect(posted).toEqual([]);
    bridge.requestReplicaPort();
    expect(posted).toEqual([{ message: 'orbita:replica-port', targetOrigin: '*', transfer: [port] }]);
    bridge.requestReplicaPort();
    expect(posted).toHaveLength(1);
  });

  it('posts a port as soon as it arrives when the page asked first', () => {
    const { bridge, ipcRenderer, posted } = preload();
    bridge.requestReplicaPort();
    const port = new FakePort('first');
    ipcRenderer.receive('orbita:replica-port', [port]);
    expect(posted.map((post) => post.transfer)).toEqual([[port]]);
  });

  it('replaces a held port with a newer one (the replica restarted) and closes the old', () => {
    const { bridge, ipcRenderer, posted } = preload();
    const old = new FakePort('old');
    const fresh = new FakePort('fresh');
    ipcRenderer.receive('orbita:replica-port', [old]);
    ipcRenderer.receive('orbita:replica-port', [fresh]);
    ipcRenderer.receive('orbita:replica-port', []);
    bridge.requestReplicaPort();
    expect(old.closed).toBe(true);
    expect(posted.map((post) => post.transfer)).toEqual([[fresh]]);
  });

  it('passes every later port on at once, for the page to take as its restarted replica process', () => {
    const { bridge, ipcRenderer, posted } = preload();
    const first = new FakePort('first');
    ipcRenderer.receive('orbita:replica-port', [first]);
    bridge.requestReplicaPort();
    // The replica process crashed and was started again: main hands the page a port unasked.
    const restarted = new FakePort('restarted');
    ipcRenderer.receive('orbita:replica-port', [restarted]);
    expect(posted.map((post) => post.transfer)).toEqual([[first], [restarted]]);
    expect(restarted.closed).toBe(false);
  });

  it('asks the main process for another port when the page asks again, and only then', () => {
    const { bridge, ipcRenderer, posted } = preload();
    // The port of the page load is on its way: nothing is asked of main.
    bridge.requestReplicaPort();
    expect(ipcRenderer.sent).toEqual([]);
    const first = new FakePort('first');
    ipcRenderer.receive('orbita:replica-port', [first]);
    // A new session after a sign-out, on the same page: main is asked, and its port passed on.
    bridge.requestReplicaPort();
    expect(ipcRenderer.sent).toEqual([{ channel: 'orbita:replica-port-request', args: [] }]);
    const second = new FakePort('second');
    ipcRenderer.receive('orbita:replica-port', [second]);
    expect(posted.map((post) => post.transfer)).toEqual([[first], [second]]);
  });
});
