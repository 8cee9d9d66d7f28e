import { randomUUID } from 'node:crypto';
import type { ApiKeyMode } from '@shared/api/bots';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyRoute, modeAllows, requiredKeyMode } from '../server/src/platform/http/routes';
import { type ApiResponse, apiClient } from './helpers/api';
import { startTestApp, type TestApp } from './helpers/app';
import { createForm, createMember, createOrg, createTask, type Member } from './helpers/factories';

/**
 * The scope matrix: every route a key can reach (read from the route table, so a new route is
 * covered or fails here), called by keys of each mode limited to one form and one directory, on a
 * target inside the key's lists, one outside them, and one that does not exist. Outside must answer
 * exactly as unknown does, nothing outside may show in any answer, and nothing outside may change.
 */

const SECRET = 'OUT-SECRET';

let t: TestApp;
let admin: Member;
let colleague: Member;
// biome-ignore lint/suspicious/noExplicitAny: bodies are read loosely in tests.
let formIn: any;
// biome-ignore lint/suspicious/noExplicitAny: bodies are read loosely in tests.
let formOut: any;
// biome-ignore lint/suspicious/noExplicitAny: bodies are read loosely in tests.
let taskOut: any;
let directoryIn: string;
let directoryOut: string;
let rowOut: string;
const keys = new Map<ApiKeyMode, string>();

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
  colleague = await createMember(t, admin, { name: 'Colleague' });
  formIn = await createForm(admin, { name: 'Deliveries', fields: [{ name: 'Note', type: 'text' }] });
  formOut = await createForm(admin, { name: `${SECRET} form`, fields: [{ name: `${SECRET} field`, type: 'text' }] });
  taskOut = await createTask(admin, formOut.id, { title: `${SECRET} task`, description: SECRET });
  await admin.client.post(`/api/tasks/${taskOut.id}/messages`, { body: `${SECRET} message` });
  directoryIn = (await admin.client.post('/api/directories', { name: 'Depots', columns: [{ name: 'Name' }] })).body.id;
  directoryOut = (await admin.client.post('/api/directories', { name: `${SECRET} dir`, columns: [{ name: 'Name' }] }))
    .body.id;
  rowOut = (await admin.client.post(`/api/directories/${directoryOut}/rows`, { cells: [`${SECRET} row`] })).body.id;
  for (const mode of ['read', 'write', 'full'] as const) {
    const bot = await admin.client.post('/api/bots', {
      name: `Bot ${mode}`,
      apiAccess: { enabled: true, mode, formIds: [formIn.id], tableIds: [directoryIn] },
    });
    expect(bot.status, JSON.stringify(bot.body)).toBe(201);
    keys.set(mode, bot.body.apiKey.key);
  }
});
afterAll(() => t.close());

/** The records a call names: path parameters, and the ids its body or query refers to. */
interface Target {
  taskId: string;
  formId: string;
  statusId: string;
  directoryId: string;
  rowId: string;
  userId: string;
  automationId: string;
}

type Variant = 'in' | 'out' | 'unknown';

/** A target of each kind; `in` records are made fresh for every call, since calls change them. */
async function target(variant: Variant, route: AnyRoute): Promise<Target> {
  if (variant === 'out') {
    return {
      taskId: taskOut.id,
      formId: formOut.id,
      statusId: formOut.statuses[1].id,
      directoryId: directoryOut,
      rowId: rowOut,
      userId: colleague.userId,
      automationId: randomUUID(),
    };
  }
  if (variant === 'unknown') {
    return {
      taskId: randomUUID(),
      formId: randomUUID(),
      statusId: randomUUID(),
      directoryId: randomUUID(),
      rowId: randomUUID(),
      userId: colleague.userId,
      automationId: randomUUID(),
    };
  }
  const task = await createTask(admin, formIn.id, { title: 'Parcel' });
  await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: colleague.userId });
  const row = await admin.client.post(`/api/directories/${directoryIn}/rows`, { cells: ['Depot 1'] });
  // Only routes of an automation need one made.
  const automation = route.path.includes(':automationId')
    ? await admin.client.post('/api/automations', {
        name: `Automation ${randomUUID()}`,
        trigger: 'schedule',
        triggerConfig: { time: '09:00' },
        code: 'ctx.log(1)',
        enabled: false,
      })
    : { body: { id: randomUUID() } };
  return {
    taskId: task.id,
    formId: formIn.id,
    statusId: formIn.statuses[1].id,
    directoryId: directoryIn,
    rowId: row.body.id,
    userId: colleague.userId,
    automationId: automation.body.id,
  };
}

