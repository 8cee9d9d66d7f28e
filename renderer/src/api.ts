import { type CallArgs, type CallInput, type CallResult, type Endpoint, endpointUrl } from '@shared/api/endpoint';
import type { Problem } from '@shared/api/problem';
import { desktopBridge } from './desktop';
import { forgetHandover, handedOver, handOver } from './session-handover';

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

/** Where a change of the session's tokens was made: in this tab, or in another tab of the browser. */
export type TokensSource = 'this-tab' | 'other-tab';
type TokensListener = (tokens: Tokens | undefined, source: TokensSource) => void;

const tokenListeners = new Set<TokensListener>();

export function storeTokens(tokens: Tokens | undefined): void {
  if (tokens) localStorage.setItem(TOKENS_KEY, JSON.stringify(tokens));
  else {
    localStorage.removeItem(TOKENS_KEY);
    forgetHandover().catch(() => undefined);
  }
  for (const listener of tokenListeners) listener(tokens, 'this-tab');
}

// The tabs of a browser share one session: a sign-in, refresh or sign-out in another tab reaches
// this one's listeners too (`storage` events fire in the other tabs only; a null key is a clear()).
globalThis.addEventListener?.('storage', (event: StorageEvent) => {
  if (event.key !== TOKENS_KEY && event.key !== null) return;
  const tokens = storedTokens();
  for (const listener of tokenListeners) listener(tokens, 'other-tab');
});

/** Calls `listener` whenever the session's tokens change (refreshed, or gone on sign-out), in any tab. */
export function onTokens(listener: TokensListener): () => void {
  tokenListeners.add(listener);
  return () => tokenListeners.delete(listener);
}

const deactivationListeners = new Set<() => void>();

/**
 * Calls `listener` when the server says the signed-in account is deactivated (`accountDeactivated`),
 * before the session's tokens are forgotten.
 */
export function onAccountDeactivated(listener: () => void): () => void {
  deactivationListeners.add(listener);
  return () => deactivationListeners.delete(listener);
}

/**
 * The server said the signed-in account is deactivated (a request, a refresh or the sync
 * connection): the session ends and this device's copy of the account's data is removed
 * (`ReplicaProvider`).
 */
export function accountDeactivated(): void {
  for (const listener of [...deactivationListeners]) listener();
}

/**
 * Where the server is: this page's origin in the browser build; the configured server in the
 * desktop app, whose pages come from `app://orbita`.
 */
export function serverUrl(): string {
  return desktopBridge()?.serverUrl ?? '';
}

/** The server cannot be reached: no answer, or a gateway's answer in its place. */
const UNREACHABLE: Problem = { type: 'about:blank', title: 'Network', status: 0, detail: '', code: 'network' };

