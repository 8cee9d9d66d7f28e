import { distanceMeters } from '@shared/gps-geometry';
import type { Fix } from './filters';

/** Trip rules (the organization's settings). */
export interface TripRules {
  minTripDistanceMeters: number;
  minTripDurationSeconds: number;
  minStopDurationSeconds: number;
  stopGapSeconds: number;
  stationarySpeedKmh: number;
}

export interface TripSpan {
  points: Fix[];
  distanceMeters: number;
  maxSpeedKmh: number;
}

export interface StopSpan {
  start: Fix;
  end: Fix;
}

/** Within this of the stop's first point, an object is still at the stop. */
const STOP_RADIUS_METERS = 100;
/** Between two points this far apart in time, a slower average means the object stood. */
const QUIET_SPEED_KMH = 5;

/**
 * Splits accepted points (fix-time order) into trips and stops: staying within a stop radius for
 * the minimum stop duration, or no data for the stop gap, ends a trip; trips shorter than the
 * minimum distance or duration are not trips (their time joins the stops).
 */
export function tripsAndStops(points: readonly Fix[], rules: TripRules): { trips: TripSpan[]; stops: StopSpan[] } {
  const segments: Fix[][] = [];
  let current: Fix[] = [];
  let anchor = 0;
  for (let i = 0; i < points.length; i++) {
    const point = points[i] as Fix;
    const previous = points[i - 1];
    const gap = previous ? (point.fixTime.getTime() - previous.fixTime.getTime()) / 1000 : 0;
    // No data for the stop gap, or a quiet stay (parked jitter is not kept as points): a stop.
    const stayed =
      previous &&
      gap >= rules.minStopDurationSeconds &&
      (distanceMeters(previous, point) / gap) * 3.6 <= Math.max(rules.stationarySpeedKmh, QUIET_SPEED_KMH);
    if (previous && (gap > rules.stopGapSeconds || stayed)) {
      segments.push(current);
      current = [];
      anchor = i;
    }
    current.push(point);
    // Far from the anchor (or moving): a new anchor; staying near it long enough: a stop.
    const anchorPoint = points[anchor] as Fix;
    if (distanceMeters(anchorPoint, point) > STOP_RADIUS_METERS) {
      anchor = i;
      continue;
    }
    const stayedSeconds = (point.fixTime.getTime() - anchorPoint.fixTime.getTime()) / 1000;
    if (stayedSeconds >= rules.minStopDurationSeconds && (point.speedKmh ?? 0) <= rules.stationarySpeedKmh) {
      const stopStart = current.indexOf(anchorPoint);
      if (stopStart > 0) {
        segments.push(current.slice(0, stopStart + 1));
        current = current.slice(stopStart);
      }
    }
  }
  segments.push(current);
  const trips: TripSpan[] = [];
  for (const segment of segments) {
    const moving = trimStationary(segment);
    if (moving.length < 2) continue;
    let distance = 0;
    let maxSpeed = 0;
    for (let i = 1; i < moving.length; i++) distance += distanceMeters(moving[i - 1] as Fix, moving[i] as Fix);
    for (const point of moving) maxSpeed = Math.max(maxSpeed, point.speedKmh ?? 0);
    const seconds = ((moving.at(-1) as Fix).fixTime.getTime() - (moving[0] as Fix).fixTime.getTime()) / 1000;
    if (distance < rules.minTripDistanceMeters || seconds < rules.minTripDurationSeconds) continue;
    trips.push({ points: moving, distanceMeters: distance, maxSpeedKmh: maxSpeed });
  }
  const stops: StopSpan[] = [];
  for (let i = 1; i < trips.length; i++) {
    stops.push({
      start: (trips[i - 1] as TripSpan).points.at(-1) as Fix,
      end: (trips[i] as TripSpan).points[0] as Fix,
    });
  }
  return { trips, stops };
}

/** A segment without the points where the object stood at its start and end (within the stop radius). */
function trimStationary(segment: Fix[]): Fix[] {
  if (segment.length === 0) return segment;
  let first = 0;
  while (
    first + 1 < segment.length &&
    distanceMeters(segment[0] as Fix, segment[first + 1] as Fix) <= STOP_RADIUS_METERS
  ) {
    first++;
  }
  let last = segment.length - 1;
  const end = segment.at(-1) as Fix;
  while (last - 1 > first && distanceMeters(end, segment[last - 1] as Fix) <= STOP_RADIUS_METERS) last--;
  return segment.slice(first, last + 1);
}
