import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiInPage, browserSuite, registeredPage, saveScreenshot } from '../helpers/browser';
import { scanQr, unzip } from '../helpers/codes';

const suite = browserSuite();

describe.skipIf(!suite.available)('QR codes in the forms registry and on the task page', { timeout: 120_000 }, () => {
  it('saves a ZIP of the form’s codes from the registry, and shows one task’s code', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Pump Service',
      name: 'Olga',
      email: 'olga@example.org',
    });
    const form = (await apiInPage(page, 'POST', '/api/forms', { name: 'Pumps', qr_generation_enabled: true })) as {
      id: string;
    };
    await apiInPage(page, 'POST', '/api/forms', { name: 'Letters' });
    const titles = ['Pump 1', 'Pump 2', 'Pump 3'];
    const ids: string[] = [];
    for (const title of titles) {
      ids.push(((await apiInPage(page, 'POST', '/api/tasks', { formId: form.id, title })) as { id: string }).id);
    }

    await page.goto(`${suite.t.url}/forms`);
    // Only the form with QR codes turned on has the button.
    await page.getByRole('button', { name: 'QR codes of the tasks of “Pumps”' }).click();
    expect(await page.getByRole('button', { name: /QR codes of the tasks of “Letters”/ }).count()).toBe(0);
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Tasks of the form: 3.').waitFor();
    await dialog.getByText('256 px').click();
    const downloading = page.waitForEvent('download');
    await dialog.getByRole('button', { name: 'Make the archive' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('QR Pumps.zip');
    await dialog.getByText('Saved “QR Pumps.zip”, codes: 3').waitFor();
    await saveScreenshot(page, 'qr-codes');

    const files = await unzip(readFileSync((await download.path()) as string));
    expect([...files.keys()]).toEqual(['001 Pump 1.png', '002 Pump 2.png', '003 Pump 3.png', 'index.csv']);
    titles.forEach((title, i) => {
      expect(scanQr(files.get(`00${i + 1} ${title}.png`) as Buffer)).toMatch(new RegExp(`/tasks/${ids[i]}$`));
    });
    await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();

    await page.goto(`${suite.t.url}/tasks/${ids[1]}`);
    await page.getByRole('button', { name: 'QR code' }).click();
    const image = page.getByRole('img', { name: 'QR code of “Pump 2”' });
    await image.waitFor();
    // What the user sees on the screen scans to the task.
    const shown = await image.screenshot();
    expect(scanQr(shown)).toMatch(new RegExp(`/tasks/${ids[1]}$`));
    await context.close();
  });
});
