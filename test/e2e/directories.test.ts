import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  addRow,
  apiInPage,
  browserSuite,
  rowNode as node,
  type DirectoryRow as Row,
  registeredPage,
  replicaIs,
  saveScreenshot,
  UI_WAIT_MS,
} from '../helpers/browser';

/** How long to wait for the server to agree with what the page shows. */
const SERVER = { timeout: UI_WAIT_MS, interval: 100 };
const suite = browserSuite();

/**
 * Routes the page's sync connection through the test, which holds back what the server streams
 * while `held` says so: a colleague's change then has not reached the page yet.
 */
function streamHolder() {
  const holder = {
    held: false,
    prepare: (context: BrowserContext) =>
      context.routeWebSocket(/\/socket\.io\//, (ws) => {
        const server = ws.connectToServer();
        ws.onMessage((message) => server.send(message));
        server.onMessage((message) => {
          if (holder.held && String(message).includes('"sync:stream"')) return;
          ws.send(message);
        });
      }),
  };
  return holder;
}

async function rowsOf(page: Page, directoryId: string): Promise<Row[]> {
  const body = (await apiInPage(page, 'GET', `/api/directories/${directoryId}/rows?limit=1000`)) as { items: Row[] };
  return body.items;
}

/**
 * Drags with the mouse as a person does. The tree reads the drop from where the pointer is: over
 * the lower half of a row and well to the right of where the drag began means "into this row".
 */
