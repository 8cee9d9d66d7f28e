import { describe, expect, it } from 'vitest';
import { apiInPage, browserSuite, registeredPage, saveScreenshot } from '../helpers/browser';

const suite = browserSuite();

describe.skipIf(!suite.available)('two tabs of one browser', { timeout: 120_000 }, () => {
  it('work with the one copy of the data in turn: the second asks, takes over, and gives it back when closed', async () => {
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
    second.setDefaultTimeout(15_000);
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
});
