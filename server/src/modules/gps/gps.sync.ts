import { GeofenceRequest, RouteRequest } from '@shared/api/gps';
import type { GoneRecord, LostEdit, SyncCheckpoint, SyncDocument } from '@shared/sync';
import { z } from 'zod';
import type { AuthContext } from '../../platform/auth/auth-context';
import type { Queryable } from '../../platform/db/db';
import { Problem } from '../../platform/http/problem';
import { defineSyncCollection } from '../../platform/sync/sync-collection';
import {
  clientChanges,
  createdOrMerged,
  keptValuesWithoutBase,
  keptWithoutBase,
  knownBase,
  lostWithRecord,
  refusedValuesAsLost,
  type SyncSource,
  sameValue,
  tombstone,
  withValuesLeftOut,
} from '../../platform/sync/sync-source';
import * as geofenceRepo from './geofences.repo';
import * as geofences from './geofences.service';
import { objectChanges } from './gps.repo';
import { DEFAULT_SETTINGS, type GpsDeps, getSettings, presentGroup, presentObjects } from './gps.service';
import {
  type GeofenceChange,
  type GroupChange,
  geofenceChanges,
  geofenceIdTaken,
  groupChanges,
  inCommitOrder,
  isReplicaHolder,
  lockGeofenceOrRoute,
  noteReplicaHolder,
  recordIdsAfter,
} from './sync.repo';
import {
  deleteExpiredHours,
  type HourPoint,
  pointsOfHours,
  pruneHourTombstones,
  stampChangedHours,
  type TrackHourChange,
  trackHourChanges,
  trackHourIdsAfter,
} from './track-hours.repo';

const hasGps = (auth: AuthContext) => auth.modules.includes('gps');

/** After every id: a replica whose user lost GPS access has been sent every tombstone. */
export const LAST_ID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** Users noted as holders by this process (`organization:user`): noted once, not on every pull. */
const notedHolders = new Set<string>();

/**
 * A GPS collection, pulled by users with GPS module access only: to anyone else it is empty (not
 * even tombstones name a record). A replica that pulled it while its user had access (a checkpoint)
 * and lost it since is sent a tombstone of every record, in id order (`ids`), then stands at
 * checkpoint `{xid: 0}`: nothing more comes without access, everything again once access returns.
 * Only a user noted as a holder (sent GPS records once) is sent those tombstones: a checkpoint made
 * up by anyone else names no record. The note is written through `pool`, as the live stream reads
 * in a read-only transaction.
 */
export function gpsOnly(
  source: SyncSource,
  ids: (db: Queryable, organizationId: string, after: string | undefined, limit: number) => Promise<string[]>,
  pool: Queryable,
): SyncSource {
  return {
    ...source,
    async pull(db, auth, checkpoint, limit) {
      const startsOver = checkpoint?.xid === '0';
      if (hasGps(auth)) {
        const holder = `${auth.organizationId}:${auth.userId}`;
        if (!notedHolders.has(holder)) {
          await noteReplicaHolder(pool, auth.organizationId, auth.userId);
          notedHolders.add(holder);
        }
        return source.pull(db, auth, startsOver ? null : checkpoint, limit);
      }
      if (!checkpoint) return { documents: [], checkpoint: null };
      const after = startsOver ? checkpoint.withdrawnAfter : undefined;
      // An id the sweep did not write (the checkpoint was altered) ends it, as the last one does.
      if (startsOver && (after === undefined || after === LAST_ID || !z.uuid().safeParse(after).success)) {
        return { documents: [], checkpoint };
      }
      if (!(await isReplicaHolder(db, auth.organizationId, auth.userId))) {
        return { documents: [], checkpoint: { xid: '0', seq: '0', withdrawnAfter: LAST_ID } };
      }
      const found = await ids(db, auth.organizationId, after, limit);
      const last = found.length < limit ? LAST_ID : (found.at(-1) as string);
      const next: SyncCheckpoint = { xid: '0', seq: '0', withdrawnAfter: last };
      return { documents: found.map(tombstone), checkpoint: next };
    },
  };
}

type ObjectsChange = Awaited<ReturnType<typeof objectChanges>>[number] | (GroupChange & { group: true });

/**
 * GPS objects with their last position and the groups they are in (`type: 'group'`), read-only on
 * replicas. A deleted object or group arrives as a tombstone.
 */