async function dragOnto(page: Page, source: Locator, target: Locator) {
  const takingIn =
    (await target.getAttribute('data-testid')) === 'root-drop-zone'
      ? target.and(page.locator('[data-over]'))
      : page.locator('.ant-tree-treenode.drag-over').filter({ has: target });
  // A tree rebuilt under the pointer (a read of the rows finishing meanwhile) loses a drag: it is
  // let go where it started, and made again, as a person would.
  for (let attempt = 1; ; attempt++) {
    const from = await source.boundingBox();
    if (!from) throw new Error('the dragged row is not visible');
    await page.mouse.move(from.x + 8, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + 16, from.y + from.height / 2, { steps: 4 });
    const to = await target.boundingBox();
    if (!to) throw new Error('the target row is not visible');
    await page.mouse.move(to.x + 80, to.y + to.height * 0.75, { steps: 12 });
    await page.mouse.move(to.x + 84, to.y + to.height * 0.75, { steps: 2 });
    // Released once the tree shows the target taking the row in: a busy page may not have handled
    // the last drag events yet, and a drop then lands elsewhere or not at all.
    const shown = await takingIn.waitFor({ timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    if (shown || attempt === 3) {
      if (!shown) await takingIn.waitFor();
      await page.mouse.up();
      return;
    }
    await page.mouse.move(from.x + 8, from.y + from.height / 2, { steps: 4 });
    await page.mouse.up();
  }
}

async function openDirectory(page: Page, name: string) {
  await page.goto(`${suite.t.url}/directories`);
  await page.getByRole('link', { name, exact: true }).click();
  await page.getByTestId('directory-name').filter({ hasText: name }).waitFor();
}

describe.skipIf(!suite.available)('the directories screen', { timeout: 120_000 }, () => {
  it('builds a directory tree in the interface and drags a row under a new parent, kept after a reload', async () => {
    const stream = streamHolder();
    const { context, page } = await registeredPage(
      suite.browser,
      suite.t.url,
      { organization: 'Atlas', name: 'Olga', email: 'olga@example.org' },
      { prepare: stream.prepare },
    );
    await page.getByRole('menuitem', { name: 'Directories' }).click();
    await page.getByText('No directories yet. Create the first one with “New directory”.').waitFor();

    await page.getByRole('button', { name: 'New directory' }).click();
    await page.getByLabel('Directory name').fill('Places');
    await page.getByLabel('Name of column 1').fill('Name');
    await page.getByRole('button', { name: 'Add column' }).click();
    await page.getByLabel('Name of column 2').fill('Code');
    await page.getByRole('button', { name: 'Add column' }).click();
    await page.getByLabel('Name of column 3').fill('Capacity');
    await page.getByLabel('Type of column 3').click();
    await page.getByTitle('Number', { exact: true }).click();
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByTestId('directory-name').filter({ hasText: 'Places' }).waitFor();
    await page.getByText('No rows yet. Add a row or import a CSV file.').waitFor();
    const directoryId = page.url().split('/').at(-1) as string;

    // Rows with typed editors: a number is normalised by the server.
    await page.getByRole('button', { name: 'Add row' }).first().click();
    await page.getByLabel('Name', { exact: true }).fill('Russia');
    await page.getByLabel('Code', { exact: true }).fill('RU');
    await page.getByLabel('Capacity', { exact: true }).fill('1 200');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await node(page, 'Russia').waitFor();
    expect(await page.getByLabel('Capacity', { exact: true }).inputValue()).toBe('1200');
    await page.getByRole('button', { name: 'Add child row' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Central');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await node(page, 'Central').waitFor();
    await page.getByRole('button', { name: 'Add row' }).first().click();
    await page.getByLabel('Name', { exact: true }).fill('Moscow');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await node(page, 'Moscow').waitFor();
    expect(await node(page, 'Central').getAttribute('data-depth')).toBe('2');
    expect(await node(page, 'Moscow').getAttribute('data-depth')).toBe('1');

    // A typed value the server refuses is shown at its editor.
    await node(page, 'Central').click();
    await page.getByLabel('Capacity', { exact: true }).fill('lots');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Capacity: "lots" is not a number').first().waitFor();

    // The move does not reach this page's replica: the next page's replica pulls it when it opens.
    stream.held = true;
    await dragOnto(page, node(page, 'Moscow'), node(page, 'Central'));
    const central = (await rowsOf(page, directoryId)).find((r) => r.cells[0] === 'Central') as Row;
    await expect
      .poll(async () => (await rowsOf(page, directoryId)).find((r) => r.cells[0] === 'Moscow')?.parentId, SERVER)
      .toBe(central.id);

    // The rows (list and tree) are read once: the replica's first connection after the page is
    // opened again, pulling the move the view already shows, does not read them again (a tree
    // rebuilt under the pointer loses a drag). Only the new page's reads count: the page left may
    // still be reading the rows its move changed.
    const directoryUrl = page.url();
    await page.goto('about:blank');
    stream.held = false;
    const rowReads: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'GET' && request.url().includes(`/api/directories/${directoryId}/rows`)) {
        rowReads.push(request.url());
      }
    });
    await page.goto(directoryUrl);
    await node(page, 'Moscow').waitFor();
    expect(await node(page, 'Moscow').getAttribute('data-parent-id')).toBe(central.id);
    expect(await node(page, 'Moscow').getAttribute('data-depth')).toBe('3');
    await replicaIs(page, 'online ready');
    // A read for the pulled move would start a quarter of a second after it landed.
    await page.waitForTimeout(1_000);
    expect(rowReads.length, rowReads.join('\n')).toBe(new Set(rowReads).size);

    // The zone under the tree moves a row back to the top level.
    await dragOnto(page, node(page, 'Moscow'), page.getByTestId('root-drop-zone'));
    await expect
      .poll(async () => (await rowsOf(page, directoryId)).find((r) => r.cells[0] === 'Moscow')?.parentId, SERVER)
      .toBeNull();
    await node(page, 'Moscow').and(page.locator('[data-depth="1"]')).waitFor();

    await node(page, 'Russia').click();
    await page.getByTestId('row-editor').waitFor();
    await saveScreenshot(page, 'directories');

    await node(page, 'Central').click();
    await page.getByRole('button', { name: 'Delete row' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => node(page, 'Central').count(), SERVER).toBe(0);
    expect(await rowsOf(page, directoryId)).toHaveLength(2);

    await page.getByRole('button', { name: 'Rename Places' }).click();
    await page.getByLabel('Directory name').fill('Places of work');
    await page.getByRole('button', { name: 'Save', exact: true }).last().click();
    await page.getByTestId('directory-name').filter({ hasText: 'Places of work' }).waitFor();
    await page.getByRole('link', { name: 'Places of work' }).waitFor();
    await context.close();
  });

  it('shows the server’s reason when a move is refused, and the tree stays as it was', async () => {
    const stream = streamHolder();
    const { context, page } = await registeredPage(
      suite.browser,
      suite.t.url,
      { organization: 'Borealis', name: 'Boris', email: 'boris@example.org' },
      { prepare: stream.prepare },
    );
    await replicaIs(page, 'online ready');
    // Nothing of this directory reaches the page's replica until the end: the page reads the rows
    // from the server when it opens them, and no change arriving later has it read them again.
    stream.held = true;
    const directory = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Sites',
      columns: [{ name: 'Name' }],
    })) as { id: string };
    const alpha = await addRow(page, directory.id, ['Alpha']);
    const beta = await addRow(page, directory.id, ['Beta']);
    // Opened within the page (a new page load would pull the rows into the replica).
    await page.getByRole('menuitem', { name: 'Directories' }).click();
    await page.getByRole('link', { name: 'Sites', exact: true }).click();
    await node(page, 'Beta').waitFor();

    // Someone else puts Alpha under Beta meanwhile; it has not reached this page, which still
    // shows both at the top.
    await apiInPage(page, 'PATCH', `/api/directories/${directory.id}/rows/${alpha.id}/move`, {
      parentId: beta.id,
      position: 0,
    });
    // Moved by keyboard: the same move a drag makes, without the drag's timing on a busy machine.
    await node(page, 'Beta').click();
    await page.getByLabel('Move under').click();
    await page.getByTitle('Alpha', { exact: true }).last().click();
    const alert = page.getByTestId('directory-notice');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('A row cannot move under itself or one of its descendants.');
    // The refused move is not shown: Beta stays at the top (Alpha may show under it once the
    // colleague's move reaches the page).
    await expect.poll(() => node(page, 'Beta').getAttribute('data-depth'), SERVER).toBe('1');
    const rows = await rowsOf(page, directory.id);
    expect(rows.find((r) => r.id === beta.id)?.parentId).toBeNull();

    // Reloading shows the tree as the server has it.
    stream.held = false;
    await page.getByRole('button', { name: 'Reload' }).click();
    await node(page, 'Alpha').and(page.locator('[data-depth="2"]')).waitFor();

    // Moving by keyboard: a row's own descendants are not offered as its new parent (its editor
    // opened afresh on the tree as it now is).
    await node(page, 'Alpha').click();
    await node(page, 'Beta').click();
    await page.getByLabel('Move under').click();
    await page.locator('.ant-select-tree-treenode-disabled').filter({ hasText: 'Alpha' }).waitFor();
    await page.keyboard.press('Escape');
    await node(page, 'Alpha').click();
    await page.getByLabel('Move under').click();
    await page.getByTitle('Top level').click();
    await node(page, 'Alpha').and(page.locator('[data-depth="1"]')).waitFor();
    await expect
      .poll(async () => (await rowsOf(page, directory.id)).find((r) => r.id === alpha.id)?.parentId, SERVER)
      .toBeNull();
    await context.close();
  });

  it('shows a colleague’s changes of the rows as they come, keeping what is typed in the row editor', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Gate Works',
      name: 'Gala',
      email: 'gala@example.org',
    });
    const directory = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Gates',
      columns: [{ name: 'Name' }, { name: 'Region' }],
    })) as { id: string };
    const north = await addRow(page, directory.id, ['North gate', 'Arctic']);
    const south = await addRow(page, directory.id, ['South gate', 'Steppe']);
    await openDirectory(page, 'Gates');
    await node(page, 'South gate').waitFor();
    await replicaIs(page, 'online ready');

    // A colleague adds a row: it shows without a reload.
    await addRow(page, directory.id, ['East gate', 'Taiga']);
    await node(page, 'East gate').waitFor();

    // She is typing a region of the North gate when the colleague renames it: the name she did not
    // touch follows, what she typed stays, and saving keeps both.
    await node(page, 'North gate').click();
    await page.getByLabel('Region', { exact: true }).fill('Polar');
    await apiInPage(page, 'PATCH', `/api/directories/${directory.id}/rows/${north.id}`, {
      cells: { 0: 'North gate, rebuilt' },
    });
    await node(page, 'North gate, rebuilt').waitFor();
    await expect.poll(() => page.getByLabel('Name', { exact: true }).inputValue(), SERVER).toBe('North gate, rebuilt');
    expect(await page.getByLabel('Region', { exact: true }).inputValue()).toBe('Polar');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(async () => (await rowsOf(page, directory.id)).find((r) => r.id === north.id)?.cells, SERVER)
      .toEqual(['North gate, rebuilt', 'Polar']);

    // The list of new parents in the open editor follows the tree: a row a colleague put under
    // another shows there, under it.
    const moveList = page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)');
    await page.getByLabel('Move under').click();
    await moveList.getByTitle('South gate', { exact: true }).waitFor();
    await page.keyboard.press('Escape');
    const eastAtFirst = (await rowsOf(page, directory.id)).find((r) => r.cells[0] === 'East gate') as Row;
    await apiInPage(page, 'PATCH', `/api/directories/${directory.id}/rows/${eastAtFirst.id}/move`, {
      parentId: south.id,
      position: 0,
    });
    await node(page, 'East gate').and(page.locator('[data-depth="2"]')).waitFor();
    await page.getByLabel('Move under').click();
    await moveList.getByTitle('East gate', { exact: true }).waitFor();
    // A row she closed in that list stays closed when the tree changes again.
    await moveList
      .locator('.ant-select-tree-treenode')
      .filter({ has: page.getByTitle('South gate', { exact: true }) })
      .locator('.ant-select-tree-switcher')
      .click();
    await moveList.getByTitle('East gate', { exact: true }).waitFor({ state: 'detached' });
    await page.keyboard.press('Escape');
    await addRow(page, directory.id, ['West gate', 'Desert']);
    await node(page, 'West gate').waitFor();
    await page.getByLabel('Move under').click();
    await moveList.getByTitle('West gate', { exact: true }).waitFor();
    expect(await moveList.getByTitle('East gate', { exact: true }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await apiInPage(page, 'PATCH', `/api/directories/${directory.id}/rows/${eastAtFirst.id}/move`, {
      parentId: null,
      position: 2,
    });
    await node(page, 'East gate').and(page.locator('[data-depth="1"]')).waitFor();

    // A colleague deletes a row: it goes.
    await apiInPage(page, 'DELETE', `/api/directories/${directory.id}/rows/${south.id}`);
    await node(page, 'South gate').waitFor({ state: 'detached' });

    // Deleted while she types in it: the editor stays with what she typed, says so, and saves it
    // once she brings the row back.
    await node(page, 'East gate').click();
    await page.getByLabel('Region', { exact: true }).fill('Tundra');
    const east = (await rowsOf(page, directory.id)).find((r) => r.cells[0] === 'East gate') as Row;
    await apiInPage(page, 'DELETE', `/api/directories/${directory.id}/rows/${east.id}`);
    const gone = page.getByTestId('row-gone');
    await gone.waitFor();
    await node(page, 'East gate').waitFor({ state: 'detached' });
    expect(await page.getByLabel('Region', { exact: true }).inputValue()).toBe('Tundra');
    expect(await page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);
    await gone.getByRole('button', { name: 'Restore' }).click();
    await gone.waitFor({ state: 'detached' });
    await node(page, 'East gate').waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(async () => (await rowsOf(page, directory.id)).find((r) => r.id === east.id)?.cells, SERVER)
      .toEqual(['East gate', 'Tundra']);
    await context.close();
  });

  it('takes a row’s deletion back from its notice, children and all, online and offline', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Undo works',
      name: 'Uma',
      email: 'uma@example.org',
    });
    const directory = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Stations',
      columns: [{ name: 'Name' }],
    })) as { id: string };
    const station = await addRow(page, directory.id, ['Station']);
    const pump = await addRow(page, directory.id, ['Pump'], { parentId: station.id });
    const valve = await addRow(page, directory.id, ['Valve'], { parentId: pump.id });
    await addRow(page, directory.id, ['Gauge'], { parentId: pump.id });
    await addRow(page, directory.id, ['Tank'], { parentId: station.id });
    await openDirectory(page, 'Stations');
    await node(page, 'Valve').waitFor();
    await replicaIs(page, 'online ready');
    const parentOf = async (id: string) => (await rowsOf(page, directory.id)).find((r) => r.id === id)?.parentId;
    const deleteShown = async (label: string) => {
      await node(page, label).click();
      await page.getByRole('button', { name: 'Delete row' }).click();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await node(page, label).waitFor({ state: 'detached' });
    };
    const undo = async () => {
      const notice = page.getByTestId('row-deleted');
      await notice.getByRole('button', { name: 'Undo' }).click();
      await page.getByText('Row “Pump” is back in its place').waitFor();
      await node(page, 'Valve').and(page.locator('[data-depth="3"]')).waitFor();
      expect(await node(page, 'Gauge').getAttribute('data-depth')).toBe('3');
      expect(await node(page, 'Pump').getAttribute('data-depth')).toBe('2');
    };

    // Online: deleted on the server, its children moved up; Undo puts it all back there.
    await deleteShown('Pump');
    await page.getByTestId('row-deleted').filter({ hasText: 'Row deleted' }).waitFor();
    expect(await node(page, 'Valve').getAttribute('data-depth')).toBe('2');
    await expect.poll(() => parentOf(valve.id), SERVER).toBe(station.id);
    await undo();
    expect(await parentOf(pump.id)).toBe(station.id);
    expect(await parentOf(valve.id)).toBe(pump.id);

    // Offline: deleted and taken back on this device; the server never learns of either.
    const before = await rowsOf(page, directory.id);
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    await deleteShown('Pump');
    await page.getByTestId('row-deleted').filter({ hasText: 'Row deleted on this device' }).waitFor();
    await undo();
    await context.setOffline(false);
    await replicaIs(page, 'online ready');
    await page.getByTestId('sending-banner').waitFor({ state: 'detached' });
    expect(await rowsOf(page, directory.id)).toEqual(before);
    expect(await page.getByTestId('lost-notice').count()).toBe(0);

    // A whole directory's deletion is taken back the same way: it returns with its rows.
    await page.getByRole('button', { name: 'Delete Stations' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('link', { name: 'Stations', exact: true }).waitFor({ state: 'detached' });
    await page.getByTestId('directory-deleted').getByRole('button', { name: 'Undo' }).click();
    await page.getByText('Directory “Stations” is back, with all its rows').waitFor();
    await page.getByRole('link', { name: 'Stations', exact: true }).click();
    await node(page, 'Valve').and(page.locator('[data-depth="3"]')).waitFor();
    expect(await rowsOf(page, directory.id)).toEqual(before);

    // A row deleted long ago (by a colleague, say) is found among the deleted rows and restored.
    const tank = before.find((r) => r.cells[0] === 'Tank') as Row;
    await apiInPage(page, 'DELETE', `/api/directories/${directory.id}/rows/${tank.id}`);
    await page.getByRole('button', { name: 'Reload' }).click();
    await node(page, 'Tank').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Deleted rows' }).click();
    const deleted = page.getByTestId('deleted-rows').locator('tbody tr');
    await deleted.filter({ hasText: 'Tank' }).waitFor();
    expect(await deleted.locator('td:first-child').allTextContents()).toEqual(['Tank']);
    expect(await deleted.first().textContent()).toContain('Uma');
    await page.getByRole('button', { name: 'Restore “Tank”' }).click();
    await page.getByText('Row “Tank” is back in its place').waitFor();
    await deleted.filter({ hasText: 'Tank' }).waitFor({ state: 'detached' });
    await node(page, 'Tank').and(page.locator('[data-depth="2"]')).waitFor();
    await context.close();
  });

  it('exports the rows as CSV and imports files back, with counts and the server’s row errors', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Cargo',
      name: 'Clara',
      email: 'clara@example.org',
    });
    const directory = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Stock',
      columns: [{ name: 'Name' }, { name: 'Qty', type: 'number' }],
    })) as { id: string };
    const bolts = await addRow(page, directory.id, ['Bolts', '100']);
    await addRow(page, directory.id, ['M6 bolts', '40'], { parentId: bolts.id });
    await openDirectory(page, 'Stock');
    await node(page, 'M6 bolts').waitFor();

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('Stock.csv');
    const exported = readFileSync(await download.path(), 'utf8');
    expect(exported.replace(/^\ufeff/, '').split(/\r?\n/)[0]).toBe('id,parent_id,Name,Qty');
    expect(exported).toContain('M6 bolts,40');

    const importFile = async (name: string, csv: string) => {
      await page.getByLabel('CSV file').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(csv) });
    };

    // Round trip: the export replaces the rows and the same tree comes back.
    await page.getByRole('button', { name: 'Import CSV' }).click();
    await importFile('Stock.csv', exported);
    await page.getByText('Replace all rows').click();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByTestId('import-result').filter({ hasText: 'Rows imported: 2' }).waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    await node(page, 'M6 bolts').waitFor();
    expect(await node(page, 'M6 bolts').getAttribute('data-parent-id')).toBe(bolts.id);

    // A bad file: every error the server finds is listed, and nothing is written.
    await page.getByRole('button', { name: 'Import CSV' }).click();
    await importFile('bad.csv', 'Name,Qty,Colour\nGood,10\nBad,many\n');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByTestId('import-result').filter({ hasText: 'Errors found: 2' }).waitFor();
    const errors = page.getByTestId('import-errors');
    expect(await errors.getByRole('row').filter({ hasText: 'Colour' }).textContent()).toContain('1');
    expect(await errors.getByRole('row').filter({ hasText: 'many' }).textContent()).toContain('3');
    expect(await rowsOf(page, directory.id)).toHaveLength(2);

    // A prepared file with its own ids and parent links is added to the rows.
    const nuts = randomUUID();
    await importFile('nuts.csv', `id,parent_id,Name,Qty\n${nuts},,Nuts,5\n${randomUUID()},${nuts},M6 nuts,3\n`);
    await page.getByText('Add to the rows').click();
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    await page.getByTestId('import-result').filter({ hasText: 'No errors: 2 rows can be imported' }).waitFor();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByTestId('import-result').filter({ hasText: 'Rows imported: 2' }).waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    await node(page, 'M6 nuts').waitFor();
    expect(await node(page, 'M6 nuts').getAttribute('data-parent-id')).toBe(nuts);
    expect(await page.getByTestId('row-count').textContent()).toBe('Rows: 4');
    await context.close();
  });

  it('groups rows by a column’s values in column-value mode', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Delta',
      name: 'Dmitry',
      email: 'dmitry@example.org',
    });
    const directory = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Cities',
      columns: [{ name: 'Name' }, { name: 'Region' }],
    })) as { id: string };
    await addRow(page, directory.id, ['Moscow', 'Center']);
    await addRow(page, directory.id, ['Tula', 'Center']);
    await addRow(page, directory.id, ['Murmansk', 'North']);
    await addRow(page, directory.id, ['Nowhere', null]);
    await openDirectory(page, 'Cities');
    await node(page, 'Nowhere').waitFor();

    await page.getByLabel('Tree mode').click();
    await page.getByTitle('Grouped by “Region”').click();
    const groups = page.getByTestId('group-node');
    await groups.first().waitFor();
    expect(await groups.evaluateAll((all) => all.map((g) => g.textContent))).toEqual([
      'Center 2',
      'North 1',
      '(no value) 1',
    ]);
    expect(await node(page, 'Tula').getAttribute('data-depth')).toBe('2');
    expect(await page.getByTestId('root-drop-zone').count()).toBe(0);

    // Saved as the directory's default view, it is what the tree endpoint answers.
    await page.getByRole('button', { name: 'Make this the default view' }).click();
    await expect
      .poll(
        async () =>
          ((await apiInPage(page, 'GET', `/api/directories/${directory.id}`)) as { treeColumnIndex: number | null })
            .treeColumnIndex,
        SERVER,
      )
      .toBe(1);
    await page.reload();
    await groups.first().waitFor();

    // Back to the parent-link tree, even though the directory's default groups.
    await page.getByLabel('Tree mode').click();
    await page.getByTitle('By parent rows').click();
    await page.getByTestId('root-drop-zone').waitFor();
    expect(await groups.count()).toBe(0);
    expect(await node(page, 'Tula').getAttribute('data-depth')).toBe('1');

    // Every string of the screen has its Russian.
    await page.getByLabel('Language').click();
    await page.getByTitle('Русский').click();
    await page.getByRole('heading', { name: 'Справочники' }).waitFor();
    await page.getByText('По родительским строкам').waitFor();
    await page.getByRole('button', { name: 'Экспорт CSV' }).waitFor();
    await context.close();
  });

  it('creates a sub-directory bound to chosen rows of its parent and filters its rows by a parent row', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Eridan',
      name: 'Elena',
      email: 'elena@example.org',
    });
    const regions = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Regions',
      columns: [{ name: 'Name' }],
    })) as { id: string };
    const center = await addRow(page, regions.id, ['Center']);
    const north = await addRow(page, regions.id, ['North']);
    await addRow(page, regions.id, ['South']);
    await page.goto(`${suite.t.url}/directories`);
    await page.getByRole('button', { name: 'New directory' }).click();
    await page.getByLabel('Directory name').fill('Towns');
    await page.getByLabel('Name of column 1').fill('Name');
    await page.getByLabel('Parent directory').click();
    await page.getByTitle('Regions').click();
    await page.getByLabel('Rows of the parent directory').click();
    await page.getByTitle('Center').click();
    await page.getByTitle('North').click();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByTestId('directory-name').filter({ hasText: 'Towns' }).waitFor();
    const towns = page.url().split('/').at(-1) as string;
    const saved = (await apiInPage(page, 'GET', `/api/directories/${towns}`)) as {
      parentDirectoryId: string;
      parentRowIds: string[];
    };
    expect(saved.parentDirectoryId).toBe(regions.id);
    expect(saved.parentRowIds.sort()).toEqual([center.id, north.id].sort());

    await page.getByRole('button', { name: 'Add row' }).first().click();
    await page.getByLabel('Name', { exact: true }).fill('Moscow');
    await page.getByLabel('Offered under parent rows').click();
    // Only the rows the sub-directory is bound to are offered.
    expect(await page.getByTitle('South').count()).toBe(0);
    await page.getByTitle('Center').click();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await node(page, 'Moscow').waitFor();
    await page.getByRole('button', { name: 'Add row' }).first().click();
    await page.getByLabel('Name', { exact: true }).fill('Anywhere');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await node(page, 'Anywhere').waitFor();
    const moscow = (await rowsOf(page, towns)).find((r) => r.cells[0] === 'Moscow') as Row;
    expect(moscow.parentRowIds).toEqual([center.id]);

    await page.getByLabel('Rows offered under').click();
    await page.getByTitle('North').click();
    await node(page, 'Anywhere').waitFor();
    await expect.poll(() => node(page, 'Moscow').count(), SERVER).toBe(0);
    await page.getByRole('link', { name: 'Regions' }).first().click();
    await page.getByTestId('directory-name').filter({ hasText: 'Regions' }).waitFor();
    await page.getByText('Sub-directories:').waitFor();

    // A parent with sub-directories is not deleted; the server says why.
    await page.getByRole('button', { name: 'Delete Regions' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'The directory has sub-directories. Delete them first.' })
      .waitFor();
    await page.getByRole('button', { name: 'Delete Towns' }).click();
    // The first confirmation may still be fading out: this one opened last.
    await page.getByRole('button', { name: 'Delete', exact: true }).last().click();
    await expect.poll(() => page.getByRole('link', { name: 'Towns' }).count(), SERVER).toBe(0);
    await context.close();
  });
});
