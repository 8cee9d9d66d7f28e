import { describe, expect, it } from 'vitest';
import {
  heldOnDevice,
  registeredPage,
  replicaIs,
  saveScreenshot,
  serviceWorkerInControl,
  UI_WAIT_MS,
} from '../helpers/browser';
import { offlineSuite } from '../helpers/offline';
import { withoutStores } from '../helpers/replica';

const { suite, serverCall, sessionAnswers, serverHearsSignOuts, holdSignOuts, onTaskPage, taskList, syncThroughTest } =
  offlineSuite();

describe.skipIf(!suite.available)(
  'working offline in the browser: the copy on the device, sessions and forms',
  { timeout: 120_000 },
  () => {
    it('opens again in the browser with the network cut: the page from the service worker, the data from the replica', async () => {
      const { context, page, task } = await taskList({
        organization: 'Tunnel Works',
        name: 'Gleb',
        email: 'gleb@example.org',
      });
      // The service worker has kept the shell and controls the page; the replica has everything.
      await serviceWorkerInControl(page);
      await replicaIs(page, 'online ready');

      await context.setOffline(true);
      await page.reload();
      await page.getByTestId('offline-banner').waitFor();
      await page.getByRole('link', { name: 'Boiler room' }).click();
      await page.getByRole('heading', { name: 'Boiler room' }).waitFor();
      expect(page.url()).toBe(`${suite.t.url}/tasks/${task.id}`);
      await context.close();
    });

    it('brings the copy of the data again from the server when it cannot be opened, after saying which changes that loses', async () => {
      const { context, page, task } = await onTaskPage({
        organization: 'Dry Dock',
        name: 'Vera',
        email: 'vera.dock@example.org',
      });
      // A title changed offline waits to be sent.
      await context.setOffline(true);
      await page.getByTestId('offline-banner').waitFor();
      await page.getByLabel('Task title', { exact: true }).fill('Boiler room, never sent');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByTestId('offline-banner').filter({ hasText: 'waiting to be sent: 1' }).waitFor();

      // The tasks' IndexedDB database loses its tables (a damaged browser profile): the app closes
      // its connection when asked, and the copy no longer opens.
      const tasks = await page.evaluate(async () =>
        (await indexedDB.databases()).map((d) => d.name ?? '').find((n) => n.endsWith('--tasks')),
      );
      await page.evaluate(withoutStores, tasks as string);
      await context.setOffline(false);
      await page.goto(`${suite.t.url}/tasks`);
      const failed = page.getByTestId('replica-failed');
      await failed.waitFor();
      expect(await failed.textContent()).toContain('The copy of the data on this device could not be opened');

      // Bringing it again says what it loses, then fills a new copy from the server.
      await failed.getByRole('button', { name: 'Download the data again' }).click();
      const asked = page.getByRole('dialog', { name: 'Download the data again?' });
      expect(await asked.textContent()).toContain('Changes made on this device and not sent yet are lost: 1.');
      await asked.getByRole('button', { name: 'Delete and download' }).click();
      await page.getByRole('link', { name: 'Boiler room', exact: true }).waitFor();
      await replicaIs(page, 'online ready');
      expect(await failed.count()).toBe(0);
      expect((await serverCall(page, 'GET', `/api/tasks/${task.id}`)).body.title).toBe('Boiler room');
      // The new copy works: an edit made offline in it reaches the server.
      await page.getByRole('link', { name: 'Boiler room', exact: true }).click();
      await context.setOffline(true);
      await page.getByTestId('offline-banner').waitFor();
      await page.getByLabel('Task title', { exact: true }).fill('Boiler room, in the new copy');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByTestId('offline-banner').filter({ hasText: 'waiting to be sent: 1' }).waitFor();
      await context.setOffline(false);
      await expect
        .poll(async () => (await serverCall(page, 'GET', `/api/tasks/${task.id}`)).body.title, { timeout: UI_WAIT_MS })
        .toBe('Boiler room, in the new copy');
      await context.close();
    });

    it('shows in the profile what this device holds, and downloads it again, dropping a change the server keeps refusing', async () => {
      const { context, page, task, note } = await onTaskPage({
        organization: 'Salt Store',
        name: 'Lev',
        email: 'lev.salt@example.org',
      });
      const refuse = `ALTER TABLE tasks ADD CONSTRAINT refuses_stuck CHECK (fields->>'${note}' IS DISTINCT FROM 'Stuck')`;
      await suite.t.database.db.query(refuse);
      try {
        await page.getByLabel('Note').fill('Stuck');
        await page.getByRole('button', { name: 'Save' }).click();
        await page.getByTestId('send-failed').waitFor();

        await page.goto(`${suite.t.url}/profile`);
        const card = page.getByTestId('device-card');
        await expect
          .poll(async () => card.textContent(), { timeout: UI_WAIT_MS })
          .toMatch(/Tasks1Directory rows0Waiting to be sent1In syncno: see the notice at the top of the page/);
        // Headless Chromium does not promise to keep a site's storage: the card says so.
        expect(await card.textContent()).toMatch(
          /Kept by the browsernot promised.*Space used in the browser[\d.,]+ MB/,
        );
        await saveScreenshot(page, 'device-card');
        await card.getByRole('button', { name: 'Download the data again' }).click();
        const asked = page.getByRole('dialog', { name: 'Download the data again?' });
        expect(await asked.textContent()).toContain('Changes made on this device and not sent yet are lost: 1.');
        await asked.getByRole('button', { name: 'Delete and download' }).click();

        // The new copy holds what the server has: the refused change is gone, and nothing waits.
        await expect
          .poll(async () => card.textContent(), { timeout: UI_WAIT_MS })
          .toMatch(/Tasks1Directory rows0Waiting to be sent0In syncnow/);
        expect(await page.getByTestId('send-failed').count()).toBe(0);
        // Without the server it is not offered: the copy would go and nothing come in its place.
        await context.setOffline(true);
        await card.getByText('The data can be downloaded again once the server can be reached.').waitFor();
        expect(await card.getByRole('button', { name: 'Download the data again' }).isDisabled()).toBe(true);
        await context.setOffline(false);
        await page.goto(`${suite.t.url}/tasks/${task.id}`);
        await page.getByRole('heading', { name: 'Boiler room' }).waitFor();
        expect(await page.getByLabel('Note').inputValue()).toBe('');
      } finally {
        await suite.t.database.db.query('ALTER TABLE tasks DROP CONSTRAINT IF EXISTS refuses_stuck');
      }
      await context.close();
    });

    it("removes this device's copy at sign-out when asked, after warning of the changes it would discard", async () => {
      const { context, page } = await taskList({
        organization: 'Shared Desk',
        name: 'Rita',
        email: 'rita@example.org',
      });
      await replicaIs(page, 'online ready');
      const heldHere = await heldOnDevice(page);
      expect((await heldHere()).length).toBeGreaterThan(2);

      // An edit made offline waits to be sent.
      await context.setOffline(true);
      await page.getByRole('link', { name: 'Boiler room' }).click();
      await page.getByLabel('Note').fill('Left on the shared computer');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByTestId('offline-banner').filter({ hasText: 'waiting to be sent: 1' }).waitFor();

      await page.getByRole('button', { name: 'Sign out' }).click();
      const dialog = page.getByRole('dialog', { name: 'Sign out of Orbita?' });
      await dialog.waitFor();
      // Keeping the copy is the default; removing it says what is lost.
      const remove = dialog.getByRole('checkbox', { name: 'Remove the copy of the data from this device' });
      expect(await remove.isChecked()).toBe(false);
      expect(await dialog.textContent()).toContain('stays on this device');
      await remove.check();
      await dialog.getByTestId('sign-out-pending').waitFor();
      expect(await dialog.getByTestId('sign-out-pending').textContent()).toContain(
        'Changes not yet sent to the server will be lost: 1.',
      );
      await saveScreenshot(page, 'sign-out-remove-copy');
      const { refreshToken, accessToken } = JSON.parse(
        (await page.evaluate(() => localStorage.getItem('orbita.tokens'))) as string,
      );
      const signOuts = await holdSignOuts(page);
      await dialog.getByRole('button', { name: 'Remove the copy and sign out' }).click();

      await page.waitForURL(`${suite.t.url}/sign-in`);
      // The sign-out was tried at once.
      expect(signOuts.stopped()).toBeGreaterThanOrEqual(1);
      await expect.poll(heldHere, { timeout: UI_WAIT_MS }).toEqual([]);
      // The server could not hear the sign-out: the device keeps no token, only what can end the session.
      const stored = await page.evaluate(() => Object.entries(localStorage));
      expect(JSON.stringify(stored)).not.toContain(refreshToken);
      expect(stored.find(([key]) => key === 'orbita.revocations')?.[1]).toMatch(/^\["[0-9a-f]{64}"\]$/);
      // The session's access token (checked against its session at every request) shows when it ends.
      expect(await sessionAnswers(accessToken)).toBe('200');
      // Back online, the sign-out is tried again; the server cannot be reached yet at that moment.
      const triedOffline = signOuts.stopped();
      await context.setOffline(false);
      await expect.poll(signOuts.stopped, { timeout: UI_WAIT_MS }).toBeGreaterThan(triedOffline);
      // Once it can, the session ends there too: tried again without the browser saying anything.
      await signOuts.release();
      await expect.poll(() => sessionAnswers(accessToken), { timeout: UI_WAIT_MS }).toBe('401 logout');
      // The device forgets it once the server's answer is back, a moment after the session ended.
      await expect
        .poll(() => page.evaluate(() => localStorage.getItem('orbita.revocations')), { timeout: UI_WAIT_MS })
        .toBeNull();
      await context.close();
    });

    it('ends on the server a session signed out without the network when the app is next opened', async () => {
      const { context, page } = await taskList({
        organization: 'Closing Time',
        name: 'Oleg',
        email: 'oleg@example.org',
      });
      await replicaIs(page, 'online ready');
      const { accessToken } = JSON.parse((await page.evaluate(() => localStorage.getItem('orbita.tokens'))) as string);
      await context.setOffline(true);
      const signOuts = await holdSignOuts(page);
      // The page tries again every few seconds: the server does not hear those, nor one the page
      // makes as it closes.
      serverHearsSignOuts(false);
      await page.getByRole('button', { name: 'Sign out' }).click();
      const dialog = page.getByRole('dialog', { name: 'Sign out of Orbita?' });
      await dialog.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.waitForURL(`${suite.t.url}/sign-in`);
      expect(signOuts.stopped()).toBeGreaterThanOrEqual(1);
      // Closed before the network came back: the page never heard it return.
      await page.close();
      await context.setOffline(false);
      expect(await sessionAnswers(accessToken)).toBe('200');
      serverHearsSignOuts(true);

      const next = await context.newPage();
      await next.goto(`${suite.t.url}/sign-in`);
      await expect.poll(() => sessionAnswers(accessToken), { timeout: UI_WAIT_MS }).toBe('401 logout');
      // The page forgets the sign-out once it has the server's answer, which may come a moment after
      // the server ended the session.
      await expect
        .poll(() => next.evaluate(() => localStorage.getItem('orbita.revocations')), { timeout: UI_WAIT_MS })
        .toBeNull();
      await context.close();
    });

    it('removes the copy another tab has open when this one signs out with removal, once that tab has closed it', async () => {
      const { context, page: holder } = await taskList({
        organization: 'Front Desk',
        name: 'Nadia',
        email: 'nadia@example.org',
      });
      await replicaIs(holder, 'online ready');
      const heldHere = await heldOnDevice(holder);
      await context.setOffline(true);
      await holder.getByRole('link', { name: 'Boiler room' }).click();
      await holder.getByLabel('Note').fill('Typed in the first tab');
      await holder.getByRole('button', { name: 'Save' }).click();
      await holder.getByTestId('offline-banner').filter({ hasText: 'waiting to be sent: 1' }).waitFor();

      // A second tab waits for the copy the first one has open, and signs out from there.
      const other = await context.newPage();
      other.setDefaultTimeout(UI_WAIT_MS);
      await other.goto(`${suite.t.url}/tasks`);
      await other.getByTestId('other-tab').waitFor();
      await other.getByRole('button', { name: 'Sign out' }).click();
      const dialog = other.getByRole('dialog', { name: 'Sign out of Orbita?' });
      await dialog.getByRole('checkbox', { name: 'Remove the copy of the data from this device' }).check();
      // The first tab's unsent change is counted here too.
      expect(await dialog.getByTestId('sign-out-pending').textContent()).toContain(
        'Changes not yet sent to the server will be lost: 1.',
      );
      await dialog.getByRole('button', { name: 'Remove the copy and sign out' }).click();

      await other.waitForURL(`${suite.t.url}/sign-in`);
      await holder.waitForURL(`${suite.t.url}/sign-in`);
      await expect.poll(heldHere, { timeout: UI_WAIT_MS }).toEqual([]);
      expect(await other.getByRole('alert').count()).toBe(0);

      // Signing in again in one tab brings the other one in too.
      await context.setOffline(false);
      await other.getByLabel('E-mail').fill('nadia@example.org');
      await other.getByLabel('Password').fill('long enough password');
      await other.getByRole('button', { name: 'Sign in' }).click();
      await holder.waitForURL((url) => url.pathname === '/');
      await holder.getByTestId('organization-name').waitFor();
      await context.close();
    });

    it('records a task opened without the network as viewed once the connection is back', async () => {
      const { context, page, task } = await taskList({
        organization: 'Night Shift',
        name: 'Lev',
        email: 'lev@example.org',
      });
      const recent = async () =>
        ((await serverCall(page, 'GET', '/api/home/recent')).body.items as { task: { id: string } }[]).map(
          (item) => item.task.id,
        );
      expect(await recent()).toEqual([]);

      // Opened online: the replica has the form too (the task page needs it), not only the task.
      await replicaIs(page, 'online ready');
      await context.setOffline(true);
      await page.getByTestId('offline-banner').waitFor();
      await page.getByRole('link', { name: 'Boiler room' }).click();
      await page.getByRole('heading', { name: 'Boiler room' }).waitFor();
      expect(await recent()).toEqual([]);

      await context.setOffline(false);
      await page.getByTestId('offline-banner').waitFor({ state: 'detached' });
      await expect.poll(recent, { timeout: UI_WAIT_MS }).toEqual([task.id]);
      await context.close();
    });

    it('says a task’s form has not been downloaded yet when the network is cut before it arrives, and opens the task once it does', async () => {
      const { context, page } = await registeredPage(suite.browser, suite.t.url, {
        organization: 'Late Forms',
        name: 'Vera',
        email: 'vera@example.org',
      });
      // The replica's connection goes through the test: it holds the new form back (a first sync
      // cut short before the form arrived) and cuts the connection.
      let formsHeld = true;
      const network = await syncThroughTest(page, {
        dropping: (document) => formsHeld && document.name === 'Late form',
      });
      await page.goto(`${suite.t.url}/tasks`);
      await replicaIs(page, 'online ready');
      const form = (
        await serverCall(page, 'POST', '/api/forms', { name: 'Late form', fields: [{ name: 'Gauge', type: 'text' }] })
      ).body as { id: string };
      await serverCall(page, 'POST', '/api/tasks', { formId: form.id, title: 'Orphan task' });
      await page.getByRole('link', { name: 'Orphan task' }).waitFor();

      await network.goOffline();
      await page.getByRole('link', { name: 'Orphan task' }).click();
      await page.getByTestId('task-form-missing').waitFor();
      expect(await page.getByTestId('task-form-missing').textContent()).toContain('has not been downloaded');
      await saveScreenshot(page, 'task-form-not-downloaded');

      // Back online, the replica pulls what it missed: the form arrives and the task opens.
      formsHeld = false;
      await network.goOnline();
      await page.getByRole('heading', { name: 'Orphan task' }).waitFor({ timeout: 30_000 });
      await page.getByLabel('Gauge').waitFor();
      await context.close();
    });

    it('says, online and synced, that a task’s form which never came is not available', async () => {
      const { context, page } = await registeredPage(suite.browser, suite.t.url, {
        organization: 'Withheld Forms',
        name: 'Lev',
        email: 'lev.withheld@example.org',
      });
      // The form never reaches the replica, neither streamed nor pulled (the server sends it to
      // everyone who may read it; this stands for a form the user may not read).
      await syncThroughTest(page, { withheld: (document) => document.name === 'Withheld form' });
      await page.goto(`${suite.t.url}/tasks`);
      await replicaIs(page, 'online ready');
      const form = (
        await serverCall(page, 'POST', '/api/forms', {
          name: 'Withheld form',
          fields: [{ name: 'Gauge', type: 'text' }],
        })
      ).body as { id: string };
      await serverCall(page, 'POST', '/api/tasks', { formId: form.id, title: 'Task of a withheld form' });
      await page.getByRole('link', { name: 'Task of a withheld form' }).click();
      await page.getByTestId('task-form-missing').waitFor();
      expect(await page.getByTestId('task-form-missing').textContent()).toContain('is not available to you');
      await context.close();
    });
  },
);
