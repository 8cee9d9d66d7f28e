import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskDocument } from '../renderer/src/data/schemas';
import { startTestApp, type TestApp } from './helpers/app';
import { createForm, createMember, createOrg, createTask, type Member } from './helpers/factories';
import { memberReplica } from './helpers/replica';

let t: TestApp;
let admin: Member;
const WAIT = { timeout: 15_000, interval: 50 };

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
});
afterAll(async () => {
  await t.close();
});

describe('a returning user’s acknowledgement of what their substitute did', () => {
  it('is made on the device with no connection and reaches the server when it is back', async () => {
    const anna = await createMember(t, admin, { name: 'Anna' });
    const boris = await createMember(t, admin, { name: 'Boris' });
    const form = await createForm(admin);
    const created = await anna.client.post('/api/delegations', {
      userId: anna.userId,
      substituteUserId: boris.userId,
      formId: null,
      from: new Date(Date.now() - 3_600_000).toISOString(),
      to: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const task = await createTask(admin, form.id);
    await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: anna.userId });
    await anna.client.patch(`/api/delegations/${created.body.id}`, { to: new Date().toISOString() });
    const review = async () =>
      (await admin.client.get(`/api/tasks/${task.id}`)).body.assignees.find(
        (a: { userId: string }) => a.userId === anna.userId,
      ).pending_review;
    expect(await review()).toBe(true);

    const { replica, online, offline } = await memberReplica(t, anna, { onLine: true });
    try {
      const onDevice = async () =>
        ((await replica.db.tasks.findOne(task.id).exec())?.toJSON() as TaskDocument | undefined)?.assignees?.find(
          (a) => a.userId === anna.userId,
        )?.pending_review;
      await expect.poll(onDevice, WAIT).toBe(true);
      offline();
      await replica.acknowledgeDelegation(task.id);
      expect(await onDevice()).toBe(false);
      expect(await review()).toBe(true);
      online();
      await expect.poll(review, WAIT).toBe(false);
      await expect.poll(() => replica.status$.value.pending, WAIT).toBe(0);
      expect((await anna.client.get('/api/home/inbox?reason=delegation_review')).body.items).toEqual([]);
      expect(await onDevice()).toBe(false);
    } finally {
      await replica.close();
    }
  });
});
