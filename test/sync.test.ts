import { randomUUID } from 'node:crypto';
import type { SyncDocument } from '@shared/sync';
import pg from 'pg';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../server/src/app';
import { createLogger } from '../server/src/platform/logging';
import { startTestApp, type TestApp, testConfig } from './helpers/app';
import { testEngine } from './helpers/database';
import { createForm, createMember, createOrg, createTask, type Member, rowTreeShape } from './helpers/factories';
import { connectSync, rawSyncCall, syncClients } from './helpers/sync-client';

let t: TestApp;
let admin: Member;
let alice: Member;
let other: Member;
// biome-ignore lint/suspicious/noExplicitAny: form bodies are read loosely in tests.
let form: any;

beforeAll(async () => {
  t = await startTestApp({ config: { syncPollMs: 50 } });
  admin = await createOrg(t);
  alice = await createMember(t, admin, { name: 'Alice' });
  other = await createOrg(t, 'Other organization');
  form = await createForm(admin, {
    fields: [
      { name: 'Amount', type: 'number' },
      { name: 'Note', type: 'text' },
    ],
  });
});
afterAll(async () => {
  await t.close();
});

const replica = syncClients(() => t);

const ids = (documents: SyncDocument[]) => documents.map((d) => d.id);

/** Until another session waits for a lock the holder keeps (a busy machine may take a while to get there). */
async function waitForLockWaiter(holder: pg.Client): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const waiting = await holder.query(
      "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
    );
    if (waiting.rowCount) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('No session came to wait for the held lock in 15 s');
}

/** A new directory of the organization with these columns (text unless said), named `<name> <random>`. */
// biome-ignore lint/suspicious/noExplicitAny: REST bodies are read loosely in tests.
const newDirectory = async (name: string, columns: { name: string; type?: string }[]): Promise<any> =>
  (await admin.client.post('/api/directories', { name: `${name} ${randomUUID()}`, columns })).body;

describe('connecting', () => {
  it('refuses a connection without a valid access token, with a problem', async () => {
    const socket = io(`${t.url}/sync`, { auth: { token: 'forged' }, transports: ['websocket'], reconnection: false });
    const error = await new Promise<Error & { data?: { code: string } }>((resolve) =>
      socket.once('connect_error', resolve),
    );
    socket.close();
    expect(error.data?.code).toBe('invalid_token');
  });

  it('takes a refreshed token without reconnecting, but not another user’s', async () => {
    const client = await replica(alice);
    const refreshed = await alice.client.post('/api/auth/refresh', { refreshToken: alice.refreshToken });
    alice.refreshToken = refreshed.body.refreshToken;
    alice.client.accessToken = refreshed.body.accessToken;
    expect(await client.socket.emitWithAck('sync:auth', { token: refreshed.body.accessToken })).toEqual({
      ok: true,
      data: { userId: alice.userId },
    });
    const swap = await client.socket.emitWithAck('sync:auth', { token: admin.client.accessToken });
    expect(swap.ok).toBe(false);
    expect((await client.pull('users', null)).ok).toBe(true);
  });

  it('ends the stream of a session that ended, saying why first: a deactivated account, or a sign-out', async () => {
    const ended = async (member: Member, end: () => Promise<unknown>) => {
      const client = await replica(member);
      // The stream serves replicas that have pulled.
      expect((await client.pull('tasks', null)).ok).toBe(true);
      const events: string[] = [];
      client.socket.on('sync:ended', (problem: { status: number; code: string }) =>
        events.push(`ended ${problem.status} ${problem.code}`),
      );
      const disconnected = new Promise<void>((resolve) =>
        client.socket.on('disconnect', (reason) => {
          events.push(reason);
          resolve();
        }),
      );
      await end();
      await disconnected;
      return events;
    };
    // An organization of its own: the others' tests count their users.
    const boss = await createOrg(t, 'Changing staff');
    const leaving = await createMember(t, boss, { name: 'Leaving' });
    expect(
      await ended(leaving, () => boss.client.patch(`/api/users/${leaving.userId}`, { status: 'deactivated' })),
    ).toEqual(['ended 403 account_deactivated', 'io server disconnect']);
    const signingOut = await createMember(t, boss, { name: 'Signing out' });
    expect(
      await ended(signingOut, () =>
        signingOut.client.post('/api/auth/logout', { refreshToken: signingOut.refreshToken }),
      ),
    ).toEqual(['ended 401 invalid_token', 'io server disconnect']);
  });
});

describe('pull', () => {
  it('pages through every collection in commit order without gaps or duplicates, org-scoped', async () => {
    const created = [];
    const batch = Array.from({ length: 120 }, (_, i) => ({ title: `Pulled ${i}` }));
    const response = await admin.client.request('POST', `/api/forms/${form.id}/tasks/batch`, {
      tasks: batch.slice(0, 100),
    });
    created.push(...response.body.items);
    for (const task of batch.slice(100)) created.push(await createTask(admin, form.id, task));
    await createTask(other, (await createForm(other)).id, { title: 'Secret of the other organization' });

    const client = await replica(admin);
    const wanted = created.map((task: { id: string }) => task.id);
    const tasks = await client.pullUntil('tasks', (docs) => wanted.every((id) => ids(docs).includes(id)), null, 50);
    expect(tasks.pages).toBeGreaterThanOrEqual(3);
    expect(new Set(ids(tasks.documents)).size).toBe(tasks.documents.length);
    expect(ids(tasks.documents)).toEqual(expect.arrayContaining(created.map((task: { id: string }) => task.id)));
    expect(tasks.documents.some((d) => d.title === 'Secret of the other organization')).toBe(false);
    const again = await client.pull('tasks', tasks.checkpoint);
    expect(again).toEqual({ ok: true, data: { documents: [], checkpoint: tasks.checkpoint } });

    for (const collection of ['forms', 'statuses', 'users', 'roles', 'directories', 'directory_rows'] as const) {
      const answer = await client.pull(collection, null, 1000);
      expect(answer.ok, collection).toBe(true);
    }
    const users = await client.pullAll('users');
    expect(ids(users.documents).sort()).toEqual([admin.userId, alice.userId].sort());
    expect(JSON.stringify(users.documents)).not.toMatch(/password|reset_token/);
    expect(ids((await client.pullAll('forms')).documents)).toContain(form.id);
  });

  it('answers a bad request with a problem in the acknowledgement', async () => {
    const client = await replica(admin);
    const answer = await client.socket.emitWithAck('sync:pull', { collection: 'secrets', checkpoint: null });
    expect(answer).toMatchObject({ ok: false, problem: { status: 400, code: 'validation_failed' } });
  });

  it('never hands out a checkpoint that a slower transaction commits behind', async (context) => {
    if (testEngine() !== 'postgres') context.skip('needs two connections: a PostgreSQL server');
    const first = await createTask(admin, form.id, { title: 'Slow writer' });
    const second = await createTask(admin, form.id, { title: 'Fast writer' });
    const client = await replica(admin);
    const start = await client.pullAll('tasks');
    const slow = new pg.Client({ connectionString: t.database.url });
    const fast = new pg.Client({ connectionString: t.database.url });
    await slow.connect();
    await fast.connect();
    try {
      await slow.query('BEGIN');
      await slow.query("UPDATE tasks SET title = 'Slow writer, edited' WHERE id = $1", [first.id]);
      await fast.query("UPDATE tasks SET title = 'Fast writer, edited' WHERE id = $1", [second.id]);
      // The fast change committed after the slow one took its number: it must wait for it.
      const during = await client.pullAll('tasks', start.checkpoint);
      expect(ids(during.documents)).not.toContain(second.id);
      await slow.query('COMMIT');
      const after = await client.pullUntil('tasks', (docs) => docs.length >= 2, during.checkpoint);
      expect(ids(after.documents).sort()).toEqual([first.id, second.id].sort());
    } finally {
      await slow.end();
      await fast.end();
    }
  });

  it('resumes from its checkpoint after a server restart with no gap and no duplicate', async () => {
    const created: { id: string; title: string }[] = [];
    for (let i = 0; i < 30; i++) created.push(await createTask(admin, form.id, { title: `Restart ${i}` }));
    const client = await replica(admin);
    const base = await client.pullUntil('tasks', (docs) => created.every((task) => ids(docs).includes(task.id)));
    for (const task of created.slice(0, 10))
      await admin.client.patch(`/api/tasks/${task.id}`, { title: `${task.title} v2` });
    const firstPage = await client.pull('tasks', base.checkpoint, 4);
    if (!firstPage.ok) throw new Error('pull failed');
    client.close();
    // A second server over the same database (the first one went away mid-pull).
    const config = testConfig({ dataDir: t.dataDir, syncPollMs: 50 });
    const restarted = createApp({ config, db: t.database.db, logger: createLogger(config) });
    const { url } = await restarted.listen();
    try {
      const resumed = await connectSync({ url }, admin.client.accessToken as string);
      const rest = await resumed.pullUntil('tasks', (docs) => docs.length + 4 >= 10, firstPage.data.checkpoint, 4);
      resumed.close();
      const all = [...ids(firstPage.data.documents), ...ids(rest.documents)];
      expect(all.sort()).toEqual(
        created
          .slice(0, 10)
          .map((task) => task.id)
          .sort(),
      );
    } finally {
      await restarted.close();
    }
  });
});

