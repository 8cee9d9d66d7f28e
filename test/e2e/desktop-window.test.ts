import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseIsOpen } from '../../electron/backend/rx-storage-sqlite';
import {
  apiInPage,
  browserSuite,
  joinedPerson,
  registeredPage,
  replicaIs,
  signIn,
  UI_WAIT_MS,
} from '../helpers/browser';
import { desktopShell } from '../helpers/desktop-shell';
import { copyHeldElsewhere, taskOnDisk } from '../helpers/replica';

const suite = browserSuite({ config: { syncPollMs: 100 } });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'orbita-desktop-window-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A task's title as the replica process keeps it in its SQLite file. */
const titleOnDisk = (taskId: string) => taskOnDisk(dir, taskId)?.title;

/** The task's title on the server. */
async function titleOnServer(page: Page, taskId: string): Promise<unknown> {
  return ((await apiInPage(page, 'GET', `/api/tasks/${taskId}`)) as { title: string }).title;
}

/** Renames the task on its page with the network cut, and sees it saved in the replica process. */
async function renameOffline(page: Page, taskId: string, title: string) {
  await page.context().setOffline(true);
  await page.getByTestId('offline-banner').waitFor();
  await page.getByLabel('Task title', { exact: true }).fill(title);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByTestId('offline-banner').filter({ hasText: 'waiting to be sent: 1' }).waitFor();
  await expect.poll(() => titleOnDisk(taskId), { timeout: UI_WAIT_MS }).toBe(title);
  await page.context().setOffline(false);
  await expect.poll(() => titleOnServer(page, taskId), { timeout: UI_WAIT_MS }).toBe(title);
}

