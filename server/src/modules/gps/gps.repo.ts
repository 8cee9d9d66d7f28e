import type { LatLon } from '@shared/gps-geometry';
import type { SyncCheckpoint } from '@shared/sync';
import type { Queryable } from '../../platform/db/db';
import { changedSince, checkpointParams } from '../../platform/sync/sync-source';
import type { Fix } from './filters';

export interface SettingsRow {
  settings: Record<string, unknown>;
}

export async function findSettings(db: Queryable, organizationId: string): Promise<Record<string, unknown>> {
  const { rows } = await db.query<SettingsRow>('SELECT settings FROM gps_settings WHERE organization_id = $1', [
    organizationId,
  ]);
  return rows[0]?.settings ?? {};
}

/** The tile source URLs the organizations configured (the only cross-organization read: for the CSP). */
export async function listTileSourceUrls(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ url: string }>(
    `SELECT DISTINCT settings->'tileSource'->>'url' AS url FROM gps_settings WHERE settings->'tileSource'->>'url' IS NOT NULL`,
  );
  return rows.map((row) => row.url);
}

export async function saveSettings(db: Queryable, organizationId: string, settings: object): Promise<void> {
  await db.query(
    `INSERT INTO gps_settings (organization_id, settings) VALUES ($1, $2)
     ON CONFLICT (organization_id) DO UPDATE SET settings = EXCLUDED.settings, updated_at = now()`,
    [organizationId, JSON.stringify(settings)],
  );
}

export interface TokenRow {
  id: string;
  organization_id: string;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
}

export async function findToken(db: Queryable, organizationId: string): Promise<TokenRow | undefined> {
  const { rows } = await db.query<TokenRow>(
    'SELECT id, organization_id, prefix, created_at, last_used_at FROM gps_ingestion_tokens WHERE organization_id = $1',
    [organizationId],
  );
  return rows[0];
}

export async function findTokenByHash(db: Queryable, hash: string): Promise<TokenRow | undefined> {
  const { rows } = await db.query<TokenRow>(
    'SELECT id, organization_id, prefix, created_at, last_used_at FROM gps_ingestion_tokens WHERE token_hash = $1',
    [hash],
  );
  return rows[0];
}

export async function touchToken(db: Queryable, id: string): Promise<void> {
  await db.query('UPDATE gps_ingestion_tokens SET last_used_at = now() WHERE id = $1', [id]);
}

export async function replaceToken(
  db: Queryable,
  token: { id: string; organizationId: string; hash: string; prefix: string },
): Promise<TokenRow> {
  const { rows } = await db.query<TokenRow>(
    `INSERT INTO gps_ingestion_tokens (id, organization_id, token_hash, prefix) VALUES ($1, $2, $3, $4)
     ON CONFLICT (organization_id) DO UPDATE
       SET id = EXCLUDED.id, token_hash = EXCLUDED.token_hash, prefix = EXCLUDED.prefix, created_at = now(), last_used_at = NULL
     RETURNING id, organization_id, prefix, created_at, last_used_at`,
    [token.id, token.organizationId, token.hash, token.prefix],
  );
  return rows[0] as TokenRow;
}

export interface GroupRow {
  id: string;
  organization_id: string;
  name: string;
  settings: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

const GROUP_COLUMNS = 'id, organization_id, name, settings, created_at, updated_at';

export async function listGroups(db: Queryable, organizationId: string): Promise<GroupRow[]> {
  const { rows } = await db.query<GroupRow>(
    `SELECT ${GROUP_COLUMNS} FROM gps_groups WHERE organization_id = $1 ORDER BY name, id`,
    [organizationId],
  );
  return rows;
}

export async function findGroup(db: Queryable, organizationId: string, id: string): Promise<GroupRow | undefined> {
  const { rows } = await db.query<GroupRow>(
    `SELECT ${GROUP_COLUMNS} FROM gps_groups WHERE organization_id = $1 AND id = $2`,
    [organizationId, id],
  );
  return rows[0];
}

export async function insertGroup(
  db: Queryable,
  group: { id: string; organizationId: string; name: string; settings: object },
): Promise<GroupRow> {
  const { rows } = await db.query<GroupRow>(
    `INSERT INTO gps_groups (id, organization_id, name, settings) VALUES ($1, $2, $3, $4) RETURNING ${GROUP_COLUMNS}`,
    [group.id, group.organizationId, group.name, JSON.stringify(group.settings)],
  );
  return rows[0] as GroupRow;
}

export async function updateGroup(
  db: Queryable,
  organizationId: string,
  id: string,
  change: { name: string; settings: object },
): Promise<GroupRow | undefined> {
  const { rows } = await db.query<GroupRow>(
    `UPDATE gps_groups SET name = $3, settings = $4, updated_at = now()
     WHERE organization_id = $1 AND id = $2 RETURNING ${GROUP_COLUMNS}`,
    [organizationId, id, change.name, JSON.stringify(change.settings)],
  );
  return rows[0];
}

export async function deleteGroup(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM gps_groups WHERE organization_id = $1 AND id = $2', [
    organizationId,
    id,
  ]);
  return rowCount > 0;
}

