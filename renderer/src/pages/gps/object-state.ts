import type { GpsObject } from '@shared/api/gps';
import type { GpsLivePosition } from '@shared/gps-live';
import type { Feature, FeatureCollection } from 'geojson';

/** How an object is drawn: moving, parked, GPS lost, or never heard from. */
export type ObjectState = 'moving' | 'parked' | 'lost' | 'nodata';

/** Faster than this (km/h) is moving; slower is parked (stationary jitter reads a few km/h). */
export const MOVING_KMH = 3;

export const STATE_COLOR: Record<ObjectState, string> = {
  moving: '#2e7d32',
  parked: '#1565c0',
  lost: '#e65100',
  nodata: '#9e9e9e',
};

/** The object as the map needs it: its record and its newest position (live or stored). */
export type MapObject = Pick<
  GpsObject,
  'id' | 'name' | 'kind' | 'groupId' | 'last_seen' | 'last_gps_fix_at' | 'gpsLost'
> & {
  lastPosition: GpsObject['lastPosition'];
};

/** A fix older than this says nothing about moving now. */
export const MOVING_FRESH_MS = 10 * 60_000;

export function objectState(object: MapObject, now = Date.now()): ObjectState {
  if (!object.lastPosition) return 'nodata';
  if (object.gpsLost) return 'lost';
  const fresh = now - Date.parse(object.lastPosition.fixTime) < MOVING_FRESH_MS;
  return fresh && (object.lastPosition.speedKmh ?? 0) > MOVING_KMH ? 'moving' : 'parked';
}

/** Applies a live position: only a later fix moves the object; it also means GPS is back. */
export function applyPosition(object: MapObject, position: GpsLivePosition): MapObject {
  if (object.lastPosition && object.lastPosition.fixTime >= position.fixTime) return object;
  const { objectId: _id, ...fix } = position;
  return {
    ...object,
    // A position without a battery level keeps the last one reported.
    lastPosition: { ...fix, batteryPercent: fix.batteryPercent ?? object.lastPosition?.batteryPercent ?? null },
    gpsLost: false,
    last_gps_fix_at: position.fixTime,
    last_seen: new Date().toISOString(),
  };
}

/** The objects as a GeoJSON collection (objects with no position are left out). */
export function objectsGeoJson(objects: Iterable<MapObject>, selectedId?: string): FeatureCollection {
  const features: Feature[] = [];
  for (const object of objects) {
    const position = object.lastPosition;
    if (!position) continue;
    const state = objectState(object);
    features.push({
      type: 'Feature',
      id: features.length,
      geometry: { type: 'Point', coordinates: [position.lon, position.lat] },
      properties: {
        id: object.id,
        name: object.name,
        state,
        icon: `object:${object.kind}:${state}`,
        label: `label:${object.name}`,
        course: position.course ?? 0,
        hasCourse: position.course !== null && state === 'moving',
        selected: object.id === selectedId,
      },
    });
  }
  return { type: 'FeatureCollection', features };
}

/** Matches an object by a search text: name, case and ё/е ignored. */
export function matchesSearch(object: Pick<MapObject, 'name'>, search: string): boolean {
  const fold = (text: string) => text.toLocaleLowerCase().replaceAll('ё', 'е');
  return fold(object.name).includes(fold(search.trim()));
}
