import { describe, expect, it } from 'vitest';
import { apiInPage, browserSuite, registeredPage, saveScreenshot, waitOrExplain } from '../helpers/browser';

const suite = browserSuite();

describe.skipIf(!suite.available)('automations in the browser', { timeout: 120_000 }, () => {
  it('creates an automation on a status, sees its run after a transition, and dry-runs it on a task', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Automated',
      name: 'Alla',
      email: 'alla-automations@example.org',
    });
    const form = (await apiInPage(page, 'POST', '/api/forms', {
      name: 'Repairs',
      fields: [{ name: 'Note', type: 'text' }],
    })) as { id: string; statuses: { id: string; name: string }[] };
    const task = (await apiInPage(page, 'POST', '/api/tasks', { formId: form.id, title: 'Pump 12' })) as { id: string };

    await page.goto(`${suite.t.url}/settings/automations`);
    await page.getByText('No automations yet').waitFor();
    await page.getByRole('button', { name: 'New automation' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Greet the task');
    await dialog.getByLabel('Status').click();
    const target = form.statuses[1] as { id: string; name: string };
    await page.getByTitle(`Repairs: ${target.name}`).click();
    await dialog.getByLabel('Code').fill("ctx.log('ran for', ctx.task.title);");
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Automation saved').waitFor();
    const row = page.getByRole('row').filter({ hasText: 'Greet the task' });
    await waitOrExplain(page, row);
    expect(await row.textContent()).toContain(`Moved to “${target.name}”`);

    const moved = (await apiInPage(page, 'POST', `/api/tasks/${task.id}/transition`, { statusId: target.id })) as {
      statusId: string;
    };
    expect(moved.statusId).toBe(target.id);
    await row.getByRole('button', { name: 'Runs' }).click();
    const runs = page.getByTestId('automation-runs');
    for (let attempt = 0; attempt < 50 && !(await runs.getByText('Succeeded').isVisible()); attempt += 1) {
      await runs.getByRole('button', { name: 'Reload' }).click();
      await page.waitForTimeout(100);
    }
    await runs.getByText('Succeeded').waitFor();
    expect(await runs.textContent()).toContain('ran for Pump 12');
    await saveScreenshot(page, 'automations');

    await row.getByRole('button', { name: 'Edit' }).click();
    await dialog.getByLabel('Task ID').fill(task.id);
    await dialog.getByRole('button', { name: 'Dry run' }).click();
    const report = dialog.getByTestId('dry-run');
    await report.waitFor();
    expect(await report.textContent()).toContain('ran for Pump 12');
    expect(await report.textContent()).toContain('No changes');
    await context.close();
  });
});
