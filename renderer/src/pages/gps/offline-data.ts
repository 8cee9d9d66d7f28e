import type { Geometry } from '@shared/gps-geometry';
import {
  geofenceEnters,
  type StopProgress,
  type StopStatus,
  stopProgress,
  type TrackPoint,
} from '@shared/gps-progress';
import type { OrbitaDatabase } from '../../data/database';

/**
 * What the map reads from the device's replica when the server cannot answer (objects, groups,
 * geofences, routes and the recent tracks), and where it saves geofences and routes when the page
 * has a replica: saved there, they reach the server with the next push, offline or not.
 */

/** A document as the replica holds it, without RxDB's own fields. */
function plain<T>(document: { toJSON(): unknown }): T {
  const { _meta, _rev, _attachments, _deleted, ...state } = document.toJSON() as Record<string, unknown>;
  return state as T;
}

/** An object as REST lists it (`/api/gps/objects`), with its type on the replica. */
export type OfflineObject = Record<string, unknown> & { id: string; name: string };
export interface OfflineGroup {
  id: string;
  name: string;
  settings: Record<string, unknown>;
}
export interface OfflineGeofence {
  id: string;
  name: string;
  geometry: unknown;
  color?: string | null;
  createdAt?: string;
  updatedAt?: string;
}
export interface OfflineRoute {
  id: string;
  name: string;
  objectIds: string[];
  stops: { geofenceId: string; expectedAt: string; toleranceMinutes: number }[];
  createdAt?: string;
  updatedAt?: string;
}

/** A track point as REST answers it (`/api/gps/objects/:objectId/track`). */
export interface OfflineTrackPoint {
  fixTime: string;
  lat: number;
  lon: number;
  speedKmh: number | null;
  course: number | null;
  accuracy: number | null;
  isLbs: boolean;
}

const byName = <T extends { name: string }>(a: T, b: T) => a.name.localeCompare(b.name);

/** The objects held (groups share their collection: `type: 'group'`). */
export async function offlineObjects(db: OrbitaDatabase): Promise<OfflineObject[]> {
  const documents = await db.gps_objects.find().exec();
  return documents
    .map((document) => plain<OfflineObject & { type?: string }>(document))
    .filter((document) => document.type !== 'group')
    .sort(byName);
}

export async function offlineGroups(db: OrbitaDatabase): Promise<OfflineGroup[]> {
  const documents = await db.gps_objects.find({ selector: { type: 'group' } }).exec();
  return documents.map((document) => plain<OfflineGroup>(document)).sort(byName);
}

export async function offlineGeofences(db: OrbitaDatabase): Promise<OfflineGeofence[]> {
  const documents = await db.gps_geofences.find({ selector: { type: 'geofence' } }).exec();
  return documents.map((document) => plain<OfflineGeofence>(document)).sort(byName);
}

export async function offlineRoutes(db: OrbitaDatabase): Promise<OfflineRoute[]> {
  const documents = await db.gps_geofences.find({ selector: { type: 'route' } }).exec();
  return documents.map((document) => plain<OfflineRoute>(document)).sort(byName);
}

type HourPoint = [number, number, number, number | null, number | null, 0 | 1];
const HOUR_MS = 3_600_000;

/** An object's hour of track as the replica holds it (`gps_tracks`). */
export interface TrackHour {
  objectId: string;
  /** The hour's start, ISO (UTC). */
  hour: string;
  points: HourPoint[];
}

/** An hour's points with their times, in the REST track's shape. */
function pointsOfHour({ hour, points }: TrackHour): OfflineTrackPoint[] {
  const start = Date.parse(hour);
  return points.map(([second, lat, lon, speedKmh, course, lbs]) => ({
    fixTime: new Date(start + second * 1000).toISOString(),
    lat,
    lon,
    speedKmh,
    course,
    accuracy: null,
    isLbs: lbs === 1,
  }));
}

/**
 * An object's track from `from` to `to` as the replica keeps it (its recent hours, points at least
 * 10 s apart), in the REST track's shape; empty beyond the hours kept.
 */
export async function offlineTrack(
  db: OrbitaDatabase,
  objectId: string,
  from: Date,
  to: Date,
): Promise<OfflineTrackPoint[]> {
  const firstHour = new Date(Math.floor(from.getTime() / HOUR_MS) * HOUR_MS).toISOString();
  const documents = await db.gps_tracks
    .find({ selector: { objectId, hour: { $gte: firstHour, $lte: to.toISOString() } }, sort: [{ hour: 'asc' }] })
    .exec();
  return documents
    .flatMap((document) => pointsOfHour(plain<TrackHour>(document)))
    .filter((point) => Date.parse(point.fixTime) >= from.getTime() && Date.parse(point.fixTime) <= to.getTime());
}

/** A route's progress computed on this device from the track its replica holds. */
export interface OfflineRouteProgress {
  items: { objectId: string; stops: StopProgress<StopStatus | 'unknown'>[] }[];
  /** Where the held track of the route's objects begins (an hour's start; `now` when none is held). */
  coveredFrom: Date;
  /** The newest point of it, if any. */
  coveredTo?: Date;
}

/**
 * A route's progress from the replica's track hours: each object's enters into the route's
 * geofences found in its points, judged by the server's rule; stops due before the held track
 * begins are unknown (their visits, if any, are not on this device).
 */