export interface ObjectRow {
  id: string;
  organization_id: string;
  name: string;
  kind: 'vehicle' | 'person' | 'tracker';
  tracker_id: string;
  group_id: string | null;
  settings: Record<string, unknown>;
  last_seen: Date | null;
  last_gps_fix_at: Date | null;
  last_fix_time: Date | null;
  last_lat: number | null;
  last_lon: number | null;
  last_speed_kmh: number | null;
  last_course: number | null;
  last_is_lbs: boolean | null;
  last_battery_percent: number | null;
  created_at: Date;
  updated_at: Date;
}

const OBJECT_COLUMNS = `id, organization_id, name, kind, tracker_id, group_id, settings, last_seen, last_gps_fix_at,
  last_fix_time, last_lat, last_lon, last_speed_kmh, last_course, last_is_lbs, last_battery_percent, created_at,
  updated_at`;

/** An object changed since a replica's checkpoint; a deleted one (tombstone) has only its id (`name` null). */
export type ObjectChange = ObjectRow & { sync_xid: string; sync_seq: string };

/** Objects changed or deleted since `checkpoint`, in commit order. */
export async function objectChanges(
  db: Queryable,
  organizationId: string,
  checkpoint: SyncCheckpoint | null,
  limit: number,
): Promise<ObjectChange[]> {
  const { rows } = await db.query<ObjectChange>(
    `SELECT * FROM (
       SELECT ${OBJECT_COLUMNS}, o.sync_xid, o.sync_seq
         FROM gps_objects o WHERE o.organization_id = $1 AND ${changedSince('o', 2, 3)}
       UNION ALL
       SELECT d.document_id AS id, d.organization_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
              NULL, NULL, NULL, NULL, d.sync_xid, d.sync_seq
         FROM sync_tombstones d WHERE d.organization_id = $1 AND d.collection = 'gps_objects' AND ${changedSince('d', 2, 3)}
     ) changes ORDER BY sync_xid, sync_seq LIMIT $4`,
    [organizationId, ...checkpointParams(checkpoint), limit],
  );
  return rows.map((row) => ({ ...row, sync_xid: String(row.sync_xid), sync_seq: String(row.sync_seq) }));
}

/** Every object of the organization with its last position: one row per object, no search of points. */
export async function listObjects(db: Queryable, organizationId: string): Promise<ObjectRow[]> {
  const { rows } = await db.query<ObjectRow>(
    `SELECT ${OBJECT_COLUMNS} FROM gps_objects WHERE organization_id = $1 ORDER BY name, id`,
    [organizationId],
  );
  return rows;
}

export async function findObject(db: Queryable, organizationId: string, id: string): Promise<ObjectRow | undefined> {
  const { rows } = await db.query<ObjectRow>(
    `SELECT ${OBJECT_COLUMNS} FROM gps_objects WHERE organization_id = $1 AND id = $2`,
    [organizationId, id],
  );
  return rows[0];
}

/** An object and its group's settings, by tracker, locked for this message (one message of a tracker at a time). */
export async function lockObjectByTracker(
  db: Queryable,
  organizationId: string,
  trackerId: string,
): Promise<(ObjectRow & { group_settings: Record<string, unknown> | null }) | undefined> {
  const { rows } = await db.query<ObjectRow & { group_settings: Record<string, unknown> | null }>(
    `SELECT o.*, g.settings AS group_settings
       FROM gps_objects o LEFT JOIN gps_groups g ON g.id = o.group_id
      WHERE o.organization_id = $1 AND o.tracker_id = $2
      FOR UPDATE OF o`,
    [organizationId, trackerId],
  );
  return rows[0];
}

