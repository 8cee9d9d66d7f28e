import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  apiInPage,
  browserSuite,
  heldBy,
  joinedPerson,
  registeredPage,
  replicaIs,
  saveScreenshot,
  signedInUserId,
  signIn,
  signInPage,
} from '../helpers/browser';

const suite = browserSuite({ config: { syncPollMs: 100 } });

/**
 * A new organization whose administrator (on `admin`) has a task, and a colleague signed in on a
 * browser of their own (`page`) whose copy of the data holds that task.
 */
async function colleagueWithCopy(organization: string, name: string) {
  const slug = organization.toLowerCase().replace(/\W+/g, '.');
  const { context: adminContext, page: admin } = await registeredPage(suite.browser, suite.t.url, {
    organization,
    name: 'Administrator',
    email: `admin@${slug}.example.org`,
  });
  const form = (await apiInPage(admin, 'POST', '/api/forms', { name: 'Inspections', fields: [] })) as { id: string };
  await apiInPage(admin, 'POST', '/api/tasks', { formId: form.id, title: 'Boiler room' });
  const email = `${name.toLowerCase()}@${slug}.example.org`;
  const userId = await joinedPerson(suite.t, admin, name, email);
  const { context, page } = await signInPage(suite.browser, suite.t.url, email, `${name} joins the crew`);
  await page.getByTestId('organization-name').waitFor();
  await page.goto(`${suite.t.url}/tasks`);
  await page.getByRole('link', { name: 'Boiler room' }).waitFor();
  await replicaIs(page, 'online ready');
  expect((await heldBy(page, userId)).length).toBeGreaterThan(2);
  const deactivate = async () =>
    expect(await apiInPage(admin, 'PATCH', `/api/users/${userId}`, { status: 'deactivated' })).toMatchObject({
      status: 'deactivated',
    });
  const close = async () => {
    await context.close();
    await adminContext.close();
  };
  return { context, page, userId, admin, adminEmail: `admin@${slug}.example.org`, email, deactivate, close };
}

/** Signs out of `page`, keeping this device's copy of the data for the next sign-in. */
async function signOutKeepingCopy(page: Page) {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page
    .getByRole('dialog', { name: 'Sign out of Orbita?' })
    .getByRole('button', { name: 'Sign out', exact: true })
    .click();
  await page.waitForURL(`${suite.t.url}/sign-in`);
}

/** The sign-in page says the account was deactivated and its data removed; nothing of it stays. */
async function removedAndSaid(page: Page, userId: string) {
  await page.waitForURL(`${suite.t.url}/sign-in`);
  await page
    .getByTestId('deactivated')
    .filter({ hasText: 'This account has been deactivated by an administrator of your organization.' })
    .filter({ hasText: 'Its data has been removed from this device.' })
    .waitFor();
  expect(await heldBy(page, userId)).toEqual([]);
  expect(await page.evaluate(() => localStorage.getItem('orbita.tokens'))).toBeNull();
}

