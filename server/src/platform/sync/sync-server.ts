import { randomUUID } from 'node:crypto';
import { GATED_MODULES, type GatedModule } from '@shared/api/access';
import { PullRequest, type PullResponse, PushRequest, type SyncAck, type SyncCheckpoint } from '@shared/sync';
import type { Socket, Server as SocketServer } from 'socket.io';
import type { z } from 'zod';
import type { AuthContext, Authenticate } from '../auth/auth-context';
import type { Db } from '../db/db';
import { toProblem } from '../http/errors';
import { fieldErrors, Problem } from '../http/problem';
import type { Logger } from '../logging';
import type { SyncSource } from './sync-source';

interface SyncSocketData {
  token: string;
  auth: AuthContext;
  /** Per collection, where the live stream of this socket stands (known once the client has pulled). */
  stream: Record<string, SyncCheckpoint | null>;
  /**
   * Pulls, pushes and stream messages of one socket run one after another: a state read before a
   * push committed must not reach the replica after that push's acknowledgement (it would carry a
   * master state older than the one the replica already has).
   */
  queue: Promise<unknown>;
  /**
   * States this socket pushed and the server kept as they were, by collection and id. Streaming
   * them back is useless, and harmful: RxDB may apply the echo after a newer local edit was
   * pushed, taking it for a newer master state.
   */
  echoes: Map<string, string>;
  /** Per collection, the page after the last full page pulled, read while that one travels (see `readAhead`). */
  ahead: Map<string, ReadAhead>;
}

interface ReadAhead {
  checkpoint: SyncCheckpoint;
  limit: number;
  auth: AuthContext;
  readAt: number;
  /** The page and the view it was decided on (undefined: the read failed). */
  result: Promise<{ result: PullResponse; auth: AuthContext } | undefined>;
}

/** How long a page read ahead may wait for its request. */
const READ_AHEAD_MS = 2_000;
/** The first wait before looking again for a write hidden behind an older transaction (then doubled). */
const FOLLOW_FIRST_MS = 25;

/**
 * The room of an organization's sync sockets whose users have a gated module (e.g. the GPS map's
 * live positions): joined and left as each message re-authenticates the socket.
 */
export function moduleRoom(organizationId: string, module: GatedModule): string {
  return `organization:${organizationId}:module:${module}`;
}

function joinModuleRooms(socket: Socket, auth: AuthContext) {
  for (const module of GATED_MODULES) {
    const room = moduleRoom(auth.organizationId, module);
    if (auth.modules.includes(module)) void socket.join(room);
    else if (socket.rooms.has(room)) void socket.leave(room);
  }
}

/** Whether two callers see the same records (what a pull's visibility depends on). */
function sameViewer(a: AuthContext, b: AuthContext): boolean {
  return (
    a.userId === b.userId &&
    a.organizationId === b.organizationId &&
    a.isAdmin === b.isAdmin &&
    a.modules.join() === b.modules.join() &&
    a.roleIds.length === b.roleIds.length &&
    a.roleIds.every((id, i) => id === b.roleIds[i])
  );
}

/** A document's content for comparison: RxDB's own fields dropped, keys sorted. */
function contentOf(document: Record<string, unknown>): string {
  const { _meta, _rev, _attachments, ...content } = document;
  return JSON.stringify(Object.fromEntries(Object.entries(content).sort(([a], [b]) => a.localeCompare(b))));
}

type SyncSocket = Socket<Record<string, never>, Record<string, never>, Record<string, never>, SyncSocketData>;

function parse<S extends z.ZodType>(schema: S, payload: unknown): z.output<S> {
  const parsed = schema.safeParse(payload);
  if (!parsed.success) {
    throw Problem.of('validation_failed', 'The sync message is not valid.', {
      errors: fieldErrors('body', parsed.error),
    });
  }
  return parsed.data;
}

/**
 * A check a module makes of every replica push before it is applied; a problem it throws answers
 * the push, whose changes stay pending on the replica (sent again later).
 */
export type SyncPushGuard = (auth: AuthContext, collection: string) => Promise<void>;

