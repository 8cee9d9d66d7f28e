import type { SyncCheckpoint } from '@shared/sync';
import type { Queryable } from '../../platform/db/db';
import { changedSince, checkpointParams, syncColumns } from '../../platform/sync/sync-source';

export interface TaskRow {
  id: string;
  form_id: string;
  status_id: string;
  title: string;
  description: string;
  fields: Record<string, unknown>;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  /** updated_at in microseconds since the epoch (exact, for cursors). */
  updated_us: string;
}

export interface AssigneeRow {
  task_id: string;
  user_id: string;
  source: string;
  delegated_from_user_id: string | null;
  pending_review: boolean;
  added_at: Date;
}

/**
 * What an actor may see of tasks, as the parameters $1..$5 of every visible-task query
 * (`tasks.policy.ts` `taskVisibility` makes it; `canSeeTask` is the same rule in code).
 */
export interface Visibility {
  organizationId: string;
  /** The member whose roles and assignments open tasks to them; null for bots and automations. */
  userId: string | null;
  /** Sees every task of the organization (administrators, automations, bots whose key names no forms). */
  seesAll: boolean;
  roleIds: readonly string[];
  /** Forms whose tasks a bot's key reaches; null for others. */
  formIds: readonly string[] | null;
}

/** The columns a task is presented from (`TaskRow`), of `tasks t`. */
export const TASK_COLUMNS = `t.id, t.form_id, t.status_id, t.title, t.description, t.fields, t.created_by, t.created_at, t.updated_at,
  t.deleted_at, (extract(epoch FROM t.updated_at) * 1000000)::bigint::text AS updated_us`;

/**
 * The one SQL form of task visibility, for `tasks t` and the parameters $1..$5 of `visibilityParams`:
 * everything to those who see all, the forms in a bot's scope, and to a member the tasks of forms
 * open to everyone or to one of their roles and the tasks they are assigned to.
 */
const VISIBLE_TO = `($3::boolean
  OR ($5::uuid[] IS NOT NULL AND t.form_id = ANY($5::uuid[]))
  OR ($2::uuid IS NOT NULL AND (
    EXISTS (SELECT 1 FROM forms f WHERE f.id = t.form_id
              AND (f.visible_role_ids = '{}' OR f.visible_role_ids && $4::uuid[]))
    OR EXISTS (SELECT 1 FROM task_assignees a WHERE a.task_id = t.id AND a.user_id = $2::uuid))))`;
const SHARED = `t.organization_id = $1 AND ${VISIBLE_TO}`;
const VISIBLE = `t.deleted_at IS NULL AND ${SHARED}`;

function visibilityParams(v: Visibility): unknown[] {
  return [v.organizationId, v.userId, v.seesAll, v.roleIds, v.formIds];
}