export const gpsObjectsSyncSource = (deps: GpsDeps): SyncSource =>
  gpsOnly(
    defineSyncCollection<ObjectsChange, GpsDeps>({
      collection: 'gps_objects',
      pull: {
        async changes(db, auth, checkpoint, limit) {
          const objects = await objectChanges(db, auth.organizationId, checkpoint, limit);
          const groups = (await groupChanges(db, auth.organizationId, checkpoint, limit)).map((group) => ({
            ...group,
            group: true as const,
          }));
          return inCommitOrder<ObjectsChange>([objects, groups], limit);
        },
        gone: (row) => row.name === null,
        async present(db, auth, rows) {
          const objects = rows.filter((row) => !('group' in row));
          const documents = new Map<string, SyncDocument>();
          for (const object of await presentObjects(db, auth.organizationId, objects as never)) {
            documents.set(object.id, { ...object, type: 'object', _deleted: false } as unknown as SyncDocument);
          }
          for (const row of rows) {
            if ('group' in row) {
              documents.set(row.id, { ...presentGroup(row), type: 'group', _deleted: false } as SyncDocument);
            }
          }
          return documents;
        },
      },
    }),
    (db, organizationId, after, limit) => recordIdsAfter(db, organizationId, 'gps_objects', after, limit),
    deps.db,
  );

/** A geofence or a route as replicas hold it (`type` tells which). */
function geofenceDocument(row: GeofenceChange | geofenceRepo.GeofenceRow | geofenceRepo.RouteRow, type: string) {
  return type === 'route'
    ? { ...geofences.presentRoute(row as geofenceRepo.RouteRow), type: 'route', _deleted: false }
    : { ...geofences.present(row as geofenceRepo.GeofenceRow), type: 'geofence', _deleted: false };
}

/** What a pushed live geofence or route must look like: as REST takes it, with its type. */
const PushedGeofence = z.discriminatedUnion('type', [
  GeofenceRequest.extend({ type: z.literal('geofence') }),
  RouteRequest.extend({ type: z.literal('route') }),
]);

/** The values a replica edits, by type (the rest are the server's). */
const EDITED = { geofence: ['name', 'geometry', 'color'], route: ['name', 'objectIds', 'stops'] } as const;
const ALL_EDITED = [...new Set([...EDITED.geofence, ...EDITED.route])];

function typeOf(document: object | null | undefined): 'geofence' | 'route' {
  return (document as { type?: unknown } | null)?.type === 'route' ? 'route' : 'geofence';
}

/** A document's values as a replica edits them, by lost-edit path. */
function geofenceValues(document: object): Map<string, unknown> {
  const doc = document as Record<string, unknown>;
  return new Map(EDITED[typeOf(document)].map((key) => [key, doc[key]]));
}

async function currentGeofence(db: Queryable, auth: AuthContext, id: string): Promise<SyncDocument | undefined> {
  const geofence = await geofenceRepo.findGeofence(db, auth.organizationId, id);
  if (geofence) return geofenceDocument(geofence, 'geofence') as SyncDocument;
  const route = await geofenceRepo.findRoute(db, auth.organizationId, id);
  return route ? (geofenceDocument(route, 'route') as SyncDocument) : undefined;
}

const recordOf = (document: SyncDocument): GoneRecord => ({ name: String(document.name ?? '') });

/**
 * Three-way merge of a geofence or route edited offline, value by value like tasks: a value the
 * client changed and the server did not takes the client's (through the same service as REST, so
 * geometry and stops are judged alike); a value changed on both sides keeps the server's and is
 * reported lost; a deletion of a record changed on the server meanwhile is refused.
 */
