import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createForm, createMember, createOrg, createTask } from '../../../../test/helpers/factories';
import type { Actor } from '../../platform/auth/actor';
import { canSeeTask, mayChangeTask, mayDeleteTask, type TaskFacts, taskVisibility } from './tasks.policy';
import { listVisibleTasks } from './tasks.repo';

const organizationId = randomUUID();
const memberId = randomUUID();
const otherId = randomUUID();
const [roleR, roleS] = [randomUUID(), randomUUID()];
const [openForm, formOfR, formOfS] = [randomUUID(), randomUUID(), randomUUID()];

const member = (isAdmin: boolean): Actor => ({
  kind: 'user',
  organizationId,
  userId: memberId,
  sessionId: randomUUID(),
  isAdmin,
  locale: 'en',
  roleIds: [roleR],
  modules: [],
});
const bot = (mode: 'read' | 'write' | 'full', formIds?: string[]): Actor => ({
  kind: 'bot',
  organizationId,
  botId: randomUUID(),
  scopes: { mode, ...(formIds ? { formIds } : {}) },
});

const actors: Record<string, Actor> = {
  administrator: member(true),
  'member of role R': member(false),
  automation: { kind: 'automation', organizationId, automationId: randomUUID(), chainDepth: 0 },
  'bot writing every form': bot('write'),
  'bot reading the form of R': bot('read', [formOfR]),
  'bot with full access to the form of S': bot('full', [formOfS]),
};

const task = (formId: string, roles: string[], createdBy: string, assigneeIds: string[] = []): TaskFacts => ({
  formId,
  formVisibleRoleIds: roles,
  createdBy,
  assigneeIds,
});
const tasks: Record<string, TaskFacts> = {
  'on a form open to everyone': task(openForm, [], otherId),
  'on the form of role R': task(formOfR, [roleR], otherId),
  'on the form of role S': task(formOfS, [roleS], otherId),
  'on the form of S, assigned to the member': task(formOfS, [roleS], otherId, [memberId]),
  'on the form of S, made by the member': task(formOfS, [roleS], memberId),
};

/** actor × task → [sees, may change, may delete]. */
const expected: [string, string, boolean, boolean, boolean][] = [
  ['administrator', 'on a form open to everyone', true, true, true],
  ['administrator', 'on the form of role S', true, true, true],
  ['member of role R', 'on a form open to everyone', true, true, true],
  ['member of role R', 'on the form of role R', true, true, true],
  ['member of role R', 'on the form of role S', false, false, false],
  ['member of role R', 'on the form of S, assigned to the member', true, true, false],
  ['member of role R', 'on the form of S, made by the member', false, false, true],
  ['automation', 'on the form of role S', true, true, true],
  ['bot writing every form', 'on the form of role S', true, true, true],
  ['bot reading the form of R', 'on the form of role R', true, false, false],
  ['bot reading the form of R', 'on a form open to everyone', false, false, false],
  ['bot with full access to the form of S', 'on the form of S, assigned to the member', true, true, true],
  ['bot with full access to the form of S', 'on the form of role R', false, false, false],
];

describe('tasks policy', () => {
  it.each(expected)('%s, a task %s: sees %s, may change %s, may delete %s', (actor, name, sees, change, remove) => {
    const facts = tasks[name] as TaskFacts;
    const who = actors[actor] as Actor;
    expect([canSeeTask(who, facts), mayChangeTask(who, facts), mayDeleteTask(who, facts)]).toEqual([
      sees,
      change,
      remove,
    ]);
  });
});

describe('task visibility in SQL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('selects exactly the tasks the policy says each actor sees', async () => {
    const admin = await createOrg(t);
    const r = (await admin.client.post('/api/roles', { name: 'R' })).body.id;
    const s = (await admin.client.post('/api/roles', { name: 'S' })).body.id;
    const someone = await createMember(t, admin, { roleIds: [r] });
    const other = await createMember(t, admin, { roleIds: [s] });
    const forms = {
      open: await createForm(admin),
      ofR: await createForm(admin, { visibleRoleIds: [r] }),
      ofS: await createForm(admin, { visibleRoleIds: [s] }),
    };
    const made = [
      await createTask(admin, forms.open.id),
      await createTask(admin, forms.ofR.id),
      await createTask(other, forms.ofS.id),
      await createTask(other, forms.ofS.id),
    ];
    await admin.client.post(`/api/tasks/${made[3].id}/assignees`, { userId: someone.userId });
    const facts = new Map<string, TaskFacts>(
      made.map((one, index) => {
        const form = [forms.open, forms.ofR, forms.ofS, forms.ofS][index];
        const assigned = index === 3 ? [someone.userId] : [];
        return [one.id, task(form.id, form.visibleRoleIds, one.createdBy, assigned)];
      }),
    );
    const organization = { organizationId: admin.organizationId };
    const user = (userId: string, roleIds: string[], isAdmin = false): Actor => ({
      kind: 'user',
      ...organization,
      userId,
      sessionId: randomUUID(),
      isAdmin,
      locale: 'en',
      roleIds,
      modules: [],
    });
    const cases: Actor[] = [
      user(admin.userId, [], true),
      user(someone.userId, [r]),
      user(other.userId, [s]),
      { kind: 'automation', ...organization, automationId: randomUUID(), chainDepth: 0 },
      { kind: 'bot', ...organization, botId: randomUUID(), scopes: { mode: 'read', formIds: [forms.ofS.id] } },
      { kind: 'bot', ...organization, botId: randomUUID(), scopes: { mode: 'full' } },
      { kind: 'bot', ...organization, botId: randomUUID(), scopes: { mode: 'full', formIds: [] } },
    ];
    for (const actor of cases) {
      const selected = await listVisibleTasks(t.database.db, taskVisibility(actor), { limit: 100 });
      const byPolicy = [...facts].filter(([, one]) => canSeeTask(actor, one)).map(([id]) => id);
      expect(selected.map((row) => row.id).sort(), JSON.stringify(actor)).toEqual(byPolicy.sort());
    }
    // The cases tell actors apart: not everyone sees the same.
    const counts = await Promise.all(
      cases.map(async (actor) => (await listVisibleTasks(t.database.db, taskVisibility(actor), { limit: 100 })).length),
    );
    expect(new Set(counts).size).toBeGreaterThan(2);
  });
});