describe.skipIf(!suite.available)(
  'an account deactivated by an administrator leaves nothing on the device',
  { timeout: 120_000 },
  () => {
    it('removes the copy of the data while the app is open, and says why on the sign-in page', async () => {
      const { context, page, userId, deactivate, close } = await colleagueWithCopy('Harbour Works', 'Pavel');
      // A second tab waits for the copy the first one has open.
      const second = await context.newPage();
      await second.goto(`${suite.t.url}/tasks`);
      await second.getByTestId('other-tab').waitFor();
      await deactivate();
      // The server ends the sync stream saying why: the app signs out and removes the copy at once.
      await removedAndSaid(page, userId);
      // The other tab is signed out with it, and says why too.
      await removedAndSaid(second, userId);
      await saveScreenshot(page, 'sign-in-after-deactivation');
      await close();
    });

    it('removes the copy when the app is opened after the account was deactivated', async () => {
      const { context, page, userId, deactivate, close } = await colleagueWithCopy('Dry Dock', 'Marta');
      await page.close();
      await deactivate();
      // The stored session is refused with the reason before the copy is opened.
      const next = await context.newPage();
      await next.goto(`${suite.t.url}/tasks`);
      await removedAndSaid(next, userId);
      await close();
    });

    it('removes the copy kept at the last sign-out once the deactivated person signs in with their password', async () => {
      const { page, userId, deactivate, close } = await colleagueWithCopy('Night Ferry', 'Inna');
      await signOutKeepingCopy(page);
      const kept = await heldBy(page, userId);
      expect(kept.length).toBeGreaterThan(2);
      await deactivate();
      // A wrong password proves nothing: the copy stays.
      await signIn(page, 'inna@night.ferry.example.org', 'not her password');
      await page.getByRole('alert').filter({ hasText: 'The e-mail or password is wrong' }).waitFor();
      expect(await heldBy(page, userId)).toEqual(kept);
      await signIn(page, 'inna@night.ferry.example.org', 'Inna joins the crew');
      await page.getByRole('alert').filter({ hasText: 'deactivated' }).first().waitFor();
      await removedAndSaid(page, userId);
      await close();
    });

    it('removes the copy a deactivated colleague kept here before someone else signed in, and leaves that one alone', async () => {
      const { context, page, userId, adminEmail, email, deactivate, close } = await colleagueWithCopy(
        'Salt Pier',
        'Lena',
      );
      await signOutKeepingCopy(page);
      const kept = await heldBy(page, userId);
      expect(kept.length).toBeGreaterThan(2);
      // The administrator signs in on the same browser and gets a copy of their own.
      await signIn(page, adminEmail, 'long enough password');
      await page.getByTestId('organization-name').waitFor();
      await page.goto(`${suite.t.url}/tasks`);
      await page.getByRole('link', { name: 'Boiler room' }).waitFor();
      await replicaIs(page, 'online ready');
      const adminId = await signedInUserId(page);
      const adminHeld = await heldBy(page, adminId);
      expect(adminHeld.length).toBeGreaterThan(2);
      // Only the last account signed in is remembered as such: the administrator now.
      expect(await heldBy(page, userId)).toEqual(kept.filter((key) => key !== 'orbita.me'));

      await deactivate();
      // Someone opens the sign-in page in another tab and tries Lena's account.
      const other = await context.newPage();
      await other.goto(`${suite.t.url}/sign-in`);
      await signIn(other, email, 'Lena joins the crew');
      await other
        .getByTestId('deactivated')
        .filter({ hasText: 'Its data has been removed from this device.' })
        .waitFor();
      expect(await heldBy(page, userId)).toEqual([]);

      // The administrator is still signed in in the first tab, their copy in place.
      await replicaIs(page, 'online ready');
      expect(await page.getByRole('link', { name: 'Boiler room' }).count()).toBe(1);
      expect(await heldBy(page, adminId)).toEqual(adminHeld);
      // Signing out there, the next person is not told of the colleague's deactivation.
      await signOutKeepingCopy(page);
      await page.getByLabel('E-mail').waitFor();
      expect(await page.getByTestId('deactivated').count()).toBe(0);
      await close();
    });

    it('leaves the signed-in account and its copy alone when a sign-in as a deactivated colleague is refused', async () => {
      const { admin, email, deactivate, close } = await colleagueWithCopy('Tug Station', 'Oskar');
      await replicaIs(admin, 'online ready');
      const adminId = await signedInUserId(admin);
      const adminHeld = await heldBy(admin, adminId);
      expect(adminHeld.length).toBeGreaterThan(2);
      await deactivate();
      await admin.goto(`${suite.t.url}/sign-in`);
      await signIn(admin, email, 'Oskar joins the crew');
      await admin.getByRole('alert').filter({ hasText: 'deactivated' }).first().waitFor();
      // The refusal is about the colleague: the administrator stays signed in, their copy in place.
      await admin.goto(`${suite.t.url}/tasks`);
      await admin.getByRole('link', { name: 'Boiler room' }).waitFor();
      await replicaIs(admin, 'online ready');
      expect(await admin.getByTestId('deactivated').count()).toBe(0);
      expect(await heldBy(admin, adminId)).toEqual(adminHeld);
      await close();
    });
  },
);
