import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { apiInPage, browserSuite, registeredPage, saveScreenshot, signIn, UI_WAIT_MS } from '../helpers/browser';
import { tokenFromOutbox } from '../helpers/factories';

const suite = browserSuite();
/** Polls wait as long as locators do (the default second is short on a busy machine). */
const POLL = { timeout: UI_WAIT_MS };

async function newPage(locale = 'en-US') {
  const context = await suite.browser.newContext({ locale });
  const page = await context.newPage();
  page.setDefaultTimeout(UI_WAIT_MS);
  return { context, page };
}

interface Me {
  user: { id: string; locale: string };
  organization: { id: string };
}

describe.skipIf(!suite.available)('forgotten passwords and invitations', { timeout: 120_000 }, () => {
  it('mails a reset link, sets a new password through it, then refuses the old password and the spent link', async () => {
    const registered = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Reset Works',
      name: 'Rita',
      email: 'rita@example.org',
    });
    await registered.context.close();

    const { context, page } = await newPage();
    await page.goto(`${suite.t.url}/sign-in`);
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByText('Reset your password').waitFor();
    await page.getByLabel('E-mail').fill('rita@example.org');
    await page.getByRole('button', { name: 'Send the link' }).click();
    const sent = page.getByTestId('forgot-sent');
    await sent.waitFor();
    const confirmation = await sent.textContent();
    expect(confirmation).toContain('If an account uses this address');
    // An address without an account gets the very same answer.
    await page.getByRole('button', { name: 'Send again' }).click();
    await page.getByLabel('E-mail').fill('nobody-here@example.org');
    await page.getByRole('button', { name: 'Send the link' }).click();
    await sent.waitFor();
    expect(await sent.textContent()).toBe(confirmation);

    const token = await tokenFromOutbox(suite.t, 'rita@example.org');
    const link = `${suite.t.url}/reset-password?token=${encodeURIComponent(token)}`;
    await page.goto(link);
    await page.getByLabel('New password').fill('short');
    await page.getByLabel('Repeat the password').fill('short');
    await page.getByRole('button', { name: 'Save the password' }).click();
    await page.getByText('The password needs at least 8 characters').waitFor();
    await page.getByLabel('New password').fill('a brand new secret');
    await page.getByLabel('Repeat the password').fill('a brand new secreT');
    await page.getByRole('button', { name: 'Save the password' }).click();
    await page.getByText('The passwords do not match').waitFor();
    await page.getByLabel('Repeat the password').fill('a brand new secret');
    await page.getByRole('button', { name: 'Save the password' }).click();
    await page.waitForURL(`${suite.t.url}/sign-in`);
    await page.getByText('Password saved. Sign in with your new password.').waitFor();

    await signIn(page, 'rita@example.org', 'long enough password');
    // The toast of the saved password is an alert too: the refusal is the one naming the reason.
    await page.getByRole('alert').filter({ hasText: 'The e-mail or password is wrong' }).waitFor();
    await signIn(page, 'rita@example.org', 'a brand new secret');
    await page.getByTestId('organization-name').waitFor();

    // The link worked once: opened again it says so and offers a new one.
    await page.goto(link);
    await page.getByLabel('New password').fill('yet another secret');
    await page.getByLabel('Repeat the password').fill('yet another secret');
    await page.getByRole('button', { name: 'Save the password' }).click();
    const refused = page.getByTestId('reset-link-invalid');
    await refused.waitFor();
    expect(await refused.textContent()).toContain('This link no longer works');
    expect(await refused.textContent()).toContain('used already or has expired');
    await page.getByRole('link', { name: 'Ask for a new link' }).click();
    await page.waitForURL(`${suite.t.url}/forgot-password`);
    await context.close();
  });

  it('lets an invited colleague set a first password from the invitation link and sign in', async () => {
    const admin = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Invitations',
      name: 'Inna',
      email: 'inna@example.org',
    });
    await apiInPage(admin.page, 'POST', '/api/users', { email: 'ivan@example.org', name: 'Ivan', locale: 'en' });
    const token = await tokenFromOutbox(suite.t, 'ivan@example.org');

    const { context, page } = await newPage();
    await page.goto(`${suite.t.url}/reset-password?token=${encodeURIComponent(token)}`);
    await page.getByText('If you were invited, this completes your joining.').waitFor();
    await page.getByLabel('New password').fill('ivan joins today');
    await page.getByLabel('Repeat the password').fill('ivan joins today');
    await page.getByRole('button', { name: 'Save the password' }).click();
    await page.waitForURL(`${suite.t.url}/sign-in`);
    await signIn(page, 'ivan@example.org', 'ivan joins today');
    await page.getByTestId('organization-name').waitFor();
    const ivan = (await apiInPage(page, 'GET', '/api/auth/me')) as Me;

    // The administrator opens the new colleague's profile by its address.
    await admin.page.goto(`${suite.t.url}/profile?userId=${ivan.user.id}`);
    await admin.page.getByRole('heading', { name: 'Profile: Ivan' }).waitFor();
    expect(await admin.page.getByTestId('profile-email').textContent()).toBe('ivan@example.org');
    await context.close();
    await admin.context.close();
  });

  it('shows a clear message for a reset link without its code', async () => {
    const { context, page } = await newPage();
    await page.goto(`${suite.t.url}/reset-password`);
    await page.getByText('The link has no code').waitFor();
    expect(await page.getByLabel('New password').count()).toBe(0);
    await context.close();
  });
});

