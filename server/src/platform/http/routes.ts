import { API_KEY_PREFIX, type ApiKeyMode } from '@shared/api/bots';
import type { Endpoint } from '@shared/api/endpoint';
import type { Request, Response, Router } from 'express';
import { match } from 'path-to-regexp';
import type { z } from 'zod';
import type { ZodOpenApiPathItemObject } from 'zod-openapi';
import { unauthenticated } from '../auth/access-tokens';
import type { BotActor } from '../auth/actor';
import type { Access, AuthContext, Authenticate, AuthenticateKey, TokenCaller } from '../auth/auth-context';
import type { Logger } from '../logging';
import { fieldErrors, inadmissibleValues, Problem } from './problem';

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * A response body already written as JSON (e.g. built by PostgreSQL), in pieces sent one after
 * another: a large body then never becomes JavaScript objects, nor one string, to be written out.
 */
export class JsonText {
  constructor(readonly parts: readonly string[]) {}

  /** The body's bytes (UTF-8). */
  bytes(): Buffer {
    let length = 0;
    for (const part of this.parts) length += Buffer.byteLength(part);
    const bytes = Buffer.allocUnsafe(length);
    let offset = 0;
    for (const part of this.parts) offset += bytes.write(part, offset);
    return bytes;
  }
}

/** What a handler returns: the platform validates it against `responses` and sends it. */
export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * How a bot's API key may use a route: `read` (it only reads: every key) or `write` (keys that
 * write). A route whose access is `admin` needs a `full` key. Absent: API keys are refused.
 */
export type BotUse = 'read' | 'write';

/**
 * Who calls a route: nobody on public routes; the holder of the module's token on token routes; a
 * member, or a bot too where the route admits keys.
 */
export type Caller<A extends Access, K extends BotUse | undefined> = A extends 'public'
  ? undefined
  : A extends { token: unknown }
    ? TokenCaller
    : K extends BotUse
      ? AuthContext | BotActor
      : AuthContext;

/** How a route's request body may come: JSON (every route), or an HTML form's encoding too. */
export type BodyType = 'json' | 'form';

export interface HandlerInput<P, Q, B, A extends Access = Access, K extends BotUse | undefined = undefined> {
  /** The caller; absent only on public routes. */
  auth: Caller<A, K>;
  params: Infer<P>;
  query: Infer<Q>;
  body: Infer<B>;
  req: Request;
  res: Response;
  requestId: string;
  log: Logger;
  /** The request body's bytes as sent, on routes declared `rawBody` (their `body` is not parsed). */
  rawBody?: Buffer;
}

/**
 * An `/api` operation: its contract (zod schemas of each request part and of each response, from
 * `shared/src/api`) and its handler. The same definition mounts the Express route and writes the
 * OpenAPI document, so every route is documented and every input validated at the edge.
 */
export interface RouteDefinition<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  A extends Access = Access,
  K extends BotUse | undefined = BotUse | undefined,
> extends Endpoint<P, Q, B> {
  /** Who may call it; signed-in members (`user`) unless said otherwise. */
  access?: A;
  /** Whether bots may call it with their API key, and whether it reads or writes; absent: they may not. */
  bots?: K;
  /** Largest JSON body this route takes when it must exceed the server's `BODY_LIMIT` (e.g. `'64mb'`). */
  bodyLimit?: string;
  /**
   * Encodings the body may come in; `['json']` unless said otherwise. `form` admits
   * `application/x-www-form-urlencoded` (device protocols), parsed into flat string values.
   */
  accepts?: readonly BodyType[];
  /**
   * The handler gets the body's bytes as sent (`rawBody`) and parses it itself with
   * `parseRequestBody`, e.g. to check a signature over them first; `request.body` only documents it.
   */
  rawBody?: boolean;
  handler: (input: HandlerInput<P, Q, B, A, K>) => RouteResult | Promise<RouteResult>;
}

// biome-ignore lint/suspicious/noExplicitAny: a list of routes holds routes of any schema types.
export type AnyRoute = RouteDefinition<any, any, any, any, any>;

/** Declares a route (usually an endpoint of the contract, spread) with its schemas' types flowing into the handler. */
export function defineRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  const A extends Access = 'user',
  const K extends BotUse | undefined = undefined,
>(route: RouteDefinition<P, Q, B, A, K>): RouteDefinition<P, Q, B, A, K> {
  if (route.bots === 'write' && route.method === 'get') {
    throw new Error(`Route GET ${route.path} reads; it cannot be declared for writing bots`);
  }
  return route;
}

/** The access of a route, with the default applied. */
export function routeAccess(route: AnyRoute): Access {
  return route.access ?? 'user';
}

