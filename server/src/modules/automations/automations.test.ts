import { randomUUID } from 'node:crypto';
import type { SyncDocument } from '@shared/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createForm, createMember, createOrg, createTask, type Member } from '../../../../test/helpers/factories';
import { jobsDone } from '../../../../test/helpers/jobs';
import { syncClients } from '../../../../test/helpers/sync-client';
import { inUnit } from '../../platform/db/unit-of-work';
import { moscowDay, tickSchedules } from './automations.jobs';

let t: TestApp;
let admin: Member;
const replica = syncClients(() => t);
// biome-ignore lint/suspicious/noExplicitAny: bodies are read loosely in tests.
let form: any;
const statusId = (name: string) => form.statuses.find((s: { name: string }) => s.name === name).id as string;
const fieldId = (name: string) => form.fields.find((f: { name: string }) => f.name === name).id as string;

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
  form = await createForm(admin, {
    fields: [
      { name: 'Note', type: 'text' },
      { name: 'Amount', type: 'number' },
    ],
    statuses: [
      { name: 'New', initial: true, final: false },
      { name: 'Working', initial: false, final: false },
      { name: 'Done', initial: false, final: true },
    ],
    transitions: [
      { from: 'New', to: 'Working' },
      { from: 'Working', to: 'New' },
      { from: 'Working', to: 'Done' },
    ],
  });
});
afterAll(() => t.close());

async function automation(body: Record<string, unknown>) {
  const response = await admin.client.post('/api/automations', {
    name: `Automation ${randomUUID()}`,
    trigger: 'task.status_changed',
    ...body,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

async function runsOf(id: string) {
  await jobsDone(t);
  return (await admin.client.get(`/api/automations/${id}/runs`)).body.items;
}

describe('automations: managing them', () => {
  it('refuses an unknown status or form, a bad time and code that does not compile, naming the field', async () => {
    const other = await createOrg(t, 'Another organization');
    const foreign = await createForm(other);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ triggerConfig: { statusId: randomUUID() } }, '#/triggerConfig/statusId', 'unknown_status'],
      [{ triggerConfig: { statusId: foreign.statuses[0].id } }, '#/triggerConfig/statusId', 'unknown_status'],
      [{ triggerConfig: { formId: foreign.id } }, '#/triggerConfig/formId', 'unknown_form'],
      [{ trigger: 'schedule', triggerConfig: { time: '25:00' } }, '#/triggerConfig/time', 'invalid_format'],
      [{ code: 'ctx.log(1);\nconst = 2;' }, '#/code', 'does_not_compile'],
    ];
    for (const [body, pointer, code] of cases) {
      const response = await admin.client.post('/api/automations', {
        name: 'Bad',
        trigger: 'task.status_changed',
        code: '',
        ...body,
      });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors).toContainEqual(expect.objectContaining({ pointer, code }));
    }
    const compile = await admin.client.post('/api/automations', {
      name: 'Bad',
      trigger: 'schedule',
      triggerConfig: { time: '09:00' },
      code: 'ctx.log(1);\nconst = 2;',
    });
    expect(compile.body.errors[0].detail).toContain('line 2');
    expect((await admin.client.get('/api/automations')).body.items).toEqual([]);
  });

  it('lets administrators only create, change and delete them', async () => {
    const member = await createMember(t, admin);
    expect((await member.client.get('/api/automations')).status).toBe(403);
    const created = await automation({ triggerConfig: { statusId: statusId('Done') }, code: 'ctx.log("hi")' });
    const changed = await admin.client.patch(`/api/automations/${created.id}`, {
      trigger: 'schedule',
      triggerConfig: { time: '07:30' },
      enabled: false,
    });
    expect(changed.body).toMatchObject({ trigger: 'schedule', triggerConfig: { time: '07:30' }, enabled: false });
    const noConfig = await admin.client.patch(`/api/automations/${created.id}`, { trigger: 'task.status_changed' });
    expect(noConfig.status).toBe(400);
    expect((await admin.client.delete(`/api/automations/${created.id}`)).status).toBe(204);
    expect((await admin.client.get(`/api/automations/${created.id}`)).status).toBe(404);
  });
});

