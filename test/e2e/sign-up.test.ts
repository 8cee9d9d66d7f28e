import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { apiInPage, browserSuite, registeredPage, signInPage, UI_WAIT_MS } from '../helpers/browser';
import { tokenFromOutbox } from '../helpers/factories';

const suite = browserSuite();
/** What the page shows by itself (the stream, the replica): under a loaded CI machine it may take seconds. */
const LIVE = { timeout: 10_000 };

/** The forms page lists `open` and not `hidden`, and "New task" offers `open` alone (closed again after). */
async function offersOnly(page: Page, open: string, hidden: string) {
  await page.getByRole('menuitem', { name: 'Forms' }).click();
  await page.getByRole('link', { name: open, exact: true }).waitFor();
  expect(await page.getByRole('link', { name: hidden }).count()).toBe(0);
  await page.getByRole('menuitem', { name: 'Tasks' }).click();
  await page.getByRole('button', { name: 'New task' }).click();
  await page.getByLabel('Form of the new task').click();
  await page.locator('.ant-select-item-option').filter({ hasText: open }).waitFor();
  expect(await page.locator('.ant-select-item-option').allTextContents()).toEqual([open]);
  await page.keyboard.press('Escape');
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  await page.getByRole('dialog').waitFor({ state: 'hidden' });
}

describe.skipIf(!suite.available)('signing up in the browser', { timeout: 90_000 }, () => {
  it('registers an organization in Russian, lands on home with the onboarding checklist, and switches to English', async () => {
    const context = await suite.browser.newContext({ locale: 'ru-RU' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_WAIT_MS);
    await page.goto(`${suite.t.url}/register`);
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

    // With no form yet, the task list says where tasks come from and leads to the form editor.
    await page.getByRole('menuitem', { name: 'Задачи' }).click();
    await page
      .getByTestId('no-open-forms')
      .filter({ hasText: 'Задачи создаются по формам, а форм пока нет.' })
      .getByRole('link', { name: 'Создать форму' })
      .click();
    await page.waitForURL(`${suite.t.url}/forms/new`);
    await page.getByRole('menuitem', { name: 'Главная' }).click();

    await page.getByLabel('Язык').click();
    await page.getByTitle('English').click();
    await page.getByText('Hello, Ирина').waitFor();
    expect(await page.getByTestId('onboarding-form').textContent()).toContain('To do');
    await context.close();
  });

  it('shows the server’s reason when sign-in fails', async () => {
    const { context, page } = await signInPage(suite.browser, suite.t.url, 'nobody@example.org', 'wrong password');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('The e-mail or password is wrong');
    await context.close();
  });
});

describe.skipIf(!suite.available)('forms and tasks in the browser', { timeout: 90_000 }, () => {
  it('lists the forms, creates a task from the task list and finds it by search', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Depot',
      name: 'Oleg',
      email: 'oleg@example.org',
    });
    // An administrator's form, made through the API with the page's own session.
    const repairs = (await apiInPage(page, 'POST', '/api/forms', { name: 'Repairs', fields: [] })) as { id: string };
    // One task is Oleg's own: "Mine" keeps it alone.
    const own = (await apiInPage(page, 'POST', '/api/tasks', { formId: repairs.id, title: 'Oil the pump' })) as {
      id: string;
    };
    const me = (await apiInPage(page, 'GET', '/api/auth/me')) as { user: { id: string } };
    await apiInPage(page, 'POST', `/api/tasks/${own.id}/assignees`, { userId: me.user.id });
    await page.getByRole('menuitem', { name: 'Forms' }).click();
    await page.getByRole('link', { name: 'Repairs', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Repairs', exact: true }).click();
    await page.getByRole('button', { name: 'New task' }).click();
    await page.getByLabel('Task title').fill('Fix the turbine bearing');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('cell', { name: 'Fix the turbine bearing' }).waitFor();
    expect(
      await page
        .getByRole('row', { name: /Fix the turbine bearing/ })
        .getByRole('cell', { name: 'New', exact: true })
        .count(),
    ).toBe(1);
    const searchFor = async (text: string) => {
      await page.getByLabel('Search titles and descriptions').fill(text);
      await page.getByLabel('Search titles and descriptions').press('Enter');
    };
    await searchFor('TURBINE');
    await page.getByRole('cell', { name: 'Fix the turbine bearing' }).waitFor();
    await searchFor('no such words');
    await page.getByText('Nothing found').waitFor();
    await searchFor('');
    await page.getByRole('cell', { name: 'Fix the turbine bearing' }).waitFor();
    await page.getByRole('checkbox', { name: 'Mine' }).click();
    await page.waitForURL(/mine=1/);
    await page.getByRole('cell', { name: 'Fix the turbine bearing' }).waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'Oil the pump' }).waitFor();
    // Mine and a search together.
    await searchFor('PUMP');
    await page.getByRole('cell', { name: 'Oil the pump' }).waitFor();
    await searchFor('turbine');
    await page.getByText('Nothing found').waitFor();
    await context.close();
  });
});

