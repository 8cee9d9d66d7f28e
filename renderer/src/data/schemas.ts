import type { Form } from '@shared/api/forms';
import type { RxJsonSchema } from 'rxdb';

/**
 * RxDB schemas of the replicated collections. Shapes follow the REST contract in `shared/src/api/`
 * (the same presenters serve both). A record the user may no longer see arrives as a bare
 * tombstone `{id, _deleted: true}`: only `id` is required, except indexed fields (IndexedDB
 * indexes need them), which tombstones get from `tombstoneDefaults`.
 */
function schema<T>(title: string, properties: Record<string, unknown>): RxJsonSchema<T> {
  return {
    title,
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: { id: { type: 'string', maxLength: 64 }, ...properties },
    required: ['id'],
  } as unknown as RxJsonSchema<T>;
}

const text = { type: 'string' };
const flag = { type: 'boolean' };
const list = { type: 'array' };
const object = { type: 'object' };
const nullableText = { type: ['string', 'null'] };
/** Indexed strings need a length: ids (UUIDs) and ISO timestamps. */
const key = { type: 'string', maxLength: 64 };
const timestamp = { type: 'string', maxLength: 40 };

/**
 * A form as the replica holds it: the REST form, and `deleted` once deleted on the server (its
 * tasks stay readable and need its definition; it takes no new tasks). Replicas written before
 * deleted forms were sent lack the field: not deleted.
 */
export type FormDocument = Form & { deleted?: boolean };

/** A directory row as the replica holds it: the REST row with its directory. */
export interface RowDocument {
  id: string;
  directoryId: string;
  parentId: string | null;
  /** Order among siblings; a row moved offline holds a value between its neighbours'. */
  position: number;
  cells: (string | number | boolean | null)[];
  parentRowIds: string[];
  updatedAt: string;
}

export interface TaskDocument {
  id: string;
  formId?: string;
  statusId?: string;
  title?: string;
  description?: string;
  fields?: Record<string, unknown>;
  labels?: Record<string, { id: string; label: string; deleted: boolean }[]>;
  assignees?: {
    userId: string;
    source: string;
    delegated_from_user_id: string | null;
    pending_review: boolean;
    addedAt: string;
  }[];
  createdBy?: string | null;
  createdAt?: string;
  updatedAt?: string;
}

export const collectionSchemas = {
  forms: schema('forms', {
    name: text,
    fields: list,
    statuses: list,
    transitions: list,
    qr_generation_enabled: flag,
    visibleRoleIds: list,
    createdAt: text,
    updatedAt: text,
  }),
  statuses: schema('statuses', { formId: text, name: text, initial: flag, final: flag, position: { type: 'number' } }),
  // Version 1: indexes for the task list, newest first, one page at a time (all, one form, one status).
  tasks: {
    ...schema<TaskDocument>('tasks', {
      formId: key,
      statusId: key,
      title: text,
      description: text,
      fields: object,
      labels: object,
      assignees: list,
      createdBy: nullableText,
      createdAt: text,
      updatedAt: timestamp,
    }),
    version: 1,
    indexes: ['updatedAt', ['formId', 'updatedAt'], ['statusId', 'updatedAt']],
    required: ['id', 'formId', 'statusId', 'updatedAt'],
  },
  directories: schema('directories', {
    name: text,
    columns: list,
    parentDirectoryId: nullableText,
    parentRowIds: list,
    tree_display_column_index: { type: 'number' },
    treeColumnIndex: { type: ['number', 'null'] },
    createdAt: text,
    updatedAt: text,
  }),
  directory_rows: schema<RowDocument>('directory_rows', {
    directoryId: text,
    parentId: nullableText,
    position: { type: 'number' },
    cells: list,
    parentRowIds: list,
    updatedAt: text,
  }),
  users: schema('users', { email: text, name: text, isAdmin: flag, status: text, locale: text, roleIds: list }),
  roles: schema('roles', { name: text, memberIds: list }),
  // GPS objects with their last position (`type: 'object'`) and their groups (`type: 'group'`),
  // pulled by users with GPS module access only (read-only). Version 1: groups came in.
  gps_objects: {
    ...schema('gps_objects', {
      type: text,
      name: text,
      kind: text,
      trackerId: text,
      groupId: nullableText,
      settings: object,
      last_seen: nullableText,
      last_gps_fix_at: nullableText,
      gpsLost: flag,
      lastPosition: { type: ['object', 'null'] },
      speedKmh: { type: ['number', 'null'] },
      createdAt: text,
      updatedAt: text,
    }),
    version: 1,
  },
  // GPS geofences (`type: 'geofence'`) and routes (`type: 'route'`), for GPS users only; written
  // offline too, merged on the server field by field.
  gps_geofences: schema('gps_geofences', {
    type: text,
    name: text,
    geometry: object,
    color: nullableText,
    objectIds: list,
    stops: list,
    createdAt: text,
    updatedAt: text,
  }),
  // Each object's recent track, one document per object and hour (UTC), for GPS users only
  // (read-only): `points` are [seconds into the hour, lat, lon, speed km/h, course, 1 if cell-tower],
  // at least 10 s apart; hours older than the organization's window arrive as tombstones.
  gps_tracks: {
    ...schema('gps_tracks', { objectId: key, hour: timestamp, points: list }),
    indexes: [['objectId', 'hour']],
    required: ['id', 'objectId', 'hour'],
  },
} as const;

export type CollectionName = keyof typeof collectionSchemas;

/** Values of a collection's required fields that a bare tombstone from the server lacks. */
export const tombstoneDefaults: Partial<Record<CollectionName, Record<string, unknown>>> = {
  tasks: { formId: '', statusId: '', updatedAt: '' },
  gps_tracks: { objectId: '', hour: '' },
};

/**
 * How documents of an earlier schema version become the current one, per collection: a replica
 * written by an earlier release is migrated when it opens, unpushed edits included. Changing a
 * schema above means raising its `version` and adding the step here (RxDB refuses to open a
 * replica whose stored schema differs from the code's at the same version);
 * `test/replica-upgrade.test.ts` opens a replica of every released schema set.
 */
export const collectionMigrations: Partial<
  Record<CollectionName, Record<number, (document: Record<string, unknown>) => Record<string, unknown> | null>>
> = {
  // 0 → 1: indexes for the list; tombstones get the indexed fields they lacked.
  tasks: { 1: (document) => ({ ...tombstoneDefaults.tasks, ...document }) },
  // 0 → 1: every document held was an object.
  gps_objects: { 1: (document) => ({ type: 'object', ...document }) },
};

/** Collections the replica writes to; the others arrive from the server only. */
export const WRITABLE: readonly CollectionName[] = ['tasks', 'directory_rows', 'gps_geofences'];