async function pushGeofence(
  deps: GpsDeps,
  auth: AuthContext,
  pushedBase: SyncDocument | null,
  pushed: SyncDocument,
  lost: LostEdit[],
): Promise<void> {
  if (!hasGps(auth)) {
    throw Problem.of('module_access_denied', 'The GPS module is not granted to you: your geofence edits are not kept.');
  }
  const id = pushed.id;
  await lockGeofenceOrRoute(deps.db, auth.organizationId, id);
  const current = await currentGeofence(deps.db, auth, id);
  const next = withValuesLeftOut(pushed, pushedBase ?? current, ALL_EDITED);
  if (!current) {
    if (next._deleted) return;
    // Edited from a server state that is gone (deleted meanwhile): the server wins, the user is told.
    if (pushedBase !== null) {
      return lostWithRecord(lost, id, recordOf(next), { base: geofenceValues(pushedBase), next: geofenceValues(next) });
    }
    const input = PushedGeofence.parse(next);
    return createdOrMerged(
      async () => {
        if (await geofenceIdTaken(deps.db, id)) throw Problem.of('conflict', `The id ${id} is taken.`);
        if (input.type === 'route') await geofences.createRoute(deps, auth, input, id);
        else await geofences.createGeofence(deps, auth, input, id);
      },
      async () => (await currentGeofence(deps.db, auth, id)) !== undefined,
      () => pushGeofence(deps, auth, pushedBase, pushed, lost),
    );
  }
  if (typeOf(current) !== typeOf(next) && !next._deleted) {
    throw Problem.of('validation_failed', `${id} is a ${typeOf(current)}: it cannot become a ${typeOf(next)}.`);
  }
  const base = knownBase(pushedBase, current, next);
  if (base === null) {
    if (next._deleted) return keptWithoutBase(lost, { id, path: '_deleted' }, { current: false, next: true });
    return keptValuesWithoutBase(lost, id, { current: geofenceValues(current), next: geofenceValues(next) });
  }
  if (next._deleted) {
    const changed = EDITED[typeOf(current)].some((key) => !sameValue(current[key], base[key]));
    if (changed) lost.push({ id, path: '_deleted', attempted: true, kept: false, reason: 'changed_on_server' });
    else if (typeOf(current) === 'route') await geofences.deleteRoute(deps, auth, id);
    else await geofences.deleteGeofence(deps, auth, id);
    return;
  }
  const won = clientChanges(
    lost,
    id,
    { base: geofenceValues(base), current: geofenceValues(current), next: geofenceValues(next) },
    () => true,
  );
  if (won.size === 0) return;
  const values = [...won.entries()].map(([path, attempted]) => ({ path, attempted, kept: current[path] ?? null }));
  await refusedValuesAsLost(lost, id, values, () => {
    // The values as REST would take them (a stop's default tolerance, trimmed names); refused ones are lost.
    const parsed = PushedGeofence.parse({ ...current, ...Object.fromEntries(won) }) as Record<string, unknown>;
    const patch = Object.fromEntries([...won.keys()].map((key) => [key, parsed[key] ?? null]));
    return typeOf(current) === 'route'
      ? geofences.updateRoute(deps, auth, id, patch)
      : geofences.updateGeofence(deps, auth, id, patch);
  });
}

/** Whether a push ended as sent: both deleted, or both live with the same values. */
function sameGeofenceState(master: SyncDocument, pushed: SyncDocument): boolean {
  if (Boolean(master._deleted) !== Boolean(pushed._deleted)) return false;
  if (master._deleted) return true;
  const [a, b] = [geofenceValues(master), geofenceValues(pushed)];
  return typeOf(master) === typeOf(pushed) && [...a.keys()].every((key) => sameValue(a.get(key), b.get(key)));
}

/** Where a pushed geofence or route goes among a push's records: live geofences, routes, deleted geofences. */
function pushRank(document: SyncDocument): number {
  if (typeOf(document) === 'route') return 1;
  return document._deleted ? 2 : 0;
}

/**
 * Geofences and routes (`type: 'geofence' | 'route'`), written offline too: pushed through the GPS
 * services with the REST checks, merged field by field on reconnect.
 */
export function gpsGeofencesSyncSource(deps: GpsDeps): SyncSource {
  return gpsOnly(
    defineSyncCollection<GeofenceChange, GpsDeps>({
      collection: 'gps_geofences',
      pull: {
        changes: (db, auth, checkpoint, limit) => geofenceChanges(db, auth.organizationId, checkpoint, limit),
        gone: (row) => row.type === null,
        present: (_db, _auth, rows) =>
          new Map(rows.map((row) => [row.id, geofenceDocument(row, row.type ?? 'geofence') as SyncDocument])),
      },
      push: {
        deps,
        shape: PushedGeofence,
        noun: 'geofence',
        values: geofenceValues,
        record: (_held, _auth, document) => recordOf(document),
        master: (held, _auth, id, asCaller) =>
          asCaller(async (view) => (hasGps(view) && (await currentGeofence(held.db, view, id))) || tombstone(id)),
        // Geofences made or changed before the routes that name them; deleted ones after those routes.
        order: (rows) => [...rows].sort((a, b) => pushRank(a.newDocumentState) - pushRank(b.newDocumentState)),
        apply: (held, auth, { base, next, lost }) => pushGeofence(held, auth, base, next, lost),
        sameState: sameGeofenceState,
      },
    }),
    (db, organizationId, after, limit) => recordIdsAfter(db, organizationId, 'gps_geofences', after, limit),
    deps.db,
  );
}

