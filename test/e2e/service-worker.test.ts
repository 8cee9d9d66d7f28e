import { cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { RENDERER_DIST } from '../../server/src/platform/http/web-app';
import { browserSuite, registeredPage, serviceWorkerInControl } from '../helpers/browser';

// The interface is served from a copy, so that a test can put a new release in its place.
const webRoot = mkdtempSync(path.join(tmpdir(), 'orbita-web-'));
// A build of one's own (E2E_WEB_ROOT) serves as well as renderer/dist.
cpSync(process.env.E2E_WEB_ROOT || RENDERER_DIST, webRoot, { recursive: true });
const suite = browserSuite({ webRoot });
afterAll(() => rmSync(webRoot, { recursive: true, force: true }));

/** Paths of what the service worker keeps. */
function keptPaths(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const cache = await caches.open('orbita-shell-v1');
    return (await cache.keys()).map((request) => new URL(request.url).pathname).sort();
  });
}

/** Publishes a "new release": the bundle under a new hashed name, the page referring to it. */
function release(): { before: string; after: string } {
  const assets = path.join(webRoot, 'assets');
  const before = readdirSync(assets).find((name) => name.endsWith('.js')) as string;
  const after = before.replace(/\.js$/, '-next.js');
  renameSync(path.join(assets, before), path.join(assets, after));
  const index = path.join(webRoot, 'index.html');
  writeFileSync(index, readFileSync(index, 'utf8').replaceAll(`/assets/${before}`, `/assets/${after}`));
  return { before: `/assets/${before}`, after: `/assets/${after}` };
}

describe.skipIf(!suite.available)('the service worker keeping the shell', { timeout: 120_000 }, () => {
  it('keeps only the current release: a new one replaces the old assets and still opens offline', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Harbour Office',
      name: 'Rita',
      email: 'rita@example.org',
    });
    await serviceWorkerInControl(page);
    // Under the worker's control, a load keeps the page and its bundle.
    await page.reload();
    await page.getByTestId('organization-name').waitFor();
    await expect
      .poll(() => keptPaths(page), { timeout: 10_000 })
      .toContainEqual(expect.stringMatching(/^\/assets\/.+\.js$/));
    const { before, after } = release();

    await page.reload();
    await page.getByTestId('organization-name').waitFor();
    // The page and what it loads: the new bundle and its stylesheets, nothing of the old release.
    const styles = [
      ...readFileSync(path.join(webRoot, 'index.html'), 'utf8').matchAll(/href="(\/assets\/[^"]+\.css)"/g),
    ].map((match) => match[1] as string);
    await expect.poll(() => keptPaths(page), { timeout: 10_000 }).toEqual(['/', after, ...styles].sort());
    expect(await keptPaths(page)).not.toContain(before);

    await context.setOffline(true);
    await page.reload();
    await page.getByTestId('organization-name').waitFor();
    expect(await page.evaluate(() => document.querySelector('script[src]')?.getAttribute('src'))).toBe(after);
    await context.close();
  });
});
