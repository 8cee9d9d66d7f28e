import type { FilterSettings, RejectionReason } from '@shared/api/gps';
import { distanceMeters } from '@shared/gps-geometry';

/** A position as the filters see it; speeds in km/h. */
export interface Fix {
  fixTime: Date;
  lat: number;
  lon: number;
  speedKmh: number | null;
  course: number | null;
  altitude: number | null;
  accuracy: number | null;
  isLbs: boolean;
}

/** An incoming position with what the device said of it. */
export interface Candidate extends Fix {
  /** The device's own validity flag (`valid=false`: no fix). */
  valid: boolean;
  /** A heartbeat repeating the last fix (Traccar's `outdated`). */
  outdated: boolean;
}

/** The accepted points around a candidate in fix-time order (not in arrival order). */
export interface Neighbours {
  prev?: Fix;
  next?: Fix;
  /** An accepted point with the very same fix time. */
  same?: Fix;
}

/**
 * Distance between two fixes that their accuracy radii cannot explain. A cell-tower point with a
 * 1,500 m radius moving 1,000 m has not moved for sure; a GPS point moving 1,000 m has.
 */
function unexplainedMeters(a: Fix, b: Fix): number {
  return Math.max(0, distanceMeters(a, b) - (a.accuracy ?? 0) - (b.accuracy ?? 0));
}

/** Whether going from `a` to `b` needs no more than `maxKmh` (both orders of time work). */
export function consistent(a: Fix, b: Fix, maxKmh: number): boolean {
  const seconds = Math.abs(b.fixTime.getTime() - a.fixTime.getTime()) / 1000;
  const meters = unexplainedMeters(a, b);
  if (seconds === 0) return meters === 0;
  return (meters / seconds) * 3.6 <= maxKmh;
}

function sameCoordinates(a: Fix, b: Fix): boolean {
  return a.lat === b.lat && a.lon === b.lon;
}

/**
 * Why a candidate is refused, or null when it is kept. Judged against its time neighbours: a
 * point arriving late is compared with the points before and after its fix time, so buffered
 * points replayed out of order are kept, and a spike is only the reference of nothing.
 * `offRoadMeters` is the candidate's distance to the nearest road when one was asked for.
 */
export function judge(
  candidate: Candidate,
  neighbours: Neighbours,
  settings: FilterSettings,
  receivedAt: Date,
  offRoadMeters?: number,
): RejectionReason | null {
  const { lat, lon } = candidate;
  if (!candidate.valid || !Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) {
    return 'invalid';
  }
  if (Math.abs(lat) < 1e-6 && Math.abs(lon) < 1e-6) return 'zero';
  if (candidate.fixTime.getTime() - receivedAt.getTime() > settings.futureToleranceSeconds * 1000) return 'future';
  if (candidate.outdated) return 'echo';
  if (neighbours.same) return 'duplicate';
  const { prev, next } = neighbours;
  const stationarySpeed = settings.stationarySpeedKmh;
  // A tracker repeating its last position as a new fix while claiming to move: the position is frozen.
  if (prev && sameCoordinates(prev, candidate) && (candidate.speedKmh ?? 0) > stationarySpeed) return 'stale';
  if (candidate.isLbs) {
    if (candidate.accuracy === null || candidate.accuracy > settings.lbsMaxAccuracyMeters) return 'lbs_inaccurate';
    const afterGps = prev && !prev.isLbs ? (candidate.fixTime.getTime() - prev.fixTime.getTime()) / 1000 : Infinity;
    if (afterGps <= settings.lbsAfterGpsSeconds && (prev?.accuracy ?? 0) <= candidate.accuracy) return 'lbs_inaccurate';
    if (offRoadMeters !== undefined && offRoadMeters > settings.offRoadMeters) return 'off_road';
  }
  const max = settings.maxJumpSpeedKmh;
  const fromPrev = prev ? consistent(prev, candidate, max) : true;
  const toNext = next ? consistent(candidate, next, max) : true;
  // Out of line with the point before, and not backed by the point after (if any): a spike.
  if (prev && !fromPrev && (!next || !toNext)) return 'spike';
  if (!prev && next && !toNext) return 'spike';
  // Jitter is judged between stationary fixes: the first stationary fix after moving is the stop itself.
  if (prev && (candidate.speedKmh ?? 0) <= stationarySpeed && (prev.speedKmh ?? 0) <= stationarySpeed) {
    const radius = Math.max(settings.jitterMeters, candidate.accuracy ?? 0);
    if (distanceMeters(prev, candidate) <= radius) return 'jitter';
  }
  return null;
}

/**
 * Whether refused spikes after a reference overrule it: the newest `recoveryPoints` of them
 * follow one another consistently, so the reference (not they) is the outlier. This gets a
 * filter out of Traccar's lock-on trap, where one bad reference makes every later point a jump.
 */
export function overrulesReference(spikesAfterReference: readonly Fix[], settings: FilterSettings): boolean {
  const run = spikesAfterReference.slice(-settings.recoveryPoints);
  if (run.length < settings.recoveryPoints) return false;
  for (let i = 1; i < run.length; i++) {
    if (!consistent(run[i - 1] as Fix, run[i] as Fix, settings.maxJumpSpeedKmh)) return false;
  }
  return true;
}
