import { describe, expect, it } from 'vitest';
import {
  apiInPage,
  choose,
  joinedPerson,
  registeredPage,
  replicaIs,
  replicaState,
  saveScreenshot,
  UI_WAIT_MS,
  waitOrExplain,
} from '../helpers/browser';
import { offlineSuite } from '../helpers/offline';

const { suite, serverCall, arrange, assignedOnServer, onTaskPage, taskList } = offlineSuite();

describe.skipIf(!suite.available)('working offline in the browser: tasks', { timeout: 120_000 }, () => {
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
    await waitOrExplain(page, page.getByRole('heading', { name: 'Boiler room' }));
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
      // The server's failure is told with the id it was logged under, the one the administrators'
      // error log shows (each try is another failure: the two agree once the last one is recorded).
      const shownId = async () => (await failed.textContent())?.match(/request id ([0-9a-f-]{36})/)?.[1];
      const loggedId = async () =>
        (
          (await serverCall(page, 'GET', '/api/error-logs?path=/sync/tasks')).body.items as {
            method: string;
            status: number;
            requestId: string;
          }[]
        ).find((entry) => entry.method === 'PUSH' && entry.status === 500)?.requestId;
      await expect
        .poll(
          async () => {
            const [shown, logged] = [await shownId(), await loggedId()];
            return shown !== undefined && shown === logged;
          },
          { timeout: UI_WAIT_MS },
        )
        .toBe(true);
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
});
