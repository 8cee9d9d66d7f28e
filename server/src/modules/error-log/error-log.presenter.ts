import type { ErrorLogEntry } from '@shared/api/error-log';
import type { ErrorLogRow } from './error-log.repo';

export function presentErrorLogEntry(row: ErrorLogRow): ErrorLogEntry {
  return {
    id: row.id,
    method: row.method,
    path: row.path,
    status: row.status,
    code: row.code,
    message: row.message,
    requestId: row.request_id,
    userId: row.user_id,
    botId: row.bot_id,
    count: row.count,
    firstSeenAt: row.first_seen_at.toISOString(),
    lastSeenAt: row.last_seen_at.toISOString(),
  };
}