describe('automations: the status trigger', () => {
  it('fires after a transition to its status only, durably and asynchronously, acting as the automation', async () => {
    const fired = await automation({
      triggerConfig: { statusId: statusId('Done'), formId: form.id },
      code: `ctx.log('moved to', ctx.trigger.toStatusId === ctx.task.statusId);
             await ctx.updateFields({ '${fieldId('Note')}': 'closed by automation' });
             await ctx.comment('Closed: ' + ctx.task.title);`,
    });
    const task = await createTask(admin, form.id, { title: 'Pump 7' });
    await admin.client.post(`/api/tasks/${task.id}/transition`, { statusId: statusId('Working') });
    expect(await runsOf(fired.id)).toEqual([]);
    // The worker is down: the run waits in the transition's outbox, as after a crash right after commit.
    await t.app.jobs.stop();
    const moved = await admin.client.post(`/api/tasks/${task.id}/transition`, { statusId: statusId('Done') });
    expect(moved.status).toBe(200);
    expect((await admin.client.get(`/api/automations/${fired.id}/runs`)).body.items).toEqual([]);
    expect(await t.app.jobs.runDue()).toBe(1);
    expect(await t.app.jobs.runDue()).toBe(0);
    t.app.jobs.start();
    const runs = await runsOf(fired.id);
    expect(runs).toEqual([
      expect.objectContaining({ status: 'succeeded', taskId: task.id, logs: ['moved to true'], error: null }),
    ]);
    expect(runs[0].triggerData).toMatchObject({ trigger: 'task.status_changed', toStatusId: statusId('Done') });
    const after = await admin.client.get(`/api/tasks/${task.id}`);
    expect(after.body.fields[fieldId('Note')]).toBe('closed by automation');
    const messages = (await admin.client.get(`/api/tasks/${task.id}/messages`)).body.items;
    expect(messages).toEqual([
      expect.objectContaining({ body: 'Closed: Pump 7', authorUserId: null, automationId: fired.id }),
    ]);
    const audit = (await admin.client.get(`/api/tasks/${task.id}/audit`)).body.items;
    expect(audit.find((entry: { action: string }) => entry.action === 'updated')).toMatchObject({
      actorUserId: null,
      automationId: fired.id,
    });
  });

  it('fires for a status moved on a replica and pushed, as for REST', async () => {
    const onPush = await automation({
      triggerConfig: { statusId: statusId('Working') },
      code: 'ctx.log(ctx.task.title)',
    });
    const task = await createTask(admin, form.id, { title: 'Moved offline' });
    const client = await replica(admin);
    const pulled = await client.pullUntil('tasks', (docs) => docs.some((doc) => doc.id === task.id));
    const base = pulled.documents.findLast((doc) => doc.id === task.id) as SyncDocument;
    const pushed = await client.push('tasks', [
      { assumedMasterState: base, newDocumentState: { ...base, statusId: statusId('Working') } },
    ]);
    expect(pushed).toEqual({ ok: true, data: { conflicts: [], lost: [] } });
    expect(await runsOf(onPush.id)).toEqual([
      expect.objectContaining({ status: 'succeeded', logs: ['Moved offline'] }),
    ]);
    await admin.client.patch(`/api/automations/${onPush.id}`, { enabled: false });
  });

  it('does not fire when a task is created, nor when disabled', async () => {
    const onCreate = await automation({ code: 'ctx.log("ran")' });
    const disabled = await automation({ code: 'ctx.log("ran")', enabled: false });
    await createTask(admin, form.id);
    expect(await runsOf(onCreate.id)).toEqual([]);
    const task = await createTask(admin, form.id);
    await admin.client.post(`/api/tasks/${task.id}/transition`, { statusId: statusId('Working') });
    expect(await runsOf(onCreate.id)).toHaveLength(1);
    expect(await runsOf(disabled.id)).toEqual([]);
    await admin.client.patch(`/api/automations/${onCreate.id}`, { enabled: false });
  });

  it('keeps nothing a failed run wrote, and logs its error with the line, and host calls obey the workflow', async () => {
    const failing = await automation({
      triggerConfig: { statusId: statusId('Working') },
      code: `await ctx.updateFields({ '${fieldId('Note')}': 'half-way' });
try { await ctx.transition('${statusId('New')}'); } catch (error) { ctx.log('refused', error.message); }
throw new Error('stop here');`,
    });
    const task = await createTask(admin, form.id);
    await admin.client.post(`/api/tasks/${task.id}/transition`, { statusId: statusId('Working') });
    const [run] = await runsOf(failing.id);
    expect(run).toMatchObject({ status: 'failed', error: 'Error: stop here', errorLine: 3 });
    expect((await admin.client.get(`/api/tasks/${task.id}`)).body.fields[fieldId('Note')]).toBeUndefined();
    await admin.client.patch(`/api/automations/${failing.id}`, { enabled: false });
  });

  it('stops two automations moving a task back and forth after a bounded chain', async () => {
    const forth = await automation({
      triggerConfig: { statusId: statusId('Working') },
      code: `await ctx.transition('${statusId('New')}');`,
    });
    const back = await automation({
      triggerConfig: { statusId: statusId('New') },
      code: `await ctx.transition('${statusId('Working')}');`,
    });
    const task = await createTask(admin, form.id);
    await admin.client.post(`/api/tasks/${task.id}/transition`, { statusId: statusId('Working') });
    const runs = [...(await runsOf(forth.id)), ...(await runsOf(back.id))];
    expect(runs.length).toBeGreaterThan(2);
    expect(runs.length).toBeLessThanOrEqual(6);
    await admin.client.patch(`/api/automations/${forth.id}`, { enabled: false });
    await admin.client.patch(`/api/automations/${back.id}`, { enabled: false });
  });

  it('dry-runs against a task: logs and the changes it would make, nothing kept', async () => {
    const tried = await automation({
      triggerConfig: { statusId: statusId('Done') },
      code: `await ctx.updateFields({ '${fieldId('Amount')}': 5 }); ctx.log('amount set');`,
      enabled: false,
    });
    const task = await createTask(admin, form.id);
    const dry = await admin.client.post(`/api/automations/${tried.id}/test`, { taskId: task.id });
    expect(dry.body).toMatchObject({
      status: 'succeeded',
      logs: ['amount set'],
      changes: [{ call: 'updateFields', args: [task.id, { [fieldId('Amount')]: 5 }] }],
    });
    expect((await admin.client.get(`/api/tasks/${task.id}`)).body.fields[fieldId('Amount')]).toBeUndefined();
    expect(await runsOf(tried.id)).toEqual([]);
  });
});

