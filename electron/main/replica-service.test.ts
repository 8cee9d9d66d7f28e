import { EventEmitter } from 'node:events';
import { REPLICA_STOP_MESSAGE } from '@shared/desktop/bridge';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessagePortMainLike, UtilityProcessLike, WebContentsLike } from './electron-api';
import { createReplicaService, REPLICA_CONNECT_MESSAGE } from './replica-service';

class FakePort {
  constructor(readonly name: string) {}
  postMessage() {}
  start() {}
  close() {}
}

class FakeProcess extends EventEmitter {
  received: { message: unknown; ports: MessagePortMainLike[] }[] = [];
  killed = false;
  postMessage(message: unknown, ports: MessagePortMainLike[] = []) {
    this.received.push({ message, ports });
  }
  kill() {
    this.killed = true;
    this.emit('exit', 0);
    return true;
  }
  crash(code = 1) {
    this.emit('exit', code);
  }
}

class FakeWebContents extends EventEmitter {
  destroyed = false;
  posted: { channel: string; message: unknown; ports: MessagePortMainLike[] }[] = [];
  postMessage(channel: string, message: unknown, ports: MessagePortMainLike[] = []) {
    this.posted.push({ channel, message, ports });
  }
  isDestroyed = () => this.destroyed;
  destroy() {
    this.destroyed = true;
    this.emit('destroyed');
  }
}

let processes: FakeProcess[];
let channels: number;
let logs: string[];

function service() {
  return createReplicaService({
    fork: () => {
      const child = new FakeProcess();
      processes.push(child);
      return child as unknown as UtilityProcessLike;
    },
    createChannel: () => {
      channels += 1;
      return { port1: new FakePort(`process-end-${channels}`), port2: new FakePort(`window-end-${channels}`) };
    },
    log: (message) => logs.push(message),
  });
}

const asTarget = (contents: FakeWebContents) => contents as unknown as WebContentsLike;

beforeEach(() => {
  vi.useFakeTimers();
  processes = [];
  channels = 0;
  logs = [];
});

afterEach(() => {
  vi.useRealTimers();
});

