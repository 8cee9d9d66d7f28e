import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { SyncDocument } from '@shared/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createForm, createOrg, createTask, type Member } from '../../../../test/helpers/factories';
import { syncClients } from '../../../../test/helpers/sync-client';
import { createLogger } from '../../platform/logging';
import { runBillingCommand } from './billing.cli';

let t: TestApp;
let admin: Member;
const replica = syncClients(() => t);
const logger = createLogger({ logLevel: 'silent' });
const operator = (...args: string[]) => runBillingCommand(t.database.db, logger, args);

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
});
afterAll(() => t.close());

describe('a blocked organization’s writes beyond the REST routes', () => {
  it('keeps a replica’s push waiting (refused with billing_blocked, nothing applied) until the block is lifted', async () => {
    const form = await createForm(admin);
    const task = await createTask(admin, form.id, { title: 'Before the block' });
    const client = await replica(admin);
    const pulled = await client.pullUntil('tasks', (docs) => docs.some((doc) => doc.id === task.id));
    const base = pulled.documents.findLast((doc) => doc.id === task.id) as SyncDocument;
    const edit = [{ assumedMasterState: base, newDocumentState: { ...base, title: 'Edited offline' } as SyncDocument }];

    await operator('block', admin.organizationId);
    const refused = await client.push('tasks', edit);
    expect(refused.ok).toBe(false);
    expect(JSON.stringify(refused)).toContain('billing_blocked');
    expect((await admin.client.get(`/api/tasks/${task.id}`)).body.title).toBe('Before the block');

    await operator('unblock', admin.organizationId);
    expect((await client.push('tasks', edit)).ok).toBe(true);
    expect((await admin.client.get(`/api/tasks/${task.id}`)).body.title).toBe('Edited offline');
  });

  it('refuses an agent’s writing tools while blocked and keeps its reading ones', async () => {
    const form = await createForm(admin);
    const bot = await admin.client.post('/api/bots', { name: 'Agent', apiAccess: { enabled: true, mode: 'write' } });
    const agent = new Client({ name: 'test-agent', version: '1.0.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/api/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${bot.body.apiKey.key}` } },
      }),
    );
    try {
      await operator('block', admin.organizationId);
      const write = await agent.callTool({
        name: 'create_task',
        arguments: { formId: form.id, title: 'While blocked' },
      });
      expect(write.isError).toBe(true);
      expect(JSON.stringify(write.content)).toContain('billing_blocked');
      const read = await agent.callTool({ name: 'list_forms', arguments: {} });
      expect(read.isError).not.toBe(true);
      expect((await admin.client.get('/api/tasks/search?q=While%20blocked')).body.items).toEqual([]);
      await operator('unblock', admin.organizationId);
      const after = await agent.callTool({ name: 'create_task', arguments: { formId: form.id, title: 'Paid up' } });
      expect(after.isError).not.toBe(true);
    } finally {
      await operator('unblock', admin.organizationId);
      await agent.close();
    }
  });
});