describe.skipIf(!suite.available)('a long task list', { timeout: 90_000 }, () => {
  it('pages newest first, one page read at a time, by form and by status, and live', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Meter Works',
      name: 'Ilya',
      email: 'ilya@example.org',
    });
    const form = (await apiInPage(page, 'POST', '/api/forms', { name: 'Meters', fields: [] })) as {
      id: string;
      statuses: { id: string; name: string }[];
    };
    // 55 tasks updated a minute apart: "Reading 55" is the newest.
    await suite.t.database.db.query(
      `INSERT INTO tasks (id, organization_id, form_id, status_id, title, updated_at)
       SELECT gen_random_uuid(), f.organization_id, f.id, s.id, 'Reading ' || lpad(n::text, 2, '0'),
              now() - make_interval(mins => 60 - n)
         FROM forms f JOIN form_statuses s ON s.form_id = f.id AND s.is_initial, generate_series(1, 55) AS n
        WHERE f.id = $1`,
      [form.id],
    );
    const titles = () => page.locator('tbody tr td:first-child').allTextContents();
    await page.goto(`${suite.t.url}/tasks`);
    await page.getByRole('link', { name: 'Reading 55' }).waitFor();
    const first = await titles();
    expect(first).toHaveLength(50);
    expect([first[0], first.at(-1)]).toEqual(['Reading 55', 'Reading 06']);
    await page.locator('.ant-pagination-item-2').click();
    await page.getByRole('link', { name: 'Reading 01' }).waitFor();
    expect(await titles()).toEqual(['Reading 05', 'Reading 04', 'Reading 03', 'Reading 02', 'Reading 01']);

    // One form, then one status of it: the same pages; a filter starts again at page 1.
    await page.getByLabel('Form', { exact: true }).click();
    await page.getByTitle('Meters').click();
    await page.getByRole('link', { name: 'Reading 55' }).waitFor();
    expect(await titles()).toHaveLength(50);
    await apiInPage(page, 'POST', `/api/tasks/${await taskId(page, 'Reading 03')}/transition`, {
      statusId: form.statuses[1]?.id,
    });
    await page.getByLabel('Status', { exact: true }).click();
    await page.getByTitle(form.statuses[1]?.name ?? '').click();
    // Reading 03, just moved, already heads the form's list: the status's list is waited for itself.
    await expect.poll(titles, LIVE).toEqual(['Reading 03']);

    // A task changed elsewhere comes to the top of the list by itself.
    await page.getByLabel('Status', { exact: true }).click();
    await page.getByTitle(form.statuses[0]?.name ?? '').click();
    await page.getByRole('link', { name: 'Reading 55' }).waitFor();
    await apiInPage(page, 'PATCH', `/api/tasks/${await taskId(page, 'Reading 54')}`, { title: 'Reading 54, checked' });
    await expect.poll(async () => (await titles())[0], LIVE).toBe('Reading 54, checked');
    await context.close();
  });
});

