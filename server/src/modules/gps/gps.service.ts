import {
  type CreateGpsObjectRequest,
  type FilterSettings,
  GPS_TOKEN_PREFIX,
  type GpsObject,
  type GpsSettings,
  type PartialFilterSettings,
  type RejectionReason,
  type UpdateGpsObjectRequest,
  type UpdateGpsSettingsRequest,
} from '@shared/api/gps';
import { distanceMeters, type LatLon } from '@shared/gps-geometry';
import type { Request } from 'express';
import type { z } from 'zod';
import type { AuthContext, TokenAuthenticator, TokenCaller } from '../../platform/auth/auth-context';
import { randomToken, sha256Hex } from '../../platform/auth/secrets';
import type { Queryable } from '../../platform/db/db';
import { inUnit, type Unit, type UnitDeps } from '../../platform/db/unit-of-work';
import { Problem } from '../../platform/http/problem';
import { JsonText } from '../../platform/http/routes';
import { newId } from '../../platform/ids';
import { type Fix, judge, overrulesReference } from './filters';
import * as repo from './gps.repo';
import type { TrackerMessage } from './protocols';
import { addHoursWithin } from './track-hours.repo';

/** What the GPS services need: the database, the event bus and the optional engines' fetch. */
export type GpsDeps = UnitDeps & { fetch?: typeof fetch };

