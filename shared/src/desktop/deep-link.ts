/**
 * `orbita://` links: which app paths they may open. A link names a screen of the interface
 * (`orbita://tasks/<id>` → `/tasks/<id>`); anything else is ignored, so a link from a web page or
 * an e-mail can only ever navigate inside the app.
 */

export const DEEP_LINK_SCHEME = 'orbita';

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const UUID_VALUE = new RegExp(`^${UUID}$`);
const TOKEN_VALUE = /^[A-Za-z0-9_-]{16,512}$/;

interface AppRoute {
  path: RegExp;
  /** Query parameters kept (when valid); others are dropped. */
  query?: Record<string, RegExp>;
}

/** The screens a link may open (the renderer's routes). */
const ROUTES: AppRoute[] = [
  { path: /^\/$/ },
  { path: /^\/tasks$/, query: { formId: UUID_VALUE } },
  { path: new RegExp(`^/tasks/${UUID}$`) },
  { path: /^\/forms$/ },
  { path: /^\/forms\/new$/ },
  { path: new RegExp(`^/forms/${UUID}/edit$`) },
  { path: /^\/directories$/ },
  { path: new RegExp(`^/directories/${UUID}$`) },
  { path: /^\/profile$/ },
  { path: /^\/settings(\/(users|roles|access|error-log))?$/ },
  { path: /^\/reset-password$/, query: { token: TOKEN_VALUE } },
];

const MAX_LINK_LENGTH = 2048;

/**
 * The app path (`/tasks/<id>`, with only the query parameters its screen reads) that `pathAndQuery`
 * opens, or undefined when it names no screen. A trailing slash is ignored.
 */
export function appPathOf(pathAndQuery: string): string | undefined {
  if (typeof pathAndQuery !== 'string' || !pathAndQuery.startsWith('/') || pathAndQuery.length > MAX_LINK_LENGTH) {
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(pathAndQuery, 'orbita-app://app');
  } catch {
    return undefined;
  }
  // `//elsewhere/x` names another host: not a path of this app.
  if (url.host !== 'app') return undefined;
  return matchRoute(url.pathname, url.searchParams);
}

/** The app path an `orbita://…` link opens, or undefined for any other or unknown link. */
export function parseDeepLink(link: string): string | undefined {
  if (typeof link !== 'string' || link.length > MAX_LINK_LENGTH) return undefined;
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return undefined;
  }
  if (url.protocol !== `${DEEP_LINK_SCHEME}:` || url.username || url.password || url.port) return undefined;
  // `orbita://tasks/1` puts the first segment in the host; `orbita:///tasks/1` leaves it empty.
  const path = url.host ? `/${url.host}${url.pathname}` : url.pathname || '/';
  return matchRoute(path, url.searchParams);
}

/** The first `orbita://` link among command-line arguments (how Windows and Linux pass a link). */
export function deepLinkInArguments(argv: readonly string[]): string | undefined {
  for (const argument of argv) {
    if (typeof argument === 'string' && argument.toLowerCase().startsWith(`${DEEP_LINK_SCHEME}:`)) {
      return parseDeepLink(argument);
    }
  }
  return undefined;
}

function matchRoute(rawPath: string, params: URLSearchParams): string | undefined {
  const path = rawPath.length > 1 ? rawPath.replace(/\/+$/, '') : rawPath;
  const route = ROUTES.find((candidate) => candidate.path.test(path));
  if (!route) return undefined;
  const kept = new URLSearchParams();
  for (const [name, valid] of Object.entries(route.query ?? {})) {
    const value = params.get(name);
    if (value !== null && valid.test(value)) kept.set(name, value);
  }
  const query = kept.toString();
  return query ? `${path}?${query}` : path;
}
