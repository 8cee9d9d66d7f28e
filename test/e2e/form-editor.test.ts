import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  apiInPage,
  browserSuite,
  choose,
  registeredPage,
  saveScreenshot,
  UI_WAIT_MS,
  waitOrExplain,
} from '../helpers/browser';

const suite = browserSuite();

interface SavedForm {
  id: string;
  name: string;
  fields: {
    id: string;
    name: string;
    type: string;
    required: boolean;
    options: string[] | null;
    allow_multiple: boolean;
    directoryId: string | null;
    displayColumn: string | null;
  }[];
  statuses: { id: string; name: string; initial: boolean; final: boolean }[];
  transitions: { from: string; to: string }[];
}

/** The allowed moves of a form as `from → to` status names, sorted. */
function moveNames(form: SavedForm): string[] {
  const name = (id: string) => form.statuses.find((s) => s.id === id)?.name;
  return form.transitions.map((m) => `${name(m.from)} → ${name(m.to)}`).sort();
}

async function formNamed(page: Page, name: string): Promise<SavedForm> {
  const list = (await apiInPage(page, 'GET', '/api/forms')) as { items: SavedForm[] };
  const form = list.items.find((f) => f.name === name);
  if (!form) throw new Error(`No form ${name}`);
  return form;
}

describe.skipIf(!suite.available)('the form editor', { timeout: 120_000 }, () => {
  it('builds a form with fields and a workflow in the suite.browser, and its task is filled in and moved on the task page', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Boiler House',
      name: 'Anna',
      email: 'anna@example.org',
    });
    await page.getByRole('menuitem', { name: 'Forms' }).click();
    await page.getByText('No forms yet. Create the first one.').waitFor();
    await page.getByRole('button', { name: 'New form' }).click();
    await page.getByRole('heading', { name: 'New form' }).waitFor();

    await page.getByLabel('Form name').fill('Inspections');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByLabel('Name of field 1').fill('Note');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByLabel('Name of field 2').fill('Pressure');
    await choose(page, 'Type of field 2', 'Number');
    await page.getByLabel('Field 2 is required').check();
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByLabel('Name of field 3').fill('Priority');
    await choose(page, 'Type of field 3', 'Select');
    await page.getByLabel('Options of field 3').fill('Low');
    await page.getByLabel('Options of field 3').press('Enter');
    await page.getByLabel('Options of field 3').fill('High');
    await page.getByLabel('Options of field 3').press('Enter');
    await page.keyboard.press('Escape');
    // The required flag would keep the task dialog (title only) from creating a task: taken off again.
    await page.getByLabel('Field 2 is required').uncheck();

    // A new form starts with New → In progress → Done; a review step is added between the last two.
    expect(await page.getByLabel('Name of status 1').inputValue()).toBe('New');
    await page.getByRole('button', { name: 'Add status' }).click();
    await page.getByLabel('Name of status 4').fill('Review');
    await page.getByLabel('Move status 4 up').click();
    expect(await page.getByLabel('Name of status 3').inputValue()).toBe('Review');
    await page.getByLabel('Move from In progress to Review').check();
    await page.getByLabel('Move from Review to Done').check();
    await page.getByLabel('Move from In progress to Done').uncheck();
    await page.getByLabel('Move from New to Done').uncheck();
    await page.getByText('Unsaved changes').waitFor();
    await saveScreenshot(page, 'form-editor');

    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Form created').waitFor();
    await page.getByRole('heading', { name: 'Form “Inspections”' }).waitFor();
    expect(page.url()).toMatch(/\/forms\/[0-9a-f-]{36}\/edit$/);
    expect(await page.getByText('Unsaved changes').count()).toBe(0);

    const form = await formNamed(page, 'Inspections');
    expect(form.fields.map((f) => [f.name, f.type])).toEqual([
      ['Note', 'text'],
      ['Pressure', 'number'],
      ['Priority', 'select'],
    ]);
    expect(form.fields[2]?.options).toEqual(['Low', 'High']);
    expect(form.statuses.map((s) => s.name)).toEqual(['New', 'In progress', 'Review', 'Done']);
    expect(form.statuses.find((s) => s.initial)?.name).toBe('New');
    expect(form.statuses.find((s) => s.final)?.name).toBe('Done');
    expect(moveNames(form)).toEqual([
      'Done → In progress',
      'In progress → New',
      'In progress → Review',
      'New → In progress',
      'Review → Done',
    ]);

    // A task of the new form, from the registry through the task list.
    await page.getByRole('menuitem', { name: 'Forms' }).click();
    await page.getByRole('link', { name: 'Inspections', exact: true }).click();
    await page.getByRole('button', { name: 'New task' }).click();
    await page.getByLabel('Task title').fill('Check boiler 3');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('link', { name: 'Check boiler 3' }).click();
    await waitOrExplain(page, page.getByRole('heading', { name: 'Check boiler 3' }));
    expect(await page.getByTestId('task-status').textContent()).toBe('New');

    await page.getByLabel('Note', { exact: true }).fill('Gauge replaced');
    await page.getByLabel('Pressure', { exact: true }).fill('2 500');
    await choose(page, 'Priority', 'High');
    await page.getByRole('button', { name: 'Save' }).click();
    // The notice comes up at the bottom of the window, clear of the header's sections and the
    // page's toolbar (at the top it covered both).
    const saved = page.locator('.ant-message-notice').filter({ hasText: 'Saved' });
    await saved.waitFor();
    const notice = await saved.boundingBox();
    const window = page.viewportSize();
    expect(notice && window).toBeTruthy();
    if (notice && window) {
      expect(notice.y).toBeGreaterThan(window.height / 2);
      expect(notice.y + notice.height).toBeLessThanOrEqual(window.height);
    }
    await page.getByTestId('history-entry').nth(2).waitFor();
    const history = await page.getByTestId('history-entry').allTextContents();
    expect(history.some((entry) => entry.startsWith('Note: — → Gauge replaced · Anna'))).toBe(true);
    expect(history.some((entry) => entry.startsWith('Pressure: — → 2500 · Anna'))).toBe(true);
    expect(history.some((entry) => entry.startsWith('Priority: — → High · Anna'))).toBe(true);

    // Only the moves set up in the editor are offered: New → In progress → Review.
    await page.getByLabel('Move to status').click();
    const offered = page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option');
    await offered.first().waitFor();
    expect(await offered.allTextContents()).toEqual(['In progress']);
    await offered.first().click();
    await page.getByTestId('task-status').filter({ hasText: 'In progress' }).waitFor();
    await choose(page, 'Move to status', 'Review');
    await page.getByTestId('task-status').filter({ hasText: 'Review' }).waitFor();
    await page.getByTestId('audit-entry').filter({ hasText: 'status changed: In progress → Review · Anna' }).waitFor();
    await page.getByTestId('audit-entry').filter({ hasText: 'status changed: New → In progress · Anna' }).waitFor();
    await page.getByTestId('audit-entry').filter({ hasText: 'edited: Note, Pressure, Priority · Anna' }).waitFor();
    await saveScreenshot(page, 'task-page');
    await context.close();
  });

  it('edits an existing form: a renamed status keeps its id, a forbidden move is gone, fields of every kind persist', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Permits Ltd',
      name: 'Boris',
      email: 'boris@example.org',
    });
    const sites = (await apiInPage(page, 'POST', '/api/directories', {
      name: 'Sites',
      columns: [{ name: 'Code' }, { name: 'Title' }],
    })) as { id: string };
    const created = (await apiInPage(page, 'POST', '/api/forms', {
      name: 'Permits',
      fields: [
        { name: 'Comment', type: 'text' },
        { name: 'Obsolete', type: 'date' },
      ],
    })) as SavedForm;
    const before = created.statuses.map((s) => s.id);
    expect(moveNames(created)).toContain('New → Done');

    await page.getByRole('menuitem', { name: 'Forms' }).click();
    await page.getByRole('link', { name: 'Edit form Permits' }).click();
    await page.getByRole('heading', { name: 'Form “Permits”' }).waitFor();
    expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);

    await page.getByLabel('Name of status 2').fill('Working');
    await page.getByLabel('Move from New to Done').uncheck();
    await page.getByLabel('Remove field 2').click();
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByLabel('Name of field 2').fill('Site');
    await choose(page, 'Type of field 2', 'Directory');
    await choose(page, 'Directory of field 2', 'Sites');
    await choose(page, 'Display column of field 2', 'Title');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByLabel('Name of field 3').fill('Crew');
    await choose(page, 'Type of field 3', 'User');
    await page.getByLabel('Field 3 takes several values').check();
    await page.getByLabel('Field 3 is required').check();
    await page.getByLabel('Move field 3 up').click();
    await page.getByLabel('Form name').fill('Work permits');

    // Leaving with unsaved changes asks first; staying keeps the edits.
    await page.getByRole('menuitem', { name: 'Tasks' }).click();
    await page.getByRole('dialog', { name: 'Leave without saving?' }).waitFor();
    await page.getByRole('button', { name: 'Stay' }).click();
    expect(page.url()).toMatch(/\/edit$/);
    expect(await page.getByLabel('Form name').inputValue()).toBe('Work permits');

    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Changes saved').waitFor();
    await page.getByRole('heading', { name: 'Form “Work permits”' }).waitFor();

    const saved = (await apiInPage(page, 'GET', `/api/forms/${created.id}`)) as SavedForm;
    expect(saved.name).toBe('Work permits');
    expect(saved.statuses.map((s) => s.id)).toEqual(before);
    expect(saved.statuses.map((s) => s.name)).toEqual(['New', 'Working', 'Done']);
    expect(moveNames(saved)).not.toContain('New → Done');
    expect(moveNames(saved)).toContain('New → Working');
    expect(saved.fields.map((f) => [f.name, f.type])).toEqual([
      ['Comment', 'text'],
      ['Crew', 'user'],
      ['Site', 'table'],
    ]);
    expect(saved.fields[0]?.id).toBe(created.fields[0]?.id);
    expect(saved.fields[1]).toMatchObject({ required: true, allow_multiple: true });
    expect(saved.fields[2]).toMatchObject({ directoryId: sites.id, displayColumn: 'Title' });

    // A second save right away sends the new fields with the ids the server gave them: no duplicates.
    await page.getByLabel('Name of field 3').fill('Work site');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Unsaved changes').waitFor({ state: 'detached' });
    const again = (await apiInPage(page, 'GET', `/api/forms/${created.id}`)) as SavedForm;
    expect(again.fields.map((f) => f.name)).toEqual(['Comment', 'Crew', 'Work site']);
    expect(again.fields[2]?.id).toBe(saved.fields[2]?.id);

    // Nothing is pending now: leaving does not ask.
    await page.getByRole('menuitem', { name: 'Tasks' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    expect(await page.getByRole('dialog', { name: 'Leave without saving?' }).count()).toBe(0);
    await context.close();
  });

  it('shows the server’s problems: field errors beside the field, a refused status removal in words', async () => {
    const { context, page } = await registeredPage(suite.browser, suite.t.url, {
      organization: 'Strict Co',
      name: 'Clara',
      email: 'clara@example.org',
    });
    await page.goto(`${suite.t.url}/forms/new`);
    await page.getByRole('heading', { name: 'New form' }).waitFor();
    await page.getByLabel('Form name').fill('Orders');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByLabel('Name of field 1').fill('Kind');
    await choose(page, 'Type of field 1', 'Select');
    await page.getByLabel('Name of status 3').fill('new');
    await page.getByRole('button', { name: 'Save' }).click();
    const alert = page.getByTestId('save-problem');
    await alert.waitFor();
    // The server checks the workflow before the fields and stops at the first part that fails.
    expect(await alert.textContent()).toContain('The workflow is not valid');
    expect(await page.getByTestId('inline-problem').allTextContents()).toEqual(['This name is already used']);
    await page.getByLabel('Name of status 3').fill('Done');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('save-problem').filter({ hasText: 'Some fields are not valid' }).waitFor();
    expect(await page.getByTestId('inline-problem').allTextContents()).toEqual(['List the options']);
    expect(await formsCount(page)).toBe(0);

    // A status that a task is in cannot be removed; the server says which.
    const form = (await apiInPage(page, 'POST', '/api/forms', { name: 'Visits' })) as SavedForm;
    await apiInPage(page, 'POST', '/api/tasks', { formId: form.id, title: 'Visit 1' });
    await page.getByRole('link', { name: 'Back to forms' }).click();
    await page.getByRole('dialog', { name: 'Leave without saving?' }).waitFor();
    await page.getByRole('button', { name: 'Leave' }).click();
    await page.getByRole('link', { name: 'Edit form Visits' }).click();
    await page.getByRole('heading', { name: 'Form “Visits”' }).waitFor();
    await page.getByLabel('Form name').fill('Visits renamed');
    await page.getByLabel('Remove status 1').click();
    // The next status takes over as initial.
    expect(await page.getByLabel('Status 1 is initial').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('save-problem').filter({ hasText: 'Tasks are in status "New"' }).waitFor();
    const unchanged = (await apiInPage(page, 'GET', `/api/forms/${form.id}`)) as SavedForm;
    expect(unchanged.statuses.map((s) => s.name)).toEqual(['New', 'In progress', 'Done']);
    // One save is all or nothing: the new name did not land either.
    expect(unchanged.name).toBe('Visits');

    // Deleting the form leaves the editor without asking about the edits it drops.
    await page.getByRole('button', { name: 'Delete form' }).click();
    await page.locator('.ant-popconfirm').getByRole('button', { name: 'Delete form' }).click();
    await page.getByText('Form deleted').waitFor();
    await page.getByRole('heading', { name: 'Forms' }).waitFor();
    expect(await page.getByRole('dialog', { name: 'Leave without saving?' }).count()).toBe(0);
    expect(await formsCount(page)).toBe(0);
    // Taken back from the notice, the form is listed again as it was.
    await page.getByTestId('form-deleted').getByRole('button', { name: 'Undo' }).click();
    await page.getByText('The form “Visits” is back').waitFor();
    await expect.poll(() => formsCount(page)).toBe(1);
    expect(((await apiInPage(page, 'GET', `/api/forms/${form.id}`)) as SavedForm).statuses.map((s) => s.name)).toEqual([
      'New',
      'In progress',
      'Done',
    ]);
    await context.close();
  });
});

