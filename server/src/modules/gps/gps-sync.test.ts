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

  it('sends an object again when what replicas show of it changes, not for a message that only moves last_seen', async () => {
    const token = (await admin.client.post('/api/gps/ingestion-token')).body.token as string;
    const granted = await createMember(t, admin);
    await admin.client.put('/api/module-access', { users: [{ userId: granted.userId, modules: ['gps'] }] });
    const tracker = `stamp-${Date.now()}`;
    const fixTime = new Date(Date.now() - 60_000).toISOString();
    const send = async (attributes: Record<string, unknown> = {}, at = fixTime) => {
      const response = await t.request('/api/gps/traccar/positions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify({
          position: { fixTime: at, latitude: 55.75, longitude: 37.6, speed: 0, valid: true, attributes },
          device: { uniqueId: tracker, name: tracker },
        }),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { objectId: string }).objectId;
    };
    const id = await send();
    const client = await connectSync(t, granted.client.accessToken as string);
    try {
      const first = await client.pullAll('gps_objects', null);
      expect(first.documents.map((d) => d.id)).toContain(id);
      // The same message again: only last_seen moves, and replicas are sent nothing.
      await send();
      expect((await admin.client.get(`/api/gps/objects/${id}`)).body.last_seen).not.toBeNull();
      expect((await client.pullAll('gps_objects', first.checkpoint)).documents).toEqual([]);
      // The battery level the card shows changed: the object comes again with it.
      await send({ batteryLevel: 41 });
      const again = await client.pullAll('gps_objects', first.checkpoint);
      expect(again.documents).toEqual([
        expect.objectContaining({ id, lastPosition: expect.objectContaining({ batteryPercent: 41 }) }),
      ]);
    } finally {
      client.close();
    }
  });
});
