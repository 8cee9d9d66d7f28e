import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import type { Server as SocketServer } from 'socket.io';
import { automationsModule } from './modules/automations';
import { billingModule } from './modules/billing';
import { botsModule } from './modules/bots';
import { delegationModule } from './modules/delegation';
import { directoriesModule } from './modules/directories';
import { errorLogModule } from './modules/error-log';
import { formsModule } from './modules/forms';
import { gpsModule } from './modules/gps';
import { healthModule } from './modules/health';
import { homeModule } from './modules/home';
import { identityModule } from './modules/identity';
import { mcpModule } from './modules/mcp';
import { profileModule } from './modules/profile';
import { qrModule } from './modules/qr';
import { skinsModule } from './modules/skins';
import { tasksModule } from './modules/tasks';
import type { Authenticate } from './platform/auth/auth-context';
import type { Config } from './platform/config';
import type { Db } from './platform/db/db';
import { createEventBus, type EventBus } from './platform/events';
import { jsonBodies } from './platform/http/body';
import { contractRoutes, docsAssets } from './platform/http/contract';
import { allowOrigins } from './platform/http/cors';
import { errorHandler, notFoundHandler } from './platform/http/errors';
import { type AnyRoute, allowedMethods, mountRoutes } from './platform/http/routes';
import { webApp } from './platform/http/web-app';
import { createJobWorker, type JobWorker, startScheduledTasks } from './platform/jobs/jobs';
import type { Logger } from './platform/logging';
import { createMailer, type Mailer } from './platform/mail/mailer';
import type { AppModule, AppState, ModuleContext, ModuleFactory } from './platform/module';
import { attachRedisFanOut } from './platform/realtime/fan-out';
import { createRealtime } from './platform/realtime/socket';
import { attachSync, type SyncServer } from './platform/sync/sync-server';
import { VERSION } from './platform/version';

/** Announced between server instances when one answered a change replicas should see. */
const SYNC_CHANGED = 'sync:changed';

/** The product's modules, in the order their routes mount. Reading this list tells what Orbita is. */
export const productModules: ModuleFactory[] = [
  healthModule,
  identityModule,
  errorLogModule,
  directoriesModule,
  formsModule,
  tasksModule,
  profileModule,
  homeModule,
  qrModule,
  automationsModule,
  delegationModule,
  botsModule,
  mcpModule,
  billingModule,
  gpsModule,
  skinsModule,
];

export interface AppOptions {
  config: Config;
  db: Db;
  logger: Logger;
  /** Modules mounted after the product's (tests add probes here). */
  extraModules?: ModuleFactory[];
  /** E-mail transport; by default SMTP_URL's, or the outbox under DATA_DIR. */
  mailer?: Mailer;
  /** Directory of the built web interface; by default `renderer/dist`. */
  webRoot?: string;
}

