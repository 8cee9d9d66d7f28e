import { describe, expect, it } from 'vitest';
import { apiInPage, browserSuite, choose, registeredPage, saveScreenshot, waitOrExplain } from '../helpers/browser';

const suite = browserSuite();

/** Calls the API with a bot's key (as a client elsewhere would): the status and the answer. */
async function withKey(key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${suite.t.url}${path}`, {
    method,
    headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe.skipIf(!suite.available)('bots in the browser', { timeout: 120_000 }, () => {
  it('creates a bot with a read-only key for one form: the key is shown once and copied, works for that form only, and regenerating cuts it off', async () => {
    const { context, page } = await registeredPage(
      suite.browser,
      suite.t.url,
      { organization: 'Botworks', name: 'Bella', email: 'bella-bots@example.org' },
      {
        prepare: (browserContext) =>
          browserContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.t.url }),
      },
    );
    const repairs = (await apiInPage(page, 'POST', '/api/forms', { name: 'Repairs', fields: [] })) as { id: string };
    await apiInPage(page, 'POST', '/api/forms', { name: 'Purchases', fields: [] });

    await page.goto(`${suite.t.url}/settings/bots`);
    await page.getByText('No bots yet').waitFor();
    // How an agent connects: this server's MCP endpoint, a client configuration, the API docs.
    const mcp = page.getByTestId('mcp-panel');
    expect(await mcp.getByTestId('mcp-endpoint').textContent()).toBe(`${suite.t.url}/api/mcp`);
    const configuration = JSON.parse((await mcp.getByTestId('mcp-config').textContent()) as string);
    expect(configuration.mcpServers.orbita.url).toBe(`${suite.t.url}/api/mcp`);
    expect(await mcp.getByRole('link', { name: 'API documentation' }).getAttribute('href')).toBe(
      `${suite.t.url}/api/docs`,
    );

    await page.getByRole('button', { name: 'New bot' }).click();
    const dialog = page.getByRole('dialog', { name: 'New bot' });
    await dialog.getByLabel('Name').fill('Intake');
    await dialog.getByLabel('Description').fill('Reads repair requests');
    await dialog.getByRole('radio', { name: /^Read/ }).check();
    await dialog.getByRole('switch', { name: 'All forms' }).click();
    await dialog.getByText('No form: the key sees no form’s tasks.').waitFor();
    await choose(page, 'Choose forms', 'Repairs');
    await saveScreenshot(page, 'bots-dialog');
    await dialog.getByRole('button', { name: 'Save' }).click();

    // The raw key, once, with its warning; the copy button puts it on the clipboard.
    const keyDialog = page.getByRole('dialog', { name: 'API key of “Intake”' });
    await waitOrExplain(page, keyDialog);
    expect(await keyDialog.textContent()).toContain('it is shown only once');
    const key = await keyDialog.getByLabel('API key').inputValue();
    expect(key).toMatch(/^orb_[A-Za-z0-9_-]{43}$/);
    await keyDialog.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Key copied').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await saveScreenshot(page, 'bots-key');
    await keyDialog.getByRole('button', { name: 'Done' }).click();
    await keyDialog.waitFor({ state: 'hidden' });

    // The list shows the key's summary, never the key.
    const row = page.getByRole('row').filter({ hasText: 'Intake' });
    await waitOrExplain(page, row);
    const summary = `${key.slice(0, 8)}…${key.slice(-4)}`;
    expect(await row.getByTestId('key-summary').textContent()).toBe(summary);
    const rowText = (await row.textContent()) as string;
    expect(rowText).toContain('Read');
    expect(rowText).toContain('Repairs');
    expect(rowText).not.toContain('Purchases');
    expect(rowText).toContain('All directories');
    expect(rowText).toContain('never');
    expect(await page.locator('body').textContent()).not.toContain(key);
    await saveScreenshot(page, 'bots');

    // The shown key works against the API: its one form, reading only.
    const listed = await withKey(key, 'GET', '/api/forms');
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((form: { id: string }) => form.id)).toEqual([repairs.id]);
    const write = await withKey(key, 'POST', '/api/tasks', { formId: repairs.id, title: 'By a bot' });
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('scope_denied');

    await page.reload();
    await waitOrExplain(page, row);
    expect(await row.textContent()).not.toContain('never');

    // Regenerating, confirmed, shows a new key once and cuts the old one off.
    await row.getByRole('button', { name: 'New key' }).click();
    await page.getByRole('tooltip').getByRole('button', { name: 'OK' }).click();
    await waitOrExplain(page, keyDialog);
    const newKey = await keyDialog.getByLabel('API key').inputValue();
    expect(newKey).toMatch(/^orb_/);
    expect(newKey).not.toBe(key);
    await keyDialog.getByRole('button', { name: 'Done' }).click();
    expect((await withKey(key, 'GET', '/api/forms')).status).toBe(401);
    const again = await withKey(newKey, 'GET', '/api/forms');
    expect(again.status).toBe(200);
    expect(again.body.items.map((form: { id: string }) => form.id)).toEqual([repairs.id]);
    expect(await row.getByTestId('key-summary').textContent()).toBe(`${newKey.slice(0, 8)}…${newKey.slice(-4)}`);

    // Editing keeps the key and its limits, and takes the new mode: no new key is shown.
    await row.getByRole('button', { name: 'Edit' }).click();
    const editor = page.getByRole('dialog', { name: 'Bot “Intake”' });
    expect(await editor.getByRole('switch', { name: 'All forms' }).isChecked()).toBe(false);
    expect(await editor.locator('.ant-select-selection-item').allTextContents()).toEqual(['Repairs']);
    await editor.getByRole('radio', { name: /^Write/ }).check();
    await editor.getByRole('button', { name: 'Save' }).click();
    await editor.waitFor({ state: 'hidden' });
    await row.getByText('Write').waitFor();
    expect(await keyDialog.count()).toBe(0);
    const written = await withKey(newKey, 'POST', '/api/tasks', { formId: repairs.id, title: 'By a bot' });
    expect(written.status).toBe(201);
    await context.close();
  });

  it('names a directory deleted since the key was limited to it, in Russian, and saves the bot with it kept', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Ботоводы',
      name: 'Борис',
      email: 'boris-bots@example.org',
    });
    const suppliers = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Поставщики',
      columns: [{ name: 'Название' }],
    })) as { id: string };
    await apiInPage(page, 'POST', '/api/bots', {
      name: 'Снабженец',
      apiAccess: { enabled: true, mode: 'read', tableIds: [suppliers.id] },
    });
    await apiInPage(page, 'DELETE', `/api/directories/${suppliers.id}`);
    await page.evaluate(() => localStorage.setItem('orbita.language', 'ru'));

    await page.goto(`${suite.t.url}/settings/bots`);
    await page.getByRole('tab', { name: 'Боты', selected: true }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'Снабженец' });
    await waitOrExplain(page, row);
    expect(await row.textContent()).toContain(`удалено или неизвестно (${suppliers.id})`);
    expect(await row.textContent()).toContain('Все формы');

    await row.getByRole('button', { name: 'Изменить' }).click();
    const editor = page.getByRole('dialog', { name: 'Бот «Снабженец»' });
    await editor.getByRole('button', { name: 'Сохранить' }).click();
    // Kept in the key's list (it may be restored): the bot saves, the directory still named as gone.
    await editor.waitFor({ state: 'hidden' });
    const bots = (await apiInPage(page, 'GET', '/api/bots')) as {
      items: { name: string; apiKey: { tableIds?: string[] } | null }[];
    };
    expect(bots.items.find((bot) => bot.name === 'Снабженец')?.apiKey?.tableIds).toEqual([suppliers.id]);
    expect(await row.textContent()).toContain(`удалено или неизвестно (${suppliers.id})`);
    await context.close();
  });
});