describe('automations: daily schedules', () => {
  async function scheduled(time: string) {
    return automation({
      trigger: 'schedule',
      triggerConfig: { time },
      code: 'const found = await ctx.findTasks({ limit: 5 }); ctx.log(found.length >= 0);',
    });
  }
  const tick = (now: string) =>
    inUnit({ db: t.database.db, events: t.app.events }, (unit) => tickSchedules(unit, new Date(now)));

  it('runs once a day at its Moscow time, catches up a missed run the same day and never after midnight', async () => {
    await t.app.jobs.stop();
    const nine = await scheduled('09:00');
    expect(await tick('2026-12-03T05:59:00Z')).toBe(0); // 08:59 in Moscow
    expect(await tick('2026-12-03T06:00:00Z')).toBeGreaterThanOrEqual(1); // 09:00
    expect(await tick('2026-12-03T06:01:00Z')).toBe(0);
    // Down all afternoon: the run of the next day is caught up at 15:00 Moscow time.
    expect(await tick('2026-12-04T12:00:00Z')).toBeGreaterThanOrEqual(1);
    // Down from before 09:00 until after midnight: the missed day is not run the next morning.
    expect(await tick('2026-12-06T00:30:00Z')).toBe(0); // 03:30 on the 6th
    expect(await t.app.jobs.runDue()).toBeGreaterThanOrEqual(2);
    t.app.jobs.start();
    const runs = await runsOf(nine.id);
    expect(runs.map((run: { triggerData: { scheduledAt: string } }) => run.triggerData.scheduledAt)).toEqual([
      '2026-12-04T06:00:00.000Z',
      '2026-12-03T06:00:00.000Z',
    ]);
    expect(runs.every((run: { status: string }) => run.status === 'succeeded')).toBe(true);
    expect((await admin.client.get(`/api/automations/${nine.id}`)).body.last_scheduled_run_at).toBe(
      '2026-12-04T06:00:00.000Z',
    );
    await admin.client.patch(`/api/automations/${nine.id}`, { enabled: false });
  });

  it('is run once when two instances tick at the same moment', async () => {
    const noon = await scheduled('12:00');
    const claimed = await Promise.all([tick('2026-12-10T09:00:00Z'), tick('2026-12-10T09:00:00Z')]);
    expect(claimed.reduce((sum, n) => sum + n, 0)).toBe(1);
    expect(await runsOf(noon.id)).toHaveLength(1);
  });

  it('reads Moscow’s date and offset at a given instant', () => {
    expect(moscowDay(new Date('2026-12-03T21:30:00Z'))).toEqual({ date: '2026-12-04', offset: '+03:00' });
  });
});
