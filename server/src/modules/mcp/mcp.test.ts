import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createForm, createOrg, createTask, type Member } from '../../../../test/helpers/factories';
import { jobsDone } from '../../../../test/helpers/jobs';
import { MCP_PATH } from '.';
import { mcpTools, offered } from './mcp.tools';

let t: TestApp;
let admin: Member;
// biome-ignore lint/suspicious/noExplicitAny: bodies are read loosely in tests.
let inForm: any;
// biome-ignore lint/suspicious/noExplicitAny: bodies are read loosely in tests.
let outForm: any;
let inTable: string;
let outTable: string;
const open: Client[] = [];

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
  inForm = await createForm(admin, { name: 'Repairs', fields: [{ name: 'Note', type: 'text' }] });
  outForm = await createForm(admin, { name: 'Payroll', fields: [{ name: 'Sum', type: 'number' }] });
  const table = async (name: string) => {
    const made = await admin.client.post('/api/directories', { name, columns: [{ name: 'Name' }] });
    await admin.client.post(`/api/directories/${made.body.id}/rows`, { cells: [`${name} row`] });
    return made.body.id as string;
  };
  inTable = await table('Quays');
  outTable = await table('Salaries');
}, 60_000);
afterAll(async () => {
  await Promise.all(open.map((client) => client.close().catch(() => undefined)));
  await t.close();
});

