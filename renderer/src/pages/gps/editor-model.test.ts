import { afterEach, describe, expect, it } from 'vitest';
import { addPoint, boundsOf, edgeAt, outlineOf, removeHandle } from './geometry';
import { ALL_LAYERS_ON, layerGroupOf, layerSwitches } from './layers';
import { recallMap, rememberMap } from './map-memory';
import { applyPosition } from './object-state';
import { complete, draftOf, localInput, moveStop, nextStop, routeRequest } from './route-model';

describe('the layer switch', () => {
  it('puts each of the map’s layers in its group, the organization’s tiles being any other layer under the geofences', () => {
    expect(layerGroupOf('geofences-corridor', false)).toBe('geofences');
    expect(layerGroupOf('labels', false)).toBe('labels');
    expect(layerGroupOf('cluster-count', false)).toBe('objects');
    expect(layerGroupOf('playback', false)).toBe('tracks');
    expect(layerGroupOf('organization-roads', true)).toBe('tiles');
    expect(layerGroupOf('tiles', true)).toBe('tiles');
    // The bundled basemap and the editor's own layers are never switched off.
    expect(layerGroupOf('land', true)).toBeUndefined();
    expect(layerGroupOf('handles', false)).toBeUndefined();
    expect(layerGroupOf('draft-fill', false)).toBeUndefined();
  });

  it('reads remembered switches, turning on the ones an older memory lacks', () => {
    expect(layerSwitches({ geofences: false, labels: true })).toEqual({ ...ALL_LAYERS_ON, geofences: false });
    expect(layerSwitches(undefined)).toEqual(ALL_LAYERS_ON);
    expect(layerSwitches({ tiles: 'no' as unknown as boolean })).toEqual(ALL_LAYERS_ON);
  });

  describe('remembered per user with the map', () => {
    const store = new Map<string, string>();
    (globalThis as { localStorage?: unknown }).localStorage = {
      getItem: (key: string) => store.get(key) ?? null,
      setItem: (key: string, value: string) => store.set(key, value),
    };
    afterEach(() => store.clear());

    it('keeps each user’s switches and camera apart', () => {
      rememberMap('ann', { center: [30, 60], zoom: 12, layers: { ...ALL_LAYERS_ON, tracks: false, tiles: false } });
      expect(recallMap('ann')).toEqual({
        center: [30, 60],
        zoom: 12,
        layers: { ...ALL_LAYERS_ON, tracks: false, tiles: false },
      });
      expect(recallMap('bob').layers).toEqual(ALL_LAYERS_ON);
    });

    it('opens an older release’s memory (two switches) with the rest on', () => {
      store.set(
        'orbita.map.ann',
        JSON.stringify({ center: [1, 2], zoom: 3, layers: { geofences: false, labels: true } }),
      );
      expect(recallMap('ann').layers).toEqual({ ...ALL_LAYERS_ON, geofences: false });
    });
  });
});

