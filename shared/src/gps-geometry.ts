import type { z } from 'zod';
import type { GeofenceGeometry } from './api/gps';

/**
 * Plane geometry on the Earth's surface, enough for tracks and geofences (no PostGIS): the server
 * judges crossings with it at ingestion, the map its replica's tracks offline.
 */

/** A geofence's shape as the API and the replicas hold it. */
export type Geometry = z.infer<typeof GeofenceGeometry>;

export interface LatLon {
  lat: number;
  lon: number;
}

/** The Earth's mean radius. */
export const EARTH_RADIUS_METERS = 6_371_008.8;
const RADIANS = Math.PI / 180;

/** Great-circle distance in meters (haversine). */
export function distanceMeters(a: LatLon, b: LatLon): number {
  const dLat = (b.lat - a.lat) * RADIANS;
  const dLon = (b.lon - a.lon) * RADIANS;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * RADIANS) * Math.cos(b.lat * RADIANS) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_METERS * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Length of a polyline in meters. */
export function pathLength(points: readonly LatLon[]): number {
  let total = 0;
  for (let i = 1; i < points.length; i++) total += distanceMeters(points[i - 1] as LatLon, points[i] as LatLon);
  return total;
}

/** Points as meters east/north of `origin` (equirectangular): exact enough at geofence scale. */
function projector(origin: LatLon): (point: LatLon) => [number, number] {
  const metersPerDegree = EARTH_RADIUS_METERS * RADIANS;
  const cosLat = Math.cos(origin.lat * RADIANS);
  return (point) => [(point.lon - origin.lon) * metersPerDegree * cosLat, (point.lat - origin.lat) * metersPerDegree];
}

/** Whether `point` is inside the polygon (ray casting; the ring closes itself). */
export function insidePolygon(point: LatLon, ring: readonly LatLon[]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[i] as LatLon;
    const b = ring[j] as LatLon;
    if (a.lat > point.lat !== b.lat > point.lat) {
      const lonAtLat = ((b.lon - a.lon) * (point.lat - a.lat)) / (b.lat - a.lat) + a.lon;
      if (point.lon < lonAtLat) inside = !inside;
    }
  }
  return inside;
}

/** Shortest distance in meters from `point` to a polyline. */
export function distanceToPolyline(point: LatLon, line: readonly LatLon[]): number {
  const project = projector(point);
  let best = Number.POSITIVE_INFINITY;
  for (let i = 1; i < line.length; i++) {
    const [ax, ay] = project(line[i - 1] as LatLon);
    const [bx, by] = project(line[i] as LatLon);
    const dx = bx - ax;
    const dy = by - ay;
    const lengthSquared = dx * dx + dy * dy;
    const t = lengthSquared === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / lengthSquared));
    best = Math.min(best, Math.hypot(ax + t * dx, ay + t * dy));
  }
  return line.length === 1 ? distanceMeters(point, line[0] as LatLon) : best;
}

function orientation(p: [number, number], q: [number, number], r: [number, number]): number {
  const value = (q[1] - p[1]) * (r[0] - q[0]) - (q[0] - p[0]) * (r[1] - q[1]);
  return Math.abs(value) < 1e-9 ? 0 : value > 0 ? 1 : 2;
}

function onSegment(p: [number, number], q: [number, number], r: [number, number]): boolean {
  return (
    q[0] <= Math.max(p[0], r[0]) &&
    q[0] >= Math.min(p[0], r[0]) &&
    q[1] <= Math.max(p[1], r[1]) &&
    q[1] >= Math.min(p[1], r[1])
  );
}

function segmentsIntersect(p1: [number, number], q1: [number, number], p2: [number, number], q2: [number, number]) {
  const o1 = orientation(p1, q1, p2);
  const o2 = orientation(p1, q1, q2);
  const o3 = orientation(p2, q2, p1);
  const o4 = orientation(p2, q2, q1);
  if (o1 !== o2 && o3 !== o4) return true;
  return (
    (o1 === 0 && onSegment(p1, p2, q1)) ||
    (o2 === 0 && onSegment(p1, q2, q1)) ||
    (o3 === 0 && onSegment(p2, p1, q2)) ||
    (o4 === 0 && onSegment(p2, q1, q2))
  );
}

/** The first pair of non-adjacent edges of a ring that cross (indices of their first vertices), if any. */
export function selfIntersection(ring: readonly LatLon[]): [number, number] | undefined {
  const points = ring.map(projector(ring[0] as LatLon));
  const n = points.length;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      // Edges sharing a vertex (neighbours, and the last with the first) always touch.
      if (j === i + 1 || (i === 0 && j === n - 1)) continue;
      const a = points[i] as [number, number];
      const b = points[(i + 1) % n] as [number, number];
      const c = points[j] as [number, number];
      const d = points[(j + 1) % n] as [number, number];
      if (segmentsIntersect(a, b, c, d)) return [i, j];
    }
  }
  return undefined;
}

/** A ring's area in square meters (zero for a degenerate one). */
export function ringArea(ring: readonly LatLon[]): number {
  const points = ring.map(projector(ring[0] as LatLon));
  let twice = 0;
  for (let i = 0; i < points.length; i++) {
    const [x1, y1] = points[i] as [number, number];
    const [x2, y2] = points[(i + 1) % points.length] as [number, number];
    twice += x1 * y2 - x2 * y1;
  }
  return Math.abs(twice) / 2;
}

/** Whether a point is inside a geofence (on its edge counts; a polyline's corridor is its width wide). */
export function insideGeofence(geometry: Geometry, point: LatLon): boolean {
  switch (geometry.type) {
    case 'circle':
      return distanceMeters(geometry.center, point) <= geometry.radiusMeters;
    case 'polygon':
      return insidePolygon(point, geometry.points);
    case 'polyline':
      return distanceToPolyline(point, geometry.points) <= geometry.widthMeters / 2;
  }
}
