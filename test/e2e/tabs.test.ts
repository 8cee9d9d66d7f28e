import type { Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { apiInPage, browserSuite, registeredPage, saveScreenshot, UI_WAIT_MS } from '../helpers/browser';

const suite = browserSuite();

describe.skipIf(!suite.available)('the tabs of one browser and their session', { timeout: 120_000 }, () => {
  it('two tabs work with the one copy of the data in turn: the second asks, takes over, and gives it back when closed', async () => {
    const { context, page: first } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Twin Tabs',
      name: 'Lena',
      email: 'lena@example.org',
    });
    const form = (await apiInPage(first, 'POST', '/api/forms', { name: 'Checks' })) as { id: string };
    await apiInPage(first, 'POST', '/api/tasks', { formId: form.id, title: 'Seen in both tabs' });
    await first.goto(`${suite.t.url}/tasks`);
    await first.getByRole('link', { name: 'Seen in both tabs' }).waitFor();

    const second = await context.newPage();
    second.setDefaultTimeout(UI_WAIT_MS);
    await second.goto(`${suite.t.url}/tasks`);
    await second.getByTestId('other-tab').waitFor();
    expect(await second.getByText('Orbita is open in another tab').count()).toBe(1);
    await saveScreenshot(second, 'other-tab');

    await second.getByRole('button', { name: 'Use here' }).click();
    await second.getByRole('link', { name: 'Seen in both tabs' }).waitFor();
    await first.getByTestId('other-tab').waitFor();
    // The paused tab no longer lists from the copy; screens that ask the server (settings) still work.
    await first.getByRole('link', { name: 'Seen in both tabs' }).waitFor({ state: 'detached' });
    await first.getByRole('menuitem', { name: 'Settings' }).click();
    await first.getByRole('tab', { name: 'Users' }).waitFor();

    // Closing the tab that has the data gives it back to the other one.
    await second.close();
    await first.getByTestId('other-tab').waitFor({ state: 'detached' });
    await first.getByRole('menuitem', { name: 'Tasks' }).click();
    await first.getByRole('link', { name: 'Seen in both tabs' }).waitFor();
    await context.close();
  });

  it('three tabs refresh an expired session in turn: all whose token is refused at once stay signed in', async () => {
    const { context, page: first } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Triple Tabs',
      name: 'Oleg',
      email: 'oleg@example.org',
    });
    const tabs = [first, await context.newPage(), await context.newPage()];
    for (const tab of tabs.slice(1)) {
      tab.setDefaultTimeout(UI_WAIT_MS);
      await tab.goto(suite.t.url);
      await tab.getByTestId('organization-name').waitFor();
    }
    // Every refresh is held until three have come (or two seconds have passed), so the tabs' requests
    // meet at the server as when their token expires at one moment.
    const held: Route[] = [];
    let sent = 0;
    let release: ReturnType<typeof setTimeout> | undefined;
    const releaseAll = () => {
      clearTimeout(release);
      // A refresh coming after a release is held for two seconds again, never for good.
      release = undefined;
      for (const route of held.splice(0)) void route.continue();
    };
    await context.route('**/api/auth/refresh', (route) => {
      sent++;
      held.push(route);
      if (held.length === 3) releaseAll();
      else release ??= setTimeout(releaseAll, 2_000);
    });
    const before = await first.evaluate(() => localStorage.getItem('orbita.tokens') as string);
    // The access token is refused from now on (as once it expires); the refresh token still holds.
    await first.evaluate(
      (tokens) =>
        localStorage.setItem('orbita.tokens', JSON.stringify({ ...JSON.parse(tokens), accessToken: 'expired' })),
      before,
    );
    await Promise.all(tabs.map((tab) => tab.reload()));
    for (const tab of tabs) await tab.getByTestId('organization-name').waitFor();
    // Each tab asks the server with the session it holds now, and is answered.
    for (const tab of tabs) {
      await tab.getByRole('menuitem', { name: 'Settings' }).click();
      await tab.getByRole('tab', { name: 'Users' }).click();
      await tab.getByText('oleg@example.org').first().waitFor();
    }
    const me = (await apiInPage(tabs[2] as (typeof tabs)[number], 'GET', '/api/auth/me')) as {
      user?: { name: string };
    };
    expect(me.user?.name).toBe('Oleg');
    // One tab refreshed; the others took its tokens instead of presenting the old refresh token again.
    expect(sent).toBe(1);
    expect(await first.evaluate(() => localStorage.getItem('orbita.tokens'))).not.toBe(before);
    await context.close();
  });

  it('keeps the session when the server fails to answer a refresh, and refreshes once it answers again', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Restarting Server',
      name: 'Pavel',
      email: 'pavel@example.org',
    });
    const before = JSON.parse(await page.evaluate(() => localStorage.getItem('orbita.tokens') as string)) as {
      accessToken: string;
      refreshToken: string;
    };
    // The access token is refused from the reload on (as once it expires). Set in the reloaded
    // document itself: a write made by the page before the reload may not be read yet by the next
    // document, which then presented the valid token and never needed a refresh.
    await page.addInitScript((issued) => {
      const tokens = JSON.parse(localStorage.getItem('orbita.tokens') ?? 'null');
      if (tokens?.accessToken === issued) {
        localStorage.setItem('orbita.tokens', JSON.stringify({ ...tokens, accessToken: 'expired' }));
      }
    }, before.accessToken);
    // A proxy in front of a restarting server: no problem object, just the status.
    let refused = 0;
    await context.route('**/api/auth/refresh', (route) => {
      refused++;
      return route.fulfill({ status: 503, contentType: 'text/html', body: '<h1>503 Service Unavailable</h1>' });
    });
    await page.reload();
    await page.getByTestId('organization-name').waitFor();
    // The page shows what it remembers before its first call to the server needs the refresh.
    await expect.poll(() => refused, { timeout: UI_WAIT_MS }).toBeGreaterThan(0);
    await page.getByTestId('organization-name').waitFor();
    const kept = JSON.parse((await page.evaluate(() => localStorage.getItem('orbita.tokens'))) ?? 'null') as {
      refreshToken: string;
    } | null;
    expect(kept?.refreshToken).toBe(before.refreshToken);

    await context.unroute('**/api/auth/refresh');
    await page.getByRole('menuitem', { name: 'Settings' }).click();
    await page.getByRole('tab', { name: 'Users' }).click();
    await page.getByText('pavel@example.org').first().waitFor();
    await context.close();
  });
});