export async function findVisibleTask(db: Queryable, v: Visibility, taskId: string): Promise<TaskRow | undefined> {
  const { rows } = await db.query<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks t WHERE ${VISIBLE} AND t.id = $6`, [
    ...visibilityParams(v),
    taskId,
  ]);
  return rows[0];
}

/**
 * Holds the form's workflow for the rest of the transaction: an administrator replacing it (which
 * takes the form for update) waits, so a status checked here is not removed before this commits.
 */
export async function holdWorkflow(db: Queryable, organizationId: string, formId: string): Promise<void> {
  await db.query('SELECT 1 FROM forms WHERE organization_id = $1 AND id = $2 FOR KEY SHARE', [organizationId, formId]);
}

/** The task, for update, its form's workflow held first (`holdWorkflow`; the form, then the task). */
export async function lockTask(db: Queryable, organizationId: string, taskId: string): Promise<TaskRow | undefined> {
  await db.query(
    `SELECT 1 FROM forms f JOIN tasks t ON t.form_id = f.id
      WHERE t.organization_id = $1 AND t.id = $2 FOR KEY SHARE OF f`,
    [organizationId, taskId],
  );
  const { rows } = await db.query<TaskRow>(
    `SELECT ${TASK_COLUMNS} FROM tasks t WHERE t.organization_id = $1 AND t.id = $2 AND t.deleted_at IS NULL FOR UPDATE`,
    [organizationId, taskId],
  );
  return rows[0];
}

export interface TaskFilter {
  formId?: string;
  statusId?: string;
  assigneeId?: string;
  updatedSince?: string;
  /** [updated_us, id] of the last task of the previous page. */
  after?: [string, string];
  limit: number;
}

export async function listVisibleTasks(db: Queryable, v: Visibility, filter: TaskFilter): Promise<TaskRow[]> {
  const { rows } = await db.query<TaskRow>(
    `SELECT ${TASK_COLUMNS} FROM tasks t
      WHERE ${VISIBLE}
        AND ($6::uuid IS NULL OR t.form_id = $6)
        AND ($7::uuid IS NULL OR t.status_id = $7)
        AND ($8::uuid IS NULL OR EXISTS (SELECT 1 FROM task_assignees a WHERE a.task_id = t.id AND a.user_id = $8))
        AND ($9::timestamptz IS NULL OR t.updated_at >= $9)
        AND ($10::bigint IS NULL OR (t.updated_at, t.id) < ('epoch'::timestamptz + $10::bigint * interval '1 microsecond', $11::uuid))
      ORDER BY t.updated_at DESC, t.id DESC LIMIT $12`,
    [
      ...visibilityParams(v),
      filter.formId ?? null,
      filter.statusId ?? null,
      filter.assigneeId ?? null,
      filter.updatedSince ?? null,
      filter.after?.[0] ?? null,
      filter.after?.[1] ?? null,
      filter.limit,
    ],
  );
  return rows;
}

/** How many tasks the caller can see (those their replica receives). */
export async function countVisibleTasks(db: Queryable, v: Visibility): Promise<number> {
  const { rows } = await db.query<{ count: string }>(
    `SELECT count(*) AS count FROM tasks t WHERE ${VISIBLE}`,
    visibilityParams(v),
  );
  return Number(rows[0]?.count ?? 0);
}

/** Visible tasks whose title or description contains `pattern` (an ILIKE pattern), best matches first. */
export async function searchVisibleTasks(
  db: Queryable,
  v: Visibility,
  text: string,
  limit: number,
): Promise<TaskRow[]> {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const { rows } = await db.query<TaskRow>(
    `SELECT ${TASK_COLUMNS} FROM tasks t
      WHERE ${VISIBLE} AND (t.title ILIKE $6 OR t.description ILIKE $6)
      ORDER BY greatest(similarity(t.title, $7), similarity(t.description, $7)) DESC, t.updated_at DESC, t.id
      LIMIT $8`,
    [...visibilityParams(v), pattern, text, limit],
  );
  return rows;
}

export async function visibleTasksByIds(db: Queryable, v: Visibility, ids: readonly string[]): Promise<TaskRow[]> {
  const { rows } = await db.query<TaskRow>(
    `SELECT ${TASK_COLUMNS} FROM tasks t WHERE ${VISIBLE} AND t.id = ANY($6::uuid[])`,
    [...visibilityParams(v), ids],
  );
  return rows;
}

export async function insertTask(
  db: Queryable,
  task: {
    id: string;
    organizationId: string;
    formId: string;
    statusId: string;
    title: string;
    description: string;
    fields: Record<string, unknown>;
    createdBy: string | null;
  },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO tasks (id, organization_id, form_id, status_id, title, description, fields, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
    [
      task.id,
      task.organizationId,
      task.formId,
      task.statusId,
      task.title,
      task.description,
      JSON.stringify(task.fields),
      task.createdBy,
    ],
  );
  return rowCount === 1;
}

export async function updateTask(
  db: Queryable,
  organizationId: string,
  taskId: string,
  patch: { title: string; description: string; fields: Record<string, unknown>; statusId: string },
): Promise<void> {
  await db.query(
    `UPDATE tasks SET title = $3, description = $4, fields = $5, status_id = $6, updated_at = now()
      WHERE organization_id = $1 AND id = $2`,
    [organizationId, taskId, patch.title, patch.description, JSON.stringify(patch.fields), patch.statusId],
  );
}

/**
 * A deleted task the caller would see were it not deleted, for update (its form's workflow held
 * first, as `lockTask` holds it).
 */
export async function lockDeletedTask(db: Queryable, v: Visibility, taskId: string): Promise<TaskRow | undefined> {
  await db.query(
    `SELECT 1 FROM forms f JOIN tasks t ON t.form_id = f.id
      WHERE t.organization_id = $1 AND t.id = $2 FOR KEY SHARE OF f`,
    [v.organizationId, taskId],
  );
  const { rows } = await db.query<TaskRow>(
    `SELECT ${TASK_COLUMNS} FROM tasks t WHERE t.deleted_at IS NOT NULL AND ${SHARED} AND t.id = $6 FOR UPDATE OF t`,
    [...visibilityParams(v), taskId],
  );
  return rows[0];
}

/** Whether the organization has a task with this id, in any state (deleted, hidden, live). */
export async function taskExists(db: Queryable, organizationId: string, taskId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM tasks WHERE organization_id = $1 AND id = $2', [
    organizationId,
    taskId,
  ]);
  return rows.length > 0;
}

export async function restoreTask(db: Queryable, organizationId: string, taskId: string): Promise<void> {
  await db.query('UPDATE tasks SET deleted_at = NULL, updated_at = now() WHERE organization_id = $1 AND id = $2', [
    organizationId,
    taskId,
  ]);
}

export interface DeletedTaskRow {
  id: string;
  title: string;
  form_id: string;
  form_name: string;
  deleted_at: Date;
  /** deleted_at in microseconds since the epoch (exact, for cursors). */
  deleted_us: string;
  deleted_by_id: string | null;
  deleted_by_name: string | null;
}

/** The organization's deleted tasks, most recently deleted first, after `after` ([deleted_us, id]). */
export async function listDeletedTasks(
  db: Queryable,
  organizationId: string,
  page: { after?: [string, string]; limit: number },
): Promise<DeletedTaskRow[]> {
  const { rows } = await db.query<DeletedTaskRow>(
    `SELECT t.id, t.title, t.form_id, f.name AS form_name, t.deleted_at,
            (extract(epoch FROM t.deleted_at) * 1000000)::bigint::text AS deleted_us,
            u.id AS deleted_by_id, u.name AS deleted_by_name
       FROM tasks t
       JOIN forms f ON f.id = t.form_id
       LEFT JOIN LATERAL (
         SELECT a.actor_user_id FROM task_audit_log a
          WHERE a.organization_id = t.organization_id AND a.task_id = t.id AND a.action = 'deleted'
          ORDER BY a.created_at DESC, a.id DESC LIMIT 1) d ON true
       LEFT JOIN users u ON u.id = d.actor_user_id
      WHERE t.organization_id = $1 AND t.deleted_at IS NOT NULL
        AND ($2::bigint IS NULL OR ((extract(epoch FROM t.deleted_at) * 1000000)::bigint, t.id) < ($2::bigint, $3::uuid))
      ORDER BY t.deleted_at DESC, t.id DESC
      LIMIT $4`,
    [organizationId, page.after?.[0] ?? null, page.after?.[1] ?? null, page.limit],
  );
  return rows;
}

export async function softDeleteTask(db: Queryable, organizationId: string, taskId: string): Promise<void> {
  await db.query('UPDATE tasks SET deleted_at = now(), updated_at = now() WHERE organization_id = $1 AND id = $2', [
    organizationId,
    taskId,
  ]);
}

export async function listAssignees(
  db: Queryable,
  organizationId: string,
  taskIds: readonly string[],
): Promise<AssigneeRow[]> {
  const { rows } = await db.query<AssigneeRow>(
    `SELECT task_id, user_id, source, delegated_from_user_id, pending_review, added_at FROM task_assignees
      WHERE organization_id = $1 AND task_id = ANY($2::uuid[]) ORDER BY added_at, user_id`,
    [organizationId, taskIds],
  );
  return rows;
}

/** Inserts assignees that are not there yet; returns the user ids actually added. */
export async function insertAssignees(
  db: Queryable,
  organizationId: string,
  taskId: string,
  userIds: readonly string[],
  source: string,
): Promise<string[]> {
  if (userIds.length === 0) return [];
  const { rows } = await db.query<{ user_id: string }>(
    `INSERT INTO task_assignees (organization_id, task_id, user_id, source)
     SELECT $1, $2, unnest($3::uuid[]), $4 ON CONFLICT DO NOTHING RETURNING user_id`,
    [organizationId, taskId, userIds, source],
  );
  return rows.map((row) => row.user_id);
}

export async function deleteAssignees(
  db: Queryable,
  organizationId: string,
  taskId: string,
  userIds: readonly string[],
  onlySource?: string,
): Promise<string[]> {
  if (userIds.length === 0) return [];
  const { rows } = await db.query<{ user_id: string }>(
    `DELETE FROM task_assignees WHERE organization_id = $1 AND task_id = $2 AND user_id = ANY($3::uuid[])
       AND ($4::text IS NULL OR source = $4) RETURNING user_id`,
    [organizationId, taskId, userIds, onlySource ?? null],
  );
  return rows.map((row) => row.user_id);
}

export async function insertFieldHistory(
  db: Queryable,
  rows: {
    id: string;
    organizationId: string;
    taskId: string;
    fieldId: string;
    oldValue: unknown;
    newValue: unknown;
    actorUserId: string | null;
    botId: string | null;
    automationId: string | null;
  }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO field_history (id, organization_id, task_id, field_id, old_value, new_value, actor_user_id, bot_id,
                                automation_id)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::jsonb[], $6::jsonb[], $7::uuid[], $8::uuid[],
                          $9::uuid[])`,
    [
      rows.map((r) => r.id),
      rows.map((r) => r.organizationId),
      rows.map((r) => r.taskId),
      rows.map((r) => r.fieldId),
      rows.map((r) => JSON.stringify(r.oldValue ?? null)),
      rows.map((r) => JSON.stringify(r.newValue ?? null)),
      rows.map((r) => r.actorUserId),
      rows.map((r) => r.botId),
      rows.map((r) => r.automationId),
    ],
  );
}

