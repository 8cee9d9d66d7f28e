import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  addRow,
  apiInPage,
  browserSuite,
  choose,
  heldOnDevice,
  joinedPerson,
  registeredPage,
  replicaIs,
  replicaState,
  rowNode,
  saveScreenshot,
  serviceWorkerInControl,
  UI_WAIT_MS,
  waitOrExplain,
} from '../helpers/browser';
import { withoutStores } from '../helpers/replica';

const suite = browserSuite({ config: { syncPollMs: 100 } });

/** Calls the API from the test (outside the suite.browser, whose network may be cut) with the page's session. */
async function serverCall(page: Page, method: string, path: string, body?: unknown) {
  const { accessToken } = JSON.parse((await page.evaluate(() => localStorage.getItem('orbita.tokens'))) as string) as {
    accessToken: string;
  };
  const response = await fetch(`${suite.t.url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${accessToken}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

/**
 * How the server answers a session's access token, with the reason its session ended when it
 * refuses it ("401 logout"): a session ended some other way (a refresh taken for a stolen one)
 * is not mistaken for a sign-out.
 */
async function sessionAnswers(accessToken: string): Promise<string> {
  const response = await fetch(`${suite.t.url}/api/auth/me`, { headers: { Authorization: `Bearer ${accessToken}` } });
  if (response.status !== 401) return String(response.status);
  const { sid } = JSON.parse(Buffer.from(accessToken.split('.')[1] as string, 'base64url').toString()) as {
    sid: string;
  };
  const { rows } = await suite.t.database.db.query<{ revoked_reason: string | null }>(
    'SELECT revoked_reason FROM user_sessions WHERE id = $1',
    [sid],
  );
  return `401 ${rows[0]?.revoked_reason ?? 'not revoked'}`;
}

/**
 * Cuts the page's sign-outs off the server as the cut network does, whatever the browser's emulation
 * of the cut lets through while it takes effect. Returns how many it stopped, and `release()`.
 */
async function holdSignOuts(page: Page) {
  let stopped = 0;
  const route = '**/api/auth/logout';
  await page.route(route, (request) => {
    stopped += 1;
    return request.abort('internetdisconnected');
  });
  return { stopped: () => stopped, release: () => page.unroute(route) };
}

async function arrange(page: Page) {
  const form = (await apiInPage(page, 'POST', '/api/forms', {
    name: 'Inspections',
    fields: [
      { name: 'Note', type: 'text' },
      { name: 'Reading', type: 'number' },
    ],
  })) as { id: string; fields: { id: string; name: string }[]; statuses: { id: string; name: string }[] };
  const task = (await apiInPage(page, 'POST', '/api/tasks', { formId: form.id, title: 'Boiler room' })) as {
    id: string;
  };
  const field = (name: string) => form.fields.find((f) => f.name === name)?.id as string;
  return { form, task, note: field('Note'), reading: field('Reading') };
}

/** The ids of the people the server has assigned to a task, sorted. */
async function assignedOnServer(page: Page, taskId: string): Promise<string[]> {
  const { body } = await serverCall(page, 'GET', `/api/tasks/${taskId}`);
  return (body.assignees as { userId: string }[]).map((assignee) => assignee.userId).sort();
}

/**
 * A new organization's administrator on the task page of its one task ("Boiler room"), the
 * replica online and synced: what the offline edits below are based on.
 */
async function onTaskPage(who: Parameters<typeof registeredPage>[2]) {
  const { context, page } = await registeredPage(suite.browser, suite.t.url, who);
  const arranged = await arrange(page);
  await page.goto(`${suite.t.url}/tasks/${arranged.task.id}`);
  await page.getByRole('heading', { name: 'Boiler room' }).waitFor();
  await replicaIs(page, 'online ready');
  return { context, page, ...arranged };
}

/** A new organization's administrator on the task list, its one task ("Boiler room") shown. */
async function taskList(who: Parameters<typeof registeredPage>[2]) {
  const { context, page } = await registeredPage(suite.browser, suite.t.url, who);
  const { task } = await arrange(page);
  await page.goto(`${suite.t.url}/tasks`);
  await page.getByRole('link', { name: 'Boiler room' }).waitFor();
  return { context, page, task };
}

/** The cells of a directory row as the page's replica holds it in IndexedDB (the browser build's storage). */
async function replicaCells(page: Page, rowId: string): Promise<unknown> {
  return page.evaluate(async (id) => {
    const name = (await indexedDB.databases()).map((d) => d.name ?? '').find((n) => n.endsWith('--directory_rows'));
    if (!name) return undefined;
    const database = await new Promise<IDBDatabase>((resolve, reject) => {
      const opening = indexedDB.open(name);
      opening.onsuccess = () => resolve(opening.result);
      opening.onerror = () => reject(opening.error);
    });
    try {
      const store = database.transaction('docs').objectStore('docs');
      const doc = await new Promise<{ cells?: unknown } | undefined>((resolve, reject) => {
        const reading = store.get(id);
        reading.onsuccess = () => resolve(reading.result);
        reading.onerror = () => reject(reading.error);
      });
      return doc?.cells;
    } finally {
      database.close();
    }
  }, rowId);
}

/** Takes each of the parent rows named off the open row editor's bindings, or puts it on. */
async function toggleParentRows(page: Page, labels: string[]): Promise<void> {
  await page.getByLabel('Offered under parent rows').click();
  for (const label of labels) await page.getByTitle(label, { exact: true }).last().click();
  await page.keyboard.press('Escape');
}

type Picks = (document: Record<string, unknown>) => boolean;

/** The JSON of a server's Socket.IO frame (`42/sync,[…]`, `43/sync,7[…]`) and what precedes it; none without documents. */
function framed(text: string): { head: string; packet: unknown } | undefined {
  if (!text.includes('"documents"')) return undefined;
  const at = text.indexOf('[');
  return { head: text.slice(0, at), packet: JSON.parse(text.slice(at)) };
}

/** Calls `visit` with every `documents` array in `value`, replacing it with what `visit` returns. */
function mapDocuments(value: unknown, visit: (documents: Record<string, unknown>[]) => unknown[]): unknown {
  if (Array.isArray(value)) return value.map((inner) => mapDocuments(inner, visit));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === 'documents' && Array.isArray(inner) ? visit(inner) : mapDocuments(inner, visit),
    ]),
  );
}

/**
 * Routes the page's Socket.IO connection through the test. A server frame carrying a document
 * `dropping` picks is dropped whole: a stream message never arrives (the replica's checkpoint stays
 * before it), a pull's answer never comes (the pull fails when the connection closes, and is tried
 * again after it is back). Documents `withheld` picks are taken out of every frame: the page never
 * receives them. `goOffline()` cuts the network and the open connections (refusing new ones);
 * `goOnline()` brings both back.
 */
async function syncThroughTest(page: Page, options: { dropping?: Picks; withheld?: Picks }) {
  let cut = false;
  const open: { close: () => Promise<void> }[] = [];
  await page.routeWebSocket(/\/socket\.io\//, (ws) => {
    if (cut) return void ws.close();
    const server = ws.connectToServer();
    open.push(ws);
    ws.onMessage((message) => server.send(message));
    server.onMessage((message) => {
      const frame = framed(String(message));
      if (!frame) return void ws.send(message);
      let dropped = false;
      const packet = mapDocuments(frame.packet, (documents) => {
        if (options.dropping && documents.some(options.dropping)) dropped = true;
        const { withheld } = options;
        return withheld ? documents.filter((document) => !withheld(document)) : documents;
      });
      if (!dropped) ws.send(frame.head + JSON.stringify(packet));
    });
  });
  return {
    async goOffline() {
      cut = true;
      await page.context().setOffline(true);
      await Promise.all(open.splice(0).map((ws) => ws.close()));
      await page.getByTestId('offline-banner').waitFor();
    },
    async goOnline() {
      cut = false;
      await page.context().setOffline(false);
    },
  };
}

describe.skipIf(!suite.available)('working offline in the browser', { timeout: 120_000 }, () => {
  it('keeps lists and the task page usable with the network cut, and sends the edits when it is back', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Rail Depot',
      name: 'Pavel',
      email: 'pavel@example.org',
    });
    const { task, note, reading } = await arrange(page);
    await page.goto(`${suite.t.url}/tasks/${task.id}`);
    await page.getByRole('heading', { name: 'Boiler room' }).waitFor();
    await page.getByTestId('history-entry').or(page.getByText('No changes yet')).first().waitFor();
    // Opened online: the replica has pulled the server's state the edits below are based on.
    await replicaIs(page, 'online ready');

    const cutAt = Date.now();
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    const banner = (await page.getByTestId('offline-banner').textContent()) ?? '';
    expect(banner).toContain('cannot be reached');
    // How old the data shown may be: as of the moment the connection went (to the minute).
    const asOf = (time: number) =>
      `Data from the server as of ${new Date(time).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' })}.`;
    expect([asOf(cutAt), asOf(Date.now())]).toContain(banner.slice(banner.indexOf('Data from')));
    await page.getByLabel('Note').fill('Checked on the train');
    await page.getByLabel('Reading').fill('12 345,50');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved on this device').waitFor();
    await page.getByTestId('offline-banner').filter({ hasText: 'waiting to be sent: 1' }).waitFor();
    // The task says it has not been sent.
    await page.getByRole('heading', { name: 'Boiler room' }).getByTestId('not-sent').waitFor();
    // The number is normalised here as the server would.
    expect(await page.getByLabel('Reading').inputValue()).toBe('12345.5');
    expect(await page.getByText('Available when connected to the server').count()).toBeGreaterThan(0);
    await saveScreenshot(page, 'task-offline');

    // Home greets the remembered user without the server, and leads to what works offline.
    await page.getByRole('menuitem', { name: 'Home' }).click();
    await page.getByTestId('offline-tasks-link').waitFor();
    expect(await page.getByText('Hello, Pavel').count()).toBe(1);
    expect(await page.getByTestId('organization-name').textContent()).toBe('Rail Depot');

    // The forms and task lists read the replica, and a task can be created without the network.
    await page.getByRole('menuitem', { name: 'Forms' }).click();
    await page.getByRole('link', { name: 'Inspections', exact: true }).waitFor();
    await page.getByRole('menuitem', { name: 'Tasks' }).click();
    await page.getByRole('link', { name: 'Boiler room' }).waitFor();
    await page.getByRole('button', { name: 'New task' }).click();
    await page.getByLabel('Task title').fill('Written offline');
    // The dialog offers the form's fields, typed.
    await page.getByRole('dialog').getByLabel('Reading').fill('not a number');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByText('Enter a number').waitFor();
    await page.getByRole('dialog').getByLabel('Reading').fill('5,5');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('link', { name: 'Written offline' }).waitFor();
    await page.getByTestId('offline-banner').filter({ hasText: 'waiting to be sent: 2' }).waitFor();
    // Both tasks are marked in the list as not sent yet.
    const notSent = page.getByRole('row').filter({ has: page.getByTestId('not-sent') });
    await expect
      .poll(() => notSent.allTextContents(), { timeout: UI_WAIT_MS })
      .toEqual([expect.stringContaining('Written offline'), expect.stringContaining('Boiler room')]);
    // Nothing reached the server yet.
    const before = await serverCall(page, 'GET', `/api/tasks/${task.id}`);
    expect((before.body.fields as Record<string, unknown>)[note]).toBeUndefined();

    await context.setOffline(false);
    await page.getByTestId('offline-banner').waitFor({ state: 'detached' });
    // Sent: the server has the edits, and the marks are gone (a list drawn anew may show none for a
    // moment, so their absence alone proves nothing).
    await expect
      .poll(async () => (await serverCall(page, 'GET', `/api/tasks/${task.id}`)).body.fields, { timeout: UI_WAIT_MS })
      .toMatchObject({ [note]: 'Checked on the train', [reading]: '12345.5' });
    await expect
      .poll(async () => `${await page.getByTestId('not-sent').count()} ${await replicaState(page)}`, {
        timeout: UI_WAIT_MS,
      })
      .toMatch(/^0 /);
    await page.getByTestId('sending-banner').waitFor({ state: 'detached' });
    // The new task may go in a push of its own, after a retry (meanwhile a failed attempt's banner,
    // not the sending one, may be shown): it reaches the server all the same.
    const found = async () =>
      (await serverCall(page, 'GET', '/api/tasks/search?q=Written%20offline')).body.items as {
        title: string;
        fields: Record<string, unknown>;
      }[];
    await expect
      .poll(async () => (await found()).map((item) => item.title), { timeout: UI_WAIT_MS })
      .toEqual(['Written offline']);
    const created = await found();
    expect(created[0]?.fields[reading]).toBe('5.5');
    await saveScreenshot(page, 'tasks');

    // Connected, a change is sent within moments: the task is never marked meanwhile.
    await page.getByRole('link', { name: 'Boiler room' }).click();
    await page.getByLabel('Note').waitFor();
    await page.evaluate(() => {
      const seen = window as unknown as { notSentSeen: boolean };
      seen.notSentSeen = false;
      new MutationObserver(() => {
        if (document.querySelector('[data-testid="not-sent"]')) seen.notSentSeen = true;
      }).observe(document.body, { childList: true, subtree: true });
    });
    await page.getByLabel('Note').fill('Back at the depot');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(async () => (await serverCall(page, 'GET', `/api/tasks/${task.id}`)).body.fields, { timeout: UI_WAIT_MS })
      .toMatchObject({ [note]: 'Back at the depot' });
    await page.getByTestId('sending-banner').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => (window as unknown as { notSentSeen: boolean }).notSentSeen)).toBe(false);
    await context.close();
  });

  it('shows on the task which offline edit lost to a change made on the server meanwhile', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Night Shift',
      name: 'Olga',
      email: 'olga@example.org',
    });
    const { task, note, reading } = await arrange(page);
    await page.goto(`${suite.t.url}/tasks/${task.id}`);
    await page.getByRole('heading', { name: 'Boiler room' }).waitFor();
    // Opened online: the replica has pulled the server's state this edit is based on.
    await replicaIs(page, 'online ready');

    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    await page.getByLabel('Note').fill('Valve replaced');
    await page.getByLabel('Reading').fill('7');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved on this device').waitFor();
    // Meanwhile a colleague changes the note on the server.
    const theirs = await serverCall(page, 'PATCH', `/api/tasks/${task.id}`, { fields: { [note]: 'Valve ordered' } });
    expect(theirs.status).toBe(200);

    await context.setOffline(false);
    const lost = page.getByTestId('lost-edit');
    await waitOrExplain(page, lost);
    expect(await lost.textContent()).toContain('Note');
    expect(await lost.textContent()).toContain('your value “Valve replaced”');
    expect(await lost.textContent()).toContain('kept “Valve ordered”');
    // The field shows what the server kept; the edit nobody else touched went through.
    await page.waitForFunction(
      () => (document.querySelector('input[aria-label="Note"]') as HTMLInputElement | null)?.value === 'Valve ordered',
    );
    // The server answered the push: nothing is left waiting.
    await page.getByTestId('sending-banner').waitFor({ state: 'detached' });
    // Sent: the marks are gone.
    await page.getByTestId('not-sent').first().waitFor({ state: 'detached' });
    const after = await serverCall(page, 'GET', `/api/tasks/${task.id}`);
    expect(after.body.fields).toMatchObject({ [note]: 'Valve ordered', [reading]: '7' });
    await saveScreenshot(page, 'task-conflict');

    // The task says so itself: no notice repeats it there.
    const notice = page.getByTestId('lost-notice');
    expect(await notice.count()).toBe(0);
    // Elsewhere a notice says so and leads to the task; the list marks it.
    await page.getByRole('menuitem', { name: 'Tasks' }).click();
    await page.getByRole('row').filter({ hasText: 'Boiler room' }).getByTestId('not-kept').waitFor();
    await notice.getByRole('link', { name: 'Boiler room' }).click();
    await lost.waitFor();
    await notice.waitFor({ state: 'detached' });

    // The user takes their value back: made again over what the server kept, it is sent and kept.
    await lost.getByRole('button', { name: 'Use my value' }).click();
    await lost.waitFor({ state: 'detached' });
    await notice.waitFor({ state: 'detached' });
    await expect
      .poll(async () => (await serverCall(page, 'GET', `/api/tasks/${task.id}`)).body.fields, { timeout: UI_WAIT_MS })
      .toMatchObject({ [note]: 'Valve replaced', [reading]: '7' });
    await page.waitForFunction(
      () => (document.querySelector('input[aria-label="Note"]') as HTMLInputElement | null)?.value === 'Valve replaced',
    );
    await page.reload();
    await page.getByRole('heading', { name: 'Boiler room' }).waitFor();
    expect(await page.getByTestId('lost-edit').count()).toBe(0);
    await context.close();
  });

  it('edits a task’s title and description, offline too, and takes back a title that lost to the server’s', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Quay Works',
      name: 'Yana',
      email: 'yana@example.org',
    });
    const { task } = await arrange(page);
    const onServer = async () => {
      const { title, description } = (await serverCall(page, 'GET', `/api/tasks/${task.id}`)).body;
      return { title, description };
    };
    await page.goto(`${suite.t.url}/tasks/${task.id}`);
    await page.getByRole('heading', { name: 'Boiler room' }).waitFor();
    await replicaIs(page, 'online ready');
    const title = page.getByLabel('Task title', { exact: true });
    const description = page.getByLabel('Description', { exact: true });
    const save = page.getByRole('button', { name: 'Save', exact: true });

    // A task keeps a title, of at most 500 characters: the editor refuses others, as the server would.
    await title.fill('   ');
    await save.click();
    await page.getByText('Fill in this field').waitFor();
    await title.fill('x'.repeat(501));
    await save.click();
    await page.getByText('A title holds at most 500 characters').waitFor();
    // Counted once trimmed, as the server counts it.
    await title.fill(` ${'x'.repeat(500)} `);
    await page.getByText('A title holds at most 500 characters').waitFor({ state: 'detached' });
    // Saved as the server keeps it: trimmed.
    await title.fill('  Boiler room, east wing ');
    await description.fill('Check the valves\nand the gauges');
    await save.click();
    await page.getByRole('heading', { name: 'Boiler room, east wing' }).waitFor();
    await expect
      .poll(onServer, { timeout: UI_WAIT_MS })
      .toEqual({ title: 'Boiler room, east wing', description: 'Check the valves\nand the gauges' });

    // Offline she renames it; meanwhile, on the server, it is renamed too.
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    await title.fill('Boiler room, west wing');
    await save.click();
    await page.getByText('Saved on this device').waitFor();
    await page.getByRole('heading', { name: 'Boiler room, west wing' }).waitFor();
    const theirs = await serverCall(page, 'PATCH', `/api/tasks/${task.id}`, { title: 'Boiler room (closed)' });
    expect(theirs.status).toBe(200);

    // Back online the server's title stands, and hers is shown as lost.
    await context.setOffline(false);
    const lost = page.getByTestId('lost-edit');
    await waitOrExplain(page, lost);
    expect(await lost.textContent()).toContain(
      'Task title: your value “Boiler room, west wing”; kept “Boiler room (closed)”',
    );
    await page.getByRole('heading', { name: 'Boiler room (closed)' }).waitFor();
    expect(await title.inputValue()).toBe('Boiler room (closed)');

    // “Use my value” renames it again, on the server too; the description was never in question.
    await lost.getByRole('button', { name: 'Use my value' }).click();
    await lost.waitFor({ state: 'detached' });
    await expect
      .poll(onServer, { timeout: UI_WAIT_MS })
      .toEqual({ title: 'Boiler room, west wing', description: 'Check the valves\nand the gauges' });
    await page.getByRole('heading', { name: 'Boiler room, west wing' }).waitFor();
    await context.close();
  });

  it('assigns and takes people off a task, offline too, and says which assignment the server refused', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Dock Crew',
      name: 'Zoe',
      email: 'zoe@example.org',
    });
    const { task } = await arrange(page);
    const ivan = await joinedPerson(suite.t, page, 'Ivan', 'ivan.dock@example.org');
    const olga = await joinedPerson(suite.t, page, 'Olga', 'olga.dock@example.org');
    const onServer = () => assignedOnServer(page, task.id);
    await page.goto(`${suite.t.url}/tasks/${task.id}`);
    await page.getByRole('heading', { name: 'Boiler room' }).waitFor();
    await replicaIs(page, 'online ready');
    const assignees = page.getByTestId('assignee');
    const assign = async (name: string) => {
      await choose(page, 'Assign someone', name);
      await assignees.filter({ hasText: name }).waitFor();
    };

    // Online: Ivan is assigned.
    await assign('Ivan');
    await expect.poll(onServer, { timeout: UI_WAIT_MS }).toEqual([ivan]);

    // Offline: Ivan is taken off and Olga assigned; they reach the server once it is back.
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    await page.getByRole('button', { name: 'Take Ivan off the task' }).click();
    await assignees.filter({ hasText: 'Ivan' }).waitFor({ state: 'detached' });
    await assign('Olga');
    expect(await onServer()).toEqual([ivan]);
    await context.setOffline(false);
    await expect.poll(onServer, { timeout: UI_WAIT_MS }).toEqual([olga]);

    // Offline again Ivan is assigned, while an administrator deactivates him: the server refuses
    // the assignment and the task page says so.
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    await assign('Ivan');
    expect((await serverCall(page, 'PATCH', `/api/users/${ivan}`, { status: 'deactivated' })).status).toBe(200);
    await context.setOffline(false);
    const lost = page.getByTestId('lost-edit');
    await waitOrExplain(page, lost);
    expect(await lost.textContent()).toContain('Assignee Ivan: your value “assigned”; kept “not assigned”');
    await assignees.filter({ hasText: 'Ivan' }).waitFor({ state: 'detached' });
    expect(await onServer()).toEqual([olga]);
    // Deactivated, Ivan is no longer offered; Olga is assigned already.
    const offered = page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option');
    await page.locator('.ant-select', { has: page.getByLabel('Assign someone', { exact: true }) }).click();
    await expect.poll(() => offered.allTextContents(), { timeout: UI_WAIT_MS }).toEqual(['Zoe']);
    await page.keyboard.press('Escape');

    // A task made offline keeps the people chosen in the new-task dialog.
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    await page.getByRole('menuitem', { name: 'Tasks' }).click();
    await page.getByRole('button', { name: 'New task' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Task title').fill('Pump check');
    await choose(page, 'Assignees', 'Olga');
    expect(await offered.allTextContents()).toEqual(['Olga', 'Zoe']);
    // Closes the option list, which covers the dialog's buttons.
    await dialog.getByText('New task').click();
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('link', { name: 'Pump check' }).waitFor();
    await context.setOffline(false);
    const olgasTasks = async () =>
      ((await serverCall(page, 'GET', `/api/tasks?assigneeId=${olga}`)).body.items as { title: string }[])
        .map((item) => item.title)
        .sort();
    await expect.poll(olgasTasks, { timeout: UI_WAIT_MS }).toEqual(['Boiler room', 'Pump check']);
    await context.close();
  });

  it('takes a person a user field assigned off the task together with the field; one assigned through a role stays, with the reason', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Pier Works',
      name: 'Yana',
      email: 'yana.pier@example.org',
    });
    const ivan = await joinedPerson(suite.t, page, 'Ivan', 'ivan.pier@example.org');
    const olga = await joinedPerson(suite.t, page, 'Olga', 'olga.pier@example.org');
    const me = ((await apiInPage(page, 'GET', '/api/auth/me')) as { user: { id: string } }).user.id;
    const divers = (await apiInPage(page, 'POST', '/api/roles', { name: 'Divers', memberIds: [olga] })) as {
      id: string;
    };
    const form = (await apiInPage(page, 'POST', '/api/forms', {
      name: 'Dives',
      fields: [
        { name: 'Inspector', type: 'user' },
        { name: 'Crew', type: 'user', allow_multiple: true },
      ],
    })) as { id: string; fields: { id: string; name: string }[] };
    const [inspector, crew] = form.fields.map((field) => field.id) as [string, string];
    const task = (await apiInPage(page, 'POST', '/api/tasks', {
      formId: form.id,
      title: 'Hull survey',
      fields: { [inspector]: `user:${ivan}`, [crew]: [`role:${divers.id}`] },
    })) as { id: string };
    const onServer = async () => ({
      assignees: await assignedOnServer(page, task.id),
      inspector:
        ((await serverCall(page, 'GET', `/api/tasks/${task.id}`)).body.fields as Record<string, unknown>)[inspector] ??
        null,
    });
    expect(await onServer()).toEqual({ assignees: [ivan, olga].sort(), inspector: `user:${ivan}` });

    await page.goto(`${suite.t.url}/tasks/${task.id}`);
    await page.getByRole('heading', { name: 'Hull survey' }).waitFor();
    await replicaIs(page, 'online ready');
    const assignees = page.getByTestId('assignee');
    await assignees.filter({ hasText: 'Olga' }).waitFor();
    // Each says which field keeps them on the task.
    expect(await assignees.filter({ hasText: 'Ivan' }).getByTestId('assignee-naming').textContent()).toBe(
      'Assigned by the field “Inspector”',
    );
    expect(await assignees.filter({ hasText: 'Olga' }).getByTestId('assignee-naming').textContent()).toBe(
      'Assigned as a member of “Divers” in the field “Crew”',
    );
    // Olga stays while the role is named: her button is off and says why.
    const olgaOff = page.getByRole('button', {
      name: 'Olga is assigned as a member of “Divers” in the field “Crew”; change that field to take them off',
    });
    expect(await olgaOff.isDisabled()).toBe(true);

    // Offline, Ivan is taken off: out of the Inspector field too, so that no later change of the
    // task's people fields assigns him again.
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    await page.getByRole('button', { name: 'Take Ivan off the task and out of “Inspector”' }).click();
    await assignees.filter({ hasText: 'Ivan' }).waitFor({ state: 'detached' });
    await context.setOffline(false);
    await expect.poll(onServer, { timeout: UI_WAIT_MS }).toEqual({ assignees: [olga], inspector: null });
    // A colleague adds Yana to the crew on the server: the people fields are read again, Ivan stays off.
    const crewChanged = await serverCall(page, 'PATCH', `/api/tasks/${task.id}`, {
      fields: { [crew]: [`role:${divers.id}`, `user:${me}`] },
    });
    expect(crewChanged.status).toBe(200);
    expect((await onServer()).assignees).toEqual([me, olga].sort());
    await assignees.filter({ hasText: 'Yana' }).waitFor();
    expect((await assignees.allTextContents()).join(' | ')).not.toContain('Ivan');
    await context.close();
  });

  it('makes the set of assignees the user had again with “Use my value” when the whole set was reported lost', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Quay Team',
      name: 'Xenia',
      email: 'xenia.quay@example.org',
    });
    const { task } = await arrange(page);
    const ivan = await joinedPerson(suite.t, page, 'Ivan', 'ivan.quay@example.org');
    const olga = await joinedPerson(suite.t, page, 'Olga', 'olga.quay@example.org');
    expect((await serverCall(page, 'POST', `/api/tasks/${task.id}/assignees`, { userId: olga })).status).toBe(200);
    // What the server answers a push of the task made without a base (the replica held no server
    // state for it) whose set differs from the server's: the whole set, reported as lost.
    const me = ((await apiInPage(page, 'GET', '/api/auth/me')) as { user: { id: string } }).user.id;
    const lost = [
      { id: task.id, path: 'assignees', attempted: [ivan, olga], kept: [olga], reason: 'changed_on_server' },
    ];
    await page.evaluate(
      ([key, value]) => localStorage.setItem(key as string, value as string),
      [`orbita.replica.${me}.lost`, JSON.stringify(lost)],
    );
    await page.goto(`${suite.t.url}/tasks/${task.id}`);
    await page.getByRole('heading', { name: 'Boiler room' }).waitFor();
    await replicaIs(page, 'online ready');
    const shown = page.getByTestId('lost-edit');
    await waitOrExplain(page, shown);
    expect(await shown.textContent()).toContain('Assignees: your value “Ivan, Olga”; kept “Olga”');

    await shown.getByRole('button', { name: 'Use my value' }).click();
    await shown.waitFor({ state: 'detached' });
    const onServer = () => assignedOnServer(page, task.id);
    await expect.poll(onServer, { timeout: UI_WAIT_MS }).toEqual([ivan, olga].sort());
    await page.getByTestId('assignee').filter({ hasText: 'Ivan' }).waitFor();
    await context.close();
  });

  it('shows what was changed offline in a task deleted on the server meanwhile, to keep elsewhere', async () => {
    const { context, page, form, task } = await onTaskPage({
      organization: 'Boiler House',
      name: 'Wanda',
      email: 'wanda.boiler@example.org',
    });

    // Offline she renames the task and notes a reading; meanwhile it is deleted on the server.
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    await page.getByLabel('Task title', { exact: true }).fill('Boiler room, east wing');
    await page.getByLabel('Note', { exact: true }).fill('Valve 3 leaks');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved on this device').waitFor();
    expect((await serverCall(page, 'DELETE', `/api/tasks/${task.id}`)).status).toBe(204);

    // Back online the task is gone from the device, and the notice says what she changed in it.
    await context.setOffline(false);
    const notice = page.getByTestId('lost-notice');
    await waitOrExplain(page, notice);
    await page.getByText('The task does not exist or you have no access to it').waitFor();
    await notice.getByRole('button', { name: '“Boiler room, east wing” (deleted on the server)' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your changes to “Boiler room, east wing”' });
    await dialog.waitFor();
    expect(await dialog.getByTestId('gone-edit').allTextContents()).toEqual([
      'Task title: Boiler room, east wing',
      'Note: Valve 3 leaks',
    ]);
    await saveScreenshot(page, 'gone-task-edits');
    // Read, it is forgotten.
    await dialog.getByRole('button', { name: 'Got it' }).click();
    await notice.waitFor({ state: 'detached' });

    // A task she makes offline while its form is deleted on the server: refused, and said so.
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    await page.getByRole('menuitem', { name: 'Tasks' }).click();
    await page.getByRole('button', { name: 'New task' }).click();
    const create = page.getByRole('dialog');
    await create.getByLabel('Task title').fill('Pump check');
    await create.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('link', { name: 'Pump check' }).waitFor();
    expect((await serverCall(page, 'DELETE', `/api/forms/${form.id}`)).status).toBe(204);
    await context.setOffline(false);
    await waitOrExplain(page, notice);
    await notice.getByRole('button', { name: '“Pump check” (not kept)' }).click();
    const refused = page.getByRole('dialog', { name: 'Your changes to “Pump check”' });
    expect(await refused.textContent()).toContain('The server did not take it: The form is deleted');
    expect(await refused.getByTestId('gone-edit').allTextContents()).toEqual(['Task title: Pump check', 'Status: New']);
    await page.getByRole('link', { name: 'Pump check' }).waitFor({ state: 'detached' });
    await context.close();
  });

  it('takes back a status move made offline that lost to a move made on the server meanwhile', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Ice Depot',
      name: 'Vasilisa',
      email: 'vasilisa@example.org',
    });
    const { form, task } = await arrange(page);
    const status = (name: string) => form.statuses.find((s) => s.name === name)?.id as string;
    await page.goto(`${suite.t.url}/tasks/${task.id}`);
    await page.getByTestId('task-status').filter({ hasText: 'New' }).waitFor();
    await replicaIs(page, 'online ready');

    // Offline she closes the task; meanwhile a colleague takes it into work on the server.
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    await page.locator('.ant-select', { has: page.getByLabel('Move to status', { exact: true }) }).click();
    await page
      .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)')
      .getByTitle('Done', { exact: true })
      .click();
    await page.getByTestId('task-status').filter({ hasText: 'Done' }).waitFor();
    const theirs = await serverCall(page, 'POST', `/api/tasks/${task.id}/transition`, {
      statusId: status('In progress'),
    });
    expect(theirs.status).toBe(200);

    // Back online, the server's move stands and hers is shown as not kept, with the way back.
    await context.setOffline(false);
    const lost = page.getByTestId('lost-edit');
    await waitOrExplain(page, lost);
    expect(await lost.textContent()).toContain('Status: your value “Done”; kept “In progress”');
    await page.getByTestId('task-status').filter({ hasText: 'In progress' }).waitFor();

    // “Use my value” moves the task on from where the server has it: In progress → Done is allowed.
    await lost.getByRole('button', { name: 'Use my value' }).click();
    await lost.waitFor({ state: 'detached' });
    await page.getByTestId('task-status').filter({ hasText: 'Done' }).waitFor();
    await expect
      .poll(async () => (await serverCall(page, 'GET', `/api/tasks/${task.id}`)).body.statusId, { timeout: UI_WAIT_MS })
      .toBe(status('Done'));
    await page.getByTestId('sending-banner').waitFor({ state: 'detached' });
    expect(await page.getByTestId('lost-edit').count()).toBe(0);
    await context.close();
  });

  it('deletes a task, offline too; a deletion that lost to a change made meanwhile comes back, and “Use my value” deletes it', async () => {
    const { context, page, task } = await onTaskPage({
      organization: 'Pump Station',
      name: 'Yaroslava',
      email: 'yaroslava@example.org',
    });

    // Offline she deletes the task; she is taken back to the list, which no longer shows it.
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    await page.getByRole('button', { name: 'Delete task' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText('Task deleted on this device').waitFor();
    await page.waitForURL(/\/tasks\?formId=/);
    await page.getByRole('link', { name: 'Boiler room' }).waitFor({ state: 'detached' });
    // Meanwhile a colleague renames it on the server.
    const theirs = await serverCall(page, 'PATCH', `/api/tasks/${task.id}`, { title: 'Boiler room, east wing' });
    expect(theirs.status).toBe(200);

    // Back online, the task changed since she saw it is not deleted: it is back, and she is told.
    await context.setOffline(false);
    const notice = page.getByTestId('lost-notice');
    await waitOrExplain(page, notice);
    await page.getByRole('row').filter({ hasText: 'Boiler room, east wing' }).getByTestId('not-kept').waitFor();
    await notice.getByRole('link', { name: 'Boiler room, east wing' }).click();
    const lost = page.getByTestId('lost-edit');
    await lost.waitFor();
    expect(await lost.textContent()).toContain('Deletion: your value “deleted”; kept “not deleted”');
    expect((await serverCall(page, 'GET', `/api/tasks/${task.id}`)).status).toBe(200);

    // Having read the new title, she deletes it after all: on the server too.
    await lost.getByRole('button', { name: 'Use my value' }).click();
    await page.waitForURL(/\/tasks\?formId=/);
    await page.getByRole('link', { name: 'Boiler room, east wing' }).waitFor({ state: 'detached' });
    await expect
      .poll(async () => (await serverCall(page, 'GET', `/api/tasks/${task.id}`)).status, { timeout: UI_WAIT_MS })
      .toBe(404);
    await page.getByTestId('sending-banner').waitFor({ state: 'detached' });
    expect(await notice.count()).toBe(0);
    await context.close();
  });

  it('takes a deletion back from the notice that says it was made: the task returns, on the server too, online or not', async () => {
    const { context, page, task } = await onTaskPage({
      organization: 'Lock Keepers',
      name: 'Zinaida',
      email: 'zinaida@example.org',
    });
    const deleteIt = async () => {
      await page.getByRole('button', { name: 'Delete task' }).click();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.waitForURL(/\/tasks\?formId=/);
      await page.getByRole('link', { name: 'Boiler room' }).waitFor({ state: 'detached' });
    };
    const serverStatus = async () => (await serverCall(page, 'GET', `/api/tasks/${task.id}`)).status;
    const undo = async () => {
      await page.getByTestId('task-deleted').getByRole('button', { name: 'Undo' }).click();
      await waitOrExplain(page, page.getByText('Task “Boiler room” is back').first());
      await page.getByRole('link', { name: 'Boiler room' }).waitFor();
    };

    // Online the deletion reaches the server at once; taken back, the server brings the task back.
    await deleteIt();
    await expect.poll(serverStatus, { timeout: UI_WAIT_MS }).toBe(404);
    await undo();
    await expect.poll(serverStatus, { timeout: UI_WAIT_MS }).toBe(200);
    const actions = async () =>
      ((await serverCall(page, 'GET', `/api/tasks/${task.id}/audit`)).body as { items: { action: string }[] }).items
        .map((item) => item.action)
        .filter((action) => action === 'deleted' || action === 'restored');
    expect(await actions()).toEqual(['restored', 'deleted']);

    // Offline, deleted and taken back before the connection returns: the server never loses it.
    await page.getByRole('link', { name: 'Boiler room' }).click();
    await page.getByRole('heading', { name: 'Boiler room' }).waitFor();
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    await deleteIt();
    await page.getByText('Task deleted on this device').waitFor();
    await undo();
    await context.setOffline(false);
    await replicaIs(page, 'online ready');
    await page.getByTestId('sending-banner').waitFor({ state: 'detached' });
    expect(await serverStatus()).toBe(200);
    expect(await actions()).toEqual(['restored', 'deleted']);
    await page.getByRole('link', { name: 'Boiler room' }).click();
    await page.getByRole('heading', { name: 'Boiler room' }).waitFor();
    expect(await page.getByTestId('lost-notice').count()).toBe(0);
    await context.close();
  });

  it('says why changes are not sent while the server refuses them, and sends them once it takes them', async () => {
    const { context, page, task, note } = await onTaskPage({
      organization: 'Cold Store',
      name: 'Inna',
      email: 'inna.cold@example.org',
    });
    // The database refuses this one value: the server answers the push with a problem.
    const refuse = `ALTER TABLE tasks ADD CONSTRAINT refuses_note CHECK (fields->>'${note}' IS DISTINCT FROM 'Refused')`;
    await suite.t.database.db.query(refuse);
    try {
      await page.getByLabel('Note').fill('Refused');
      await page.getByRole('button', { name: 'Save' }).click();
      const failed = page.getByTestId('send-failed');
      await failed.waitFor({ timeout: UI_WAIT_MS });
      expect(await failed.textContent()).toContain('Changes waiting to be sent: 1. The server did not take them');
      // Connected, the change that keeps waiting is marked on the task as well.
      await page.getByRole('heading', { name: 'Boiler room' }).getByTestId('not-sent').waitFor();
      await saveScreenshot(page, 'send-failed');
      await suite.t.database.db.query('ALTER TABLE tasks DROP CONSTRAINT refuses_note');
      await failed.waitFor({ state: 'detached', timeout: UI_WAIT_MS });
      await expect
        .poll(async () => (await serverCall(page, 'GET', `/api/tasks/${task.id}`)).body.fields, { timeout: UI_WAIT_MS })
        .toMatchObject({ [note]: 'Refused' });
    } finally {
      await suite.t.database.db.query('ALTER TABLE tasks DROP CONSTRAINT IF EXISTS refuses_note');
    }
    await context.close();
  });

  it('says why the server’s changes cannot be received, until they come', async () => {
    const { context, page } = await taskList({ organization: 'Salt Mine', name: 'Ilya', email: 'ilya@example.org' });
    await replicaIs(page, 'online ready');
    // The server cannot read its tasks; the replica asks for what it missed when it reconnects.
    await suite.t.database.db.query('ALTER TABLE tasks RENAME COLUMN description TO description_hidden');
    let renamed = true;
    try {
      await context.setOffline(true);
      await page.getByTestId('offline-banner').waitFor();
      await context.setOffline(false);
      const failed = page.getByTestId('receive-failed');
      await failed.waitFor({ timeout: UI_WAIT_MS });
      expect(await failed.textContent()).toContain('Changes from the server cannot be received now');
      await suite.t.database.db.query('ALTER TABLE tasks RENAME COLUMN description_hidden TO description');
      renamed = false;
      await failed.waitFor({ state: 'detached', timeout: UI_WAIT_MS });
    } finally {
      if (renamed) await suite.t.database.db.query('ALTER TABLE tasks RENAME COLUMN description_hidden TO description');
    }
    await context.close();
  });

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
      expect(await card.textContent()).toMatch(/Kept by the browsernot promised.*Space used in the browser[\d.,]+ MB/);
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
    expect(signOuts.stopped()).toBe(1);
    await expect.poll(heldHere, { timeout: UI_WAIT_MS }).toEqual([]);
    // The server could not hear the sign-out: the device keeps no token, only what can end the session.
    const stored = await page.evaluate(() => Object.entries(localStorage));
    expect(JSON.stringify(stored)).not.toContain(refreshToken);
    expect(stored.find(([key]) => key === 'orbita.revocations')?.[1]).toMatch(/^\["[0-9a-f]{64}"\]$/);
    // The session's access token (checked against its session at every request) shows when it ends.
    expect(await sessionAnswers(accessToken)).toBe('200');
    // Back online, the session ends on the server too.
    await signOuts.release();
    await context.setOffline(false);
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
    await page.getByRole('button', { name: 'Sign out' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign out of Orbita?' });
    await dialog.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${suite.t.url}/sign-in`);
    expect(signOuts.stopped()).toBe(1);
    // Closed before the network came back: the page never heard it return.
    await page.close();
    await context.setOffline(false);
    expect(await sessionAnswers(accessToken)).toBe('200');

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
      await serverCall(page, 'POST', '/api/forms', { name: 'Withheld form', fields: [{ name: 'Gauge', type: 'text' }] })
    ).body as { id: string };
    await serverCall(page, 'POST', '/api/tasks', { formId: form.id, title: 'Task of a withheld form' });
    await page.getByRole('link', { name: 'Task of a withheld form' }).click();
    await page.getByTestId('task-form-missing').waitFor();
    expect(await page.getByTestId('task-form-missing').textContent()).toContain('is not available to you');
    await context.close();
  });

  it('shows directories, their row tree and column groups from the replica with the network cut', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Field Survey',
      name: 'Inna',
      email: 'inna@example.org',
    });
    const sites = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Sites',
      columns: [{ name: 'Name' }, { name: 'Region' }],
    })) as { id: string };
    const north = (await apiInPage(page, 'POST', `/api/directories/${sites.id}/rows`, {
      cells: ['North yard', 'Arctic'],
    })) as { id: string };
    await apiInPage(page, 'POST', `/api/directories/${sites.id}/rows`, {
      cells: ['Pier 4', 'Arctic'],
      parentId: north.id,
    });
    await apiInPage(page, 'POST', `/api/directories/${sites.id}/rows`, { cells: ['South gate', 'Steppe'] });
    // Open the app online until its first sync is done (the task list then says no form takes
    // tasks yet), then lose the network.
    await page.goto(`${suite.t.url}/tasks`);
    await page.getByTestId('no-open-forms').waitFor();
    await replicaIs(page, 'online ready');
    await page.getByRole('menuitem', { name: 'Directories' }).click();
    await page.getByRole('link', { name: 'Sites', exact: true }).waitFor();
    await context.setOffline(true);
    await waitOrExplain(page, page.getByTestId('offline-banner'));

    await page.getByRole('link', { name: 'Sites', exact: true }).click();
    await waitOrExplain(page, page.getByTestId('directory-name').filter({ hasText: 'Sites' }));
    const row = (label: string) => rowNode(page, label);
    await waitOrExplain(page, row('Pier 4'));
    expect(await row('Pier 4').getAttribute('data-depth')).toBe('2');
    expect(await row('South gate').getAttribute('data-depth')).toBe('1');
    // Grouping by a column's values works on the replica's rows too.
    await page.getByLabel('Tree mode').click();
    await page.getByTitle('Grouped by “Region”').click();
    const group = (label: string) => page.locator(`[data-testid="group-node"][data-label="${label}"]`);
    await group('Arctic').waitFor();
    expect(await group('Steppe').count()).toBe(1);
    await saveScreenshot(page, 'directories-offline');
    await context.close();
  });

  it('keeps offline changes of rows it showed from the server before the replica had them', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'River Port',
      name: 'Oleg',
      email: 'oleg.port@example.org',
    });
    // The replica's connection goes through the test, which withholds each round's row from it
    // (and a bystander row): the server shows them, the replica never receives them.
    let withheld = '';
    const network = await syncThroughTest(page, {
      withheld: (document) =>
        Array.isArray(document.cells) && [withheld, 'Bystander'].includes(String(document.cells[0])),
    });
    await page.goto(`${suite.t.url}/tasks`);
    await replicaIs(page, 'online ready');
    const quays = (
      await serverCall(page, 'POST', '/api/directories', {
        name: 'Quays',
        columns: [{ name: 'Name' }, { name: 'Depth' }],
      })
    ).body as { id: string };
    const make = async (cells: string[]) =>
      (await serverCall(page, 'POST', `/api/directories/${quays.id}/rows`, { cells })).body as { id: string };
    const anchor = await make(['Anchor quay', '9']);
    await make(['Bystander', '2']);
    const row = (label: string) => rowNode(page, label);
    const serverRows = async () =>
      new Map(
        (
          (await serverCall(page, 'GET', `/api/directories/${quays.id}/rows?limit=100`)).body.items as {
            parentId: string | null;
            cells: string[];
          }[]
        ).map((r) => [r.cells[0], r]),
      );
    /** A row written on the server, shown, then changed by `change` with the network cut. */
    const offlineRound = async (label: string, change: () => Promise<void>) => {
      withheld = label;
      await make([label, '4']);
      await page.goto(`${suite.t.url}/directories/${quays.id}`);
      await row(label).waitFor();
      await network.goOffline();
      await change();
      await waitOrExplain(page, page.getByTestId('offline-banner').filter({ hasText: 'waiting to be sent: 1' }));
      await network.goOnline();
      await page.getByTestId('offline-banner').waitFor({ state: 'detached' });
      // The server has taken this round's change before the next round begins (the "sending"
      // banner may not have shown yet when looked for, and the next round would count two).
      await page.waitForFunction(() =>
        Object.entries(localStorage).every(([key, value]) => !key.endsWith('.pending') || value === '[]'),
      );
    };

    await offlineRound('Late move', async () => {
      await row('Late move').click();
      await page.getByLabel('Move under').click();
      await page.getByTitle('Anchor quay', { exact: true }).last().click();
      await page.getByText('Saved on this device').first().waitFor();
    });
    await expect
      .poll(async () => (await serverRows()).get('Late move')?.parentId, { timeout: UI_WAIT_MS })
      .toBe(anchor.id);

    await offlineRound('Late delete', async () => {
      await row('Late delete').click();
      await page.getByRole('button', { name: 'Delete row' }).click();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await row('Late delete').waitFor({ state: 'detached' });
    });
    await expect.poll(async () => (await serverRows()).has('Late delete'), { timeout: UI_WAIT_MS }).toBe(false);

    await offlineRound('Late edit', async () => {
      await row('Late edit').click();
      await page.getByLabel('Depth', { exact: true }).fill('4.5');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText('Saved on this device').first().waitFor();
      // The view now reads the replica: the rows the server showed that it has not received stay,
      // also when the directory is opened again offline.
      await page.getByRole('menuitem', { name: 'Tasks' }).click();
      await page.waitForURL(/\/tasks$/);
      await page.goBack();
      await row('Late edit').waitFor();
      expect(await row('Bystander').count()).toBe(1);
    });
    await expect
      .poll(async () => (await serverRows()).get('Late edit')?.cells, { timeout: UI_WAIT_MS })
      .toEqual(['Late edit', '4.5']);
    expect([...(await serverRows()).keys()].sort()).toEqual(['Anchor quay', 'Bystander', 'Late edit', 'Late move']);
    await context.close();
  });

  it('saves only the cells changed in the row editor: a colleague’s change of another cell made while it was open stays, online and offline', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Lake Piers',
      name: 'Yana',
      email: 'yana.lake@example.org',
    });
    const piers = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Piers',
      columns: [{ name: 'Name' }, { name: 'Region' }, { name: 'Depth', type: 'number' }],
    })) as { id: string };
    const pier = await addRow(page, piers.id, ['Pier 1', 'North', '5']);
    const path = `/api/directories/${piers.id}/rows/${pier.id}`;
    const serverCells = async () =>
      ((await serverCall(page, 'GET', path.replace(/\/rows\/.*/, '/rows'))).body.items as { cells: unknown[] }[])[0]
        ?.cells;
    await page.goto(`${suite.t.url}/directories/${piers.id}`);
    await rowNode(page, 'Pier 1').click();
    await page.getByTestId('row-editor').waitFor();

    // Online: a colleague sets the region while the editor is open; she saves the depth she changed.
    expect((await serverCall(page, 'PATCH', path, { cells: ['Pier 1', 'Arctic', '5'] })).status).toBe(200);
    await page.getByLabel('Depth', { exact: true }).fill('7');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(serverCells, { timeout: UI_WAIT_MS }).toEqual(['Pier 1', 'Arctic', '7']);
    await page.getByLabel('Region', { exact: true }).and(page.locator('[value="Arctic"]')).waitFor();

    // Offline: the colleague renames the pier and her replica receives it while the editor still
    // shows the old name; with the network cut she saves a new depth on this device.
    await replicaIs(page, 'online ready');
    expect((await serverCall(page, 'PATCH', path, { cells: ['Pier one', 'Arctic', '7'] })).status).toBe(200);
    await expect.poll(() => replicaCells(page, pier.id), { timeout: UI_WAIT_MS }).toEqual(['Pier one', 'Arctic', '7']);
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Pier 1');
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    await page.getByLabel('Depth', { exact: true }).fill('8');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved on this device').first().waitFor();
    expect(await replicaCells(page, pier.id)).toEqual(['Pier one', 'Arctic', '8']);
    await context.setOffline(false);
    await page.getByTestId('offline-banner').waitFor({ state: 'detached' });
    await page.getByTestId('sending-banner').waitFor({ state: 'detached' });
    await expect.poll(serverCells, { timeout: UI_WAIT_MS }).toEqual(['Pier one', 'Arctic', '8']);
    // Nothing was lost on either side: no edit of hers is reported as not kept.
    expect(await page.getByTestId('lost-edit').count()).toBe(0);
    await context.close();
  });

  it('takes back a row move and a deletion made offline that lost to changes made on the server meanwhile', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Dry Dock Co',
      name: 'Inessa',
      email: 'inessa@example.org',
    });
    const depots = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Depots',
      columns: [{ name: 'Name' }],
    })) as { id: string };
    const yard = await addRow(page, depots.id, ['Yard']);
    const dock = await addRow(page, depots.id, ['Dock']);
    const crane = await addRow(page, depots.id, ['Crane']);
    const shed = await addRow(page, depots.id, ['Shed']);
    await page.goto(`${suite.t.url}/directories/${depots.id}`);
    const row = (label: string) => rowNode(page, label);
    await row('Crane').waitFor();
    await replicaIs(page, 'online ready');

    // Offline she moves the crane to the yard and deletes the shed; meanwhile, on the server, the
    // crane is moved to the dock and the shed renamed.
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    await row('Crane').click();
    await page.getByLabel('Move under').click();
    await page.getByTitle('Yard', { exact: true }).last().click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="row-node"][data-label="Crane"]')?.getAttribute('data-depth') === '2',
    );
    await row('Shed').click();
    await page.getByRole('button', { name: 'Delete row' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await row('Shed').waitFor({ state: 'detached' });
    const theirs = await serverCall(page, 'PATCH', `/api/directories/${depots.id}/rows/${crane.id}/move`, {
      parentId: dock.id,
      position: 0,
    });
    expect(theirs.status).toBe(200);
    const renamed = await serverCall(page, 'PATCH', `/api/directories/${depots.id}/rows/${shed.id}`, {
      cells: ['Old shed'],
    });
    expect(renamed.status).toBe(200);

    // Back online, the server's move stands; hers is shown by the rows' names, not kept.
    await context.setOffline(false);
    await expect.poll(async () => row('Crane').getAttribute('data-parent-id'), { timeout: UI_WAIT_MS }).toBe(dock.id);
    await row('Crane').click();
    const lost = page.getByTestId('lost-edit');
    await waitOrExplain(page, lost);
    expect(await lost.textContent()).toContain('Move under: your value “Yard”; kept “Dock”');

    // “Use my value” moves it to the yard again, on the server too.
    await lost.getByRole('button', { name: 'Use my value' }).click();
    await lost.waitFor({ state: 'detached' });
    const serverRows = async () =>
      (await serverCall(page, 'GET', `/api/directories/${depots.id}/rows?limit=100`)).body.items as {
        id: string;
        parentId: string | null;
      }[];
    await expect
      .poll(async () => (await serverRows()).find((r) => r.id === crane.id)?.parentId, { timeout: UI_WAIT_MS })
      .toBe(yard.id);
    await expect.poll(async () => row('Crane').getAttribute('data-parent-id'), { timeout: UI_WAIT_MS }).toBe(yard.id);

    // The shed, changed on the server, was not deleted; deleting it again is her choice to make.
    await row('Old shed').click();
    await lost.waitFor();
    expect(await lost.textContent()).toContain('Delete row: your value “deleted”; kept “not deleted”');
    await lost.getByRole('button', { name: 'Use my value' }).click();
    await row('Old shed').waitFor({ state: 'detached' });
    await expect
      .poll(async () => (await serverRows()).map((r) => r.id).sort(), { timeout: UI_WAIT_MS })
      .toEqual([yard.id, dock.id, crane.id].sort());
    await context.close();
  });

  it('takes back a binding to parent rows made offline that lost to a binding made on the server meanwhile', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Steppe Routes',
      name: 'Oksana',
      email: 'oksana@example.org',
    });
    const regions = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Regions',
      columns: [{ name: 'Name' }],
    })) as { id: string };
    const north = await addRow(page, regions.id, ['North']);
    const south = await addRow(page, regions.id, ['South']);
    const east = await addRow(page, regions.id, ['East']);
    const towns = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Towns',
      columns: [{ name: 'Name' }],
      parentDirectoryId: regions.id,
    })) as { id: string };
    const tula = await addRow(page, towns.id, ['Tula'], { parentRowIds: [north.id] });
    await page.goto(`${suite.t.url}/directories/${towns.id}`);
    await rowNode(page, 'Tula').waitFor();
    await replicaIs(page, 'online ready');

    // Offline she offers Tula under the south instead of the north; meanwhile, on the server, it is
    // offered under the east.
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    await rowNode(page, 'Tula').click();
    await toggleParentRows(page, ['North', 'South']);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved on this device').first().waitFor();
    const theirs = await serverCall(page, 'PATCH', `/api/directories/${towns.id}/rows/${tula.id}`, {
      parentRowIds: [east.id],
    });
    expect(theirs.status).toBe(200);
    const bindingOnServer = async () =>
      (
        (await serverCall(page, 'GET', `/api/directories/${towns.id}/rows?limit=100`)).body.items as {
          id: string;
          parentRowIds: string[];
        }[]
      ).find((r) => r.id === tula.id)?.parentRowIds;

    // Back online, the server's binding stands; hers is shown by the parent rows' names.
    await context.setOffline(false);
    const lost = page.getByTestId('lost-edit');
    await waitOrExplain(page, lost);
    expect(await lost.textContent()).toContain('Offered under parent rows: your value “South”; kept “East”');
    expect(await bindingOnServer()).toEqual([east.id]);

    // “Use my value” binds it to the south again, on the server too.
    await lost.getByRole('button', { name: 'Use my value' }).click();
    await lost.waitFor({ state: 'detached' });
    await expect.poll(bindingOnServer, { timeout: UI_WAIT_MS }).toEqual([south.id]);
    await context.close();
  });

  it('shows what was changed offline in a directory row deleted on the server meanwhile: cells by column, a move and bindings by row names', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Quay Yard',
      name: 'Zlata',
      email: 'zlata.quay@example.org',
    });
    // The seas are named by their second column: bindings are shown by it, as the row editor shows them.
    const seas = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Seas',
      columns: [{ name: 'Code' }, { name: 'Name' }],
      tree_display_column_index: 1,
    })) as { id: string };
    const white = await addRow(page, seas.id, ['WS', 'White Sea']);
    await addRow(page, seas.id, ['BS', 'Barents Sea']);
    const berths = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Quays',
      columns: [{ name: 'Name' }, { name: 'Region' }],
      parentDirectoryId: seas.id,
    })) as { id: string };
    const quay = await addRow(page, berths.id, ['Quay 1', 'Arctic'], { parentRowIds: [white.id] });
    await addRow(page, berths.id, ['Quay 2', 'Arctic'], { parentRowIds: [white.id] });
    await page.goto(`${suite.t.url}/directories/${berths.id}`);
    await rowNode(page, 'Quay 1').waitFor();
    await replicaIs(page, 'online ready');

    // Offline she changes its region, offers it under the Barents Sea instead and moves it under
    // Quay 2; meanwhile it is deleted on the server.
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    await rowNode(page, 'Quay 1').click();
    await page.getByLabel('Region', { exact: true }).fill('Barents');
    await toggleParentRows(page, ['White Sea', 'Barents Sea']);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved on this device').first().waitFor();
    await rowNode(page, 'Quay 1').click();
    await page.getByLabel('Move under').click();
    await page.getByTitle('Quay 2', { exact: true }).last().click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="row-node"][data-label="Quay 1"]')?.getAttribute('data-depth') === '2',
    );
    const deleted = await serverCall(page, 'DELETE', `/api/directories/${berths.id}/rows/${quay.id}`);
    expect(deleted.status).toBe(204);

    await context.setOffline(false);
    const notice = page.getByTestId('lost-notice');
    await waitOrExplain(page, notice);
    await notice.getByRole('button', { name: '“Quay 1” (deleted on the server)' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your changes to “Quay 1”' });
    const listed = dialog.getByTestId('gone-edit');
    await expect
      .poll(async () => (await listed.allTextContents()).sort(), { timeout: UI_WAIT_MS })
      .toEqual(['Move under: Quay 2', 'Offered under parent rows: Barents Sea', 'Region: Barents'])
      .catch(async (error: unknown) => {
        // Once seen empty in CI: what the dialog said, and the lost edits the replica kept.
        const kept = await page.evaluate(() => Object.entries(localStorage).filter(([key]) => key.endsWith('.lost')));
        console.error('dialog:', await dialog.textContent(), '\nlost edits kept:', JSON.stringify(kept));
        throw error;
      });
    // The dialog stays open while the banner gives way to another (here the connection lost).
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    expect((await listed.allTextContents()).sort()).toEqual([
      'Move under: Quay 2',
      'Offered under parent rows: Barents Sea',
      'Region: Barents',
    ]);
    await context.setOffline(false);
    await rowNode(page, 'Quay 1').waitFor({ state: 'detached' });
    await context.close();
  });

  it('edits, adds, moves and deletes directory rows with the network cut, and sends them when it is back', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Harbour Works',
      name: 'Zoya',
      email: 'zoya@example.org',
    });
    const sites = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Berths',
      columns: [{ name: 'Name' }, { name: 'Region' }],
    })) as { id: string };
    const make = (cells: string[], parentId?: string) => addRow(page, sites.id, cells, { parentId });
    const north = await make(['North yard', 'Arctic']);
    await make(['Pier 4', 'Arctic'], north.id);
    const southGate = await make(['South gate', 'Steppe']);
    await make(['Crane', 'Steppe']);
    const shed = await make(['Old shed', 'Steppe']);
    await make(['Tool box', 'Steppe'], shed.id);
    // The first sync is done once the task list says no form takes tasks yet.
    await page.goto(`${suite.t.url}/tasks`);
    await page.getByTestId('no-open-forms').waitFor();
    await page.getByRole('menuitem', { name: 'Directories' }).click();
    await page.getByRole('link', { name: 'Berths', exact: true }).click();
    const row = (label: string) => rowNode(page, label);
    await row('Crane').waitFor();
    // The rows shown came from the server; the edits below are made in the replica: it has them all.
    await replicaIs(page, 'online ready');
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();

    // A cell edited, a row added under another, one deleted, one moved: all kept on this device.
    await row('Pier 4').click();
    await page.getByLabel('Region', { exact: true }).fill('Barents');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved on this device').first().waitFor();
    await row('North yard').click();
    await page.getByRole('button', { name: 'Add child row' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Dock 9');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await row('Dock 9').waitFor();
    expect(await row('Dock 9').getAttribute('data-depth')).toBe('2');
    await row('South gate').click();
    await page.getByRole('button', { name: 'Delete row' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await row('South gate').waitFor({ state: 'detached' });
    // A deleted row's children move up into its place, here as on the server.
    await row('Old shed').click();
    await page.getByRole('button', { name: 'Delete row' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await row('Old shed').waitFor({ state: 'detached' });
    expect(await row('Tool box').getAttribute('data-depth')).toBe('1');
    await row('Crane').click();
    await page.getByLabel('Move under').click();
    await page.getByTitle('North yard', { exact: true }).last().click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="row-node"][data-label="Crane"]')?.getAttribute('data-depth') === '2',
    );
    // The same cell edited here and, meanwhile, on the server.
    await row('North yard').click();
    await page.getByLabel('Region', { exact: true }).fill('Arctic circle');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByTestId('offline-banner').filter({ hasText: 'waiting to be sent: 7' }).waitFor();
    // Each row still shown that waits to be sent is marked (the two deleted ones wait too).
    // The labels of the rows shown with a mark (`not-sent`, `not-kept`).
    const markedRows = (mark: string) => () =>
      page
        .locator('[data-testid="row-node"]')
        .filter({ has: page.getByTestId(mark) })
        .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-label')).sort());
    const marked = markedRows('not-sent');
    await expect.poll(marked, { timeout: UI_WAIT_MS }).toEqual(['Crane', 'Dock 9', 'North yard', 'Pier 4', 'Tool box']);
    const theirs = await serverCall(page, 'PATCH', `/api/directories/${sites.id}/rows/${north.id}`, {
      cells: ['North yard', 'Polar'],
    });
    expect(theirs.status).toBe(200);
    // And a row deleted here is changed there: the deletion is not kept.
    const theirsToo = await serverCall(page, 'PATCH', `/api/directories/${sites.id}/rows/${southGate.id}`, {
      cells: ['South gate', 'Steppe east'],
    });
    expect(theirsToo.status).toBe(200);
    await saveScreenshot(page, 'directories-offline-edits');

    await context.setOffline(false);
    await page.getByTestId('offline-banner').waitFor({ state: 'detached' });
    await page.getByTestId('sending-banner').waitFor({ state: 'detached' });
    const serverRows = async () =>
      (await serverCall(page, 'GET', `/api/directories/${sites.id}/rows?limit=100`)).body.items as {
        id: string;
        parentId: string | null;
        cells: string[];
      }[];
    await expect
      .poll(async () => (await serverRows()).map((r) => r.cells[0]).sort(), { timeout: UI_WAIT_MS })
      .toEqual(['Crane', 'Dock 9', 'North yard', 'Pier 4', 'South gate', 'Tool box']);
    // Every change reaches the server (polled as a whole: the rows arrive push by push).
    await expect
      .poll(async () => Object.fromEntries((await serverRows()).map((r) => [r.cells[0], r])), { timeout: UI_WAIT_MS })
      .toMatchObject({
        'Tool box': { parentId: null },
        'Pier 4': { cells: ['Pier 4', 'Barents'] },
        'Dock 9': { parentId: north.id },
        Crane: { parentId: north.id },
        'North yard': { cells: ['North yard', 'Polar'] },
        'South gate': { cells: ['South gate', 'Steppe east'] },
      });
    // Sent: no row waits any more.
    await expect.poll(marked, { timeout: UI_WAIT_MS }).toEqual([]);
    // The notice leads from anywhere to the row, whose lost edit is shown with what the server kept.
    await row('South gate').waitFor();
    const notKept = markedRows('not-kept');
    await expect.poll(notKept, { timeout: UI_WAIT_MS }).toEqual(['North yard', 'South gate']);
    await page.getByRole('menuitem', { name: 'Tasks' }).click();
    const notice = page.getByTestId('lost-notice');
    await notice.getByRole('link', { name: 'Berths: North yard' }).waitFor();
    await saveScreenshot(page, 'lost-notice');
    await notice.getByRole('link', { name: 'Berths: North yard' }).click();
    const lost = page.getByTestId('lost-edit');
    await lost.waitFor();
    expect(await page.getByLabel('Region', { exact: true }).inputValue()).toBe('Polar');
    expect(await lost.textContent()).toContain('Region');
    expect(await lost.textContent()).toContain('your value “Arctic circle”');
    expect(await lost.textContent()).toContain('kept “Polar”');
    // The user takes their value back: made again over what the server kept, it is saved there.
    await lost.getByRole('button', { name: 'Use my value' }).click();
    await lost.waitFor({ state: 'detached' });
    await expect
      .poll(async () => (await serverRows()).find((r) => r.cells[0] === 'North yard')?.cells, { timeout: UI_WAIT_MS })
      .toEqual(['North yard', 'Arctic circle']);
    // The deletion not kept is still announced; hidden from the notice, it is dismissed everywhere.
    await expect
      .poll(() => notice.getByRole('link').allTextContents(), { timeout: UI_WAIT_MS })
      .toEqual(['Berths: South gate']);
    await notice.getByRole('button', { name: 'Hide' }).click();
    await notice.waitFor({ state: 'detached' });
    await expect.poll(notKept, { timeout: UI_WAIT_MS }).toEqual([]);
    await context.close();
  });
});