export function progressFromTrackHours(
  route: Pick<OfflineRoute, 'objectIds' | 'stops'>,
  geofences: readonly { id: string; geometry: Geometry }[],
  hours: readonly TrackHour[],
  now: Date,
): OfflineRouteProgress {
  const stopGeofences = new Set(route.stops.map((stop) => stop.geofenceId));
  const judged = geofences.filter((geofence) => stopGeofences.has(geofence.id));
  const held = hours.filter((hour) => route.objectIds.includes(hour.objectId));
  let coveredFrom = now.getTime();
  let coveredTo: number | undefined;
  for (const hour of held) {
    coveredFrom = Math.min(coveredFrom, Date.parse(hour.hour));
    const last = hour.points.at(-1);
    if (last) coveredTo = Math.max(coveredTo ?? 0, Date.parse(hour.hour) + last[0] * 1000);
  }
  const items = route.objectIds.map((objectId) => {
    const points: TrackPoint[] = held
      .filter((hour) => hour.objectId === objectId)
      .sort((a, b) => Date.parse(a.hour) - Date.parse(b.hour))
      .flatMap(pointsOfHour)
      .map((point) => ({ at: new Date(point.fixTime), lat: point.lat, lon: point.lon }));
    return { objectId, stops: stopProgress(route.stops, geofenceEnters(points, judged), new Date(coveredFrom)) };
  });
  return {
    items,
    coveredFrom: new Date(coveredFrom),
    ...(coveredTo === undefined ? {} : { coveredTo: new Date(coveredTo) }),
  };
}

/** A route's progress from what this device's replica holds (see `progressFromTrackHours`). */
export async function offlineRouteProgress(
  db: OrbitaDatabase,
  route: Pick<OfflineRoute, 'objectIds' | 'stops'>,
  now = new Date(),
): Promise<OfflineRouteProgress> {
  const geofences = (await offlineGeofences(db)).map((geofence) => ({
    id: geofence.id,
    geometry: geofence.geometry as Geometry,
  }));
  const documents = await db.gps_tracks.find({ selector: { objectId: { $in: route.objectIds } } }).exec();
  return progressFromTrackHours(
    route,
    geofences,
    documents.map((document) => plain<TrackHour>(document)),
    now,
  );
}

/** The replica a page saves through: its database, and its count of changes waiting to be sent. */
export interface ReplicaWriter {
  db: OrbitaDatabase;
  /** Writes one document as a change of the user's, waiting to be sent (`Replica.trackWrite`). */
  trackWrite<T>(id: string, write: () => Promise<T>): Promise<T>;
}

async function save<T extends { id: string }>(
  replica: ReplicaWriter,
  type: 'geofence' | 'route',
  values: Omit<T, 'id'> & { id?: string },
): Promise<T> {
  const id = values.id ?? crypto.randomUUID();
  const collection = replica.db.gps_geofences;
  const document = await replica.trackWrite(id, async () => {
    const held = await collection.findOne(id).exec();
    // A version is the server's to give: an edit keeps the one it was made on (the merge's base).
    if (held) return held.incrementalPatch({ ...values, id, type });
    const now = new Date().toISOString();
    return collection.insert({ createdAt: now, updatedAt: now, ...values, id, type });
  });
  return plain<T>(document);
}

/** Creates or changes a geofence on this device (values not given stay); pushed to the server when online. */
export function saveGeofence(
  replica: ReplicaWriter,
  geofence: Partial<Omit<OfflineGeofence, 'createdAt' | 'updatedAt'>>,
): Promise<OfflineGeofence> {
  return save<OfflineGeofence>(replica, 'geofence', geofence as OfflineGeofence);
}

/** Creates or changes a route on this device (values not given stay); pushed to the server when online. */
export function saveRoute(
  replica: ReplicaWriter,
  route: Partial<Omit<OfflineRoute, 'createdAt' | 'updatedAt'>>,
): Promise<OfflineRoute> {
  return save<OfflineRoute>(replica, 'route', route as OfflineRoute);
}

/** Deletes a geofence or route on this device; the deletion reaches the server with the next push. */
export async function removeGeofenceOrRoute(replica: ReplicaWriter, id: string): Promise<void> {
  await replica.trackWrite(id, async () => {
    await (await replica.db.gps_geofences.findOne(id).exec())?.remove();
  });
}

/** Values of a geofence as the map's editor saves them. */
export interface GeofenceValues {
  name: string;
  geometry: unknown;
  color?: string | null;
}

/** Values of a route as the map's editor saves them. */
export interface RouteValues {
  name: string;
  objectIds: string[];
  stops: { geofenceId: string; expectedAt: string; toleranceMinutes?: number }[];
}

/**
 * Where the map's editors save geofences and routes when the page has a replica: on the device,
 * reaching the server with the next push (offline too); without one they call the server.
 */
export interface GeofenceStore {
  saveGeofence(values: GeofenceValues, id?: string): Promise<OfflineGeofence>;
  removeGeofence(id: string): Promise<void>;
  saveRoute(values: RouteValues, id?: string): Promise<OfflineRoute>;
  removeRoute(id: string): Promise<void>;
}

/** The replica as the map's geofence and route store. */
export function replicaStore(replica: ReplicaWriter): GeofenceStore {
  return {
    saveGeofence: (values, id) => saveGeofence(replica, { color: null, ...values, id }),
    removeGeofence: (id) => removeGeofenceOrRoute(replica, id),
    saveRoute: (values, id) =>
      saveRoute(replica, {
        ...values,
        stops: values.stops.map((stop) => ({ ...stop, toleranceMinutes: stop.toleranceMinutes ?? 15 })),
        id,
      }),
    removeRoute: (id) => removeGeofenceOrRoute(replica, id),
  };
}
