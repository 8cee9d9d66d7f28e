import { existsSync } from 'node:fs';
import {
  type Browser,
  type BrowserContext,
  type ConsoleMessage,
  chromium,
  type Locator,
  type Page,
} from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { startTestApp, type TestApp } from './app';
import { tokenFromOutbox } from './factories';

/**
 * How long a page is given to show what a test waits for. Generous: on a two-core machine two test
 * files share the cores with the server, PostgreSQL and Chromium; a wait only bounds a failure.
 */
export const UI_WAIT_MS = 30_000;
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Debian's Chromium, headless. Where it is missing the end-to-end suites skip with a loud message —
 * unless TEST_REQUIRE_CHROMIUM=1 (CI), where a missing browser fails the run.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.TEST_REQUIRE_CHROMIUM === '1') throw new Error(`Chromium is required but missing at ${CHROMIUM}`);
  console.warn(
    `\n[orbita tests] !!! Chromium not found at ${CHROMIUM}: end-to-end tests are skipped (apt-get install chromium).\n`,
  );
  return false;
}

/** Chromium for the tests; `webgl`: with WebGL drawn in software (SwiftShader) for the map. */
export async function launchChromium(options: { webgl?: boolean } = {}): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      ...(options.webgl ? ['--enable-unsafe-swiftshader', '--use-angle=swiftshader'] : ['--disable-gpu']),
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  // Pages ask for less motion, so the app skips its animations: a button never keeps a leaving
  // spinner (and its "loading" label) into the next step, however slow the machine.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = (options) => newContext({ reducedMotion: 'reduce', ...options });
  return browser;
}

/** Fills in the sign-in page (the page must be on it) and sends it. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A new English page of the app on its sign-in page, the form sent with `email` and `password`. */
export async function signInPage(browser: Browser, url: string, email: string, password: string) {
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  page.setDefaultTimeout(UI_WAIT_MS);
  await page.goto(`${url}/sign-in`);
  await signIn(page, email, password);
  return { context, page };
}

/** E-mails registered by this test file, per app: a second registration of one is refused by the server. */
const registered = new Map<string, Set<string>>();

/** A new English page of the app, registered as the first administrator of a new organization. */
export async function registeredPage(
  browser: Browser,
  url: string,
  who: { organization: string; name: string; email: string },
  options: { prepare?: (context: BrowserContext) => Promise<void> } = {},
) {
  const emails = registered.get(url) ?? new Set<string>();
  registered.set(url, emails);
  if (emails.has(who.email)) {
    throw new Error(`${who.email} is registered by another test of this file: give each test an e-mail of its own`);
  }
  emails.add(who.email);
  const context = await browser.newContext({ locale: 'en-US' });
  await options.prepare?.(context);
  const page = await context.newPage();
  page.setDefaultTimeout(UI_WAIT_MS);
  await page.goto(`${url}/register`);
  await page.getByLabel('Organization name').fill(who.organization);
  await page.getByLabel('Your name').fill(who.name);
  await page.getByLabel('E-mail').fill(who.email);
  await page.getByLabel('Password').fill('long enough password');
  await page.getByRole('button', { name: 'Create the organization' }).click();
  await page.getByTestId('organization-name').waitFor();
  return { context, page };
}