async function send(
  method: string,
  path: string,
  body: unknown,
  token?: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  try {
    return await fetch(`${serverUrl()}${path}`, {
      method,
      headers: {
        ...headers,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(UNREACHABLE);
  }
}

let refreshing: Promise<Tokens | undefined> | undefined;

const REVOCATIONS_KEY = 'orbita.revocations';

function unsentSignOuts(): string[] {
  try {
    const hashes: unknown = JSON.parse(localStorage.getItem(REVOCATIONS_KEY) ?? '[]');
    return Array.isArray(hashes) ? hashes.filter((hash): hash is string => typeof hash === 'string') : [];
  } catch {
    return [];
  }
}

function keepUnsentSignOuts(hashes: string[]): void {
  if (hashes.length === 0) localStorage.removeItem(REVOCATIONS_KEY);
  else localStorage.setItem(REVOCATIONS_KEY, JSON.stringify(hashes.slice(-20)));
}

/**
 * Ends the session on the server: at once, or — without the network — as soon as the server can
 * be reached again (`sendUnsentSignOuts`). Until then the device keeps only the refresh token's
 * SHA-256, which can end the session and grants nothing else.
 */
export async function endSessionOnServer(refreshToken: string | undefined): Promise<void> {
  if (!refreshToken) return;
  if (await heard({ refreshToken })) return;
  const subtle = globalThis.crypto?.subtle;
  // Without Web Crypto (plain HTTP on a LAN address) the token simply expires on the server.
  if (!subtle) return;
  const digest = new Uint8Array(await subtle.digest('SHA-256', new TextEncoder().encode(refreshToken)));
  const hash = Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
  keepUnsentSignOuts([...unsentSignOuts().filter((kept) => kept !== hash), hash]);
  retryUnsentSignOuts();
}

/** Whether the server answered a sign-out (done, or refused as malformed: nothing to try again). */
function heard(body: { refreshToken: string } | { refreshTokenHash: string }): Promise<boolean> {
  return send('POST', '/api/auth/logout', body).then(
    (response) => response.status < 500,
    () => false,
  );
}

let sendingSignOuts: Promise<void> | undefined;
/** The next try of the sign-outs the server has not heard yet, and the wait before it. */
let signOutRetry: ReturnType<typeof setTimeout> | undefined;
let signOutRetryMs = 0;
const SIGN_OUT_RETRY_FIRST_MS = 5_000;
const SIGN_OUT_RETRY_MAX_MS = 60_000;

/**
 * Tells the server of the sign-outs made without the network; those it cannot hear yet are tried
 * again, after 5 s and then twice as long each time up to a minute (the network may be back without
 * the browser saying so, or the server down while the network is up), and whenever the browser
 * says the network is back.
 */
export function sendUnsentSignOuts(): Promise<void> {
  sendingSignOuts ??= (async () => {
    for (const hash of unsentSignOuts()) {
      if (!(await heard({ refreshTokenHash: hash }))) return retryUnsentSignOuts();
      keepUnsentSignOuts(unsentSignOuts().filter((kept) => kept !== hash));
    }
    signOutRetryMs = 0;
  })().finally(() => {
    sendingSignOuts = undefined;
  });
  return sendingSignOuts;
}

function retryUnsentSignOuts(): void {
  if (signOutRetry !== undefined) return;
  signOutRetryMs = Math.min(Math.max(SIGN_OUT_RETRY_FIRST_MS, signOutRetryMs * 2), SIGN_OUT_RETRY_MAX_MS);
  signOutRetry = setTimeout(() => {
    signOutRetry = undefined;
    void sendUnsentSignOuts();
  }, signOutRetryMs);
}

/**
 * Runs `work` while no other tab of this browser refreshes the session. A refresh token is
 * single-use, and the server takes only the token just replaced as a second refresh (within its
 * grace period): a third tab refreshing with the same token would be taken for a stolen one and
 * end the session everywhere. Without Web Locks (plain HTTP on a LAN address) tabs refresh as
 * they did, each on its own.
 */
function oneTabAtATime<T>(work: () => Promise<T>): Promise<T> {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  return locks ? (locks.request('orbita.session.refresh', work) as Promise<T>) : work();
}

/**
 * Trades the refresh token for new tokens. Concurrent callers share one request, and the tabs of a
 * browser take turns (`oneTabAtATime`): a tab whose turn comes after another tab refreshed — the
 * stored tokens are no longer those it began with, or no longer hold the access token the server
 * refused (`rejected`) — takes those tokens instead of refreshing again; where this tab's
 * localStorage has not caught up with that refresh yet, the tokens it handed over (`handOver`)
 * tell. Resolves undefined when the session is over (and forgets it); a failure to reach the
 * server, or its failure to answer (5xx, too many requests), throws and keeps the session for a
 * later try.
 */
export function refreshSession(rejected?: string): Promise<Tokens | undefined> {
  refreshing ??= (async () => {
    const began = storedTokens();
    return oneTabAtATime(async () => {
      const stored = storedTokens();
      if (!stored) return undefined;
      // This tab may not read yet what the tab whose turn just ended stored.
      const handed = await handedOver(stored.refreshToken).catch(() => undefined);
      if (handed) storeTokens(handed);
      const tokens = handed ?? stored;
      const refreshedElsewhere =
        tokens.refreshToken !== began?.refreshToken || (rejected !== undefined && tokens.accessToken !== rejected);
      if (refreshedElsewhere) return tokens;
      const refreshed = await send('POST', '/api/auth/refresh', { refreshToken: tokens.refreshToken });
      if (!refreshed.ok) {
        if (refreshed.status >= 500 || refreshed.status === 408 || refreshed.status === 429) {
          throw new ApiError(await problemOf(refreshed));
        }
        if ((await problemOf(refreshed)).code === 'account_deactivated') accountDeactivated();
        // Another tab without Web Locks may have refreshed first: its tokens are the session now.
        const current = storedTokens();
        if (current && current.refreshToken !== tokens.refreshToken) return current;
        storeTokens(undefined);
        return undefined;
      }
      const next = (await refreshed.json()) as Tokens;
      storeTokens(next);
      // Before the turn ends: the next tab reads this even where localStorage has not caught up.
      await handOver(tokens.refreshToken, next).catch(() => undefined);
      return next;
    });
  })().finally(() => {
    refreshing = undefined;
  });
  return refreshing;
}

/**
 * The problem a failed answer carries. One without (a proxy's page) from a gateway that could not
 * reach the server (502, 503, 504) means what no answer means: the device works on without it.
 */
async function problemOf(response: Response): Promise<Problem> {
  const body: unknown = await response.json().catch(() => undefined);
  if (body && typeof body === 'object' && 'status' in body && 'detail' in body) return body as Problem;
  if ([502, 503, 504].includes(response.status)) return UNREACHABLE;
  return {
    type: 'about:blank',
    title: response.statusText || 'Error',
    status: response.status,
    detail: `The server answered ${response.status} ${response.statusText}.`.replace(' .', '.'),
    code: 'internal_error',
  };
}

/**
 * Calls an operation of the `/api` contract with the stored access token, refreshing it once when
 * it has expired. Its params, query and body are checked by the compiler against the contract,
 * and the answer is typed by the operation's success response.
 */
export async function call<E extends Endpoint>(endpoint: E, ...[input]: CallArgs<E>): Promise<CallResult<E>> {
  const response = await authorizedCall(endpoint, input);
  return (response.status === 204 ? undefined : await response.json()) as CallResult<E>;
}

/** A file an operation answers (e.g. the CSV export, a QR code image), fetched with the session as `call()` does. */
export async function callForFile<E extends Endpoint>(endpoint: E, ...[input]: CallArgs<E>): Promise<Blob> {
  return (await authorizedCall(endpoint, input)).blob();
}

/** A file the server made, with the name its `Content-Disposition` gives. */
export interface Download {
  blob: Blob;
  fileName: string | undefined;
  headers: Headers;
}

/** The UTF-8 `filename*` of a Content-Disposition header, else its plain `filename`. */
export function dispositionFileName(header: string | null): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (extended?.[1]) return decodeURIComponent(extended[1]);
  return /filename="([^"]*)"/i.exec(header)?.[1];
}