/** A bot's raw key of `mode`, limited to the "in" form and directory unless `unlimited`. */
async function keyOf(mode: 'read' | 'write' | 'full', unlimited = false, member = admin): Promise<string> {
  const lists = unlimited ? {} : { formIds: [inForm.id], tableIds: [inTable] };
  const created = await member.client.post('/api/bots', {
    name: `Agent ${mode} ${Math.random()}`,
    apiAccess: { enabled: true, mode, ...lists },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.apiKey.key as string;
}

/** The official MCP client over Streamable HTTP, authenticated by `key`. */
async function agent(key: string): Promise<Client> {
  const client = new Client({ name: 'orbita-test-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}${MCP_PATH}`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  open.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
  return { isError: result.isError === true, text, value: result.isError ? undefined : JSON.parse(text) };
}

describe('the MCP endpoint', () => {
  it('offers each key the tools its mode allows, each with a JSON Schema and a description', async () => {
    const names = async (mode: 'read' | 'write' | 'full') =>
      (await (await agent(await keyOf(mode, true))).listTools()).tools.map((tool) => tool.name).sort();
    const byNeed = (...needs: string[]) =>
      mcpTools
        .filter((tool) => needs.includes(tool.needs))
        .map((tool) => tool.name)
        .sort();
    expect(await names('read')).toEqual(byNeed('read'));
    expect(await names('read')).not.toContain('create_task');
    expect(await names('write')).toEqual(byNeed('read', 'write'));
    const full = await (await agent(await keyOf('full', true))).listTools();
    expect(full.tools.map((tool) => tool.name).sort()).toEqual(byNeed('read', 'write', 'full'));
    for (const name of ['get_organization_context', 'list_forms', 'get_form', 'search_tasks', 'get_task']) {
      expect(full.tools.map((tool) => tool.name)).toContain(name);
    }
    const create = full.tools.find((tool) => tool.name === 'create_task');
    expect(create?.description).toMatch(/field ids/);
    expect(create?.inputSchema).toMatchObject({
      type: 'object',
      properties: { formId: expect.any(Object), title: expect.any(Object) },
      required: expect.arrayContaining(['formId', 'title']),
    });
  });

  it('reads only what the key’s forms and directories reach, naming a refused target', async () => {
    const inTask = await createTask(admin, inForm.id, { title: 'Leaking valve' });
    const outTask = await createTask(admin, outForm.id, { title: 'Leaking salary' });
    const reader = await agent(await keyOf('read'));

    const context = (await call(reader, 'get_organization_context')).value;
    expect(context.key).toEqual({ mode: 'read', formIds: [inForm.id], tableIds: [inTable] });
    expect(context.forms.map((f: { id: string }) => f.id)).toEqual([inForm.id]);
    expect(context.directories.map((d: { id: string }) => d.id)).toEqual([inTable]);
    expect((await call(reader, 'list_forms')).value.items.map((f: { id: string }) => f.id)).toEqual([inForm.id]);
    expect((await call(reader, 'get_form', { formId: inForm.id })).value.form.name).toBe('Repairs');
    const refusedForm = await call(reader, 'get_form', { formId: outForm.id });
    expect(refusedForm).toMatchObject({ isError: true, text: expect.stringContaining(outForm.id) });

    const found = (await call(reader, 'search_tasks', { query: 'Leaking' })).value.items;
    expect(found.map((task: { id: string }) => task.id)).toEqual([inTask.id]);
    const listed = (await call(reader, 'search_tasks', { formId: inForm.id })).value.items;
    expect(listed.map((task: { id: string }) => task.id)).toContain(inTask.id);
    expect((await call(reader, 'get_task', { taskId: inTask.id })).value.title).toBe('Leaking valve');
    const refusedTask = await call(reader, 'get_task', { taskId: outTask.id });
    expect(refusedTask).toMatchObject({ isError: true, text: expect.stringContaining(outTask.id) });
    expect(refusedTask.text).not.toContain('salary');

    expect((await call(reader, 'list_directories')).value.items.map((d: { id: string }) => d.id)).toEqual([inTable]);
    const rows = (await call(reader, 'list_directory_rows', { directoryId: inTable })).value.items;
    expect(rows.map((row: { cells: string[] }) => row.cells[0])).toEqual(['Quays row']);
    const refusedRows = await call(reader, 'list_directory_rows', { directoryId: outTable });
    expect(refusedRows).toMatchObject({ isError: true, text: expect.stringContaining(outTable) });
    expect(refusedRows.text).not.toContain('Salaries');

    // A writing tool is not offered to a read key: calling it anyway is refused, nothing written.
    const attempt = await reader
      .callTool({ name: 'create_task', arguments: { formId: inForm.id, title: 'Sneaky' } })
      .then((result) => result.isError === true)
      .catch(() => true);
    expect(attempt).toBe(true);
    expect((await admin.client.get('/api/tasks/search?q=Sneaky')).body.items).toEqual([]);
  });

  it('writes through the same services as REST, as the bot: transitions fire automations', async () => {
    const writer = await agent(await keyOf('write'));
    const full = await agent(await keyOf('full', true));
    const working = inForm.statuses.find((s: { initial: boolean; final: boolean }) => !s.initial && !s.final);
    const note = inForm.fields[0].id as string;

    const automation = await call(full, 'create_automation', {
      name: 'Note the move',
      trigger: 'task.status_changed',
      triggerConfig: { statusId: working.id, formId: inForm.id },
      code: `await ctx.comment('moved by ' + (ctx.trigger.toStatusId === '${working.id}' ? 'the agent' : '?'));`,
    });
    expect(automation.isError, automation.text).toBe(false);
    const scheduled = await call(full, 'update_automation', {
      automationId: automation.value.id,
      name: 'Note the move (renamed)',
    });
    expect(scheduled.value.name).toBe('Note the move (renamed)');
    const daily = await call(full, 'create_automation', {
      name: 'Morning check',
      trigger: 'schedule',
      triggerConfig: { time: '09:30' },
      code: 'ctx.log("morning")',
      enabled: false,
    });
    expect(daily.value).toMatchObject({ trigger: 'schedule', triggerConfig: { time: '09:30' } });

    const created = await call(writer, 'create_task', {
      formId: inForm.id,
      title: 'Broken pump',
      fields: { [note]: 'from the agent' },
    });
    expect(created.isError, created.text).toBe(false);
    const taskId = created.value.id as string;
    const updated = await call(writer, 'update_task_fields', { taskId, fields: { [note]: 'checked' } });
    expect(updated.value.fields[note]).toBe('checked');
    const moved = await call(writer, 'transition_task', { taskId, statusId: working.id, comment: 'On it' });
    expect(moved.value.statusId).toBe(working.id);
    expect((await call(writer, 'add_comment', { taskId, text: 'Parts ordered' })).isError).toBe(false);
    await jobsDone(t);

    const messages = (await admin.client.get(`/api/tasks/${taskId}/messages`)).body.items;
    expect(messages.map((m: { body: string }) => m.body)).toEqual(
      expect.arrayContaining(['Parts ordered', 'moved by the agent']),
    );
    const audit = (await admin.client.get(`/api/tasks/${taskId}/audit`)).body.items;
    expect(audit.find((entry: { action: string }) => entry.action === 'created')).toMatchObject({
      actorUserId: null,
      botId: expect.any(String),
    });

    // Outside the key's forms: refused naming the form, nothing created.
    const refused = await call(writer, 'create_task', { formId: outForm.id, title: 'Elsewhere' });
    expect(refused).toMatchObject({ isError: true, text: expect.stringContaining(outForm.id) });
    // A limited full key may not write automations (they act on the whole organization).
    const limitedFull = await agent(await keyOf('full'));
    const denied = await call(limitedFull, 'create_automation', {
      name: 'x',
      trigger: 'schedule',
      triggerConfig: { time: '10:00' },
      code: '',
    });
    expect(denied).toMatchObject({ isError: true, text: expect.stringContaining('scope_denied') });
  });

  it('answers a request that is not JSON-RPC with the protocol’s error and a request without a valid key with 401', async () => {
    const key = await keyOf('read');
    const post = (body: string, headers: Record<string, string> = { Authorization: `Bearer ${key}` }) =>
      fetch(`${t.url}${MCP_PATH}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        body,
      });
    const garbage = await post('{not json');
    expect(garbage.status).toBeGreaterThanOrEqual(400);
    expect(garbage.status).toBeLessThan(500);
    expect(await garbage.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    const notRpc = await post(JSON.stringify({ hello: 'world' }));
    expect(notRpc.status).toBeLessThan(500);
    expect((await notRpc.json()).error).toBeDefined();

    const anonymous = await post('{}', {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const malformed = await post('{}', { 'X-API-Key': 'orb_nonsense' });
    expect(malformed.status).toBe(401);
    expect((await malformed.json()).code).toBe('invalid_api_key');
  });

  it('is documented for agents’ owners: key authentication and a ready client configuration', async () => {
    const document = await (await fetch(`${t.url}/api/openapi.json`)).json();
    expect(document.paths[MCP_PATH].post.security).toEqual([{ apiKey: [] }]);
    expect(document.info.description).toContain('X-API-Key: orb_');
    expect(document.info.description).toMatch(/"mcpServers"[\s\S]*"url": "https:\/\/[^"]+\/api\/mcp"/);
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', name: 'X-API-Key' });
  });

  it('keeps each organization’s key inside its organization', async () => {
    const task = await createTask(admin, inForm.id, { title: 'Ours' });
    const other = await createOrg(t, 'Elsewhere');
    const theirs = await agent(await keyOf('full', true, other));
    const refused = await call(theirs, 'get_task', { taskId: task.id });
    expect(refused.isError).toBe(true);
    expect((await call(theirs, 'search_tasks', { query: 'Ours' })).value.items).toEqual([]);
    const context = (await call(theirs, 'get_organization_context')).value;
    expect(context.organization.name).toBe('Elsewhere');
    expect(context.forms).toEqual([]);
  });
});

describe('the MCP tools’ scope matrix', () => {
  const SECRET = 'MCP-OUT-SECRET';

  /** The records a tool call names. */
  interface Target {
    taskId: string;
    formId: string;
    statusId: string;
    directoryId: string;
    automationId: string;
  }
  type Variant = 'in' | 'out' | 'unknown';

  /** Arguments per tool (a new tool without them fails here). */
  const args: Record<string, (x: Target) => Record<string, unknown>> = {
    get_organization_context: () => ({}),
    list_forms: () => ({}),
    get_form: (x) => ({ formId: x.formId }),
    search_tasks: (x) => ({ formId: x.formId }),
    get_task: (x) => ({ taskId: x.taskId }),
    create_task: (x) => ({ formId: x.formId, title: 'Made by an agent' }),
    update_task_fields: (x) => ({ taskId: x.taskId, title: 'Changed by an agent' }),
    transition_task: (x) => ({ taskId: x.taskId, statusId: x.statusId }),
    add_comment: (x) => ({ taskId: x.taskId, text: 'Hello from an agent' }),
    list_directories: () => ({}),
    list_directory_rows: (x) => ({ directoryId: x.directoryId }),
    create_automation: () => ({ name: 'Of an agent', trigger: 'schedule', triggerConfig: { time: '07:00' }, code: '' }),
    update_automation: (x) => ({ automationId: x.automationId, name: 'Renamed by an agent' }),
  };
  /** Tools a key with lists is refused (an automation acts on the whole organization). */
  const unlimitedOnly = new Set(['create_automation', 'update_automation']);

  it('answers outside the key’s lists exactly as for unknown records, for every tool and mode, and leaks nothing', async () => {
    const form = await createForm(admin, { name: 'Inspections' });
    const secretForm = await createForm(admin, { name: `${SECRET} form` });
    const secretTask = await createTask(admin, secretForm.id, { title: `${SECRET} task` });
    const secretTable = await admin.client.post('/api/directories', {
      name: `${SECRET} dir`,
      columns: [{ name: 'A' }],
    });
    await admin.client.post(`/api/directories/${secretTable.body.id}/rows`, { cells: [`${SECRET} row`] });
    const lists = { formIds: [form.id], tableIds: [inTable] };
    const target = async (variant: Variant): Promise<Target> => {
      if (variant === 'out') {
        return {
          taskId: secretTask.id,
          formId: secretForm.id,
          statusId: secretForm.statuses[1].id,
          directoryId: secretTable.body.id,
          automationId: crypto.randomUUID(),
        };
      }
      if (variant === 'unknown') {
        const id = () => crypto.randomUUID();
        return { taskId: id(), formId: id(), statusId: id(), directoryId: id(), automationId: id() };
      }
      const task = await createTask(admin, form.id, { title: 'Inspect crane' });
      const automation = await admin.client.post('/api/automations', {
        name: `Automation ${crypto.randomUUID()}`,
        trigger: 'schedule',
        triggerConfig: { time: '06:00' },
        code: '',
        enabled: false,
      });
      return {
        taskId: task.id,
        formId: form.id,
        statusId: form.statuses[1].id,
        directoryId: inTable,
        automationId: automation.body.id,
      };
    };
    const comparable = (answer: { isError: boolean; text: string }, x: Target) => {
      let text = JSON.stringify({ isError: answer.isError, text: answer.isError ? answer.text : 'ok' });
      for (const [name, id] of Object.entries(x)) text = text.replaceAll(id, `<${name}>`);
      return text;
    };

    const problems: string[] = [];
    expect(Object.keys(args).sort()).toEqual(mcpTools.map((tool) => tool.name).sort());
    for (const mode of ['read', 'write', 'full'] as const) {
      const created = await admin.client.post('/api/bots', {
        name: `Matrix ${mode}`,
        apiAccess: { enabled: true, mode, ...lists },
      });
      const client = await agent(created.body.apiKey.key);
      const listed = new Set((await client.listTools()).tools.map((tool) => tool.name));
      for (const tool of mcpTools) {
        const label = `${mode} ${tool.name}`;
        if (listed.has(tool.name) !== offered(mode, tool.needs))
          problems.push(`${label}: offered ${listed.has(tool.name)}`);
        if (!listed.has(tool.name)) continue;
        const answers = {} as Record<Variant, { answer: Awaited<ReturnType<typeof call>>; x: Target }>;
        for (const variant of ['in', 'out', 'unknown'] as const) {
          const x = await target(variant);
          const answer = await call(client, tool.name, (args[tool.name] as (x: Target) => Record<string, unknown>)(x));
          answers[variant] = { answer, x };
          if (answer.text.includes(SECRET)) problems.push(`${label} (${variant}) leaks: ${answer.text.slice(0, 200)}`);
        }
        const outside = comparable(answers.out.answer, answers.out.x);
        const unknown = comparable(answers.unknown.answer, answers.unknown.x);
        const hasTarget = Object.keys(args[tool.name]?.(answers.in.x) ?? {}).some((key) => key.endsWith('Id'));
        if (hasTarget && outside !== unknown) problems.push(`${label}: outside ${outside} vs unknown ${unknown}`);
        const inside = answers.in.answer;
        if (unlimitedOnly.has(tool.name)) {
          if (!inside.isError || !inside.text.includes('scope_denied'))
            problems.push(`${label}: not refused to a key with lists`);
        } else if (inside.isError) {
          problems.push(`${label} (in): ${inside.text.slice(0, 200)}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect((await admin.client.get(`/api/tasks/${secretTask.id}`)).body).toMatchObject({
      title: `${SECRET} task`,
      statusId: secretTask.statusId,
    });
    expect((await admin.client.get(`/api/tasks/${secretTask.id}/messages`)).body.items).toEqual([]);
  });
});