describe('tombstones and visibility', () => {
  it('propagates deletions, and withdraws tasks the user may no longer see', async () => {
    const client = await replica(alice);
    const start = await client.pullAll('tasks');
    const gone = await createTask(admin, form.id, { title: 'To delete' });
    await admin.client.delete(`/api/tasks/${gone.id}`);
    const role = await admin.client.post('/api/roles', { name: `Temp ${randomUUID()}`, memberIds: [alice.userId] });
    await admin.client.delete(`/api/roles/${role.body.id}`);

    const tasks = await client.pullUntil('tasks', (docs) => ids(docs).includes(gone.id), start.checkpoint);
    expect(tasks.documents.find((d) => d.id === gone.id)).toEqual({ id: gone.id, _deleted: true });
    const roles = await client.pullUntil('roles', (docs) => docs.some((d) => d.id === role.body.id && d._deleted));
    expect(roles.documents.find((d) => d.id === role.body.id)).toEqual({ id: role.body.id, _deleted: true });

    // A task of a form restricted to a role Alice lacks reaches her as a tombstone only.
    const secretRole = await admin.client.post('/api/roles', { name: `Secret ${randomUUID()}` });
    const secretForm = await createForm(admin, { visibleRoleIds: [secretRole.body.id] });
    const secret = await createTask(admin, secretForm.id, { title: 'Payroll', description: 'salaries' });
    const after = await client.pullUntil('tasks', (docs) => ids(docs).includes(secret.id), tasks.checkpoint);
    expect(after.documents.find((d) => d.id === secret.id)).toEqual({ id: secret.id, _deleted: true });
    expect(JSON.stringify(after.documents)).not.toContain('Payroll');
    const forms = await client.pullUntil('forms', (docs) => ids(docs).includes(secretForm.id));
    expect(forms.documents.find((d) => d.id === secretForm.id)).toEqual({ id: secretForm.id, _deleted: true });
  });

  it('sends a restricted form’s tasks to whoever gains access to them and tombstones to whoever loses it', async () => {
    const boris = await createMember(t, admin, { name: 'Boris' });
    const role = (await admin.client.post('/api/roles', { name: `Audit ${randomUUID()}` })).body;
    const restricted = await createForm(admin, { visibleRoleIds: [role.id] });
    const task = await createTask(admin, restricted.id, { title: 'Ledger check' });
    const version = (await admin.client.get(`/api/tasks/${task.id}`)).body.updatedAt;
    const client = await replica(boris);
    let tasks = await client.pullAll('tasks');
    expect(tasks.documents.filter((d) => d.id === task.id && !d._deleted)).toEqual([]);
    let forms = await client.pullAll('forms');
    // Each step: what the replica receives next of the task and of its form.
    const next = async (live: boolean) => {
      const matches = (d: SyncDocument, id: string) => d.id === id && Boolean(d._deleted) === !live;
      tasks = await client.pullUntil('tasks', (docs) => docs.some((d) => matches(d, task.id)), tasks.checkpoint);
      forms = await client.pullUntil('forms', (docs) => docs.some((d) => matches(d, restricted.id)), forms.checkpoint);
      return tasks.documents.findLast((d) => d.id === task.id) as SyncDocument;
    };

    let users = await client.pullAll('users');
    const borisAs = async (done: (doc: SyncDocument) => boolean) => {
      users = await client.pullUntil(
        'users',
        (docs) => docs.some((d) => d.id === boris.userId && done(d)),
        users.checkpoint,
      );
      return users.documents.findLast((d) => d.id === boris.userId) as SyncDocument;
    };
    // Joins the role (their roles set on the user): the task arrives, at the version it had, and
    // his own document lists the role.
    await admin.client.patch(`/api/users/${boris.userId}`, { roleIds: [role.id] });
    expect(await next(true)).toMatchObject({ title: 'Ledger check', updatedAt: version });
    expect(await borisAs((doc) => (doc.roleIds as string[]).includes(role.id))).toMatchObject({ roleIds: [role.id] });
    // Leaves it (the role's members set): a tombstone, and nothing of the task's content.
    await admin.client.put(`/api/roles/${role.id}/members`, { userIds: [] });
    expect(await next(false)).toEqual({ id: task.id, _deleted: true });
    expect(await borisAs((doc) => (doc.roleIds as string[]).length === 0)).toMatchObject({ roleIds: [] });
    // The form opened to everyone, then restricted again.
    await admin.client.patch(`/api/forms/${restricted.id}`, { visibleRoleIds: [] });
    expect(await next(true)).toMatchObject({ title: 'Ledger check' });
    await admin.client.patch(`/api/forms/${restricted.id}`, { visibleRoleIds: [role.id] });
    expect(await next(false)).toEqual({ id: task.id, _deleted: true });
    // Made an administrator, then no longer.
    await admin.client.patch(`/api/users/${boris.userId}`, { isAdmin: true });
    expect(await next(true)).toMatchObject({ title: 'Ledger check', updatedAt: version });
    await admin.client.patch(`/api/users/${boris.userId}`, { isAdmin: false });
    expect(await next(false)).toEqual({ id: task.id, _deleted: true });
    // A member of a role that is deleted loses what the role opened.
    await admin.client.put(`/api/roles/${role.id}/members`, { userIds: [boris.userId] });
    expect(await next(true)).toMatchObject({ title: 'Ledger check' });
    expect((await admin.client.delete(`/api/roles/${role.id}`)).status).toBe(204);
    expect(await next(false)).toEqual({ id: task.id, _deleted: true });
  });

  it('sends a deleted form, marked deleted, to those who may read it: its tasks stay readable', async () => {
    const gone = await createForm(admin, { fields: [{ name: 'Meter', type: 'text' }] });
    const task = await createTask(admin, gone.id, { title: 'Read the meter' });
    const role = (await admin.client.post('/api/roles', { name: `Closed ${randomUUID()}` })).body;
    const closed = await createForm(admin, { visibleRoleIds: [role.id] });
    const client = await replica(alice);
    let forms = await client.pullAll('forms');
    expect((await admin.client.delete(`/api/forms/${gone.id}`)).status).toBe(204);
    expect((await admin.client.delete(`/api/forms/${closed.id}`)).status).toBe(204);
    forms = await client.pullUntil(
      'forms',
      (docs) => docs.some((d) => d.id === gone.id && d.deleted) && docs.some((d) => d.id === closed.id),
      forms.checkpoint,
    );
    expect(forms.documents.findLast((d) => d.id === gone.id)).toMatchObject({
      deleted: true,
      _deleted: false,
      fields: gone.fields,
      statuses: gone.statuses,
    });
    expect(forms.documents.findLast((d) => d.id === closed.id)).toEqual({ id: closed.id, _deleted: true });
    // Access gained later reaches deleted forms too.
    await admin.client.put(`/api/roles/${role.id}/members`, { userIds: [alice.userId] });
    forms = await client.pullUntil(
      'forms',
      (docs) => docs.some((d) => d.id === closed.id && d.deleted),
      forms.checkpoint,
    );
    expect(forms.documents.findLast((d) => d.id === closed.id)).toMatchObject({ deleted: true, name: closed.name });
    await admin.client.put(`/api/roles/${role.id}/members`, { userIds: [] });
    expect((await alice.client.get(`/api/tasks/${task.id}`)).body.title).toBe('Read the meter');
    // It takes no new tasks.
    expect((await alice.client.post('/api/tasks', { formId: gone.id, title: 'Another' })).status).toBe(409);
    // Brought back by an administrator, it reaches the replica as a form in use again.
    expect((await admin.client.post(`/api/forms/${gone.id}/restore`)).status).toBe(200);
    forms = await client.pullUntil(
      'forms',
      (docs) => docs.some((d) => d.id === gone.id && d.deleted === false),
      forms.checkpoint,
    );
    expect(forms.documents.findLast((d) => d.id === gone.id)).toMatchObject({ fields: gone.fields, _deleted: false });
    expect((await alice.client.post('/api/tasks', { formId: gone.id, title: 'Another' })).status).toBe(201);
  });

  it('sends the form of a restricted task to its assignee, who works on the task but creates none there', async () => {
    const vera = await createMember(t, admin, { name: 'Vera' });
    const role = (await admin.client.post('/api/roles', { name: `Night ${randomUUID()}` })).body;
    const restricted = await createForm(admin, { visibleRoleIds: [role.id] });
    const task = await createTask(admin, restricted.id, { title: 'Boiler valve' });
    const client = await replica(vera);
    let forms = await client.pullAll('forms');
    let statuses = await client.pullAll('statuses');
    const statusIds = restricted.statuses.map((s: { id: string }) => s.id).sort();
    expect((await vera.client.get(`/api/forms/${restricted.id}`)).status).toBe(404);

    await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: vera.userId });
    forms = await client.pullUntil(
      'forms',
      (docs) => docs.some((d) => d.id === restricted.id && !d._deleted),
      forms.checkpoint,
    );
    expect(forms.documents.findLast((d) => d.id === restricted.id)).toMatchObject({
      name: restricted.name,
      fields: restricted.fields,
    });
    const liveStatuses = (docs: SyncDocument[]) => docs.filter((d) => statusIds.includes(d.id) && !d._deleted);
    statuses = await client.pullUntil(
      'statuses',
      (docs) => liveStatuses(docs).length === statusIds.length,
      statuses.checkpoint,
    );
    expect(
      liveStatuses(statuses.documents)
        .map((d) => d.id)
        .sort(),
    ).toEqual(statusIds);
    expect((await vera.client.get(`/api/forms/${restricted.id}`)).status).toBe(200);
    // The task is hers to work on; the form takes no tasks from her.
    expect((await vera.client.patch(`/api/tasks/${task.id}`, { description: 'Replaced' })).status).toBe(200);
    expect((await vera.client.post('/api/tasks', { formId: restricted.id, title: 'Mine' })).status).toBe(404);

    await admin.client.delete(`/api/tasks/${task.id}/assignees/${vera.userId}`);
    forms = await client.pullUntil(
      'forms',
      (docs) => docs.some((d) => d.id === restricted.id && d._deleted),
      forms.checkpoint,
    );
    expect(forms.documents.findLast((d) => d.id === restricted.id)).toEqual({ id: restricted.id, _deleted: true });
    statuses = await client.pullUntil(
      'statuses',
      (docs) => docs.filter((d) => statusIds.includes(d.id) && d._deleted).length === statusIds.length,
      statuses.checkpoint,
    );
    expect(statuses.documents.filter((d) => statusIds.includes(d.id) && d._deleted)).toHaveLength(statusIds.length);
    expect((await vera.client.get(`/api/forms/${restricted.id}`)).status).toBe(404);
  });
});