export async function insertObject(
  db: Queryable,
  object: {
    id: string;
    organizationId: string;
    name: string;
    kind: string;
    trackerId: string;
    groupId: string | null;
    settings: object;
  },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO gps_objects (id, organization_id, name, kind, tracker_id, group_id, settings)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (organization_id, tracker_id) DO NOTHING`,
    [
      object.id,
      object.organizationId,
      object.name,
      object.kind,
      object.trackerId,
      object.groupId,
      JSON.stringify(object.settings),
    ],
  );
  return rowCount > 0;
}

export async function updateObject(
  db: Queryable,
  organizationId: string,
  id: string,
  change: { name: string; kind: string; trackerId: string; groupId: string | null; settings: object },
): Promise<'updated' | 'missing' | 'tracker_taken'> {
  const taken = await db.query(
    'SELECT 1 FROM gps_objects WHERE organization_id = $1 AND tracker_id = $2 AND id <> $3',
    [organizationId, change.trackerId, id],
  );
  if (taken.rowCount > 0) return 'tracker_taken';
  const { rowCount } = await db.query(
    `UPDATE gps_objects SET name = $3, kind = $4, tracker_id = $5, group_id = $6, settings = $7, updated_at = now()
     WHERE organization_id = $1 AND id = $2`,
    [organizationId, id, change.name, change.kind, change.trackerId, change.groupId, JSON.stringify(change.settings)],
  );
  return rowCount > 0 ? 'updated' : 'missing';
}

export async function deleteObject(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM gps_objects WHERE organization_id = $1 AND id = $2', [
    organizationId,
    id,
  ]);
  return rowCount > 0;
}

/** A message arrived: `last_seen` moves to its receipt, `last_gps_fix_at` to a later fix time only. */
export async function noteMessage(
  db: Queryable,
  objectId: string,
  receivedAt: Date,
  fixTime: Date | null,
  batteryPercent: number | null = null,
): Promise<void> {
  await db.query(
    `UPDATE gps_objects SET last_seen = GREATEST(last_seen, $2),
       last_gps_fix_at = CASE WHEN $3::timestamptz IS NULL THEN last_gps_fix_at ELSE GREATEST(last_gps_fix_at, $3) END,
       last_battery_percent = COALESCE($4::real, last_battery_percent)
     WHERE id = $1`,
    [objectId, receivedAt, fixTime, batteryPercent],
  );
}

/**
 * An accepted fix's message: what `noteMessage` notes, and the last position moved to `fix` when it
 * is the newest accepted one (as `notePosition`), in one statement.
 */
export async function noteAcceptedMessage(
  db: Queryable,
  objectId: string,
  receivedAt: Date,
  fix: Fix,
  batteryPercent: number | null,
): Promise<void> {
  const newest = '(last_fix_time IS NULL OR last_fix_time <= $3)';
  await db.query(
    `UPDATE gps_objects SET last_seen = GREATEST(last_seen, $2), last_gps_fix_at = GREATEST(last_gps_fix_at, $3),
       last_battery_percent = COALESCE($4::real, last_battery_percent),
       last_lat = CASE WHEN ${newest} THEN $5 ELSE last_lat END,
       last_lon = CASE WHEN ${newest} THEN $6 ELSE last_lon END,
       last_speed_kmh = CASE WHEN ${newest} THEN $7 ELSE last_speed_kmh END,
       last_course = CASE WHEN ${newest} THEN $8 ELSE last_course END,
       last_is_lbs = CASE WHEN ${newest} THEN $9 ELSE last_is_lbs END,
       last_fix_time = CASE WHEN ${newest} THEN $3 ELSE last_fix_time END
     WHERE id = $1`,
    [objectId, receivedAt, fix.fixTime, batteryPercent, fix.lat, fix.lon, fix.speedKmh, fix.course, fix.isLbs],
  );
}

/** The object's last position becomes `fix` when it is the newest accepted one. */
export async function notePosition(db: Queryable, objectId: string, fix: Fix): Promise<void> {
  await db.query(
    `UPDATE gps_objects SET last_fix_time = $2, last_lat = $3, last_lon = $4, last_speed_kmh = $5, last_course = $6,
       last_is_lbs = $7
     WHERE id = $1 AND (last_fix_time IS NULL OR last_fix_time <= $2)`,
    [objectId, fix.fixTime, fix.lat, fix.lon, fix.speedKmh, fix.course, fix.isLbs],
  );
}

/** Recomputes the last position from the points (after the newest one was refused on second thought). */
export async function resetPosition(db: Queryable, objectId: string): Promise<void> {
  await db.query(
    `UPDATE gps_objects o SET last_fix_time = p.fix_time, last_lat = p.lat, last_lon = p.lon,
       last_speed_kmh = p.speed_kmh, last_course = p.course, last_is_lbs = p.is_lbs
     FROM (SELECT fix_time, lat, lon, speed_kmh, course, is_lbs FROM gps_points WHERE object_id = $1
           ORDER BY fix_time DESC LIMIT 1) p
     WHERE o.id = $1`,
    [objectId],
  );
}

interface PointRow {
  fix_time: Date;
  lat: number;
  lon: number;
  speed_kmh: number | null;
  course: number | null;
  altitude: number | null;
  accuracy: number | null;
  is_lbs: boolean;
}

function fixOf(row: PointRow): Fix {
  return {
    fixTime: row.fix_time,
    lat: row.lat,
    lon: row.lon,
    speedKmh: row.speed_kmh,
    course: row.course,
    altitude: row.altitude,
    accuracy: row.accuracy,
    isLbs: row.is_lbs,
  };
}

const POINT_COLUMNS = 'fix_time, lat, lon, speed_kmh, course, altitude, accuracy, is_lbs';

/** The accepted points just before, at and just after a fix time (three index probes, one round trip). */
export async function neighbours(
  db: Queryable,
  objectId: string,
  fixTime: Date,
): Promise<{ prev?: Fix; same?: Fix; next?: Fix }> {
  const { rows } = await db.query<PointRow & { side: string }>(
    `(SELECT 'prev' AS side, ${POINT_COLUMNS} FROM gps_points WHERE object_id = $1 AND fix_time < $2
       ORDER BY fix_time DESC LIMIT 1)
     UNION ALL
     (SELECT 'same', ${POINT_COLUMNS} FROM gps_points WHERE object_id = $1 AND fix_time = $2)
     UNION ALL
     (SELECT 'next', ${POINT_COLUMNS} FROM gps_points WHERE object_id = $1 AND fix_time > $2
       ORDER BY fix_time LIMIT 1)`,
    [objectId, fixTime],
  );
  const found: { prev?: Fix; same?: Fix; next?: Fix } = {};
  for (const row of rows) found[row.side as 'prev' | 'same' | 'next'] = fixOf(row);
  return found;
}

export async function insertPoint(
  db: Queryable,
  organizationId: string,
  objectId: string,
  fix: Fix,
  receivedAt: Date,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO gps_points (object_id, fix_time, organization_id, received_at, lat, lon, speed_kmh, course, altitude,
       accuracy, is_lbs)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (object_id, fix_time) DO NOTHING`,
    [
      objectId,
      fix.fixTime,
      organizationId,
      receivedAt,
      fix.lat,
      fix.lon,
      fix.speedKmh,
      fix.course,
      fix.altitude,
      fix.accuracy,
      fix.isLbs,
    ],
  );
  return rowCount > 0;
}

