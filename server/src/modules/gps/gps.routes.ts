import {
  gpsGeofencesApi,
  gpsGroupsApi,
  gpsIngestionApi,
  gpsObjectsApi,
  gpsRoutesApi,
  gpsSettingsApi,
  type OsmAndMessage,
  type TraccarEventForward,
} from '@shared/api/gps';
import type { z } from 'zod';
import { defineRoute } from '../../platform/http/routes';
import * as geofences from './geofences.service';
import * as gps from './gps.service';
import * as history from './history.service';
import { fromOsmAnd, fromTraccar, parseTime } from './protocols';
import { planTileDownload } from './tile-downloads';

/** People's routes need the GPS module (the access matrix); trackers' routes the ingestion token. */
const GPS = { module: 'gps' } as const;

export function gpsRoutes(
  deps: gps.GpsDeps,
  ingestion: gps.Ingestion,
  onSettingsChanged: () => Promise<void> = async () => {},
) {
  const token = { token: gps.ingestionTokens(deps) };
  return [
    defineRoute({
      ...gpsObjectsApi.listGpsObjects,
      access: GPS,
      handler: async ({ auth }) => ({ status: 200, body: await gps.listObjects(deps, auth) }),
    }),
    defineRoute({
      ...gpsObjectsApi.createGpsObject,
      access: GPS,
      handler: async ({ auth, body }) => ({ status: 201, body: await gps.createObject(deps, auth, body) }),
    }),
    defineRoute({
      ...gpsObjectsApi.getGpsObject,
      access: GPS,
      handler: async ({ auth, params }) => ({ status: 200, body: await gps.getObject(deps, auth, params.objectId) }),
    }),
    defineRoute({
      ...gpsObjectsApi.updateGpsObject,
      access: GPS,
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await gps.updateObject(deps, auth, params.objectId, body),
      }),
    }),
    defineRoute({
      ...gpsObjectsApi.deleteGpsObject,
      access: GPS,
      handler: async ({ auth, params }) => {
        await gps.deleteObject(deps, auth, params.objectId);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...gpsObjectsApi.getGpsTrack,
      access: GPS,
      handler: async ({ auth, params, query }) => ({
        status: 200,
        body: await gps.getTrack(deps, auth, params.objectId, query),
      }),
    }),
    defineRoute({
      ...gpsObjectsApi.listGpsTrips,
      access: GPS,
      handler: async ({ auth, params, query }) => ({
        status: 200,
        body: await history.listTrips(deps, auth, params.objectId, query),
      }),
    }),
    defineRoute({
      ...gpsObjectsApi.listGpsStops,
      access: GPS,
      handler: async ({ auth, params, query }) => ({
        status: 200,
        body: await history.listStops(deps, auth, params.objectId, query),
      }),
    }),
    defineRoute({
      ...gpsObjectsApi.listGpsObjectEvents,
      access: GPS,
      handler: async ({ auth, params, query }) => ({
        status: 200,
        body: await history.listEvents(deps, auth, params.objectId, query),
      }),
    }),
    defineRoute({
      ...gpsObjectsApi.getGpsObjectAddress,
      access: GPS,
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await history.objectAddress(deps, auth, params.objectId),
      }),
    }),
    defineRoute({
      ...gpsObjectsApi.getGpsMatchedTrack,
      access: GPS,
      handler: async ({ auth, params, query }) => ({
        status: 200,
        body: await history.matchedTrack(deps, auth, params.objectId, query),
      }),
    }),
    defineRoute({
      ...gpsGeofencesApi.list,
      access: GPS,
      handler: async ({ auth }) => ({ status: 200, body: await geofences.listGeofences(deps, auth) }),
    }),
    defineRoute({
      ...gpsGeofencesApi.create,
      access: GPS,
      handler: async ({ auth, body }) => ({ status: 201, body: await geofences.createGeofence(deps, auth, body) }),
    }),
    defineRoute({
      ...gpsGeofencesApi.get,
      access: GPS,
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await geofences.getGeofence(deps, auth, params.geofenceId),
      }),
    }),
    defineRoute({
      ...gpsGeofencesApi.update,
      access: GPS,
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await geofences.updateGeofence(deps, auth, params.geofenceId, body),
      }),
    }),
    defineRoute({
      ...gpsGeofencesApi.remove,
      access: GPS,
      handler: async ({ auth, params }) => {
        await geofences.deleteGeofence(deps, auth, params.geofenceId);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...gpsRoutesApi.list,
      access: GPS,
      handler: async ({ auth }) => ({ status: 200, body: await geofences.listRoutes(deps, auth) }),
    }),
    defineRoute({
      ...gpsRoutesApi.create,
      access: GPS,
      handler: async ({ auth, body }) => ({ status: 201, body: await geofences.createRoute(deps, auth, body) }),
    }),
    defineRoute({
      ...gpsRoutesApi.get,
      access: GPS,
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await geofences.getRoute(deps, auth, params.routeId),
      }),
    }),
    defineRoute({
      ...gpsRoutesApi.update,
      access: GPS,
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await geofences.updateRoute(deps, auth, params.routeId, body),
      }),
    }),
    defineRoute({
      ...gpsRoutesApi.remove,
      access: GPS,
      handler: async ({ auth, params }) => {
        await geofences.deleteRoute(deps, auth, params.routeId);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...gpsRoutesApi.getGpsRouteProgress,
      access: GPS,
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await geofences.routeProgress(deps, auth, params.routeId),
      }),
    }),
    defineRoute({
      ...gpsGroupsApi.list,
      access: GPS,
      handler: async ({ auth }) => ({ status: 200, body: await gps.listGroups(deps, auth) }),
    }),
    defineRoute({
      ...gpsGroupsApi.create,
      access: GPS,
      handler: async ({ auth, body }) => ({ status: 201, body: await gps.createGroup(deps, auth, body) }),
    }),
    defineRoute({
      ...gpsGroupsApi.get,
      access: GPS,
      handler: async ({ auth, params }) => ({ status: 200, body: await gps.getGroup(deps, auth, params.groupId) }),
    }),
    defineRoute({
      ...gpsGroupsApi.update,
      access: GPS,
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await gps.updateGroup(deps, auth, params.groupId, body),
      }),
    }),
    defineRoute({
      ...gpsGroupsApi.remove,
      access: GPS,
      handler: async ({ auth, params }) => {
        await gps.deleteGroup(deps, auth, params.groupId);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...gpsSettingsApi.getGpsSettings,
      access: GPS,
      handler: async ({ auth }) => ({ status: 200, body: await gps.getSettings(deps.db, auth.organizationId) }),
    }),
    defineRoute({
      ...gpsSettingsApi.updateGpsSettings,
      // The trackers' filters, sources and the token are the organization's set-up: administrators only.
      access: 'admin',
      handler: async ({ auth, body }) => {
        const settings = await gps.updateSettings(deps, auth, body);
        await onSettingsChanged();
        return { status: 200, body: settings };
      },
    }),
    defineRoute({
      ...gpsSettingsApi.planGpsTileDownload,
      access: 'admin',
      handler: async ({ auth, body }) => ({ status: 200, body: await planTileDownload(deps, auth, body) }),
    }),
    defineRoute({
      ...gpsSettingsApi.getGpsIngestionToken,
      access: 'admin',
      handler: async ({ auth }) => ({ status: 200, body: await gps.getIngestionToken(deps, auth) }),
    }),
    defineRoute({
      ...gpsSettingsApi.createGpsIngestionToken,
      access: 'admin',
      handler: async ({ auth }) => ({ status: 201, body: await gps.createIngestionToken(deps, auth) }),
    }),
    defineRoute({
      ...gpsIngestionApi.ingestTraccarPosition,
      access: token,
      handler: async ({ auth, body }) => ({
        status: 200,
        body: await gps.ingest(ingestion, auth, fromTraccar(body.position, body.device, new Date())),
      }),
    }),
    defineRoute({
      ...gpsIngestionApi.ingestTraccarEvent,
      access: token,
      handler: async ({ auth, body }) => ({ status: 200, body: await ingestEvent(ingestion, auth, body) }),
    }),
    defineRoute({
      ...gpsIngestionApi.ingestOsmAnd,
      access: token,
      accepts: ['json', 'form'],
      handler: async ({ auth, body, req }) => ({
        status: 200,
        body: await gps.ingest(ingestion, auth, fromOsmAnd(osmAndFields(req.query, body), new Date())),
      }),
    }),
    defineRoute({
      ...gpsIngestionApi.ingestOsmAndByQuery,
      access: token,
      handler: async ({ auth, query }) => ({
        status: 200,
        body: await gps.ingest(ingestion, auth, fromOsmAnd(osmAndFields(query, undefined), new Date())),
      }),
    }),
  ];
}

/** The OsmAnd fields: the query's, with the body's over them (the token is not a field). */
function osmAndFields(query: unknown, body: z.infer<typeof OsmAndMessage> | undefined): Record<string, unknown> {
  const { token: _token, ...fields } = { ...(query as Record<string, unknown>), ...(body ?? {}) };
  return fields;
}

function ingestEvent(
  ingestion: gps.Ingestion,
  auth: Parameters<typeof gps.ingest>[1],
  body: z.infer<typeof TraccarEventForward>,
) {
  const { event, device, geofence } = body;
  return gps.ingestTrackerEvent(ingestion, auth, {
    trackerId: device.uniqueId,
    deviceName: device.name ?? null,
    type: event.type,
    time: parseTime(event.eventTime) ?? parseTime(event.serverTime) ?? new Date(),
    sourceId: event.id === undefined ? null : String(event.id),
    attributes: {
      ...(event.attributes ?? {}),
      ...(geofence ? { geofence } : {}),
      ...(body.position ? { latitude: body.position.latitude, longitude: body.position.longitude } : {}),
    },
  });
}
