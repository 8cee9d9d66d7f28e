import type { ErrorLogList } from '@shared/api/error-log';
import { z } from 'zod';
import type { AuthContext } from '../../platform/auth/auth-context';
import type { Db } from '../../platform/db/db';
import { inUnit, type UnitDeps } from '../../platform/db/unit-of-work';
import { decodeCursor, encodeCursor } from '../../platform/http/cursor';
import { Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import { presentErrorLogEntry } from './error-log.presenter';
import * as repo from './error-log.repo';

/** Identical errors first seen within this many seconds fold into one entry. */
export const FOLD_WINDOW_SECONDS = 60;

const MAX_PATH_LENGTH = 2000;
const MAX_MESSAGE_LENGTH = 4000;

/** The path of a request compared as Express routes it: case-insensitive, trailing slashes ignored. */
function routedPath(path: string): string {
  return path.toLowerCase().replace(/\/+$/, '');
}

/**
 * Whether a finished response belongs in the error log: status 400 or higher, except 401 (every
 * anonymous call would fill the log), health checks (probed constantly) and the event stream.
 */
export function isRecorded(path: string, status: number): boolean {
  if (status < 400 || status === 401) return false;
  const routed = routedPath(path);
  if (routed === '/api/health') return false;
  if (routed === '/api/events' || routed.startsWith('/api/events/')) return false;
  return true;
}

/** Text as PostgreSQL stores it (no NUL characters), cut to a bounded length. */
function storable(text: string, maxLength: number): string {
  return text.replaceAll('\u0000', '').slice(0, maxLength);
}

/** Records an error, folding it into the entry of an identical error first seen within the window. */
export async function recordError(deps: UnitDeps, occurrence: repo.ErrorOccurrence): Promise<void> {
  const entry: repo.ErrorOccurrence = {
    ...occurrence,
    path: storable(occurrence.path, MAX_PATH_LENGTH),
    message: storable(occurrence.message, MAX_MESSAGE_LENGTH),
  };
  await inUnit(deps, async ({ tx }) => {
    // Concurrent identical errors wait here, so each sees the entry the previous one made.
    await repo.lockErrorKey(tx, entry);
    const existing = await repo.findFoldable(tx, entry, FOLD_WINDOW_SECONDS);
    if (existing) await repo.foldOccurrence(tx, existing, entry);
    else await repo.insertEntry(tx, newId(), entry);
  });
}

const CursorKey = z.tuple([z.iso.datetime(), z.uuid()]);

/** The keyset in a cursor; a well-formed cursor of another list is refused as a garbled one is. */
function decodeKeyset(cursor: string | undefined): [string, string] | undefined {
  const key = decodeCursor(cursor);
  if (key === undefined) return undefined;
  const parsed = CursorKey.safeParse(key);
  if (parsed.success) return parsed.data;
  throw Problem.of('validation_failed', 'The cursor is not one this API returned. Start again without a cursor.', {
    errors: [{ location: 'query', pointer: '#/cursor', detail: 'Unknown cursor', code: 'invalid_cursor' }],
  });
}

/** A page of the caller's organization's entries, newest first. */
export async function listErrorLogs(
  db: Db,
  auth: AuthContext,
  query: repo.ErrorLogFilter & { limit: number; cursor?: string },
): Promise<ErrorLogList> {
  const after = decodeKeyset(query.cursor);
  const { limit, cursor: _cursor, ...filter } = query;
  const rows = await repo.listEntries(db, auth.organizationId, filter, { limit: limit + 1, after });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(presentErrorLogEntry),
    nextCursor: rows.length > limit && last ? encodeCursor([last.seen_key, last.id]) : null,
  };
}

/** Deletes the caller's organization's entries: the listed ones, those last seen before a moment, or all. */
export async function deleteErrorLogs(
  db: Db,
  auth: AuthContext,
  which: { ids?: string[]; before?: string },
): Promise<{ deleted: number }> {
  return { deleted: await repo.deleteEntries(db, auth.organizationId, which) };
}
