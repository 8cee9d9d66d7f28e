import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  apiInPage,
  browserSuite,
  joinedPerson,
  registeredPage,
  saveScreenshot,
  signInPage,
  waitOrExplain,
} from '../helpers/browser';

/** Settings → GPS in Chromium: the organization's map, geocoder and rules, the tracker token and addresses. */
const suite = browserSuite();

/** The error shown under the form field labelled `label`. */
function errorAt(page: Page, label: string) {
  return page
    .locator('.ant-form-item')
    .filter({ has: page.getByLabel(label, { exact: true }) })
    .locator('.ant-form-item-explain-error');
}

/** A position forwarded by Traccar with `token`: the ingestion route's status. */
async function forward(token: string, tracker: string) {
  const fixTime = new Date().toISOString();
  const response = await fetch(`${suite.t.url}/api/gps/traccar/positions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      position: { fixTime, deviceTime: fixTime, latitude: 55.75, longitude: 37.62, speed: 10, valid: true },
      device: { name: tracker, uniqueId: tracker },
    }),
  });
  return response.status;
}

describe.skipIf(!suite.available)('Settings → GPS in the browser', { timeout: 180_000 }, () => {
  it('keeps the tile source, geocoder and a filter value an administrator saves, across a reload', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Fleetline',
      name: 'Gleb',
      email: 'gleb-gps-settings@example.org',
    });
    await page.goto(`${suite.t.url}/settings/gps`);
    await page.getByRole('tab', { name: 'GPS', selected: true }).waitFor();
    const form = page.getByTestId('gps-settings-form');
    await waitOrExplain(page, form);
    expect(await page.getByRole('radio', { name: 'None (the bundled basemap only)' }).isChecked()).toBe(true);
    expect(
      await page.getByText('Areas can be downloaded for offline use only from the organization’s own source').count(),
    ).toBe(1);

    // Another administrator's change meanwhile, to a setting left alone here, is kept.
    await apiInPage(page, 'PATCH', '/api/gps/settings', { offlineTrackHours: 48 });
    await page.getByRole('radio', { name: 'XYZ raster tiles' }).check();
    await page.getByLabel('Tile source address').fill('https://tiles.fleetline.example/{z}/{x}/{y}.png');
    await page.getByLabel('Geocoder (Nominatim, /reverse)').fill('https://nominatim.fleetline.example/reverse');
    await page.getByLabel('Jitter while stopped: radius').fill('45');
    await page.getByLabel('Keep points for').fill('90');
    await page.getByRole('radio', { name: 'OSRM' }).check();
    await page.getByLabel('Engine address').fill('http://osrm.fleetline.example:5000');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('GPS settings saved').waitFor();

    const stored = (await apiInPage(page, 'GET', '/api/gps/settings')) as Record<string, unknown>;
    expect(stored.tileSource).toEqual({ kind: 'raster', url: 'https://tiles.fleetline.example/{z}/{x}/{y}.png' });
    expect(stored.geocoderUrl).toBe('https://nominatim.fleetline.example/reverse');
    expect(stored.jitterMeters).toBe(45);
    expect(stored.retentionDays).toBe(90);
    expect(stored.routingEngine).toEqual({
      kind: 'osrm',
      url: 'http://osrm.fleetline.example:5000',
      profile: 'driving',
      maxPoints: 100,
    });
    // What was not touched keeps its value.
    expect(stored.maxJumpSpeedKmh).toBe(250);
    expect(stored.offlineTrackHours).toBe(48);

    await page.reload();
    await waitOrExplain(page, form);
    expect(await page.getByRole('radio', { name: 'XYZ raster tiles' }).isChecked()).toBe(true);
    expect(await page.getByLabel('Tile source address').inputValue()).toBe(
      'https://tiles.fleetline.example/{z}/{x}/{y}.png',
    );
    expect(await page.getByLabel('Geocoder (Nominatim, /reverse)').inputValue()).toBe(
      'https://nominatim.fleetline.example/reverse',
    );
    expect(await page.getByLabel('Jitter while stopped: radius').inputValue()).toBe('45');
    expect(await page.getByLabel('Keep points for').inputValue()).toBe('90');
    expect(await page.getByLabel('Engine address').inputValue()).toBe('http://osrm.fleetline.example:5000');
    await saveScreenshot(page, 'gps-settings');

    // Back to no tile source: sent as null, and the address field goes.
    await page.getByRole('radio', { name: 'None (the bundled basemap only)' }).check();
    expect(await page.getByLabel('Tile source address').count()).toBe(0);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('GPS settings saved').last().waitFor();
    await expect
      .poll(async () => ((await apiInPage(page, 'GET', '/api/gps/settings')) as { tileSource: unknown }).tileSource)
      .toBeNull();
    await context.close();
  });

  it('shows the server’s refusals at their fields in the user’s language, saving nothing', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Автобаза',
      name: 'Галина',
      email: 'galina-gps-settings@example.org',
    });
    await page.evaluate(() => localStorage.setItem('orbita.language', 'ru'));
    await page.goto(`${suite.t.url}/settings/gps`);
    await page.getByRole('tab', { name: 'GPS', selected: true }).waitFor();
    await waitOrExplain(page, page.getByTestId('gps-settings-form'));

    await page.getByRole('radio', { name: 'Архив PMTiles' }).check();
    await page.getByLabel('Адрес источника плиток').fill('ftp://tiles.avtobaza.example/area.pmtiles');
    await page.getByLabel('Скачок: скорость выше').fill('0');
    await page.getByRole('button', { name: 'Сохранить' }).click();

    const tileError = errorAt(page, 'Адрес источника плиток');
    await waitOrExplain(page, tileError);
    expect(await tileError.textContent()).toBe('Введите полный адрес, начинающийся с http:// или https://');
    expect(await errorAt(page, 'Скачок: скорость выше').textContent()).toBe('Больше 0');
    const refused = page.getByRole('alert').filter({ hasText: 'Настройки не сохранены' });
    expect(await refused.textContent()).toContain('Исправьте отмеченные поля');
    await saveScreenshot(page, 'gps-settings-refused');

    const stored = (await apiInPage(page, 'GET', '/api/gps/settings')) as Record<string, unknown>;
    expect(stored.tileSource).toBeNull();
    expect(stored.maxJumpSpeedKmh).toBe(250);

    // Corrected, it saves and the marks go.
    await page.getByLabel('Адрес источника плиток').fill('https://tiles.avtobaza.example/area.pmtiles');
    await page.getByLabel('Скачок: скорость выше').fill('180');
    await page.getByRole('button', { name: 'Сохранить' }).click();
    await page.getByText('Настройки GPS сохранены').waitFor();
    expect(await errorAt(page, 'Адрес источника плиток').count()).toBe(0);
    const saved = (await apiInPage(page, 'GET', '/api/gps/settings')) as Record<string, unknown>;
    expect(saved.tileSource).toEqual({ kind: 'pmtiles', url: 'https://tiles.avtobaza.example/area.pmtiles' });
    expect(saved.maxJumpSpeedKmh).toBe(180);
    await context.close();
  });

  it('creates the tracker token, shows it once, and a new one cuts the old one off', async () => {
    const { context, page } = await registeredPage(
      suite.browser,
      suite.t.url,
      { organization: 'Trackworks', name: 'Tanya', email: 'tanya-gps-settings@example.org' },
      {
        prepare: (browserContext) =>
          browserContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.t.url }),
      },
    );
    await page.goto(`${suite.t.url}/settings/gps`);
    const status = page.getByTestId('gps-token-status');
    await status.getByText('No token: trackers cannot send data.').waitFor();

    // The addresses trackers are given, built from this server's address.
    const endpoints = page.getByTestId('gps-endpoints');
    expect(await endpoints.getByTestId('traccar-positions-url').textContent()).toBe(
      `${suite.t.url}/api/gps/traccar/positions`,
    );
    expect(await endpoints.getByTestId('traccar-events-url').textContent()).toBe(
      `${suite.t.url}/api/gps/traccar/events`,
    );
    expect(await endpoints.getByTestId('osmand-url').textContent()).toBe(`${suite.t.url}/api/gps/osmand?token=TOKEN`);
    expect(await endpoints.getByTestId('traccar-config').textContent()).toContain(
      "<entry key='forward.header'>Authorization: Bearer TOKEN</entry>",
    );

    await page.getByRole('button', { name: 'Create a token' }).click();
    const dialog = page.getByRole('dialog', { name: 'Tracker token' });
    await waitOrExplain(page, dialog);
    expect(await dialog.textContent()).toContain('it is shown only once');
    expect(await dialog.textContent()).not.toContain('The previous token no longer works');
    const token = await dialog.getByLabel('Token').inputValue();
    expect(token).toMatch(/^gps_/);
    await dialog.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Token copied').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    await saveScreenshot(page, 'gps-settings-token');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });

    // Shown once: the page keeps its prefix only.
    await status.getByText(`Token ${token.slice(0, 10)}…`, { exact: false }).waitFor();
    expect(await status.textContent()).toContain('Not used yet');
    expect(await page.locator('body').textContent()).not.toContain(token);
    expect(await forward(token, 'van-7')).toBe(200);
    await page.reload();
    await status.getByText('Last used:', { exact: false }).waitFor();
    expect(await page.locator('body').textContent()).not.toContain(token);

    // A new token, confirmed with its warning: the old one is refused from then on.
    await page.getByRole('button', { name: 'Create a new token' }).click();
    const confirm = page.getByRole('tooltip');
    expect(await confirm.textContent()).toContain('with the old token stop sending data');
    await confirm.getByRole('button', { name: 'OK' }).click();
    await waitOrExplain(page, dialog);
    expect(await dialog.textContent()).toContain('The previous token no longer works');
    const newToken = await dialog.getByLabel('Token').inputValue();
    expect(newToken).toMatch(/^gps_/);
    expect(newToken).not.toBe(token);
    await dialog.getByRole('button', { name: 'Done' }).click();
    expect(await forward(token, 'van-7')).toBe(401);
    expect(await forward(newToken, 'van-7')).toBe(200);
    const summary = (await apiInPage(page, 'GET', '/api/gps/ingestion-token')) as { prefix: string };
    expect(summary.prefix).toBe(newToken.slice(0, 10));
    await status.getByText(`Token ${newToken.slice(0, 10)}…`, { exact: false }).waitFor();
    await context.close();
  });

  it('shows no GPS tab to a member who is not an administrator', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Carriers',
      name: 'Cyril',
      email: 'cyril-gps-settings@example.org',
    });
    await joinedPerson(suite.t, page, 'Mira', 'mira-gps-settings@example.org');
    await context.close();

    const member = await signInPage(suite.browser, suite.t.url, 'mira-gps-settings@example.org', 'Mira joins the crew');
    await member.page.getByTestId('organization-name').waitFor();
    await member.page.goto(`${suite.t.url}/settings/gps`);
    await member.page.getByTestId('admins-only').waitFor();
    expect(await member.page.getByRole('tab', { name: 'GPS' }).count()).toBe(0);
    expect(await member.page.getByTestId('gps-settings-form').count()).toBe(0);
    expect(await member.page.getByTestId('gps-token-status').count()).toBe(0);
    await member.context.close();
  });
});
