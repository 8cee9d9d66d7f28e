import { EARTH_RADIUS_METERS, type Geometry, type LatLon } from '@shared/gps-geometry';
import type { Feature } from 'geojson';

export type { Geometry, LatLon };

/** A geofence without a colour of its own is drawn in this one (as the map's layers do). */
export const DEFAULT_GEOFENCE_COLOR = '#7b1fa2';

/** The colours offered for geofences. */
export const GEOFENCE_COLORS = ['#e53935', '#fb8c00', '#fdd835', '#43a047', '#00897b', '#1e88e5', '#6d4c41', '#546e7a'];

/** A circle as a ring of 64 points (the map draws polygons, not circles). */
export function circleRing(center: LatLon, radiusMeters: number, steps = 64): [number, number][] {
  const ring: [number, number][] = [];
  const lat = (center.lat * Math.PI) / 180;
  for (let i = 0; i <= steps; i++) {
    const angle = (2 * Math.PI * i) / steps;
    const dLat = (radiusMeters * Math.cos(angle)) / EARTH_RADIUS_METERS;
    const dLon = (radiusMeters * Math.sin(angle)) / (EARTH_RADIUS_METERS * Math.cos(lat));
    ring.push([center.lon + (dLon * 180) / Math.PI, center.lat + (dLat * 180) / Math.PI]);
  }
  return ring;
}

/** A geofence as map features: an area (circle, polygon) or a corridor's centre line with its width. */
export function geofenceFeature(geometry: Geometry, properties: Record<string, unknown>): Feature {
  if (geometry.type === 'circle') {
    return {
      type: 'Feature',
      geometry: { type: 'Polygon', coordinates: [circleRing(geometry.center, geometry.radiusMeters)] },
      properties,
    };
  }
  if (geometry.type === 'polygon') {
    const ring = geometry.points.map((p) => [p.lon, p.lat]);
    const first = ring[0];
    if (first) ring.push(first);
    return { type: 'Feature', geometry: { type: 'Polygon', coordinates: [ring] }, properties };
  }
  const lat = geometry.points[0]?.lat ?? 0;
  return {
    type: 'Feature',
    geometry: { type: 'LineString', coordinates: geometry.points.map((p) => [p.lon, p.lat]) },
    // Metres per pixel at zoom 0 on this latitude: the layer scales the width by 2^zoom.
    properties: { ...properties, widthAtZoom0: geometry.widthMeters / (156_543.03 * Math.cos((lat * Math.PI) / 180)) },
  };
}

/** The points a user drags to edit a geometry (a circle's centre, or every vertex). */
export function handlesOf(geometry: Geometry): LatLon[] {
  return geometry.type === 'circle' ? [geometry.center] : geometry.points;
}

/** The geometry with its `index`th handle moved to `to`. */
export function moveHandle(geometry: Geometry, index: number, to: LatLon): Geometry {
  if (geometry.type === 'circle') return { ...geometry, center: to };
  return { ...geometry, points: geometry.points.map((point, i) => (i === index ? to : point)) } as Geometry;
}

/**
 * The edge a click lands on (within `tolerance` pixels), as the index of its first vertex, or
 * undefined: the vertices and the click in screen pixels; a polygon's closing edge counts too.
 */
export function edgeAt(
  vertices: readonly { x: number; y: number }[],
  click: { x: number; y: number },
  closed: boolean,
  tolerance = 8,
): number | undefined {
  let best: number | undefined;
  let bestDistance = tolerance;
  const edges = closed ? vertices.length : vertices.length - 1;
  for (let i = 0; i < edges; i++) {
    const a = vertices[i] as { x: number; y: number };
    const b = vertices[(i + 1) % vertices.length] as { x: number; y: number };
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const length = dx * dx + dy * dy;
    const along = length === 0 ? 0 : Math.max(0, Math.min(1, ((click.x - a.x) * dx + (click.y - a.y) * dy) / length));
    const distance = Math.hypot(click.x - (a.x + along * dx), click.y - (a.y + along * dy));
    if (distance <= bestDistance) {
      best = i;
      bestDistance = distance;
    }
  }
  return best;
}

/** The geometry with a vertex added after its `index`th one (at the end without an index; a circle's centre moves). */
export function addPoint(geometry: Geometry, at: LatLon, index?: number): Geometry {
  if (geometry.type === 'circle') return { ...geometry, center: at };
  const points = [...geometry.points];
  points.splice(index === undefined ? points.length : index + 1, 0, at);
  return { ...geometry, points } as Geometry;
}

/** The geometry without its `index`th vertex; unchanged when fewer would remain than it needs (or a circle). */
export function removeHandle(geometry: Geometry, index: number): Geometry {
  if (geometry.type === 'circle') return geometry;
  if (geometry.points.length <= (geometry.type === 'polygon' ? 3 : 2)) return geometry;
  return { ...geometry, points: geometry.points.filter((_, i) => i !== index) } as Geometry;
}

/** Whether the geometry is complete enough to save (the server refuses less). */
export function drawable(geometry: Geometry): boolean {
  if (geometry.type === 'circle') return geometry.radiusMeters > 0;
  if (geometry.type === 'polygon') return geometry.points.length >= 3;
  return geometry.points.length >= 2 && geometry.widthMeters > 0;
}

/** The points that bound a geofence (a circle's ring, a shape's vertices). */
export function outlineOf(geometry: Geometry): LatLon[] {
  if (geometry.type !== 'circle') return geometry.points;
  return circleRing(geometry.center, geometry.radiusMeters, 16).map(([lon, lat]) => ({ lat, lon }));
}

/** Bounds [[west, south], [east, north]] of some points. */
export function boundsOf(points: readonly LatLon[]): [[number, number], [number, number]] | undefined {
  if (points.length === 0) return undefined;
  let west = 180;
  let south = 90;
  let east = -180;
  let north = -90;
  for (const { lat, lon } of points) {
    west = Math.min(west, lon);
    east = Math.max(east, lon);
    south = Math.min(south, lat);
    north = Math.max(north, lat);
  }
  return [
    [west, south],
    [east, north],
  ];
}