describe.skipIf(!suite.available)('the form editor in Russian', { timeout: 90_000 }, () => {
  it('names its controls and the starting statuses in Russian', async () => {
    const context = await suite.browser.newContext({ locale: 'ru-RU' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_WAIT_MS);
    await page.goto(`${suite.t.url}/register`);
    await page.getByLabel('Название организации').fill('Котельная');
    await page.getByLabel('Ваше имя').fill('Ирина');
    await page.getByLabel('Эл. почта').fill('irina@example.org');
    await page.getByLabel('Пароль').fill('long enough password');
    await page.getByRole('button', { name: 'Создать организацию' }).click();
    await page.getByTestId('organization-name').waitFor();
    await page.getByRole('menuitem', { name: 'Формы' }).click();
    await page.getByRole('button', { name: 'Новая форма' }).click();
    await page.getByRole('heading', { name: 'Новая форма' }).waitFor();
    await page.getByRole('button', { name: 'Добавить поле' }).click();
    await choose(page, 'Тип поля 1', 'Справочник');
    await page.getByText('В организации нет справочников.').waitFor();
    const statuses = [1, 2, 3].map((n) => page.getByLabel(`Название статуса ${n}`).inputValue());
    expect(await Promise.all(statuses)).toEqual(['Новая', 'В работе', 'Готово']);
    expect(await page.getByLabel('Переход из «Новая» в «Готово»').isChecked()).toBe(true);
    await saveScreenshot(page, 'form-editor-ru');
    await context.close();
  });
});

async function formsCount(page: Page): Promise<number> {
  return ((await apiInPage(page, 'GET', '/api/forms')) as { items: unknown[] }).items.length;
}
