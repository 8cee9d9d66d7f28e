import type { FieldType } from '@shared/api/forms';
import type { SyncCheckpoint } from '@shared/sync';
import type { Queryable } from '../../platform/db/db';
import { changedSince, checkpointParams, syncColumns } from '../../platform/sync/sync-source';

export interface FormRow {
  id: string;
  name: string;
  qr_generation_enabled: boolean;
  visible_role_ids: string[];
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface FieldRow {
  id: string;
  form_id: string;
  name: string;
  type: FieldType;
  required: boolean;
  options: string[] | null;
  allow_multiple: boolean;
  directory_id: string | null;
  display_column: string | null;
  position: number;
}

export interface StatusRow {
  id: string;
  form_id: string;
  name: string;
  is_initial: boolean;
  is_final: boolean;
  position: number;
}

export interface TransitionRow {
  from_status_id: string;
  to_status_id: string;
}

const FORM_COLUMNS =
  'id, name, qr_generation_enabled, visible_role_ids::text[] AS visible_role_ids, created_at, updated_at, deleted_at';

export async function findForm(db: Queryable, organizationId: string, formId: string): Promise<FormRow | undefined> {
  const { rows } = await db.query<FormRow>(`SELECT ${FORM_COLUMNS} FROM forms WHERE organization_id = $1 AND id = $2`, [
    organizationId,
    formId,
  ]);
  return rows[0];
}

/** Locks a form row for a change of its definition. */
export async function lockForm(db: Queryable, organizationId: string, formId: string): Promise<FormRow | undefined> {
  const { rows } = await db.query<FormRow>(
    `SELECT ${FORM_COLUMNS} FROM forms WHERE organization_id = $1 AND id = $2 FOR UPDATE`,
    [organizationId, formId],
  );
  return rows[0];
}

export async function listForms(db: Queryable, organizationId: string): Promise<FormRow[]> {
  const { rows } = await db.query<FormRow>(
    `SELECT ${FORM_COLUMNS} FROM forms WHERE organization_id = $1 AND deleted_at IS NULL ORDER BY lower(name), id`,
    [organizationId],
  );
  return rows;
}

export async function insertForm(
  db: Queryable,
  form: {
    id: string;
    organizationId: string;
    name: string;
    qr: boolean;
    visibleRoleIds: string[];
    createdBy: string | null;
  },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO forms (id, organization_id, name, qr_generation_enabled, visible_role_ids, created_by)
     VALUES ($1, $2, $3, $4, $5::uuid[], $6) ON CONFLICT (id) DO NOTHING`,
    [form.id, form.organizationId, form.name, form.qr, form.visibleRoleIds, form.createdBy],
  );
  return rowCount === 1;
}

export async function updateForm(
  db: Queryable,
  organizationId: string,
  formId: string,
  patch: { name?: string; qr?: boolean; visibleRoleIds?: string[] },
): Promise<void> {
  await db.query(
    `UPDATE forms SET name = COALESCE($3, name), qr_generation_enabled = COALESCE($4, qr_generation_enabled),
       visible_role_ids = COALESCE($5::uuid[], visible_role_ids), updated_at = now()
     WHERE organization_id = $1 AND id = $2`,
    [organizationId, formId, patch.name ?? null, patch.qr ?? null, patch.visibleRoleIds ?? null],
  );
}

/**
 * SQL: whether user `$<userParam>` is an assignee of a live task on the form aliased `alias`.
 * Migration 0009 sends a restricted form again whenever that can change.
 */
export function assignedOnForm(alias: string, userParam: number): string {
  return `EXISTS (SELECT 1 FROM tasks t JOIN task_assignees a ON a.task_id = t.id
                   WHERE t.organization_id = ${alias}.organization_id AND t.form_id = ${alias}.id
                     AND t.deleted_at IS NULL AND a.user_id = $${userParam})`;
}

export async function isAssignedOnForm(
  db: Queryable,
  organizationId: string,
  formId: string,
  userId: string,
): Promise<boolean> {
  const { rows } = await db.query<{ assigned: boolean }>(
    `SELECT ${assignedOnForm('f', 3)} AS assigned FROM forms f WHERE f.organization_id = $1 AND f.id = $2`,
    [organizationId, formId, userId],
  );
  return rows[0]?.assigned ?? false;
}

export async function touchForm(db: Queryable, organizationId: string, formId: string): Promise<void> {
  await db.query('UPDATE forms SET updated_at = now() WHERE organization_id = $1 AND id = $2', [
    organizationId,
    formId,
  ]);
}

/** The organization's deleted forms, most recently deleted first, with how many live tasks each has. */
export async function listDeletedForms(db: Queryable, organizationId: string) {
  const { rows } = await db.query<{ id: string; name: string; deleted_at: Date; task_count: string }>(
    `SELECT f.id, f.name, f.deleted_at,
            (SELECT count(*) FROM tasks t WHERE t.form_id = f.id AND t.deleted_at IS NULL) AS task_count
       FROM forms f
      WHERE f.organization_id = $1 AND f.deleted_at IS NOT NULL
      ORDER BY f.deleted_at DESC, f.id DESC`,
    [organizationId],
  );
  return rows;
}

export async function restoreForm(db: Queryable, organizationId: string, formId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE forms SET deleted_at = NULL, updated_at = now() WHERE organization_id = $1 AND id = $2 AND deleted_at IS NOT NULL',
    [organizationId, formId],
  );
  return rowCount === 1;
}

export async function softDeleteForm(db: Queryable, organizationId: string, formId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE forms SET deleted_at = now(), updated_at = now() WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL',
    [organizationId, formId],
  );
  return rowCount === 1;
}

export async function listFields(
  db: Queryable,
  organizationId: string,
  formIds: readonly string[],
): Promise<FieldRow[]> {
  const { rows } = await db.query<FieldRow>(
    `SELECT id, form_id, name, type, required, options, allow_multiple, directory_id, display_column, position
       FROM form_fields WHERE organization_id = $1 AND form_id = ANY($2::uuid[]) AND deleted_at IS NULL
      ORDER BY position, id`,
    [organizationId, formIds],
  );
  return rows;
}

/** Form of a field id anywhere (a client-chosen id must not collide with another form's field). */
export async function fieldOwner(db: Queryable, fieldId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ form_id: string }>('SELECT form_id FROM form_fields WHERE id = $1', [fieldId]);
  return rows[0]?.form_id;
}

export async function upsertField(
  db: Queryable,
  organizationId: string,
  formId: string,
  field: FieldRow,
): Promise<void> {
  await db.query(
    `INSERT INTO form_fields (id, organization_id, form_id, name, type, required, options, allow_multiple, directory_id, display_column, position)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, type = EXCLUDED.type, required = EXCLUDED.required,
       options = EXCLUDED.options, allow_multiple = EXCLUDED.allow_multiple, directory_id = EXCLUDED.directory_id,
       display_column = EXCLUDED.display_column, position = EXCLUDED.position, deleted_at = NULL
     WHERE form_fields.form_id = EXCLUDED.form_id`,
    [
      field.id,
      organizationId,
      formId,
      field.name,
      field.type,
      field.required,
      field.options === null ? null : JSON.stringify(field.options),
      field.allow_multiple,
      field.directory_id,
      field.display_column,
      field.position,
    ],
  );
}

export async function removeFieldsExcept(
  db: Queryable,
  organizationId: string,
  formId: string,
  keep: readonly string[],
) {
  await db.query(
    `UPDATE form_fields SET deleted_at = now()
      WHERE organization_id = $1 AND form_id = $2 AND deleted_at IS NULL AND NOT (id = ANY($3::uuid[]))`,
    [organizationId, formId, keep],
  );
}

/** Whether any task of the form holds a value for the field. */
export async function fieldHasValues(
  db: Queryable,
  organizationId: string,
  formId: string,
  fieldId: string,
): Promise<boolean> {
  const { rows } = await db.query<{ used: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM tasks WHERE organization_id = $1 AND form_id = $2
                      AND fields ? $3::text AND fields -> $3::text <> 'null'::jsonb) AS used`,
    [organizationId, formId, fieldId],
  );
  return rows[0]?.used ?? false;
}