describe('push', () => {
  const amount = () => form.fields[0].id as string;
  const note = () => form.fields[1].id as string;

  it('merges offline edits per field: untouched-on-server fields win, both-changed keep the server’s and are reported', async () => {
    const task = await createTask(admin, form.id, { title: 'Original', fields: { [amount()]: '1', [note()]: 'n0' } });
    const client = await replica(alice);
    const base = (await client.pullUntil('tasks', (docs) => ids(docs).includes(task.id))).documents.find(
      (d) => d.id === task.id,
    ) as SyncDocument;
    // Online: the server changes the title and the note.
    await admin.client.patch(`/api/tasks/${task.id}`, { title: 'Server title', fields: { [note()]: 'server note' } });
    // Offline: Alice changed the title and the amount.
    const offline = { ...base, title: 'Alice title', fields: { ...(base.fields as object), [amount()]: '2 500,5' } };
    const answer = await client.push('tasks', [{ assumedMasterState: base, newDocumentState: offline }]);
    if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
    expect(answer.data.lost).toEqual([
      { id: task.id, path: 'title', attempted: 'Alice title', kept: 'Server title', reason: 'changed_on_server' },
    ]);
    const [master] = answer.data.conflicts;
    expect(master).toMatchObject({
      id: task.id,
      title: 'Server title',
      fields: { [amount()]: '2500.5', [note()]: 'server note' },
    });
    const stored = await admin.client.get(`/api/tasks/${task.id}`);
    expect(stored.body.fields[amount()]).toBe('2500.5');
    const history = await admin.client.get(`/api/tasks/${task.id}/history`);
    expect(history.body.items[0]).toMatchObject({ fieldId: amount(), newValue: '2500.5', actorUserId: alice.userId });
  });

  it('re-validates offline transitions: an allowed one fires task.status_changed once, a refused one comes back as a conflict', async () => {
    const events: string[] = [];
    const stop = t.app.events.subscribe('task.status_changed', (event) => {
      events.push(event.taskId);
    });
    const task = await createTask(admin, form.id, { title: 'Move me' });
    const client = await replica(alice);
    const base = (await client.pullUntil('tasks', (docs) => ids(docs).includes(task.id))).documents.find(
      (d) => d.id === task.id,
    ) as SyncDocument;
    const [open, working, done] = form.statuses.map((s: { id: string }) => s.id);
    const moved = await client.push('tasks', [
      { assumedMasterState: base, newDocumentState: { ...base, statusId: working } },
    ]);
    expect(moved).toEqual({ ok: true, data: { conflicts: [], lost: [] } });
    await t.app.events.idle();
    expect(events.filter((id) => id === task.id)).toHaveLength(1);

    const afterMove = { ...base, statusId: working };
    await admin.client.post(`/api/tasks/${task.id}/transition`, { statusId: done });
    const back = { ...afterMove, statusId: open };
    const refused = await client.push('tasks', [{ assumedMasterState: afterMove, newDocumentState: back }]);
    if (!refused.ok) throw new Error('push failed');
    expect(refused.data.lost[0]).toMatchObject({
      path: 'statusId',
      attempted: open,
      kept: done,
      reason: 'changed_on_server',
    });
    expect(refused.data.conflicts[0]).toMatchObject({ id: task.id, statusId: done });
    stop();
  });

  it('moves a task made offline into the status it was moved to there, as a transition from the initial one', async () => {
    const events: string[] = [];
    const stop = t.app.events.subscribe('task.status_changed', (event) => {
      events.push(event.taskId);
    });
    const line = await createForm(admin, {
      statuses: [
        { name: 'Filed', initial: true, final: false },
        { name: 'Checked', initial: false, final: false },
        { name: 'Closed', initial: false, final: true },
      ],
      transitions: [
        { from: 'Filed', to: 'Checked' },
        { from: 'Checked', to: 'Closed' },
      ],
    });
    const [filed, checked, closed] = (line.statuses as { id: string }[]).map((status) => status.id);
    const client = await replica(alice);
    const made = (statusId: string, title: string) => ({
      id: randomUUID(),
      _deleted: false,
      formId: line.id,
      statusId,
      title,
      description: '',
      fields: {},
      assignees: [],
    });
    const moved = made(checked as string, 'Checked on the train');
    const skipped = made(closed as string, 'Closed on the train');
    const answer = await client.push('tasks', [
      { assumedMasterState: null, newDocumentState: moved },
      { assumedMasterState: null, newDocumentState: skipped },
    ]);
    if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
    expect((await admin.client.get(`/api/tasks/${moved.id}`)).body.statusId).toBe(checked);
    await t.app.events.idle();
    expect(events.filter((id) => id === moved.id)).toHaveLength(1);
    // Filed → Closed is no move of this workflow: the task stays filed, and the user is told.
    expect((await admin.client.get(`/api/tasks/${skipped.id}`)).body.statusId).toBe(filed);
    expect(answer.data.lost).toEqual([
      expect.objectContaining({ id: skipped.id, path: 'statusId', attempted: closed, kept: filed, reason: 'refused' }),
    ]);
    expect(answer.data.conflicts).toEqual([expect.objectContaining({ id: skipped.id, statusId: filed })]);
    stop();
  });

  it('merges a push without a base against the version its document names, while the server still holds it', async () => {
    const task = await createTask(admin, form.id, { title: 'Known here', fields: { [amount()]: '1' } });
    const doomed = await createTask(admin, form.id, { title: 'To delete' });
    const client = await replica(alice);
    const pulled = (await client.pullUntil('tasks', (docs) => ids(docs).includes(doomed.id))).documents;
    const seen = pulled.find((d) => d.id === task.id) as SyncDocument;
    // A replica that kept no server state for the task (its meta write was interrupted): the
    // document's own updatedAt still names the server version the edit was made from.
    const edited = { ...seen, title: 'Edited here', fields: { ...(seen.fields as object), [amount()]: '2' } };
    const deletion = { ...(pulled.find((d) => d.id === doomed.id) as SyncDocument), _deleted: true };
    const answer = await client.push('tasks', [
      { assumedMasterState: null, newDocumentState: edited },
      { assumedMasterState: null, newDocumentState: deletion },
    ]);
    expect(answer).toEqual({ ok: true, data: { conflicts: [], lost: [] } });
    expect((await admin.client.get(`/api/tasks/${task.id}`)).body).toMatchObject({
      title: 'Edited here',
      fields: { [amount()]: '2' },
    });
    expect((await admin.client.get(`/api/tasks/${doomed.id}`)).status).toBe(404);
  });

  it('keeps the server’s task and reports every difference when a push without a base names an older version', async () => {
    const task = await createTask(admin, form.id, { title: 'Known here', fields: { [amount()]: '1' } });
    const client = await replica(alice);
    const seen = (await client.pullUntil('tasks', (docs) => ids(docs).includes(task.id))).documents.find(
      (d) => d.id === task.id,
    ) as SyncDocument;
    await admin.client.patch(`/api/tasks/${task.id}`, { description: 'Changed there' });
    // Which of the differences are the replica's own cannot be told: the server's copy stays.
    const edited = {
      ...seen,
      title: 'Edited here',
      fields: { ...(seen.fields as object), [amount()]: '2' },
      assignees: [{ userId: alice.userId, source: 'manual', delegated_from_user_id: null, pending_review: false }],
    };
    const answer = await client.push('tasks', [{ assumedMasterState: null, newDocumentState: edited }]);
    if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
    expect(answer.data.lost).toEqual([
      { id: task.id, path: 'title', attempted: 'Edited here', kept: 'Known here', reason: 'changed_on_server' },
      { id: task.id, path: 'description', attempted: '', kept: 'Changed there', reason: 'changed_on_server' },
      { id: task.id, path: `fields.${amount()}`, attempted: '2', kept: '1', reason: 'changed_on_server' },
      { id: task.id, path: 'assignees', attempted: [alice.userId], kept: [], reason: 'changed_on_server' },
    ]);
    expect((await admin.client.get(`/api/tasks/${task.id}`)).body.assignees).toEqual([]);
    expect(answer.data.conflicts[0]).toMatchObject({ id: task.id, title: 'Known here', description: 'Changed there' });
    expect((await admin.client.get(`/api/tasks/${task.id}`)).body).toMatchObject({
      title: 'Known here',
      fields: { [amount()]: '1' },
    });
    // The server's own state sent again (a retried creation) is no conflict and no loss.
    const changed = (docs: SyncDocument[]) => docs.some((d) => d.id === task.id && d.description === 'Changed there');
    const current = (await client.pullUntil('tasks', changed)).documents.findLast(
      (d) => d.id === task.id,
    ) as SyncDocument;
    const again = await client.push('tasks', [
      { assumedMasterState: null, newDocumentState: { ...current, updatedAt: new Date().toISOString() } },
    ]);
    expect(again).toMatchObject({ ok: true, data: { lost: [] } });
    const deleted = await client.push('tasks', [
      { assumedMasterState: null, newDocumentState: { ...seen, _deleted: true } },
    ]);
    expect(deleted.ok && deleted.data.lost).toEqual([
      { id: task.id, path: '_deleted', attempted: true, kept: false, reason: 'changed_on_server' },
    ]);
    expect((await admin.client.get(`/api/tasks/${task.id}`)).status).toBe(200);
  });

  it('never takes a write made within the millisecond of the version a push without a base names for that version', async () => {
    const task = await createTask(admin, form.id, { title: 'Known here' });
    const directory = await newDirectory('Pumps', [{ name: 'Name' }]);
    const row = (await admin.client.post(`/api/directories/${directory.id}/rows`, { cells: ['P-1'] })).body;
    // The version a replica sees, pinned to a known millisecond.
    const pinned = new Date(Date.now() + 3_600_000);
    pinned.setUTCMilliseconds(500);
    await t.database.db.query('UPDATE tasks SET updated_at = $2 WHERE id = $1', [task.id, pinned]);
    await t.database.db.query('UPDATE directory_rows SET updated_at = $2 WHERE id = $1', [row.id, pinned]);
    const client = await replica(alice);
    const seenTask = (
      await client.pullUntil('tasks', (docs) =>
        docs.some((d) => d.id === task.id && d.updatedAt === pinned.toISOString()),
      )
    ).documents.findLast((d) => d.id === task.id) as SyncDocument;
    const seenRow = (
      await client.pullUntil('directory_rows', (docs) =>
        docs.some((d) => d.id === row.id && d.updatedAt === pinned.toISOString()),
      )
    ).documents.findLast((d) => d.id === row.id) as SyncDocument;
    // Another write on the server within that same millisecond (`updated_at = now()` when now()
    // falls in it): it must be a version of its own.
    const sameMillisecond = pinned.toISOString().replace('Z', '400Z');
    await t.database.db.query(`UPDATE tasks SET title = 'Server title', updated_at = $2 WHERE id = $1`, [
      task.id,
      sameMillisecond,
    ]);
    await t.database.db.query(`UPDATE directory_rows SET cells = '["P-2"]', updated_at = $2 WHERE id = $1`, [
      row.id,
      sameMillisecond,
    ]);
    const taskPush = await client.push('tasks', [
      { assumedMasterState: null, newDocumentState: { ...seenTask, description: 'Edited here' } },
    ]);
    if (!taskPush.ok) throw new Error(JSON.stringify(taskPush.problem));
    expect(taskPush.data.lost).toContainEqual({
      id: task.id,
      path: 'title',
      attempted: 'Known here',
      kept: 'Server title',
      reason: 'changed_on_server',
    });
    expect((await admin.client.get(`/api/tasks/${task.id}`)).body.title).toBe('Server title');
    const rowPush = await client.push('directory_rows', [
      { assumedMasterState: null, newDocumentState: { ...seenRow, _deleted: true } },
    ]);
    expect(rowPush.ok && rowPush.data.lost).toEqual([
      { id: row.id, path: '_deleted', attempted: true, kept: false, reason: 'changed_on_server' },
    ]);
    const rows = (await admin.client.get(`/api/directories/${directory.id}/rows?limit=500`)).body.items;
    expect(rows.find((r: { id: string }) => r.id === row.id)?.cells).toEqual(['P-2']);
  });

  it('keeps a task deleted offline whose assignees changed on the server meanwhile, and says so', async () => {
    const task = await createTask(admin, form.id, { title: 'Assigned meanwhile' });
    const client = await replica(alice);
    const base = (await client.pullUntil('tasks', (docs) => ids(docs).includes(task.id))).documents.find(
      (d) => d.id === task.id,
    ) as SyncDocument;
    await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: alice.userId });
    const answer = await client.push('tasks', [
      { assumedMasterState: base, newDocumentState: { ...base, _deleted: true } },
    ]);
    if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
    expect(answer.data.lost).toEqual([
      { id: task.id, path: '_deleted', attempted: true, kept: false, reason: 'changed_on_server' },
    ]);
    expect((await admin.client.get(`/api/tasks/${task.id}`)).body.assignees).toEqual([
      expect.objectContaining({ userId: alice.userId }),
    ]);
  });

  it('brings back a task the device deleted and then restored (an undo), for others too, with what it changed', async () => {
    const task = await createTask(admin, form.id, { title: 'Deleted by mistake' });
    const client = await replica(alice);
    const other = await replica(admin);
    const seen = (await client.pullUntil('tasks', (docs) => ids(docs).includes(task.id))).documents.find(
      (d) => d.id === task.id,
    ) as SyncDocument;
    const deleted = { ...seen, _deleted: true };
    expect(await client.push('tasks', [{ assumedMasterState: seen, newDocumentState: deleted }])).toEqual({
      ok: true,
      data: { conflicts: [], lost: [] },
    });
    expect((await admin.client.get(`/api/tasks/${task.id}`)).status).toBe(404);
    // Undone on the device, retitled too: pushed against its own deletion as the server took it.
    const back = { ...seen, title: 'Deleted by mistake, back', _deleted: false };
    expect(await client.push('tasks', [{ assumedMasterState: deleted, newDocumentState: back }])).toEqual({
      ok: true,
      data: { conflicts: [], lost: [] },
    });
    const restored = await admin.client.get(`/api/tasks/${task.id}`);
    expect(restored.status).toBe(200);
    expect(restored.body.title).toBe('Deleted by mistake, back');
    const actions = (await admin.client.get(`/api/tasks/${task.id}/audit`)).body.items.map(
      (i: { action: string }) => i.action,
    );
    expect(actions.slice(0, 3)).toEqual(['updated', 'restored', 'deleted']);
    // A colleague's replica receives it live again.
    await other.pullUntil('tasks', (docs) =>
      docs.some((d) => d.id === task.id && !d._deleted && d.title === 'Deleted by mistake, back'),
    );
  });

  it('makes a task the device made, deleted and took back before any of it was sent; another organization’s id stays theirs', async () => {
    const client = await replica(alice);
    const id = randomUUID();
    const now = new Date().toISOString();
    const made = {
      id,
      formId: form.id,
      statusId: form.statuses[0].id,
      title: 'Made, deleted, undone offline',
      description: '',
      fields: {},
      labels: {},
      assignees: [],
      createdAt: now,
      updatedAt: now,
      _deleted: false,
    } as SyncDocument;
    const deleted = { ...made, _deleted: true };
    // The deletion went first, alone: the server had nothing to delete and made nothing.
    expect(await client.push('tasks', [{ assumedMasterState: null, newDocumentState: deleted }])).toEqual({
      ok: true,
      data: { conflicts: [], lost: [] },
    });
    expect((await admin.client.get(`/api/tasks/${id}`)).status).toBe(404);
    const undo = await client.push('tasks', [{ assumedMasterState: deleted, newDocumentState: made }]);
    expect(undo.ok && undo.data.lost).toEqual([]);
    const task = await admin.client.get(`/api/tasks/${id}`);
    expect(task.status).toBe(200);
    expect(task.body.title).toBe('Made, deleted, undone offline');

    // The same push from another organization cannot take the id: refused, nothing changes.
    const intruder = await replica(other);
    const taken = await intruder.push('tasks', [
      { assumedMasterState: deleted, newDocumentState: { ...made, title: 'Taken' } },
    ]);
    expect(taken.ok && taken.data.lost.length).toBeGreaterThan(0);
    expect((await admin.client.get(`/api/tasks/${id}`)).body.title).toBe('Made, deleted, undone offline');
  });

  it('brings a task back against the server’s bare tombstone too, but not one merely no longer shared with the user', async () => {
    const task = await createTask(admin, form.id, { title: 'Deleted, streamed back' });
    const client = await replica(alice);
    const seen = (await client.pullUntil('tasks', (docs) => ids(docs).includes(task.id))).documents.find(
      (d) => d.id === task.id,
    ) as SyncDocument;
    await client.push('tasks', [{ assumedMasterState: seen, newDocumentState: { ...seen, _deleted: true } }]);
    // The replica received the deletion back as the server's tombstone before the undo.
    const tombstone = (
      await client.pullUntil('tasks', (docs) => docs.some((d) => d.id === task.id && d._deleted))
    ).documents.find((d) => d.id === task.id) as SyncDocument;
    expect(tombstone.title).toBeUndefined();
    expect(
      await client.push('tasks', [{ assumedMasterState: tombstone, newDocumentState: { ...seen, _deleted: false } }]),
    ).toEqual({ ok: true, data: { conflicts: [], lost: [] } });
    expect((await admin.client.get(`/api/tasks/${task.id}`)).body.title).toBe('Deleted, streamed back');

    // Hidden from Alice (a form closed to her), not deleted: her edit is reported, nothing changes.
    const role = (await admin.client.post('/api/roles', { name: `Closed ${randomUUID()}` })).body;
    const closed = await createForm(admin, { visibleRoleIds: [role.id] });
    const hidden = await createTask(admin, closed.id, { title: 'Not for Alice' });
    await admin.client.post(`/api/tasks/${hidden.id}/assignees`, { userId: alice.userId });
    const shared = (await client.pullUntil('tasks', (docs) => ids(docs).includes(hidden.id))).documents.find(
      (d) => d.id === hidden.id,
    ) as SyncDocument;
    await admin.client.delete(`/api/tasks/${hidden.id}/assignees/${alice.userId}`);
    const withdrawn = (
      await client.pullUntil('tasks', (docs) => docs.some((d) => d.id === hidden.id && d._deleted))
    ).documents.find((d) => d.id === hidden.id) as SyncDocument;
    const answer = await client.push('tasks', [
      { assumedMasterState: withdrawn, newDocumentState: { ...shared, title: 'Edited', _deleted: false } },
    ]);
    if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
    expect(answer.data.lost).toContainEqual(
      expect.objectContaining({ id: hidden.id, path: 'title', attempted: 'Edited', reason: 'gone_on_server' }),
    );
    expect(answer.data.lost.every((edit) => edit.reason === 'gone_on_server' && edit.path !== '_deleted')).toBe(true);
    expect((await admin.client.get(`/api/tasks/${hidden.id}`)).body.title).toBe('Not for Alice');
  });

  it('takes a deletion of a task deleted on the server too as agreed, whatever the tombstones carry', async () => {
    const task = await createTask(admin, form.id, { title: 'Gone twice' });
    const client = await replica(alice);
    const seen = (await client.pullUntil('tasks', (docs) => ids(docs).includes(task.id))).documents.find(
      (d) => d.id === task.id,
    ) as SyncDocument;
    await admin.client.delete(`/api/tasks/${task.id}`);
    // The replica's tombstone keeps the indexed fields it fills in; the server's is bare.
    const answer = await client.push('tasks', [
      { assumedMasterState: seen, newDocumentState: { ...seen, statusId: '', _deleted: true } },
    ]);
    expect(answer).toEqual({ ok: true, data: { conflicts: [], lost: [] } });
  });

  it('merges assignees edited offline per person, and reports an assignment the server refuses', async () => {
    const bob = await createMember(t, admin, { name: 'Bob' });
    const carol = await createMember(t, admin, { name: 'Carol' });
    const dave = await createMember(t, admin, { name: 'Dave' });
    const task = await createTask(admin, form.id, { title: 'Assigned' });
    await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: bob.userId });
    const client = await replica(alice);
    const base = (
      await client.pullUntil('tasks', (docs) =>
        docs.some((d) => d.id === task.id && (d.assignees as unknown[] | undefined)?.length === 1),
      )
    ).documents.find((d) => d.id === task.id) as SyncDocument;
    // Online: Carol is assigned.
    await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: carol.userId });
    // Offline: Alice takes Bob off, and assigns Dave and someone who is not in the organization.
    const stranger = randomUUID();
    const assignee = (userId: string) => ({
      userId,
      source: 'manual',
      delegated_from_user_id: null,
      pending_review: false,
      addedAt: new Date().toISOString(),
    });
    const offline = { ...base, assignees: [assignee(dave.userId), assignee(stranger)] };
    const answer = await client.push('tasks', [{ assumedMasterState: base, newDocumentState: offline }]);
    if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
    expect(answer.data.lost).toEqual([
      expect.objectContaining({
        id: task.id,
        path: `assignees.${stranger}`,
        attempted: true,
        kept: false,
        reason: 'refused',
      }),
    ]);
    const assigned = (body: { assignees: { userId: string }[] }) => body.assignees.map((a) => a.userId).sort();
    const expected = [carol.userId, dave.userId].sort();
    expect(assigned((await admin.client.get(`/api/tasks/${task.id}`)).body)).toEqual(expected);
    // The replica lands on the server's set (Carol kept, the stranger not assigned).
    expect(answer.data.conflicts).toHaveLength(1);
    expect(assigned(answer.data.conflicts[0] as never)).toEqual(expected);
    const audit = await admin.client.get(`/api/tasks/${task.id}/audit`);
    expect(audit.body.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: 'assignee_removed', actorUserId: alice.userId }),
        expect.objectContaining({ action: 'assignee_added', actorUserId: alice.userId }),
      ]),
    );

    // A task made offline keeps the people assigned to it there.
    const id = randomUUID();
    const created = await client.push('tasks', [
      {
        assumedMasterState: null,
        newDocumentState: {
          id,
          _deleted: false,
          formId: form.id,
          title: 'Made and assigned offline',
          fields: {},
          assignees: [assignee(bob.userId)],
        },
      },
    ]);
    if (!created.ok) throw new Error(JSON.stringify(created.problem));
    expect(created.data.lost).toEqual([]);
    expect(assigned((await admin.client.get(`/api/tasks/${id}`)).body)).toEqual([bob.userId]);
  });

  it('refuses to take off a person a user field names unless the push takes them out of the field too', async () => {
    const bob = await createMember(t, admin, { name: 'Bob' });
    const people = await createForm(admin, { fields: [{ name: 'Inspector', type: 'user' }] });
    const inspector = people.fields[0].id as string;
    const named = await createTask(admin, people.id, { title: 'Named', fields: { [inspector]: `user:${bob.userId}` } });
    const alsoNamed = await createTask(admin, people.id, {
      title: 'Also named',
      fields: { [inspector]: `user:${bob.userId}` },
    });
    const client = await replica(admin);
    const pulled = (await client.pullUntil('tasks', (docs) => ids(docs).includes(alsoNamed.id))).documents;
    const base = (id: string) => pulled.find((d) => d.id === id) as SyncDocument;
    const answer = await client.push('tasks', [
      // Bob taken off alone: the field would assign him again.
      { assumedMasterState: base(named.id), newDocumentState: { ...base(named.id), assignees: [] } },
      // Bob taken out of the field and off the task in one edit, as the task page does.
      {
        assumedMasterState: base(alsoNamed.id),
        newDocumentState: { ...base(alsoNamed.id), fields: { [inspector]: null }, assignees: [] },
      },
    ]);
    if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
    expect(answer.data.lost).toEqual([
      expect.objectContaining({
        id: named.id,
        path: `assignees.${bob.userId}`,
        attempted: false,
        kept: true,
        reason: 'refused',
        detail: expect.stringContaining('“Inspector”'),
      }),
    ]);
    const assigned = async (id: string) =>
      (await admin.client.get(`/api/tasks/${id}`)).body.assignees.map((a: { userId: string }) => a.userId);
    expect(await assigned(named.id)).toEqual([bob.userId]);
    expect(await assigned(alsoNamed.id)).toEqual([]);
  });

  it('applies a row sent again and the newer state after it in turn: a value taken back and a person taken off stay so', async () => {
    const bob = await createMember(t, admin, { name: 'Bob' });
    const task = await createTask(admin, form.id, { title: 'Before' });
    const client = await replica(alice);
    const base = (await client.pullUntil('tasks', (docs) => ids(docs).includes(task.id))).documents.find(
      (d) => d.id === task.id,
    ) as SyncDocument;
    const assignee = { userId: bob.userId, source: 'manual', delegated_from_user_id: null, pending_review: false };
    const first = { ...base, title: 'After', assignees: [assignee] };
    // The first attempt reached the server; its answer did not come back.
    const applied = await client.push('tasks', [{ assumedMasterState: base, newDocumentState: first }]);
    expect(applied).toMatchObject({ ok: true, data: { lost: [] } });
    // Offline the title was taken back and Bob taken off; the retry sends the row, then that.
    const taken = { ...first, title: 'Before', assignees: [] };
    const retried = await client.push('tasks', [
      { assumedMasterState: base, newDocumentState: first },
      { assumedMasterState: first, newDocumentState: taken },
    ]);
    expect(retried).toMatchObject({ ok: true, data: { lost: [] } });
    const stored = (await admin.client.get(`/api/tasks/${task.id}`)).body;
    expect({ title: stored.title, assignees: stored.assignees }).toEqual({ title: 'Before', assignees: [] });
  });

  it('reports every value edited offline, and a deletion, on a task deleted or no longer shared meanwhile, naming the task, and changes nothing', async () => {
    const boris = await createMember(t, admin, { name: 'Boris' });
    const role = (await admin.client.post('/api/roles', { name: `Night ${randomUUID()}`, memberIds: [boris.userId] }))
      .body;
    const restricted = await createForm(admin, { visibleRoleIds: [role.id] });
    const deleted = await createTask(admin, form.id, { title: 'Pump 4' });
    const hidden = await createTask(admin, restricted.id, { title: 'Safe audit', description: 'Before' });
    const hiddenToo = await createTask(admin, restricted.id, { title: 'Vault check' });
    const hiddenFirst = await createTask(admin, restricted.id, { title: 'Key count' });
    const untouched = await createTask(admin, form.id, { title: 'Pump 5' });
    const client = await replica(boris);
    const pulled = (await client.pullUntil('tasks', (docs) => ids(docs).includes(untouched.id))).documents;
    const base = (id: string) => pulled.find((d) => d.id === id) as SyncDocument;
    // Meanwhile on the server: two tasks deleted, and Boris leaves the role that shared the third.
    await admin.client.delete(`/api/tasks/${deleted.id}`);
    await admin.client.delete(`/api/tasks/${untouched.id}`);
    await admin.client.put(`/api/roles/${role.id}/members`, { userIds: [] });

    const note = form.fields.find((f: { name: string }) => f.name === 'Note').id as string;
    const answer = await client.push('tasks', [
      {
        assumedMasterState: base(deleted.id),
        newDocumentState: { ...base(deleted.id), title: 'Pump 4 (checked)', fields: { [note]: 'Seal worn' } },
      },
      { assumedMasterState: base(hidden.id), newDocumentState: { ...base(hidden.id), description: 'After' } },
      // Deleted offline: no longer Boris's to delete.
      { assumedMasterState: base(hiddenToo.id), newDocumentState: { ...base(hiddenToo.id), _deleted: true } },
      // Deleted offline, and the replica learned it was hidden before sending that: RxDB sends the
      // deleted task against the tombstone it received.
      {
        assumedMasterState: { id: hiddenFirst.id, _deleted: true },
        newDocumentState: { ...base(hiddenFirst.id), _deleted: true },
      },
      // A tombstone sent again against one: nothing to tell.
      { assumedMasterState: { id: hidden.id, _deleted: true }, newDocumentState: { id: hidden.id, _deleted: true } },
      // Sent again with nothing changed: nothing to tell.
      { assumedMasterState: base(untouched.id), newDocumentState: base(untouched.id) },
    ]);
    if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
    const gone = (id: string, name: string, formId: string) => ({
      id,
      kept: null,
      reason: 'gone_on_server',
      record: { name, formId },
    });
    expect(answer.data.lost).toEqual([
      { ...gone(deleted.id, 'Pump 4 (checked)', form.id), path: 'title', attempted: 'Pump 4 (checked)' },
      { ...gone(deleted.id, 'Pump 4 (checked)', form.id), path: `fields.${note}`, attempted: 'Seal worn' },
      { ...gone(hidden.id, 'Safe audit', restricted.id), path: 'description', attempted: 'After' },
      { ...gone(hiddenToo.id, 'Vault check', restricted.id), path: '_deleted', attempted: true },
      { ...gone(hiddenFirst.id, 'Key count', restricted.id), path: '_deleted', attempted: true },
    ]);
    // The server's copies are as they were: still deleted, the hidden ones unchanged and live.
    expect((await admin.client.get(`/api/tasks/${deleted.id}`)).status).toBe(404);
    expect((await admin.client.get(`/api/tasks/${hidden.id}`)).body.description).toBe('Before');
    expect((await admin.client.get(`/api/tasks/${hiddenToo.id}`)).status).toBe(200);
    expect((await admin.client.get(`/api/tasks/${hiddenFirst.id}`)).status).toBe(200);
  });

  it('answers a push on the view the user has when it is applied: a task hidden while the push waited its turn comes back as a tombstone', async (context) => {
    if (testEngine() !== 'postgres') context.skip('needs a second connection: a PostgreSQL server');
    const boris = await createMember(t, admin, { name: 'Boris' });
    const role = (await admin.client.post('/api/roles', { name: `Watch ${randomUUID()}`, memberIds: [boris.userId] }))
      .body;
    const restricted = await createForm(admin, { visibleRoleIds: [role.id] });
    const task = await createTask(admin, restricted.id, { title: 'Gate log' });
    const directory = await newDirectory('Gates', [{ name: 'Name' }]);
    const row = (await admin.client.post(`/api/directories/${directory.id}/rows`, { cells: ['Gate 1'] })).body;
    const client = await replica(boris);
    const tasks = await client.pullUntil('tasks', (docs) => ids(docs).includes(task.id));
    const base = tasks.documents.findLast((d) => d.id === task.id) as SyncDocument;
    const rows = await client.pullUntil('directory_rows', (docs) => ids(docs).includes(row.id));
    const rowBase = rows.documents.findLast((d) => d.id === row.id) as SyncDocument;
    const holder = new pg.Client({ connectionString: t.database.url });
    await holder.connect();
    try {
      // Should the test stop half-way, the row's lock goes with the session.
      await holder.query("SET idle_in_transaction_session_timeout = '20s'");
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM directory_rows WHERE id = $1 FOR UPDATE', [row.id]);
      // A push of that row waits for the lock, holding the connection's turn; the pull and the
      // task's push queue behind it.
      const rowPush = client.push('directory_rows', [
        { assumedMasterState: rowBase, newDocumentState: { ...rowBase, cells: ['Gate 1, north'] } },
      ]);
      const pull = client.pull('tasks', tasks.checkpoint);
      // The row's push is waiting for the lock (not merely sent) before the rest goes on.
      await waitForLockWaiter(holder);
      // Sent again as it was (a state in doubt after a restart, say): nothing on the server changes.
      const push = client.push('tasks', [{ assumedMasterState: base, newDocumentState: base }]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      // Meanwhile Boris leaves the role that shared the task.
      expect((await admin.client.put(`/api/roles/${role.id}/members`, { userIds: [] })).status).toBe(200);
      await holder.query('COMMIT');
      expect((await rowPush).ok).toBe(true);
      const pullAnswer = await pull;
      if (!pullAnswer.ok) throw new Error(JSON.stringify(pullAnswer.problem));
      expect(pullAnswer.data.documents.findLast((d: SyncDocument) => d.id === task.id)).toEqual({
        id: task.id,
        _deleted: true,
      });
      // The push's answer comes after that pull's: it must not show the task again.
      const pushAnswer = await push;
      if (!pushAnswer.ok) throw new Error(JSON.stringify(pushAnswer.problem));
      expect(pushAnswer.data).toEqual({ conflicts: [{ id: task.id, _deleted: true }], lost: [] });
    } finally {
      await holder.end();
    }
  });

  it('reports a deletion, and its undo, by someone they are not theirs to make (an assignee of a form not open to them) as refused', async () => {
    const boris = await createMember(t, admin, { name: 'Boris' });
    const role = (await admin.client.post('/api/roles', { name: `Day ${randomUUID()}` })).body;
    const restricted = await createForm(admin, { visibleRoleIds: [role.id] });
    const task = await createTask(admin, restricted.id, { title: 'Safe audit' });
    await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: boris.userId });
    const client = await replica(boris);
    const base = (await client.pullUntil('tasks', (docs) => ids(docs).includes(task.id))).documents.find(
      (d) => d.id === task.id,
    ) as SyncDocument;
    const answer = await client.push('tasks', [
      { assumedMasterState: base, newDocumentState: { ...base, _deleted: true } },
    ]);
    if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
    expect(answer.data.lost).toEqual([
      expect.objectContaining({
        id: task.id,
        path: '_deleted',
        attempted: true,
        kept: false,
        reason: 'refused',
        code: 'forbidden',
      }),
    ]);
    expect(answer.data.conflicts).toEqual([expect.objectContaining({ id: task.id, _deleted: false })]);
    expect((await admin.client.get(`/api/tasks/${task.id}`)).status).toBe(200);
    // Deleted by the administrator afterwards, the task is not Boris's to bring back either.
    await admin.client.delete(`/api/tasks/${task.id}`);
    const undo = await client.push('tasks', [
      { assumedMasterState: { ...base, _deleted: true }, newDocumentState: { ...base, _deleted: false } },
    ]);
    if (!undo.ok) throw new Error(JSON.stringify(undo.problem));
    expect(undo.data.lost).toEqual([
      expect.objectContaining({
        id: task.id,
        path: '_deleted',
        attempted: false,
        kept: true,
        reason: 'refused',
        code: 'forbidden',
        record: expect.objectContaining({ name: 'Safe audit' }),
      }),
    ]);
    expect(undo.data.conflicts).toEqual([expect.objectContaining({ id: task.id, _deleted: true })]);
    expect((await admin.client.get(`/api/tasks/${task.id}`)).status).toBe(404);
  });

  it('reports a task made offline on a form deleted meanwhile value by value, with the reason and its name', async () => {
    const gone = await createForm(admin, { fields: [{ name: 'Meter', type: 'text' }] });
    const meter = gone.fields[0].id as string;
    expect((await admin.client.delete(`/api/forms/${gone.id}`)).status).toBe(204);
    const client = await replica(alice);
    const id = randomUUID();
    const answer = await client.push('tasks', [
      {
        assumedMasterState: null,
        newDocumentState: { id, _deleted: false, formId: gone.id, title: 'Meter 7', fields: { [meter]: '1234' } },
      },
    ]);
    if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
    const refused = {
      id,
      kept: null,
      reason: 'refused',
      detail: expect.stringContaining('deleted'),
      code: 'form_deleted',
      record: { name: 'Meter 7', formId: gone.id },
    };
    expect(answer.data.lost).toEqual([
      { ...refused, path: 'title', attempted: 'Meter 7' },
      { ...refused, path: `fields.${meter}`, attempted: '1234' },
      // No one assigned: an empty set is no value entered.
    ]);
    expect(answer.data.conflicts).toEqual([{ id, _deleted: true }]);
  });

  it('reports a refused edit of a task for each of its values, with the reason and what stays', async () => {
    const task = await createTask(admin, form.id, { title: 'Gauge' });
    const client = await replica(alice);
    const base = (await client.pullUntil('tasks', (docs) => ids(docs).includes(task.id))).documents.find(
      (d) => d.id === task.id,
    ) as SyncDocument;
    const amount = form.fields.find((f: { name: string }) => f.name === 'Amount').id as string;
    const answer = await client.push('tasks', [
      {
        assumedMasterState: base,
        newDocumentState: { ...base, title: 'Gauge 2', fields: { ...(base.fields as object), [amount]: 'lots' } },
      },
    ]);
    if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
    const refused = {
      id: task.id,
      reason: 'refused',
      detail: expect.stringContaining('number'),
      code: 'validation_failed',
    };
    expect(answer.data.lost).toEqual([
      { ...refused, path: 'title', attempted: 'Gauge 2', kept: 'Gauge' },
      { ...refused, path: `fields.${amount}`, attempted: 'lots', kept: null },
    ]);
    expect((await admin.client.get(`/api/tasks/${task.id}`)).body.title).toBe('Gauge');
  });

  it('refuses a malformed task on its own, never failing the push or the server', async () => {
    const task = await createTask(admin, form.id, { title: 'Shape' });
    const other = await createTask(admin, form.id, { title: 'Other' });
    const client = await replica(alice);
    const pulled = (await client.pullUntil('tasks', (docs) => ids(docs).includes(other.id))).documents;
    // The latest state pulled of each (a pull may bring one twice).
    const base = (id: string) => pulled.findLast((d) => d.id === id) as SyncDocument;
    for (const malformed of [
      { assignees: [null] },
      { assignees: [{ userId: 'not an id' }] },
      { fields: 'not an object' },
      { title: 42 },
      { statusId: 'not an id' },
      // PostgreSQL stores no NUL character in text or jsonb.
      { title: 'Gauge\u0000' },
      { fields: { note: 'a\u0000b' } },
    ]) {
      const answer = await client.push('tasks', [
        { assumedMasterState: base(task.id), newDocumentState: { ...base(task.id), ...malformed } as SyncDocument },
        { assumedMasterState: base(other.id), newDocumentState: { ...base(other.id), title: 'Other, renamed' } },
      ]);
      if (!answer.ok) throw new Error(`${JSON.stringify(malformed)}: ${JSON.stringify(answer.problem)}`);
      expect(answer.data.lost).toEqual([
        expect.objectContaining({ id: task.id, path: '', reason: 'refused', code: 'validation_failed' }),
      ]);
      // The replica lands on the server's copy, unchanged; the other row of the push went through.
      expect(answer.data.conflicts).toEqual([expect.objectContaining({ id: task.id, title: 'Shape' })]);
      expect((await admin.client.get(`/api/tasks/${other.id}`)).body.title).toBe('Other, renamed');
      await admin.client.patch(`/api/tasks/${other.id}`, { title: 'Other' });
      // Pulled until the server's latest state is in: a transaction elsewhere can hold it back a moment.
      const again = await client.pullUntil(
        'tasks',
        (docs) => docs.findLast((d) => d.id === other.id)?.title === 'Other',
      );
      pulled.splice(0, pulled.length, ...again.documents);
    }
  });

  it('refuses a document nested thousands deep on its own, echoing nothing of it, never failing the push', async () => {
    const task = await createTask(admin, form.id, { title: 'Deep' });
    const other = await createTask(admin, form.id, { title: 'Beside' });
    const client = await replica(alice);
    const pulled = (await client.pullUntil('tasks', (docs) => ids(docs).includes(other.id))).documents;
    const base = (id: string) => pulled.find((d) => d.id === id) as SyncDocument;
    const deep = `${'['.repeat(20_000)}"x"${']'.repeat(20_000)}`;
    const [note] = form.fields.map((field: { id: string }) => field.id);
    // Written by hand: too deep for the Socket.IO client's own encoding.
    const deepTask = JSON.stringify({ ...base(task.id), fields: { [note]: '__DEEP__' } }).replace('"__DEEP__"', deep);
    const beside = JSON.stringify({
      assumedMasterState: base(other.id),
      newDocumentState: { ...base(other.id), title: 'Beside, renamed' },
    });
    for (const rows of [
      `[{"assumedMasterState":${JSON.stringify(base(task.id))},"newDocumentState":${deepTask}},${beside}]`,
      // A base nested as deep is refused alike: it is compared value by value with the server's.
      `[{"assumedMasterState":${deepTask},"newDocumentState":${JSON.stringify(base(task.id))}}]`,
    ]) {
      const answer = (await rawSyncCall(
        t,
        alice.client.accessToken as string,
        'sync:push',
        `{"collection":"tasks","rows":${rows}}`,
      )) as {
        ok: boolean;
        data: { lost: unknown[]; conflicts: SyncDocument[] };
      };
      expect(answer.ok, JSON.stringify(answer).slice(0, 300)).toBe(true);
      expect(answer.data.lost).toEqual([
        expect.objectContaining({
          id: task.id,
          attempted: null,
          code: 'validation_failed',
          detail: expect.stringContaining('32 levels'),
        }),
      ]);
      expect(answer.data.conflicts).toEqual([expect.objectContaining({ id: task.id, title: 'Deep' })]);
    }
    expect((await admin.client.get(`/api/tasks/${other.id}`)).body.title).toBe('Beside, renamed');
    const rowsAnswer = (await rawSyncCall(
      t,
      admin.client.accessToken as string,
      'sync:push',
      `{"collection":"directory_rows","rows":[{"assumedMasterState":null,"newDocumentState":{"id":"${randomUUID()}","directoryId":"${randomUUID()}","parentId":null,"cells":[${deep}],"_deleted":false}}]}`,
    )) as { ok: boolean; data: { lost: { attempted: unknown }[] } };
    expect(rowsAnswer.ok).toBe(true);
    expect(rowsAnswer.data.lost.map((edit) => edit.attempted)).toEqual([null]);
  });

  it('takes a new task and a new row pushed several times at once as one each, telling no push it was not kept', async () => {
    // A replica retrying a push whose first attempt still runs sends the same new records again.
    const clients = await Promise.all([replica(admin), replica(admin), replica(admin), replica(admin)]);
    const initial = (form.statuses as { id: string; initial: boolean }[]).find((status) => status.initial)?.id;
    const directory = (await admin.client.post('/api/directories', { name: 'Twice', columns: [{ name: 'Name' }] }))
      .body as { id: string };
    // A few rounds: requests that truly overlap are up to the scheduler.
    for (let round = 0; round < 3; round++) {
      const task = {
        id: randomUUID(),
        _deleted: false,
        formId: form.id,
        statusId: initial,
        title: `Sent twice ${round}`,
        description: '',
        fields: {},
        assignees: [],
      };
      const row = {
        id: randomUUID(),
        _deleted: false,
        directoryId: directory.id,
        parentId: null,
        cells: [`Row sent twice ${round}`],
        parentRowIds: [],
      };
      const answers = await Promise.all([
        ...clients.map((client) => client.push('tasks', [{ assumedMasterState: null, newDocumentState: task }])),
        ...clients.map((client) =>
          client.push('directory_rows', [{ assumedMasterState: null, newDocumentState: row }]),
        ),
      ]);
      for (const answer of answers) {
        if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
        expect(answer.data.lost).toEqual([]);
      }
      expect((await admin.client.get(`/api/tasks/${task.id}`)).body.title).toBe(`Sent twice ${round}`);
      const rows = (await admin.client.get(`/api/directories/${directory.id}/rows?limit=500`)).body.items as {
        id: string;
        cells: string[];
      }[];
      expect(rows.find((r) => r.id === row.id)?.cells).toEqual([`Row sent twice ${round}`]);
    }
  });

  it('takes a value a pushed task leaves out as unchanged, with a base or without one', async () => {
    // A client pushing only what it changed, not the whole document as replicas do.
    const task = await createTask(admin, form.id, {
      title: 'Whole',
      description: 'Kept description',
      fields: { [amount()]: '7', [note()]: 'kept note' },
    });
    const client = await replica(alice);
    const base = (await client.pullUntil('tasks', (docs) => ids(docs).includes(task.id))).documents.find(
      (d) => d.id === task.id,
    ) as SyncDocument;
    const renamed = await client.push('tasks', [
      {
        assumedMasterState: base,
        newDocumentState: { id: task.id, _deleted: false, formId: form.id, title: 'Renamed' },
      },
    ]);
    if (!renamed.ok) throw new Error(JSON.stringify(renamed.problem));
    expect(renamed.data.lost).toEqual([]);
    const stored = (await admin.client.get(`/api/tasks/${task.id}`)).body;
    expect(stored).toMatchObject({
      title: 'Renamed',
      description: 'Kept description',
      statusId: base.statusId,
      fields: { [amount()]: '7', [note()]: 'kept note' },
    });
    // A new task pushed again (its first answer lost on the way) without what the server filled in.
    const id = randomUUID();
    const made = { id, _deleted: false, formId: form.id, title: 'Sent by a bot' };
    for (let attempt = 0; attempt < 2; attempt++) {
      const answer = await client.push('tasks', [{ assumedMasterState: null, newDocumentState: made }]);
      if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
      expect(answer.data.lost).toEqual([]);
    }
    expect((await admin.client.get(`/api/tasks/${id}`)).body).toMatchObject({
      title: 'Sent by a bot',
      description: '',
    });
  });

  it('merges edits of one task pushed at the same moment in turn: whichever comes second is told it lost', async () => {
    const clients = await Promise.all([replica(alice), replica(alice), replica(admin)]);
    // A few rounds: requests that truly overlap are up to the scheduler.
    for (let round = 0; round < 4; round++) {
      const task = await createTask(admin, form.id, { title: `Contested ${round}`, fields: { [note()]: 'start' } });
      const base = (await clients[0]?.pullUntil('tasks', (docs) => ids(docs).includes(task.id)))?.documents.find(
        (d) => d.id === task.id,
      ) as SyncDocument;
      const answers = await Promise.all(
        clients.map((client, index) =>
          client.push('tasks', [
            {
              assumedMasterState: base,
              newDocumentState: {
                ...base,
                title: `Title ${index}`,
                fields: { ...(base.fields as object), [note()]: `note ${index}` },
              },
            },
          ]),
        ),
      );
      const stored = (await admin.client.get(`/api/tasks/${task.id}`)).body;
      // One replica's values stand, all of them; every other replica is told that its values lost.
      expect(clients.map((_, index) => stored.title === `Title ${index}`).filter(Boolean)).toHaveLength(1);
      for (const [index, answer] of answers.entries()) {
        if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
        const kept = stored.title === `Title ${index}`;
        expect(stored.fields[note()] === `note ${index}`).toBe(kept);
        const told = answer.data.lost.filter((edit) => edit.id === task.id).map((edit) => edit.path);
        expect(told.sort()).toEqual(kept ? [] : [`fields.${note()}`, 'title']);
      }
    }
  });

  it('creates tasks made offline with their own ids, and refuses writes to read-only collections', async () => {
    const client = await replica(alice);
    const id = randomUUID();
    const created = await client.push('tasks', [
      {
        assumedMasterState: null,
        newDocumentState: { id, _deleted: false, formId: form.id, title: 'Made on a train', fields: {} },
      },
    ]);
    expect(created.ok).toBe(true);
    expect((await alice.client.get(`/api/tasks/${id}`)).body.title).toBe('Made on a train');
    const forms = await client.push('forms', [
      { assumedMasterState: null, newDocumentState: { id: randomUUID(), _deleted: false } },
    ]);
    expect(forms).toMatchObject({ ok: false, problem: { status: 403 } });
  });
});

