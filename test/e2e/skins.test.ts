import { theme } from 'antd';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { themeOf } from '../../renderer/src/skin';
import {
  apiInPage,
  browserSuite,
  joinedPerson,
  registeredPage,
  saveScreenshot,
  serviceWorkerInControl,
  signInPage,
} from '../helpers/browser';

/** Skins in Chromium: defined with a live preview, the organization's for everyone, each user's own choice. */
const suite = browserSuite();

/** A CSS colour of an element, as the browser computes it (`rgb(r, g, b)`). */
const colorOf = (page: Page, selector: string, property: 'backgroundColor' | 'color') =>
  page
    .locator(selector)
    .first()
    .evaluate((element, name) => getComputedStyle(element)[name as 'color'], property);

const rgb = (hex: string) => {
  const [r, g, b] = [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16));
  return `rgb(${r}, ${g}, ${b})`;
};

/** The primary colour antd draws for a skin's tokens (a dark theme derives its own from the one chosen). */
const drawnPrimary = (tokens: Parameters<typeof themeOf>[0]) =>
  rgb(theme.getDesignToken(themeOf(tokens, false)).colorPrimary);

/** The error shown under the form field labelled `label`. */
const errorAt = (page: Page, label: string) =>
  page
    .locator('.ant-form-item')
    .filter({ has: page.getByLabel(label, { exact: true }) })
    .locator('.ant-form-item-explain-error');

describe.skipIf(!suite.available)('skins in the browser', { timeout: 240_000 }, () => {
  it('an administrator makes a skin with a preview and sets it for the organization; a member sees it, chooses another, and keeps it offline', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Night Depot',
      name: 'Vera',
      email: 'vera.skins@example.org',
    });
    await page.goto(`${suite.t.url}/settings/appearance`);
    await page.getByTestId('appearance-tab').getByText('No skins yet').waitFor();
    await page.getByRole('button', { name: 'New skin' }).click();
    const editor = page.getByTestId('skin-editor');
    await editor.getByLabel('Name', { exact: true }).fill('Night shift');
    await editor.getByText('Dark', { exact: true }).click();
    await editor.getByLabel('Primary colour', { exact: true }).fill('#7c3aed');
    await editor.getByLabel('Top bar colour', { exact: true }).fill('#111827');
    await editor.getByLabel('Success colour', { exact: true }).fill('green');
    // The preview follows the values as they are typed, before anything is saved.
    await expect
      .poll(() => colorOf(page, '[data-testid="skin-preview-primary"]', 'backgroundColor'))
      .toBe(drawnPrimary({ mode: 'dark', colorPrimary: '#7c3aed' }));
    expect(drawnPrimary({ mode: 'dark', colorPrimary: '#7c3aed' })).not.toBe(drawnPrimary(undefined));
    expect(await colorOf(page, '[data-testid="skin-preview"] .ant-layout-header', 'backgroundColor')).toBe(
      rgb('#111827'),
    );
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    await errorAt(page, 'Success colour').getByText('A colour as #rrggbb').waitFor();
    expect(((await apiInPage(page, 'GET', '/api/skins')) as { items: unknown[] }).items).toEqual([]);
    await editor.getByLabel('Success colour', { exact: true }).fill('');
    await saveScreenshot(page, 'skins-editor');
    await editor.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Skin “Night shift” saved').waitFor();
    const [night] = ((await apiInPage(page, 'GET', '/api/skins')) as { items: { id: string; tokens: object }[] }).items;
    expect(night?.tokens).toEqual({ mode: 'dark', colorPrimary: '#7c3aed', colorHeader: '#111827' });
    // Saved, not yet the organization's: the page keeps the default look.
    expect(await colorOf(page, '.ant-layout-header', 'backgroundColor')).toBe(rgb('#001529'));

    await page.getByTestId('appearance-tab').getByLabel('Night shift').click();
    await page.getByText('The organization’s skin: “Night shift”').waitFor();
    await expect.poll(() => colorOf(page, '.ant-layout-header', 'backgroundColor')).toBe(rgb('#111827'));
    expect(((await apiInPage(page, 'GET', '/api/organization')) as { activeSkinId: string }).activeSkinId).toBe(
      night?.id,
    );
    await saveScreenshot(page, 'skins-organization');
    const harbour = (await apiInPage(page, 'POST', '/api/skins', {
      name: 'Harbour',
      tokens: { mode: 'light', colorPrimary: '#0ea5e9' },
    })) as { id: string };

    // A colleague sees the organization's skin, then chooses her own in her profile.
    await joinedPerson(suite.t, page, 'Ilya', 'ilya.skins@example.org');
    const member = await signInPage(suite.browser, suite.t.url, 'ilya.skins@example.org', 'Ilya joins the crew');
    const mine = member.page;
    await expect.poll(() => colorOf(mine, '.ant-layout-header', 'backgroundColor')).toBe(rgb('#111827'));
    // Settings are not his: the skins are defined by administrators only.
    expect(
      (
        (await apiInPage(mine, 'POST', '/api/skins', {
          name: 'Mine',
          tokens: { mode: 'light', colorPrimary: '#000000' },
        })) as { code: string }
      ).code,
    ).toBe('forbidden');
    await mine.goto(`${suite.t.url}/profile`);
    const card = mine.getByTestId('appearance-card');
    await card.getByText('The organization’s skin (Night shift)').waitFor();
    await card.getByLabel('Skin', { exact: true }).click();
    await mine.locator('.ant-select-item-option').filter({ hasText: 'Harbour' }).click();
    await mine.getByText('Appearance changed').waitFor();
    await expect.poll(() => colorOf(mine, '.ant-layout-header', 'backgroundColor')).toBe(rgb('#001529'));
    expect(await colorOf(mine, '.ant-menu-item-selected', 'backgroundColor')).toBe(
      drawnPrimary({ mode: 'light', colorPrimary: '#0ea5e9' }),
    );
    expect(((await apiInPage(mine, 'GET', '/api/skins')) as { chosenSkinId: string }).chosenSkinId).toBe(harbour.id);
    // The administrator still sees the organization's.
    await page.reload();
    await expect.poll(() => colorOf(page, '.ant-layout-header', 'backgroundColor')).toBe(rgb('#111827'));

    // Without the network the window opens in the skin chosen.
    await serviceWorkerInControl(mine);
    await member.context.setOffline(true);
    await mine.reload();
    await mine.getByTestId('offline-banner').waitFor();
    expect(await colorOf(mine, '.ant-menu-item-selected', 'backgroundColor')).toBe(
      drawnPrimary({ mode: 'light', colorPrimary: '#0ea5e9' }),
    );
    await member.context.setOffline(false);

    // His skin deleted, he is back on the organization's.
    await page.goto(`${suite.t.url}/settings/appearance`);
    await page
      .getByTestId('appearance-tab')
      .locator('tr')
      .filter({ hasText: 'Harbour' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByRole('tooltip').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Skin “Harbour” deleted').waitFor();
    await mine.reload();
    await expect.poll(() => colorOf(mine, '.ant-layout-header', 'backgroundColor')).toBe(rgb('#111827'));
    await member.context.close();
    await context.close();
  });
});