/** A live status of the organization's forms. */
export async function findStatus(
  db: Queryable,
  organizationId: string,
  statusId: string,
): Promise<StatusRow | undefined> {
  const { rows } = await db.query<StatusRow>(
    `SELECT id, form_id, name, is_initial, is_final, position FROM form_statuses
      WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL`,
    [organizationId, statusId],
  );
  return rows[0];
}

export async function listStatuses(
  db: Queryable,
  organizationId: string,
  formIds: readonly string[],
): Promise<StatusRow[]> {
  const { rows } = await db.query<StatusRow>(
    `SELECT id, form_id, name, is_initial, is_final, position FROM form_statuses
      WHERE organization_id = $1 AND form_id = ANY($2::uuid[]) AND deleted_at IS NULL ORDER BY position, id`,
    [organizationId, formIds],
  );
  return rows;
}

export async function listTransitions(
  db: Queryable,
  organizationId: string,
  formIds: readonly string[],
): Promise<(TransitionRow & { form_id: string })[]> {
  const { rows } = await db.query<TransitionRow & { form_id: string }>(
    `SELECT form_id, from_status_id, to_status_id FROM form_transitions
      WHERE organization_id = $1 AND form_id = ANY($2::uuid[]) ORDER BY from_status_id, to_status_id`,
    [organizationId, formIds],
  );
  return rows;
}