describe.skipIf(!suite.available)('the profile', { timeout: 120_000 }, () => {
  it('charts a history-number field that an administrator defines, grouped by week, month, quarter or year', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Scales',
      name: 'Sasha',
      email: 'sasha@example.org',
    });
    await page.getByRole('menuitem', { name: 'Profile' }).click();
    await page.getByRole('heading', { name: 'Profile', exact: true }).waitFor();
    await page.getByText('There are no profile fields yet.').waitFor();

    const definitions = page.getByTestId('field-definitions');
    await definitions.getByLabel('Field name').fill('Weight');
    await definitions.getByLabel('Field type').click();
    await page.getByTitle('Number with history').click();
    await definitions.getByRole('button', { name: 'Add the field' }).click();
    await definitions.getByRole('cell', { name: 'Weight', exact: true }).waitFor();
    expect(await definitions.getByRole('cell', { name: 'Number with history' }).count()).toBe(1);

    const weight = page.getByLabel('Weight', { exact: true });
    await weight.fill('82,5');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const card = page.getByTestId('history-Weight');
    await expect.poll(() => card.getByTestId('history-point').count(), POLL).toBe(1);
    // The field shows the value as the server normalised it.
    await expect.poll(() => weight.inputValue(), POLL).toBe('82.5');
    await weight.fill('80');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => card.getByTestId('history-value').allTextContents(), POLL).toEqual(['81.25']);

    // The API records values only as of now: older history is arranged in the database.
    const me = (await apiInPage(page, 'GET', '/api/auth/me')) as Me;
    const fields = (await apiInPage(page, 'GET', '/api/profile-fields')) as { items: { id: string }[] };
    const fieldId = fields.items[0]?.id as string;
    const past: [string, string][] = [
      ['2023-02-06T09:00:00Z', '10'], // Monday
      ['2023-02-08T09:00:00Z', '20'], // the same week
      ['2023-02-20T09:00:00Z', '30'], // another week of February
      ['2023-03-15T09:00:00Z', '40'], // March: still the first quarter
      ['2023-07-10T09:00:00Z', '50'], // the third quarter
      ['2024-05-01T09:00:00Z', '60'],
    ];
    for (const [at, value] of past) {
      await suite.t.database.db.query(
        `INSERT INTO user_field_history (id, organization_id, user_id, field_id, value, recorded_at)
         VALUES ($1, $2, $3, $4, $5::numeric, $6::timestamptz)`,
        [randomUUID(), me.organization.id, me.user.id, fieldId, value, at],
      );
    }
    await page.reload();
    const points = () => card.getByTestId('history-point').count();
    await expect.poll(points, POLL).toBe(5); // months: Feb, Mar, Jul 2023, May 2024, and now
    expect(await card.getByText('Each point is the average of the values recorded in that month').count()).toBe(1);
    const axis = () => card.getByTestId('history-axis-label').allTextContents();
    expect(await axis()).toContain('Feb 23');

    const grouping = card.getByRole('radiogroup', { name: 'Group by' });
    await grouping.getByText('Week', { exact: true }).click();
    await expect.poll(points, POLL).toBe(6);
    await grouping.getByText('Quarter', { exact: true }).click();
    await expect.poll(points, POLL).toBe(4);
    expect(await axis()).toContain('Q1 2023');
    await grouping.getByText('Year', { exact: true }).click();
    await expect.poll(points, POLL).toBe(3);
    expect(await axis()).toEqual(['2023', '2024', '2026']);
    // 2023 holds 10, 20, 30, 40 and 50; this year 82.5 and 80.
    expect(await card.getByTestId('history-value').allTextContents()).toEqual(['30', '60', '81.25']);
    const chart = card.getByRole('img', { name: /Chart of “Weight” by Year; points: 3/ });
    expect(await chart.count()).toBe(1);

    const table = card.getByRole('region', { name: 'Values as a table' });
    await table.getByRole('row', { name: '2023 30 5' }).waitFor();
    await saveScreenshot(page, 'profile');
    await context.close();
  });

  it('switches the interface language in the profile, keeps it on the account and after a reload', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Languages',
      name: 'Lena',
      email: 'lena@example.org',
    });
    await page.goto(`${suite.t.url}/profile`);
    await page.getByRole('heading', { name: 'Profile', exact: true }).waitFor();
    const locale = async () => ((await apiInPage(page, 'GET', '/api/auth/me')) as Me).user.locale;
    expect(await locale()).toBe('en');

    await page.getByRole('radiogroup', { name: 'Interface language' }).getByText('Русский').click();
    await page.getByRole('heading', { name: 'Профиль', exact: true }).waitFor();
    await page.getByText('Учётная запись').waitFor();
    await expect.poll(locale, POLL).toBe('ru');
    await page.reload();
    await page.getByRole('heading', { name: 'Профиль', exact: true }).waitFor();

    await page.getByRole('radiogroup', { name: 'Язык интерфейса' }).getByText('English').click();
    await page.getByRole('heading', { name: 'Profile', exact: true }).waitFor();
    await expect.poll(locale, POLL).toBe('en');
    await page.reload();
    await page.getByRole('heading', { name: 'Profile', exact: true }).waitFor();
    await page.getByText('Interface language').first().waitFor();

    await page.getByRole('radiogroup', { name: 'Interface language' }).getByText('Русский').click();
    await page.getByRole('heading', { name: 'Профиль', exact: true }).waitFor();
    await expect.poll(locale, POLL).toBe('ru');
    await page.reload();
    await page.getByRole('heading', { name: 'Профиль', exact: true }).waitFor();
    await context.close();
  });
});
