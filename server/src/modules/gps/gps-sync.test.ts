import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createMember, createOrg, type Member } from '../../../../test/helpers/factories';
import { connectSync } from '../../../../test/helpers/sync-client';

let t: TestApp;
let admin: Member;

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
});
afterAll(() => t.close());

async function objectsPulled(member: Member, done: (documents: { id: string; _deleted: boolean }[]) => boolean) {
  const client = await connectSync(t, member.client.accessToken as string);
  try {
    return (await client.pullUntil('gps_objects', done as never)).documents as unknown as {
      id: string;
      name?: string;
      lastPosition?: { lat: number } | null;
      _deleted: boolean;
    }[];
  } finally {
    client.close();
  }
}

describe('gps: objects on replicas', () => {
  it('pulls objects with their last position for GPS users only, nothing at all for others, tombstones once deleted', async () => {
    const created = await admin.client.post('/api/gps/objects', { name: 'Tanker 4', trackerId: `sync-${Date.now()}` });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const granted = await createMember(t, admin);
    await admin.client.put('/api/module-access', { users: [{ userId: granted.userId, modules: ['gps'] }] });
    const refused = await createMember(t, admin);
    const stranger = await createOrg(t);

    const seen = await objectsPulled(granted, (documents) => documents.some((d) => d.id === id));
    expect(seen.find((d) => d.id === id)).toMatchObject({ name: 'Tanker 4', lastPosition: null, _deleted: false });
    // A pull that reaches past the object's commit for them too, and finds nothing.
    await objectsPulled(admin, (documents) => documents.some((d) => d.id === id));
    expect(await objectsPulled(refused, () => true)).toEqual([]);
    expect(await objectsPulled(stranger, () => true)).toEqual([]);

    expect((await admin.client.delete(`/api/gps/objects/${id}`)).status).toBe(204);
    const after = await objectsPulled(granted, (documents) => documents.some((d) => d.id === id && d._deleted));
    expect(after.filter((d) => d.id === id)).toEqual([{ id, _deleted: true }]);
  });
});
