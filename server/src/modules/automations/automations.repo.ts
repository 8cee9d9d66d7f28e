import type { Queryable } from '../../platform/db/db';

export interface AutomationRow {
  id: string;
  organization_id: string;
  name: string;
  enabled: boolean;
  trigger: 'task.status_changed' | 'schedule';
  trigger_config: Record<string, unknown>;
  code: string;
  last_scheduled_run_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'id, organization_id, name, enabled, trigger, trigger_config, code, last_scheduled_run_at, created_at, updated_at';

export async function listAutomations(db: Queryable, organizationId: string): Promise<AutomationRow[]> {
  const { rows } = await db.query<AutomationRow>(
    `SELECT ${COLUMNS} FROM automations WHERE organization_id = $1 ORDER BY created_at, id`,
    [organizationId],
  );
  return rows;
}

export async function findAutomation(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<AutomationRow | undefined> {
  const { rows } = await db.query<AutomationRow>(
    `SELECT ${COLUMNS} FROM automations WHERE organization_id = $1 AND id = $2`,
    [organizationId, id],
  );
  return rows[0];
}

export async function insertAutomation(
  db: Queryable,
  automation: {
    id: string;
    organizationId: string;
    name: string;
    enabled: boolean;
    trigger: string;
    triggerConfig: object;
    code: string;
    createdBy: string | null;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO automations (id, organization_id, name, enabled, trigger, trigger_config, code, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      automation.id,
      automation.organizationId,
      automation.name,
      automation.enabled,
      automation.trigger,
      JSON.stringify(automation.triggerConfig),
      automation.code,
      automation.createdBy,
    ],
  );
}

export async function updateAutomation(
  db: Queryable,
  organizationId: string,
  id: string,
  next: { name: string; enabled: boolean; trigger: string; triggerConfig: object; code: string },
): Promise<void> {
  await db.query(
    `UPDATE automations SET name = $3, enabled = $4, trigger = $5, trigger_config = $6, code = $7, updated_at = now()
      WHERE organization_id = $1 AND id = $2`,
    [organizationId, id, next.name, next.enabled, next.trigger, JSON.stringify(next.triggerConfig), next.code],
  );
}

export async function deleteAutomation(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM automations WHERE organization_id = $1 AND id = $2', [
    organizationId,
    id,
  ]);
  return rowCount === 1;
}

/** Enabled status-change automations of the organization that a move to `statusId` of `formId` fires. */
export async function automationsFiredBy(
  db: Queryable,
  organizationId: string,
  move: { formId: string; statusId: string },
): Promise<AutomationRow[]> {
  const { rows } = await db.query<AutomationRow>(
    `SELECT ${COLUMNS} FROM automations
      WHERE organization_id = $1 AND enabled AND trigger = 'task.status_changed'
        AND coalesce(trigger_config->>'statusId', $3) = $3 AND coalesce(trigger_config->>'formId', $2) = $2
      ORDER BY created_at, id`,
    [organizationId, move.formId, move.statusId],
  );
  return rows;
}

/**
 * Claims today's run of every enabled schedule whose time has come and whose run of today is not
 * claimed yet (`last_scheduled_run_at` set in the same statement), and enqueues each as a job: two
 * instances ticking at once claim a run once. `day` is today's Moscow date, `offset` Moscow's UTC offset.
 */
export async function claimDueSchedules(
  db: Queryable,
  now: Date,
  day: { date: string; offset: string },
  jobKind: string,
): Promise<number> {
  const { rowCount } = await db.query(
    `WITH due AS (
       SELECT id, organization_id, (($1::text || ' ' || (trigger_config->>'time') || $2::text))::timestamptz AS planned
         FROM automations WHERE trigger = 'schedule' AND enabled
     ), claimed AS (
       UPDATE automations a SET last_scheduled_run_at = due.planned
         FROM due
        WHERE a.id = due.id AND due.planned <= $3::timestamptz
          AND (a.last_scheduled_run_at IS NULL OR a.last_scheduled_run_at < due.planned)
        RETURNING a.id, a.organization_id, due.planned
     )
     INSERT INTO jobs (id, organization_id, kind, payload)
     SELECT gen_random_uuid(), organization_id, $4,
            jsonb_build_object('automationId', id,
                               'triggerData', jsonb_build_object('trigger', 'schedule',
                                 'scheduledAt', to_char(planned AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
       FROM claimed`,
    [day.date, day.offset, now, jobKind],
  );
  return rowCount;
}

export interface RunRow {
  id: string;
  automation_id: string;
  trigger_data: Record<string, unknown>;
  task_id: string | null;
  status: 'succeeded' | 'failed' | 'timed_out' | 'out_of_memory';
  duration_ms: number;
  logs: string[];
  error: string | null;
  error_line: number | null;
  started_at: Date;
}

export async function insertRun(
  db: Queryable,
  run: {
    id: string;
    organizationId: string;
    automationId: string;
    triggerData: object;
    taskId: string | null;
    status: string;
    durationMs: number;
    logs: string[];
    error: string | null;
    errorLine: number | null;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO automation_runs (id, organization_id, automation_id, trigger_data, task_id, status, duration_ms, logs,
                                  error, error_line)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      run.id,
      run.organizationId,
      run.automationId,
      JSON.stringify(run.triggerData),
      run.taskId,
      run.status,
      run.durationMs,
      JSON.stringify(run.logs),
      run.error,
      run.errorLine,
    ],
  );
}

/** Runs of an automation, newest first, after the keyset `after` ([started_at ISO, id]). */
export async function listRuns(
  db: Queryable,
  organizationId: string,
  automationId: string,
  page: { after?: [string, string]; limit: number },
): Promise<RunRow[]> {
  const { rows } = await db.query<RunRow>(
    `SELECT id, automation_id, trigger_data, task_id, status, duration_ms, logs, error, error_line, started_at
       FROM automation_runs
      WHERE organization_id = $1 AND automation_id = $2
        AND ($3::timestamptz IS NULL OR (started_at, id) < ($3::timestamptz, $4::uuid))
      ORDER BY started_at DESC, id DESC LIMIT $5`,
    [organizationId, automationId, page.after?.[0] ?? null, page.after?.[1] ?? null, page.limit],
  );
  return rows;
}
