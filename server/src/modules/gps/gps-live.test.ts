import { GPS_POSITIONS_EVENT, type GpsLivePositions } from '@shared/gps-live';
import type { Server as SocketServer } from 'socket.io';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createMember, createOrg, type Member } from '../../../../test/helpers/factories';
import { connectSync, type SyncClient } from '../../../../test/helpers/sync-client';
import { LivePositions } from './live';

let t: TestApp;
let admin: Member;
let ingestionToken: string;

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
  ingestionToken = (await admin.client.post('/api/gps/ingestion-token')).body.token;
});
afterAll(() => t.close());

const base = Date.parse('2026-03-02T08:00:00Z');

async function postFix(tracker: string, seconds: number, meters: number) {
  const fixTime = new Date(base + seconds * 1000).toISOString();
  const response = await t.request('/api/gps/traccar/positions', {
    method: 'POST',
    headers: { Authorization: `Bearer ${ingestionToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      position: {
        fixTime,
        deviceTime: fixTime,
        latitude: 55.75 + meters / 111_195,
        longitude: 37.6,
        speed: 20,
        valid: true,
      },
      device: { name: `Truck ${tracker}`, uniqueId: tracker },
    }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as { objectId: string; accepted: boolean };
}

function collect(client: SyncClient): GpsLivePositions[] {
  const received: GpsLivePositions[] = [];
  client.socket.on(GPS_POSITIONS_EVENT, (message: GpsLivePositions) => received.push(message));
  return received;
}

async function until(done: () => boolean, ms = 5_000) {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('gps: live positions', () => {
  it('sends accepted positions to users with GPS access only, within their organization', async () => {
    const granted = await createMember(t, admin);
    const grant = await admin.client.put('/api/module-access', {
      users: [{ userId: granted.userId, modules: ['gps'] }],
    });
    expect(grant.status, JSON.stringify(grant.body)).toBeLessThan(300);
    const refused = await createMember(t, admin);
    const otherAdmin = await createOrg(t);
    const sockets = await Promise.all(
      [admin, granted, refused, otherAdmin].map((member) => connectSync(t, member.client.accessToken as string)),
    );
    const [toAdmin, toGranted, toRefused, toOther] = sockets.map(collect) as [
      GpsLivePositions[],
      GpsLivePositions[],
      GpsLivePositions[],
      GpsLivePositions[],
    ];
    try {
      const tracker = `live-${Date.now()}`;
      const first = await postFix(tracker, 0, 0);
      await postFix(tracker, 10, 100);
      expect(first.accepted).toBe(true);
      const newest = (messages: GpsLivePositions[]) =>
        messages
          .flatMap((m) => m.positions)
          .filter((p) => p.objectId === first.objectId)
          .at(-1);
      await until(() => newest(toAdmin)?.fixTime === new Date(base + 10_000).toISOString());
      await until(() => newest(toGranted)?.fixTime === new Date(base + 10_000).toISOString());
      expect(newest(toAdmin)).toMatchObject({
        lat: expect.closeTo(55.75 + 100 / 111_195, 6),
        lon: 37.6,
        speedKmh: 37.04,
      });
      // One more send has passed for everyone once a later fix reached the admin.
      await postFix(tracker, 20, 200);
      await until(() => newest(toAdmin)?.fixTime === new Date(base + 20_000).toISOString());
      expect(toRefused).toEqual([]);
      expect(toOther).toEqual([]);
    } finally {
      for (const socket of sockets) socket.close();
    }
  });
});

describe('gps: live batching', () => {
  it('sends one message per organization per send, holding each object once at its newest fix', () => {
    const emitted: { room: string; event: string; message: GpsLivePositions }[] = [];
    const io = {
      of: () => ({
        to: (room: string) => ({
          emit: (event: string, message: GpsLivePositions) => emitted.push({ room, event, message }),
        }),
      }),
    } as unknown as SocketServer;
    const live = new LivePositions(io);
    const fix = (organizationId: string, objectId: string, second: number) => ({
      organizationId,
      objectId,
      fixTime: new Date(base + second * 1000).toISOString(),
      lat: 55 + second / 1000,
      lon: 37,
      speedKmh: 10,
      course: 90,
      isLbs: false,
    });
    live.note(fix('org-a', 'car-1', 1));
    live.note(fix('org-a', 'car-1', 3));
    live.note(fix('org-a', 'car-1', 2)); // late: an older fix never moves the object back
    live.note(fix('org-a', 'car-2', 1));
    live.note(fix('org-b', 'car-3', 1));
    live.send();
    expect(emitted.map((e) => e.room).sort()).toEqual([
      'organization:org-a:module:gps',
      'organization:org-b:module:gps',
    ]);
    const a = emitted.find((e) => e.room.includes('org-a'));
    expect(a?.event).toBe(GPS_POSITIONS_EVENT);
    expect(a?.message.positions.map((p) => [p.objectId, p.fixTime])).toEqual([
      ['car-1', new Date(base + 3000).toISOString()],
      ['car-2', new Date(base + 1000).toISOString()],
    ]);
    live.send();
    expect(emitted).toHaveLength(2);
  });
});