const MODE_RANK: Record<ApiKeyMode, number> = { read: 0, write: 1, full: 2 };

/**
 * The least key mode a route needs: `read` for reading routes, `write` for writing ones, `full`
 * for administrators' routes; undefined when API keys may not call it (not declared for bots, or
 * public, or a gated module's).
 */
export function requiredKeyMode(route: AnyRoute): ApiKeyMode | undefined {
  const access = routeAccess(route);
  // A gated module's routes and token routes never take API keys.
  if (route.bots === undefined || access === 'public' || typeof access === 'object') return undefined;
  if (access === 'admin') return 'full';
  return route.bots;
}

/** Whether a key of `mode` may call a route needing `needed`. */
export function modeAllows(mode: ApiKeyMode, needed: ApiKeyMode): boolean {
  return MODE_RANK[mode] >= MODE_RANK[needed];
}

/** Refuses a bot the route does not admit (403): not declared for keys, or beyond its key's mode. */
function authorizeBot(route: AnyRoute, bot: BotActor): void {
  const needed = requiredKeyMode(route);
  if (needed === undefined) {
    throw Problem.of('key_not_accepted', 'This operation is for people who sign in; an API key cannot call it.');
  }
  if (!modeAllows(bot.scopes.mode, needed)) {
    throw Problem.of(
      'scope_denied',
      `The API key's mode is ${bot.scopes.mode}; this operation needs a ${needed} key. An administrator can change the key's mode in the bot's settings.`,
    );
  }
}

/**
 * The API key a request carries, if any: `X-API-Key`, or a bearer credential with the keys'
 * prefix (access tokens never start with it).
 */
export function apiKeyOf(req: Pick<Request, 'headers'>): string | undefined {
  const header = req.headers['x-api-key'];
  if (header !== undefined) return Array.isArray(header) ? header.join(',') : header;
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  return bearer?.startsWith(API_KEY_PREFIX) ? bearer : undefined;
}

/** Refuses callers the route's access does not admit (403); authentication happened before. */
function authorize(access: Access, auth: AuthContext): void {
  if (access === 'admin' && !auth.isAdmin) {
    throw Problem.of('forbidden', 'Only an administrator of the organization may do this.');
  }
  if (typeof access === 'object' && 'module' in access && !auth.modules.includes(access.module)) {
    throw Problem.of(
      'module_access_denied',
      `The ${access.module.toUpperCase()} module is not granted to you. Ask an administrator to grant it on the users page.`,
    );
  }
}

const JSON_TYPES = ['application/json', 'application/*+json'];
const FORM_TYPES = ['application/x-www-form-urlencoded'];

/** Media types a route's body may have. */
export function bodyMediaTypes(route: AnyRoute): string[] {
  return (route.accepts ?? ['json']).flatMap((type) => (type === 'json' ? JSON_TYPES : FORM_TYPES));
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

function parsePart<S extends z.ZodType | undefined>(
  location: 'params' | 'query' | 'body',
  schema: S,
  value: unknown,
): Infer<S> {
  if (!schema) return undefined as Infer<S>;
  const parsed = schema.safeParse(value);
  const inadmissible = inadmissibleValues(location, value);
  if (parsed.success && inadmissible.length === 0) return parsed.data as Infer<S>;
  const errors = [...inadmissible, ...(parsed.success ? [] : fieldErrors(location, parsed.error))];
  const first = errors[0];
  const where = first ? `${location} ${first.pointer}: ${first.detail}` : location;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  throw Problem.of('validation_failed', `Invalid ${where}${more}. Correct the listed fields and send again.`, {
    errors,
  });
}

/** Checks that every `:param` of the path is described by the params schema. */
function assertParamsDeclared(route: AnyRoute): void {
  const names = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] as string);
  const shape = (route.request?.params as z.ZodObject | undefined)?.shape ?? {};
  const missing = names.filter((name) => !(name in shape));
  if (missing.length > 0) {
    throw new Error(`Route ${route.method.toUpperCase()} ${route.path} has no params schema for ${missing.join(', ')}`);
  }
}

function checkResponse(route: AnyRoute, result: RouteResult): void {
  const spec = route.responses[result.status];
  if (!spec) {
    throw new Error(`${route.operationId} answered ${result.status}, which its contract does not declare`);
  }
  if (!spec.schema) return;
  const parsed = spec.schema.safeParse(
    result.body instanceof JsonText ? JSON.parse(result.body.parts.join('')) : result.body,
  );
  if (!parsed.success) {
    throw new Error(
      `${route.operationId} answered ${result.status} with a body outside its contract: ${parsed.error.message}`,
    );
  }
}

