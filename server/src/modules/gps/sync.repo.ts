import type { SyncCheckpoint } from '@shared/sync';
import type { Queryable } from '../../platform/db/db';
import { changedSince, checkpointParams } from '../../platform/sync/sync-source';
import type { GeofenceRow, RouteRow } from './geofences.repo';
import type { GroupRow } from './gps.repo';

/** The place of a change in commit order, as a pull reads it. */
interface Stamp {
  sync_xid: string;
  sync_seq: string;
}

const stamped = <T extends Stamp>(rows: T[]) =>
  rows.map((row) => ({ ...row, sync_xid: String(row.sync_xid), sync_seq: String(row.sync_seq) }));

/** A group changed since a replica's checkpoint, in commit order. */
export type GroupChange = GroupRow & Stamp;

export async function groupChanges(
  db: Queryable,
  organizationId: string,
  checkpoint: SyncCheckpoint | null,
  limit: number,
): Promise<GroupChange[]> {
  const { rows } = await db.query<GroupChange>(
    `SELECT g.id, g.organization_id, g.name, g.settings, g.created_at, g.updated_at, g.sync_xid, g.sync_seq
       FROM gps_groups g WHERE g.organization_id = $1 AND ${changedSince('g', 2, 3)}
      ORDER BY g.sync_xid, g.sync_seq LIMIT $4`,
    [organizationId, ...checkpointParams(checkpoint), limit],
  );
  return stamped(rows);
}

/**
 * A geofence, a route, or the tombstone of either (only `id` and `type` null), changed since a
 * replica's checkpoint.
 */
export type GeofenceChange = Stamp & { id: string; type: 'geofence' | 'route' | null } & Partial<
    Omit<GeofenceRow, 'id'> & Omit<RouteRow, 'id'>
  >;

/** Geofences and routes changed or deleted since `checkpoint`, in commit order (each table read by its own index). */
export async function geofenceChanges(
  db: Queryable,
  organizationId: string,
  checkpoint: SyncCheckpoint | null,
  limit: number,
): Promise<GeofenceChange[]> {
  const params = [organizationId, ...checkpointParams(checkpoint), limit];
  // One after another: a stream reads them in one transaction, on one connection.
  const geofences = await db.query<GeofenceChange>(
    `SELECT 'geofence' AS type, g.*, g.sync_xid, g.sync_seq FROM gps_geofences g
        WHERE g.organization_id = $1 AND ${changedSince('g', 2, 3)} ORDER BY g.sync_xid, g.sync_seq LIMIT $4`,
    params,
  );
  const routes = await db.query<GeofenceChange>(
    `SELECT 'route' AS type, r.*, r.sync_xid, r.sync_seq FROM gps_routes r
        WHERE r.organization_id = $1 AND ${changedSince('r', 2, 3)} ORDER BY r.sync_xid, r.sync_seq LIMIT $4`,
    params,
  );
  const gone = await db.query<GeofenceChange>(
    `SELECT d.document_id AS id, NULL AS type, d.sync_xid, d.sync_seq FROM sync_tombstones d
        WHERE d.organization_id = $1 AND d.collection = 'gps_geofences' AND ${changedSince('d', 2, 3)}
        ORDER BY d.sync_xid, d.sync_seq LIMIT $4`,
    params,
  );
  return inCommitOrder([geofences.rows, routes.rows, gone.rows], limit);
}

/** The first `limit` changes of several lists, each already in commit order. */
export function inCommitOrder<T extends Stamp>(lists: T[][], limit: number): T[] {
  const key = (row: T) => [BigInt(row.sync_xid), BigInt(row.sync_seq)] as const;
  return stamped(lists.flat())
    .sort((a, b) => {
      const [ax, as] = key(a);
      const [bx, bs] = key(b);
      return ax === bx ? (as < bs ? -1 : as > bs ? 1 : 0) : ax < bx ? -1 : 1;
    })
    .slice(0, limit);
}

/** Locks a geofence or route for a replica's push (every write of it takes the lock first); its kind, if any. */
export async function lockGeofenceOrRoute(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<'geofence' | 'route' | undefined> {
  const lock = (table: string) =>
    db.query(`SELECT 1 FROM ${table} WHERE organization_id = $1 AND id = $2 FOR UPDATE`, [organizationId, id]);
  if ((await lock('gps_geofences')).rowCount > 0) return 'geofence';
  if ((await lock('gps_routes')).rowCount > 0) return 'route';
  return undefined;
}

/**
 * Whether a geofence or route of any organization has the id: a record made offline with it is
 * refused (ids are primary keys across organizations), as a row's is.
 */
export async function geofenceIdTaken(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM gps_geofences WHERE id = $1 UNION ALL SELECT 1 FROM gps_routes WHERE id = $1',
    [id],
  );
  return rowCount > 0;
}

/**
 * Ids of the records of a GPS collection after `after` in id order (`gps_objects`: objects and
 * groups; `gps_geofences`: geofences and routes): the tombstones a replica gets once its user's
 * GPS access is withdrawn.
 */
export async function recordIdsAfter(
  db: Queryable,
  organizationId: string,
  collection: 'gps_objects' | 'gps_geofences',
  after: string | undefined,
  limit: number,
): Promise<string[]> {
  const [first, second] =
    collection === 'gps_objects' ? ['gps_objects', 'gps_groups'] : ['gps_geofences', 'gps_routes'];
  const { rows } = await db.query<{ id: string }>(
    `(SELECT id FROM ${first} WHERE organization_id = $1 AND ($2::uuid IS NULL OR id > $2) ORDER BY id LIMIT $3)
     UNION ALL
     (SELECT id FROM ${second} WHERE organization_id = $1 AND ($2::uuid IS NULL OR id > $2) ORDER BY id LIMIT $3)
     ORDER BY id LIMIT $3`,
    [organizationId, after ?? null, limit],
  );
  return rows.map((row) => row.id);
}

/** Notes that the user's replicas were sent GPS records (once; later calls change nothing). */
export async function noteReplicaHolder(db: Queryable, organizationId: string, userId: string): Promise<void> {
  await db.query(`INSERT INTO gps_replica_holders (organization_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
    organizationId,
    userId,
  ]);
}

/** Whether the user's replicas were ever sent GPS records in the organization. */
export async function isReplicaHolder(db: Queryable, organizationId: string, userId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM gps_replica_holders WHERE organization_id = $1 AND user_id = $2', [
    organizationId,
    userId,
  ]);
  return (rowCount ?? 0) > 0;
}
