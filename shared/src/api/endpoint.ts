import type { z } from 'zod';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One documented response of an operation. JSON unless `contentType` says otherwise. */
export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
}

type Schema = z.ZodType | undefined;

/**
 * The contract of one `/api` operation: where it is, what it takes (zod schemas of each request
 * part) and what it answers (by status). The server mounts and documents it (`defineRoute`), and
 * clients call it typed (`call` in the renderer) from this one declaration.
 */
export interface Endpoint<
  P extends Schema = Schema,
  Q extends Schema = Schema,
  B extends Schema = Schema,
  R extends Record<number, ResponseSpec> = Record<number, ResponseSpec>,
> {
  method: HttpMethod;
  /** Express-style path, e.g. `/api/tasks/:taskId`. */
  path: `/api/${string}` | '/api';
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  request?: { params?: P; query?: Q; body?: B };
  responses: R;
}

/** Declares an operation's contract, keeping its schemas' and responses' types for server and clients. */
export function endpoint<
  P extends Schema = undefined,
  Q extends Schema = undefined,
  B extends Schema = undefined,
  const R extends Record<number, ResponseSpec> = Record<number, ResponseSpec>,
>(contract: Endpoint<P, Q, B, R>): Endpoint<P, Q, B, R> {
  return contract;
}

type RequestPart<E, K extends 'params' | 'query' | 'body'> =
  E extends Endpoint<infer P, infer Q, infer B> ? { params: P; query: Q; body: B }[K] : undefined;

/**
 * What a client sends for a schema: its input, except that a value the server coerces from text
 * (`z.coerce.number()`, whose input is anything) is sent as the value it becomes.
 */
type Sent<S extends z.ZodType> = {
  [K in keyof z.input<S>]: unknown extends z.input<S>[K] ? z.output<S>[K & keyof z.output<S>] : z.input<S>[K];
};

/** A request part as a call gives it; a query whose every value is optional may be left out. */
type PartInput<S, Name extends 'params' | 'query' | 'body'> = S extends z.ZodType
  ? Name extends 'query'
    ? Partial<Sent<S>> extends Sent<S>
      ? { [Key in Name]?: Sent<S> }
      : { [Key in Name]: Sent<S> }
    : { [Key in Name]: Sent<S> }
  : { [Key in Name]?: undefined };

/** What a call of the operation sends: path parameters, query and JSON body as its contract takes them. */
export type CallInput<E extends Endpoint> = PartInput<RequestPart<E, 'params'>, 'params'> &
  PartInput<RequestPart<E, 'query'>, 'query'> &
  PartInput<RequestPart<E, 'body'>, 'body'> & { headers?: Record<string, string> };

/** The arguments after the operation: none needed when it takes nothing required. */
export type CallArgs<E extends Endpoint> =
  Partial<CallInput<E>> extends CallInput<E> ? [input?: CallInput<E>] : [input: CallInput<E>];

type SuccessSpec<R> = 200 extends keyof R
  ? R[200]
  : 201 extends keyof R
    ? R[201]
    : 202 extends keyof R
      ? R[202]
      : undefined;

/** What the operation answers on success (200, else 201, else 202); undefined when it answers no body. */
export type CallResult<E extends Endpoint> =
  E extends Endpoint<Schema, Schema, Schema, infer R>
    ? SuccessSpec<R> extends { schema: infer S extends z.ZodType }
      ? z.output<S>
      : undefined
    : undefined;

/** The URL of a call: the path with its `:params` filled in (encoded), then the query's defined values. */
export function endpointUrl(contract: Pick<Endpoint, 'path'>, input: { params?: object; query?: object } = {}): string {
  const params = (input.params ?? {}) as Record<string, unknown>;
  const path = contract.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === null) throw new Error(`${contract.path} needs the path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(input.query ?? {})) {
    if (value !== undefined && value !== null) query.append(name, String(value));
  }
  const search = query.toString();
  return search ? `${path}?${search}` : path;
}