export async function statusOwner(db: Queryable, statusId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ form_id: string }>('SELECT form_id FROM form_statuses WHERE id = $1', [statusId]);
  return rows[0]?.form_id;
}

export async function statusesInUse(
  db: Queryable,
  organizationId: string,
  statusIds: readonly string[],
): Promise<string[]> {
  const { rows } = await db.query<{ status_id: string }>(
    'SELECT DISTINCT status_id FROM tasks WHERE organization_id = $1 AND status_id = ANY($2::uuid[]) AND deleted_at IS NULL',
    [organizationId, statusIds],
  );
  return rows.map((row) => row.status_id);
}

/** Replaces the form's statuses and transitions (removed statuses are kept as deleted for history). */
export async function replaceWorkflow(
  db: Queryable,
  organizationId: string,
  formId: string,
  statuses: readonly StatusRow[],
  transitions: readonly TransitionRow[],
): Promise<void> {
  const keep = statuses.map((status) => status.id);
  await db.query('DELETE FROM form_transitions WHERE organization_id = $1 AND form_id = $2', [organizationId, formId]);
  await db.query(
    `UPDATE form_statuses SET deleted_at = now(), is_initial = false
      WHERE organization_id = $1 AND form_id = $2 AND deleted_at IS NULL AND NOT (id = ANY($3::uuid[]))`,
    [organizationId, formId, keep],
  );
  // The initial flag moves in two steps so the one-initial index holds at every statement.
  await db.query('UPDATE form_statuses SET is_initial = false WHERE organization_id = $1 AND form_id = $2', [
    organizationId,
    formId,
  ]);
  for (const status of statuses) {
    await db.query(
      `INSERT INTO form_statuses (id, organization_id, form_id, name, is_initial, is_final, position)
       VALUES ($1, $2, $3, $4, false, $5, $6)
       ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, is_final = EXCLUDED.is_final, position = EXCLUDED.position,
         deleted_at = NULL
       WHERE form_statuses.form_id = EXCLUDED.form_id`,
      [status.id, organizationId, formId, status.name, status.is_final, status.position],
    );
  }
  const initial = statuses.find((status) => status.is_initial);
  await db.query('UPDATE form_statuses SET is_initial = true WHERE organization_id = $1 AND id = $2', [
    organizationId,
    initial?.id,
  ]);
  for (const transition of transitions) {
    await db.query(
      `INSERT INTO form_transitions (organization_id, form_id, from_status_id, to_status_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING`,
      [organizationId, formId, transition.from_status_id, transition.to_status_id],
    );
  }
}

/** Where a record stands in commit order, as a pull reads it. */
interface SyncPosition {
  sync_xid: string;
  sync_seq: string;
}

/** Forms changed after `checkpoint`, in commit order, each with whether `userId` is assigned on it. */
export async function formChanges(
  db: Queryable,
  organizationId: string,
  userId: string,
  checkpoint: SyncCheckpoint | null,
  limit: number,
): Promise<(FormRow & SyncPosition & { assigned: boolean })[]> {
  const { rows } = await db.query<FormRow & SyncPosition & { assigned: boolean }>(
    `SELECT f.id, f.name, f.qr_generation_enabled, f.visible_role_ids::text[] AS visible_role_ids, f.created_at,
            f.updated_at, f.deleted_at, ${assignedOnForm('f', 5)} AS assigned, ${syncColumns('f')}
       FROM forms f WHERE f.organization_id = $1 AND ${changedSince('f', 2, 3)} ORDER BY f.sync_xid, f.sync_seq LIMIT $4`,
    [organizationId, ...checkpointParams(checkpoint), limit, userId],
  );
  return rows;
}

/** A status changed since a checkpoint, with its form's restriction and whether the user is assigned on it. */
export interface StatusChange extends SyncPosition {
  id: string;
  form_id: string;
  name: string;
  is_initial: boolean;
  is_final: boolean;
  position: number;
  deleted_at: Date | null;
  visible_role_ids: string[];
  assigned: boolean;
}

/** Statuses changed after `checkpoint`, in commit order. */
export async function statusChanges(
  db: Queryable,
  organizationId: string,
  userId: string,
  checkpoint: SyncCheckpoint | null,
  limit: number,
): Promise<StatusChange[]> {
  const { rows } = await db.query<StatusChange>(
    `SELECT s.id, s.form_id, s.name, s.is_initial, s.is_final, s.position, s.deleted_at,
            f.visible_role_ids::text[] AS visible_role_ids, ${assignedOnForm('f', 5)} AS assigned, ${syncColumns('s')}
       FROM form_statuses s JOIN forms f ON f.id = s.form_id
      WHERE s.organization_id = $1 AND ${changedSince('s', 2, 3)} ORDER BY s.sync_xid, s.sync_seq LIMIT $4`,
    [organizationId, ...checkpointParams(checkpoint), limit, userId],
  );
  return rows;
}