describe('the route form', () => {
  const geofenceA = '00000000-0000-4000-8000-00000000000a';
  const geofenceB = '00000000-0000-4000-8000-00000000000b';

  it('moves a stop up or down, never past either end', () => {
    expect(moveStop(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b']);
    expect(moveStop(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c']);
    expect(moveStop(['a', 'b', 'c'], 0, -1)).toEqual(['a', 'b', 'c']);
    expect(moveStop(['a', 'b', 'c'], 2, 1)).toEqual(['a', 'b', 'c']);
  });

  it('expects a new stop an hour after the last one, the first at the next full hour', () => {
    const first = nextStop([], new Date(2026, 2, 2, 9, 40));
    expect(first).toEqual({ geofenceId: undefined, expectedAt: '2026-03-02T10:00', toleranceMinutes: 15 });
    expect(nextStop([first]).expectedAt).toBe('2026-03-02T11:00');
  });

  it('is complete with a name and every stop placed, and sends local times as UTC', () => {
    const draft = {
      name: '  Morning round ',
      objectIds: [],
      stops: [
        { geofenceId: geofenceA, expectedAt: '2026-03-02T10:00', toleranceMinutes: 15 },
        { geofenceId: undefined, expectedAt: '2026-03-02T11:00', toleranceMinutes: 5 },
      ],
    };
    expect(complete(draft)).toBe(false);
    const placed = {
      ...draft,
      stops: draft.stops.map((stop) => ({ ...stop, geofenceId: stop.geofenceId ?? geofenceB })),
    };
    expect(complete(placed)).toBe(true);
    expect(complete({ ...placed, name: ' ' })).toBe(false);
    const body = routeRequest(placed);
    expect(body.name).toBe('Morning round');
    expect(body.stops.map((stop) => stop.geofenceId)).toEqual([geofenceA, geofenceB]);
    expect(body.stops[0]?.expectedAt).toBe(new Date(2026, 2, 2, 10, 0).toISOString());
  });

  it('opens a saved route with its times in local form', () => {
    const expectedAt = new Date(2026, 2, 2, 14, 30).toISOString();
    const draft = draftOf({
      id: '00000000-0000-4000-8000-000000000001',
      name: 'R',
      objectIds: [],
      stops: [{ geofenceId: geofenceA, expectedAt, toleranceMinutes: 10 }],
      createdAt: expectedAt,
      updatedAt: expectedAt,
    });
    expect(draft.stops[0]?.expectedAt).toBe('2026-03-02T14:30');
    expect(localInput(expectedAt)).toBe('2026-03-02T14:30');
  });
});

describe('the object card’s battery', () => {
  it('keeps the battery level the tracker last reported when a live position without one moves the object', () => {
    const object = {
      id: 'a',
      name: 'Van',
      kind: 'vehicle' as const,
      groupId: null,
      last_seen: null,
      last_gps_fix_at: null,
      gpsLost: false,
      lastPosition: {
        fixTime: '2026-03-02T10:00:00.000Z',
        lat: 55,
        lon: 37,
        speedKmh: 0,
        course: null,
        isLbs: false,
        batteryPercent: 64,
      },
    };
    const moved = applyPosition(object, {
      objectId: 'a',
      fixTime: '2026-03-02T10:00:05.000Z',
      lat: 55.001,
      lon: 37,
      speedKmh: 30,
      course: 0,
      isLbs: false,
    });
    expect(moved.lastPosition).toMatchObject({ lat: 55.001, batteryPercent: 64 });
    const reported = applyPosition(moved, {
      objectId: 'a',
      fixTime: '2026-03-02T10:00:10.000Z',
      lat: 55.002,
      lon: 37,
      speedKmh: 30,
      course: 0,
      isLbs: false,
      batteryPercent: 61,
    });
    expect(reported.lastPosition?.batteryPercent).toBe(61);
  });
});

describe('editing a geofence’s vertices', () => {
  const points = [
    { lat: 1, lon: 1 },
    { lat: 1, lon: 2 },
    { lat: 2, lon: 2 },
    { lat: 2, lon: 1 },
  ];

  it('removes a double-clicked vertex while the shape keeps the points it needs', () => {
    const polygon = removeHandle({ type: 'polygon', points }, 1);
    expect(polygon.type === 'polygon' && polygon.points).toEqual([points[0], points[2], points[3]]);
    expect(removeHandle(polygon, 0)).toBe(polygon);
    const corridor = { type: 'polyline' as const, points: points.slice(0, 2), widthMeters: 20 };
    expect(removeHandle(corridor, 0)).toBe(corridor);
    const circle = { type: 'circle' as const, center: points[0] as { lat: number; lon: number }, radiusMeters: 5 };
    expect(removeHandle(circle, 0)).toBe(circle);
  });
});

describe('adding a vertex to a saved shape', () => {
  const square = [
    { x: 0, y: 0 },
    { x: 100, y: 0 },
    { x: 100, y: 100 },
    { x: 0, y: 100 },
  ];

  it('finds the edge a click lands on, a polygon’s closing edge included, and none away from them', () => {
    expect(edgeAt(square, { x: 50, y: 3 }, true)).toBe(0);
    expect(edgeAt(square, { x: 97, y: 60 }, true)).toBe(1);
    expect(edgeAt(square, { x: 4, y: 50 }, true)).toBe(3);
    expect(edgeAt(square, { x: 4, y: 50 }, false)).toBeUndefined();
    expect(edgeAt(square, { x: 50, y: 50 }, true)).toBeUndefined();
  });

  it('puts the point between the edge’s vertices, or after the last one', () => {
    const a = { lat: 0, lon: 0 };
    const b = { lat: 0, lon: 1 };
    const c = { lat: 1, lon: 1 };
    const added = { lat: 0, lon: 0.5 };
    const between = addPoint({ type: 'polygon', points: [a, b, c] }, added, 0);
    expect(between.type === 'polygon' && between.points).toEqual([a, added, b, c]);
    const appended = addPoint({ type: 'polyline', points: [a, b], widthMeters: 10 }, c);
    expect(appended.type === 'polyline' && appended.points).toEqual([a, b, c]);
  });
});

describe('a route shown on the map', () => {
  it('is bounded by its geofences: a circle by its ring, a shape by its vertices', () => {
    const circle = outlineOf({ type: 'circle', center: { lat: 55, lon: 37 }, radiusMeters: 1000 });
    const bounds = boundsOf([
      ...circle,
      ...outlineOf({
        type: 'polygon',
        points: [
          { lat: 56, lon: 38 },
          { lat: 56.1, lon: 38 },
          { lat: 56, lon: 38.2 },
        ],
      }),
    ]);
    expect(bounds?.[0][1]).toBeCloseTo(55 - 1000 / 111_195, 4);
    expect(bounds?.[1]).toEqual([38.2, 56.1]);
  });
});
