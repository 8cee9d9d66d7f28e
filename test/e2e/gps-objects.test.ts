import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  apiInPage,
  browserSuite,
  choose,
  joinedPerson,
  registeredPage,
  saveScreenshot,
  signInPage,
  waitOrExplain,
} from '../helpers/browser';

/** GPS → Objects and groups in Chromium: objects, groups and their own filter values, kept by the server. */
const suite = browserSuite();

interface ApiObject {
  id: string;
  name: string;
  kind: string;
  trackerId: string;
  groupId: string | null;
  settings: Record<string, number>;
}
interface ApiGroup {
  id: string;
  name: string;
  settings: Record<string, number>;
}

const objects = async (page: Page) =>
  ((await apiInPage(page, 'GET', '/api/gps/objects')) as { items: ApiObject[] }).items;
const groups = async (page: Page) => ((await apiInPage(page, 'GET', '/api/gps/groups')) as { items: ApiGroup[] }).items;

/** The error shown under the form field labelled `label`. */
function errorAt(page: Page, label: string) {
  return page
    .locator('.ant-form-item')
    .filter({ has: page.getByLabel(label, { exact: true }) })
    .locator('.ant-form-item-explain-error');
}

/** The table row that holds `text` within the card `testId`. */
function rowOf(page: Page, testId: string, text: string) {
  return page.getByTestId(testId).locator('tr.ant-table-row').filter({ hasText: text });
}

/** A position of `tracker` forwarded by Traccar with the organization's ingestion token. */
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
  expect(response.status).toBe(200);
}

