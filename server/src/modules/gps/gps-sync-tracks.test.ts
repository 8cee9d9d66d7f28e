import type { SyncCheckpoint, SyncDocument } from '@shared/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createMember, createOrg, type Member } from '../../../../test/helpers/factories';
import { connectSync } from '../../../../test/helpers/sync-client';
import { keepTrackHours, TRACK_POINT_SPACING_MS, type TrackHourPoint } from './gps.sync';

let t: TestApp;
let admin: Member;
let token: string;

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
  token = (await admin.client.post('/api/gps/ingestion-token')).body.token;
});
afterAll(() => t.close());

const HOUR = 3_600_000;
const hourOf = (time: number) => Math.floor(time / HOUR) * HOUR;

async function send(tracker: string, time: number, step: number) {
  const response = await t.request('/api/gps/traccar/positions', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({
      position: {
        fixTime: new Date(time).toISOString(),
        latitude: 55.75 + (step * 8) / 111_195,
        longitude: 37.6,
        speed: 3,
        accuracy: 5,
        valid: true,
      },
      device: { uniqueId: tracker, name: tracker },
    }),
  });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body as { objectId: string; accepted: boolean };
}

type TrackDocument = SyncDocument & { objectId: string; hour: string; points: TrackHourPoint[] };

async function tracksPulled(
  member: Member,
  done: (documents: TrackDocument[]) => boolean,
  from: SyncCheckpoint | null = null,
) {
  const client = await connectSync(t, member.client.accessToken as string);
  try {
    const pulled = await client.pullUntil('gps_tracks', done as never, from);
    return { documents: pulled.documents as TrackDocument[], checkpoint: pulled.checkpoint };
  } finally {
    client.close();
  }
}

describe('gps: recent tracks on replicas', () => {
  it('sends each object’s recent hours as one document each, points at least 10 s apart, to GPS users only; older hours drop off', async () => {
    const tracker = `hours-${Date.now()}`;
    // Two hours ago, every 4 s for two minutes; and the last minutes, every 4 s; and 30 hours ago.
    const earlier = hourOf(Date.now() - 2 * HOUR) + 60_000;
    const recent = Date.now() - 5 * 60_000;
    const old = Date.now() - 30 * HOUR;
    let objectId = '';
    objectId = (await send(tracker, old, 0)).objectId;
    for (let i = 0; i < 30; i++) await send(tracker, earlier + i * 4_000, i);
    for (let i = 0; i < 20; i++) await send(tracker, recent + i * 4_000, 100 + i);
    await keepTrackHours(t.database.db);

    const dispatcher = await createMember(t, admin);
    await admin.client.put('/api/module-access', { users: [{ userId: dispatcher.userId, modules: ['gps'] }] });
    const ofObject = (documents: TrackDocument[]) =>
      documents.filter((d) => d.objectId === objectId || (d._deleted && !d.objectId));
    const live = (documents: TrackDocument[]) =>
      new Map(
        ofObject(documents)
          .filter((d) => !d._deleted)
          .map((d) => [d.hour, d]),
      );
    const first = await tracksPulled(dispatcher, (documents) => live(documents).size >= 2);
    const hours = live(first.documents);
    expect([...hours.keys()].sort()).toEqual(
      [...new Set([hourOf(earlier), hourOf(recent), hourOf(recent + 19 * 4_000)])].map((h) =>
        new Date(h).toISOString(),
      ),
    );
    // The hour 30 hours ago is out of the organization's window (24 hours by default).
    expect(hours.has(new Date(hourOf(old)).toISOString())).toBe(false);
    const earlierHour = hours.get(new Date(hourOf(earlier)).toISOString()) as TrackDocument;
    const seconds = earlierHour.points.map(([second]) => second);
    // The REST track of that hour, thinned: the first point, then each one 10 s or more after the last kept.
    const from = new Date(hourOf(earlier)).toISOString();
    const to = new Date(hourOf(earlier) + HOUR - 1).toISOString();
    const track = (await admin.client.get(`/api/gps/objects/${objectId}/track?from=${from}&to=${to}`)).body.points as {
      fixTime: string;
      lat: number;
    }[];
    const expected: number[] = [];
    for (const point of track) {
      const second = (Date.parse(point.fixTime) - hourOf(earlier)) / 1000;
      if (expected.length === 0 || second - (expected.at(-1) as number) >= TRACK_POINT_SPACING_MS / 1000) {
        expected.push(second);
      }
    }
    expect(track.length).toBeGreaterThan(20);
    expect(seconds).toEqual(expected);
    expect(earlierHour.points[0]).toEqual([expected[0], Number(track[0]?.lat.toFixed(6)), 37.6, 5.6, null, 0]);

    // Without GPS access: nothing, even past those hours' commits.
    const other = await createMember(t, admin);
    expect((await tracksPulled(other, () => true)).documents).toEqual([]);

    // A new point reaches replicas with the task's next run.
    await send(tracker, recent + 100_000, 130);
    await keepTrackHours(t.database.db);
    const next = await tracksPulled(
      dispatcher,
      (documents) =>
        ofObject(documents).some((d) =>
          d.points?.some(([second]) => second === Math.round((recent + 100_000 - hourOf(recent + 100_000)) / 1000)),
        ),
      first.checkpoint,
    );
    expect(ofObject(next.documents).map((d) => d.hour)).toEqual([new Date(hourOf(recent + 100_000)).toISOString()]);

    // A window of one hour: the hour two hours ago drops off as a tombstone.
    expect((await admin.client.patch('/api/gps/settings', { offlineTrackHours: 1 })).status).toBe(200);
    await keepTrackHours(t.database.db);
    const dropped = await tracksPulled(
      dispatcher,
      (documents) => documents.some((d) => d.id === earlierHour.id),
      next.checkpoint,
    );
    expect(dropped.documents.filter((d) => d.id === earlierHour.id)).toEqual([{ id: earlierHour.id, _deleted: true }]);

    // Tombstones of hours are forgotten after 8 days.
    await t.database.db.query(
      `UPDATE sync_tombstones SET deleted_at = now() - interval '9 days' WHERE collection = 'gps_tracks' AND document_id = $1`,
      [earlierHour.id],
    );
    expect((await keepTrackHours(t.database.db)).forgotten).toBeGreaterThanOrEqual(1);
    const { rows } = await t.database.db.query(
      `SELECT document_id FROM sync_tombstones WHERE collection = 'gps_tracks' AND document_id = $1`,
      [earlierHour.id],
    );
    expect(rows).toEqual([]);

    // The window widened again: the hour dropped comes back with its points, not only new ones.
    expect((await admin.client.patch('/api/gps/settings', { offlineTrackHours: 24 })).status).toBe(200);
    const back = await tracksPulled(
      dispatcher,
      (documents) => documents.some((d) => d.id === earlierHour.id && !d._deleted),
      dropped.checkpoint,
    );
    expect(back.documents.filter((d) => d.id === earlierHour.id)).toEqual([
      expect.objectContaining({ id: earlierHour.id, hour: earlierHour.hour, points: earlierHour.points }),
    ]);
  });
});
