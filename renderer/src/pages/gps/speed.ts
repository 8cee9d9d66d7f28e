import type { TrackPoint } from '@shared/api/gps';
import type { Feature, FeatureCollection } from 'geojson';
import type { z } from 'zod';

type Point = z.infer<typeof TrackPoint>;

/** Speed bands of a drawn track (km/h, upper bounds) and their colours. */
export const SPEED_BANDS: { upTo: number; color: string }[] = [
  { upTo: 5, color: '#1565c0' },
  { upTo: 30, color: '#2e7d32' },
  { upTo: 60, color: '#f9a825' },
  { upTo: 90, color: '#ef6c00' },
  { upTo: Number.POSITIVE_INFINITY, color: '#c62828' },
];

export function speedColor(speedKmh: number | null): string {
  const speed = speedKmh ?? 0;
  return (SPEED_BANDS.find((band) => speed <= band.upTo) ?? SPEED_BANDS[0])?.color as string;
}

/**
 * The accepted points as line pieces, one per run of the same speed band, each coloured by it
 * (neighbouring pieces share their end point so the line has no gaps).
 */
export function trackGeoJson(points: readonly Point[]): FeatureCollection {
  const accepted = points.filter((point) => !point.reason);
  const features: Feature[] = [];
  let run: Point[] = [];
  let color = '';
  for (const point of accepted) {
    const next = speedColor(point.speedKmh);
    if (run.length > 0 && next !== color) {
      run.push(point);
      features.push(piece(run, color));
      run = [];
    }
    color = next;
    run.push(point);
  }
  if (run.length > 1) features.push(piece(run, color));
  return { type: 'FeatureCollection', features };
}

function piece(points: Point[], color: string): Feature {
  return {
    type: 'Feature',
    geometry: { type: 'LineString', coordinates: points.map((p) => [p.lon, p.lat]) },
    properties: { color },
  };
}

/** Refused points with their reasons, for a dispatcher looking into a gap. */
export function rejectedGeoJson(points: readonly Point[]): FeatureCollection {
  return {
    type: 'FeatureCollection',
    features: points
      .filter((point) => point.reason)
      .map((point) => ({
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [point.lon, point.lat] },
        properties: { reason: point.reason, fixTime: point.fixTime },
      })),
  };
}
