import type { GpsSettings } from '@shared/api/gps';
import type { TFunction } from 'i18next';

/** An organization's GPS settings as the server answers them (tests of the GPS screens). */
export const GPS_SETTINGS: GpsSettings = {
  maxJumpSpeedKmh: 250,
  offRoadMeters: 300,
  jitterMeters: 30,
  stationarySpeedKmh: 3,
  futureToleranceSeconds: 300,
  lbsMaxAccuracyMeters: 3000,
  lbsAfterGpsSeconds: 600,
  recoveryPoints: 3,
  gpsLossHours: 2,
  autoCreateObjects: true,
  minTripDistanceMeters: 200,
  minTripDurationSeconds: 180,
  minStopDurationSeconds: 180,
  stopGapSeconds: 3600,
  retentionDays: 180,
  maxMessagesPerMinute: 600,
  routingEngine: null,
  geocoderUrl: null,
  tileSource: null,
  offlineTrackHours: 24,
};

/** A stand-in translation: the key and its values, so a test sees which words were chosen with what. */
export const keyTranslation = ((key: string, values?: Record<string, unknown>) =>
  values ? `${key} ${JSON.stringify(values)}` : key) as unknown as TFunction;
