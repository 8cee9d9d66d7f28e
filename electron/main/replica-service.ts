import {
  DESKTOP_CHANNELS,
  REPLICA_STOP_MESSAGE,
  TILE_ANSWER,
  TILE_REQUEST,
  type TileAnswer,
} from '@shared/desktop/bridge';
import type { MessageChannelMainLike, UtilityProcessLike, WebContentsLike } from './electron-api';

/** The message that carries a window's port to the replica process (which reads only its ports). */
export const REPLICA_CONNECT_MESSAGE = { type: 'orbita:replica-connect' } as const;

export interface ReplicaService {
  /** Starts the replica process. */
  start(): void;
  /**
   * Gives the page in `target` a fresh port to the replica (a new MessageChannelMain: one end to
   * the process, the other to the page). Call it on every page load; after a restart of the
   * process every connected page gets a new port.
   */
  connect(target: WebContentsLike): void;
  /**
   * Stops the process for good (app quitting): asks it to save what it holds in memory and exit,
   * and kills it if it has not exited after `stopTimeoutMs`. Settles once it is gone.
   */
  stop(): Promise<void>;
  /**
   * A map tile through the process's tile cache (network first, the kept copy when it fails);
   * rejects when the process is not running or does not answer within `tileTimeoutMs`.
   */
  fetchTile(url: string, range?: string): Promise<TileAnswer>;
}

/**
 * Runs the offline replica in an Electron utility process, outside the window's process, and
 * restarts it when it exits unexpectedly: after 1 s, doubling on each crash in a row up to 30 s
 * (a process that ran for a minute counts as healthy again).
 */
export function createReplicaService(deps: {
  fork(): UtilityProcessLike;
  createChannel(): MessageChannelMainLike;
  now?: () => number;
  log?: (message: string) => void;
  /** How long the process may take to save its replica when the app quits. Default 10 s. */
  stopTimeoutMs?: number;
  /** How long a tile may take (the process tries the network for 10 s first). Default 20 s. */
  tileTimeoutMs?: number;
}): ReplicaService {
  const now = deps.now ?? Date.now;
  const log = deps.log ?? ((message: string) => console.error(message));
  const targets = new Set<WebContentsLike>();
  let child: UtilityProcessLike | undefined;
  let startedAt = 0;
  let crashes = 0;
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let nextTileRequest = 1;
  const tileAnswers = new Map<number, (answer: TileAnswer) => void>();

  function hand(target: WebContentsLike, process: UtilityProcessLike): void {
    const { port1, port2 } = deps.createChannel();
    process.postMessage(REPLICA_CONNECT_MESSAGE, [port1]);
    target.postMessage(DESKTOP_CHANNELS.replicaPort, null, [port2]);
  }

  function launch(): void {
    restartTimer = undefined;
    let launched: UtilityProcessLike;
    try {
      launched = deps.fork();
    } catch (error) {
      log(`The replica process did not start: ${(error as Error).message}`);
      scheduleRestart();
      return;
    }
    child = launched;
    startedAt = now();
    launched.on('message', (message) => {
      const answer = message as Partial<TileAnswer> | undefined;
      if (answer?.type !== TILE_ANSWER || typeof answer.requestId !== 'number') return;
      tileAnswers.get(answer.requestId)?.(answer as TileAnswer);
    });
    launched.on('exit', (code) => {
      if (child !== launched) return;
      child = undefined;
      if (stopped) return;
      if (now() - startedAt >= 60_000) crashes = 0;
      log(`The replica process exited (code ${code}); restarting it.`);
      scheduleRestart();
    });
    for (const target of targets) {
      if (target.isDestroyed()) targets.delete(target);
      else hand(target, launched);
    }
  }

  function scheduleRestart(): void {
    crashes += 1;
    const delay = Math.min(1000 * 2 ** (crashes - 1), 30_000);
    restartTimer = setTimeout(launch, delay);
  }

  return {
    start() {
      if (child || restartTimer || stopped) return;
      launch();
    },
    connect(target) {
      if (target.isDestroyed()) return;
      if (!targets.has(target)) {
        targets.add(target);
        target.on('destroyed', () => targets.delete(target));
      }
      // While the process restarts, the page gets its port when it is back.
      if (child) hand(target, child);
    },
    fetchTile(url, range) {
      const running = child;
      if (!running) return Promise.reject(new Error('The replica process is not running'));
      const requestId = nextTileRequest++;
      return new Promise<TileAnswer>((resolve, reject) => {
        const timer = setTimeout(() => {
          tileAnswers.delete(requestId);
          reject(new Error('The replica process did not answer the tile request'));
        }, deps.tileTimeoutMs ?? 20_000);
        tileAnswers.set(requestId, (answer) => {
          clearTimeout(timer);
          tileAnswers.delete(requestId);
          resolve(answer);
        });
        running.postMessage({ type: TILE_REQUEST, requestId, url, ...(range ? { range } : {}) });
      });
    },
    stop() {
      stopped = true;
      clearTimeout(restartTimer);
      restartTimer = undefined;
      const running = child;
      child = undefined;
      if (!running) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timeoutMs = deps.stopTimeoutMs ?? 10_000;
        const timer = setTimeout(() => {
          log(`The replica process did not save and exit within ${timeoutMs / 1000} s; stopping it.`);
          running.kill();
          resolve();
        }, timeoutMs);
        running.on('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        try {
          running.postMessage(REPLICA_STOP_MESSAGE);
        } catch {
          running.kill();
        }
      });
    },
  };
}