export interface App {
  readonly httpServer: HttpServer;
  readonly io: SocketServer;
  readonly modules: AppModule[];
  readonly routes: readonly AnyRoute[];
  readonly state: AppState;
  readonly events: EventBus;
  readonly sync: SyncServer;
  /** The durable jobs' worker: started with `listen`, stopped by `close`. */
  readonly jobs: JobWorker;
  /** Starts listening on the configured host and port (0 picks a free port). */
  listen(): Promise<{ port: number; url: string }>;
  /** Stops taking connections, lets in-flight requests finish (up to the shutdown timeout), closes sockets. */
  close(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Builds the HTTP application, Socket.IO and every module's routes on one HTTP server. */
export function createApp(options: AppOptions): App {
  const { config, db, logger } = options;
  const state: AppState = { version: VERSION, startedAt: Date.now(), stopping: false };
  const web = express();
  web.disable('x-powered-by');
  web.set('trust proxy', 'loopback');
  const httpServer = createServer(web);
  const io = createRealtime(httpServer, logger);
  const fanOut = config.redisUrl
    ? attachRedisFanOut(io, { url: config.redisUrl, prefix: config.redisPrefix, logger })
    : undefined;
  const mailer = options.mailer ?? createMailer(config, logger);
  // What a handler wrote (roles re-expanded into assignees, say) reaches replicas at once.
  const events = createEventBus(logger, { afterHandled: () => void sync.changed() });
  const context: ModuleContext = { config, db, logger, io, mailer, events, state, fanOut };

  const modules = [...productModules, ...(options.extraModules ?? [])].map((factory) => factory(context));
  const routes: AnyRoute[] = [];
  const endpoints = modules.flatMap((module) => module.endpoints ?? []);
  routes.push(...contractRoutes(() => routes, VERSION, endpoints));
  for (const module of modules) routes.push(...module.routes);

  web.use(
    pinoHttp({
      logger,
      // A caller's request id is kept so one id follows a request across services.
      genReqId: (req, res) => {
        const incoming = req.headers['x-request-id'];
        const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      customLogLevel: (_req, res, error) =>
        error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
      autoLogging: { ignore: (req) => req.url === '/api/health' },
    }),
  );
  web.use(
    helmet({
      // Served over plain HTTP on a LAN too; TLS and HSTS belong to the reverse proxy that terminates it.
      // Images the app fetched with the session (QR codes) are shown from blob: URLs.
      // The map's MapLibre runs its worker from 'self' or a blob: URL, and reads the tiles of the
      // organizations' configured sources (modules' `connectOrigins`), nothing wider.
      contentSecurityPolicy: {
        directives: {
          upgradeInsecureRequests: null,
          imgSrc: ["'self'", 'data:', 'blob:'],
          workerSrc: ["'self'", 'blob:'],
          connectSrc: [
            "'self'",
            () => modules.flatMap((module) => module.connectOrigins?.() ?? []).join(' ') || "'self'",
          ],
        },
      },
      strictTransportSecurity: false,
    }),
  );
  web.use(allowOrigins(config.corsOrigins));
  web.use((_req, res, next) => {
    if (state.stopping) res.setHeader('Connection', 'close');
    next();
  });
  // Before body parsing, so observers also see requests whose body is refused (400, 413, 415).
  for (const module of modules) for (const middleware of module.middleware ?? []) web.use(middleware);
  // Endpoints reading their own raw requests (the MCP endpoint) come before JSON bodies are parsed.
  for (const endpoint of endpoints) web.all(endpoint.path, endpoint.handle);
  web.use(jsonBodies(routes, config.bodyLimit));
  web.use(docsAssets());
  const router = express.Router();
  const authenticators = modules.flatMap((module) => (module.authenticate ? [module.authenticate] : []));
  if (authenticators.length !== 1)
    throw new Error(`Exactly one module must authenticate; found ${authenticators.length}`);
  const authenticate = authenticators[0] as Authenticate;
  const authenticateKey = modules.find((module) => module.authenticateKey)?.authenticateKey;
  mountRoutes(router, routes, {
    validateResponses: config.validateResponses,
    authenticate,
    authenticateKey,
    guards: modules.flatMap((module) => module.guards ?? []),
  });
  const sync = attachSync(io, {
    db,
    authenticate,
    sources: modules.flatMap((module) => module.syncSources ?? []),
    logger,
    pollMs: config.syncPollMs,
    announce: fanOut && (() => fanOut.announce(SYNC_CHANGED)),
    onFailure: (failure) => {
      for (const module of modules) module.observeSyncFailure?.(failure);
    },
    pushGuards: modules.flatMap((module) => module.pushGuards ?? []),
  });
  const jobs = createJobWorker({
    db,
    events,
    logger,
    pollMs: config.jobsPollMs,
    handlers: new Map(modules.flatMap((module) => Object.entries(module.jobs ?? {}))),
  });
  // A change another instance answered: this one's replicas see it now, not at the next poll.
  fanOut?.on(SYNC_CHANGED, () => void sync.changedElsewhere());
  // A write answered here reaches connected replicas at once, not at the next poll.
  web.use((req, res, next) => {
    if (!SAFE_METHODS.has(req.method))
      res.once('finish', () => {
        if (res.statusCode < 400) void sync.changed();
      });
    next();
  });
  // API answers carry an organization's data: no browser or proxy keeps them, unless a route says
  // otherwise (a task's QR image).
  web.use('/api', (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  web.use(router);
  web.use(
    webApp(options.webRoot, {
      offlineOrigins: () => modules.flatMap((module) => module.connectOrigins?.() ?? []),
    }),
  );
  web.use(notFoundHandler(allowedMethods(routes)));
  web.use(errorHandler);

  let scheduled: ReturnType<typeof startScheduledTasks> | undefined;
  let closing: Promise<void> | undefined;
  return {
    httpServer,
    io,
    modules,
    routes,
    state,
    events,
    sync,
    jobs,
    listen() {
      return new Promise((resolve, reject) => {
        httpServer.once('error', reject);
        httpServer.listen(config.port, config.host, () => {
          httpServer.off('error', reject);
          const { port } = httpServer.address() as AddressInfo;
          jobs.start();
          scheduled ??= startScheduledTasks(
            modules.flatMap((module) => module.scheduled ?? []),
            logger,
          );
          const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
          resolve({ port, url: `http://${host}:${port}` });
        });
      });
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        state.stopping = true;
        sync.close();
        // io.close() disconnects sockets, then closes the HTTP server: no new connections, and
        // the callback runs once every in-flight request has finished.
        // Keep-alive connections become idle as their last response ends; close them as they do.
        const sweep = setInterval(() => httpServer.closeIdleConnections(), 25);
        const force = setTimeout(() => {
          logger.warn('shutdown timeout reached: closing the remaining connections');
          httpServer.closeAllConnections();
        }, config.shutdownTimeoutMs);
        io.close(() => {
          clearInterval(sweep);
          clearTimeout(force);
          // Event handlers and the running job finish before the database closes.
          Promise.allSettled([events.idle(), jobs.stop(), scheduled?.stop(), fanOut?.close()]).then(() => resolve());
        });
        httpServer.closeIdleConnections();
      });
      return closing;
    },
  };
}
