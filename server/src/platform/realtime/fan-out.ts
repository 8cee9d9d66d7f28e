import { createAdapter } from '@socket.io/redis-adapter';
import { type Command, Redis } from 'ioredis';
import type { Server as SocketServer } from 'socket.io';
import type { Logger } from '../logging';

/** Socket.IO's events across the server instances that share one Redis, and the wake-ups between them. */
export interface FanOut {
  /** Tells the other instances that something changed here (they look at once). */
  announce(event: string): void;
  /** Runs `handler` when another instance announces `event`. */
  on(event: string, handler: () => void): void;
  /** Whether Redis answers now. */
  connected(): boolean;
  close(): Promise<void>;
}

/**
 * A Redis client whose commands, given up when it closes, fail only for whoever awaits them: the
 * adapter sends its subscriptions and publications without awaiting them, and those queued while
 * Redis does not answer would otherwise be unhandled rejections at close.
 */
class AdapterRedis extends Redis {
  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    const sent = super.sendCommand(command, stream);
    if (sent instanceof Promise) sent.catch(() => undefined);
    return sent;
  }
}

/**
 * Connects Socket.IO to Redis (`@socket.io/redis-adapter`): rooms and broadcasts span every
 * instance, and `announce` reaches the others through it. Redis going away never stops this
 * instance: announcements are dropped meanwhile (the others still poll), and the clients
 * reconnect by themselves; the state changes are logged once each.
 */
export function attachRedisFanOut(io: SocketServer, options: { url: string; prefix: string; logger: Logger }): FanOut {
  const { logger } = options;
  // Commands wait for the connection however long it takes (the adapter subscribes at start, and
  // a command given up would be an unhandled rejection inside it); announcements are only made
  // while connected (see `announce`), so nothing piles up meanwhile.
  const pub = new AdapterRedis(options.url, { maxRetriesPerRequest: null });
  const sub = new AdapterRedis(options.url, { maxRetriesPerRequest: null });
  let down = false;
  for (const client of [pub, sub]) {
    client.on('error', (error: Error) => {
      if (down) return;
      down = true;
      logger.warn({ err: error }, 'Redis cannot be reached: other server instances learn of changes by polling');
    });
    client.on('ready', () => {
      if (!down) return;
      down = false;
      logger.info('Redis reached again: changes are announced to the other server instances');
    });
  }
  io.adapter(createAdapter(pub, sub, { key: `${options.prefix}:socket.io` }));
  return {
    announce(event) {
      if (pub.status !== 'ready') return;
      try {
        io.serverSideEmit(event);
      } catch (error) {
        logger.warn({ err: error, event }, 'announcing a change to the other server instances failed');
      }
    },
    on(event, handler) {
      io.on(event, handler);
    },
    connected: () => pub.status === 'ready' && sub.status === 'ready',
    async close() {
      // At once, whether connected or still trying: nothing waits to be sent.
      pub.disconnect();
      sub.disconnect();
    },
  };
}
