import { describe, expect, it } from 'vitest';
import { distanceMeters, type Geometry, insideGeofence } from './gps-geometry';
import { geofenceEnters, type RouteStop, stopProgress } from './gps-progress';

const base = Date.parse('2026-03-02T08:00:00Z');
const at = (minutes: number) => new Date(base + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();
const north = (meters: number) => 55.75 + meters / 111_195;
const east = (meters: number) => 37.6 + meters / (111_195 * Math.cos((55.75 * Math.PI) / 180));

const stop = (geofenceId: string, minutes: number, toleranceMinutes = 10): RouteStop => ({
  geofenceId,
  expectedAt: iso(minutes),
  toleranceMinutes,
});

describe('a route’s progress rule', () => {
  it('marks stops visited, late, skipped and pending, counting an enter only after the previous visited stop’s', () => {
    const stops = [stop('yard', 0), stop('quay', 60), stop('road', 120), stop('depot', 180)];
    const enters = [
      // Into the road before the yard: not the road stop's visit, which must follow the yard's.
      { geofenceId: 'road', at: at(-30) },
      { geofenceId: 'yard', at: at(5) },
      { geofenceId: 'road', at: at(140) },
    ];
    expect(stopProgress(stops, enters)).toEqual([
      { geofenceId: 'yard', expectedAt: iso(0), status: 'visited', enteredAt: iso(5) },
      { geofenceId: 'quay', expectedAt: iso(60), status: 'skipped', enteredAt: null },
      { geofenceId: 'road', expectedAt: iso(120), status: 'late', enteredAt: iso(140) },
      { geofenceId: 'depot', expectedAt: iso(180), status: 'pending', enteredAt: null },
    ]);
  });

  it('counts an enter at exactly the tolerance as on time, and none from more than a day before the first stop', () => {
    const stops = [stop('yard', 0, 10), stop('road', 60, 0)];
    const enters = [
      { geofenceId: 'road', at: at(60.001) },
      { geofenceId: 'yard', at: at(10) },
      { geofenceId: 'yard', at: at(-24 * 60 - 1) },
    ];
    expect(stopProgress(stops, enters).map((one) => [one.status, one.enteredAt])).toEqual([
      ['visited', iso(10)],
      ['late', iso(60.001)],
    ]);
  });

  it('calls a stop due before the known track begins unknown, neither skipped nor pending, and judges the rest', () => {
    const stops = [stop('yard', 0, 15), stop('quay', 60), stop('road', 120)];
    const enters = [
      { geofenceId: 'yard', at: at(70) },
      { geofenceId: 'road', at: at(125) },
    ];
    // Known from 08:30: the yard (due by 08:15) may have been visited before; the quay was not.
    expect(stopProgress(stops, enters, at(30)).map((one) => [one.status, one.enteredAt])).toEqual([
      ['unknown', null],
      ['skipped', null],
      ['visited', iso(125)],
    ]);
    // Without that limit the same enters make the yard late.
    expect(stopProgress(stops, enters).map((one) => one.status)).toEqual(['late', 'skipped', 'visited']);
    // Nothing known before now: stops already due are unknown, the coming one pending.
    expect(stopProgress(stops, [], at(100)).map((one) => one.status)).toEqual(['unknown', 'unknown', 'pending']);
  });
});

describe('geofence enters found in a track', () => {
  const center = { lat: north(0), lon: 37.6 };
  const edge = { lat: north(100), lon: 37.6 };
  const circle: Geometry = { type: 'circle', center, radiusMeters: distanceMeters(center, edge) };
  // A corridor 40 m wide along a 1 km line 500 m east.
  const road: Geometry = {
    type: 'polyline',
    widthMeters: 40,
    points: [
      { lat: north(0), lon: east(500) },
      { lat: north(1000), lon: east(500) },
    ],
  };

  it('counts a point exactly at a circle’s radius as inside, and one a centimetre beyond as outside', () => {
    expect(insideGeofence(circle, edge)).toBe(true);
    expect(insideGeofence(circle, { lat: north(100.01), lon: 37.6 })).toBe(false);
  });

  it('counts a point inside a polyline’s corridor by half its width on either side, and around its ends', () => {
    expect(insideGeofence(road, { lat: north(500), lon: east(519) })).toBe(true);
    expect(insideGeofence(road, { lat: north(500), lon: east(481) })).toBe(true);
    expect(insideGeofence(road, { lat: north(500), lon: east(521) })).toBe(false);
    expect(insideGeofence(road, { lat: north(1015), lon: east(500) })).toBe(true);
    expect(insideGeofence(road, { lat: north(1025), lon: east(500) })).toBe(false);
  });

  it('finds an enter at the first point inside, at each point inside after one outside, never while staying', () => {
    const geofences = [
      { id: 'circle', geometry: circle },
      { id: 'road', geometry: road },
    ];
    const track = [
      { at: at(0), ...center },
      { at: at(1), lat: north(50), lon: 37.6 },
      { at: at(2), lat: north(300), lon: 37.6 },
      { at: at(3), ...edge },
      { at: at(4), lat: north(400), lon: east(515) },
      { at: at(5), lat: north(600), lon: east(490) },
      { at: at(6), lat: north(600), lon: east(560) },
      { at: at(7), lat: north(700), lon: east(505) },
    ];
    expect(geofenceEnters(track, geofences)).toEqual([
      { geofenceId: 'circle', at: at(0) },
      { geofenceId: 'circle', at: at(3) },
      { geofenceId: 'road', at: at(4) },
      { geofenceId: 'road', at: at(7) },
    ]);
  });
});