/** Parses and validates a body a `rawBody` route read itself, refusing it as any route's body would be. */
export function parseRequestBody<S extends z.ZodType>(schema: S, raw: Buffer): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw Problem.of('malformed_json', 'The request body is not valid JSON. Send a JSON document.');
  }
  return parsePart('body', schema, value) as z.output<S>;
}

/**
 * A check every module may add to protected routes, run after the caller is authenticated and
 * admitted and before the request is validated (e.g. billing refusing writes while blocked).
 */
export type RouteGuard = (input: { route: AnyRoute; auth: AuthContext | BotActor; req: Request }) => Promise<void>;

export interface MountOptions {
  /** Check every response against its declared schema; a mismatch is a server error. */
  validateResponses: boolean;
  /** Resolves the caller of a protected route from the Authorization header. */
  authenticate: Authenticate;
  /** Resolves an API key (`X-API-Key`, or `Authorization: Bearer orb_…`) to its bot. */
  authenticateKey?: AuthenticateKey;
  /** Modules' checks of every authenticated call (`RouteGuard`), in module order. */
  guards?: readonly RouteGuard[];
}

/**
 * An endpoint whose protocol library writes its own responses (the MCP endpoint): mounted for every
 * method before JSON bodies are parsed (it reads the raw request), described in the OpenAPI
 * document by hand. A problem it throws is answered as any route's.
 */
export interface RawEndpoint {
  path: string;
  handle: (req: Request, res: Response) => Promise<void>;
  openapi: ZodOpenApiPathItemObject;
}

/** Mounts routes on an Express router, each validating its request parts before its handler runs. */
export function mountRoutes(router: Router, routes: readonly AnyRoute[], options: MountOptions): void {
  for (const route of routes) {
    assertParamsDeclared(route);
    const access = routeAccess(route);
    router[route.method](route.path, async (req: Request, res: Response) => {
      // Authentication comes first: an anonymous caller learns nothing, not even what is invalid.
      let auth: AuthContext | BotActor | undefined;
      // A module's own token (an ingestion token) is resolved by the module the route names.
      const tokenAccess = typeof access === 'object' && 'token' in access ? access.token : undefined;
      let tokenCaller: TokenCaller | undefined;
      const key = access === 'public' || tokenAccess ? undefined : apiKeyOf(req);
      if (tokenAccess) {
        tokenCaller = await tokenAccess.authenticate(req);
        res.locals.auth = tokenCaller;
      } else if (key !== undefined) {
        if (!options.authenticateKey)
          throw unauthenticated('API keys are not accepted by this server.', 'invalid_api_key');
        const bot = await options.authenticateKey(key);
        res.locals.auth = bot;
        authorizeBot(route, bot);
        auth = bot;
      } else if (access !== 'public') {
        const member = await options.authenticate(req.headers.authorization);
        res.locals.auth = member;
        authorize(access, member);
        auth = member;
      }
      if (auth) for (const guard of options.guards ?? []) await guard({ route, auth, req });
      const request = route.request ?? {};
      const params = parsePart('params', request.params, req.params);
      const query = parsePart('query', request.query, req.query);
      let body: unknown;
      if (route.rawBody) {
        // Parsed by the handler (after, say, a signature over these bytes is checked).
      } else if (request.body) {
        const types = bodyMediaTypes(route);
        if (hasBody(req) && !req.is(types)) {
          const named = types.filter((type) => !type.includes('*')).join(' or ');
          throw Problem.of(
            'unsupported_media_type',
            `Send the body with Content-Type: ${named} (got ${req.headers['content-type'] ?? 'no Content-Type'}).`,
          );
        }
        body = parsePart('body', request.body, req.body);
      }
      const result = await route.handler({
        auth: tokenCaller ?? auth,
        params,
        query,
        body,
        req,
        res,
        requestId: String(req.id),
        log: req.log,
        rawBody: route.rawBody ? (Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)) : undefined,
      } as HandlerInput<unknown, unknown, unknown>);
      if (options.validateResponses) checkResponse(route, result);
      res.status(result.status);
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
      const contentType = route.responses[result.status]?.contentType;
      if (result.body === undefined) res.end();
      else if (result.body instanceof JsonText) res.type('application/json').send(result.body.bytes());
      else if (contentType && !contentType.includes('json')) res.type(contentType).send(result.body);
      else res.json(result.body);
    });
  }
}

/** Methods that routes accept at a path, for 405 answers; empty when no route has the path. */
export function allowedMethods(routes: readonly AnyRoute[]): (path: string) => string[] {
  const matchers = routes.map((route) => ({ method: route.method.toUpperCase(), matches: match(route.path) }));
  return (path) => {
    const methods = new Set<string>();
    for (const { method, matches } of matchers) {
      if (matches(path)) methods.add(method);
    }
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods];
  };
}
