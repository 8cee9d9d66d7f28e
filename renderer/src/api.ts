import type { Problem } from '@shared/api/problem';

const TOKENS_KEY = 'orbita.tokens';

interface Tokens {
  accessToken: string;
  refreshToken: string;
}

/** A failed call: the server's problem (RFC 9457), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
  }
}

export function storedTokens(): Tokens | undefined {
  const raw = localStorage.getItem(TOKENS_KEY);
  return raw ? (JSON.parse(raw) as Tokens) : undefined;
}

export function storeTokens(tokens: Tokens | undefined): void {
  if (tokens) localStorage.setItem(TOKENS_KEY, JSON.stringify(tokens));
  else localStorage.removeItem(TOKENS_KEY);
}

async function send(method: string, path: string, body: unknown, token?: string): Promise<Response> {
  try {
    return await fetch(path, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError({ type: 'about:blank', title: 'Network', status: 0, detail: '', code: 'network' });
  }
}

/** Calls the API with the stored access token, refreshing it once when it has expired. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  let tokens = storedTokens();
  let response = await send(method, path, body, tokens?.accessToken);
  if (response.status === 401 && tokens) {
    const refreshed = await send('POST', '/api/auth/refresh', { refreshToken: tokens.refreshToken });
    if (refreshed.ok) {
      tokens = (await refreshed.json()) as Tokens;
      storeTokens(tokens);
      response = await send(method, path, body, tokens.accessToken);
    } else {
      storeTokens(undefined);
    }
  }
  if (!response.ok) throw new ApiError((await response.json()) as Problem);
  return (response.status === 204 ? undefined : await response.json()) as T;
}
