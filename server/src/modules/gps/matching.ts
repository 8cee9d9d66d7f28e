import type { GpsSettings } from '@shared/api/gps';
import { pathLength } from '@shared/gps-geometry';
import type { Fix } from './filters';
import * as geofencesRepo from './geofences.repo';
import type { GpsDeps } from './gps.service';

type Engine = NonNullable<GpsSettings['routingEngine']>;

/** A gap this long splits the track into segments matched apart. */
const GAP_SECONDS = 300;
const TIMEOUT_MS = 10_000;

export interface MatchedSegment {
  matched: boolean;
  confidence: number | null;
  coordinates: { lat: number; lon: number }[];
  outliers: string[];
}

/** Splits a track at gaps, then into pieces the engine accepts (consecutive pieces share a point). */
export function chunks(points: readonly Fix[], maxPoints: number): Fix[][] {
  const pieces: Fix[][] = [];
  let current: Fix[] = [];
  for (const point of points) {
    const last = current.at(-1);
    if (last && (point.fixTime.getTime() - last.fixTime.getTime()) / 1000 > GAP_SECONDS) {
      pieces.push(current);
      current = [];
    }
    if (current.length === maxPoints) {
      pieces.push(current);
      current = [current.at(-1) as Fix];
    }
    current.push(point);
  }
  if (current.length > 0) pieces.push(current);
  return pieces.filter((piece) => piece.length >= 2);
}

interface OsrmAnswer {
  code: string;
  matchings?: { confidence?: number; geometry: { coordinates: [number, number][] } }[];
  tracepoints?: ({ matchings_index: number } | null)[];
}

async function osrmMatch(deps: GpsDeps, engine: Engine, piece: Fix[]): Promise<MatchedSegment[]> {
  const coordinates = piece.map((point) => `${point.lon.toFixed(6)},${point.lat.toFixed(6)}`).join(';');
  const url = new URL(`${engine.url.replace(/\/$/, '')}/match/v1/${engine.profile}/${coordinates}`);
  url.searchParams.set('timestamps', piece.map((point) => Math.floor(point.fixTime.getTime() / 1000)).join(';'));
  url.searchParams.set('radiuses', piece.map((point) => Math.min(50, Math.max(5, point.accuracy ?? 10))).join(';'));
  url.searchParams.set('geometries', 'geojson');
  url.searchParams.set('overview', 'full');
  url.searchParams.set('gaps', 'split');
  const response = await (deps.fetch ?? fetch)(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  const answer = (await response.json()) as OsrmAnswer;
  if (answer.code !== 'Ok' || !answer.matchings) throw new Error(`OSRM answered ${answer.code}`);
  const outliers = piece.flatMap((point, index) => (answer.tracepoints?.[index] ? [] : [point.fixTime.toISOString()]));
  return answer.matchings.map((matching, index) => ({
    matched: true,
    confidence: matching.confidence ?? null,
    coordinates: matching.geometry.coordinates.map(([lon, lat]) => ({ lat, lon })),
    // Outliers are listed once, with the first matching of the piece.
    outliers: index === 0 ? outliers : [],
  }));
}

/** Decodes an encoded polyline of precision 6 (Valhalla's shapes). */
export function decodePolyline6(encoded: string): { lat: number; lon: number }[] {
  const points: { lat: number; lon: number }[] = [];
  let index = 0;
  let lat = 0;
  let lon = 0;
  const next = () => {
    let result = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = encoded.charCodeAt(index++) - 63;
      result |= (byte & 0x1f) << shift;
      shift += 5;
    } while (byte >= 0x20);
    return result & 1 ? ~(result >> 1) : result >> 1;
  };
  while (index < encoded.length) {
    lat += next();
    lon += next();
    points.push({ lat: lat / 1e6, lon: lon / 1e6 });
  }
  return points;
}

async function valhallaMatch(deps: GpsDeps, engine: Engine, piece: Fix[]): Promise<MatchedSegment[]> {
  const response = await (deps.fetch ?? fetch)(`${engine.url.replace(/\/$/, '')}/trace_route`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    signal: AbortSignal.timeout(TIMEOUT_MS),
    body: JSON.stringify({
      shape: piece.map((point) => ({
        lat: point.lat,
        lon: point.lon,
        time: Math.floor(point.fixTime.getTime() / 1000),
      })),
      costing: engine.profile === 'driving' ? 'auto' : engine.profile,
      shape_match: 'map_snap',
    }),
  });
  if (!response.ok) throw new Error(`Valhalla answered ${response.status}`);
  const answer = (await response.json()) as { trip?: { legs?: { shape: string }[] } };
  const legs = answer.trip?.legs ?? [];
  return [
    { matched: true, confidence: null, coordinates: legs.flatMap((leg) => decodePolyline6(leg.shape)), outliers: [] },
  ];
}

/**
 * The track matched piece by piece (each answer cached by object, first and last fix and point
 * count); undefined when the engine fails, so the caller falls back to the raw track.
 */
export async function matchTrack(deps: GpsDeps, objectId: string, engine: Engine, points: readonly Fix[]) {
  const segments: MatchedSegment[] = [];
  try {
    for (const piece of chunks(points, engine.maxPoints)) {
      const key = [
        engine.kind,
        engine.url,
        engine.profile,
        piece[0]?.fixTime.toISOString(),
        piece.at(-1)?.fixTime.toISOString(),
        piece.length,
      ].join('|');
      let matched = (await geofencesRepo.cachedMatch(deps.db, objectId, key)) as MatchedSegment[] | undefined;
      if (!matched) {
        matched =
          engine.kind === 'osrm' ? await osrmMatch(deps, engine, piece) : await valhallaMatch(deps, engine, piece);
        await geofencesRepo.cacheMatch(deps.db, objectId, key, matched);
      }
      segments.push(...matched);
    }
  } catch {
    return undefined;
  }
  const distance = segments.reduce((total, segment) => total + pathLength(segment.coordinates), 0);
  return { matched: true, segments, distanceMeters: Math.round(distance * 10) / 10 };
}

/** Distance from a point to the nearest road (OSRM's nearest service), or undefined when unknown. */
export async function roadDistance(deps: GpsDeps, settings: GpsSettings, fix: Fix): Promise<number | undefined> {
  const engine = settings.routingEngine;
  if (engine?.kind !== 'osrm') return undefined;
  try {
    const url = `${engine.url.replace(/\/$/, '')}/nearest/v1/${engine.profile}/${fix.lon.toFixed(6)},${fix.lat.toFixed(6)}`;
    const response = await (deps.fetch ?? fetch)(url, { signal: AbortSignal.timeout(3000) });
    const answer = (await response.json()) as { code: string; waypoints?: { distance: number }[] };
    return answer.code === 'Ok' ? answer.waypoints?.[0]?.distance : undefined;
  } catch {
    return undefined;
  }
}