export async function insertRejected(
  db: Queryable,
  organizationId: string,
  objectId: string,
  fix: Partial<Fix> & { fixTime: Date },
  reason: string,
  receivedAt: Date,
): Promise<void> {
  const finite = (value: number | null | undefined) =>
    value === undefined || value === null || !Number.isFinite(value) ? null : value;
  await db.query(
    `INSERT INTO gps_rejected_points (object_id, fix_time, reason, organization_id, received_at, lat, lon, speed_kmh,
       course, altitude, accuracy, is_lbs)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (object_id, fix_time, reason) DO NOTHING`,
    [
      objectId,
      fix.fixTime,
      reason,
      organizationId,
      receivedAt,
      finite(fix.lat),
      finite(fix.lon),
      finite(fix.speedKmh),
      finite(fix.course),
      finite(fix.altitude),
      finite(fix.accuracy),
      fix.isLbs ?? false,
    ],
  );
}

/** Points refused as spikes after a fix time, oldest first (a recovery run is looked for among them). */
export async function spikesAfter(db: Queryable, objectId: string, after: Date, limit: number): Promise<Fix[]> {
  const { rows } = await db.query<PointRow>(
    `SELECT * FROM (SELECT ${POINT_COLUMNS} FROM gps_rejected_points
       WHERE object_id = $1 AND reason = 'spike' AND fix_time > $2 ORDER BY fix_time DESC LIMIT $3) newest
     ORDER BY fix_time`,
    [objectId, after, limit],
  );
  return rows.map(fixOf);
}