/** A valid body per operation (validation comes first: an invalid one would prove nothing). */
const bodies: Record<string, (target: Target) => unknown> = {
  createTask: (x) => ({ formId: x.formId, title: 'Made by a bot' }),
  createTaskBatch: () => ({ tasks: [{ title: 'Made by a bot' }] }),
  updateTask: () => ({ title: 'Changed by a bot' }),
  transitionTask: (x) => ({ statusId: x.statusId }),
  addAssignee: (x) => ({ userId: x.userId }),
  postTaskMessage: () => ({ body: 'Hello from a bot' }),
  createRow: () => ({ cells: ['Made by a bot'] }),
  updateRow: () => ({ cells: ['Changed by a bot'] }),
  moveRow: () => ({ parentId: null, position: 0 }),
  importRows: () => ({ csv: 'Name\nImported by a bot\n' }),
  createForm: () => ({ name: 'Form of a bot', fields: [] }),
  updateForm: () => ({ name: 'Deliveries' }),
  setWorkflow: () => {
    const [first, second, third] = formIn.statuses;
    return {
      statuses: formIn.statuses.map((s: { id: string; name: string; initial: boolean; final: boolean }) => ({
        id: s.id,
        name: s.name,
        initial: s.initial,
        final: s.final,
      })),
      transitions: [
        { from: first.id, to: second.id },
        { from: second.id, to: third.id },
      ],
    };
  },
  createDirectory: () => ({ name: 'Directory of a bot', columns: [{ name: 'Name' }] }),
  updateDirectory: () => ({ name: 'Depots' }),
  createAutomation: () => ({ name: 'Of a bot', trigger: 'schedule', triggerConfig: { time: '10:00' }, code: '' }),
  updateAutomation: () => ({ name: 'Changed by a bot' }),
  testAutomation: (x) => ({ taskId: x.taskId }),
};

/**
 * Administrators' data routes a key reaching every form and directory may use, and that a key with
 * lists is refused (403 `scope_denied`): a new form or directory is in no list, and an automation
 * acts on the whole organization.
 */
const unlimitedOnly = new Set([
  'createForm',
  'createDirectory',
  'listAutomations',
  'createAutomation',
  'getAutomation',
  'updateAutomation',
  'deleteAutomation',
  'listAutomationRuns',
  'testAutomation',
]);

/** What a call on an `in` record undid is put back, so later routes find the key's records live. */
async function undo(route: AnyRoute): Promise<void> {
  if (route.operationId === 'deleteForm') await admin.client.post(`/api/forms/${formIn.id}/restore`);
  if (route.operationId === 'deleteDirectory') await admin.client.post(`/api/directories/${directoryIn}/restore`);
}

/** A query per operation that filters by a record, so the filter is scoped too. */
const queries: Record<string, (target: Target) => string> = {
  listTasks: (x) => `?formId=${x.formId}`,
  searchTasks: () => `?q=${SECRET}`,
};

function request(route: AnyRoute, x: Target): { method: string; path: string; body: unknown } {
  let path: string = route.path;
  for (const [, name] of route.path.matchAll(/:(\w+)/g)) {
    const value = x[name as keyof Target];
    expect(value, `no target for :${name} of ${route.operationId}`).toBeDefined();
    path = path.replace(`:${name}`, value);
  }
  if (route.request?.body) expect(bodies, `no body for ${route.operationId}`).toHaveProperty(route.operationId);
  return {
    method: route.method.toUpperCase(),
    path: path + (queries[route.operationId]?.(x) ?? ''),
    body: bodies[route.operationId]?.(x),
  };
}

/** An answer with the target's ids replaced by their names, to compare answers about different records. */
function comparable(response: ApiResponse, x: Target): string {
  let text = JSON.stringify({ status: response.status, code: response.body?.code, detail: response.body?.detail });
  for (const [name, id] of Object.entries(x)) text = text.replaceAll(id, `<${name}>`);
  return text;
}

function keyClient(key: string) {
  const client = apiClient(t);
  return {
    call: (method: string, path: string, body: unknown) => client.request(method, path, body, { 'X-API-Key': key }),
  };
}

