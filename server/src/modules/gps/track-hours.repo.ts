import type { SyncCheckpoint } from '@shared/sync';
import type { Queryable } from '../../platform/db/db';
import { changedSince, checkpointParams } from '../../platform/sync/sync-source';

/**
 * An object's hour of track changed since a replica's checkpoint: live (`object_id` and `hour`),
 * out of the organization's window (`expired`), or deleted (only `id`).
 */
export interface TrackHourChange {
  id: string;
  object_id: string | null;
  hour: Date | null;
  expired: boolean;
  sync_xid: string;
  sync_seq: string;
}

/** Hours changed or deleted since `checkpoint`, in commit order; those older than `windowHours` are expired. */
export async function trackHourChanges(
  db: Queryable,
  organizationId: string,
  checkpoint: SyncCheckpoint | null,
  limit: number,
  windowHours: number,
): Promise<TrackHourChange[]> {
  const { rows } = await db.query<TrackHourChange>(
    `SELECT * FROM (
       SELECT h.id, h.object_id, h.hour, h.hour + interval '1 hour' <= now() - make_interval(hours => $5) AS expired,
              h.sync_xid, h.sync_seq
         FROM gps_track_hours h WHERE h.organization_id = $1 AND ${changedSince('h', 2, 3)}
       UNION ALL
       SELECT d.document_id, NULL, NULL, true, d.sync_xid, d.sync_seq
         FROM sync_tombstones d WHERE d.organization_id = $1 AND d.collection = 'gps_tracks' AND ${changedSince('d', 2, 3)}
     ) changes ORDER BY sync_xid, sync_seq LIMIT $4`,
    [organizationId, ...checkpointParams(checkpoint), limit, windowHours],
  );
  return rows.map((row) => ({ ...row, sync_xid: String(row.sync_xid), sync_seq: String(row.sync_seq) }));
}

/** A stored point of an hour: seconds into the hour, latitude, longitude, speed km/h, course, 1 for a cell-tower fix. */
export type HourPoint = [number, number, number, number | null, number | null, 0 | 1];

/**
 * The accepted points of each (object, hour), in fix-time order: a range of the points' key per
 * hour (an index-only scan), each hour's points built into one JSON array by PostgreSQL (a row per
 * point would cost the driver several times more to read).
 */
export async function pointsOfHours(
  db: Queryable,
  organizationId: string,
  hours: { objectId: string; hour: Date }[],
): Promise<Map<string, HourPoint[]>> {
  const found = new Map<string, HourPoint[]>();
  if (hours.length === 0) return found;
  const { rows } = await db.query<{ object_id: string; hour: Date; points: string | null }>(
    `SELECT h.object_id, h.hour, p.points
       FROM unnest($2::uuid[], $3::timestamptz[]) AS h(object_id, hour)
       -- Scoped through the objects: the points are read from their key alone.
       JOIN gps_objects o ON o.id = h.object_id AND o.organization_id = $1
       CROSS JOIN LATERAL (
         SELECT json_agg(json_build_array(extract(epoch FROM q.fix_time - h.hour)::float8, q.lat, q.lon, q.speed_kmh,
                  q.course, q.is_lbs::int) ORDER BY q.fix_time)::text AS points
           FROM gps_points q
          WHERE q.object_id = h.object_id AND q.fix_time >= h.hour AND q.fix_time < h.hour + interval '1 hour'
       ) p`,
    [organizationId, hours.map((hour) => hour.objectId), hours.map((hour) => hour.hour)],
  );
  for (const row of rows) {
    found.set(`${row.object_id}:${row.hour.getTime()}`, row.points ? (JSON.parse(row.points) as HourPoint[]) : []);
  }
  return found;
}

/**
 * Stamps the hours whose points changed since they were last sent (taking their mark off), at
 * most `limit` at a time; hours a point being stored holds are left for the next run (no waiting,
 * so no deadlock with ingestion).
 */
export async function stampChangedHours(db: Queryable, limit: number): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE gps_track_hours SET changed = false
      WHERE id IN (SELECT id FROM gps_track_hours WHERE changed LIMIT $1 FOR UPDATE SKIP LOCKED)`,
    [limit],
  );
  return rowCount;
}

/** Deletes the hours older than each organization's window (`offlineTrackHours`, else `defaultHours`). */
export async function deleteExpiredHours(db: Queryable, defaultHours: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM gps_track_hours WHERE id IN (
       SELECT h.id FROM gps_track_hours h LEFT JOIN gps_settings s ON s.organization_id = h.organization_id
        WHERE h.hour + interval '1 hour' <= now() - make_interval(hours => COALESCE((s.settings ->> 'offlineTrackHours')::int, $1))
        FOR UPDATE OF h SKIP LOCKED)`,
    [defaultHours],
  );
  return rowCount;
}

/**
 * Forgets the tombstones of hours deleted more than `days` ago: a replica that has not synced for
 * that long keeps those hours (out of every range the map reads), not the server a row per hour forever.
 */
export async function pruneHourTombstones(db: Queryable, days: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM sync_tombstones WHERE collection = 'gps_tracks' AND deleted_at < now() - make_interval(days => $1)`,
    [days],
  );
  return rowCount;
}

/** Ids of an organization's hours after `after`, in id order (the tombstones of withdrawn GPS access). */
export async function trackHourIdsAfter(
  db: Queryable,
  organizationId: string,
  after: string | undefined,
  limit: number,
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM gps_track_hours WHERE organization_id = $1 AND ($2::uuid IS NULL OR id > $2) ORDER BY id LIMIT $3`,
    [organizationId, after ?? null, limit],
  );
  return rows.map((row) => row.id);
}

/**
 * The hours of the organization's stored points within the last `windowHours` that have no row (a
 * window raised after they were deleted): added, to be sent to replicas with their points. Their
 * tombstones go, as the hours are live again.
 */
export async function addHoursWithin(db: Queryable, organizationId: string, windowHours: number): Promise<void> {
  await db.query(
    `WITH added AS (
       INSERT INTO gps_track_hours (id, organization_id, object_id, hour, changed)
       SELECT DISTINCT gps_track_hour_id(p.object_id, date_trunc('hour', p.fix_time, 'UTC')), p.organization_id,
              p.object_id, date_trunc('hour', p.fix_time, 'UTC'), false
         FROM gps_objects o
         JOIN gps_points p ON p.object_id = o.id
              AND p.fix_time >= date_trunc('hour', now() - make_interval(hours => $2), 'UTC')
        WHERE o.organization_id = $1
       ON CONFLICT (id) DO NOTHING
       RETURNING id)
     DELETE FROM sync_tombstones d USING added
      WHERE d.collection = 'gps_tracks' AND d.document_id = added.id`,
    [organizationId, windowHours],
  );
}