/** Moves an accepted point to the refused ones with `reason`. */
export async function demotePoint(db: Queryable, objectId: string, fixTime: Date, reason: string): Promise<void> {
  await db.query(
    `WITH gone AS (DELETE FROM gps_points WHERE object_id = $1 AND fix_time = $2 RETURNING *)
     INSERT INTO gps_rejected_points (object_id, fix_time, reason, organization_id, received_at, lat, lon, speed_kmh,
       course, altitude, accuracy, is_lbs)
     SELECT object_id, fix_time, $3, organization_id, received_at, lat, lon, speed_kmh, course, altitude, accuracy, is_lbs
       FROM gone ON CONFLICT (object_id, fix_time, reason) DO NOTHING`,
    [objectId, fixTime, reason],
  );
}

/** Moves refused spikes back to the accepted points. */
export async function reinstateSpikes(db: Queryable, objectId: string, fixTimes: readonly Date[]): Promise<void> {
  await db.query(
    `WITH back AS (DELETE FROM gps_rejected_points WHERE object_id = $1 AND reason = 'spike' AND fix_time = ANY($2)
       RETURNING *)
     INSERT INTO gps_points (object_id, fix_time, organization_id, received_at, lat, lon, speed_kmh, course, altitude,
       accuracy, is_lbs)
     SELECT object_id, fix_time, organization_id, received_at, lat, lon, speed_kmh, course, altitude, accuracy, is_lbs
       FROM back ON CONFLICT (object_id, fix_time) DO NOTHING`,
    [objectId, fixTimes],
  );
}

export async function track(db: Queryable, objectId: string, from: Date, to: Date): Promise<Fix[]> {
  const { rows } = await db.query<PointRow>(
    `SELECT ${POINT_COLUMNS} FROM gps_points WHERE object_id = $1 AND fix_time >= $2 AND fix_time <= $3
     ORDER BY fix_time`,
    [objectId, from, to],
  );
  return rows.map(fixOf);
}

/**
 * SQL writing a float column as `JSON.stringify` writes the number the driver reads from it: the
 * same shortest digits as PostgreSQL's, positional from 1e-6 to below 1e21, `null` for NaN and
 * the infinities, `0` for -0. Values between 0.001 and 1e5 (`real`) or 1e14 (`double precision`)
 * print the same either way, so only others take the slow branch.
 */
function jsonNumber(column: string, type: 'real' | 'double precision'): string {
  const positional = type === 'real' ? 1e5 : 1e14;
  return `CASE WHEN ${column} IS NULL THEN 'null'
    WHEN abs(${column}) >= 0.001::${type} AND abs(${column}) < ${positional}::${type} THEN ${column}::text
    WHEN ${column} = 0 THEN '0'
    WHEN ${column} IN ('NaN', 'Infinity', '-Infinity') THEN 'null'
    WHEN strpos(${column}::text, 'e') = 0 THEN ${column}::text
    WHEN split_part(${column}::text, 'e', 2)::int BETWEEN -6 AND 20 THEN ${column}::text::numeric::text
    ELSE regexp_replace(${column}::text, 'e([+-])0*', 'e\\1') END`;
}

/** One point of `GET …/track` as `JSON.stringify` writes it (`reason` on refused points only). */
const TRACK_POINT_JSON = `'{"fixTime":"' || to_char(p.fix_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  || '","lat":' || (${jsonNumber('p.lat', 'double precision')})
  || ',"lon":' || (${jsonNumber('p.lon', 'double precision')})
  || ',"speedKmh":' || (${jsonNumber('p.speed_kmh', 'real')})
  || ',"course":' || (${jsonNumber('p.course', 'real')})
  || ',"accuracy":' || (${jsonNumber('p.accuracy', 'real')})
  || ',"isLbs":' || CASE WHEN p.is_lbs THEN 'true' ELSE 'false' END
  || CASE WHEN p.reason <> '' THEN ',"reason":' || to_json(p.reason)::text ELSE '' END || '}'`;

/**
 * An object's track as `GET …/track` sends it, written by PostgreSQL from the key alone: `points`,
 * an hour a piece, each the JSON objects of its points joined by commas (accepted points in
 * fix-time order; with `withRejected` the refused ones that have a position among them, after the
 * accepted point of their time); `path`, the accepted points' positions in order, for the
 * distance. An hour a row: a row per point cost the driver seconds, one value of the whole track
 * tens of megabytes at once. Scoped through the object's organization.
 */