describe.skipIf(!suite.available)('GPS objects and groups in the browser', { timeout: 240_000 }, () => {
  it('creates a group and objects, puts one in the group, keeps both overrides, shows the group’s inherited value, renames and deletes', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Fleetline',
      name: 'Olga',
      email: 'olga-gps-objects@example.org',
    });
    // A tracker that has sent a point: its object is made by the message and has a track.
    const { token } = (await apiInPage(page, 'POST', '/api/gps/ingestion-token')) as { token: string };
    await forward(token, 'van-9');

    await page.goto(`${suite.t.url}/map/objects`);
    await waitOrExplain(page, page.getByTestId('gps-objects-page'));
    await rowOf(page, 'gps-objects', 'van-9').waitFor();
    expect(await rowOf(page, 'gps-objects', 'van-9').textContent()).not.toContain('never');

    // A group.
    await page.getByRole('button', { name: 'New group' }).click();
    const groupDialog = page.getByRole('dialog', { name: 'New group' });
    await groupDialog.getByLabel('Name').fill('Couriers');
    await groupDialog.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Group “Couriers” created').waitFor();
    const [couriers] = await groups(page);
    expect(couriers?.name).toBe('Couriers');

    // An object for a tracker that has not sent anything yet.
    await page.getByRole('button', { name: 'New object' }).click();
    const objectDialog = page.getByRole('dialog', { name: 'New object' });
    await objectDialog.getByLabel('Name').fill('Van 7');
    await objectDialog.getByLabel('Tracker id').fill('van-7');
    await objectDialog.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Object “Van 7” created').waitFor();
    await rowOf(page, 'gps-objects', 'van-7').waitFor();
    expect(await rowOf(page, 'gps-objects', 'van-7').textContent()).toContain('never');
    let van7 = (await objects(page)).find((object) => object.trackerId === 'van-7');
    expect(van7).toMatchObject({ name: 'Van 7', kind: 'vehicle', groupId: null, settings: {} });

    // Put in the group, as a person.
    await rowOf(page, 'gps-objects', 'van-7').getByRole('button', { name: 'Edit' }).click();
    const editDialog = page.getByRole('dialog', { name: 'Object “Van 7”' });
    await choose(page, 'Group', 'Couriers');
    await choose(page, 'Kind', 'Person');
    await editDialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Object “Van 7” saved').waitFor();
    await expect.poll(async () => (await objects(page)).find((o) => o.id === van7?.id)?.groupId).toBe(couriers?.id);
    van7 = (await objects(page)).find((object) => object.id === van7?.id);
    expect(van7?.kind).toBe('person');
    expect(await rowOf(page, 'gps-objects', 'van-7').textContent()).toContain('Couriers');
    await rowOf(page, 'gps-groups', 'Couriers').getByRole('cell', { name: '1', exact: true }).waitFor();

    // The group's own jitter radius: it inherited the organization's.
    await rowOf(page, 'gps-groups', 'Couriers').getByRole('button', { name: 'Filters' }).click();
    const groupFilters = page.getByRole('dialog', { name: 'Filters of the group “Couriers”' });
    expect(await groupFilters.getByTestId('inherited-jitterMeters').textContent()).toBe(
      'Inherited: 30 m — from the organization’s settings',
    );
    await groupFilters.getByTestId('override-jitterMeters').getByText('Own', { exact: true }).click();
    await groupFilters.getByLabel('Jitter while stopped: radius', { exact: true }).fill('55');
    await groupFilters.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Filters saved').waitFor();
    await expect.poll(async () => (await groups(page))[0]?.settings).toEqual({ jitterMeters: 55 });

    // The object inherits the group's value; its own jump speed is first refused by the server, at its field.
    await rowOf(page, 'gps-objects', 'van-7').getByRole('button', { name: 'Filters' }).click();
    const objectFilters = page.getByRole('dialog', { name: 'Filters of the object “Van 7”' });
    expect(await objectFilters.getByTestId('inherited-jitterMeters').textContent()).toBe(
      'Inherited: 55 m — from the group “Couriers”',
    );
    expect(await objectFilters.getByTestId('inherited-maxJumpSpeedKmh').textContent()).toBe(
      'Inherited: 250 km/h — from the organization’s settings',
    );
    await objectFilters.getByTestId('override-maxJumpSpeedKmh').getByText('Own', { exact: true }).click();
    await objectFilters.getByLabel('Jump: speed above', { exact: true }).fill('0');
    await objectFilters.getByRole('button', { name: 'Save' }).click();
    const jumpError = errorAt(page, 'Jump: speed above');
    await waitOrExplain(page, jumpError);
    expect(await jumpError.textContent()).toBe('More than 0');
    expect(await objectFilters.getByRole('alert').textContent()).toContain('Correct the marked fields and save again');
    expect((await objects(page)).find((o) => o.id === van7?.id)?.settings).toEqual({});
    await objectFilters.getByLabel('Jump: speed above', { exact: true }).fill('120');
    await objectFilters.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Filters saved').waitFor();
    await expect
      .poll(async () => (await objects(page)).find((o) => o.id === van7?.id)?.settings)
      .toEqual({ maxJumpSpeedKmh: 120 });
    expect((await groups(page))[0]?.settings).toEqual({ jitterMeters: 55 });

    // Opened again: the own value kept, the group's still inherited.
    await rowOf(page, 'gps-objects', 'van-7').getByRole('button', { name: 'Filters' }).click();
    const again = page.getByRole('dialog', { name: 'Filters of the object “Van 7”' });
    expect(await again.getByLabel('Jump: speed above', { exact: true }).inputValue()).toBe('120');
    expect(await again.getByTestId('inherited-jitterMeters').textContent()).toBe(
      'Inherited: 55 m — from the group “Couriers”',
    );
    await saveScreenshot(page, 'gps-objects-filters');
    await again.getByRole('button', { name: 'Cancel' }).click();
    await again.waitFor({ state: 'hidden' });

    // A tracker belongs to one object: the refusal is said at the tracker field.
    await page.getByRole('button', { name: 'New object' }).click();
    await objectDialog.getByLabel('Name').fill('Van 8');
    await objectDialog.getByLabel('Tracker id').fill('van-7');
    await objectDialog.getByRole('button', { name: 'Create' }).click();
    const trackerError = errorAt(page, 'Tracker id');
    await waitOrExplain(page, trackerError);
    expect(await trackerError.textContent()).toContain('Another object already has this tracker');
    await objectDialog.getByLabel('Tracker id').fill('van-8');
    await objectDialog.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Object “Van 8” created').waitFor();

    // Search by tracker.
    await page.getByLabel('Search by name, tracker or group').fill('van-8');
    await expect.poll(() => page.getByTestId('gps-objects').locator('tr.ant-table-row').count()).toBe(1);
    await page.getByLabel('Search by name, tracker or group').fill('');
    await expect.poll(() => page.getByTestId('gps-objects').locator('tr.ant-table-row').count()).toBe(3);

    // Rename the group and the object.
    await rowOf(page, 'gps-groups', 'Couriers').getByRole('button', { name: 'Rename' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename the group “Couriers”' });
    await rename.getByLabel('Name').fill('Couriers North');
    await rename.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Group “Couriers North” saved').waitFor();
    expect((await groups(page))[0]?.name).toBe('Couriers North');
    await rowOf(page, 'gps-objects', 'van-7').getByRole('button', { name: 'Edit' }).click();
    const renameObject = page.getByRole('dialog', { name: 'Object “Van 7”' });
    await renameObject.getByLabel('Name').fill('Van 7 North');
    await renameObject.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Object “Van 7 North” saved').waitFor();
    expect((await objects(page)).find((o) => o.id === van7?.id)).toMatchObject({
      name: 'Van 7 North',
      groupId: couriers?.id,
      settings: { maxJumpSpeedKmh: 120 },
    });
    await rowOf(page, 'gps-objects', 'Couriers North').waitFor();
    await saveScreenshot(page, 'gps-objects');

    // Deleting the group says its object stays ungrouped; then it inherits from the organization.
    await rowOf(page, 'gps-groups', 'Couriers North').getByRole('button', { name: 'Delete' }).click();
    const deleteGroup = page.getByRole('dialog', { name: 'Delete the group “Couriers North”?' });
    expect(await deleteGroup.getByTestId('gps-delete-consequence').textContent()).toContain(
      'Objects in the group: 1. They stay, without a group',
    );
    await deleteGroup.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Group “Couriers North” deleted').waitFor();
    expect(await groups(page)).toEqual([]);
    expect((await objects(page)).find((o) => o.id === van7?.id)?.groupId).toBeNull();
    await rowOf(page, 'gps-objects', 'van-7').getByRole('button', { name: 'Filters' }).click();
    const ungrouped = page.getByRole('dialog', { name: 'Filters of the object “Van 7 North”' });
    expect(await ungrouped.getByTestId('inherited-jitterMeters').textContent()).toBe(
      'Inherited: 30 m — from the organization’s settings',
    );
    await ungrouped.getByRole('button', { name: 'Cancel' }).click();
    await ungrouped.waitFor({ state: 'hidden' });

    // Deleting the object that has a track says the track goes too, and it does.
    const van9 = (await objects(page)).find((object) => object.trackerId === 'van-9') as ApiObject;
    const track = (await apiInPage(page, 'GET', `/api/gps/objects/${van9.id}/track`)) as { points: unknown[] };
    expect(track.points.length).toBe(1);
    await rowOf(page, 'gps-objects', 'van-9').getByRole('button', { name: 'Delete' }).click();
    const deleteObject = page.getByRole('dialog', { name: `Delete the object “${van9.name}”?` });
    expect(await deleteObject.getByTestId('gps-delete-consequence').textContent()).toContain(
      'Its whole track goes with it',
    );
    await deleteObject.getByRole('button', { name: 'Delete' }).click();
    await page.getByText(`Object “${van9.name}” deleted`).waitFor();
    expect((await objects(page)).map((object) => object.trackerId).sort()).toEqual(['van-7', 'van-8']);
    expect(((await apiInPage(page, 'GET', `/api/gps/objects/${van9.id}/track`)) as { status: number }).status).toBe(
      404,
    );
    expect(await rowOf(page, 'gps-objects', 'van-9').count()).toBe(0);
    await context.close();
  });

  it('is closed to a member without the GPS module, and open with edits to one who has it (as the API allows)', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Carriers',
      name: 'Cyril',
      email: 'cyril-gps-objects@example.org',
    });
    const miraId = await joinedPerson(suite.t, page, 'Mira', 'mira-gps-objects@example.org');
    await apiInPage(page, 'POST', '/api/gps/objects', { name: 'Truck 1', trackerId: 'truck-1' });

    const member = await signInPage(suite.browser, suite.t.url, 'mira-gps-objects@example.org', 'Mira joins the crew');
    await member.page.getByTestId('organization-name').waitFor();
    await member.page.goto(`${suite.t.url}/map/objects`);
    await member.page.getByText('Objects and groups are open to people with access to the GPS module').waitFor();
    expect(await member.page.getByRole('button', { name: 'New object' }).count()).toBe(0);
    expect(await member.page.getByText('Truck 1').count()).toBe(0);
    await member.context.close();

    await apiInPage(page, 'PUT', '/api/module-access', { users: [{ userId: miraId, modules: ['gps'] }] });
    const granted = await signInPage(suite.browser, suite.t.url, 'mira-gps-objects@example.org', 'Mira joins the crew');
    await granted.page.getByTestId('organization-name').waitFor();
    // In Russian this time.
    await granted.page.evaluate(() => localStorage.setItem('orbita.language', 'ru'));
    await granted.page.goto(`${suite.t.url}/map/objects`);
    await waitOrExplain(granted.page, rowOf(granted.page, 'gps-objects', 'truck-1'));
    await granted.page.getByRole('heading', { name: 'Объекты и группы' }).waitFor();
    expect(await granted.page.getByRole('button', { name: 'Новая группа' }).count()).toBe(1);
    await rowOf(granted.page, 'gps-objects', 'truck-1').getByRole('button', { name: 'Фильтры' }).click();
    const filters = granted.page.getByRole('dialog', { name: 'Фильтры объекта «Truck 1»' });
    expect(await filters.getByTestId('inherited-jitterMeters').textContent()).toBe(
      'Наследуется: 30 м — из настроек организации',
    );
    await filters.getByRole('button', { name: 'Отмена' }).click();
    await filters.waitFor({ state: 'hidden' });
    await rowOf(granted.page, 'gps-objects', 'truck-1').getByRole('button', { name: 'Изменить' }).click();
    const dialog = granted.page.getByRole('dialog', { name: 'Объект «Truck 1»' });
    await dialog.getByLabel('Название').fill('Грузовик 1');
    await dialog.getByRole('button', { name: 'Сохранить' }).click();
    await granted.page.getByText('Объект «Грузовик 1» сохранён').waitFor();
    expect((await objects(page))[0]?.name).toBe('Грузовик 1');
    await granted.context.close();
    await context.close();
  });
});