describe.skipIf(!suite.available)('the desktop window on its replica process', { timeout: 120_000 }, () => {
  it('keeps its replica in the replica process, across a crash of that process and a new session on the same page', async () => {
    const shell = desktopShell(dir);
    const { context, page } = await registeredPage(
      suite.browser,
      suite.t.url,
      { organization: 'Desk Yard', name: 'Dina', email: 'dina.desk@example.org' },
      { prepare: (created) => shell.install(created) },
    );
    const form = (await apiInPage(page, 'POST', '/api/forms', { name: 'Checks', fields: [] })) as { id: string };
    const task = (await apiInPage(page, 'POST', '/api/tasks', { formId: form.id, title: 'Boiler room' })) as {
      id: string;
    };
    await page.goto(`${suite.t.url}/tasks/${task.id}`);
    await page.getByRole('heading', { name: 'Boiler room' }).waitFor();
    await replicaIs(page, 'online ready');
    // The page is the desktop app's: its replica is the replica process's SQLite file.
    await expect.poll(() => titleOnDisk(task.id), { timeout: UI_WAIT_MS }).toBe('Boiler room');
    await renameOffline(page, task.id, 'Boiler room, first');

    // The replica process crashes and is started again: the window opens the replica on its new port.
    const before = shell.handed();
    await shell.crash();
    expect(shell.handed()).toBe(before + 1);
    await replicaIs(page, 'online ready');
    await renameOffline(page, task.id, 'Boiler room, after the crash');

    // The profile says how much room the copy's files take, as the replica process measures them
    // (a browser's promise to keep a site's storage means nothing here).
    await page.goto(`${suite.t.url}/profile`);
    const card = page.getByTestId('device-card');
    await expect
      .poll(async () => card.textContent(), { timeout: UI_WAIT_MS })
      .toMatch(/Tasks1.*Space used on disk[\d.,]+ MB/);
    expect(await card.textContent()).not.toContain('Kept by the browser');

    // Signed out and in again without reloading the window: the new session asks for a port of its own.
    await page.getByRole('button', { name: 'Sign out' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign out of Orbita?' });
    await dialog.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${suite.t.url}/sign-in`);
    const handed = shell.handed();
    await signIn(page, 'dina.desk@example.org', 'long enough password');
    await page.getByTestId('organization-name').waitFor();
    await expect.poll(() => shell.handed(), { timeout: UI_WAIT_MS }).toBe(handed + 1);
    await page.goto(`${suite.t.url}/tasks/${task.id}`);
    await replicaIs(page, 'online ready');
    await renameOffline(page, task.id, 'Boiler room, second session');
    await context.close();
    await shell.close();
  });

  it('brings a replica whose file is damaged again from the server, over the port it failed on', async () => {
    const shell = desktopShell(dir);
    const { context, page } = await registeredPage(
      suite.browser,
      suite.t.url,
      { organization: 'Dock Yard', name: 'Denis', email: 'denis.dock@example.org' },
      { prepare: (created) => shell.install(created) },
    );
    const me = (await apiInPage(page, 'GET', '/api/auth/me')) as { user: { id: string } };
    const form = (await apiInPage(page, 'POST', '/api/forms', { name: 'Checks', fields: [] })) as { id: string };
    const task = (await apiInPage(page, 'POST', '/api/tasks', { formId: form.id, title: 'Pump' })) as { id: string };
    await page.goto(`${suite.t.url}/tasks`);
    await page.getByRole('link', { name: 'Pump' }).waitFor();
    await replicaIs(page, 'online ready');
    await expect.poll(() => titleOnDisk(task.id), { timeout: UI_WAIT_MS }).toBe('Pump');

    // The process dies, and its file is damaged before it starts again: the copy does not open.
    const databaseName = `orbita-${me.user.id}`;
    await shell.crash(async () => {
      await expect
        .poll(() => databaseIsOpen({ databaseDirectory: dir }, databaseName), { timeout: UI_WAIT_MS })
        .toBe(false);
      const file = readdirSync(dir).find((name) => name.endsWith('.sqlite') && name.includes(me.user.id.slice(-12)));
      writeFileSync(path.join(dir, file as string), 'not a database any more'.repeat(500));
      for (const suffix of ['-wal', '-shm']) rmSync(path.join(dir, `${file}${suffix}`), { force: true });
    });
    const failed = page.getByTestId('replica-failed');
    await failed.waitFor();
    expect(await failed.textContent()).toContain('file is not a database');
    await failed.getByRole('button', { name: 'Download the data again' }).click();
    await page
      .getByRole('dialog', { name: 'Download the data again?' })
      .getByRole('button', { name: 'Delete and download' })
      .click();
    await replicaIs(page, 'online ready');
    await page.getByRole('link', { name: 'Pump' }).waitFor();
    await expect.poll(() => titleOnDisk(task.id), { timeout: UI_WAIT_MS }).toBe('Pump');
    await context.close();
    await shell.close();
  });

  /**
   * A person of a new organization signed in to the desktop window with the task `title` on its copy,
   * and the organization's administrator, who can deactivate them (`deactivate()`).
   */
  async function memberOnDesktop(
    who: { organization: string; slug: string; name: string; title: string },
    host: { discardWaitMs?: number } = {},
  ) {
    const { context: adminContext, page: admin } = await registeredPage(suite.browser, suite.t.url, {
      organization: who.organization,
      name: 'Administrator',
      email: `admin@${who.slug}.example.org`,
    });
    const form = (await apiInPage(admin, 'POST', '/api/forms', { name: 'Checks', fields: [] })) as { id: string };
    await apiInPage(admin, 'POST', '/api/tasks', { formId: form.id, title: who.title });
    const email = `${who.name.toLowerCase()}@${who.slug}.example.org`;
    const userId = await joinedPerson(suite.t, admin, who.name, email);

    const shell = desktopShell(dir, host);
    const context = await suite.browser.newContext({ locale: 'en-US' });
    await shell.install(context);
    const page = await context.newPage();
    page.setDefaultTimeout(UI_WAIT_MS);
    await page.goto(`${suite.t.url}/sign-in`);
    await signIn(page, email, `${who.name} joins the crew`);
    await page.getByTestId('organization-name').waitFor();
    await page.goto(`${suite.t.url}/tasks`);
    await page.getByRole('link', { name: who.title }).waitFor();
    await replicaIs(page, 'online ready');
    return {
      page,
      userId,
      copyFiles: () => readdirSync(dir).filter((name) => name.includes(userId.slice(-12))),
      deactivate: () => apiInPage(admin, 'PATCH', `/api/users/${userId}`, { status: 'deactivated' }),
      async close() {
        await context.close();
        await adminContext.close();
        await shell.close();
      },
    };
  }

  it('deletes the copy in the replica process when the account is deactivated', async () => {
    const member = await memberOnDesktop({ organization: 'Slip Yard', slug: 'slip', name: 'Mila', title: 'Winch' });
    const { page, copyFiles } = member;
    await expect.poll(copyFiles, { timeout: UI_WAIT_MS }).not.toEqual([]);

    await member.deactivate();
    await page.waitForURL(`${suite.t.url}/sign-in`);
    await page.getByTestId('deactivated').filter({ hasText: 'Its data has been removed from this device.' }).waitFor();
    expect(copyFiles()).toEqual([]);
    await member.close();
  });

  it('says the copy stayed when another page of the app keeps it open as the account is deactivated', async () => {
    const member = await memberOnDesktop(
      { organization: 'Dry Dock', slug: 'dock', name: 'Gleb', title: 'Crane' },
      { discardWaitMs: 500 },
    );
    const { page, copyFiles } = member;
    const elsewhere = await copyHeldElsewhere(dir, member.userId);

    await member.deactivate();
    await page.waitForURL(`${suite.t.url}/sign-in`);
    await page
      .getByTestId('deactivated')
      .filter({
        hasText:
          'Its data could not be removed from this device: another Orbita tab or window still has it open. Close other Orbita windows and open Orbita again.',
      })
      .waitFor();
    expect(copyFiles().some((name) => name.endsWith('.sqlite'))).toBe(true);
    await elsewhere.release();
    await member.close();
  });
});