/** Defaults of the organization's settings (trip rules as Traccar's current defaults). */
export const DEFAULT_SETTINGS: GpsSettings = {
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

/** How long refused points are kept. */
export const REJECTED_KEEP_DAYS = 7;

const FILTER_KEYS = Object.keys(DEFAULT_SETTINGS).filter(
  (key) =>
    ![
      'autoCreateObjects',
      'minTripDistanceMeters',
      'minTripDurationSeconds',
      'minStopDurationSeconds',
      'stopGapSeconds',
      'retentionDays',
      'maxMessagesPerMinute',
      'routingEngine',
      'geocoderUrl',
      'tileSource',
      'offlineTrackHours',
    ].includes(key),
) as (keyof FilterSettings)[];

const objectNotFound = (id: string) => Problem.of('not_found', `There is no GPS object ${id} in your organization.`);
const groupNotFound = (id: string) => Problem.of('not_found', `There is no GPS group ${id} in your organization.`);

export async function getSettings(db: Queryable, organizationId: string): Promise<GpsSettings> {
  return { ...DEFAULT_SETTINGS, ...(await repo.findSettings(db, organizationId)) } as GpsSettings;
}

/**
 * Organizations' settings as ingestion reads them, kept a few seconds: every position needs them,
 * and they rarely change. This instance forgets them when they are changed here; other instances'
 * changes are felt within `ttlMs`.
 */
export class IngestionSettings {
  private readonly kept = new Map<string, { settings: Promise<GpsSettings>; until: number }>();

  constructor(private readonly ttlMs = 5_000) {}

  get(db: Queryable, organizationId: string): Promise<GpsSettings> {
    const now = Date.now();
    const found = this.kept.get(organizationId);
    if (found && found.until > now) return found.settings;
    const settings = getSettings(db, organizationId);
    this.kept.set(organizationId, { settings, until: now + this.ttlMs });
    // A failed read is not kept.
    settings.catch(() => this.kept.delete(organizationId));
    return settings;
  }

  forget(): void {
    this.kept.clear();
  }
}

export async function updateSettings(
  deps: GpsDeps,
  auth: AuthContext,
  change: z.infer<typeof UpdateGpsSettingsRequest>,
): Promise<GpsSettings> {
  return inUnit(deps, async (unit) => {
    const stored = await repo.findSettings(unit.tx, auth.organizationId);
    const next = { ...stored, ...change };
    await repo.saveSettings(unit.tx, auth.organizationId, next);
    // A wider offline window: the hours already deleted from replicas' tracks come back to them.
    const window = (settings: Record<string, unknown>) =>
      (settings.offlineTrackHours as number | undefined) ?? DEFAULT_SETTINGS.offlineTrackHours;
    if (window(next) > window(stored)) await addHoursWithin(unit.tx, auth.organizationId, window(next));
    return { ...DEFAULT_SETTINGS, ...next } as GpsSettings;
  });
}

/** Filter settings of an object: its own over its group's over the organization's. */
export function effectiveFilters(
  organization: GpsSettings,
  group: Record<string, unknown> | null,
  object: Record<string, unknown>,
): FilterSettings {
  const result = {} as Record<string, unknown>;
  for (const key of FILTER_KEYS) result[key] = object[key] ?? group?.[key] ?? organization[key];
  return result as FilterSettings;
}

function presentObject(row: repo.ObjectRow, gpsLossHours: number, now: Date): GpsObject {
  const lastFix = row.last_gps_fix_at;
  const lossHours = (row.settings.gpsLossHours as number | undefined) ?? gpsLossHours;
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    trackerId: row.tracker_id,
    groupId: row.group_id,
    settings: row.settings as PartialFilterSettings,
    last_seen: row.last_seen?.toISOString() ?? null,
    last_gps_fix_at: lastFix?.toISOString() ?? null,
    gpsLost: lastFix === null ? row.last_seen !== null : now.getTime() - lastFix.getTime() > lossHours * 3_600_000,
    lastPosition:
      row.last_fix_time && row.last_lat !== null && row.last_lon !== null
        ? {
            fixTime: row.last_fix_time.toISOString(),
            lat: row.last_lat,
            lon: row.last_lon,
            speedKmh: row.last_speed_kmh,
            course: row.last_course,
            isLbs: row.last_is_lbs ?? false,
            batteryPercent: row.last_battery_percent,
          }
        : null,
    speedKmh: row.last_speed_kmh,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The group's own settings over its group's: a group's override only counts for the loss threshold here. */
async function lossHoursOf(db: Queryable, organizationId: string): Promise<number> {
  return (await getSettings(db, organizationId)).gpsLossHours;
}

/** Objects as REST presents them, for the replicas (GPS loss judged with each one's group's threshold). */
export async function presentObjects(
  db: Queryable,
  organizationId: string,
  rows: repo.ObjectRow[],
): Promise<GpsObject[]> {
  const [settings, groups] = await Promise.all([getSettings(db, organizationId), repo.listGroups(db, organizationId)]);
  const groupLoss = new Map(groups.map((group) => [group.id, group.settings.gpsLossHours as number | undefined]));
  const now = new Date();
  return rows.map((row) =>
    presentObject(row, (row.group_id && groupLoss.get(row.group_id)) || settings.gpsLossHours, now),
  );
}

export async function listObjects(deps: GpsDeps, auth: AuthContext): Promise<{ items: GpsObject[] }> {
  const [rows, settings, groups] = await Promise.all([
    repo.listObjects(deps.db, auth.organizationId),
    getSettings(deps.db, auth.organizationId),
    repo.listGroups(deps.db, auth.organizationId),
  ]);
  const groupLoss = new Map(groups.map((group) => [group.id, group.settings.gpsLossHours as number | undefined]));
  const now = new Date();
  return {
    items: rows.map((row) =>
      presentObject(row, (row.group_id && groupLoss.get(row.group_id)) || settings.gpsLossHours, now),
    ),
  };
}

async function presentOne(db: Queryable, row: repo.ObjectRow): Promise<GpsObject> {
  const group = row.group_id ? await repo.findGroup(db, row.organization_id, row.group_id) : undefined;
  const loss = (group?.settings.gpsLossHours as number | undefined) ?? (await lossHoursOf(db, row.organization_id));
  return presentObject(row, loss, new Date());
}

export async function getObject(deps: GpsDeps, auth: AuthContext, id: string): Promise<GpsObject> {
  const row = await repo.findObject(deps.db, auth.organizationId, id);
  if (!row) throw objectNotFound(id);
  return presentOne(deps.db, row);
}

/** The object, or 404 naming it: every per-object read starts here, so ids of other organizations are unknown. */
export async function requireObject(db: Queryable, auth: AuthContext, id: string): Promise<repo.ObjectRow> {
  const row = await repo.findObject(db, auth.organizationId, id);
  if (!row) throw objectNotFound(id);
  return row;
}

async function checkGroup(db: Queryable, organizationId: string, groupId: string | null | undefined): Promise<void> {
  if (!groupId) return;
  if (!(await repo.findGroup(db, organizationId, groupId))) {
    throw Problem.of('validation_failed', `There is no GPS group ${groupId} in your organization.`, {
      errors: [{ location: 'body', pointer: '#/groupId', detail: 'Unknown group', code: 'unknown_group' }],
    });
  }
}

const trackerTaken = (trackerId: string) =>
  Problem.of('conflict', `Another object already has the tracker ${trackerId}. A tracker belongs to one object.`, {
    errors: [{ location: 'body', pointer: '#/trackerId', detail: 'Already used by another object', code: 'taken' }],
  });

export async function createObject(
  deps: GpsDeps,
  auth: AuthContext,
  input: z.infer<typeof CreateGpsObjectRequest>,
): Promise<GpsObject> {
  return inUnit(deps, async (unit) => {
    await checkGroup(unit.tx, auth.organizationId, input.groupId);
    const id = newId();
    const inserted = await repo.insertObject(unit.tx, {
      id,
      organizationId: auth.organizationId,
      name: input.name,
      kind: input.kind,
      trackerId: input.trackerId,
      groupId: input.groupId ?? null,
      settings: input.settings ?? {},
    });
    if (!inserted) throw trackerTaken(input.trackerId);
    return presentOne(unit.tx, (await repo.findObject(unit.tx, auth.organizationId, id)) as repo.ObjectRow);
  });
}

export async function updateObject(
  deps: GpsDeps,
  auth: AuthContext,
  id: string,
  input: z.infer<typeof UpdateGpsObjectRequest>,
): Promise<GpsObject> {
  return inUnit(deps, async (unit) => {
    const row = await requireObject(unit.tx, auth, id);
    await checkGroup(unit.tx, auth.organizationId, input.groupId);
    const outcome = await repo.updateObject(unit.tx, auth.organizationId, id, {
      name: input.name ?? row.name,
      kind: input.kind ?? row.kind,
      trackerId: input.trackerId ?? row.tracker_id,
      groupId: input.groupId === undefined ? row.group_id : input.groupId,
      settings: input.settings ?? row.settings,
    });
    if (outcome === 'tracker_taken') throw trackerTaken(input.trackerId as string);
    return presentOne(unit.tx, (await repo.findObject(unit.tx, auth.organizationId, id)) as repo.ObjectRow);
  });
}

export async function deleteObject(deps: GpsDeps, auth: AuthContext, id: string): Promise<void> {
  if (!(await repo.deleteObject(deps.db, auth.organizationId, id))) throw objectNotFound(id);
}

/** A group as REST answers it (and replicas hold it). */
export function presentGroup(row: repo.GroupRow) {
  return {
    id: row.id,
    name: row.name,
    settings: row.settings as PartialFilterSettings,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function listGroups(deps: GpsDeps, auth: AuthContext) {
  return { items: (await repo.listGroups(deps.db, auth.organizationId)).map(presentGroup) };
}

export async function getGroup(deps: GpsDeps, auth: AuthContext, id: string) {
  const row = await repo.findGroup(deps.db, auth.organizationId, id);
  if (!row) throw groupNotFound(id);
  return presentGroup(row);
}

export async function createGroup(deps: GpsDeps, auth: AuthContext, input: { name: string; settings?: object }) {
  const row = await repo.insertGroup(deps.db, {
    id: newId(),
    organizationId: auth.organizationId,
    name: input.name,
    settings: input.settings ?? {},
  });
  return presentGroup(row);
}

export async function updateGroup(
  deps: GpsDeps,
  auth: AuthContext,
  id: string,
  input: { name?: string; settings?: object },
) {
  return inUnit(deps, async (unit) => {
    const row = await repo.findGroup(unit.tx, auth.organizationId, id);
    if (!row) throw groupNotFound(id);
    const updated = await repo.updateGroup(unit.tx, auth.organizationId, id, {
      name: input.name ?? row.name,
      settings: input.settings ?? row.settings,
    });
    return presentGroup(updated as repo.GroupRow);
  });
}

export async function deleteGroup(deps: GpsDeps, auth: AuthContext, id: string): Promise<void> {
  if (!(await repo.deleteGroup(deps.db, auth.organizationId, id))) throw groupNotFound(id);
}

function presentToken(row: repo.TokenRow | undefined) {
  return {
    exists: row !== undefined,
    prefix: row?.prefix ?? null,
    createdAt: row?.created_at.toISOString() ?? null,
    lastUsedAt: row?.last_used_at?.toISOString() ?? null,
  };
}

export async function getIngestionToken(deps: GpsDeps, auth: AuthContext) {
  return presentToken(await repo.findToken(deps.db, auth.organizationId));
}

/** A new ingestion token (256 bits), kept as SHA-256; the previous one stops working at once. */
export async function createIngestionToken(deps: GpsDeps, auth: AuthContext) {
  const token = `${GPS_TOKEN_PREFIX}${randomToken()}`;
  const row = await repo.replaceToken(deps.db, {
    id: newId(),
    organizationId: auth.organizationId,
    hash: sha256Hex(token),
    prefix: token.slice(0, GPS_TOKEN_PREFIX.length + 6),
  });
  return { ...presentToken(row), token };
}

const TOKEN_WORDS =
  'Authenticated by the organization’s GPS ingestion token (`gps_…`, made at `POST /api/gps/ingestion-token`), sent as `Authorization: Bearer gps_…` or `?token=gps_…`.';

/** Resolves the ingestion token of a tracker's request (bearer or `?token=`), or 401 with nothing stored. */
export function ingestionTokens(deps: GpsDeps): TokenAuthenticator {
  return {
    description: TOKEN_WORDS,
    async authenticate(req: Request): Promise<TokenCaller> {
      const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const query = typeof req.query.token === 'string' ? req.query.token : undefined;
      const token = bearer ?? query;
      if (!token?.startsWith(GPS_TOKEN_PREFIX)) {
        throw Problem.of('unauthenticated', `Send the organization’s GPS ingestion token. ${TOKEN_WORDS}`);
      }
      const row = await repo.findTokenByHash(deps.db, sha256Hex(token));
      if (!row) throw Problem.of('unauthenticated', 'The GPS ingestion token is not valid (replaced, or never made).');
      // Its last use is noted at most once a minute: not a write per position.
      if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > 60_000) await repo.touchToken(deps.db, row.id);
      return { kind: 'token', organizationId: row.organization_id, tokenId: row.id };
    },
  };
}

/** Messages per tracker in the current minute, for the flood limit (per server instance). */
export class TrackerRateLimit {
  private minute = 0;
  private counts = new Map<string, number>();

  /** Counts a message; throws 429 when the tracker exceeded `perMinute` in this minute. */
  take(organizationId: string, trackerId: string, perMinute: number, now = Date.now()): void {
    const minute = Math.floor(now / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.counts.clear();
    }
    const key = `${organizationId}:${trackerId}`;
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    if (count > perMinute) {
      throw Problem.of(
        'too_many_attempts',
        `Tracker ${trackerId} sent more than ${perMinute} messages this minute; send again in a minute.`,
        { headers: { 'Retry-After': String(60 - Math.floor((now / 1000) % 60)) } },
      );
    }
  }
}

export interface IngestionOutcome {
  objectId: string;
  accepted: boolean;
  reason: RejectionReason | null;
}

/** Hooks run after a point is accepted, inside its unit (geofences). */
export type AcceptedHook = (unit: Unit, object: repo.ObjectRow, fix: Fix) => Promise<void>;

export interface Ingestion {
  deps: GpsDeps;
  limit: TrackerRateLimit;
  /** Distance to the nearest road when a routing engine is set (cell-tower mode), or undefined. */
  roadDistance?: (settings: GpsSettings, fix: Fix) => Promise<number | undefined>;
  onAccepted: AcceptedHook[];
  settings: IngestionSettings;
}

async function objectForMessage(
  unit: Unit,
  caller: TokenCaller,
  message: TrackerMessage,
  settings: GpsSettings,
): Promise<repo.ObjectRow & { group_settings: Record<string, unknown> | null }> {
  const found = await repo.lockObjectByTracker(unit.tx, caller.organizationId, message.trackerId);
  if (found) return found;
  if (!settings.autoCreateObjects) {
    throw Problem.of(
      'not_found',
      `No object has the tracker ${message.trackerId}, and the organization does not create objects for unknown trackers.`,
    );
  }
  await repo.insertObject(unit.tx, {
    id: newId(),
    organizationId: caller.organizationId,
    name: message.deviceName?.trim() || message.trackerId,
    kind: 'tracker',
    trackerId: message.trackerId,
    groupId: null,
    settings: {},
  });
  return (await repo.lockObjectByTracker(unit.tx, caller.organizationId, message.trackerId)) as repo.ObjectRow & {
    group_settings: null;
  };
}

async function accept(
  ingestion: Ingestion,
  unit: Unit,
  object: repo.ObjectRow,
  fix: Fix,
  receivedAt: Date,
  batteryPercent: number | null = null,
) {
  await repo.insertPoint(unit.tx, object.organization_id, object.id, fix, receivedAt);
  await repo.noteAcceptedMessage(unit.tx, object.id, receivedAt, fix, batteryPercent);
  for (const hook of ingestion.onAccepted) await hook(unit, object, fix);
  await unit.emit('gps.position_accepted', {
    organizationId: object.organization_id,
    objectId: object.id,
    fixTime: fix.fixTime.toISOString(),
    lat: fix.lat,
    lon: fix.lon,
    speedKmh: fix.speedKmh,
    course: fix.course,
    isLbs: fix.isLbs,
    batteryPercent,
  });
}

/**
 * A tracker's message: notes `last_seen`, judges the fix against its time neighbours, stores it
 * as accepted or refused with the reason, and moves `last_gps_fix_at` to a later fix only. When
 * enough refused spikes agree with each other, the reference they jumped from is refused instead
 * and they are accepted (out of the lock-on trap).
 */
export async function ingest(
  ingestion: Ingestion,
  caller: TokenCaller,
  message: TrackerMessage,
): Promise<IngestionOutcome> {
  const { deps } = ingestion;
  const receivedAt = new Date();
  const settings = await ingestion.settings.get(deps.db, caller.organizationId);
  ingestion.limit.take(caller.organizationId, message.trackerId, settings.maxMessagesPerMinute);
  const fix = message.fix;
  const offRoad =
    fix?.isLbs && settings.routingEngine && ingestion.roadDistance
      ? await ingestion.roadDistance(settings, fix)
      : undefined;
  return inUnit(deps, async (unit) => {
    const object = await objectForMessage(unit, caller, message, settings);
    const battery = message.batteryPercent ?? null;
    if (!fix) {
      await repo.noteMessage(unit.tx, object.id, receivedAt, null, battery);
      return { objectId: object.id, accepted: false, reason: null };
    }
    const filters = effectiveFilters(settings, object.group_settings, object.settings);
    const near = Number.isFinite(fix.fixTime.getTime()) ? await repo.neighbours(unit.tx, object.id, fix.fixTime) : {};
    const reason = judge(fix, near, filters, receivedAt, offRoad);
    // A real fix (or a heartbeat's re-sent one) shows the receiver works; a refused impossible one does not.
    const fixSeen = reason === null || ['echo', 'duplicate', 'jitter', 'stale', 'spike'].includes(reason);
    if (reason === null) {
      // `last_seen`, `last_gps_fix_at` and the last position in one statement.
      await accept(ingestion, unit, object, fix, receivedAt, battery);
      return { objectId: object.id, accepted: true, reason: null };
    }
    await repo.noteMessage(unit.tx, object.id, receivedAt, fixSeen ? fix.fixTime : null, battery);
    if (reason !== 'duplicate') {
      await repo.insertRejected(unit.tx, object.organization_id, object.id, fix, reason, receivedAt);
    }
    if (reason === 'spike' && near.prev && !near.next) {
      const recovered = await recover(ingestion, unit, object, near.prev, filters, receivedAt);
      if (recovered) return { objectId: object.id, accepted: true, reason: null };
    }
    return { objectId: object.id, accepted: false, reason };
  });
}

/** Out of the lock-on trap: consistent refused spikes after the reference overrule it. */
async function recover(
  ingestion: Ingestion,
  unit: Unit,
  object: repo.ObjectRow,
  reference: Fix,
  filters: FilterSettings,
  receivedAt: Date,
): Promise<boolean> {
  const spikes = await repo.spikesAfter(unit.tx, object.id, reference.fixTime, filters.recoveryPoints);
  if (!overrulesReference(spikes, filters)) return false;
  await repo.demotePoint(unit.tx, object.id, reference.fixTime, 'spike');
  await repo.resetPosition(unit.tx, object.id);
  await repo.reinstateSpikes(
    unit.tx,
    object.id,
    spikes.map((spike) => spike.fixTime),
  );
  for (const spike of spikes) {
    await repo.notePosition(unit.tx, object.id, spike);
    for (const hook of ingestion.onAccepted) await hook(unit, object, spike);
  }
  void receivedAt;
  return true;
}

/** The accepted track in fix-time order, its distance, and refused points when asked. */
export async function getTrack(
  deps: GpsDeps,
  auth: AuthContext,
  objectId: string,
  query: { from?: string; to?: string; include?: 'rejected' },
) {
  await requireObject(deps.db, auth, objectId);
  const { from, to } = timeRange(query);
  // Written by PostgreSQL and passed through: a month of points as objects took seconds to move and write.
  const track = await repo.trackJson(deps.db, auth.organizationId, objectId, from, to, query.include === 'rejected');
  const points = track.points.flatMap((hour, index) => (index === 0 ? [hour] : [',', hour]));
  return new JsonText(['{"points":[', ...points, `],"distanceMeters":${JSON.stringify(trackDistance(track.path))}}`]);
}

/** A query's period: `to` by default now, `from` by default a day before `to`. */
export function timeRange(query: { from?: string; to?: string }): { from: Date; to: Date } {
  const to = query.to ? new Date(query.to) : new Date();
  const from = query.from ? new Date(query.from) : new Date(to.getTime() - 86_400_000);
  return { from, to };
}

/** Distance along accepted points in meters. */
export function trackDistance(points: readonly LatLon[]): number {
  let total = 0;
  for (let i = 1; i < points.length; i++) total += distanceMeters(points[i - 1] as LatLon, points[i] as LatLon);
  return Math.round(total * 10) / 10;
}

/** Stores one of Traccar's events against its object (created like a position's would be). */
export async function ingestTrackerEvent(
  ingestion: Ingestion,
  caller: TokenCaller,
  event: {
    trackerId: string;
    deviceName: string | null;
    type: string;
    time: Date;
    sourceId: string | null;
    attributes: object;
  },
): Promise<{ objectId: string }> {
  const settings = await ingestion.settings.get(ingestion.deps.db, caller.organizationId);
  ingestion.limit.take(caller.organizationId, event.trackerId, settings.maxMessagesPerMinute);
  return inUnit(ingestion.deps, async (unit) => {
    const object = await objectForMessage(
      unit,
      caller,
      { trackerId: event.trackerId, deviceName: event.deviceName, fix: null },
      settings,
    );
    await repo.noteMessage(unit.tx, object.id, new Date(), null);
    await repo.insertTrackerEvent(unit.tx, {
      id: newId(),
      organizationId: caller.organizationId,
      objectId: object.id,
      type: event.type,
      eventTime: event.time,
      attributes: event.attributes,
      sourceId: event.sourceId,
    });
    return { objectId: object.id };
  });
}

/** The daily retention: points older than each organization's retention, refused ones after 7 days. */
export async function pruneOldPoints(deps: GpsDeps): Promise<{ points: number; rejected: number }> {
  let points = 0;
  for (const { organizationId, days } of await repo.retentionSettings(deps.db)) {
    points += await repo.prunePoints(deps.db, organizationId, days ?? DEFAULT_SETTINGS.retentionDays);
  }
  const rejected = await repo.pruneRejected(deps.db, REJECTED_KEEP_DAYS);
  return { points, rejected };
}

/** The origins of every organization's configured tile source (the pages' Content-Security-Policy allows them). */
export async function tileOrigins(db: Queryable): Promise<string[]> {
  const origins = new Set<string>();
  for (const url of await repo.listTileSourceUrls(db)) {
    try {
      origins.add(new URL(url).origin);
    } catch {
      // Stored by an older release without validation: not an origin to allow.
    }
  }
  return [...origins].sort();
}
