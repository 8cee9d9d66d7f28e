import type { ModuleFactory } from '../../platform/module';
import { crossGeofences } from './geofences.service';
import { gpsRoutes } from './gps.routes';
import {
  type GpsDeps,
  type Ingestion,
  IngestionSettings,
  pruneOldPoints,
  TrackerRateLimit,
  tileOrigins,
} from './gps.service';
import { gpsGeofencesSyncSource, gpsObjectsSyncSource, gpsTracksSyncSource, keepTrackHours } from './gps.sync';
import { LivePositions } from './live';
import { roadDistance } from './matching';

const DAY_MS = 86_400_000;

/**
 * GPS monitoring: objects and groups, positions from Traccar and phones (OsmAnd) authenticated by
 * the organization's ingestion token, filters, tracks, trips, geofences, routes and road matching.
 */
export const gpsModule: ModuleFactory = (context) => {
  const deps: GpsDeps = { db: context.db, events: context.events };
  const ingestion: Ingestion = {
    deps,
    limit: new TrackerRateLimit(),
    roadDistance: (settings, fix) => roadDistance(deps, settings, fix),
    onAccepted: [crossGeofences],
    settings: new IngestionSettings(),
  };
  const live = new LivePositions(context.io).attach(context.events);
  let origins: readonly string[] = [];
  const refreshOrigins = async () => {
    origins = await tileOrigins(context.db);
  };
  const settingsChanged = async () => {
    ingestion.settings.forget();
    await refreshOrigins();
  };
  return {
    name: 'gps',
    routes: gpsRoutes(deps, ingestion, settingsChanged),
    connectOrigins: () => origins,
    syncSources: [gpsObjectsSyncSource(deps), gpsGeofencesSyncSource(deps), gpsTracksSyncSource(deps)],
    scheduled: [
      live,
      // Other instances' settings changes reach this one's CSP within a minute.
      { name: 'gps.tile-origins', intervalMs: 60_000, run: refreshOrigins },
      { name: 'gps.retention', intervalMs: DAY_MS, run: async () => void (await pruneOldPoints(deps)) },
      // A moving object's hour of track reaches replicas about once a minute, not with every point.
      { name: 'gps.track-hours', intervalMs: 60_000, run: async () => void (await keepTrackHours(context.db)) },
    ],
  };
};
