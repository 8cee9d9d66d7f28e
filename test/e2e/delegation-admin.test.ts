import { describe, expect, it } from 'vitest';
import {
  apiInPage,
  browserSuite,
  joinedPerson,
  registeredPage,
  saveScreenshot,
  signedInUserId,
  signInPage,
} from '../helpers/browser';

const suite = browserSuite();

/** A moment `shift` ms from now as the form's datetime-local control takes it, in Moscow time (UTC+3). */
const local = (shift: number) => new Date(Date.now() + shift + 3 * 3_600_000).toISOString().slice(0, 16);
/** The same moment as the section shows it (dd.MM.yyyy HH:mm, Moscow time). */
const shown = (input: string) => {
  const [date, time] = input.split('T') as [string, string];
  const [year, month, day] = date.split('-');
  return `${day}.${month}.${year} ${time}`;
};
const HOUR = 3_600_000;

interface Delegation {
  id: string;
  substituteUserId: string;
  from: string;
  to: string;
  application: { state: string; applied: number; total: number | null } | null;
}

describe.skipIf(!suite.available)(
  'substitutes named by administrators, and their progress',
  { timeout: 120_000 },
  () => {
    it('an administrator names, changes and is refused an overlapping substitute for another user from the users page; members see no such page', async () => {
      const { context, page } = await registeredPage(suite.browser, suite.t.url, {
        organization: 'Substituted by admin',
        name: 'Alla',
        email: 'alla-admin-delegation@example.org',
      });
      const annaId = await joinedPerson(suite.t, page, 'Anna', 'anna-admin-delegation@example.org');
      const borisId = await joinedPerson(suite.t, page, 'Boris', 'boris-admin-delegation@example.org');
      await joinedPerson(suite.t, page, 'Vera', 'vera-admin-delegation@example.org');

      await page.goto(`${suite.t.url}/settings/users`);
      await page.getByRole('button', { name: 'Substitutes of Anna' }).click();
      const drawer = page.getByRole('dialog').filter({ hasText: 'Substitution: Anna' });
      const card = drawer.getByTestId('substitution-card');
      await card.getByText('No substitutes named').waitFor();
      await card.getByLabel('Substitute').click();
      await page.getByTitle('Boris').click();
      const from = local(24 * HOUR);
      await card.getByLabel('From (Moscow time)').fill(from);
      await card.getByLabel('To (Moscow time)').fill(local(72 * HOUR));
      await card.getByRole('button', { name: 'Name a substitute' }).click();
      await page.getByText('Substitute named').waitFor();
      const row = card.getByTestId('delegation-row');
      await row.getByRole('cell', { name: 'Boris' }).waitFor();
      // Not started yet: the section says when it will, in Moscow time.
      await row
        .getByTestId('delegation-progress')
        .filter({ hasText: `Starts ${shown(from)} (Moscow time)` })
        .waitFor();
      await saveScreenshot(page, 'delegation-admin');

      const annas = (await apiInPage(page, 'GET', `/api/delegations?userId=${annaId}`)) as { items: Delegation[] };
      expect(annas.items.map((one) => one.substituteUserId)).toEqual([borisId]);
      const own = (await apiInPage(page, 'GET', '/api/delegations')) as { items: Delegation[] };
      expect(own.items).toEqual([]);

      // Changed with the same controls: Vera instead of Boris.
      await row.getByRole('button', { name: 'Edit' }).click();
      const edit = page.getByRole('dialog').filter({ hasText: 'Change the substitution' });
      await edit.getByLabel('Substitute').click();
      await page.getByTitle('Vera').last().click();
      await edit.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Substitution changed').waitFor();
      await row.getByRole('cell', { name: 'Vera' }).waitFor();
      const changed = (await apiInPage(page, 'GET', `/api/delegations?userId=${annaId}`)) as { items: Delegation[] };
      expect(changed.items).toHaveLength(1);
      expect(changed.items[0]?.substituteUserId).not.toBe(borisId);

      // A second default substitute over the same days is refused, in the user's words.
      await card.getByLabel('Substitute').click();
      await page.getByTitle('Boris').last().click();
      await card.getByLabel('From (Moscow time)').fill(local(48 * HOUR));
      await card.getByLabel('To (Moscow time)').fill(local(96 * HOUR));
      await card.getByRole('button', { name: 'Name a substitute' }).click();
      await card
        .getByRole('alert')
        .filter({
          hasText:
            'Could not save the substitution: This period overlaps another substitution for the same tasks. Shorten one of them.',
        })
        .waitFor();
      // An end before the start is marked on the field.
      await card.getByLabel('To (Moscow time)').fill(local(36 * HOUR));
      await card.getByRole('button', { name: 'Name a substitute' }).click();
      await card.getByText('The end must come after the start').waitFor();
      expect(
        ((await apiInPage(page, 'GET', `/api/delegations?userId=${annaId}`)) as { items: Delegation[] }).items,
      ).toHaveLength(1);

      // A member who is not an administrator has no users page, so no one else's substitutes.
      const boris = await signInPage(
        suite.browser,
        suite.t.url,
        'boris-admin-delegation@example.org',
        'Boris joins the crew',
      );
      await boris.page.waitForURL(`${suite.t.url}/`);
      await boris.page.goto(`${suite.t.url}/settings/users`);
      await boris.page.getByText('Administrators only', { exact: true }).waitFor();
      expect(await boris.page.getByRole('button', { name: 'Substitutes of Anna' }).count()).toBe(0);
      await Promise.all([context.close(), boris.context.close()]);
    });

    it('a substitute named for a user with open tasks shows the bulk application reaching done, without reloading the page', async () => {
      const { context, page } = await registeredPage(suite.browser, suite.t.url, {
        organization: 'Substituted in bulk',
        name: 'Galina',
        email: 'galina-bulk-delegation@example.org',
      });
      const galinaId = await signedInUserId(page);
      const borisId = await joinedPerson(suite.t, page, 'Boris', 'boris-bulk-delegation@example.org');
      const form = (await apiInPage(page, 'POST', '/api/forms', { name: 'Repairs' })) as { id: string };
      const tasks: string[] = [];
      for (const title of ['Pump 1', 'Pump 2', 'Pump 3']) {
        const task = (await apiInPage(page, 'POST', '/api/tasks', { formId: form.id, title })) as { id: string };
        await apiInPage(page, 'POST', `/api/tasks/${task.id}/assignees`, { userId: galinaId });
        tasks.push(task.id);
      }

      // The job worker is held, so the page first sees the application before it has run.
      await suite.t.app.jobs.stop();
      try {
        await page.goto(`${suite.t.url}/profile`);
        const card = page.getByTestId('substitution-card');
        await card.getByText('No substitutes named').waitFor();
        await card.getByLabel('Substitute').click();
        await page.getByTitle('Boris').click();
        await card.getByLabel('From (Moscow time)').fill(local(-HOUR));
        await card.getByLabel('To (Moscow time)').fill(local(24 * HOUR));
        await card.getByRole('button', { name: 'Name a substitute' }).click();
        await page.getByText('Substitute named').waitFor();
        const progress = card.getByTestId('delegation-progress');
        await progress.filter({ hasText: 'About to start' }).waitFor();
        expect(await progress.getAttribute('data-state')).toBe('scheduled');
      } finally {
        suite.t.app.jobs.start();
      }
      const progress = page.getByTestId('substitution-card').getByTestId('delegation-progress');
      await progress.filter({ hasText: 'Added to 3 open tasks' }).waitFor();
      expect(await progress.getAttribute('data-state')).toBe('done');
      for (const id of tasks) {
        const task = (await apiInPage(page, 'GET', `/api/tasks/${id}`)) as { assignees: { userId: string }[] };
        expect(task.assignees.map((one) => one.userId)).toContain(borisId);
      }
      await context.close();
    });
  },
);