/** A sync message answered with a problem, as observers of failures see it (the error log). */
export interface SyncFailure {
  event: 'sync:auth' | 'sync:pull' | 'sync:push';
  /** The collection the message named, if it named one. */
  collection?: string;
  /** The caller as last authenticated on the connection. */
  organizationId: string;
  userId: string;
  problem: Problem;
  /** Sent with the problem, so that what a user reports can be found in the logs. */
  requestId: string;
}

/**
 * Later of two checkpoints in commit order; one of transaction 0 (a collection starting over, its
 * records' tombstones sent when a module's access was withdrawn) replaces the other.
 */
function later(a: SyncCheckpoint | null | undefined, b: SyncCheckpoint | null): SyncCheckpoint | null {
  if (!a || b?.xid === '0') return b;
  if (!b) return a;
  const [ax, as, bx, bs] = [BigInt(a.xid), BigInt(a.seq), BigInt(b.xid), BigInt(b.seq)];
  return ax > bx || (ax === bx && as > bs) ? a : b;
}

export interface SyncServer {
  /** Looks for new changes now and streams them. */
  tick(): Promise<void>;
  /**
   * A write this server answered: looks now, so its replicas see it at once, and announces it to
   * the other instances (through Redis, when shared), whose pollers would otherwise find it later.
   */
  changed(): Promise<void>;
  /** Another instance announced a write it answered: looks now, as `changed()` does, without announcing. */
  changedElsewhere(): Promise<void>;
  close(): void;
}

/**
 * The `/sync` namespace: `sync:pull`, `sync:push` (acknowledged), `sync:stream` and `sync:resync`
 * (server-sent). Every message re-checks the caller, so sign-out and deactivation stop the stream;
 * `sync:auth {token}` swaps in a refreshed access token without reconnecting.
 */
