import type { Queryable } from '../../platform/db/db';

export interface ErrorLogRow {
  id: string;
  method: string;
  path: string;
  status: number;
  code: string | null;
  message: string;
  request_id: string;
  user_id: string | null;
  bot_id: string | null;
  count: number;
  first_seen_at: Date;
  last_seen_at: Date;
  /** last_seen_at to the microsecond (a Date keeps milliseconds only): the keyset of the listing. */
  seen_key: string;
}

/** What identifies an error for folding: equal keys within the fold window make one entry. */
export interface ErrorKey {
  organizationId: string | null;
  method: string;
  path: string;
  status: number;
  code: string | null;
}

export interface ErrorOccurrence extends ErrorKey {
  userId: string | null;
  /** The bot whose API key made the call. */
  botId: string | null;
  message: string;
  requestId: string;
}

export interface ErrorLogFilter {
  status?: number;
  code?: string;
  method?: string;
  path?: string;
  since?: string;
  until?: string;
}

/** Namespace of the error log's advisory locks (the two-key form, apart from single-key locks). */
const FOLD_LOCK_CLASS = 4_242_003;

const COLUMNS = `id, method, path, status, code, message, request_id, user_id, bot_id, count, first_seen_at, last_seen_at,
  to_char(last_seen_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS seen_key`;

/** Serialises the recording of identical errors until the transaction ends. */
export async function lockErrorKey(tx: Queryable, key: ErrorKey): Promise<void> {
  const text = JSON.stringify([key.organizationId, key.method, key.path, key.status, key.code]);
  await tx.query('SELECT pg_advisory_xact_lock($1::int4, hashtext($2::text))', [FOLD_LOCK_CLASS, text]);
}

/** The entry of an identical error first seen within the last `windowSeconds`, if any. */
export async function findFoldable(tx: Queryable, key: ErrorKey, windowSeconds: number): Promise<string | undefined> {
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id FROM error_logs
      WHERE organization_id IS NOT DISTINCT FROM $1::uuid AND method = $2 AND path = $3 AND status = $4
        AND code IS NOT DISTINCT FROM $5::text
        AND first_seen_at > now() - make_interval(secs => $6)
        AND last_seen_at > now() - make_interval(secs => $6)
      ORDER BY first_seen_at DESC, id DESC LIMIT 1`,
    [key.organizationId, key.method, key.path, key.status, key.code, windowSeconds],
  );
  return rows[0]?.id;
}

/** Counts one more occurrence; the entry keeps the latest message, request and user. */
export async function foldOccurrence(tx: Queryable, id: string, occurrence: ErrorOccurrence): Promise<void> {
  await tx.query(
    `UPDATE error_logs SET count = count + 1, last_seen_at = now(), message = $2, request_id = $3, user_id = $4,
      bot_id = $5 WHERE id = $1`,
    [id, occurrence.message, occurrence.requestId, occurrence.userId, occurrence.botId],
  );
}

export async function insertEntry(tx: Queryable, id: string, occurrence: ErrorOccurrence): Promise<void> {
  await tx.query(
    `INSERT INTO error_logs (id, organization_id, user_id, bot_id, method, path, status, code, message, request_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      id,
      occurrence.organizationId,
      occurrence.userId,
      occurrence.botId,
      occurrence.method,
      occurrence.path,
      occurrence.status,
      occurrence.code,
      occurrence.message,
      occurrence.requestId,
    ],
  );
}

/** A page of the organization's entries, newest first; `after` is the keyset of the last one seen. */
export async function listEntries(
  db: Queryable,
  organizationId: string,
  filter: ErrorLogFilter,
  page: { limit: number; after?: [string, string] },
): Promise<ErrorLogRow[]> {
  const { rows } = await db.query<ErrorLogRow>(
    `SELECT ${COLUMNS} FROM error_logs
      WHERE organization_id = $1
        AND ($2::int IS NULL OR status = $2)
        AND ($3::text IS NULL OR code = $3)
        AND ($4::text IS NULL OR method = $4)
        AND ($5::text IS NULL OR strpos(lower(path), lower($5)) > 0)
        AND ($6::timestamptz IS NULL OR last_seen_at >= $6)
        AND ($7::timestamptz IS NULL OR last_seen_at < $7)
        AND ($8::timestamptz IS NULL OR (last_seen_at, id) < ($8::timestamptz, $9::uuid))
      ORDER BY last_seen_at DESC, id DESC LIMIT $10`,
    [
      organizationId,
      filter.status ?? null,
      filter.code ?? null,
      filter.method ?? null,
      filter.path ?? null,
      filter.since ?? null,
      filter.until ?? null,
      page.after?.[0] ?? null,
      page.after?.[1] ?? null,
      page.limit,
    ],
  );
  return rows;
}

/** Deletes the organization's entries: the listed ones, those last seen before a moment, or all. */
export async function deleteEntries(
  db: Queryable,
  organizationId: string,
  which: { ids?: readonly string[]; before?: string },
): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM error_logs
      WHERE organization_id = $1
        AND ($2::uuid[] IS NULL OR id = ANY($2::uuid[]))
        AND ($3::timestamptz IS NULL OR last_seen_at < $3)`,
    [organizationId, which.ids ?? null, which.before ?? null],
  );
  return rowCount;
}
