import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APP_SCHEME_PRIVILEGES,
  appUrl,
  contentSecurityPolicy,
  createAppProtocolHandler,
  isAppUrl,
} from './app-protocol';

let dir: string;
let handle: ReturnType<typeof createAppProtocolHandler>;
const TASK_ID = '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'orbita-app-protocol-'));
  const root = path.join(dir, 'dist');
  await mkdir(path.join(root, 'assets'), { recursive: true });
  await writeFile(path.join(root, 'index.html'), '<!doctype html><title>Orbita</title>');
  await writeFile(path.join(root, 'assets', 'index-abc123.js'), 'console.log("app")');
  await writeFile(path.join(root, 'assets', 'logo.svg'), '<svg/>');
  await writeFile(path.join(dir, 'secret.txt'), 'outside the app');
  // Shares the root's name as a prefix: a check by string prefix alone would let it through.
  await mkdir(path.join(dir, 'dist-private'));
  await writeFile(path.join(dir, 'dist-private', 'key.txt'), 'private key');
  handle = createAppProtocolHandler({ root, serverUrl: 'https://orbita.example:8443' });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const get = (url: string, method = 'GET') => handle({ url, method });

describe('app:// protocol', () => {
  it('serves files of the renderer build with their content type', async () => {
    const page = await get('app://orbita/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<title>Orbita</title>');

    const script = await get('app://orbita/assets/index-abc123.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toBe('console.log("app")');

    expect((await get('app://orbita/assets/logo.svg')).headers.get('content-type')).toBe('image/svg+xml');
  });

  it("answers the interface's own routes with index.html so the app loads at a deep path", async () => {
    for (const route of [`/tasks/${TASK_ID}`, '/settings/users', '/reset-password?token=abc', '/tasks/']) {
      const response = await get(`app://orbita${route}`);
      expect(response.status, route).toBe(200);
      expect(await response.text(), route).toContain('<title>Orbita</title>');
    }
  });

  it('gives its pages a Content-Security-Policy that lets them reach only the bundle and the Orbita server', async () => {
    const policy = (await get('app://orbita/tasks/1')).headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self' https://orbita.example:8443 wss://orbita.example:8443");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toMatch(/script-src[^;]*unsafe/);
    expect(contentSecurityPolicy('http://10.0.0.5:3000')).toContain(
      "connect-src 'self' http://10.0.0.5:3000 ws://10.0.0.5:3000",
    );
  });

  it('lets the pages reach the configured tile origin (not its other paths’ hosts) and run MapLibre’s blob: workers', () => {
    const policy = contentSecurityPolicy('http://10.0.0.5:3000', 'https://tiles.example.org:8443/styles/base.json');
    expect(policy).toContain(
      "connect-src 'self' http://10.0.0.5:3000 ws://10.0.0.5:3000 https://tiles.example.org:8443;",
    );
    expect(policy).toContain("worker-src 'self' blob:");
    expect(contentSecurityPolicy('http://10.0.0.5:3000', 'file:///etc/passwd')).toContain(
      "connect-src 'self' http://10.0.0.5:3000 ws://10.0.0.5:3000;",
    );
  });

  it('refuses tile requests when no tile source is configured', async () => {
    expect((await get('app://orbita/_tiles/https://tiles.example.org/1/0/0.png')).status).toBe(403);
  });

  it('answers 404, not the page, for a missing file and for server paths', async () => {
    for (const route of ['/assets/missing.js', '/favicon.ico', '/api/health', '/api/tasks', '/socket.io/']) {
      const response = await get(`app://orbita${route}`);
      expect(response.status, route).toBe(404);
      expect(await response.text(), route).not.toContain('<title>');
    }
  });

  it('refuses paths that lead outside the build', async () => {
    for (const route of [
      '/..%2fsecret.txt',
      '/..%2f..%2f..%2f..%2fetc%2fpasswd',
      '/assets/..%2f..%2fsecret.txt',
      '/..%2fdist-private%2fkey.txt',
      '/..%5csecret.txt',
    ]) {
      const response = await get(`app://orbita${route}`);
      const body = await response.text();
      expect([403, 404], route).toContain(response.status);
      expect(body, route).not.toContain('outside the app');
      expect(body, route).not.toContain('private key');
      expect(body, route).not.toContain('<title>');
    }
    expect((await get('app://orbita/..%2fsecret.txt')).status).toBe(403);
    expect((await get('app://orbita/..%2fdist-private%2fkey.txt')).status).toBe(403);
  });

  it('refuses malformed paths, other hosts and methods other than GET and HEAD', async () => {
    expect((await get('app://orbita/%E0%A4%A')).status).toBe(400);
    expect((await get('app://orbita/index.html%00.js')).status).toBe(400);
    expect((await get('app://elsewhere/index.html')).status).toBe(404);
    expect((await get('app://orbita/index.html', 'POST')).status).toBe(405);
    const head = await get('app://orbita/assets/index-abc123.js', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String('console.log("app")'.length));
    expect(await head.text()).toBe('');
  });

  it('registers app:// as a standard, secure scheme with fetch support', () => {
    expect(APP_SCHEME_PRIVILEGES.scheme).toBe('app');
    expect(APP_SCHEME_PRIVILEGES.privileges).toMatchObject({ standard: true, secure: true, supportFetchAPI: true });
  });

  it("tells the app's own pages from everything else", () => {
    expect(isAppUrl('app://orbita/')).toBe(true);
    expect(isAppUrl(appUrl(`/tasks/${TASK_ID}`))).toBe(true);
    expect(isAppUrl('app://orbita.evil/')).toBe(false);
    expect(isAppUrl('app://other/')).toBe(false);
    expect(isAppUrl('https://orbita/')).toBe(false);
    expect(isAppUrl('file:///etc/passwd')).toBe(false);
    expect(isAppUrl('not a url')).toBe(false);
  });
});