export function attachSync(
  io: SocketServer,
  options: {
    db: Db;
    authenticate: Authenticate;
    sources: readonly SyncSource[];
    logger: Logger;
    pollMs: number;
    /** Tells the other server instances that something changed (none: a single instance). */
    announce?: () => void;
    /** Told of every message answered with a problem, after the answer is made. */
    onFailure?: (failure: SyncFailure) => void;
    /** Modules' checks of every push before it is applied (billing refusing writes while blocked). */
    pushGuards?: readonly SyncPushGuard[];
  },
): SyncServer {
  const { db, authenticate, logger } = options;

  /** The acknowledgement of a failed message: its problem with an id of its own, logged and observed. */
  const fail = (socket: SyncSocket, event: SyncFailure['event'], payload: unknown, error: unknown): SyncAck<never> => {
    const problem = toProblem(error);
    const requestId = randomUUID();
    if (problem.status >= 500) logger.error({ err: error, event, requestId }, 'sync request failed');
    const named = (payload as { collection?: unknown } | undefined)?.collection;
    const { organizationId, userId } = socket.data.auth;
    try {
      options.onFailure?.({
        event,
        collection: typeof named === 'string' ? named : undefined,
        organizationId,
        userId,
        problem,
        requestId,
      });
    } catch (observerError) {
      logger.error({ err: observerError, requestId }, 'a sync failure could not be observed');
    }
    return {
      ok: false,
      problem: { status: problem.status, code: problem.code, title: problem.title, detail: problem.message, requestId },
    };
  };
  const sources = new Map(options.sources.map((source) => [source.collection, source]));
  const namespace = io.of('/sync');

  const sourceOf = (collection: string): SyncSource => {
    const source = sources.get(collection);
    if (!source) {
      throw Problem.of('validation_failed', `There is no replicated collection "${collection}".`, {
        errors: [
          { location: 'body', pointer: '#/collection', detail: 'Unknown collection', code: 'unknown_collection' },
        ],
      });
    }
    return source;
  };

  const caller = async (socket: SyncSocket) => {
    socket.data.auth = await authenticate(`Bearer ${socket.data.token}`);
    joinModuleRooms(socket as unknown as Socket, socket.data.auth);
    return socket.data.auth;
  };

  /**
   * Reads as the caller (a pull's page, a push's answer), decided on their view as it stands once
   * the rows are read. A change of who may see what (roles, the administrator flag) commits
   * together with the records it sends again (migration 0009); a view read just before that commit
   * would decide those records on the old view once and for all, so the view is read again after
   * the rows and the rows are read anew when it changed. Returns the result and the view it was
   * decided on.
   */
  const readAsCaller = async <T>(
    socket: SyncSocket,
    pull: (auth: AuthContext) => Promise<T>,
    auth: AuthContext,
  ): Promise<{ result: T; auth: AuthContext }> => {
    for (let view = auth; ; ) {
      const result = await pull(view);
      const now = await caller(socket);
      if (sameViewer(now, view)) return { result, auth: view };
      view = now;
    }
  };

  namespace.use(async (socket: SyncSocket, next) => {
    try {
      const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
      if (typeof token !== 'string') throw Problem.of('unauthenticated', 'Connect with auth: {token: <access token>}.');
      socket.data.token = token;
      socket.data.stream = {};
      socket.data.queue = Promise.resolve();
      socket.data.echoes = new Map();
      socket.data.ahead = new Map();
      await caller(socket);
      next();
    } catch (error) {
      const problem = toProblem(error);
      next(Object.assign(new Error(problem.message), { data: problem.toBody(undefined) }));
    }
  });

  namespace.on('connection', (socket: SyncSocket) => {
    void socket.join(`organization:${socket.data.auth.organizationId}`);
    void socket.join(`user:${socket.data.auth.userId}`);
    // A (re)connected replica may have missed changes: it pulls from its checkpoint.
    (socket as unknown as Socket).emit('sync:resync');

    socket.on(
      'sync:auth',
      async (payload: { token?: unknown }, ack?: (answer: SyncAck<{ userId: string }>) => void) => {
        try {
          if (typeof payload?.token !== 'string') throw Problem.of('validation_failed', 'Send {token}.');
          const previous = socket.data.auth;
          const next = await authenticate(`Bearer ${payload.token}`);
          if (next.userId !== previous.userId)
            throw Problem.of('forbidden', 'A sync connection stays with one user: reconnect to switch.');
          socket.data.token = payload.token;
          socket.data.auth = next;
          ack?.({ ok: true, data: { userId: next.userId } });
        } catch (error) {
          ack?.(fail(socket, 'sync:auth', payload, error));
        }
      },
    );

    socket.on('sync:pull', async (payload: unknown, ack?: (answer: SyncAck<unknown>) => void) => {
      try {
        const request = parse(PullRequest, payload);
        const source = sourceOf(request.collection);
        const auth = await caller(socket);
        const result = await serially(socket, async () => {
          const ahead = takeReadAhead(socket, request.collection, request.checkpoint, request.batchSize, auth);
          const early = ahead && (await ahead.result);
          const read =
            early && sameViewer(early.auth, auth)
              ? early
              : await readAsCaller(
                  socket,
                  (view) => source.pull(db, view, request.checkpoint, request.batchSize),
                  auth,
                );
          const answer = read.result;
          // A full page means more follows: read it now, while this one travels and is stored.
          if (answer.documents.length === request.batchSize && answer.checkpoint) {
            readAhead(socket, source, request.collection, answer.checkpoint, request.batchSize, read.auth);
          }
          return answer;
        });
        // Once the client has pulled up to here, the live stream continues from the same point.
        socket.data.stream[request.collection] = later(socket.data.stream[request.collection], result.checkpoint);
        ack?.({ ok: true, data: result });
      } catch (error) {
        ack?.(fail(socket, 'sync:pull', payload, error));
      }
    });

    socket.on('sync:push', async (payload: unknown, ack?: (answer: SyncAck<unknown>) => void) => {
      try {
        const request = parse(PushRequest, payload);
        const source = sourceOf(request.collection);
        if (!source.push) {
          throw Problem.of(
            'forbidden',
            `The ${request.collection} collection is read-only on replicas; change it through the API.`,
          );
        }
        const push = source.push.bind(source);
        const rows = request.rows as Parameters<typeof push>[1];
        const result = await serially(socket, async () => {
          // A page read before this push must not be answered after it.
          socket.data.ahead.clear();
          // The caller as they are at the push's turn: a pull answered before it may have been
          // decided on a view that changed since the push arrived.
          let view = await caller(socket);
          for (const guard of options.pushGuards ?? []) await guard(view, request.collection);
          const asCaller = async <T>(read: (auth: AuthContext) => Promise<T>) => {
            const done = await readAsCaller(socket, read, view);
            view = done.auth;
            return done.result;
          };
          const answer = await push(view, rows, asCaller);
          const conflicted = new Set(answer.conflicts.map((doc) => String(doc[source.primaryKey ?? 'id'])));
          for (const row of rows) {
            const key = `${request.collection}:${String(row.newDocumentState[source.primaryKey ?? 'id'])}`;
            if (conflicted.has(String(row.newDocumentState[source.primaryKey ?? 'id']))) socket.data.echoes.delete(key);
            else socket.data.echoes.set(key, contentOf(row.newDocumentState));
          }
          return answer;
        });
        ack?.({ ok: true, data: result });
        void changed();
      } catch (error) {
        ack?.(fail(socket, 'sync:push', payload, error));
      }
    });
  });

  /**
   * Reads the next page of a first sync before it is asked for, in the socket's queue right after
   * the page before: answering it later is the same as answering a request that came at once, as
   * long as the replica got nothing newer meanwhile. So a push, a stream message of the collection,
   * another caller's view or a long wait discards it.
   */
  function readAhead(
    socket: SyncSocket,
    source: SyncSource,
    collection: string,
    checkpoint: SyncCheckpoint,
    limit: number,
    auth: AuthContext,
  ) {
    const result = serially(socket, () =>
      readAsCaller(socket, (view) => source.pull(db, view, checkpoint, limit), auth),
    ).catch(() => undefined);
    const ahead: ReadAhead = { checkpoint, limit, auth, readAt: Date.now(), result };
    socket.data.ahead.set(collection, ahead);
    // A replica that stops pulling does not keep a page in memory.
    setTimeout(() => {
      if (socket.data.ahead.get(collection) === ahead) socket.data.ahead.delete(collection);
    }, READ_AHEAD_MS).unref();
  }

  function takeReadAhead(
    socket: SyncSocket,
    collection: string,
    checkpoint: SyncCheckpoint | null,
    limit: number,
    auth: AuthContext,
  ): ReadAhead | undefined {
    const ahead = socket.data.ahead.get(collection);
    socket.data.ahead.delete(collection);
    if (
      ahead &&
      checkpoint &&
      ahead.checkpoint.xid === checkpoint.xid &&
      ahead.checkpoint.seq === checkpoint.seq &&
      ahead.limit === limit &&
      Date.now() - ahead.readAt <= READ_AHEAD_MS &&
      sameViewer(ahead.auth, auth)
    ) {
      return ahead;
    }
    return undefined;
  }

  function serially<T>(socket: SyncSocket, work: () => Promise<T>): Promise<T> {
    const run = socket.data.queue.then(work, work);
    socket.data.queue = run.catch(() => undefined);
    return run;
  }

  let marker = '';
  let running: Promise<void> | undefined;
  async function streamTo(socket: SyncSocket) {
    let auth: AuthContext;
    try {
      auth = await caller(socket);
    } catch (error) {
      // Why the stream ends is said first (`sync:ended`): a deactivated account's app removes the
      // account's data from the device, a signed-out one keeps it for the next sign-in.
      (socket as unknown as Socket).emit('sync:ended', toProblem(error).toBody(undefined));
      socket.disconnect(true);
      return;
    }
    // Every collection of a round is read from one snapshot: a cut consistent across collections,
    // so a record never streams a round before what it refers to (a task before its new form,
    // when the form committed between the forms' read and the tasks').
    const readAll = (view: AuthContext) =>
      db.transaction(async (tx) => {
        await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        const pages: { collection: string; source: SyncSource; result: PullResponse }[] = [];
        for (const [collection, checkpoint] of Object.entries(socket.data.stream)) {
          const source = sourceOf(collection);
          pages.push({ collection, source, result: await source.pull(tx, view, checkpoint, 500) });
        }
        return pages;
      });
    const { result: pages } = await readAsCaller(socket, readAll, auth);
    for (const { collection, source, result } of pages) {
      socket.data.stream[collection] = result.checkpoint;
      // States streamed now may be newer than the page read ahead: that page would undo them.
      if (result.documents.length > 0) socket.data.ahead.delete(collection);
      const documents = result.documents.filter((document) => {
        const key = `${collection}:${String(document[source.primaryKey ?? 'id'])}`;
        const echo = socket.data.echoes.get(key) === contentOf(document);
        socket.data.echoes.delete(key);
        return !echo;
      });
      if (documents.length === 0) continue;
      (socket as unknown as Socket).emit('sync:stream', {
        collection,
        documents,
        checkpoint: result.checkpoint,
      });
    }
  }
  /** The horizon and next transaction id as of the last look (see `followWrites`). */
  let seen: { xmin: bigint; xmax: bigint } | undefined;
  /** One cheap query tells whether anything committed since the last look (new changes, or older transactions ended). */
  async function look(): Promise<void> {
    try {
      const { rows } = await db.query<{ seq: string; xmin: string; xmax: string }>(
        `SELECT (SELECT last_value FROM sync_seq)::text AS seq, pg_snapshot_xmin(s)::text AS xmin,
                pg_snapshot_xmax(s)::text AS xmax
           FROM pg_current_snapshot() AS s`,
      );
      const row = rows[0];
      if (row) seen = { xmin: BigInt(row.xmin), xmax: BigInt(row.xmax) };
      const now = row ? `${row.seq}:${row.xmin}` : '';
      if (now === marker) return;
      marker = now;
      for (const socket of namespace.sockets.values()) {
        await serially(socket as SyncSocket, () => streamTo(socket as SyncSocket));
      }
    } catch (error) {
      logger.warn({ err: error }, 'sync stream poll failed');
    }
  }
  /**
   * A look now. Asked for while one runs, that one may have read the marker before the caller's
   * commit: another look follows it, and the promise settles after that one.
   */
  let again = false;
  let closed = false;
  function tick(): Promise<void> {
    // Closing: the last handlers' wake-ups find the database on its way out.
    if (closed) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await look();
        } while (again);
      } finally {
        running = undefined;
      }
    })();
    return running;
  }
  /**
   * A write answered here streams once every transaction older than it has ended (the horizon);
   * one still running — a long report, another instance's transaction — hides it from the look the
   * write asked for. Until the horizon passes the writes answered so far, looks follow at growing
   * intervals up to the poll's, so they stream soon after, not at the next poll.
   */
  let following: bigint | undefined;
  let followWait = FOLLOW_FIRST_MS;
  async function followWrites(): Promise<void> {
    while (!closed && following !== undefined && seen && seen.xmin < following && followWait < options.pollMs) {
      await new Promise((resolve) => setTimeout(resolve, followWait).unref());
      followWait *= 2;
      await tick();
    }
    following = undefined;
  }
  /** Looks now after a write (answered here or announced), then follows it while it is hidden. */
  async function lookAfterWrite(): Promise<void> {
    await tick();
    // Everything the write committed has an id below the next one as of the look after it.
    const after = seen;
    if (!after || after.xmin >= after.xmax) return;
    followWait = FOLLOW_FIRST_MS;
    const chasing = following !== undefined;
    if (following === undefined || following < after.xmax) following = after.xmax;
    if (!chasing) void followWrites();
  }
  function changed(): Promise<void> {
    options.announce?.();
    return lookAfterWrite();
  }
  const timer = setInterval(() => void tick(), options.pollMs);
  timer.unref();
  return {
    tick,
    changed,
    changedElsewhere: lookAfterWrite,
    close() {
      closed = true;
      clearInterval(timer);
    },
  };
}