/**
 * Asks an operation for a file (e.g. a QR code archive) and reads it while reporting progress: the
 * share received so far, 0..1, when the server said the length; undefined while it works.
 */
export async function callForDownload<E extends Endpoint>(
  endpoint: E,
  input: CallInput<E>,
  onProgress: (received: number, share: number | undefined) => void,
): Promise<Download> {
  const response = await authorizedCall(endpoint, input);
  const total = Number(response.headers.get('Content-Length')) || undefined;
  const parts: Uint8Array[] = [];
  let received = 0;
  onProgress(0, total ? 0 : undefined);
  const reader = response.body?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    received += value.length;
    onProgress(received, total ? Math.min(1, received / total) : undefined);
  }
  return {
    blob: new Blob(parts as BlobPart[], { type: response.headers.get('Content-Type') ?? undefined }),
    fileName: dispositionFileName(response.headers.get('Content-Disposition')),
    headers: response.headers,
  };
}

/** Hands a blob to the browser (or the desktop app's save dialog) as a downloaded file. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the link; the URL is no longer needed after this tick.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Sends with the session's token, refreshing it once on a 401; a failed answer throws its problem. */
async function authorized(
  method: string,
  path: string,
  body: unknown,
  headers?: Record<string, string>,
): Promise<Response> {
  let tokens = storedTokens();
  let response = await send(method, path, body, tokens?.accessToken, headers);
  if (response.status === 401 && tokens) {
    tokens = await refreshSession(tokens.accessToken);
    if (tokens) response = await send(method, path, body, tokens.accessToken, headers);
  }
  if (!response.ok) {
    const problem = await problemOf(response);
    // About the signed-in account; a sign-in's answer is about the account it names.
    if (tokens && problem.code === 'account_deactivated' && path !== '/api/auth/login') accountDeactivated();
    throw new ApiError(problem);
  }
  return response;
}

/** Sends a call of an operation of the contract with the session, as `authorized` does. */
function authorizedCall(endpoint: Endpoint, input: SentCall | undefined): Promise<Response> {
  return authorized(endpoint.method.toUpperCase(), endpointUrl(endpoint, input), input?.body, input?.headers);
}

/** What any call sends, whatever its operation. */
interface SentCall {
  params?: object;
  query?: object;
  body?: unknown;
  headers?: Record<string, string>;
}
