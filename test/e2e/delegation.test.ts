import { describe, expect, it } from 'vitest';
import {
  apiInPage,
  browserSuite,
  joinedPerson,
  registeredPage,
  saveScreenshot,
  signInPage,
  waitOrExplain,
} from '../helpers/browser';

const suite = browserSuite();

describe.skipIf(!suite.available)('delegation in the browser', { timeout: 120_000 }, () => {
  it('names a substitute in the profile; the substitute finds the task under Substitution; the returning user acknowledges it', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Substituted',
      name: 'Alla',
      email: 'alla-delegation@example.org',
    });
    const annaId = await joinedPerson(suite.t, page, 'Anna', 'anna-delegation@example.org');
    await joinedPerson(suite.t, page, 'Boris', 'boris-delegation@example.org');
    const form = (await apiInPage(page, 'POST', '/api/forms', { name: 'Repairs' })) as { id: string };
    const task = (await apiInPage(page, 'POST', '/api/tasks', { formId: form.id, title: 'Pump 21' })) as { id: string };

    const anna = await signInPage(suite.browser, suite.t.url, 'anna-delegation@example.org', 'Anna joins the crew');
    await anna.page.waitForURL(`${suite.t.url}/`);
    await anna.page.goto(`${suite.t.url}/profile`);
    const card = anna.page.getByTestId('substitution-card');
    await card.getByText('No substitutes named').waitFor();
    await card.getByLabel('Substitute').click();
    await anna.page.getByTitle('Boris').click();
    const local = (shift: number) => {
      // datetime-local in Moscow time (UTC+3), as the form takes it.
      const at = new Date(Date.now() + shift + 3 * 3_600_000);
      return at.toISOString().slice(0, 16);
    };
    await card.getByLabel('From (Moscow time)').fill(local(-3_600_000));
    await card.getByLabel('To (Moscow time)').fill(local(24 * 3_600_000));
    await card.getByRole('button', { name: 'Name a substitute' }).click();
    await anna.page.getByText('Substitute named').waitFor();
    await card.getByRole('cell', { name: 'Boris' }).waitFor();

    expect(
      (await apiInPage(page, 'POST', `/api/tasks/${task.id}/assignees`, { userId: annaId })) as object,
    ).toBeDefined();
    const boris = await signInPage(suite.browser, suite.t.url, 'boris-delegation@example.org', 'Boris joins the crew');
    await boris.page.waitForURL(`${suite.t.url}/`);
    await boris.page.getByText('Substitution', { exact: true }).click();
    const item = boris.page.getByTestId('inbox-item').filter({ hasText: 'Pump 21' });
    await waitOrExplain(boris.page, item);
    expect(await item.textContent()).toContain('substitution');
    await boris.page.goto(`${suite.t.url}/tasks/${task.id}`);
    await boris.page.getByTestId('substitute-for').filter({ hasText: 'Substitute for Anna' }).waitFor();
    await saveScreenshot(boris.page, 'task-substitute');

    await anna.page.goto(`${suite.t.url}/tasks/${task.id}`);
    await anna.page.getByTestId('acknowledge').click();
    await anna.page.getByText('Acknowledged: you have seen the changes').waitFor();
    const reviews = (await apiInPage(anna.page, 'GET', '/api/home/inbox?reason=delegation_review')) as {
      items: unknown[];
    };
    expect(reviews.items).toEqual([]);
    await Promise.all([context.close(), anna.context.close(), boris.context.close()]);
  });
});
