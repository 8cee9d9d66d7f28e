import type { Page } from 'playwright-core';
import { afterEach } from 'vitest';
import type { ModuleFactory } from '../../server/src/platform/module';
import { apiInPage, browserSuite, registeredPage, replicaIs } from './browser';

/**
 * The browser suite of the offline tests (a server that streams changes every 100 ms) and what they
 * share: calls to the server from outside the page, arranged tasks, the page's sync connection
 * routed through the test.
 */
export function offlineSuite() {
  // Whether the server hears sign-outs: a gate before every route, shut by `serverHearsSignOuts(false)`.
  let signOutsHeard = true;
  const signOutGate: ModuleFactory = () => ({
    name: 'sign-out-gate',
    routes: [],
    middleware: [
      (request, response, next) => {
        if (signOutsHeard || request.path !== '/api/auth/logout') return next();
        response.status(503).json({ title: 'Sign-outs are not heard in this test', status: 503 });
      },
    ],
  });
  const suite = browserSuite({ config: { syncPollMs: 100 }, extraModules: [signOutGate] });
  afterEach(() => {
    signOutsHeard = true;
  });

  /** Calls the API from the test (outside the suite.browser, whose network may be cut) with the page's session. */
  async function serverCall(page: Page, method: string, path: string, body?: unknown) {
    const { accessToken } = JSON.parse(
      (await page.evaluate(() => localStorage.getItem('orbita.tokens'))) as string,
    ) as {
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
  /**
   * Lets the server hear sign-outs, or answer them 503 as a server that cannot take them: unlike a
   * cut in the browser, this holds for requests a page makes while it closes, which escape the
   * browser's emulation of the cut network and its routes.
   */
  function serverHearsSignOuts(heard: boolean): void {
    signOutsHeard = heard;
  }

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

  return {
    suite,
    serverCall,
    sessionAnswers,
    serverHearsSignOuts,
    holdSignOuts,
    arrange,
    assignedOnServer,
    onTaskPage,
    taskList,
    replicaCells,
    toggleParentRows,
    syncThroughTest,
  };
}