export interface AuditEntry {
  id: string;
  organizationId: string;
  taskId: string;
  action: string;
  actorUserId: string | null;
  botId: string | null;
  automationId: string | null;
  details: object;
}

export async function insertAudits(db: Queryable, entries: readonly AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db.query(
    `INSERT INTO task_audit_log (id, organization_id, task_id, action, actor_user_id, bot_id, automation_id, details)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::uuid[], $6::uuid[], $7::uuid[], $8::jsonb[])`,
    [
      entries.map((e) => e.id),
      entries.map((e) => e.organizationId),
      entries.map((e) => e.taskId),
      entries.map((e) => e.action),
      entries.map((e) => e.actorUserId),
      entries.map((e) => e.botId),
      entries.map((e) => e.automationId),
      entries.map((e) => JSON.stringify(e.details)),
    ],
  );
}

export async function recentViews(db: Queryable, v: Visibility, limit: number) {
  const { rows } = await db.query<TaskRow & { viewed_at: Date }>(
    `SELECT ${TASK_COLUMNS}, tv.viewed_at FROM task_views tv JOIN tasks t ON t.id = tv.task_id
      WHERE tv.organization_id = $1 AND tv.user_id = $2 AND ${VISIBLE}
      ORDER BY tv.viewed_at DESC, t.id LIMIT $6`,
    [...visibilityParams(v), limit],
  );
  return rows;
}

