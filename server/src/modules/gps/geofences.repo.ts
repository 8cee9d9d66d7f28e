import type { Queryable } from '../../platform/db/db';

export interface GeofenceRow {
  id: string;
  organization_id: string;
  name: string;
  geometry: Record<string, unknown>;
  color: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, organization_id, name, geometry, color, created_at, updated_at';

export async function listGeofences(db: Queryable, organizationId: string): Promise<GeofenceRow[]> {
  const { rows } = await db.query<GeofenceRow>(
    `SELECT ${COLUMNS} FROM gps_geofences WHERE organization_id = $1 ORDER BY name, id`,
    [organizationId],
  );
  return rows;
}

export async function findGeofence(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<GeofenceRow | undefined> {
  const { rows } = await db.query<GeofenceRow>(
    `SELECT ${COLUMNS} FROM gps_geofences WHERE organization_id = $1 AND id = $2`,
    [organizationId, id],
  );
  return rows[0];
}

export async function insertGeofence(
  db: Queryable,
  geofence: { id: string; organizationId: string; name: string; geometry: object; color: string | null },
): Promise<GeofenceRow> {
  const { rows } = await db.query<GeofenceRow>(
    `INSERT INTO gps_geofences (id, organization_id, name, geometry, color) VALUES ($1, $2, $3, $4, $5)
     RETURNING ${COLUMNS}`,
    [geofence.id, geofence.organizationId, geofence.name, JSON.stringify(geofence.geometry), geofence.color],
  );
  return rows[0] as GeofenceRow;
}

export async function updateGeofence(
  db: Queryable,
  organizationId: string,
  id: string,
  change: { name: string; geometry: object; color: string | null },
): Promise<GeofenceRow | undefined> {
  const { rows } = await db.query<GeofenceRow>(
    `UPDATE gps_geofences SET name = $3, geometry = $4, color = $5, updated_at = now()
     WHERE organization_id = $1 AND id = $2
     RETURNING ${COLUMNS}`,
    [organizationId, id, change.name, JSON.stringify(change.geometry), change.color],
  );
  return rows[0];
}

export async function deleteGeofence(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM gps_geofences WHERE organization_id = $1 AND id = $2', [
    organizationId,
    id,
  ]);
  return rowCount > 0;
}

export interface StateRow {
  geofence_id: string;
  inside: boolean;
  fix_time: Date;
}

export async function states(db: Queryable, objectId: string): Promise<StateRow[]> {
  const { rows } = await db.query<StateRow>(
    'SELECT geofence_id, inside, fix_time FROM gps_geofence_states WHERE object_id = $1',
    [objectId],
  );
  return rows;
}

export async function saveState(
  db: Queryable,
  objectId: string,
  geofenceId: string,
  inside: boolean,
  fixTime: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO gps_geofence_states (organization_id, object_id, geofence_id, inside, fix_time)
     SELECT organization_id, $1, $2, $3, $4 FROM gps_objects WHERE id = $1
     ON CONFLICT (object_id, geofence_id) DO UPDATE SET inside = EXCLUDED.inside, fix_time = EXCLUDED.fix_time`,
    [objectId, geofenceId, inside, fixTime],
  );
}

export async function insertCrossing(
  db: Queryable,
  crossing: {
    id: string;
    organizationId: string;
    objectId: string;
    geofenceId: string;
    type: 'enter' | 'exit';
    fixTime: Date;
    lat: number;
    lon: number;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO gps_geofence_events (id, organization_id, object_id, geofence_id, type, fix_time, lat, lon)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      crossing.id,
      crossing.organizationId,
      crossing.objectId,
      crossing.geofenceId,
      crossing.type,
      crossing.fixTime,
      crossing.lat,
      crossing.lon,
    ],
  );
}

export interface CrossingRow {
  object_id: string;
  geofence_id: string;
  type: 'enter' | 'exit';
  fix_time: Date;
  lat: number;
  lon: number;
}

export async function crossings(db: Queryable, objectId: string, from: Date, to: Date): Promise<CrossingRow[]> {
  const { rows } = await db.query<CrossingRow>(
    `SELECT object_id, geofence_id, type, fix_time, lat, lon FROM gps_geofence_events
     WHERE object_id = $1 AND fix_time >= $2 AND fix_time <= $3 ORDER BY fix_time, id`,
    [objectId, from, to],
  );
  return rows;
}

export interface RouteRow {
  id: string;
  organization_id: string;
  name: string;
  object_ids: string[];
  stops: { geofenceId: string; expectedAt: string; toleranceMinutes: number }[];
  created_at: Date;
  updated_at: Date;
}

const ROUTE_COLUMNS = 'id, organization_id, name, object_ids, stops, created_at, updated_at';

export async function listRoutes(db: Queryable, organizationId: string): Promise<RouteRow[]> {
  const { rows } = await db.query<RouteRow>(
    `SELECT ${ROUTE_COLUMNS} FROM gps_routes WHERE organization_id = $1 ORDER BY name, id`,
    [organizationId],
  );
  return rows;
}

export async function findRoute(db: Queryable, organizationId: string, id: string): Promise<RouteRow | undefined> {
  const { rows } = await db.query<RouteRow>(
    `SELECT ${ROUTE_COLUMNS} FROM gps_routes WHERE organization_id = $1 AND id = $2`,
    [organizationId, id],
  );
  return rows[0];
}

export async function saveRoute(
  db: Queryable,
  route: { id: string; organizationId: string; name: string; objectIds: string[]; stops: object[] },
): Promise<RouteRow> {
  const { rows } = await db.query<RouteRow>(
    `INSERT INTO gps_routes (id, organization_id, name, object_ids, stops) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, object_ids = EXCLUDED.object_ids, stops = EXCLUDED.stops,
       updated_at = now()
     WHERE gps_routes.organization_id = EXCLUDED.organization_id
     RETURNING ${ROUTE_COLUMNS}`,
    [route.id, route.organizationId, route.name, JSON.stringify(route.objectIds), JSON.stringify(route.stops)],
  );
  return rows[0] as RouteRow;
}

export async function deleteRoute(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM gps_routes WHERE organization_id = $1 AND id = $2', [
    organizationId,
    id,
  ]);
  return rowCount > 0;
}

export async function cachedMatch(db: Queryable, objectId: string, key: string): Promise<unknown | undefined> {
  const { rows } = await db.query<{ result: unknown }>(
    'SELECT result FROM gps_matched_segments WHERE object_id = $1 AND cache_key = $2',
    [objectId, key],
  );
  return rows[0]?.result;
}

export async function cacheMatch(db: Queryable, objectId: string, key: string, result: unknown): Promise<void> {
  await db.query(
    `INSERT INTO gps_matched_segments (organization_id, object_id, cache_key, result)
     SELECT organization_id, $1, $2, $3 FROM gps_objects WHERE id = $1
     ON CONFLICT (object_id, cache_key) DO UPDATE SET result = EXCLUDED.result, created_at = now()`,
    [objectId, key, JSON.stringify(result)],
  );
}