describe('API key scopes on every route a key can reach', () => {
  it('answers outside the key’s forms and directories exactly as for unknown records, leaks nothing and changes nothing', async () => {
    const routes = t.app.routes.filter((route) => requiredKeyMode(route) !== undefined);
    expect(routes.length).toBeGreaterThanOrEqual(30);
    expect(routes.map((route) => route.operationId)).toEqual(
      expect.arrayContaining(['getTask', 'updateTask', 'postTaskMessage', 'listForms', 'listRows', 'createRow']),
    );
    const leaks: string[] = [];
    const mismatches: string[] = [];
    const refused: string[] = [];
    const inScope: string[] = [];
    for (const mode of ['read', 'write', 'full'] as const) {
      const bot = keyClient(keys.get(mode) as string);
      for (const route of routes) {
        const needed = requiredKeyMode(route) as ApiKeyMode;
        const answers = {} as Record<Variant, { response: ApiResponse; target: Target }>;
        for (const variant of ['in', 'out', 'unknown'] as const) {
          const x = await target(variant, route);
          const { method, path, body } = request(route, x);
          const response = await bot.call(method, path, body);
          if (variant === 'in') await undo(route);
          answers[variant] = { response, target: x };
          const text = JSON.stringify(response.body);
          if (text.includes(SECRET)) leaks.push(`${mode} ${route.operationId} (${variant}): ${text.slice(0, 300)}`);
          if (variant === 'in' && [taskOut.id, formOut.id, directoryOut, rowOut].some((id) => text.includes(id))) {
            leaks.push(`${mode} ${route.operationId} (in) names an outside record: ${text.slice(0, 300)}`);
          }
        }
        const label = `${mode} ${route.method.toUpperCase()} ${route.path}`;
        const outside = comparable(answers.out.response, answers.out.target);
        const unknown = comparable(answers.unknown.response, answers.unknown.target);
        if (outside !== unknown) mismatches.push(`${label}: outside ${outside} vs unknown ${unknown}`);
        const inside = answers.in.response;
        if (!modeAllows(mode, needed) || unlimitedOnly.has(route.operationId)) {
          if (inside.status !== 403 || inside.body.code !== 'scope_denied') {
            refused.push(`${label}: ${inside.status} ${JSON.stringify(inside.body).slice(0, 200)}`);
          }
        } else if (inside.status >= 400 && !(inside.status === 404 && /deleted/i.test(inside.body.detail))) {
          inScope.push(`${label}: ${inside.status} ${JSON.stringify(inside.body).slice(0, 200)}`);
        }
      }
    }
    expect(leaks).toEqual([]);
    expect(mismatches).toEqual([]);
    expect(refused).toEqual([]);
    expect(inScope).toEqual([]);

    const task = await admin.client.get(`/api/tasks/${taskOut.id}`);
    expect(task.body).toMatchObject({ title: `${SECRET} task`, statusId: taskOut.statusId, assignees: [] });
    expect((await admin.client.get(`/api/tasks/${taskOut.id}/messages`)).body.items).toHaveLength(1);
    const rows = await admin.client.get(`/api/directories/${directoryOut}/rows`);
    expect(rows.body.items.map((row: { cells: string[] }) => row.cells)).toEqual([[`${SECRET} row`]]);
    expect((await admin.client.get(`/api/forms/${formOut.id}`)).body.name).toBe(`${SECRET} form`);
    // Some 2,000 calls: minutes on a busy 2-core machine.
  }, 240_000);

  it('lets a full key without lists use administrators’ data routes, never people, roles, bots or keys', async () => {
    const bot = await admin.client.post('/api/bots', {
      name: 'Administrator bot',
      apiAccess: { enabled: true, mode: 'full' },
    });
    const client = keyClient(bot.body.apiKey.key);
    const form = await client.call('POST', '/api/forms', { name: 'Made by a full key', fields: [] });
    expect(form.status, JSON.stringify(form.body)).toBe(201);
    expect((await client.call('PATCH', `/api/forms/${form.body.id}`, { name: 'Renamed by it' })).body.name).toBe(
      'Renamed by it',
    );
    const directory = await client.call('POST', '/api/directories', { name: 'Its table', columns: [{ name: 'A' }] });
    expect(directory.status).toBe(201);
    const automation = await client.call('POST', '/api/automations', {
      name: 'Its automation',
      trigger: 'schedule',
      triggerConfig: { time: '08:00' },
      code: 'ctx.log(1)',
    });
    expect(automation.status, JSON.stringify(automation.body)).toBe(201);
    expect((await admin.client.get(`/api/automations/${automation.body.id}`)).body.name).toBe('Its automation');
    for (const [method, path, body] of [
      ['GET', '/api/users', undefined],
      ['POST', '/api/roles', { name: 'Bots rule' }],
      ['POST', '/api/bots', { name: 'Another bot' }],
      ['GET', '/api/bots', undefined],
      ['GET', '/api/error-logs', undefined],
    ] as const) {
      const refused = await client.call(method, path, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.code).toBe('key_not_accepted');
    }
  });

  it('answers another organization’s records as unknown ones to a key without lists', async () => {
    const other = await createOrg(t);
    const foreignForm = await createForm(other);
    const foreignTask = await createTask(other, foreignForm.id, { title: 'FOREIGN task' });
    const bot = await admin.client.post('/api/bots', {
      name: 'Everything',
      apiAccess: { enabled: true, mode: 'full' },
    });
    const client = keyClient(bot.body.apiKey.key);
    const response = await client.call('GET', `/api/tasks/${foreignTask.id}`, undefined);
    expect(response.status).toBe(404);
    const list = await client.call('GET', '/api/tasks?limit=200', undefined);
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain('FOREIGN');
  });
});