/** A review of changes made while the assignee was away that is due now (they are back). */
const REVIEW_DUE = '(a.pending_review AND (a.review_after IS NULL OR a.review_after <= now()))';

/**
 * Tasks needing the caller: assigned (not in a final status), mentions since their last view, and
 * tasks to review after an absence once they are back (closed ones too).
 */
export async function inbox(db: Queryable, v: Visibility, limit: number) {
  const { rows } = await db.query<TaskRow & { reason: string; at: Date }>(
    `SELECT * FROM (
       SELECT ${TASK_COLUMNS},
              CASE WHEN ${REVIEW_DUE} THEN 'delegation_review'
                   WHEN a.delegated_from_user_id IS NOT NULL THEN 'delegation' ELSE 'assigned' END AS reason,
              CASE WHEN ${REVIEW_DUE} THEN greatest(a.added_at, a.review_after) ELSE a.added_at END AS at
         FROM task_assignees a JOIN tasks t ON t.id = a.task_id
         JOIN form_statuses s ON s.id = t.status_id
        WHERE a.organization_id = $1 AND a.user_id = $2 AND (NOT s.is_final OR ${REVIEW_DUE}) AND ${VISIBLE}
       UNION ALL
       SELECT ${TASK_COLUMNS}, 'mentioned' AS reason, m.at
         FROM (SELECT task_id, max(created_at) AS at FROM task_messages
                WHERE organization_id = $1 AND $2 = ANY(mentioned_user_ids) GROUP BY task_id) m
         JOIN tasks t ON t.id = m.task_id
         LEFT JOIN task_views tv ON tv.task_id = t.id AND tv.user_id = $2
        WHERE (tv.viewed_at IS NULL OR tv.viewed_at < m.at) AND ${VISIBLE}
     ) items ORDER BY at DESC, id LIMIT $6`,
    [...visibilityParams(v), limit],
  );
  return rows;
}

