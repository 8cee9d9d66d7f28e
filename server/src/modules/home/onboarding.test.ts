import { Onboarding } from '@shared/api/tasks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createMember, createOrg, type Member } from '../../../../test/helpers/factories';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function onboarding(member: Member) {
  const response = await member.client.get('/api/onboarding');
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(Onboarding.safeParse(response.body).success, JSON.stringify(response.body)).toBe(true);
  return response.body;
}

function steps(body: { steps: { key: string; done: boolean }[] }): Record<string, boolean> {
  expect(body.steps.map((step) => step.key)).toEqual(['form', 'colleagues', 'task']);
  return Object.fromEntries(body.steps.map((step) => [step.key, step.done]));
}

describe('onboarding checklist', () => {
  it('ticks form, colleagues and task as they appear; completed only when all three are', async () => {
    const admin = await createOrg(t);
    const fresh = await onboarding(admin);
    expect(steps(fresh)).toEqual({ form: false, colleagues: false, task: false });
    expect(fresh).toMatchObject({ completed: false, dismissed: false });

    const form = await admin.client.post('/api/forms', { name: 'Заявки', fields: [] });
    expect(form.status, JSON.stringify(form.body)).toBe(201);
    const withForm = await onboarding(admin);
    expect(steps(withForm)).toEqual({ form: true, colleagues: false, task: false });
    expect(withForm.completed).toBe(false);

    const colleague = await createMember(t, admin);
    const withColleague = await onboarding(colleague);
    expect(steps(withColleague)).toEqual({ form: true, colleagues: true, task: false });
    expect(withColleague.completed).toBe(false);

    const task = await admin.client.post('/api/tasks', { formId: form.body.id, title: 'First task' });
    expect(task.status, JSON.stringify(task.body)).toBe(201);
    const done = await onboarding(admin);
    expect(steps(done)).toEqual({ form: true, colleagues: true, task: true });
    expect(done).toMatchObject({ completed: true, dismissed: false });
  });

  it('counts only forms and tasks that are not deleted', async () => {
    const admin = await createOrg(t);
    const form = await admin.client.post('/api/forms', { name: 'Temporary', fields: [] });
    const task = await admin.client.post('/api/tasks', { formId: form.body.id, title: 'Short-lived' });
    expect(steps(await onboarding(admin))).toMatchObject({ form: true, task: true });
    expect((await admin.client.delete(`/api/tasks/${task.body.id}`)).status).toBe(204);
    expect((await admin.client.delete(`/api/forms/${form.body.id}`)).status).toBe(204);
    expect(steps(await onboarding(admin))).toMatchObject({ form: false, task: false });
  });

  it('is the organization’s own: another organization’s data does not tick it', async () => {
    const busy = await createOrg(t);
    const form = await busy.client.post('/api/forms', { name: 'Busy', fields: [] });
    await busy.client.post('/api/tasks', { formId: form.body.id, title: 'Busy task' });
    await createMember(t, busy);
    const other = await createOrg(t);
    expect(steps(await onboarding(other))).toEqual({ form: false, colleagues: false, task: false });
  });

  it('may be dismissed by an administrator only, idempotently, for the whole organization', async () => {
    const admin = await createOrg(t);
    const member = await createMember(t, admin);
    const refused = await member.client.post('/api/onboarding/dismiss');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
    expect((await onboarding(admin)).dismissed).toBe(false);

    expect((await admin.client.post('/api/onboarding/dismiss')).status).toBe(204);
    expect((await admin.client.post('/api/onboarding/dismiss')).status).toBe(204);
    expect((await onboarding(admin)).dismissed).toBe(true);
    expect((await onboarding(member)).dismissed).toBe(true);
    // Dismissing hides the checklist; it does not tick its steps.
    expect((await onboarding(admin)).completed).toBe(false);

    const other = await createOrg(t);
    expect((await onboarding(other)).dismissed).toBe(false);
  });

  it('needs a signed-in caller', async () => {
    const anonymous = await t.request('/api/onboarding');
    expect(anonymous.status).toBe(401);
    const dismiss = await t.request('/api/onboarding/dismiss', { method: 'POST' });
    expect(dismiss.status).toBe(401);
  });
});