describe.skipIf(!suite.available)('the first sync', { timeout: 90_000 }, () => {
  it('says how far it has come while the data arrives, counting tasks as they come, and goes once everything is here', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Water Works',
      name: 'Gleb',
      email: 'gleb@example.org',
    });
    const form = (await apiInPage(page, 'POST', '/api/forms', { name: 'Hydrants', fields: [] })) as { id: string };
    // The app is left first: its live replica would otherwise receive the tasks streamed at once.
    await page.goto('about:blank');
    await suite.t.database.db.query(
      `INSERT INTO tasks (id, organization_id, form_id, status_id, title)
       SELECT gen_random_uuid(), f.organization_id, f.id, s.id, 'Hydrant ' || n
         FROM forms f JOIN form_statuses s ON s.form_id = f.id AND s.is_initial, generate_series(1, 30) AS n
        WHERE f.id = $1`,
      [form.id],
    );
    // What the server sends the replica of a collection waits while the collection is held: the
    // first pull of the reopened replica stays under way.
    const held = new Set(['tasks', 'directory_rows']);
    const waiting: { collection: string; release: () => void }[] = [];
    const pullOf = new Map<string, string>();
    await page.routeWebSocket(/\/socket\.io\//, (socket) => {
      const server = socket.connectToServer();
      socket.onMessage((message) => {
        const pull = typeof message === 'string' && /^42\/sync,(\d+)\["sync:pull",\{"collection":"(\w+)"/.exec(message);
        if (pull) pullOf.set(pull[1] as string, pull[2] as string);
        server.send(message);
      });
      server.onMessage((message) => {
        // Answers to pulls, and changes the server streams (tasks committed while other
        // transactions ran may come that way instead).
        const ack = typeof message === 'string' && /^43\/sync,(\d+)/.exec(message);
        const streamed =
          typeof message === 'string' && /^42\/sync,\["sync:stream",\{"collection":"(\w+)"/.exec(message);
        const collection = ack ? pullOf.get(ack[1] as string) : streamed ? streamed[1] : undefined;
        if (collection && held.has(collection)) waiting.push({ collection, release: () => socket.send(message) });
        else socket.send(message);
      });
    });
    const release = (collection: string) => {
      held.delete(collection);
      for (const entry of waiting.filter((one) => one.collection === collection)) {
        waiting.splice(waiting.indexOf(entry), 1);
        entry.release();
      }
    };
    await page.goto(`${suite.t.url}/tasks`);
    const notice = page.getByTestId('first-sync');
    await notice.waitFor();
    // Out of how many the server has for this user, with a progress bar.
    const progress = () => notice.getByRole('progressbar').getAttribute('aria-valuenow', { timeout: 1_000 });
    await expect
      .poll(() => notice.textContent(), LIVE)
      .toMatch(/to this device for work without the network… Tasks here so far: 0 of 30\./);
    expect(await progress()).toBe('0');

    // The tasks arrive while another collection is still under way: the count rises, the notice stays.
    release('tasks');
    await expect.poll(() => notice.textContent(), LIVE).toMatch(/Tasks here so far: 30 of 30\./);
    expect(await progress()).toBe('100');
    release('directory_rows');
    await page.getByRole('link', { name: 'Hydrant 30', exact: true }).waitFor();
    await notice.waitFor({ state: 'detached' });
    await context.close();
  });
});

