import type { Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { apiInPage, browserSuite, registeredPage, saveScreenshot } from '../helpers/browser';

const suite = browserSuite();

/** A spreadsheet selection as the clipboard holds it: tab-separated, a header row first. */
function table(rows: number, prefix: string): string {
  const lines = ['Title\tAmount\tDescription'];
  for (let i = 1; i <= rows; i++) lines.push(`${prefix} ${i}\t${i} 000,5\tRow ${i}`);
  return lines.join('\n');
}

describe.skipIf(!suite.available)('batch creation from a pasted table', { timeout: 120_000 }, () => {
  it('creates 250 tasks in three chunks with progress, one key per chunk, a retry without duplicates, and a re-submit lock', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Meter Service',
      name: 'Ivan',
      email: 'ivan@example.org',
    });
    const form = (await apiInPage(page, 'POST', '/api/forms', {
      name: 'Meters',
      fields: [{ name: 'Amount', type: 'number' }],
    })) as { id: string; fields: { id: string }[] };
    const keys: string[] = [];
    page.on('request', (request: Request) => {
      if (request.url().endsWith('/tasks/batch')) keys.push(request.headers()['idempotency-key'] ?? '');
    });
    // The second chunk's first attempt fails on the way: the network drops it.
    let dropped = false;
    await page.route('**/tasks/batch', async (route) => {
      if (keys.length === 2 && !dropped) {
        dropped = true;
        return route.abort('connectionreset');
      }
      return route.continue();
    });

    await page.goto(`${suite.t.url}/tasks?formId=${form.id}`);
    await page.getByRole('button', { name: 'From a table…' }).click();
    await page.getByLabel('Table rows').fill(table(250, 'Meter'));
    expect(await page.getByTestId('batch-summary').textContent()).toContain('Tasks: 250, chunks of 100: 3.');
    await page.getByRole('button', { name: 'Create 250' }).click();

    await page.getByRole('alert').filter({ hasText: 'Chunk 2 was not created' }).waitFor();
    const states = () =>
      page.getByTestId('batch-chunk').evaluateAll((items) => items.map((item) => item.getAttribute('data-state')));
    expect(await states()).toEqual(['done', 'failed', 'waiting']);
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByText('Tasks created: 250').waitFor();
    expect(await states()).toEqual(['done', 'done', 'done']);
    await saveScreenshot(page, 'batch-create');

    // One key per chunk: the request id and the chunk number; the retry reused the failed chunk's key.
    const requestId = keys[0]?.split(':')[0];
    expect(keys).toEqual([`${requestId}:1`, `${requestId}:2`, `${requestId}:2`, `${requestId}:3`]);
    const listed = { items: [] as { title: string; fields: Record<string, unknown> }[] };
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page_ = (await apiInPage(
        page,
        'GET',
        `/api/tasks?formId=${form.id}&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      )) as { items: { title: string; fields: Record<string, unknown> }[]; nextCursor: string | null };
      listed.items.push(...page_.items);
      cursor = page_.nextCursor;
    }
    expect(listed.items).toHaveLength(250);
    expect(new Set(listed.items.map((task) => task.title)).size).toBe(250);
    expect(listed.items.find((task) => task.title === 'Meter 7')?.fields[form.fields[0]?.id as string]).toBe('7000.5');

    // The same table again is refused for ten minutes; another table is not.
    await page.getByRole('button', { name: 'Close', exact: true }).last().click();
    await page.getByRole('button', { name: 'From a table…' }).click();
    await page.getByLabel('Table rows').fill(table(250, 'Meter'));
    await page.getByRole('alert').filter({ hasText: 'already been created' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create 250' }).isDisabled()).toBe(true);
    await page.getByLabel('Table rows').fill(table(3, 'Gauge'));
    expect(await page.getByRole('button', { name: 'Create 3' }).isDisabled()).toBe(false);
    expect(await page.getByText('already been created').count()).toBe(0);
    await context.close();
  });

  it('does not arm the lock when a chunk is refused, and says why', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Half Done',
      name: 'Lena',
      email: 'lena@example.org',
    });
    const form = (await apiInPage(page, 'POST', '/api/forms', {
      name: 'Counters',
      fields: [{ name: 'Amount', type: 'number' }],
    })) as { id: string };
    await page.goto(`${suite.t.url}/tasks?formId=${form.id}`);
    await page.getByRole('button', { name: 'From a table…' }).click();
    const rows = ['Title\tAmount', ...Array.from({ length: 150 }, (_, i) => `Counter ${i}\t${i === 120 ? 'abc' : i}`)];
    await page.getByLabel('Table rows').fill(rows.join('\n'));
    await page.getByRole('button', { name: 'Create 150' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Chunk 2 was not created' });
    await alert.waitFor();
    // The problem is shown on the line of the pasted table (header = line 1) and by field.
    expect(await page.getByTestId('batch-problem').textContent()).toMatch(/^Line 122 · Amount: /);
    const listed = (await apiInPage(page, 'GET', `/api/tasks?formId=${form.id}&limit=200`)) as { items: unknown[] };
    expect(listed.items).toHaveLength(100);
    // Nothing locked: the user fixes the table and sends it.
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'From a table…' }).click();
    await page.getByLabel('Table rows').fill(rows.join('\n'));
    expect(await page.getByText('already been created').count()).toBe(0);
    await context.close();
  });
});