/** Calls the API from inside the page with the page's own session (for arranging data). */
export function apiInPage(page: Page, method: string, path: string, body?: unknown): Promise<unknown> {
  return page.evaluate(
    async ([m, p, b]) => {
      const { accessToken } = JSON.parse(localStorage.getItem('orbita.tokens') as string);
      const response = await fetch(p as string, {
        method: m as string,
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${accessToken}` },
        body: b === undefined ? undefined : JSON.stringify(b),
      });
      return response.status === 204 ? undefined : response.json();
    },
    [method, path, body] as const,
  );
}

/** A directory row as the API answers it. */
export interface DirectoryRow {
  id: string;
  parentId: string | null;
  cells: unknown[];
  parentRowIds: string[];
}

/** Creates a row of a directory through the API as the page's user (`extra`: `parentId`, `parentRowIds`). */
export async function addRow(
  page: Page,
  directoryId: string,
  cells: unknown[],
  extra: Record<string, unknown> = {},
): Promise<DirectoryRow> {
  return (await apiInPage(page, 'POST', `/api/directories/${directoryId}/rows`, { cells, ...extra })) as DirectoryRow;
}

/** A row of the directory's row tree on the page, by its label. */
export function rowNode(page: Page, label: string): Locator {
  return page.locator(`[data-testid="row-node"][data-label="${label}"]`);
}

/** Saves a screenshot of the page as a run artefact (test-artifacts/screenshots/<name>.png). */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `test-artifacts/screenshots/${name}.png`, fullPage: true });
}

/**
 * A browser suite's app and Chromium: started before its tests (when Chromium is there), stopped
 * after them. `available` is false where Chromium is missing: the suite skips, loudly.
 */
export function browserSuite(options: Parameters<typeof startTestApp>[0] = {}) {
  const suite = { available: chromiumAvailable() } as { available: boolean; t: TestApp; browser: Browser };
  beforeAll(async () => {
    if (!suite.available) return;
    suite.t = await startTestApp(options);
    suite.browser = await launchChromium();
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.t?.close();
  });
  return suite;
}

/** Waits until the page's replica says `state` (`data-replica`, e.g. "online ready"). */
export async function replicaIs(page: Page, state: string): Promise<void> {
  await page.waitForFunction((wanted) => document.documentElement.dataset.replica === wanted, state);
}

/** Waits until the service worker is active and controls the page (it then keeps the shell). */
export async function serviceWorkerInControl(page: Page): Promise<void> {
  await page.waitForFunction(async () => {
    await navigator.serviceWorker.ready;
    return navigator.serviceWorker.controller !== null;
  });
}

/** The replica's state as the page keeps it (status, pending changes, lost edits), for failure messages. */
export async function replicaState(page: Page): Promise<string> {
  const stored = await page.evaluate(() => [
    ['data-replica', document.documentElement.dataset.replica],
    ...Object.entries(localStorage).filter(([key]) => key.startsWith('orbita.replica.')),
  ]);
  return `replica state: ${JSON.stringify(stored)}`;
}

/**
 * Waits for `locator`; when it does not come, prints what the page said (console), what its
 * replica keeps in localStorage and the visible text, so a failure in CI can be understood.
 */
export async function waitOrExplain(page: Page, locator: Locator): Promise<void> {
  const said: string[] = [];
  const listen = (message: ConsoleMessage) => said.push(`${message.type()}: ${message.text()}`);
  page.on('console', listen);
  try {
    await locator.waitFor();
  } catch (error) {
    console.error(
      `page console:\n${said.slice(-40).join('\n')}\n${await replicaState(page)}\nvisible text:\n${((await page.locator('body').textContent()) ?? '').slice(0, 2000)}`,
    );
    throw error;
  } finally {
    page.off('console', listen);
  }
}

/**
 * Picks an option of the select labelled `label` from its open drop-down (closed ones stay in the
 * DOM). The select itself is clicked: an empty searchable select has no visible input to click.
 */
export async function choose(page: Page, label: string, option: string) {
  await page.locator('.ant-select', { has: page.getByLabel(label, { exact: true }) }).click();
  await page
    .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden)')
    .getByTitle(option, { exact: true })
    .click();
}

/**
 * A colleague invited by the administrator of `page` who has joined (set the password
 * `<name> joins the crew`): their id.
 */
export async function joinedPerson(t: TestApp, page: Page, name: string, email: string): Promise<string> {
  const { id } = (await apiInPage(page, 'POST', '/api/users', { email, name })) as { id: string };
  // Invited people join by setting a password: only then can they be assigned.
  const token = await tokenFromOutbox(t, email);
  const joined = await fetch(`${t.url}/api/auth/reset-password`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token, password: `${name} joins the crew` }),
  });
  expect(joined.status).toBe(204);
  return id;
}

/** What the browser of `page` holds of `userId`: IndexedDB databases and remembered keys naming them, sorted. */
export function heldBy(page: Page, userId: string): Promise<string[]> {
  return page.evaluate(async (id) => {
    const databases = (await indexedDB.databases()).map((database) => database.name ?? '');
    const keys = Object.keys(localStorage).filter((key) => key.includes(id) || localStorage.getItem(key)?.includes(id));
    return [...databases.filter((name) => name.includes(id)), ...keys].sort();
  }, userId);
}

/** The user signed in on `page`, as the app remembers them. */
export async function signedInUserId(page: Page): Promise<string> {
  const me = JSON.parse((await page.evaluate(() => localStorage.getItem('orbita.me'))) as string);
  return (me as { user: { id: string } }).user.id;
}

/** What the browser of `page` holds of its signed-in user: IndexedDB databases and remembered keys. */
export async function heldOnDevice(page: Page): Promise<() => Promise<string[]>> {
  const userId = await signedInUserId(page);
  return () => heldBy(page, userId);
}