describe.skipIf(!suite.available)('a replica left by an earlier release', { timeout: 90_000 }, () => {
  it('says how far its upgrade has come, then lists what it held', async () => {
    // Signed up without the app, so that the browser holds no replica of this user yet.
    const registered = await fetch(`${suite.t.url}/api/auth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        organizationName: 'Old Mill',
        name: 'Agafya',
        email: 'keeper@old-mill.example.org',
        password: 'long enough password',
      }),
    });
    if (!registered.ok) throw new Error(`registration answered ${registered.status}: ${await registered.text()}`);
    const tokens = (await registered.json()) as { accessToken: string; refreshToken: string };
    const me = (await (
      await fetch(`${suite.t.url}/api/auth/me`, { headers: { Authorization: `Bearer ${tokens.accessToken}` } })
    ).json()) as { user: { id: string } };
    const bundled = await build({
      entryPoints: [path.join(import.meta.dirname, 'old-replica.page.ts')],
      bundle: true,
      format: 'iife',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
      define: { 'process.env.NODE_ENV': '"production"' },
    });
    const schemas = JSON.parse(
      readFileSync(path.join(import.meta.dirname, '../fixtures/replica-schemas-0.1.0.json'), 'utf8'),
    ) as Record<string, unknown>;

    // The page's CSP forbids inline scripts: bypassed to arrange the earlier replica from the test.
    const context = await suite.browser.newContext({ locale: 'en-US', bypassCSP: true });
    const page = await context.newPage();
    // Every text the upgrade notice shows, however briefly.
    await page.addInitScript(() => {
      const seen: string[] = [];
      Object.assign(window, { upgradeNotices: seen });
      new MutationObserver(() => {
        const text = document.querySelector('[data-testid="upgrading"]')?.textContent;
        if (text && seen.at(-1) !== text) seen.push(text);
      }).observe(document, { childList: true, subtree: true, characterData: true });
    });
    // On the app's origin, before the app runs: the replica as release 0.1.0 left it.
    await page.goto(`${suite.t.url}/api/health`);
    await page.addScriptTag({ content: bundled.outputFiles[0]?.text });
    const count = 3_000;
    await page.evaluate(
      async ([name, oldSchemas, tasks]) =>
        (window as unknown as { writeOldReplica(...args: unknown[]): Promise<void> }).writeOldReplica(
          name,
          oldSchemas,
          tasks,
        ),
      [`orbita-${me.user.id.toLowerCase()}`, schemas, count] as const,
    );
    await page.evaluate((stored) => localStorage.setItem('orbita.tokens', stored), JSON.stringify(tokens));

    await page.goto(`${suite.t.url}/tasks`);
    // The upgrade and the first sync after it take what the machine needs: only the suite's limit applies.
    await page
      .getByRole('link', { name: `Left by the earlier release ${count - 1}`, exact: true })
      .waitFor({ timeout: 80_000 });
    const notices =
      (await page.evaluate(() => (window as unknown as { upgradeNotices: string[] }).upgradeNotices)) ?? [];
    expect(notices.length).toBeGreaterThan(0);
    // The organization's language (Russian, the default), with its digit grouping.
    expect(notices.at(-1)).toMatch(
      /^Обновляем данные на этом устройстве для новой версии приложения: [\d\s\u00a0\u202f]+ из 3[\s\u00a0\u202f]000 записей…$/,
    );
    await expect.poll(() => page.getByTestId('upgrading').count(), LIVE).toBe(0);
    await context.close();
  });
});

/** The id of the task with this title, from the server. */
async function taskId(page: Parameters<typeof apiInPage>[0], title: string): Promise<string> {
  const found = (await apiInPage(page, 'GET', `/api/tasks/search?q=${encodeURIComponent(title)}`)) as {
    items: { id: string; title: string }[];
  };
  return found.items.find((item) => item.title === title)?.id as string;
}

describe.skipIf(!suite.available)('the task page', { timeout: 90_000 }, () => {
  it('edits typed fields (numbers normalised), moves the status and keeps a discussion', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Meters',
      name: 'Vera',
      email: 'vera@example.org',
    });
    const me = (await apiInPage(page, 'GET', '/api/auth/me')) as { user: { id: string } };
    await apiInPage(page, 'POST', '/api/roles', { name: 'Meter readers', memberIds: [me.user.id] });
    const sites = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Sites',
      columns: [{ name: 'Code' }, { name: 'Name' }],
    })) as { id: string };
    await apiInPage(page, 'POST', `/api/directories/${sites.id}/rows`, { cells: ['S-1', 'North station'] });
    await apiInPage(page, 'POST', `/api/directories/${sites.id}/rows`, { cells: ['S-2', 'South station'] });
    const form = (await apiInPage(page, 'POST', '/api/forms', {
      name: 'Readings',
      fields: [
        { name: 'Amount', type: 'number' },
        { name: 'Team', type: 'user', allow_multiple: true },
        { name: 'Site', type: 'table', directoryId: sites.id, displayColumn: 'Name' },
      ],
    })) as { id: string };
    const task = (await apiInPage(page, 'POST', '/api/tasks', { formId: form.id, title: 'Meter 12' })) as {
      id: string;
    };
    const taskId = task.id;
    await page.goto(`${suite.t.url}/tasks/${taskId}`);
    await page.getByRole('heading', { name: 'Meter 12' }).waitFor();
    expect(await page.getByTestId('task-status').textContent()).toBe('New');

    await page.getByLabel('Amount').fill('1 234,5');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('history-entry').first().waitFor();
    // Values in words, with who changed them: no quotes, no "null".
    expect(await page.getByTestId('history-entry').first().textContent()).toContain('Amount: — → 1234.5 · Vera');
    expect(await page.getByLabel('Amount').inputValue()).toBe('1234.5');

    // A role in a user field makes its members assignees.
    expect(await page.getByTestId('assignee').count()).toBe(0);
    await page.getByLabel('Team').click();
    await page.getByTitle('Meter readers').click();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('assignee').filter({ hasText: 'Vera' }).waitFor();

    // A table field offers the directory's rows by their display column and keeps the choice.
    await page.getByLabel('Site').click();
    await page.getByTitle('South station').click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('history-entry').nth(2).waitFor();
    // People, roles and rows are named in the history, as in the fields.
    await page.getByTestId('history-entry').filter({ hasText: 'Site: — → South station · Vera' }).waitFor();
    await page.getByTestId('history-entry').filter({ hasText: 'Team: — → Meter readers · Vera' }).waitFor();
    await page.getByTestId('audit-entry').filter({ hasText: 'edited: Site · Vera' }).waitFor();
    const saved = (await apiInPage(page, 'GET', `/api/tasks/${taskId}`)) as {
      labels: Record<string, { label: string }[]>;
    };
    expect(
      Object.values(saved.labels)
        .flat()
        .map((l) => l.label),
    ).toEqual(['South station']);
    // After the reload the field shows the chosen row by its label.
    await page.locator('.ant-form-item').filter({ hasText: 'Site' }).filter({ hasText: 'South station' }).waitFor();

    await page.getByLabel('Move to status').click();
    await page.getByTitle('In progress').click();
    await page.getByTestId('task-status').filter({ hasText: 'In progress' }).waitFor();
    await page.getByTestId('audit-entry').filter({ hasText: 'status changed: New → In progress · Vera' }).waitFor();

    await page.getByLabel('Message').fill('Reading checked on site');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByTestId('chat-message').filter({ hasText: 'Reading checked on site' }).waitFor();
    await context.close();
  });
});

describe.skipIf(!suite.available)('home', { timeout: 90_000 }, () => {
  it('lists recently viewed tasks and the inbox with its reasons and filters', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Inbox Ltd',
      name: 'Nina',
      email: 'nina@example.org',
    });
    const me = (await apiInPage(page, 'GET', '/api/auth/me')) as { user: { id: string } };
    const form = (await apiInPage(page, 'POST', '/api/forms', {
      name: 'Requests',
      fields: [{ name: 'Owner', type: 'user' }],
    })) as { id: string; fields: { id: string }[] };
    const task = (await apiInPage(page, 'POST', '/api/tasks', {
      formId: form.id,
      title: 'Call the supplier',
      fields: { [form.fields[0]?.id as string]: `user:${me.user.id}` },
    })) as { id: string };
    const taskId = task.id;
    await page.reload();
    await page.getByTestId('inbox-item').filter({ hasText: 'Call the supplier' }).waitFor();
    expect(await page.getByTestId('inbox-item').first().textContent()).toContain('assigned');
    await page.getByText('Substitution').click();
    await page.getByText('Nothing needs you').waitFor();
    expect(await page.getByText('You have not opened any task yet').count()).toBe(1);

    await page.goto(`${suite.t.url}/tasks/${taskId}`);
    await page.getByRole('heading', { name: 'Call the supplier' }).waitFor();
    await page.getByRole('menuitem', { name: 'Home' }).click();
    await page.getByTestId('recent-item').filter({ hasText: 'Call the supplier' }).waitFor();
    await context.close();
  });

  it('opens a task of a form not open to its assignee, and offers only open forms for new tasks', async () => {
    const admin = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Boiler House',
      name: 'Anna',
      email: 'anna.boiler@example.org',
    });
    const role = (await apiInPage(admin.page, 'POST', '/api/roles', { name: 'Night shift' })) as { id: string };
    const restricted = (await apiInPage(admin.page, 'POST', '/api/forms', {
      name: 'Night rounds',
      visibleRoleIds: [role.id],
      fields: [{ name: 'Pressure', type: 'number' }],
    })) as { id: string };
    const open = (await apiInPage(admin.page, 'POST', '/api/forms', { name: 'Open requests', fields: [] })) as {
      id: string;
    };
    const task = (await apiInPage(admin.page, 'POST', '/api/tasks', {
      formId: restricted.id,
      title: 'Check the boiler valve',
    })) as { id: string };
    const vera = (await apiInPage(admin.page, 'POST', '/api/users', {
      email: 'vera.boiler@example.org',
      name: 'Vera',
      locale: 'en',
    })) as { id: string };
    const token = await tokenFromOutbox(suite.t, 'vera.boiler@example.org');
    await fetch(`${suite.t.url}/api/auth/reset-password`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token, password: 'vera works nights' }),
    });
    await apiInPage(admin.page, 'POST', `/api/tasks/${task.id}/assignees`, { userId: vera.id });
    const { accessToken: adminToken } = JSON.parse(
      (await admin.page.evaluate(() => localStorage.getItem('orbita.tokens'))) as string,
    );
    await admin.context.close();

    const { context, page } = await signInPage(
      suite.browser,
      suite.t.url,
      'vera.boiler@example.org',
      'vera works nights',
    );
    await page.getByTestId('organization-name').waitFor();
    await page.getByRole('menuitem', { name: 'Tasks' }).click();
    await page.getByRole('link', { name: 'Check the boiler valve' }).click();
    // Her task opens with its form's fields, although the form is not open to her.
    await page.getByRole('heading', { name: 'Check the boiler valve' }).waitFor();
    await page.getByLabel('Pressure').waitFor();

    await offersOnly(page, 'Open requests', 'Night rounds');

    // With the one form open to her deleted, the task list says why she cannot make tasks.
    const deleted = await fetch(`${suite.t.url}/api/forms/${open.id}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${adminToken}` },
    });
    expect(deleted.status).toBe(204);
    await page.getByRole('menuitem', { name: 'Tasks' }).click();
    await page.getByRole('link', { name: 'Check the boiler valve' }).waitFor();
    const newTask = page.getByRole('button', { name: 'New task' });
    await expect.poll(() => newTask.isDisabled(), LIVE).toBe(true);
    await newTask.hover();
    await page
      .getByRole('tooltip')
      .filter({ hasText: 'No form takes new tasks from you yet: an administrator opens forms to your roles.' })
      .waitFor();

    // Made a member of the role while the app is open: the form is hers to use from then on.
    await page.getByRole('menuitem', { name: 'Forms' }).click();
    await page.getByText('No forms open to you yet.').waitFor();
    const joined = await fetch(`${suite.t.url}/api/roles/${role.id}/members`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ userIds: [vera.id] }),
    });
    expect(joined.status).toBe(200);
    await page.getByRole('link', { name: 'Night rounds', exact: true }).waitFor();
    await context.close();
  });

  it('opens a task of a deleted form with a notice, and offers the form for nothing new', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Water Works',
      name: 'Gleb',
      email: 'gleb.water@example.org',
    });
    const old = (await apiInPage(page, 'POST', '/api/forms', {
      name: 'Old intake',
      fields: [{ name: 'Meter reading', type: 'text' }],
    })) as { id: string };
    const current = (await apiInPage(page, 'POST', '/api/forms', { name: 'New intake', fields: [] })) as { id: string };
    await apiInPage(page, 'POST', '/api/tasks', { formId: current.id, title: 'Connect house 12' });
    const task = (await apiInPage(page, 'POST', '/api/tasks', { formId: old.id, title: 'Read meter 7' })) as {
      id: string;
    };
    await apiInPage(page, 'DELETE', `/api/forms/${old.id}`);
    await page.goto(`${suite.t.url}/tasks/${task.id}`);
    await page.getByRole('heading', { name: 'Read meter 7' }).waitFor();
    await page.getByLabel('Meter reading').waitFor();
    expect(await page.getByTestId('task-form-deleted').textContent()).toContain('“Old intake” was deleted');

    await offersOnly(page, 'New intake', 'Old intake');
    // The task list still filters by it, marked deleted.
    await page.getByRole('link', { name: 'Connect house 12' }).waitFor();
    await page.getByLabel('Form', { exact: true }).click();
    await page.getByTitle('Old intake (deleted)', { exact: true }).click();
    await expect.poll(() => page.locator('tbody tr td:first-child').allTextContents(), LIVE).toEqual(['Read meter 7']);
    await context.close();
  });
});
