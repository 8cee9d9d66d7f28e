import type { GeofenceRequest, RouteRequest } from '@shared/api/gps';
import type { ProblemFieldError } from '@shared/api/problem';
import { type Geometry, insideGeofence, ringArea, selfIntersection } from '@shared/gps-geometry';
import { progressPeriod, stopProgress } from '@shared/gps-progress';
import type { z } from 'zod';
import type { AuthContext } from '../../platform/auth/auth-context';
import type { Queryable } from '../../platform/db/db';
import { inUnit, type Unit } from '../../platform/db/unit-of-work';
import { Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import type { Fix } from './filters';
import * as repo from './geofences.repo';
import type { ObjectRow } from './gps.repo';
import { type GpsDeps, requireObject } from './gps.service';

const geofenceNotFound = (id: string) => Problem.of('not_found', `There is no geofence ${id} in your organization.`);
const routeNotFound = (id: string) => Problem.of('not_found', `There is no GPS route ${id} in your organization.`);

function invalid(pointer: string, detail: string, code: string): Problem {
  const error: ProblemFieldError = { location: 'body', pointer, detail, code };
  return Problem.of('validation_failed', `${detail}. Correct the geometry and send again.`, { errors: [error] });
}

/** Refuses a radius or width ≤ 0, a polygon without area or crossing itself. */
export function checkGeometry(geometry: Geometry): void {
  if (geometry.type === 'circle' && !(geometry.radiusMeters > 0)) {
    throw invalid('#/geometry/radiusMeters', 'The radius must be more than 0 m', 'not_positive');
  }
  if (geometry.type === 'polyline' && !(geometry.widthMeters > 0)) {
    throw invalid('#/geometry/widthMeters', 'The width must be more than 0 m', 'not_positive');
  }
  if (geometry.type === 'polygon') {
    const crossing = selfIntersection(geometry.points);
    if (crossing) {
      throw invalid(
        `#/geometry/points/${crossing[1]}`,
        `The polygon crosses itself (edges from points ${crossing[0]} and ${crossing[1]})`,
        'self_intersecting',
      );
    }
    if (ringArea(geometry.points) < 1) throw invalid('#/geometry/points', 'The polygon has no area', 'degenerate');
  }
}

/** A geofence as REST answers it (and replicas hold it). */
export function present(row: repo.GeofenceRow) {
  return {
    id: row.id,
    name: row.name,
    geometry: row.geometry as Geometry,
    color: row.color,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function listGeofences(deps: GpsDeps, auth: AuthContext) {
  return { items: (await repo.listGeofences(deps.db, auth.organizationId)).map(present) };
}

export async function getGeofence(deps: GpsDeps, auth: AuthContext, id: string) {
  const row = await repo.findGeofence(deps.db, auth.organizationId, id);
  if (!row) throw geofenceNotFound(id);
  return present(row);
}

/** `id`: the client's own, for a geofence made offline. */
export async function createGeofence(
  deps: GpsDeps,
  auth: AuthContext,
  input: z.infer<typeof GeofenceRequest>,
  id = newId(),
) {
  checkGeometry(input.geometry);
  const row = await repo.insertGeofence(deps.db, {
    id,
    organizationId: auth.organizationId,
    name: input.name,
    geometry: input.geometry,
    color: input.color ?? null,
  });
  return present(row);
}

export async function updateGeofence(
  deps: GpsDeps,
  auth: AuthContext,
  id: string,
  input: Partial<z.infer<typeof GeofenceRequest>>,
) {
  return inUnit(deps, async (unit) => {
    const row = await repo.findGeofence(unit.tx, auth.organizationId, id);
    if (!row) throw geofenceNotFound(id);
    if (input.geometry) checkGeometry(input.geometry);
    const updated = await repo.updateGeofence(unit.tx, auth.organizationId, id, {
      name: input.name ?? row.name,
      geometry: input.geometry ?? row.geometry,
      color: input.color === undefined ? row.color : input.color,
    });
    return present(updated as repo.GeofenceRow);
  });
}

export async function deleteGeofence(deps: GpsDeps, auth: AuthContext, id: string): Promise<void> {
  if (!(await repo.deleteGeofence(deps.db, auth.organizationId, id))) throw geofenceNotFound(id);
}

/**
 * After a point is accepted: for each geofence, enter or exit when the object's side changed since
 * the newest point judged before. A point older than that one (a late replay) changes nothing, so
 * it never fires a false exit.
 */
export async function crossGeofences(unit: Unit, object: ObjectRow, fix: Fix): Promise<void> {
  const geofences = await repo.listGeofences(unit.tx, object.organization_id);
  if (geofences.length === 0) return;
  const known = new Map((await repo.states(unit.tx, object.id)).map((state) => [state.geofence_id, state]));
  for (const geofence of geofences) {
    const state = known.get(geofence.id);
    if (state && state.fix_time.getTime() >= fix.fixTime.getTime()) continue;
    const inside = insideGeofence(geofence.geometry as Geometry, fix);
    await repo.saveState(unit.tx, object.id, geofence.id, inside, fix.fixTime);
    // The first point seen decides where the object is; only a change afterwards is a crossing.
    if (!state && !inside) continue;
    if (state && state.inside === inside) continue;
    const payload = {
      organizationId: object.organization_id,
      objectId: object.id,
      geofenceId: geofence.id,
      fixTime: fix.fixTime.toISOString(),
      lat: fix.lat,
      lon: fix.lon,
    };
    await repo.insertCrossing(unit.tx, {
      id: newId(),
      organizationId: object.organization_id,
      objectId: object.id,
      geofenceId: geofence.id,
      type: inside ? 'enter' : 'exit',
      fixTime: fix.fixTime,
      lat: fix.lat,
      lon: fix.lon,
    });
    await unit.emit(inside ? 'gps.geofence_entered' : 'gps.geofence_exited', payload);
  }
}

/** Crossings of an object in a period (for its event list). */
export async function crossingsOf(db: Queryable, objectId: string, from: Date, to: Date) {
  return repo.crossings(db, objectId, from, to);
}

/** A route as REST answers it (and replicas hold it). */
export function presentRoute(row: repo.RouteRow) {
  return {
    id: row.id,
    name: row.name,
    objectIds: row.object_ids,
    stops: row.stops.map((stop) => ({ ...stop, expectedAt: new Date(stop.expectedAt).toISOString() })),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

async function checkRoute(db: Queryable, auth: AuthContext, input: Partial<z.infer<typeof RouteRequest>>) {
  for (const [index, objectId] of (input.objectIds ?? []).entries()) {
    try {
      await requireObject(db, auth, objectId);
    } catch {
      throw Problem.of('validation_failed', `There is no GPS object ${objectId} in your organization.`, {
        errors: [
          { location: 'body', pointer: `#/objectIds/${index}`, detail: 'Unknown object', code: 'unknown_object' },
        ],
      });
    }
  }
  for (const [index, stop] of (input.stops ?? []).entries()) {
    if (!(await repo.findGeofence(db, auth.organizationId, stop.geofenceId))) {
      throw Problem.of('validation_failed', `There is no geofence ${stop.geofenceId} in your organization.`, {
        errors: [
          {
            location: 'body',
            pointer: `#/stops/${index}/geofenceId`,
            detail: 'Unknown geofence',
            code: 'unknown_geofence',
          },
        ],
      });
    }
  }
}

export async function listRoutes(deps: GpsDeps, auth: AuthContext) {
  return { items: (await repo.listRoutes(deps.db, auth.organizationId)).map(presentRoute) };
}

export async function getRoute(deps: GpsDeps, auth: AuthContext, id: string) {
  const row = await repo.findRoute(deps.db, auth.organizationId, id);
  if (!row) throw routeNotFound(id);
  return presentRoute(row);
}

/** `id`: the client's own, for a route made offline. */
export async function createRoute(deps: GpsDeps, auth: AuthContext, input: z.infer<typeof RouteRequest>, id = newId()) {
  await checkRoute(deps.db, auth, input);
  const row = await repo.saveRoute(deps.db, {
    id,
    organizationId: auth.organizationId,
    name: input.name,
    objectIds: input.objectIds,
    stops: input.stops,
  });
  return presentRoute(row);
}

export async function updateRoute(
  deps: GpsDeps,
  auth: AuthContext,
  id: string,
  input: Partial<z.infer<typeof RouteRequest>>,
) {
  return inUnit(deps, async (unit) => {
    const row = await repo.findRoute(unit.tx, auth.organizationId, id);
    if (!row) throw routeNotFound(id);
    await checkRoute(unit.tx, auth, input);
    const saved = await repo.saveRoute(unit.tx, {
      id,
      organizationId: auth.organizationId,
      name: input.name ?? row.name,
      objectIds: input.objectIds ?? row.object_ids,
      stops: input.stops ?? row.stops,
    });
    return presentRoute(saved);
  });
}

export async function deleteRoute(deps: GpsDeps, auth: AuthContext, id: string): Promise<void> {
  if (!(await repo.deleteRoute(deps.db, auth.organizationId, id))) throw routeNotFound(id);
}

/** Each object's progress on a route (`stopProgress`), from the enters recorded at ingestion. */
export async function routeProgress(deps: GpsDeps, auth: AuthContext, id: string) {
  const route = await repo.findRoute(deps.db, auth.organizationId, id);
  if (!route) throw routeNotFound(id);
  const { from, to } = progressPeriod(route.stops);
  const items = [];
  for (const objectId of route.object_ids) {
    const enters = (await repo.crossings(deps.db, objectId, from, to))
      .filter((crossing) => crossing.type === 'enter')
      .map((crossing) => ({ geofenceId: crossing.geofence_id, at: crossing.fix_time }));
    items.push({ objectId, stops: stopProgress(route.stops, enters) });
  }
  return { items };
}
