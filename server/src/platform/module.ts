import type { RequestHandler } from 'express';
import type { Server as SocketServer } from 'socket.io';
import type { Authenticate, AuthenticateKey } from './auth/auth-context';
import type { Config } from './config';
import type { Db } from './db/db';
import type { EventBus } from './events';
import type { AnyRoute, RawEndpoint, RouteGuard } from './http/routes';
import type { JobHandler, ScheduledTask } from './jobs/jobs';
import type { Logger } from './logging';
import type { Mailer } from './mail/mailer';
import type { FanOut } from './realtime/fan-out';
import type { SyncFailure, SyncPushGuard } from './sync/sync-server';
import type { SyncSource } from './sync/sync-source';

/** Process-wide facts the platform keeps and modules may read. */
export interface AppState {
  readonly version: string;
  readonly startedAt: number;
  /** True once shutdown began: health reports `stopping`, responses close their connection. */
  stopping: boolean;
}

/** What every module receives to build itself. */
export interface ModuleContext {
  config: Config;
  db: Db;
  logger: Logger;
  io: SocketServer;
  mailer: Mailer;
  events: EventBus;
  state: AppState;
  /** Redis shared with the other server instances, when configured (`REDIS_URL`). */
  fanOut?: FanOut;
}

/** A module's manifest: its name and its routes (event processors and jobs join in later steps). */
export interface AppModule {
  name: string;
  routes: AnyRoute[];
  /** The identity module resolves callers of protected routes; exactly one module provides it. */
  authenticate?: Authenticate;
  /** The bots module resolves API keys to the bots they act as; at most one module provides it. */
  authenticateKey?: AuthenticateKey;
  /**
   * Middleware run for every request before any route (e.g. observers of the finished response).
   * After the response, `res.locals.auth` holds the caller of a protected route and
   * `res.locals.problem` the problem that was sent, if any.
   */
  middleware?: RequestHandler[];
  /** Checks run on every authenticated route call before its handler (e.g. billing's block on writes). */
  guards?: RouteGuard[];
  /** Checks of every replica push before it is applied (as `guards` are of routes). */
  pushGuards?: SyncPushGuard[];
  /** Endpoints that write their own responses (a protocol's SDK), beside the declared routes. */
  endpoints?: RawEndpoint[];
  /** Collections of this module replicated to desktop replicas. */
  syncSources?: SyncSource[];
  /** Handlers of this module's durable jobs, by kind (`<module>.<job>`). */
  jobs?: Record<string, JobHandler>;
  /** Work run at a declared interval on every instance (e.g. the automations' scheduler tick). */
  scheduled?: ScheduledTask[];
  /**
   * Origins pages may connect to beside their own (the Content-Security-Policy's `connect-src`), e.g.
   * map tile servers; the browser build's service worker keeps their GET responses for offline.
   */
  connectOrigins?: () => readonly string[];
  /** Told of every sync message answered with a problem (as `middleware` observes responses). */
  observeSyncFailure?: (failure: SyncFailure) => void;
}

export type ModuleFactory = (context: ModuleContext) => AppModule;