describe('push of directory rows', () => {
  // biome-ignore lint/suspicious/noExplicitAny: REST bodies are read loosely in tests.
  const rowOf = async (directoryId: string, id: string): Promise<any> =>
    (await admin.client.get(`/api/directories/${directoryId}/rows?limit=500`)).body.items.find(
      (r: { id: string }) => r.id === id,
    );

  it('creates rows made offline, merges cells per column, and reports a cell changed on both sides', async () => {
    const directory = await newDirectory('Pumps', [
      { name: 'Name', type: 'text' },
      { name: 'Power', type: 'number' },
      { name: 'Site', type: 'text' },
    ]);
    const row = (await admin.client.post(`/api/directories/${directory.id}/rows`, { cells: ['P-1', '10', 'North'] }))
      .body;
    const client = await replica(alice);
    const base = (await client.pullUntil('directory_rows', (docs) => ids(docs).includes(row.id))).documents.find(
      (d) => d.id === row.id,
    ) as SyncDocument;
    expect(base).toMatchObject({ directoryId: directory.id, cells: ['P-1', '10', 'North'] });

    // Online: the office renames the pump and changes its site.
    await admin.client.patch(`/api/directories/${directory.id}/rows/${row.id}`, { cells: ['P-1a', '10', 'South'] });
    // Offline: Alice changed the power and the site, and added a row.
    const added = randomUUID();
    const answer = await client.push('directory_rows', [
      { assumedMasterState: base, newDocumentState: { ...base, cells: ['P-1', '12 000,5', 'East'] } },
      {
        assumedMasterState: null,
        newDocumentState: {
          id: added,
          directoryId: directory.id,
          parentId: row.id,
          cells: ['P-2', '7'],
          _deleted: false,
        },
      },
    ]);
    if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
    expect(answer.data.lost).toEqual([
      { id: row.id, path: 'cells.2', attempted: 'East', kept: 'South', reason: 'changed_on_server' },
    ]);
    expect(answer.data.conflicts.map((c) => c.id)).toContain(row.id);
    expect((await rowOf(directory.id, row.id)).cells).toEqual(['P-1a', '12000.5', 'South']);
    expect(await rowOf(directory.id, added)).toMatchObject({ parentId: row.id, cells: ['P-2', '7', null] });
    // The conflict's master state is what the server now holds.
    expect(answer.data.conflicts.find((c) => c.id === row.id)).toMatchObject({ cells: ['P-1a', '12000.5', 'South'] });
  });

  it('merges a row pushed without a base while the server holds the version it names, else keeps the server’s', async () => {
    const directory = (
      await admin.client.post('/api/directories', {
        name: `Valves ${randomUUID()}`,
        columns: [{ name: 'Name' }, { name: 'Size' }],
      })
    ).body;
    const row = (await admin.client.post(`/api/directories/${directory.id}/rows`, { cells: ['V-1', '50'] })).body;
    const shed = (await admin.client.post(`/api/directories/${directory.id}/rows`, { cells: ['Shed'] })).body;
    const client = await replica(alice);
    const pulled = (await client.pullUntil('directory_rows', (docs) => ids(docs).includes(shed.id))).documents;
    const seen = pulled.find((d) => d.id === row.id) as SyncDocument;
    // Edited and deleted on a replica that kept no server state for them: each document's
    // updatedAt names the version the server still holds, so the edits apply.
    const answer = await client.push('directory_rows', [
      { assumedMasterState: null, newDocumentState: { ...seen, cells: ['V-1', '65'] } },
      {
        assumedMasterState: null,
        newDocumentState: { ...(pulled.find((d) => d.id === shed.id) as SyncDocument), _deleted: true },
      },
    ]);
    expect(answer).toEqual({ ok: true, data: { conflicts: [], lost: [] } });
    expect((await rowOf(directory.id, row.id)).cells).toEqual(['V-1', '65']);
    expect(await rowOf(directory.id, shed.id)).toBeUndefined();
    // The same document again now names an older version: whose the difference is cannot be told.
    const stale = await client.push('directory_rows', [
      { assumedMasterState: null, newDocumentState: { ...seen, cells: ['V-1', '80'] } },
    ]);
    if (!stale.ok) throw new Error(JSON.stringify(stale.problem));
    expect(stale.data.lost).toEqual([
      { id: row.id, path: 'cells.1', attempted: '80', kept: '65', reason: 'changed_on_server' },
    ]);
    expect((await rowOf(directory.id, row.id)).cells).toEqual(['V-1', '65']);
    const deleted = await client.push('directory_rows', [
      { assumedMasterState: null, newDocumentState: { ...seen, _deleted: true } },
    ]);
    expect(deleted.ok && deleted.data.lost).toEqual([
      { id: row.id, path: '_deleted', attempted: true, kept: false, reason: 'changed_on_server' },
    ]);
    expect((await rowOf(directory.id, row.id)).cells).toEqual(['V-1', '65']);
  });

  it('takes a value a pushed row leaves out as unchanged, with a base or without one', async () => {
    const directory = await newDirectory('Pumps', [{ name: 'Name' }, { name: 'Power' }]);
    const parent = (await admin.client.post(`/api/directories/${directory.id}/rows`, { cells: ['Station'] })).body;
    const row = (
      await admin.client.post(`/api/directories/${directory.id}/rows`, { parentId: parent.id, cells: ['P-1', '4'] })
    ).body;
    const client = await replica(alice);
    const base = (await client.pullUntil('directory_rows', (docs) => ids(docs).includes(row.id))).documents.find(
      (d) => d.id === row.id,
    ) as SyncDocument;
    // Only the cells sent: the row stays in its place under its parent.
    const edited = await client.push('directory_rows', [
      {
        assumedMasterState: base,
        newDocumentState: { id: row.id, _deleted: false, directoryId: directory.id, cells: ['P-1', '5'] },
      },
    ]);
    if (!edited.ok) throw new Error(JSON.stringify(edited.problem));
    expect(edited.data.lost).toEqual([]);
    expect(await rowOf(directory.id, row.id)).toMatchObject({ cells: ['P-1', '5'], parentId: parent.id });
    // A new row pushed again without the bindings and place the server gave it.
    const id = randomUUID();
    const made = { id, _deleted: false, directoryId: directory.id, cells: ['P-2', '5'] };
    for (let attempt = 0; attempt < 2; attempt++) {
      const answer = await client.push('directory_rows', [{ assumedMasterState: null, newDocumentState: made }]);
      if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
      expect(answer.data.lost).toEqual([]);
    }
    expect(await rowOf(directory.id, id)).toMatchObject({ cells: ['P-2', '5'], parentId: null });
  });

  it('merges edits of one row pushed at the same moment in turn: whichever comes second is told it lost', async () => {
    const directory = await newDirectory('Contested', [{ name: 'Name' }, { name: 'Size' }]);
    const clients = await Promise.all([replica(alice), replica(alice), replica(admin)]);
    for (let round = 0; round < 4; round++) {
      const row = (await admin.client.post(`/api/directories/${directory.id}/rows`, { cells: [`R${round}`, '1'] }))
        .body;
      const base = (
        await clients[0]?.pullUntil('directory_rows', (docs) => ids(docs).includes(row.id))
      )?.documents.find((d) => d.id === row.id) as SyncDocument;
      const answers = await Promise.all(
        clients.map((client, index) =>
          client.push('directory_rows', [
            { assumedMasterState: base, newDocumentState: { ...base, cells: [`R${round}`, `size ${index}`] } },
          ]),
        ),
      );
      const stored = await rowOf(directory.id, row.id);
      expect(clients.map((_, index) => stored.cells[1] === `size ${index}`).filter(Boolean)).toHaveLength(1);
      for (const [index, answer] of answers.entries()) {
        if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
        const told = answer.data.lost.filter((edit) => edit.id === row.id).map((edit) => edit.path);
        expect(told).toEqual(stored.cells[1] === `size ${index}` ? [] : ['cells.1']);
      }
    }
  });

  it('merges rows pushed without a base against the versions they name even when an earlier row of the push renumbered them', async () => {
    const directory = await newDirectory('Sheds', [{ name: 'Name' }]);
    const make = async (name: string) =>
      (await admin.client.post(`/api/directories/${directory.id}/rows`, { cells: [name] })).body;
    const first = await make('First shed');
    const second = await make('Second shed');
    const third = await make('Third shed');
    const client = await replica(alice);
    const pulled = (await client.pullUntil('directory_rows', (docs) => ids(docs).includes(third.id))).documents;
    const seen = (id: string) => pulled.findLast((d) => d.id === id) as SyncDocument;
    // Deleting the first row renumbers the others on the server, within this same push.
    const answer = await client.push('directory_rows', [
      { assumedMasterState: null, newDocumentState: { ...seen(first.id), _deleted: true } },
      { assumedMasterState: null, newDocumentState: { ...seen(second.id), _deleted: true } },
      { assumedMasterState: null, newDocumentState: { ...seen(third.id), cells: ['Third shed, painted'] } },
    ]);
    expect(answer).toMatchObject({ ok: true, data: { lost: [] } });
    expect(await rowOf(directory.id, first.id)).toBeUndefined();
    expect(await rowOf(directory.id, second.id)).toBeUndefined();
    expect((await rowOf(directory.id, third.id)).cells).toEqual(['Third shed, painted']);
  });

  it('applies offline moves and deletions, refusing a cycle and the deletion of a row changed meanwhile', async () => {
    const directory = await newDirectory('Places', [{ name: 'Name' }]);
    const make = async (name: string, parentId: string | null = null) =>
      (await admin.client.post(`/api/directories/${directory.id}/rows`, { cells: [name], parentId })).body;
    const region = await make('Region');
    const town = await make('Town', region.id);
    const street = await make('Street');
    const kiosk = await make('Kiosk');
    const client = await replica(alice);
    const docs = (await client.pullUntil('directory_rows', (d) => ids(d).includes(kiosk.id))).documents;
    const doc = (id: string) => docs.find((d) => d.id === id) as SyncDocument;

    // The office renames the kiosk while Alice deletes it offline.
    await admin.client.patch(`/api/directories/${directory.id}/rows/${kiosk.id}`, { cells: ['Kiosk 2'] });
    const answer = await client.push('directory_rows', [
      // Street moves under the town; the region under the town would be a cycle.
      { assumedMasterState: doc(street.id), newDocumentState: { ...doc(street.id), parentId: town.id, position: 0 } },
      { assumedMasterState: doc(region.id), newDocumentState: { ...doc(region.id), parentId: town.id, position: 0 } },
      { assumedMasterState: doc(kiosk.id), newDocumentState: { ...doc(kiosk.id), _deleted: true } },
    ]);
    if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
    expect(answer.data.lost).toEqual([
      expect.objectContaining({ id: region.id, path: 'parentId', attempted: town.id, reason: 'refused' }),
      { id: kiosk.id, path: '_deleted', attempted: true, kept: false, reason: 'changed_on_server' },
    ]);
    expect((await rowOf(directory.id, street.id)).parentId).toBe(town.id);
    expect((await rowOf(directory.id, region.id)).parentId).toBeNull();
    expect((await rowOf(directory.id, kiosk.id)).cells).toEqual(['Kiosk 2']);
    expect(answer.data.conflicts.map((c) => c.id).sort()).toEqual([kiosk.id, region.id].sort());

    // An offline move orders the row between its new neighbours with a value in between.
    const late = await make('Late');
    const ordered = (await client.pullUntil('directory_rows', (d) => ids(d).includes(late.id))).documents;
    const lateDoc = ordered.find((d) => d.id === late.id) as SyncDocument;
    const between = await client.push('directory_rows', [
      { assumedMasterState: lateDoc, newDocumentState: { ...lateDoc, position: 0.5 } },
    ]);
    expect(between.ok).toBe(true);
    const top = (await admin.client.get(`/api/directories/${directory.id}/rows?limit=500`)).body.items
      .filter((r: { parentId: string | null }) => r.parentId === null)
      .sort((a: { position: number }, b: { position: number }) => a.position - b.position)
      .map((r: { cells: string[] }) => r.cells[0]);
    expect(top).toEqual(['Region', 'Late', 'Kiosk 2']);

    // A deletion of an untouched row goes through; its child moves up into its place.
    const fresh = (await client.pullUntil('directory_rows', (d) => ids(d).includes(kiosk.id))).documents;
    const townNow = fresh.findLast((d) => d.id === town.id) ?? doc(town.id);
    const deleted = await client.push('directory_rows', [
      { assumedMasterState: townNow, newDocumentState: { ...townNow, _deleted: true } },
    ]);
    expect(deleted).toMatchObject({ ok: true, data: { lost: [], conflicts: [] } });
    expect(await rowOf(directory.id, town.id)).toBeUndefined();
    expect((await rowOf(directory.id, street.id)).parentId).toBe(region.id);
  });

  it('reports a refused edit of a row for each changed cell, with the reason and what stays', async () => {
    const directory = await newDirectory('Meters', [
      { name: 'Name', type: 'text' },
      { name: 'Reading', type: 'number' },
    ]);
    const row = (await admin.client.post(`/api/directories/${directory.id}/rows`, { cells: ['M-1', '5'] })).body;
    const client = await replica(alice);
    const base = (await client.pullUntil('directory_rows', (docs) => ids(docs).includes(row.id))).documents.find(
      (d) => d.id === row.id,
    ) as SyncDocument;
    const answer = await client.push('directory_rows', [
      { assumedMasterState: base, newDocumentState: { ...base, cells: ['M-1', 'five'] } },
    ]);
    if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
    expect(answer.data.lost).toEqual([
      {
        id: row.id,
        path: 'cells.1',
        attempted: 'five',
        kept: '5',
        reason: 'refused',
        detail: expect.any(String),
        code: 'validation_failed',
      },
    ]);
  });

  it('reports the values edited offline on a row deleted on the server meanwhile, naming the row by its label', async () => {
    const directory = await newDirectory('Valves', [
      { name: 'Name', type: 'text' },
      { name: 'Site', type: 'text' },
    ]);
    const row = (await admin.client.post(`/api/directories/${directory.id}/rows`, { cells: ['V-1', 'North'] })).body;
    const also = (await admin.client.post(`/api/directories/${directory.id}/rows`, { cells: ['V-2', 'South'] })).body;
    const client = await replica(alice);
    const pulled = (await client.pullUntil('directory_rows', (docs) => ids(docs).includes(also.id))).documents;
    const base = (id: string) => pulled.find((d) => d.id === id) as SyncDocument;
    for (const id of [row.id, also.id]) {
      expect((await admin.client.delete(`/api/directories/${directory.id}/rows/${id}`)).status).toBe(204);
    }
    const answer = await client.push('directory_rows', [
      { assumedMasterState: base(row.id), newDocumentState: { ...base(row.id), cells: ['V-1', 'East'] } },
      // Deleted on both sides: nothing to tell.
      { assumedMasterState: base(also.id), newDocumentState: { ...base(also.id), _deleted: true } },
    ]);
    if (!answer.ok) throw new Error(JSON.stringify(answer.problem));
    expect(answer.data.lost).toEqual([
      {
        id: row.id,
        path: 'cells.1',
        attempted: 'East',
        kept: null,
        reason: 'gone_on_server',
        record: { name: 'V-1', directoryId: directory.id },
      },
    ]);
    expect(await rowOf(directory.id, row.id)).toBeUndefined();

    // A row made offline in a directory deleted meanwhile: refused, value by value, with the reason.
    expect((await admin.client.delete(`/api/directories/${directory.id}`)).status).toBe(204);
    const made = randomUUID();
    const refused = await client.push('directory_rows', [
      {
        assumedMasterState: null,
        newDocumentState: {
          id: made,
          _deleted: false,
          directoryId: directory.id,
          parentId: null,
          cells: ['V-9', 'Dock'],
        },
      },
    ]);
    if (!refused.ok) throw new Error(JSON.stringify(refused.problem));
    const entry = {
      id: made,
      kept: null,
      reason: 'refused',
      detail: expect.any(String),
      code: expect.any(String),
      record: { name: 'V-9', directoryId: directory.id },
    };
    expect(refused.data.lost).toEqual([
      { ...entry, path: 'cells.0', attempted: 'V-9' },
      { ...entry, path: 'cells.1', attempted: 'Dock' },
    ]);
  });

  it('brings back a row the device deleted and then restored (an undo), in its place with its children and what it changed', async () => {
    const directory = await newDirectory('Stations', [{ name: 'Name' }, { name: 'Code' }]);
    const post = async (body: object) =>
      (await admin.client.post(`/api/directories/${directory.id}/rows`, body)).body as { id: string };
    const station = await post({ cells: ['Station'] });
    const pump = await post({ cells: ['Pump', 'P'], parentId: station.id });
    const valve = await post({ cells: ['Valve'], parentId: pump.id });
    const gauge = await post({ cells: ['Gauge'], parentId: pump.id });
    const tank = await post({ cells: ['Tank'], parentId: station.id });
    const client = await replica(alice);
    const docs = (await client.pullUntil('directory_rows', (d) => ids(d).includes(tank.id))).documents;
    const seen = (id: string) => docs.find((d) => d.id === id) as SyncDocument;
    // Deleted on the device as the replica does it: its children moved up into its place.
    const deleted = { ...seen(pump.id), _deleted: true };
    const movedUp = [valve.id, gauge.id].map((id, index) => ({
      ...seen(id),
      parentId: station.id,
      position: Number(seen(pump.id).position) - 0.5 + (index + 1) / 3,
    }));
    const deletion = await client.push('directory_rows', [
      ...movedUp.map((row, index) => ({
        assumedMasterState: seen(row.id),
        newDocumentState: movedUp[index] as SyncDocument,
      })),
      { assumedMasterState: seen(pump.id), newDocumentState: deleted },
    ]);
    expect(deletion.ok && deletion.data.lost).toEqual([]);
    expect(await rowOf(directory.id, pump.id)).toBeUndefined();
    const tree = () => rowTreeShape(admin, directory.id);
    expect(await tree()).toEqual([['Station', ['Valve', 'Gauge', 'Tank']]]);
    // Undone on the device, a cell changed too: the row first, then its children moved back.
    const movedBack = [valve.id, gauge.id].map((id) => seen(id));
    const undo = await client.push('directory_rows', [
      { assumedMasterState: deleted, newDocumentState: { ...seen(pump.id), cells: ['Pump', 'P2'] } },
      ...movedBack.map((row, index) => ({ assumedMasterState: movedUp[index] as SyncDocument, newDocumentState: row })),
    ]);
    expect(undo.ok && undo.data.lost).toEqual([]);
    expect(await tree()).toEqual([['Station', [['Pump', ['Valve', 'Gauge']], 'Tank']]]);
    expect((await rowOf(directory.id, pump.id)).cells).toEqual(['Pump', 'P2']);

    // Against the server's bare tombstone (deleted elsewhere, pulled before the undo) too.
    expect((await admin.client.delete(`/api/directories/${directory.id}/rows/${tank.id}`)).status).toBe(204);
    const bare = (
      await client.pullUntil('directory_rows', (d) => d.some((doc) => doc.id === tank.id && doc._deleted))
    ).documents.find((d) => d.id === tank.id) as SyncDocument;
    expect(bare.cells).toBeUndefined();
    const back = await client.push('directory_rows', [{ assumedMasterState: bare, newDocumentState: seen(tank.id) }]);
    expect(back.ok && back.data.lost).toEqual([]);
    expect(await tree()).toEqual([['Station', [['Pump', ['Valve', 'Gauge']], 'Tank']]]);

    // Not another organization's: its push of the same undo restores nothing.
    expect((await admin.client.delete(`/api/directories/${directory.id}/rows/${tank.id}`)).status).toBe(204);
    const intruder = await replica(other);
    await intruder.push('directory_rows', [{ assumedMasterState: bare, newDocumentState: seen(tank.id) }]);
    expect(await rowOf(directory.id, tank.id)).toBeUndefined();
    // Nor once its directory is deleted: the undo comes back as a lost edit of the deletion.
    expect((await admin.client.delete(`/api/directories/${directory.id}`)).status).toBe(204);
    const refused = await client.push('directory_rows', [
      { assumedMasterState: bare, newDocumentState: seen(tank.id) },
    ]);
    if (!refused.ok) throw new Error(JSON.stringify(refused.problem));
    expect(refused.data.lost).toContainEqual(
      expect.objectContaining({ id: tank.id, path: '_deleted', attempted: false, kept: true }),
    );
    expect(refused.data.conflicts).toEqual([expect.objectContaining({ id: tank.id, _deleted: true })]);
  });

  it('makes a row the device made, deleted and took back before any of it was sent', async () => {
    const directory = await newDirectory('Sheds', [{ name: 'Name' }]);
    const client = await replica(alice);
    const made = {
      id: randomUUID(),
      directoryId: directory.id,
      parentId: null,
      position: 0,
      cells: ['Shed 1'],
      parentRowIds: [],
      updatedAt: new Date().toISOString(),
      _deleted: false,
    } as SyncDocument;
    const deleted = { ...made, _deleted: true };
    expect(await client.push('directory_rows', [{ assumedMasterState: null, newDocumentState: deleted }])).toEqual({
      ok: true,
      data: { conflicts: [], lost: [] },
    });
    expect(await rowOf(directory.id, made.id)).toBeUndefined();
    const undo = await client.push('directory_rows', [{ assumedMasterState: deleted, newDocumentState: made }]);
    expect(undo.ok && undo.data.lost).toEqual([]);
    expect((await rowOf(directory.id, made.id))?.cells).toEqual(['Shed 1']);
  });

  it('never touches another organization’s rows', async () => {
    const directory = await newDirectory('Mine', [{ name: 'Name' }]);
    const row = (await admin.client.post(`/api/directories/${directory.id}/rows`, { cells: ['Ours'] })).body;
    const intruder = await replica(other);
    const forged = { id: row.id, directoryId: directory.id, parentId: null, cells: ['Taken'], _deleted: false };
    const answer = await intruder.push('directory_rows', [{ assumedMasterState: forged, newDocumentState: forged }]);
    expect(answer.ok && answer.data.lost.length).toBe(0);
    const created = await intruder.push('directory_rows', [
      { assumedMasterState: null, newDocumentState: { ...forged, id: randomUUID() } },
    ]);
    expect(created.ok && created.data.lost.map((l) => l.reason)).toEqual(['refused']);
    expect((await rowOf(directory.id, row.id)).cells).toEqual(['Ours']);
    expect((await admin.client.get(`/api/directories/${directory.id}/rows`)).body.items).toHaveLength(1);
    // A malformed row is refused on its own, with the reason; the rest of the push goes through.
    const mine = await replica(admin);
    const fine = randomUUID();
    const mixed = await mine.push('directory_rows', [
      { assumedMasterState: null, newDocumentState: { ...forged, id: randomUUID(), parentId: 'not-a-row' } },
      { assumedMasterState: null, newDocumentState: { ...forged, id: fine, cells: ['Fine'] } },
    ]);
    if (!mixed.ok) throw new Error(JSON.stringify(mixed.problem));
    expect(mixed.data.lost).toEqual([
      expect.objectContaining({ reason: 'refused', detail: expect.stringContaining('parentId') }),
    ]);
    expect((await rowOf(directory.id, fine)).cells).toEqual(['Fine']);
    const alsoFine = randomUUID();
    const nul = await mine.push('directory_rows', [
      { assumedMasterState: null, newDocumentState: { ...forged, id: randomUUID(), cells: ['Nul\u0000'] } },
      { assumedMasterState: null, newDocumentState: { ...forged, id: alsoFine, cells: ['Also fine'] } },
    ]);
    if (!nul.ok) throw new Error(JSON.stringify(nul.problem));
    expect(nul.data.lost).toEqual([
      expect.objectContaining({ reason: 'refused', code: 'validation_failed', detail: expect.stringContaining('NUL') }),
    ]);
    expect((await rowOf(directory.id, alsoFine)).cells).toEqual(['Also fine']);
  });
});

