import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { scanQr, unzip } from '../../../../test/helpers/codes';
import { createForm, createMember, createOrg, createTask, type Member } from '../../../../test/helpers/factories';
import type { AuthContext } from '../../platform/auth/auth-context';
import { formCodes } from './qr.service';

const PUBLIC_URL = 'https://orbita.example.org';

let t: TestApp;
let admin: Member;
let member: Member;
// biome-ignore lint/suspicious/noExplicitAny: form bodies are read loosely in tests.
let form: any;

beforeAll(async () => {
  t = await startTestApp({ config: { publicUrl: PUBLIC_URL } });
  admin = await createOrg(t);
  member = await createMember(t, admin, { name: 'Member' });
  form = await createForm(admin, { name: 'Pumps', qr_generation_enabled: true });
});
afterAll(() => t.close());

const post = (who: Member, formId: string, body: unknown) =>
  t.request(`/api/forms/${formId}/qr-codes`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${who.client.accessToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

const taskCode = (who: Member, taskId: string, query = '') =>
  t.request(`/api/tasks/${taskId}/qr-code${query}`, { headers: { Authorization: `Bearer ${who.client.accessToken}` } });

describe('QR codes of a form’s tasks', () => {
  it('archives one scannable code per task, opening the task, with an index', async () => {
    const first = await createTask(admin, form.id, { title: 'Насос №1 / подвал' });
    const second = await createTask(member, form.id, { title: 'Pump 2' });
    const response = await post(member, form.id, {});
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(response.headers.get('x-qr-count')).toBe('2');
    expect(response.headers.get('content-disposition')).toContain("filename*=UTF-8''QR%20Pumps.zip");

    const files = await unzip(Buffer.from(await response.arrayBuffer()));
    expect([...files.keys()].sort()).toEqual(['001 Насос №1 подвал.png', '002 Pump 2.png', 'index.csv']);
    expect(scanQr(files.get('001 Насос №1 подвал.png') as Buffer)).toBe(`${PUBLIC_URL}/tasks/${first.id}`);
    expect(scanQr(files.get('002 Pump 2.png') as Buffer)).toBe(`${PUBLIC_URL}/tasks/${second.id}`);
    const index = (files.get('index.csv') as Buffer)
      .toString('utf8')
      .replace(/^\ufeff/, '')
      .trim()
      .split(/\r?\n/);
    expect(index).toEqual([
      'file,task_id,title,link',
      `001 Насос №1 подвал.png,${first.id},Насос №1 / подвал,${PUBLIC_URL}/tasks/${first.id}`,
      `002 Pump 2.png,${second.id},Pump 2,${PUBLIC_URL}/tasks/${second.id}`,
    ]);
  });

  it('encodes the chosen tasks in the order given, at the size asked for', async () => {
    const a = await createTask(admin, form.id, { title: 'Chosen A' });
    const b = await createTask(admin, form.id, { title: 'Chosen B' });
    const response = await post(admin, form.id, { taskIds: [b.id, a.id], size: 200 });
    expect(response.status).toBe(200);
    const files = await unzip(Buffer.from(await response.arrayBuffer()));
    expect([...files.keys()]).toEqual(['001 Chosen B.png', '002 Chosen A.png', 'index.csv']);
    const image = PNG.sync.read(files.get('001 Chosen B.png') as Buffer);
    expect(image.width).toBe(image.height);
    expect(image.width).toBeLessThanOrEqual(200);
    expect(image.width).toBeGreaterThan(140);
    expect(scanQr(files.get('001 Chosen B.png') as Buffer)).toBe(`${PUBLIC_URL}/tasks/${b.id}`);
  });

  it('refuses tasks that are not the form’s or not visible, pointing at each', async () => {
    const other = await createForm(admin, { name: 'Other', qr_generation_enabled: true });
    const foreign = await createTask(admin, other.id, { title: 'Other form' });
    const own = await createTask(admin, form.id, { title: 'Own' });
    const stranger = await createOrg(t, 'Stranger');
    const strangerForm = await createForm(stranger, { qr_generation_enabled: true });
    const strangerTask = await createTask(stranger, strangerForm.id, { title: 'Theirs' });
    const response = await post(admin, form.id, { taskIds: [own.id, foreign.id, strangerTask.id] });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    const problem = await response.json();
    expect(problem.errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code])).toEqual([
      ['#/taskIds/1', 'unknown_task'],
      ['#/taskIds/2', 'unknown_task'],
    ]);
    // Another organization's form is not found, like an unknown one.
    expect((await post(admin, strangerForm.id, {})).status).toBe(404);
  });

  it('is refused for forms without QR codes, with what to do', async () => {
    const plain = await createForm(admin, { name: 'Plain' });
    const task = await createTask(admin, plain.id, { title: 'No codes' });
    const response = await post(admin, plain.id, {});
    expect(response.status).toBe(409);
    const problem = await response.json();
    expect(problem.code).toBe('qr_generation_disabled');
    expect(problem.detail).toContain('turns them on');
    expect((await taskCode(admin, task.id)).status).toBe(409);
  });

  it('refuses bad sizes and an empty form with problems, not archives', async () => {
    expect((await post(admin, form.id, { size: 20 })).status).toBe(400);
    expect((await post(admin, form.id, { taskIds: [] })).status).toBe(400);
    const empty = await createForm(admin, { name: 'Empty', qr_generation_enabled: true });
    const response = await post(admin, empty.id, {});
    expect(response.status).toBe(409);
    expect((await response.json()).detail).toContain('has no tasks');
  });

  it('hides forms closed to the caller’s roles', async () => {
    const role = await admin.client.post('/api/roles', { name: 'Inspectors' });
    const closed = await createForm(admin, { qr_generation_enabled: true, visibleRoleIds: [role.body.id] });
    const task = await createTask(admin, closed.id, { title: 'Closed' });
    expect((await post(member, closed.id, {})).status).toBe(404);
    expect((await taskCode(member, task.id)).status).toBe(404);
  });

  it('asks to choose tasks when the form has more than one archive holds', async () => {
    const big = await createForm(admin, { qr_generation_enabled: true });
    for (const title of ['One', 'Two', 'Three']) await createTask(admin, big.id, { title });
    const auth: AuthContext = {
      kind: 'user',
      userId: admin.userId,
      organizationId: admin.organizationId,
      sessionId: 'test',
      isAdmin: true,
      locale: 'en',
      roleIds: [],
      modules: [],
    };
    const deps = { db: t.database.db, publicUrl: PUBLIC_URL, maxBatch: 2 };
    await expect(formCodes(deps, auth, big.id, { size: 256 })).rejects.toMatchObject({ code: 'batch_too_large' });
    const chosen = await formCodes(deps, auth, big.id, {
      size: 256,
      taskIds: (await admin.client.get(`/api/tasks?formId=${big.id}`)).body.items
        .slice(0, 2)
        .map((x: { id: string }) => x.id),
    });
    expect(chosen.count).toBe(2);
  });
});

describe('the QR code of one task', () => {
  it('is a PNG that opens the task', async () => {
    const task = await createTask(member, form.id, { title: 'Single' });
    const response = await taskCode(member, task.id, '?size=300');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    // The image never changes for a task: the browser may keep it, for this user only.
    expect(response.headers.get('cache-control')).toBe('private, max-age=3600');
    const png = Buffer.from(await response.arrayBuffer());
    expect(PNG.sync.read(png).width).toBeLessThanOrEqual(300);
    expect(scanQr(png)).toBe(`${PUBLIC_URL}/tasks/${task.id}`);
    expect((await taskCode(member, task.id, '?size=abc')).status).toBe(400);
  });
});
