import { describe, expect, it } from 'vitest';
import { circleRing, drawable, geofenceFeature, moveHandle } from './geometry';
import { applyPosition, type MapObject, matchesSearch, objectState, objectsGeoJson } from './object-state';
import { rejectedGeoJson, speedColor, trackGeoJson } from './speed';

const now = Date.parse('2026-03-02T12:00:00Z');
const object = (lastPosition: MapObject['lastPosition'], gpsLost = false): MapObject => ({
  id: 'a',
  name: 'Ёлка 7',
  kind: 'vehicle',
  groupId: null,
  last_seen: null,
  last_gps_fix_at: null,
  gpsLost,
  lastPosition,
});
const at = (seconds: number, speedKmh: number | null = 40) => ({
  fixTime: new Date(now + seconds * 1000).toISOString(),
  lat: 55,
  lon: 37,
  speedKmh,
  course: 90,
  accuracy: null,
  isLbs: false,
});

describe('the map’s objects', () => {
  it('tells moving, parked, GPS lost and no data apart; an old fast fix is not moving now', () => {
    expect(objectState(object(null), now)).toBe('nodata');
    expect(objectState(object(at(-60, 40)), now)).toBe('moving');
    expect(objectState(object(at(-60, 1)), now)).toBe('parked');
    expect(objectState(object(at(-3600, 40)), now)).toBe('parked');
    expect(objectState({ ...object(at(-60)), gpsLost: true }, now)).toBe('lost');
  });

  it('moves an object only to a later fix, and leaves out objects with no position', () => {
    const { accuracy: _a, ...live } = at(10);
    const moved = applyPosition(object(at(0)), { objectId: 'a', ...live });
    expect(moved.lastPosition?.fixTime).toBe(at(10).fixTime);
    const { accuracy: _b, ...older } = at(5);
    expect(applyPosition(moved, { objectId: 'a', ...older })).toBe(moved);
    const features = objectsGeoJson([moved, { ...object(null), id: 'b' }], 'a').features;
    expect(features.map((f) => f.properties?.id)).toEqual(['a']);
    expect(features[0]?.properties).toMatchObject({ selected: true, course: 90 });
  });

  it('finds objects ignoring case and ё', () => {
    expect(matchesSearch(object(null), 'елка')).toBe(true);
    expect(matchesSearch(object(null), 'van')).toBe(false);
  });
});

describe('tracks and geofences', () => {
  it('draws a track in pieces by speed band, leaving refused points to their own layer', () => {
    const points = [at(0, 10), at(10, 12), at(20, 80), at(30, 85), { ...at(40, 200), reason: 'spike' as const }];
    const track = trackGeoJson(points);
    expect(track.features.map((f) => f.properties?.color)).toEqual([speedColor(10), speedColor(80)]);
    expect(rejectedGeoJson(points).features.map((f) => f.properties?.reason)).toEqual(['spike']);
  });

  it('shapes circles, polygons and corridors, moves handles and says when a shape can be saved', () => {
    const ring = circleRing({ lat: 55, lon: 37 }, 1000);
    expect(ring).toHaveLength(65);
    expect(ring[0]?.[1]).toBeCloseTo(55 + 1000 / 111_195, 3);
    const polygon = geofenceFeature(
      {
        type: 'polygon',
        points: [
          { lat: 0, lon: 0 },
          { lat: 1, lon: 0 },
          { lat: 1, lon: 1 },
        ],
      },
      {},
    );
    expect(polygon.geometry.type).toBe('Polygon');
    const corridor = { type: 'polyline' as const, points: [{ lat: 0, lon: 0 }], widthMeters: 50 };
    expect(drawable(corridor)).toBe(false);
    const longer = { ...corridor, points: [...corridor.points, { lat: 0, lon: 1 }] };
    expect(drawable(longer)).toBe(true);
    expect(moveHandle(longer, 1, { lat: 2, lon: 2 })).toMatchObject({
      points: [
        { lat: 0, lon: 0 },
        { lat: 2, lon: 2 },
      ],
    });
  });
});