describe('stream', () => {
  it('streams committed changes to a replica that has caught up', async () => {
    const client = await replica(alice);
    await client.pullAll('tasks');
    const task = await createTask(admin, form.id, { title: 'Live' });
    await vi.waitFor(
      () => {
        const documents = client.streamed.filter((m) => m.collection === 'tasks').flatMap((m) => m.documents);
        expect(ids(documents)).toContain(task.id);
      },
      { timeout: 5_000, interval: 50 },
    );
  });

  it('streams what an event handler wrote at once too: a role’s new members on the tasks that name it', async () => {
    const config = testConfig({ dataDir: t.dataDir, syncPollMs: 60_000 });
    const quiet = createApp({ config, db: t.database.db, logger: createLogger(config) });
    const { url } = await quiet.listen();
    try {
      const bob = await createMember(t, admin, { name: 'Bob' });
      const carol = await createMember(t, admin, { name: 'Carol' });
      const crewForm = await createForm(admin, { fields: [{ name: 'Crew', type: 'user', allow_multiple: true }] });
      const crew = crewForm.fields[0].id as string;
      const role = (await admin.client.post('/api/roles', { name: `Crew ${randomUUID()}`, memberIds: [bob.userId] }))
        .body;
      const named: string[] = [];
      for (let i = 0; i < 10; i++) {
        const task = await createTask(admin, crewForm.id, {
          title: `Shift ${i}`,
          fields: { [crew]: [`role:${role.id}`] },
        });
        named.push(task.id);
      }
      const client = await connectSync({ url }, admin.client.accessToken as string);
      await client.pullUntil('tasks', (docs) => named.every((id) => ids(docs).includes(id)));
      // Answered by the quiet server; its handler then assigns the role's new member on every task.
      const changed = await fetch(`${url}/api/roles/${role.id}/members`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${admin.client.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ userIds: [carol.userId] }),
      });
      expect(changed.status).toBe(200);
      await vi.waitFor(
        () => {
          const documents = client.streamed.filter((m) => m.collection === 'tasks').flatMap((m) => m.documents);
          for (const id of named) {
            const assignees = documents.findLast((d) => d.id === id)?.assignees as { userId: string }[] | undefined;
            expect(assignees?.map((a) => a.userId)).toEqual([carol.userId]);
          }
        },
        { timeout: 10_000, interval: 50 },
      );
      client.close();
    } finally {
      await quiet.close();
    }
  });

  it('streams a write answered over REST at once, without waiting for the poll', async () => {
    // A second server over the same database that would look for changes only once a minute.
    const config = testConfig({ dataDir: t.dataDir, syncPollMs: 60_000 });
    const quiet = createApp({ config, db: t.database.db, logger: createLogger(config) });
    const { url } = await quiet.listen();
    try {
      const client = await connectSync({ url }, alice.client.accessToken as string);
      const task = await createTask(admin, form.id, { title: 'Before' });
      await client.pullUntil('tasks', (docs) => ids(docs).includes(task.id));
      const answer = await fetch(`${url}/api/tasks/${task.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${admin.client.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'After' }),
      });
      expect(answer.status).toBe(200);
      await vi.waitFor(
        () => {
          const documents = client.streamed.filter((m) => m.collection === 'tasks').flatMap((m) => m.documents);
          expect(documents.find((d) => d.id === task.id)?.title).toBe('After');
        },
        { timeout: 10_000, interval: 50 },
      );
      client.close();
    } finally {
      await quiet.close();
    }
  });

  it('streams a write hidden at first behind an older transaction soon after that one ends, not at the next poll', async (context) => {
    if (testEngine() !== 'postgres') context.skip('needs two connections: a PostgreSQL server');
    const config = testConfig({ dataDir: t.dataDir, syncPollMs: 60_000 });
    const quiet = createApp({ config, db: t.database.db, logger: createLogger(config) });
    const { url } = await quiet.listen();
    // A long transaction (a report, another instance's write) started before the write.
    const older = new pg.Client({ connectionString: t.database.url });
    await older.connect();
    try {
      const client = await connectSync({ url }, alice.client.accessToken as string);
      const task = await createTask(admin, form.id, { title: 'Before' });
      await client.pullUntil('tasks', (docs) => ids(docs).includes(task.id));
      await older.query('BEGIN');
      await older.query('SELECT pg_current_xact_id()');
      const answer = await fetch(`${url}/api/tasks/${task.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${admin.client.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'After' }),
      });
      expect(answer.status).toBe(200);
      const streamedTitle = () =>
        client.streamed
          .filter((m) => m.collection === 'tasks')
          .flatMap((m) => m.documents)
          .findLast((d) => d.id === task.id)?.title;
      // Hidden while the older transaction runs: no replica may skip past what it may still commit.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(streamedTitle()).toBeUndefined();
      await older.query('COMMIT');
      await vi.waitFor(() => expect(streamedTitle()).toBe('After'), { timeout: 10_000, interval: 50 });
      client.close();
    } finally {
      await older.end();
      await quiet.close();
    }
  });
});
