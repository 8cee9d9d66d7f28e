import type { GpsRoute, RouteProgress } from '@shared/api/gps';
import type { z } from 'zod';

export type Route = z.infer<typeof GpsRoute>;
export type StopStatus = z.infer<typeof RouteProgress>['items'][number]['stops'][number]['status'];

/** A stop as the form edits it: `expectedAt` as a local `YYYY-MM-DDTHH:mm` (a datetime-local input). */
export interface StopDraft {
  geofenceId: string | undefined;
  expectedAt: string;
  toleranceMinutes: number;
}

export interface RouteDraft {
  id?: string;
  name: string;
  objectIds: string[];
  stops: StopDraft[];
}

/** A stop's status as the panel shows it: the server's, or `unknown` where this device's track does not reach. */
export type ShownStatus = StopStatus | 'unknown';

/** Tag colours of the stop statuses. */
export const STATUS_COLOR: Record<ShownStatus, string> = {
  visited: 'green',
  late: 'orange',
  skipped: 'red',
  pending: 'default',
  unknown: 'default',
};

const pad = (value: number) => String(value).padStart(2, '0');

/** A time as a datetime-local input shows it, in this device's time zone. */
export function localInput(iso: string): string {
  const date = new Date(iso);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A new stop: expected an hour after the previous one (or at the next full hour). */
export function nextStop(stops: readonly StopDraft[], now = new Date()): StopDraft {
  const last = stops.at(-1);
  const base = last?.expectedAt ? new Date(last.expectedAt) : new Date(now);
  if (!last) base.setMinutes(0, 0, 0);
  base.setHours(base.getHours() + 1);
  return { geofenceId: undefined, expectedAt: localInput(base.toISOString()), toleranceMinutes: 15 };
}

/** The stops with the one at `index` moved by `delta` places (no move past either end). */
export function moveStop<T>(stops: readonly T[], index: number, delta: -1 | 1): T[] {
  const to = index + delta;
  if (to < 0 || to >= stops.length) return [...stops];
  const next = [...stops];
  [next[index], next[to]] = [next[to] as T, next[index] as T];
  return next;
}

/** The form of a saved route. */
export function draftOf(route: Route): RouteDraft {
  return {
    id: route.id,
    name: route.name,
    objectIds: route.objectIds,
    stops: route.stops.map((stop) => ({ ...stop, expectedAt: localInput(stop.expectedAt) })),
  };
}

/** Whether the form can be saved: a name and every stop with a geofence and a time. */
export function complete(draft: RouteDraft): boolean {
  return (
    draft.name.trim() !== '' &&
    draft.stops.length > 0 &&
    draft.stops.every((stop) => stop.geofenceId && !Number.isNaN(new Date(stop.expectedAt).getTime()))
  );
}

/** The request body of a complete form (local times sent as UTC). */
export function routeRequest(draft: RouteDraft) {
  return {
    name: draft.name.trim(),
    objectIds: draft.objectIds,
    stops: draft.stops.map((stop) => ({
      geofenceId: stop.geofenceId as string,
      expectedAt: new Date(stop.expectedAt).toISOString(),
      toleranceMinutes: stop.toleranceMinutes,
    })),
  };
}
