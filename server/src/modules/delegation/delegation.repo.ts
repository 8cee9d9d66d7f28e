import type { Queryable } from '../../platform/db/db';

export interface DelegationRow {
  id: string;
  organization_id: string;
  user_id: string;
  substitute_user_id: string;
  form_id: string | null;
  starts_at: Date;
  ends_at: Date;
  created_at: Date;
}

const COLUMNS = 'id, organization_id, user_id, substitute_user_id, form_id, starts_at, ends_at, created_at';

export async function listDelegations(db: Queryable, organizationId: string, userId: string): Promise<DelegationRow[]> {
  const { rows } = await db.query<DelegationRow>(
    `SELECT ${COLUMNS} FROM user_delegations WHERE organization_id = $1 AND user_id = $2 ORDER BY starts_at, id`,
    [organizationId, userId],
  );
  return rows;
}

export async function findDelegation(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<DelegationRow | undefined> {
  const { rows } = await db.query<DelegationRow>(
    `SELECT ${COLUMNS} FROM user_delegations WHERE organization_id = $1 AND id = $2`,
    [organizationId, id],
  );
  return rows[0];
}

/** Holds a user's delegations for the rest of the transaction: overlap checks of two writes do not race. */
export async function lockUserDelegations(db: Queryable, organizationId: string, userId: string): Promise<void> {
  await db.query('SELECT 1 FROM users WHERE organization_id = $1 AND id = $2 FOR UPDATE', [organizationId, userId]);
}

/** Whether another delegation of the user for the same scope overlaps the period. */
export async function overlapping(
  db: Queryable,
  organizationId: string,
  delegation: { id: string; userId: string; formId: string | null; startsAt: Date; endsAt: Date },
): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM user_delegations
      WHERE organization_id = $1 AND user_id = $2 AND form_id IS NOT DISTINCT FROM $3 AND id <> $4
        AND starts_at < $6 AND ends_at > $5 LIMIT 1`,
    [organizationId, delegation.userId, delegation.formId, delegation.id, delegation.startsAt, delegation.endsAt],
  );
  return rows.length > 0;
}

export async function upsertDelegation(
  db: Queryable,
  delegation: {
    id: string;
    organizationId: string;
    userId: string;
    substituteUserId: string;
    formId: string | null;
    startsAt: Date;
    endsAt: Date;
    createdBy: string;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO user_delegations (id, organization_id, user_id, substitute_user_id, form_id, starts_at, ends_at, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (id) DO UPDATE SET user_id = $3, substitute_user_id = $4, form_id = $5, starts_at = $6, ends_at = $7,
                                    updated_at = now()`,
    [
      delegation.id,
      delegation.organizationId,
      delegation.userId,
      delegation.substituteUserId,
      delegation.formId,
      delegation.startsAt,
      delegation.endsAt,
      delegation.createdBy,
    ],
  );
}

export async function deleteDelegation(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM user_delegations WHERE organization_id = $1 AND id = $2', [
    organizationId,
    id,
  ]);
  return rowCount === 1;
}

/**
 * The substitute of `userId` for a task of `formId` at `at`: the per-form delegation before the
 * default one; undefined when the user is present.
 */
export async function substituteAt(
  db: Queryable,
  organizationId: string,
  userId: string,
  formId: string | null,
  at: Date,
): Promise<{ substituteUserId: string; endsAt: Date } | undefined> {
  const { rows } = await db.query<{ substitute_user_id: string; ends_at: Date }>(
    `SELECT substitute_user_id, ends_at FROM user_delegations
      WHERE organization_id = $1 AND user_id = $2 AND (form_id = $3 OR form_id IS NULL)
        AND starts_at <= $4 AND ends_at > $4
      ORDER BY form_id IS NULL, starts_at DESC LIMIT 1`,
    [organizationId, userId, formId, at],
  );
  const row = rows[0];
  return row && { substituteUserId: row.substitute_user_id, endsAt: row.ends_at };
}

/** Removes delegations whose period ended before `before` (their substitutes stay on tasks). */
export async function deleteExpired(db: Queryable, before: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM user_delegations WHERE ends_at <= $1', [before]);
  return rowCount;
}

export interface ApplicationRow {
  delegation_id: string;
  organization_id: string;
  generation: number;
  state: 'scheduled' | 'running' | 'done';
  applied: number;
  total: number | null;
  last_task_id: string | null;
}

const APPLICATION_COLUMNS = 'delegation_id, organization_id, generation, state, applied, total, last_task_id';

/** The delegations' bulk applications (by delegation id). */
export async function applications(
  db: Queryable,
  organizationId: string,
  delegationIds: readonly string[],
): Promise<ApplicationRow[]> {
  const { rows } = await db.query<ApplicationRow>(
    `SELECT ${APPLICATION_COLUMNS} FROM delegation_applications
      WHERE organization_id = $1 AND delegation_id = ANY($2::uuid[])`,
    [organizationId, delegationIds],
  );
  return rows;
}

/** Starts the delegation's application over (a new generation, nothing applied yet); the generation. */
export async function restartApplication(db: Queryable, organizationId: string, delegationId: string): Promise<number> {
  const { rows } = await db.query<{ generation: number }>(
    `INSERT INTO delegation_applications (delegation_id, organization_id) VALUES ($1, $2)
     ON CONFLICT (delegation_id) DO UPDATE
       SET generation = delegation_applications.generation + 1, state = 'scheduled', applied = 0, total = NULL,
           last_task_id = NULL, updated_at = now()
     RETURNING generation`,
    [delegationId, organizationId],
  );
  return rows[0]?.generation as number;
}

/** The application with its delegation's terms, held for the rest of the transaction (one chunk at a time). */
export async function lockApplication(
  db: Queryable,
  organizationId: string,
  delegationId: string,
): Promise<(ApplicationRow & DelegationRow) | undefined> {
  const { rows } = await db.query<ApplicationRow & DelegationRow>(
    `SELECT a.generation, a.state, a.applied, a.total, a.last_task_id, a.delegation_id,
            ${COLUMNS.split(', ')
              .map((c) => `d.${c}`)
              .join(', ')}
       FROM delegation_applications a JOIN user_delegations d ON d.id = a.delegation_id
      WHERE a.organization_id = $1 AND a.delegation_id = $2 FOR UPDATE OF a`,
    [organizationId, delegationId],
  );
  return rows[0];
}

export async function recordApplied(
  db: Queryable,
  delegationId: string,
  progress: { state: ApplicationRow['state']; applied: number; total: number | null; lastTaskId: string | null },
): Promise<void> {
  await db.query(
    `UPDATE delegation_applications SET state = $2, applied = $3, total = $4, last_task_id = $5, updated_at = now()
      WHERE delegation_id = $1`,
    [delegationId, progress.state, progress.applied, progress.total, progress.lastTaskId],
  );
}