/** The least time between two points of a track on replicas: enough for the map, a tenth of a 1 Hz tracker's. */
export const TRACK_POINT_SPACING_MS = 10_000;

/**
 * A point of a track on replicas, compact (an hour holds hundreds): seconds into the hour,
 * latitude, longitude (6 decimals, 0.1 m), speed in km/h and course (or null), 1 for a cell-tower fix.
 */
export type TrackHourPoint = [number, number, number, number | null, number | null, 0 | 1];

const round = (value: number | null, digits: number) =>
  value === null ? null : Math.round(value * 10 ** digits) / 10 ** digits;

/** An hour's points (in fix-time order) at least `TRACK_POINT_SPACING_MS` apart, the first one kept. */
export function thinnedPoints(points: readonly HourPoint[]): TrackHourPoint[] {
  const kept: TrackHourPoint[] = [];
  let last = Number.NEGATIVE_INFINITY;
  for (const [second, lat, lon, speedKmh, course, lbs] of points) {
    if ((second - last) * 1000 < TRACK_POINT_SPACING_MS) continue;
    last = second;
    kept.push([
      Math.round(second),
      round(lat, 6) as number,
      round(lon, 6) as number,
      round(speedKmh, 1),
      round(course, 0),
      lbs ? 1 : 0,
    ]);
  }
  return kept;
}

/**
 * Each object's recent track, read-only on replicas: one document per object and hour
 * (`{id, objectId, hour, points}`), the last `offlineTrackHours` hours (an organization setting);
 * older hours become tombstones.
 */
export const gpsTracksSyncSource = (deps: GpsDeps): SyncSource =>
  gpsOnly(
    defineSyncCollection<TrackHourChange, GpsDeps>({
      collection: 'gps_tracks',
      pull: {
        async changes(db, auth, checkpoint, limit) {
          const { offlineTrackHours } = await getSettings(db, auth.organizationId);
          return trackHourChanges(db, auth.organizationId, checkpoint, limit, offlineTrackHours);
        },
        gone: (row) => row.object_id === null || row.expired,
        async present(db, auth, rows) {
          const hours = rows.map((row) => ({ objectId: row.object_id as string, hour: row.hour as Date }));
          const byHour = await pointsOfHours(db, auth.organizationId, hours);
          return new Map(
            rows.map((row) => {
              const hour = row.hour as Date;
              const document = {
                id: row.id,
                objectId: row.object_id,
                hour: hour.toISOString(),
                points: thinnedPoints(byHour.get(`${row.object_id}:${hour.getTime()}`) ?? []),
                _deleted: false,
              };
              return [row.id, document as SyncDocument];
            }),
          );
        },
      },
    }),
    trackHourIdsAfter,
    deps.db,
  );

/** How long the tombstone of an hour out of the window is kept for replicas to pull. */
const HOUR_TOMBSTONE_DAYS = 8;

/**
 * The `gps.track-hours` task: hours whose points changed are stamped (sent to replicas again, at
 * most once per run), hours out of each organization's window deleted (tombstones, forgotten
 * after 8 days).
 */
export async function keepTrackHours(db: Queryable): Promise<{ stamped: number; expired: number; forgotten: number }> {
  const batch = 5_000;
  let stamped = 0;
  for (let count = batch; count === batch; stamped += count) count = await stampChangedHours(db, batch);
  const expired = await deleteExpiredHours(db, DEFAULT_SETTINGS.offlineTrackHours);
  const forgotten = await pruneHourTombstones(db, HOUR_TOMBSTONE_DAYS);
  return { stamped, expired, forgotten };
}
