import { distanceMeters, type Geometry } from '@shared/gps-geometry';
import { describe, expect, it } from 'vitest';
import { progressFromTrackHours, type TrackHour } from './offline-data';

const north = (meters: number) => 55.75 + meters / 111_195;
const east = (meters: number) => 37.6 + meters / (111_195 * Math.cos((55.75 * Math.PI) / 180));

const center = { lat: north(0), lon: 37.6 };
// The radius reaches exactly the truck's point 100 m north.
const yard: Geometry = { type: 'circle', center, radiusMeters: distanceMeters(center, { lat: north(100), lon: 37.6 }) };
const road: Geometry = {
  type: 'polyline',
  widthMeters: 40,
  points: [
    { lat: north(0), lon: east(500) },
    { lat: north(1000), lon: east(500) },
  ],
};
const geofences = [
  { id: 'yard', geometry: yard },
  { id: 'road', geometry: road },
];

/** A replica's hour of track: points as [seconds into the hour, lat, lon, speed, course, isLbs]. */
const hour = (objectId: string, start: string, points: [number, number, number][]): TrackHour => ({
  objectId,
  hour: start,
  points: points.map(([second, lat, lon]) => [second, lat, lon, 20, 0, 0]),
});

describe('a route’s progress computed from the replica’s track hours', () => {
  const route = {
    objectIds: ['truck', 'van'],
    stops: [
      { geofenceId: 'road', expectedAt: '2026-03-02T06:00:00.000Z', toleranceMinutes: 30 },
      { geofenceId: 'yard', expectedAt: '2026-03-02T08:00:00.000Z', toleranceMinutes: 10 },
      { geofenceId: 'road', expectedAt: '2026-03-02T08:30:00.000Z', toleranceMinutes: 5 },
      { geofenceId: 'yard', expectedAt: '2026-03-02T10:00:00.000Z', toleranceMinutes: 5 },
    ],
  };
  // Held from 07:00 (the hours arrive in any order): the truck waits outside the yard, enters it
  // at 08:05, then the road's corridor at 08:40 (18 m off its line).
  const hours = [
    hour('truck', '2026-03-02T08:00:00.000Z', [
      [0, north(300), 37.6],
      [300, north(100), 37.6],
      [310, north(50), 37.6],
      [2400, north(500), east(518)],
    ]),
    hour('truck', '2026-03-02T07:00:00.000Z', [[1800, north(300), 37.6]]),
    // Another object’s hour is not the truck’s, and goes back no further than the route's objects' own.
    hour('bus', '2026-03-02T03:00:00.000Z', [[0, north(0), 37.6]]),
  ];

  it('finds the enters in the points, calls stops due before the held track unknown, and says what it covers', () => {
    const progress = progressFromTrackHours(route, geofences, hours, new Date('2026-03-02T09:00:00Z'));
    expect(progress.coveredFrom.toISOString()).toBe('2026-03-02T07:00:00.000Z');
    expect(progress.coveredTo?.toISOString()).toBe('2026-03-02T08:40:00.000Z');
    expect(progress.items).toEqual([
      {
        objectId: 'truck',
        stops: [
          { geofenceId: 'road', expectedAt: '2026-03-02T06:00:00.000Z', status: 'unknown', enteredAt: null },
          {
            geofenceId: 'yard',
            expectedAt: '2026-03-02T08:00:00.000Z',
            status: 'visited',
            // The point exactly at the radius (08:05:00) counts as inside: the enter is there.
            enteredAt: '2026-03-02T08:05:00.000Z',
          },
          {
            geofenceId: 'road',
            expectedAt: '2026-03-02T08:30:00.000Z',
            status: 'late',
            enteredAt: '2026-03-02T08:40:00.000Z',
          },
          { geofenceId: 'yard', expectedAt: '2026-03-02T10:00:00.000Z', status: 'pending', enteredAt: null },
        ],
      },
      {
        objectId: 'van',
        stops: [
          { geofenceId: 'road', expectedAt: '2026-03-02T06:00:00.000Z', status: 'unknown', enteredAt: null },
          { geofenceId: 'yard', expectedAt: '2026-03-02T08:00:00.000Z', status: 'pending', enteredAt: null },
          { geofenceId: 'road', expectedAt: '2026-03-02T08:30:00.000Z', status: 'pending', enteredAt: null },
          { geofenceId: 'yard', expectedAt: '2026-03-02T10:00:00.000Z', status: 'pending', enteredAt: null },
        ],
      },
    ]);
  });

  it('calls every stop already due unknown when the device holds no track of the route’s objects', () => {
    const progress = progressFromTrackHours(route, geofences, [], new Date('2026-03-02T09:00:00Z'));
    expect(progress.coveredTo).toBeUndefined();
    expect(progress.items[0]?.stops.map((stop) => stop.status)).toEqual(['unknown', 'unknown', 'unknown', 'pending']);
  });
});
