import type { TraccarPosition } from '@shared/api/gps';
import type { ProblemFieldError } from '@shared/api/problem';
import type { z } from 'zod';
import { Problem } from '../../platform/http/problem';
import type { Candidate } from './filters';

/** Knots to km/h (Traccar and the OsmAnd protocol speak knots). */
export const KNOTS_TO_KMH = 1.852;
/** Meters per second to km/h (the JSON form of Traccar Client). */
export const MS_TO_KMH = 3.6;

/** A message from a tracker, whatever its protocol: who sent it and the fix it carries (if any). */
export interface TrackerMessage {
  trackerId: string;
  deviceName: string | null;
  fix: Candidate | null;
  /** The battery level the message reports, percent (absent: none). */
  batteryPercent?: number | null;
}

function invalid(pointer: string, detail: string, location: ProblemFieldError['location'] = 'body'): Problem {
  return Problem.of('validation_failed', `Invalid ${location} ${pointer}: ${detail}.`, {
    errors: [{ location, pointer, detail, code: 'invalid' }],
  });
}

/**
 * A time as trackers send it: seconds or milliseconds since the epoch (number or digits), or ISO
 * 8601 (Traccar writes offsets as `+0000`).
 */
export function parseTime(value: unknown): Date | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'number' || (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value))) {
    const number = Number(value);
    // Below 10^11: seconds (until the year 5138); above: milliseconds.
    const date = new Date(number < 1e11 ? number * 1000 : number);
    return Number.isNaN(date.getTime()) ? undefined : date;
  }
  if (typeof value !== 'string') return undefined;
  const normalized = value
    .trim()
    .replace(/([+-]\d\d)(\d\d)$/, '$1:$2')
    .replace(' ', 'T');
  const date = new Date(normalized);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function number(value: unknown): number | null {
  if (value === undefined || value === null || value === '') return null;
  const parsed = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(parsed) ? parsed : null;
}

/** A battery level as a percent within 0–100 (a negative one means "unknown" on phones). */
function percent(value: unknown, scale = 1): number | null {
  const level = number(value);
  if (level === null || level < 0) return null;
  return Math.min(100, Math.round(level * scale * 10) / 10);
}

function flag(value: unknown): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  return !['false', '0', 'no'].includes(String(value).toLowerCase());
}

/** A position forwarded by Traccar (`forward.type=json`), speed in knots. */
export function fromTraccar(
  position: z.infer<typeof TraccarPosition>,
  device: { uniqueId: string; name?: string },
  receivedAt: Date,
): TrackerMessage {
  const fixTime = parseTime(position.fixTime) ?? parseTime(position.deviceTime) ?? receivedAt;
  const speed = number(position.speed);
  const attributes = position.attributes ?? {};
  return {
    trackerId: device.uniqueId,
    deviceName: device.name ?? null,
    batteryPercent: percent(attributes.batteryLevel),
    fix: {
      fixTime,
      lat: position.latitude,
      lon: position.longitude,
      speedKmh: speed === null ? null : speed * KNOTS_TO_KMH,
      course: number(position.course),
      altitude: number(position.altitude),
      accuracy: number(position.accuracy),
      // Traccar marks cell-tower and Wi-Fi positions `approximate`.
      isLbs: attributes.approximate === true,
      valid: position.valid !== false,
      outdated: position.outdated === true,
    },
  };
}

/**
 * An OsmAnd protocol message: query or form fields (speed in knots), or the JSON form of newer
 * Traccar Client versions (speed in m/s). `location` on the query is `lat,lon`.
 */
export function fromOsmAnd(fields: Record<string, unknown>, receivedAt: Date): TrackerMessage {
  const location = fields.location;
  if (location !== null && typeof location === 'object') return fromOsmAndJson(fields, receivedAt);
  const id = fields.id ?? fields.deviceid;
  if (typeof id !== 'string' || id.trim() === '' || id.length > 128) {
    throw invalid('#/id', 'the device identifier (`id` or `deviceid`) is required, up to 128 characters');
  }
  let lat = number(fields.lat);
  let lon = number(fields.lon);
  if (typeof location === 'string') {
    const [first, second] = location.split(',');
    lat = number(first);
    lon = number(second);
  }
  const batteryPercent = percent(fields.batt ?? fields.battery);
  if (lat === null && lon === null) return { trackerId: id.trim(), deviceName: null, batteryPercent, fix: null };
  const timestamp = fields.timestamp;
  const fixTime = timestamp === undefined ? receivedAt : parseTime(timestamp);
  if (!fixTime) throw invalid('#/timestamp', 'a time in seconds, milliseconds or ISO 8601 is expected');
  const speed = number(fields.speed);
  const hdop = number(fields.hdop);
  const accuracy = number(fields.accuracy);
  const cell = typeof fields.cell === 'string' && fields.cell !== '';
  return {
    trackerId: id.trim(),
    deviceName: null,
    batteryPercent,
    fix: {
      fixTime,
      lat: lat ?? Number.NaN,
      lon: lon ?? Number.NaN,
      speedKmh: speed === null ? null : speed * KNOTS_TO_KMH,
      course: number(fields.bearing ?? fields.heading),
      altitude: number(fields.altitude),
      // Without an accuracy, HDOP times a typical 5 m receiver error stands in.
      accuracy: accuracy ?? (hdop === null ? null : hdop * 5),
      // A position sent with its cell and no satellite fix is the tower's.
      isLbs:
        cell && flag(fields.valid) === false
          ? true
          : fields.approximate !== undefined && flag(fields.approximate) === true,
      valid: cell && flag(fields.valid) === false ? true : flag(fields.valid) !== false,
      outdated: false,
    },
  };
}

function fromOsmAndJson(fields: Record<string, unknown>, receivedAt: Date): TrackerMessage {
  const id = fields.device_id;
  if (typeof id !== 'string' || id.trim() === '' || id.length > 128) {
    throw invalid('#/device_id', 'the device identifier is required, up to 128 characters');
  }
  const location = fields.location as Record<string, unknown>;
  const coords = location.coords;
  if (coords === null || typeof coords !== 'object') {
    throw invalid('#/location/coords', 'an object with latitude and longitude is expected');
  }
  const { latitude, longitude, speed, heading, accuracy, altitude } = coords as Record<string, unknown>;
  const fixTime = location.timestamp === undefined ? receivedAt : parseTime(location.timestamp);
  if (!fixTime) throw invalid('#/location/timestamp', 'a time in ISO 8601 (or seconds, milliseconds) is expected');
  const lat = number(latitude);
  const lon = number(longitude);
  if (lat === null || lon === null) throw invalid('#/location/coords', 'latitude and longitude are numbers');
  const metersPerSecond = number(speed);
  // The JSON form's battery level is a fraction (0–1), in the location.
  const battery = location.battery;
  const level = battery !== null && typeof battery === 'object' ? (battery as { level?: unknown }).level : undefined;
  return {
    trackerId: id.trim(),
    deviceName: null,
    batteryPercent: percent(level, 100),
    fix: {
      fixTime,
      lat,
      lon,
      // A negative speed or heading means "unknown" in the phone's location API.
      speedKmh: metersPerSecond === null || metersPerSecond < 0 ? null : metersPerSecond * MS_TO_KMH,
      course: number(heading) !== null && (number(heading) as number) >= 0 ? number(heading) : null,
      altitude: number(altitude),
      accuracy: number(accuracy),
      isLbs: false,
      valid: true,
      outdated: false,
    },
  };
}
