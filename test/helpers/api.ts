import type { TestApp } from './app';
import { readJson } from './http';

// biome-ignore lint/suspicious/noExplicitAny: tests inspect bodies of any shape.
export type Body = any;

export interface ApiResponse {
  status: number;
  body: Body;
  headers: Headers;
}

/** A JSON client of the app under test, signed in with `accessToken` when given. */
export interface ApiClient {
  accessToken?: string;
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
  get(path: string): Promise<ApiResponse>;
  post(path: string, body?: unknown): Promise<ApiResponse>;
  put(path: string, body?: unknown): Promise<ApiResponse>;
  patch(path: string, body?: unknown): Promise<ApiResponse>;
  delete(path: string, body?: unknown): Promise<ApiResponse>;
}

export function apiClient(t: Pick<TestApp, 'request'>, accessToken?: string): ApiClient {
  const client: ApiClient = {
    accessToken,
    async request(method, path, body, headers = {}) {
      const response = await t.request(path, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...(client.accessToken ? { Authorization: `Bearer ${client.accessToken}` } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      let parsed: Body = text;
      if (text && /json/.test(response.headers.get('content-type') ?? '')) parsed = JSON.parse(text);
      return { status: response.status, body: parsed, headers: response.headers };
    },
    get: (path) => client.request('GET', path),
    post: (path, body) => client.request('POST', path, body ?? {}),
    put: (path, body) => client.request('PUT', path, body ?? {}),
    patch: (path, body) => client.request('PATCH', path, body ?? {}),
    delete: (path, body) => client.request('DELETE', path, body),
  };
  return client;
}

export { readJson };
