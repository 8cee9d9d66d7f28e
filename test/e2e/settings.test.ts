import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { readOutbox } from '../../server/src/platform/mail/mailer';
import {
  apiInPage,
  browserSuite,
  registeredPage,
  rowNode,
  saveScreenshot,
  UI_WAIT_MS,
  waitOrExplain,
} from '../helpers/browser';
import { tokenFromOutbox } from '../helpers/factories';
import { jobsDone } from '../helpers/jobs';
import { connectSync } from '../helpers/sync-client';

const suite = browserSuite();

let organizations = 0;
/** A new organization per test, so that lists and the error log hold only what the test made. */
function admin(name: string) {
  organizations += 1;
  return registeredPage(suite.browser, suite.t.url, {
    organization: `Settings ${organizations}`,
    name,
    email: `${name.toLowerCase()}-${organizations}@example.org`,
  });
}

async function mailsTo(email: string) {
  await jobsDone(suite.t);
  return (await readOutbox(suite.t.dataDir)).filter((mail) => mail.to === email);
}

/** The error log is written once the response is sent: wait until the entry is there. */
async function waitForLogged(page: Page, path: string) {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const log = (await apiInPage(page, 'GET', '/api/error-logs')) as { items: { path: string }[] };
    if (log.items.some((entry) => entry.path === path)) return;
    await sleep(100);
  }
  throw new Error(`${path} never reached the error log`);
}

/** Waits for drawers, dialogs and tooltips to finish moving, so the screenshot shows them settled. */
async function settled(page: Page) {
  await page.waitForFunction(() => document.getAnimations().every((animation) => animation.playState !== 'running'));
}

