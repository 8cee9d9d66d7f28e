import { type Geometry, insideGeofence } from './gps-geometry';

/**
 * Progress on a GPS route, the same rule on the server (from the geofence enters recorded at
 * ingestion) and on the map offline (from the enters found in the replica's recent track).
 */

/** A stop of a route: its geofence, when the object is expected there, and how late is still on time. */
export interface RouteStop {
  geofenceId: string;
  expectedAt: string;
  toleranceMinutes: number;
}

/** An object's entry into a geofence. */
export interface GeofenceEnter {
  geofenceId: string;
  at: Date;
}

/** A stop's state for one object, as the route's progress answers it. */
export type StopStatus = 'visited' | 'late' | 'skipped' | 'pending';

/** A stop of one object's progress; `unknown` only where the track it was judged from does not reach. */
export interface StopProgress<Status extends string = StopStatus> {
  geofenceId: string;
  expectedAt: string;
  status: Status;
  enteredAt: string | null;
}

const DAY_MS = 86_400_000;

/** The period whose enters count for a route: a day before its first expected time to a day after its last. */
export function progressPeriod(stops: readonly RouteStop[]): { from: Date; to: Date } {
  const times = stops.map((stop) => new Date(stop.expectedAt).getTime());
  return { from: new Date(Math.min(...times) - DAY_MS), to: new Date(Math.max(...times) + DAY_MS) };
}

/**
 * An object's progress on a route: a stop is visited when the object entered its geofence after
 * entering the previous visited stop's (late beyond the tolerance), skipped when a later stop was
 * visited, pending otherwise. Only enters within `progressPeriod` count.
 *
 * With `coveredFrom` (the enters are known only from then on): a stop due, tolerance included,
 * before that is `unknown` — its visit would have been before the track begins — and takes no part
 * in the order of the others.
 */
export function stopProgress(stops: readonly RouteStop[], enters: readonly GeofenceEnter[]): StopProgress[];
export function stopProgress(
  stops: readonly RouteStop[],
  enters: readonly GeofenceEnter[],
  coveredFrom: Date,
): StopProgress<StopStatus | 'unknown'>[];
export function stopProgress(
  stops: readonly RouteStop[],
  enters: readonly GeofenceEnter[],
  coveredFrom?: Date,
): StopProgress<StopStatus | 'unknown'>[] {
  const { from, to } = progressPeriod(stops);
  const counted = enters
    .filter((enter) => enter.at.getTime() >= from.getTime() && enter.at.getTime() <= to.getTime())
    .sort((a, b) => a.at.getTime() - b.at.getTime());
  const dueBy = (stop: RouteStop) => new Date(stop.expectedAt).getTime() + stop.toleranceMinutes * 60_000;
  const unknown = stops.map((stop) => coveredFrom !== undefined && dueBy(stop) < coveredFrom.getTime());
  let after = from.getTime();
  const entered: (Date | null)[] = [];
  for (const [index, stop] of stops.entries()) {
    const found = unknown[index]
      ? undefined
      : counted.find((enter) => enter.geofenceId === stop.geofenceId && enter.at.getTime() >= after);
    entered.push(found?.at ?? null);
    if (found) after = found.at.getTime();
  }
  let lastVisited = -1;
  for (const [index, time] of entered.entries()) if (time) lastVisited = index;
  return stops.map((stop, index) => {
    const time = entered[index] ?? null;
    let status: StopStatus | 'unknown';
    if (unknown[index]) status = 'unknown';
    else if (time) status = time.getTime() > dueBy(stop) ? 'late' : 'visited';
    else status = index < lastVisited ? 'skipped' : 'pending';
    return {
      geofenceId: stop.geofenceId,
      expectedAt: new Date(stop.expectedAt).toISOString(),
      status,
      enteredAt: time?.toISOString() ?? null,
    };
  });
}

/** A point of a track: its time and position. */
export interface TrackPoint {
  at: Date;
  lat: number;
  lon: number;
}

/**
 * The enters of a track (points in time order) into the geofences, as ingestion records them: a
 * point inside after one outside, or the track's first point when it is inside.
 */
export function geofenceEnters(
  points: readonly TrackPoint[],
  geofences: readonly { id: string; geometry: Geometry }[],
): GeofenceEnter[] {
  const enters: GeofenceEnter[] = [];
  const wasInside = new Map<string, boolean>();
  for (const point of points) {
    for (const geofence of geofences) {
      const inside = insideGeofence(geofence.geometry, point);
      if (inside && wasInside.get(geofence.id) !== true) enters.push({ geofenceId: geofence.id, at: point.at });
      wasInside.set(geofence.id, inside);
    }
  }
  return enters;
}
