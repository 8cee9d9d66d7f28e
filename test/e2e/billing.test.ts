import { describe, expect, it } from 'vitest';
import { runBillingCommand } from '../../server/src/modules/billing/billing.cli';
import { createLogger } from '../../server/src/platform/logging';
import { apiInPage, browserSuite, registeredPage, saveScreenshot } from '../helpers/browser';

const suite = browserSuite();

describe.skipIf(!suite.available)('topping up the balance on the Finance page', { timeout: 120_000 }, () => {
  it('goes from the blocked banner through the mock confirmation page to the new balance', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Cold Storage',
      name: 'Vera',
      email: 'vera@example.org',
    });
    const me = (await apiInPage(page, 'GET', '/api/auth/me')) as { organization: { id: string } };
    const logger = createLogger({ logLevel: 'silent' });
    const blocked = await runBillingCommand(suite.t.database.db, logger, [
      'adjust',
      me.organization.id,
      '-25000',
      'Storage for March',
    ]);
    expect(blocked.output).toContain('blocked');

    await page.goto(`${suite.t.url}/forms`);
    const banner = page.getByTestId('billing-banner');
    await banner.getByText('The organization is blocked for non-payment').waitFor();
    await banner.getByRole('link', { name: 'Top up the balance' }).click();
    await page.getByTestId('balance').getByText('-RUB 250.00').waitFor();
    await page.getByText('The organization is blocked: its balance is below the threshold').waitFor();
    await saveScreenshot(page, 'finance-blocked');

    await page.getByRole('button', { name: 'Top up' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Amount, ₽').fill('1000.5');
    await dialog.getByRole('button', { name: 'Go to payment' }).click();

    // The mock provider's own page, served by the server as a provider's would be.
    await page.getByRole('heading', { name: 'Test payment' }).waitFor();
    await page.getByTestId('amount').getByText('RUB 1,000.50').waitFor();
    await page.getByRole('button', { name: 'Pay' }).click();

    await page.waitForURL(/\/finance/);
    await page.getByTestId('balance').getByText('RUB 750.50').waitFor();
    await page.getByText('Payment of RUB 1,000.50: paid').waitFor();
    expect(await page.getByText('The organization is blocked: its balance is below the threshold').count()).toBe(0);
    await page.getByTestId('payments').getByText('paid').waitFor();
    const ledger = page.getByTestId('ledger');
    await ledger.getByText('Storage for March').waitFor();
    await ledger.getByText('RUB 1,000.50').waitFor();
    await saveScreenshot(page, 'finance-topped-up');

    await page.goto(`${suite.t.url}/forms`);
    await page.getByRole('heading', { name: 'Forms' }).first().waitFor();
    expect(await page.getByTestId('billing-banner').count()).toBe(0);
    await context.close();
  });
});
