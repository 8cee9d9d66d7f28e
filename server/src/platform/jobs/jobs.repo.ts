import type { Queryable } from '../db/db';

export interface JobRow {
  id: string;
  organization_id: string | null;
  kind: string;
  payload: Record<string, unknown>;
  unique_key: string | null;
  state: 'queued' | 'running' | 'succeeded' | 'dead';
  attempts: number;
  max_attempts: number;
  run_after: Date;
  last_error: string | null;
}

const JOB_COLUMNS =
  'id, organization_id, kind, payload, unique_key, state, attempts, max_attempts, run_after, last_error';

export async function insertJob(
  db: Queryable,
  job: {
    id: string;
    organizationId: string | null;
    kind: string;
    payload: object;
    uniqueKey: string | null;
    runAfter: Date | null;
    maxAttempts: number;
  },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO jobs (id, organization_id, kind, payload, unique_key, run_after, max_attempts)
     VALUES ($1, $2, $3, $4, $5, COALESCE($6::timestamptz, now()), $7)
     ON CONFLICT (kind, unique_key) WHERE unique_key IS NOT NULL DO NOTHING`,
    [job.id, job.organizationId, job.kind, JSON.stringify(job.payload), job.uniqueKey, job.runAfter, job.maxAttempts],
  );
  return rowCount === 1;
}

/**
 * The next due job of these kinds, locked for the rest of the transaction (others skip it): a
 * queued one whose time has come, or a leased one whose lease ran out (its runner died).
 */
export async function lockDueJob(db: Queryable, kinds: readonly string[]): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs
      WHERE kind = ANY($1::text[])
        AND ((state = 'queued' AND run_after <= now()) OR (state = 'running' AND leased_until <= now()))
      ORDER BY run_after, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
    [kinds],
  );
  return rows[0];
}

/** Counts an attempt and leases the job to its runner until `leaseSeconds` from now. */
export async function leaseJob(db: Queryable, id: string, leaseSeconds: number): Promise<void> {
  await db.query(
    `UPDATE jobs SET state = 'running', attempts = attempts + 1, leased_until = now() + make_interval(secs => $2)
      WHERE id = $1`,
    [id, leaseSeconds],
  );
}

/** Done on attempt `attempts`: its payload (which may name people) is not kept. */
export async function completeJob(db: Queryable, id: string, attempts: number): Promise<void> {
  await db.query(
    `UPDATE jobs SET state = 'succeeded', attempts = $2, payload = '{}'::jsonb, leased_until = NULL,
                     last_error = NULL, finished_at = now()
      WHERE id = $1`,
    [id, attempts],
  );
}

/** A failed attempt: queued again after `retryInSeconds`, or dead once it has had every attempt. */
export async function failJob(
  db: Queryable,
  id: string,
  failure: { attempts: number; error: string; retryInSeconds: number; dead: boolean },
): Promise<void> {
  await db.query(
    `UPDATE jobs SET attempts = $2, last_error = $3, leased_until = NULL,
                     state = CASE WHEN $5::boolean THEN 'dead' ELSE 'queued' END,
                     run_after = now() + make_interval(secs => $4),
                     finished_at = CASE WHEN $5::boolean THEN now() END
      WHERE id = $1`,
    [id, failure.attempts, failure.error.slice(0, 2_000), failure.retryInSeconds, failure.dead],
  );
}

export async function findJob(db: Queryable, id: string): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1`, [id]);
  return rows[0];
}
