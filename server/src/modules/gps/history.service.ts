import type { GpsSettings } from '@shared/api/gps';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Problem } from '../../platform/http/problem';
import type { Fix } from './filters';
import { reverseGeocode } from './geocoder';
import * as geofences from './geofences.service';
import * as repo from './gps.repo';
import { type GpsDeps, getSettings, requireObject, timeRange, trackDistance } from './gps.service';
import { matchTrack } from './matching';
import { tripsAndStops } from './trips';

type Range = { from?: string; to?: string };

/** A place's address from the configured reverse geocoder in the user's language, or null (none, or it failed). */
async function addressOf(deps: GpsDeps, settings: GpsSettings, point: Fix, language: string): Promise<string | null> {
  if (!settings.geocoderUrl) return null;
  const answer = await reverseGeocode(deps.fetch ?? fetch, settings.geocoderUrl, point, language);
  return answer.ok ? answer.address : null;
}

async function place(deps: GpsDeps, settings: GpsSettings, point: Fix, language: string) {
  return { lat: point.lat, lon: point.lon, address: await addressOf(deps, settings, point, language) };
}

/**
 * The address of the object's last position, in the user's language: 409 `geocoder_not_configured`
 * without a geocoder, 502 `geocoder_failed` when it does not answer.
 */
export async function objectAddress(deps: GpsDeps, auth: AuthContext, objectId: string) {
  const object = await requireObject(deps.db, auth, objectId);
  const settings = await getSettings(deps.db, auth.organizationId);
  if (!settings.geocoderUrl) {
    throw Problem.of(
      'geocoder_not_configured',
      'No reverse geocoder is set: an administrator sets `geocoderUrl` in the GPS settings (a Nominatim /reverse address).',
    );
  }
  if (!object.last_fix_time || object.last_lat === null || object.last_lon === null) {
    throw Problem.of('conflict', `The object ${object.name} has no position yet, so it has no address.`);
  }
  const point = { lat: object.last_lat, lon: object.last_lon };
  const answer = await reverseGeocode(deps.fetch ?? fetch, settings.geocoderUrl, point, auth.locale);
  if (!answer.ok) {
    throw Problem.of(
      'geocoder_failed',
      `The reverse geocoder did not give the address (${answer.detail}); try again later.`,
    );
  }
  return { address: answer.address, ...point, fixTime: object.last_fix_time.toISOString() };
}

async function analysed(deps: GpsDeps, auth: AuthContext, objectId: string, range: Range) {
  await requireObject(deps.db, auth, objectId);
  const { from, to } = timeRange(range);
  const settings = await getSettings(deps.db, auth.organizationId);
  const points = await repo.track(deps.db, objectId, from, to);
  return { settings, ...tripsAndStops(points, settings) };
}

export async function listTrips(deps: GpsDeps, auth: AuthContext, objectId: string, range: Range) {
  const { settings, trips } = await analysed(deps, auth, objectId, range);
  const items = [];
  for (const trip of trips) {
    const first = trip.points[0] as Fix;
    const last = trip.points.at(-1) as Fix;
    const seconds = (last.fixTime.getTime() - first.fixTime.getTime()) / 1000;
    items.push({
      start: first.fixTime.toISOString(),
      end: last.fixTime.toISOString(),
      durationSeconds: seconds,
      distanceMeters: Math.round(trip.distanceMeters * 10) / 10,
      maxSpeedKmh: Math.round(trip.maxSpeedKmh * 10) / 10,
      avgSpeedKmh: seconds > 0 ? Math.round((trip.distanceMeters / seconds) * 36) / 10 : 0,
      startPlace: await place(deps, settings, first, auth.locale),
      endPlace: await place(deps, settings, last, auth.locale),
    });
  }
  return { items };
}

export async function listStops(deps: GpsDeps, auth: AuthContext, objectId: string, range: Range) {
  const { settings, stops } = await analysed(deps, auth, objectId, range);
  const items = [];
  for (const stop of stops) {
    items.push({
      start: stop.start.fixTime.toISOString(),
      end: stop.end.fixTime.toISOString(),
      durationSeconds: (stop.end.fixTime.getTime() - stop.start.fixTime.getTime()) / 1000,
      place: await place(deps, settings, stop.start, auth.locale),
    });
  }
  return { items };
}

/** Geofence crossings and Traccar's events of an object, in time order. */
export async function listEvents(deps: GpsDeps, auth: AuthContext, objectId: string, range: Range) {
  await requireObject(deps.db, auth, objectId);
  const { from, to } = timeRange(range);
  const ours = (await geofences.crossingsOf(deps.db, objectId, from, to)).map((crossing) => ({
    source: 'orbita' as const,
    type: crossing.type === 'enter' ? 'geofenceEnter' : 'geofenceExit',
    time: crossing.fix_time.toISOString(),
    geofenceId: crossing.geofence_id,
    attributes: { lat: crossing.lat, lon: crossing.lon },
  }));
  const theirs = (await repo.trackerEvents(deps.db, objectId, from, to)).map((event) => ({
    source: 'traccar' as const,
    type: event.type,
    time: event.event_time.toISOString(),
    geofenceId: null,
    attributes: event.attributes,
  }));
  return { items: [...ours, ...theirs].sort((a, b) => a.time.localeCompare(b.time)) };
}

/** The track snapped to roads by the routing engine; the raw track with `matched: false` without one. */
export async function matchedTrack(deps: GpsDeps, auth: AuthContext, objectId: string, range: Range) {
  await requireObject(deps.db, auth, objectId);
  const { from, to } = timeRange(range);
  const settings = await getSettings(deps.db, auth.organizationId);
  const points = await repo.track(deps.db, objectId, from, to);
  const raw = {
    matched: false,
    segments:
      points.length === 0
        ? []
        : [
            {
              matched: false,
              confidence: null,
              coordinates: points.map(({ lat, lon }) => ({ lat, lon })),
              outliers: [],
            },
          ],
    distanceMeters: trackDistance(points),
  };
  if (!settings.routingEngine || points.length < 2) return raw;
  return (await matchTrack(deps, objectId, settings.routingEngine, points)) ?? raw;
}