describe.skipIf(!suite.available)('settings in the browser', { timeout: 120_000 }, () => {
  it('invites a colleague (listed as invited, invitation mailed and resent), makes them an administrator, finds and deactivates them', async () => {
    const { context, page } = await admin('Anna');
    // /settings opens its first tab.
    await page.goto(`${suite.t.url}/settings`);
    await page.waitForURL(`${suite.t.url}/settings/users`);
    await page.getByTestId('user-row').first().waitFor();

    await page.getByRole('button', { name: 'Invite a user' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('E-mail', { exact: true }).fill('Petr@Example.org');
    await dialog.getByLabel('Name', { exact: true }).fill('Petr');
    await dialog.getByRole('button', { name: 'Send the invitation' }).click();
    const row = page.locator('[data-testid="user-row"][data-email="petr@example.org"]');
    await row.getByTestId('user-status').filter({ hasText: 'Invited' }).waitFor();
    expect(await row.textContent()).toContain('Petr');
    const first = await mailsTo('petr@example.org');
    expect(first).toHaveLength(1);
    expect(first[0]?.subject).toContain('Anna invites you');

    await page.getByLabel('Send the invitation again: Petr').click();
    await page.getByText('A new invitation was sent to petr@example.org').waitFor();
    expect(await mailsTo('petr@example.org')).toHaveLength(2);

    // Make Petr an administrator through the edit dialog; the list shows it.
    await page.getByLabel('Edit user Petr').click();
    await page.getByRole('dialog').getByText('Administrator of the organization').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await row.getByText('Administrator').waitFor();
    const users = (await apiInPage(page, 'GET', '/api/users')) as { items: { email: string; isAdmin: boolean }[] };
    expect(users.items.find((user) => user.email === 'petr@example.org')?.isAdmin).toBe(true);

    // The search narrows the list.
    await page.getByLabel('Search by name or e-mail').fill('petr');
    await page.getByText('Showing 1 of 2').waitFor();
    expect(await page.getByTestId('user-row').count()).toBe(1);
    await page.getByLabel('Search by name or e-mail').fill('');
    await page.getByText('Showing 2 of 2').waitFor();

    // Deactivation ends Petr's access; the status filter finds him.
    await page.getByLabel('Deactivate user Petr').click();
    // The administrator is told what it does to Petr's devices.
    await page
      .locator('.ant-popconfirm')
      .filter({ hasText: 'the copy of the organization’s data on their devices is removed' })
      .waitFor();
    await page.locator('.ant-popconfirm').getByRole('button', { name: 'Yes' }).click();
    await row.getByTestId('user-status').filter({ hasText: 'Deactivated' }).waitFor();
    await page.getByLabel('Reactivate user Petr').waitFor();
    await page.getByLabel('Filter by status').click();
    await page.getByTitle('Deactivated').click();
    await page.getByText('Showing 1 of 2').waitFor();
    expect(await page.getByTestId('user-row').textContent()).toContain('Petr');
    await page.getByLabel('Filter by status').click();
    await page.getByTitle('All statuses').click();
    await page.getByText('Showing 2 of 2').waitFor();
    await settled(page);
    await saveScreenshot(page, 'settings-users');
    await context.close();
  });

  it('creates a role and adds a member to it', async () => {
    const { context, page } = await admin('Boris');
    await page.goto(`${suite.t.url}/settings`);
    // `/settings` opens the users tab first.
    await page.waitForURL(`${suite.t.url}/settings/users`);
    await page.getByRole('tab', { name: 'Roles' }).click();
    await page.waitForURL(`${suite.t.url}/settings/roles`);
    await page.getByText('No roles yet').waitFor();

    await page.getByLabel('Name of the new role').fill('Dispatchers');
    await page.getByRole('button', { name: 'Create the role' }).click();
    const row = page.locator('[data-testid="role-row"][data-name="Dispatchers"]');
    await waitOrExplain(page, row);
    expect(await row.textContent()).toContain('Nobody');
    // A second role of the same name is refused with the server's reason, until closed.
    await page.getByLabel('Name of the new role').fill('Dispatchers');
    await page.getByRole('button', { name: 'Create the role' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'Could not do it' });
    await refused.waitFor();
    expect(await refused.textContent()).toContain('already has a role named "Dispatchers"');
    await refused.getByRole('button', { name: 'Close' }).click();
    await refused.waitFor({ state: 'detached' });

    await page.getByLabel('Members of role Dispatchers').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Members', { exact: true }).click();
    await page.getByTitle('Boris').click();
    // Closes the option list, which covers the dialog's buttons.
    await dialog.getByText('Members of role “Dispatchers”').click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Members of role “Dispatchers” saved').waitFor();
    await row.getByText('Boris').waitFor();

    const me = (await apiInPage(page, 'GET', '/api/auth/me')) as { user: { id: string } };
    const roles = (await apiInPage(page, 'GET', '/api/roles')) as { items: { name: string; memberIds: string[] }[] };
    expect(roles.items.find((role) => role.name === 'Dispatchers')?.memberIds).toEqual([me.user.id]);
    await context.close();
  });

  it('grants GPS in the access matrix, and the tick survives a reload', async () => {
    const { context, page } = await admin('Vera');
    const ivan = (await apiInPage(page, 'POST', '/api/users', { email: 'ivan@example.org', name: 'Ivan' })) as {
      id: string;
    };
    await apiInPage(page, 'POST', '/api/roles', { name: 'Drivers', memberIds: [ivan.id] });
    await page.goto(`${suite.t.url}/settings/access`);
    const gps = page.getByLabel('GPS for user Ivan');
    await gps.waitFor();
    expect(await gps.isChecked()).toBe(false);
    // An administrator has every module; their boxes are ticked and locked.
    expect(await page.getByLabel('GPS for user Vera').isChecked()).toBe(true);
    expect(await page.getByLabel('GPS for user Vera').isDisabled()).toBe(true);

    await gps.check();
    await page.getByLabel('Finance for role Drivers').check();
    await page.getByText('Unsaved changes: 2').waitFor();
    await page.getByRole('button', { name: 'Save access' }).click();
    await page.getByText('Access saved').waitFor();

    await page.reload();
    await page.getByLabel('GPS for user Ivan').waitFor();
    expect(await page.getByLabel('GPS for user Ivan').isChecked()).toBe(true);
    expect(await page.getByLabel('Finance for user Ivan').isChecked()).toBe(false);
    expect(await page.getByLabel('Finance for role Drivers').isChecked()).toBe(true);
    await page.getByText('through role: Drivers (Finance)').waitFor();
    const matrix = (await apiInPage(page, 'GET', '/api/module-access')) as {
      users: { userId: string; modules: string[] }[];
      roles: { name: string; modules: string[] }[];
    };
    expect(matrix.users.find((user) => user.userId === ivan.id)?.modules).toEqual(['gps']);
    expect(matrix.roles.find((role) => role.name === 'Drivers')?.modules).toEqual(['finance']);
    await settled(page);
    await saveScreenshot(page, 'settings-access');
    await context.close();
  });

  it('lists a failed request in the error log, filters it and shows its details', async () => {
    const { context, page } = await admin('Gleb');
    const missing = `/api/roles/${randomUUID()}`;
    await apiInPage(page, 'GET', missing);
    await waitForLogged(page, missing);

    await page.goto(`${suite.t.url}/settings/error-log`);
    const row = page.getByTestId('error-row').filter({ hasText: missing });
    await row.waitFor();
    expect(await row.textContent()).toContain('404');

    // A filter that excludes it, then one that keeps it; both in the address.
    await page.getByLabel('Response status').fill('500');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('Nothing matches the filter').waitFor();
    expect(page.url()).toContain('status=500');
    await page.getByLabel('Response status').fill('404');
    await page.getByLabel('Part of the path').fill('/api/roles/');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await row.waitFor();

    await page.getByLabel(`Details: GET ${missing}`).click();
    const details = page.getByTestId('error-details');
    await details.waitFor();
    expect(await details.textContent()).toContain('not_found');
    expect(await details.textContent()).toContain('Gleb');
    const log = (await apiInPage(page, 'GET', '/api/error-logs')) as { items: { path: string; requestId: string }[] };
    const entry = log.items.find((item) => item.path === missing);
    expect(await page.getByTestId('error-request-id').textContent()).toContain(entry?.requestId);
    await settled(page);
    await saveScreenshot(page, 'settings-error-log');

    await page.getByRole('button', { name: 'Delete the entry' }).click();
    await page.locator('.ant-popconfirm').getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText('Entries deleted: 1').waitFor();
    await page.getByText('Nothing matches the filter').waitFor();
    await context.close();
  });

  it('names the bot whose API key made a failed call in the details of the entry', async () => {
    const { context, page } = await admin('Gordei');
    const bot = (await apiInPage(page, 'POST', '/api/bots', {
      name: 'Courier',
      apiAccess: { enabled: true, mode: 'read' },
    })) as { apiKey: { key: string } };
    const missing = `/api/tasks/${randomUUID()}`;
    const answer = await fetch(`${suite.t.url}${missing}`, { headers: { 'X-API-Key': bot.apiKey.key } });
    expect(answer.status).toBe(404);
    await waitForLogged(page, missing);

    await page.goto(`${suite.t.url}/settings/error-log`);
    await page.getByTestId('error-row').filter({ hasText: missing }).waitFor();
    await page.getByLabel(`Details: GET ${missing}`).click();
    const details = page.getByTestId('error-details');
    await details.waitFor();
    await expect.poll(async () => details.textContent()).toContain('bot “Courier”');
    await context.close();
  });

  it('lists a sync message the server refused, found by its event among the methods', async () => {
    const { context, page } = await admin('Yana');
    const { accessToken } = JSON.parse((await page.evaluate(() => localStorage.getItem('orbita.tokens'))) as string);
    // A replica pushing to a collection replicas only read.
    const replica = await connectSync(suite.t, accessToken);
    try {
      const answer = await replica.push('users', [
        { assumedMasterState: null, newDocumentState: { id: randomUUID(), _deleted: false } },
      ]);
      expect(answer).toMatchObject({ ok: false, problem: { status: 403 } });
    } finally {
      replica.close();
    }
    await waitForLogged(page, '/sync/users');

    await page.goto(`${suite.t.url}/settings/error-log`);
    const row = page.getByTestId('error-row').filter({ hasText: '/sync/users' });
    await row.waitFor();
    await page.getByLabel('Request method').click();
    await page.getByTitle('PULL (sync)').click();
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('Nothing matches the filter').waitFor();
    expect(page.url()).toContain('method=PULL');
    await page.getByLabel('Request method').click();
    await page.getByTitle('PUSH (sync)').click();
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await row.waitFor();
    expect(await row.textContent()).toContain('403');
    await context.close();
  });

  it('lists deleted forms, tasks and directories, with who deleted the tasks, and brings them back for everyone', async () => {
    const { context, page } = await admin('Vlas');
    const form = (await apiInPage(page, 'POST', '/api/forms', { name: 'Night rounds', fields: [] })) as { id: string };
    const made = [];
    for (const title of ['Check the valve', 'Oil the pump']) {
      made.push((await apiInPage(page, 'POST', '/api/tasks', { formId: form.id, title })) as { id: string });
      await apiInPage(page, 'DELETE', `/api/tasks/${made.at(-1)?.id}`);
    }
    const old = (await apiInPage(page, 'POST', '/api/forms', { name: 'Old intake', fields: [] })) as { id: string };
    await apiInPage(page, 'POST', '/api/tasks', { formId: old.id, title: 'Read meter 7' });
    await apiInPage(page, 'DELETE', `/api/forms/${old.id}`);
    const depots = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Old depots',
      columns: [{ name: 'Name' }],
    })) as { id: string };
    const north = (await apiInPage(page, 'POST', `/api/directories/${depots.id}/rows`, { cells: ['North'] })) as {
      id: string;
    };
    await apiInPage(page, 'POST', `/api/directories/${depots.id}/rows`, { cells: ['Pier'], parentId: north.id });
    await apiInPage(page, 'DELETE', `/api/directories/${depots.id}`);

    await page.goto(`${suite.t.url}/settings/deleted`);
    const tasks = page.getByTestId('deleted-tasks').locator('tbody tr');
    const forms = page.getByTestId('deleted-forms').locator('tbody tr');
    await tasks.filter({ hasText: 'Check the valve' }).waitFor();
    // Most recently deleted first, with the form and who deleted it.
    expect(await tasks.locator('td:first-child').allTextContents()).toEqual(['Oil the pump', 'Check the valve']);
    expect(await tasks.first().textContent()).toContain('Night rounds');
    expect(await tasks.first().textContent()).toContain('Vlas');
    // A deleted form, with the tasks it keeps.
    await forms.filter({ hasText: 'Old intake' }).waitFor();
    expect(await forms.locator('td').allTextContents()).toContain('1');
    await settled(page);
    await saveScreenshot(page, 'settings-deleted');

    await page.getByRole('button', { name: 'Restore “Check the valve”' }).click();
    await page.getByTestId('task-restored').filter({ hasText: 'The task “Check the valve” is back.' }).waitFor();
    await tasks.filter({ hasText: 'Check the valve' }).waitFor({ state: 'detached' });
    expect(await tasks.locator('td:first-child').allTextContents()).toEqual(['Oil the pump']);
    expect(((await apiInPage(page, 'GET', `/api/tasks/${made[0]?.id}`)) as { title: string }).title).toBe(
      'Check the valve',
    );
    await page.getByRole('button', { name: 'Restore “Old intake”' }).click();
    await page.getByTestId('form-restored').filter({ hasText: 'The form “Old intake” is back' }).waitFor();
    await page.getByTestId('deleted-forms').getByText('No deleted forms').waitFor();
    const listed = (await apiInPage(page, 'GET', '/api/forms')) as { items: { id: string }[] };
    expect(listed.items.map((f) => f.id)).toContain(old.id);
    // The task opens from its notice, from this device's copy once the server sends it back.
    await page.getByTestId('task-restored').getByRole('link', { name: 'Open' }).click();
    await page.getByRole('heading', { name: 'Check the valve' }).waitFor();

    // A deleted directory, with the rows it keeps, comes back with its tree.
    await page.goto(`${suite.t.url}/settings/deleted`);
    const directories = page.getByTestId('deleted-directories').locator('tbody tr');
    await directories.filter({ hasText: 'Old depots' }).waitFor();
    expect(await directories.locator('td').allTextContents()).toContain('2');
    await page.getByRole('button', { name: 'Restore “Old depots”' }).click();
    await page
      .getByTestId('directory-restored')
      .filter({ hasText: 'The directory “Old depots” is back with all its rows.' })
      .waitFor();
    await page.getByTestId('deleted-directories').getByText('No deleted directories').waitFor();
    await page.getByTestId('directory-restored').getByRole('link', { name: 'Open' }).click();
    await rowNode(page, 'Pier').and(page.locator('[data-depth="2"]')).waitFor();
    await context.close();
  });

  it('tells a member who is not an administrator that the settings are for administrators', async () => {
    const { context, page } = await admin('Daria');
    await apiInPage(page, 'POST', '/api/users', { email: 'egor@example.org', name: 'Egor', locale: 'ru' });
    const token = await tokenFromOutbox(suite.t, 'egor@example.org');
    const accepted = await suite.t.request('/api/auth/reset-password', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token, password: 'egor password 1' }),
    });
    expect(accepted.status).toBe(204);
    await context.close();

    const signedIn = await suite.t.request('/api/auth/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'egor@example.org', password: 'egor password 1' }),
    });
    expect(signedIn.status).toBe(200);
    const tokens = await signedIn.json();

    // Signed in as Egor on a new, English suite.browser: his account's Russian applies.
    const member = await suite.browser.newContext({ locale: 'en-US' });
    await member.addInitScript((session) => localStorage.setItem('orbita.tokens', session), JSON.stringify(tokens));
    const memberPage = await member.newPage();
    memberPage.setDefaultTimeout(UI_WAIT_MS);
    await memberPage.goto(`${suite.t.url}/settings/users`);
    await memberPage.getByText('Только для администраторов', { exact: true }).waitFor();
    expect(await memberPage.getByRole('tab').count()).toBe(0);
    expect(await memberPage.getByTestId('user-row').count()).toBe(0);
    await member.close();
  });
});