describe('replica utility process', () => {
  it('gives each window one end of a new channel and the process the other', () => {
    const replica = service();
    replica.start();
    const page = new FakeWebContents();
    replica.connect(asTarget(page));

    expect(processes).toHaveLength(1);
    expect(processes[0]?.received).toEqual([
      { message: REPLICA_CONNECT_MESSAGE, ports: [new FakePort('process-end-1')] },
    ]);
    expect(page.posted).toEqual([
      { channel: 'orbita:replica-port', message: null, ports: [new FakePort('window-end-1')] },
    ]);
  });

  it('hands a fresh port on every page load', () => {
    const replica = service();
    replica.start();
    const page = new FakeWebContents();
    replica.connect(asTarget(page));
    replica.connect(asTarget(page));
    expect(page.posted.map((post) => (post.ports[0] as FakePort).name)).toEqual(['window-end-1', 'window-end-2']);
    expect(processes[0]?.received.map((post) => (post.ports[0] as FakePort).name)).toEqual([
      'process-end-1',
      'process-end-2',
    ]);
  });

  it('restarts a process that exits unexpectedly and gives the open windows new ports', () => {
    const replica = service();
    replica.start();
    const page = new FakeWebContents();
    const closedPage = new FakeWebContents();
    replica.connect(asTarget(page));
    replica.connect(asTarget(closedPage));
    closedPage.destroy();

    processes[0]?.crash();
    expect(logs.join('\n')).toContain('exited (code 1)');
    expect(processes).toHaveLength(1);
    vi.advanceTimersByTime(1000);
    expect(processes).toHaveLength(2);
    expect(page.posted).toHaveLength(2);
    expect(processes[1]?.received).toHaveLength(1);
    expect(closedPage.posted).toHaveLength(1);
  });

  it('waits longer after each crash in a row, and a page loaded meanwhile gets its port at the restart', () => {
    const replica = service();
    replica.start();
    processes[0]?.crash();
    vi.advanceTimersByTime(1000);
    expect(processes).toHaveLength(2);
    processes[1]?.crash();
    vi.advanceTimersByTime(1999);
    expect(processes).toHaveLength(2);

    const page = new FakeWebContents();
    replica.connect(asTarget(page));
    expect(page.posted).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(processes).toHaveLength(3);
    expect(page.posted).toHaveLength(1);
    expect(processes[2]?.received).toHaveLength(1);
  });

  it('counts a process that ran for a minute as healthy again', () => {
    const replica = service();
    replica.start();
    processes[0]?.crash();
    vi.advanceTimersByTime(1000);
    processes[1]?.crash();
    vi.advanceTimersByTime(2000);
    vi.advanceTimersByTime(60_000);
    processes[2]?.crash();
    vi.advanceTimersByTime(1000);
    expect(processes).toHaveLength(4);
  });

  it('asks the process to save and exit on quit, and does not restart it', async () => {
    const replica = service();
    replica.start();
    let stopped = false;
    const stopping = replica.stop().then(() => {
      stopped = true;
    });
    expect(processes[0]?.received.map(({ message }) => message)).toContain(REPLICA_STOP_MESSAGE);
    expect(processes[0]?.killed).toBe(false);
    await Promise.resolve();
    expect(stopped).toBe(false);
    // The process has saved the replica and exits by itself.
    processes[0]?.crash(0);
    await stopping;
    vi.advanceTimersByTime(60_000);
    expect(processes).toHaveLength(1);
    expect(processes[0]?.killed).toBe(false);
    expect(logs).toEqual([]);
  });

  it('kills a process that has not exited after the time it is given to save', async () => {
    const replica = service();
    replica.start();
    const stopping = replica.stop();
    vi.advanceTimersByTime(9_999);
    expect(processes[0]?.killed).toBe(false);
    vi.advanceTimersByTime(1);
    await stopping;
    expect(processes[0]?.killed).toBe(true);
    expect(logs).toEqual(['The replica process did not save and exit within 10 s; stopping it.']);
    expect(processes).toHaveLength(1);
  });

  it('keeps trying when the process cannot be started', () => {
    let attempts = 0;
    const replica = createReplicaService({
      fork: () => {
        attempts += 1;
        throw new Error('no such file');
      },
      createChannel: () => ({ port1: new FakePort('a'), port2: new FakePort('b') }),
      log: (message) => logs.push(message),
    });
    replica.start();
    vi.advanceTimersByTime(1000 + 2000 + 4000);
    expect(attempts).toBe(4);
    expect(logs[0]).toContain('no such file');
  });

  it('relays a tile request to the process and its answer back by request id; none while it is not running', async () => {
    const replica = service();
    await expect(replica.fetchTile('https://tiles.example.org/1/0/0.png')).rejects.toThrow(/not running/);
    replica.start();
    const child = processes[0] as FakeProcess;
    const first = replica.fetchTile('https://tiles.example.org/1/0/0.png');
    const second = replica.fetchTile('https://tiles.example.org/a.pmtiles', 'bytes=0-9');
    const [one, two] = child.received.map(({ message }) => message as { requestId: number; range?: string });
    expect(two?.range).toBe('bytes=0-9');
    child.emit('message', { type: 'orbita:tile-answer', requestId: two?.requestId, contentType: 'x/two' });
    child.emit('message', { type: 'orbita:tile-answer', requestId: one?.requestId, contentType: 'x/one' });
    expect((await first).contentType).toBe('x/one');
    expect((await second).contentType).toBe('x/two');
    const unanswered = replica.fetchTile('https://tiles.example.org/2/0/0.png');
    vi.advanceTimersByTime(20_000);
    await expect(unanswered).rejects.toThrow(/did not answer/);
  });
});