export async function tasksWithUserReference(db: Queryable, organizationId: string, entry: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM tasks WHERE organization_id = $1 AND deleted_at IS NULL AND strpos(fields::text, $2) > 0`,
    [organizationId, `"${entry}"`],
  );
  return rows.map((row) => row.id);
}

export async function hasTasks(db: Queryable, organizationId: string): Promise<boolean> {
  const { rows } = await db.query<{ found: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM tasks WHERE organization_id = $1 AND deleted_at IS NULL) AS found',
    [organizationId],
  );
  return rows[0]?.found ?? false;
}

// ---- idempotency ----

/**
 * Claims an idempotency key for this request. If another request holds it (even one still
 * running), waits for it and returns what it stored; a rolled-back holder leaves the key free.
 */
export async function claimIdempotencyKey(
  db: Queryable,
  organizationId: string,
  key: string,
  requestHash: string,
): Promise<{ claimed: true } | { claimed: false; requestHash: string; status: number | null; response: unknown }> {
  const inserted = await db.query(
    `INSERT INTO idempotency_keys (organization_id, key, request_hash) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id, key) DO NOTHING RETURNING key`,
    [organizationId, key, requestHash],
  );
  if (inserted.rowCount === 1) return { claimed: true };
  const { rows } = await db.query<{ request_hash: string; status: number | null; response: unknown }>(
    'SELECT request_hash, status, response FROM idempotency_keys WHERE organization_id = $1 AND key = $2',
    [organizationId, key],
  );
  const row = rows[0];
  return {
    claimed: false,
    requestHash: row?.request_hash ?? '',
    status: row?.status ?? null,
    response: row?.response ?? null,
  };
}

export async function storeIdempotentResponse(
  db: Queryable,
  organizationId: string,
  key: string,
  status: number,
  response: unknown,
) {
  await db.query('UPDATE idempotency_keys SET status = $3, response = $4 WHERE organization_id = $1 AND key = $2', [
    organizationId,
    key,
    status,
    JSON.stringify(response),
  ]);
}

/** Keys live 24 hours; older ones are removed as new batches come. */
export async function forgetOldIdempotencyKeys(db: Queryable): Promise<void> {
  await db.query("DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'");
}

/** A task changed since a replica's checkpoint, with whether the caller sees it. */
export type TaskChange = TaskRow & { sync_xid: string; sync_seq: string; visible: boolean };

/** Tasks changed after `checkpoint`, in commit order, each with `visible` for the actor (the one condition). */
export async function taskChanges(
  db: Queryable,
  v: Visibility,
  checkpoint: SyncCheckpoint | null,
  limit: number,
): Promise<TaskChange[]> {
  const { rows } = await db.query<TaskChange>(
    `SELECT ${TASK_COLUMNS}, ${syncColumns('t')}, ${VISIBLE_TO} AS visible
       FROM tasks t WHERE t.organization_id = $1 AND ${changedSince('t', 6, 7)}
      ORDER BY t.sync_xid, t.sync_seq LIMIT $8`,
    [...visibilityParams(v), ...checkpointParams(checkpoint), limit],
  );
  return rows;
}

/** The form of a task in any state (deleted too). */
export async function taskFormId(db: Queryable, organizationId: string, taskId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ form_id: string }>(
    'SELECT form_id FROM tasks WHERE organization_id = $1 AND id = $2',
    [organizationId, taskId],
  );
  return rows[0]?.form_id;
}

/** Adds a substitute for `absentUserId` on each task where they are not an assignee yet; the tasks added to. */
export async function insertSubstitutes(
  db: Queryable,
  organizationId: string,
  taskIds: readonly string[],
  substituteUserId: string,
  absentUserId: string,
): Promise<string[]> {
  const { rows } = await db.query<{ task_id: string }>(
    `INSERT INTO task_assignees (organization_id, task_id, user_id, source, delegated_from_user_id)
     SELECT $1, unnest($2::uuid[]), $3, 'delegation', $4 ON CONFLICT DO NOTHING RETURNING task_id`,
    [organizationId, taskIds, substituteUserId, absentUserId],
  );
  return rows.map((row) => row.task_id);
}

/**
 * Marks an absent assignee as having changes of the tasks to review, due once they are back at
 * `reviewAfter` (an earlier due time already set stays).
 */
export async function markForReview(
  db: Queryable,
  organizationId: string,
  taskIds: readonly string[],
  userId: string,
  reviewAfter: Date,
): Promise<void> {
  await db.query(
    `UPDATE task_assignees
        SET pending_review = true,
            review_after = CASE WHEN pending_review THEN LEAST(review_after, $4) ELSE $4 END
      WHERE organization_id = $1 AND task_id = ANY($2::uuid[]) AND user_id = $3`,
    [organizationId, taskIds, userId, reviewAfter],
  );
}

/** The assignee's review of the task is done; whether there was one to clear. */
export async function clearReview(db: Queryable, organizationId: string, taskId: string, userId: string) {
  const { rowCount } = await db.query(
    `UPDATE task_assignees SET pending_review = false, review_after = NULL
      WHERE organization_id = $1 AND task_id = $2 AND user_id = $3 AND pending_review`,
    [organizationId, taskId, userId],
  );
  return rowCount === 1;
}

/** The user is back at `at` (an absence cut short): reviews due later (on tasks of `formId`, or all) fall due then. */
export async function reviewsDueAt(
  db: Queryable,
  organizationId: string,
  userId: string,
  formId: string | null,
  at: Date,
): Promise<void> {
  await db.query(
    `UPDATE task_assignees a SET review_after = $4
       FROM tasks t
      WHERE t.id = a.task_id AND a.organization_id = $1 AND a.user_id = $2 AND a.pending_review
        AND a.review_after > $4 AND ($3::uuid IS NULL OR t.form_id = $3)`,
    [organizationId, userId, formId, at],
  );
}

/** Open tasks (not deleted, not in a final status) with `userId` among the assignees, in id order after `afterTaskId`. */
export async function openTasksOfAssignee(
  db: Queryable,
  organizationId: string,
  userId: string,
  formId: string | null,
  afterTaskId: string | null,
  limit: number,
): Promise<{ id: string; form_id: string }[]> {
  const { rows } = await db.query<{ id: string; form_id: string }>(
    `SELECT t.id, t.form_id FROM task_assignees a JOIN tasks t ON t.id = a.task_id
       JOIN form_statuses s ON s.id = t.status_id
      WHERE a.organization_id = $1 AND a.user_id = $2 AND t.deleted_at IS NULL AND NOT s.is_final
        AND ($3::uuid IS NULL OR t.form_id = $3) AND ($4::uuid IS NULL OR t.id > $4)
      ORDER BY t.id LIMIT $5`,
    [organizationId, userId, formId, afterTaskId, limit],
  );
  return rows;
}

export async function countOpenTasksOfAssignee(
  db: Queryable,
  organizationId: string,
  userId: string,
  formId: string | null,
): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM task_assignees a JOIN tasks t ON t.id = a.task_id
       JOIN form_statuses s ON s.id = t.status_id
      WHERE a.organization_id = $1 AND a.user_id = $2 AND t.deleted_at IS NULL AND NOT s.is_final
        AND ($3::uuid IS NULL OR t.form_id = $3)`,
    [organizationId, userId, formId],
  );
  return rows[0]?.count ?? 0;
}
