import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { chromiumAvailable, launchChromium } from '../helpers/browser';

const available = chromiumAvailable();
let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  if (!available) return;
  t = await startTestApp();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe.skipIf(!available)('signing up in the browser', { timeout: 90_000 }, () => {
  it('registers an organization in Russian, lands on home with the onboarding checklist, and switches to English', async () => {
    const context = await browser.newContext({ locale: 'ru-RU' });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${t.url}/register`);
    await page.getByText('Новая организация').waitFor();
    await page.getByLabel('Название организации').fill('Склад №5');
    await page.getByLabel('Ваше имя').fill('Ирина');
    await page.getByLabel('Эл. почта').fill('irina@example.org');
    await page.getByLabel('Пароль').fill('long enough password');
    await page.getByRole('button', { name: 'Создать организацию' }).click();
    await page.getByTestId('organization-name').waitFor();
    expect(await page.getByTestId('organization-name').textContent()).toBe('Склад №5');
    expect(await page.getByText('Здравствуйте, Ирина').count()).toBe(1);
    expect(await page.getByTestId('onboarding-form').textContent()).toContain('Не сделано');

    await page.getByLabel('Язык').click();
    await page.getByTitle('English').click();
    await page.getByText('Hello, Ирина').waitFor();
    expect(await page.getByTestId('onboarding-form').textContent()).toContain('To do');
    await context.close();
  });

  it('shows the server’s reason when sign-in fails', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${t.url}/sign-in`);
    await page.getByLabel('E-mail').fill('nobody@example.org');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('The e-mail or password is wrong');
    await context.close();
  });
});

describe.skipIf(!available)('forms and tasks in the browser', { timeout: 90_000 }, () => {
  it('lists the forms, creates a task from the task list and finds it by search', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${t.url}/register`);
    await page.getByLabel('Organization name').fill('Depot');
    await page.getByLabel('Your name').fill('Oleg');
    await page.getByLabel('E-mail').fill('oleg@example.org');
    await page.getByLabel('Password').fill('long enough password');
    await page.getByRole('button', { name: 'Create the organization' }).click();
    await page.getByTestId('organization-name').waitFor();
    // An administrator's form, made through the API with the page's own session.
    await page.evaluate(async () => {
      const { accessToken } = JSON.parse(localStorage.getItem('orbita.tokens') as string);
      await fetch('/api/forms', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${accessToken}` },
        body: JSON.stringify({ name: 'Repairs', fields: [] }),
      });
    });
    await page.getByRole('menuitem', { name: 'Forms' }).click();
    await page.getByRole('link', { name: 'Repairs' }).waitFor();
    await page.getByRole('link', { name: 'Repairs' }).click();
    await page.getByRole('button', { name: 'New task' }).click();
    await page.getByLabel('Task title').fill('Fix the turbine bearing');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('cell', { name: 'Fix the turbine bearing' }).waitFor();
    expect(await page.getByRole('cell', { name: 'New', exact: true }).count()).toBe(1);
    await page.getByLabel('Search titles and descriptions').fill('TURBINE');
    await page.getByLabel('Search titles and descriptions').press('Enter');
    await page.getByRole('cell', { name: 'Fix the turbine bearing' }).waitFor();
    await page.getByLabel('Search titles and descriptions').fill('no such words');
    await page.getByLabel('Search titles and descriptions').press('Enter');
    await page.getByText('No tasks').waitFor();
    await context.close();
  });
});

describe.skipIf(!available)('the task page', { timeout: 90_000 }, () => {
  it('edits typed fields (numbers normalised), moves the status and keeps a discussion', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${t.url}/register`);
    await page.getByLabel('Organization name').fill('Meters');
    await page.getByLabel('Your name').fill('Vera');
    await page.getByLabel('E-mail').fill('vera@example.org');
    await page.getByLabel('Password').fill('long enough password');
    await page.getByRole('button', { name: 'Create the organization' }).click();
    await page.getByTestId('organization-name').waitFor();
    const taskId = await page.evaluate(async () => {
      const { accessToken } = JSON.parse(localStorage.getItem('orbita.tokens') as string);
      const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${accessToken}` };
      const form = await (
        await fetch('/api/forms', {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: 'Readings', fields: [{ name: 'Amount', type: 'number' }] }),
        })
      ).json();
      const task = await (
        await fetch('/api/tasks', {
          method: 'POST',
          headers,
          body: JSON.stringify({ formId: form.id, title: 'Meter 12' }),
        })
      ).json();
      return task.id as string;
    });
    await page.goto(`${t.url}/tasks/${taskId}`);
    await page.getByRole('heading', { name: 'Meter 12' }).waitFor();
    expect(await page.getByTestId('task-status').textContent()).toBe('New');

    await page.getByLabel('Amount').fill('1 234,5');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('history-entry').first().waitFor();
    expect(await page.getByTestId('history-entry').first().textContent()).toContain('"1234.5"');
    expect(await page.getByLabel('Amount').inputValue()).toBe('1234.5');

    await page.getByLabel('Move to status').click();
    await page.getByTitle('In progress').click();
    await page.getByTestId('task-status').filter({ hasText: 'In progress' }).waitFor();

    await page.getByLabel('Message').fill('Reading checked on site');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByTestId('chat-message').filter({ hasText: 'Reading checked on site' }).waitFor();
    await context.close();
  });
});

describe.skipIf(!available)('home', { timeout: 90_000 }, () => {
  it('lists recently viewed tasks and the inbox with its reasons and filters', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${t.url}/register`);
    await page.getByLabel('Organization name').fill('Inbox Ltd');
    await page.getByLabel('Your name').fill('Nina');
    await page.getByLabel('E-mail').fill('nina@example.org');
    await page.getByLabel('Password').fill('long enough password');
    await page.getByRole('button', { name: 'Create the organization' }).click();
    await page.getByTestId('organization-name').waitFor();
    const taskId = await page.evaluate(async () => {
      const { accessToken } = JSON.parse(localStorage.getItem('orbita.tokens') as string);
      const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${accessToken}` };
      const me = await (await fetch('/api/auth/me', { headers })).json();
      const form = await (
        await fetch('/api/forms', {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: 'Requests', fields: [{ name: 'Owner', type: 'user' }] }),
        })
      ).json();
      const task = await (
        await fetch('/api/tasks', {
          method: 'POST',
          headers,
          body: JSON.stringify({
            formId: form.id,
            title: 'Call the supplier',
            fields: { [form.fields[0].id]: `user:${me.user.id}` },
          }),
        })
      ).json();
      return task.id as string;
    });
    await page.reload();
    await page.getByTestId('inbox-item').filter({ hasText: 'Call the supplier' }).waitFor();
    expect(await page.getByTestId('inbox-item').first().textContent()).toContain('assigned');
    await page.getByText('Substitution').click();
    await page.getByText('Nothing needs you').waitFor();
    expect(await page.getByText('You have not opened any task yet').count()).toBe(1);

    await page.goto(`${t.url}/tasks/${taskId}`);
    await page.getByRole('heading', { name: 'Call the supplier' }).waitFor();
    await page.getByRole('menuitem', { name: 'Home' }).click();
    await page.getByTestId('recent-item').filter({ hasText: 'Call the supplier' }).waitFor();
    await context.close();
  });
});
