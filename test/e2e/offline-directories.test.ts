import { describe, expect, it } from 'vitest';
import {
  addRow,
  apiInPage,
  registeredPage,
  replicaIs,
  rowNode,
  saveScreenshot,
  UI_WAIT_MS,
  waitOrExplain,
} from '../helpers/browser';
import { offlineSuite } from '../helpers/offline';

const { suite, serverCall, replicaCells, toggleParentRows, syncThroughTest } = offlineSuite();

describe.skipIf(!suite.available)('working offline in the browser: directories', { timeout: 120_000 }, () => {
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
    // The most "Saved on this device" notices on screen at once from here on (those leaving aside):
    // counted as they come, as a loaded machine may take longer than a notice stays.
    await page.evaluate(() => {
      const seen = window as unknown as { savedNoticesAtOnce: number };
      seen.savedNoticesAtOnce = 0;
      const onScreen = () =>
        [...document.querySelectorAll('.ant-message-notice')].filter(
          (notice) => !notice.closest('[class*="-leave"]') && notice.textContent?.includes('Saved on this device'),
        ).length;
      new MutationObserver(() => {
        seen.savedNoticesAtOnce = Math.max(seen.savedNoticesAtOnce, onScreen());
      }).observe(document.body, { childList: true, subtree: true, attributes: true });
    });
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
    // The move and the save just made said the same: one notice says it, not two stacked.
    expect(await page.evaluate(() => (window as unknown as { savedNoticesAtOnce: number }).savedNoticesAtOnce)).toBe(1);
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