export async function trackJson(
  db: Queryable,
  organizationId: string,
  objectId: string,
  from: Date,
  to: Date,
  withRejected: boolean,
): Promise<{ points: string[]; path: LatLon[] }> {
  const object = 'SELECT id FROM gps_objects WHERE id = $1 AND organization_id = $2';
  const accepted = `SELECT fix_time, lat, lon, speed_kmh, course, accuracy, is_lbs, NULL::text AS reason
      FROM gps_points WHERE object_id = (${object}) AND fix_time >= $3 AND fix_time <= $4`;
  const rejected = `SELECT fix_time, lat, coalesce(lon, 0), speed_kmh, course, accuracy, is_lbs, reason
      FROM gps_rejected_points
     WHERE object_id = (${object}) AND fix_time >= $3 AND fix_time <= $4 AND lat IS NOT NULL`;
  const { rows } = await db.query<{ points: string; path: Uint8Array | null }>(
    `SELECT string_agg(${TRACK_POINT_JSON}, ',' ORDER BY p.fix_time, p.reason NULLS FIRST) AS points,
            string_agg(float8send(p.lat) || float8send(p.lon), ''::bytea ORDER BY p.fix_time)
              FILTER (WHERE p.reason IS NULL) AS path
       FROM (${withRejected ? `${accepted} UNION ALL ${rejected}` : accepted}) p
      GROUP BY date_trunc('hour', p.fix_time AT TIME ZONE 'UTC')
      ORDER BY date_trunc('hour', p.fix_time AT TIME ZONE 'UTC')`,
    [objectId, organizationId, from, to],
  );
  const path: LatLon[] = [];
  for (const row of rows) {
    const bytes = row.path ?? new Uint8Array(0);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let offset = 0; offset < bytes.byteLength; offset += 16) {
      path.push({ lat: view.getFloat64(offset), lon: view.getFloat64(offset + 8) });
    }
  }
  return { points: rows.map((row) => row.points), path };
}

export async function rejectedTrack(
  db: Queryable,
  objectId: string,
  from: Date,
  to: Date,
): Promise<(Partial<Fix> & { fixTime: Date; reason: string })[]> {
  const { rows } = await db.query<PointRow & { reason: string }>(
    `SELECT ${POINT_COLUMNS}, reason FROM gps_rejected_points WHERE object_id = $1 AND fix_time >= $2 AND fix_time <= $3
     ORDER BY fix_time, reason`,
    [objectId, from, to],
  );
  return rows.map((row) => ({ ...fixOf(row), reason: row.reason }));
}

export async function insertTrackerEvent(
  db: Queryable,
  event: {
    id: string;
    organizationId: string;
    objectId: string;
    type: string;
    eventTime: Date;
    attributes: object;
    sourceId: string | null;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO gps_tracker_events (id, organization_id, object_id, type, event_time, attributes, source_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
    [
      event.id,
      event.organizationId,
      event.objectId,
      event.type,
      event.eventTime,
      JSON.stringify(event.attributes),
      event.sourceId,
    ],
  );
}

export interface TrackerEventRow {
  type: string;
  event_time: Date;
  attributes: Record<string, unknown>;
}

export async function trackerEvents(db: Queryable, objectId: string, from: Date, to: Date): Promise<TrackerEventRow[]> {
  const { rows } = await db.query<TrackerEventRow>(
    `SELECT type, event_time, attributes FROM gps_tracker_events
     WHERE object_id = $1 AND event_time >= $2 AND event_time <= $3 ORDER BY event_time, id`,
    [objectId, from, to],
  );
  return rows;
}

/** Deletes refused points received more than `days` ago. */
export async function pruneRejected(db: Queryable, days: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM gps_rejected_points WHERE received_at < now() - make_interval(days => $1)`,
    [days],
  );
  return rowCount;
}

/** Each organization's retention in days (absent: the default). */
export async function retentionSettings(db: Queryable): Promise<{ organizationId: string; days: number | null }[]> {
  const { rows } = await db.query<{ organization_id: string; days: number | null }>(
    `SELECT DISTINCT o.organization_id, (s.settings ->> 'retentionDays')::int AS days
       FROM gps_objects o LEFT JOIN gps_settings s ON s.organization_id = o.organization_id`,
  );
  return rows.map((row) => ({ organizationId: row.organization_id, days: row.days }));
}

/** Deletes an organization's points older than `days`, object by object (each a primary-key range). */
export async function prunePoints(db: Queryable, organizationId: string, days: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM gps_points p USING gps_objects o
      WHERE o.organization_id = $1 AND p.object_id = o.id AND p.fix_time < now() - make_interval(days => $2)`,
    [organizationId, days],
  );
  return rowCount;
}
