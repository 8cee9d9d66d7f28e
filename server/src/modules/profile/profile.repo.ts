import type { HistoryPeriod, ProfileFieldType } from '@shared/api/profile';
import type { Queryable } from '../../platform/db/db';

/** History buckets are cut at midnights of this zone (SPEC: schedules run on Moscow time). */
export const HISTORY_TIME_ZONE = 'Europe/Moscow';

export interface ProfileFieldRow {
  id: string;
  name: string;
  type: ProfileFieldType;
  options: string[] | null;
  position: number;
  created_at: Date;
  deleted_at: Date | null;
}

export interface HistoryBucketRow {
  start: Date;
  average: string;
  count: number;
}

const FIELD_COLUMNS = 'id, name, type, options, position, created_at, deleted_at';

export async function listFields(db: Queryable, organizationId: string): Promise<ProfileFieldRow[]> {
  const { rows } = await db.query<ProfileFieldRow>(
    `SELECT ${FIELD_COLUMNS} FROM profile_fields WHERE organization_id = $1 AND deleted_at IS NULL
      ORDER BY position, id`,
    [organizationId],
  );
  return rows;
}

/** A field of the organization, deleted ones included. */
export async function findField(
  db: Queryable,
  organizationId: string,
  fieldId: string,
): Promise<ProfileFieldRow | undefined> {
  const { rows } = await db.query<ProfileFieldRow>(
    `SELECT ${FIELD_COLUMNS} FROM profile_fields WHERE organization_id = $1 AND id = $2`,
    [organizationId, fieldId],
  );
  return rows[0];
}

/** Locks a field for a change of its definition. */
export async function lockField(
  db: Queryable,
  organizationId: string,
  fieldId: string,
): Promise<ProfileFieldRow | undefined> {
  const { rows } = await db.query<ProfileFieldRow>(
    `SELECT ${FIELD_COLUMNS} FROM profile_fields WHERE organization_id = $1 AND id = $2 FOR UPDATE`,
    [organizationId, fieldId],
  );
  return rows[0];
}

/** Live fields among `ids`, share-locked so their types cannot change while values are written. */
export async function lockFieldsForWriting(
  db: Queryable,
  organizationId: string,
  ids: readonly string[],
): Promise<ProfileFieldRow[]> {
  const { rows } = await db.query<ProfileFieldRow>(
    `SELECT ${FIELD_COLUMNS} FROM profile_fields
      WHERE organization_id = $1 AND id = ANY($2::uuid[]) AND deleted_at IS NULL
      ORDER BY id FOR SHARE`,
    [organizationId, ids],
  );
  return rows;
}

/** Adds a field after the organization's last one. */
export async function insertField(
  db: Queryable,
  field: { id: string; organizationId: string; name: string; type: ProfileFieldType; options: string[] | null },
): Promise<void> {
  await db.query(
    `INSERT INTO profile_fields (id, organization_id, name, type, options, position)
     SELECT $1, $2, $3, $4, $5::jsonb, COALESCE(max(position) + 1, 0) FROM profile_fields WHERE organization_id = $2`,
    [
      field.id,
      field.organizationId,
      field.name,
      field.type,
      field.options === null ? null : JSON.stringify(field.options),
    ],
  );
}

export async function updateField(
  db: Queryable,
  organizationId: string,
  fieldId: string,
  field: { name: string; type: ProfileFieldType; options: string[] | null },
): Promise<void> {
  await db.query(
    'UPDATE profile_fields SET name = $3, type = $4, options = $5::jsonb WHERE organization_id = $1 AND id = $2',
    [organizationId, fieldId, field.name, field.type, field.options === null ? null : JSON.stringify(field.options)],
  );
}

export async function softDeleteField(db: Queryable, organizationId: string, fieldId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE profile_fields SET deleted_at = now() WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL',
    [organizationId, fieldId],
  );
  return rowCount === 1;
}

/** Whether any user has a value or a history entry for the field. */
export async function fieldHasValues(db: Queryable, organizationId: string, fieldId: string): Promise<boolean> {
  const { rows } = await db.query<{ used: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM user_profile_values WHERE organization_id = $1 AND field_id = $2)
         OR EXISTS (SELECT 1 FROM user_field_history WHERE organization_id = $1 AND field_id = $2) AS used`,
    [organizationId, fieldId],
  );
  return rows[0]?.used ?? false;
}

/** The user's values of live fields, in the fields' order. */
export async function listValues(
  db: Queryable,
  organizationId: string,
  userId: string,
): Promise<{ field_id: string; value: unknown }[]> {
  const { rows } = await db.query<{ field_id: string; value: unknown }>(
    `SELECT v.field_id, v.value FROM user_profile_values v
       JOIN profile_fields f ON f.id = v.field_id AND f.deleted_at IS NULL
      WHERE v.organization_id = $1 AND v.user_id = $2
      ORDER BY f.position, f.id`,
    [organizationId, userId],
  );
  return rows;
}

export async function upsertValue(
  db: Queryable,
  value: { organizationId: string; userId: string; fieldId: string; value: unknown },
): Promise<void> {
  await db.query(
    `INSERT INTO user_profile_values (organization_id, user_id, field_id, value) VALUES ($1, $2, $3, $4::jsonb)
     ON CONFLICT (user_id, field_id) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [value.organizationId, value.userId, value.fieldId, JSON.stringify(value.value)],
  );
}

export async function deleteValue(db: Queryable, organizationId: string, userId: string, fieldId: string) {
  await db.query('DELETE FROM user_profile_values WHERE organization_id = $1 AND user_id = $2 AND field_id = $3', [
    organizationId,
    userId,
    fieldId,
  ]);
}

/** Appends one value to a `history-number` field's history (rows are never updated). */
export async function appendHistory(
  db: Queryable,
  entry: { id: string; organizationId: string; userId: string; fieldId: string; value: string; actorUserId: string },
): Promise<void> {
  await db.query(
    `INSERT INTO user_field_history (id, organization_id, user_id, field_id, value, actor_user_id)
     VALUES ($1, $2, $3, $4, $5::numeric, $6)`,
    [entry.id, entry.organizationId, entry.userId, entry.fieldId, entry.value, entry.actorUserId],
  );
}

/**
 * AVG of the history values in buckets of `period`, oldest first. Buckets are cut in Moscow time
 * and their start is returned as the instant of that Moscow midnight.
 */
export async function historyBuckets(
  db: Queryable,
  organizationId: string,
  userId: string,
  fieldId: string,
  range: { period: HistoryPeriod; from?: string; to?: string },
): Promise<HistoryBucketRow[]> {
  const { rows } = await db.query<HistoryBucketRow>(
    `SELECT bucket AT TIME ZONE $4::text AS start, avg(value)::text AS average, count(*)::int AS count
       FROM (SELECT date_trunc($5::text, recorded_at AT TIME ZONE $4::text) AS bucket, value
               FROM user_field_history
              WHERE organization_id = $1 AND user_id = $2 AND field_id = $3
                AND ($6::timestamptz IS NULL OR recorded_at >= $6::timestamptz)
                AND ($7::timestamptz IS NULL OR recorded_at < $7::timestamptz)) history
      GROUP BY bucket
      ORDER BY bucket`,
    [organizationId, userId, fieldId, HISTORY_TIME_ZONE, range.period, range.from ?? null, range.to ?? null],
  );
  return rows;
}
