import { type GpsSettings, GpsSettings as GpsSettingsSchema, type UpdateGpsSettingsRequest } from '@shared/api/gps';
import type { ProblemFieldError } from '@shared/api/problem';
import type { TFunction } from 'i18next';
import type { z } from 'zod';

export type TileSourceKind = 'none' | NonNullable<GpsSettings['tileSource']>['kind'];
export type RoutingEngineKind = 'none' | NonNullable<GpsSettings['routingEngine']>['kind'];

/** The numeric settings, each edited in its own field (named as in the API). */
export const NUMBER_FIELDS = [
  'gpsLossHours',
  'retentionDays',
  'offlineTrackHours',
  'maxMessagesPerMinute',
  'minTripDistanceMeters',
  'minTripDurationSeconds',
  'minStopDurationSeconds',
  'stopGapSeconds',
  'maxJumpSpeedKmh',
  'stationarySpeedKmh',
  'jitterMeters',
  'offRoadMeters',
  'futureToleranceSeconds',
  'lbsMaxAccuracyMeters',
  'lbsAfterGpsSeconds',
  'recoveryPoints',
] as const satisfies readonly (keyof GpsSettings)[];
export type NumberField = (typeof NUMBER_FIELDS)[number];

/** What the GPS settings form edits: the API's settings with "none" in place of null and blanks in place of absent addresses. */
export type GpsSettingsValues = Record<NumberField, number | null> & {
  autoCreateObjects: boolean;
  tileSource: { kind: TileSourceKind; url: string };
  geocoderUrl: string;
  routingEngine: { kind: RoutingEngineKind; url: string; profile: string; maxPoints: number | null };
};

const DEFAULT_PROFILE = 'driving';
const DEFAULT_MAX_POINTS = 100;

export function valuesOfSettings(settings: GpsSettings): GpsSettingsValues {
  const numbers = Object.fromEntries(NUMBER_FIELDS.map((field) => [field, settings[field]])) as Record<
    NumberField,
    number
  >;
  return {
    ...numbers,
    autoCreateObjects: settings.autoCreateObjects,
    tileSource: settings.tileSource ?? { kind: 'none', url: '' },
    geocoderUrl: settings.geocoderUrl ?? '',
    routingEngine: settings.routingEngine ?? {
      kind: 'none',
      url: '',
      profile: DEFAULT_PROFILE,
      maxPoints: DEFAULT_MAX_POINTS,
    },
  };
}

/**
 * The change the form asks of the server: every setting, "none" and blank addresses as null. Values
 * go as typed (trimmed): the server's schema judges them, and its refusals are shown at their fields.
 */
export function changeOfValues(values: GpsSettingsValues): z.input<typeof UpdateGpsSettingsRequest> {
  const numbers = Object.fromEntries(NUMBER_FIELDS.map((field) => [field, values[field]])) as Record<
    NumberField,
    number
  >;
  const { tileSource, routingEngine } = values;
  const geocoderUrl = values.geocoderUrl.trim();
  return {
    ...numbers,
    autoCreateObjects: values.autoCreateObjects,
    tileSource: tileSource.kind === 'none' ? null : { kind: tileSource.kind, url: tileSource.url.trim() },
    geocoderUrl: geocoderUrl === '' ? null : geocoderUrl,
    routingEngine:
      routingEngine.kind === 'none'
        ? null
        : {
            kind: routingEngine.kind,
            url: routingEngine.url.trim(),
            profile: routingEngine.profile.trim() || DEFAULT_PROFILE,
            maxPoints: routingEngine.maxPoints ?? DEFAULT_MAX_POINTS,
          },
  };
}

/**
 * The form field a server's field error points at (`#/tileSource/url` → `['tileSource', 'url']`); an
 * error on a whole object goes to its first field, where the user picks what it is.
 */
export function fieldOfPointer(pointer: string): string[] {
  const path = pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter((part) => part !== '')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (path.length === 1 && (path[0] === 'tileSource' || path[0] === 'routingEngine')) return [path[0], 'kind'];
  return path;
}

/** The range the shared schema allows a numeric setting: bounds, whether the lower one is excluded, whether whole. */
export function numberBounds(field: NumberField): { min: number; max: number; minExcluded: boolean; integer: boolean } {
  const schema = GpsSettingsSchema.shape[field];
  const min = schema.minValue ?? 0;
  return {
    min,
    max: schema.maxValue ?? Number.MAX_SAFE_INTEGER,
    // `positive()` keeps 0 out: the schema itself says whether its lower bound is allowed.
    minExcluded: !schema.safeParse(min).success,
    integer: schema.isInt,
  };
}

function isNumberField(name: string): name is NumberField {
  return (NUMBER_FIELDS as readonly string[]).includes(name);
}

/**
 * A server's refusal of one field in the user's language: the range comes from the shared schema
 * the server checked against; codes not known here keep the server's words.
 */
export function fieldErrorWords(error: ProblemFieldError, t: TFunction): string {
  const [name] = fieldOfPointer(error.pointer);
  if (error.code === 'invalid_format') return t('gpsSettings.errors.url');
  if ((error.code === 'too_small' || error.code === 'too_big') && name && isNumberField(name)) {
    const bounds = numberBounds(name);
    if (error.code === 'too_big') return t('gpsSettings.errors.tooBig', { max: bounds.max });
    return t(bounds.minExcluded ? 'gpsSettings.errors.aboveMin' : 'gpsSettings.errors.tooSmall', { min: bounds.min });
  }
  if (error.code === 'too_big') return t('gpsSettings.errors.tooLong');
  if (error.code === 'invalid_type') return t('gpsSettings.errors.required');
  if (error.code === 'invalid_value') return t('gpsSettings.errors.choose');
  return error.detail;
}

/** Whether two settings' values are the same, whatever the order of their keys. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const aKeys = Object.keys(a);
  if (aKeys.length !== Object.keys(b).length) return false;
  return aKeys.every((key) => sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/**
 * Only the settings the form changed from those it loaded: another administrator's change meanwhile
 * to a setting left alone here is kept.
 */
export function changedSettings(
  values: GpsSettingsValues,
  loaded: GpsSettings,
): Partial<z.input<typeof UpdateGpsSettingsRequest>> {
  const change = changeOfValues(values);
  return Object.fromEntries(
    Object.entries(change).filter(([key, value]) => !sameValue(value, loaded[key as keyof GpsSettings])),
  );
}

/** Where trackers send their data on this server (`origin` as they reach it). */
export function trackerEndpoints(origin: string) {
  const base = origin.replace(/\/+$/, '');
  return {
    traccarPositions: `${base}/api/gps/traccar/positions`,
    traccarEvents: `${base}/api/gps/traccar/events`,
    osmAnd: `${base}/api/gps/osmand`,
  };
}

/** The lines of Traccar's `traccar.xml` that forward positions and events here with the ingestion token. */
export function traccarConfig(origin: string, token: string): string {
  const endpoints = trackerEndpoints(origin);
  return [
    `<entry key='forward.enable'>true</entry>`,
    `<entry key='forward.type'>json</entry>`,
    `<entry key='forward.url'>${endpoints.traccarPositions}</entry>`,
    `<entry key='forward.header'>Authorization: Bearer ${token}</entry>`,
    `<entry key='event.forward.enable'>true</entry>`,
    `<entry key='event.forward.url'>${endpoints.traccarEvents}</entry>`,
    `<entry key='event.forward.header'>Authorization: Bearer ${token}</entry>`,
  ].join('\n');
}
