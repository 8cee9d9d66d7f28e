import type { TFunction } from 'i18next';

/** What the replica storage says when its disk refused a write (`rx-storage-memory-mapped`). */
const DISK_REFUSED = 'could not save its changes to disk';
/** How RxDB's remote storage wraps an error of the replica process, with the whole request as JSON. */
const REMOTE_PREFIX = 'could not requestRemote:';

/** The reason inside an error from the replica: the replica process's own message, without RxDB's request dump. */
function replicaReason(caught: unknown): string {
  const message = caught instanceof Error ? caught.message : String(caught);
  const at = message.indexOf(REMOTE_PREFIX);
  if (at < 0) return message;
  try {
    const remote = JSON.parse(message.slice(at + REMOTE_PREFIX.length)) as { error?: { message?: unknown } };
    if (typeof remote.error?.message === 'string') return remote.error.message;
  } catch {
    // Not the shape RxDB sends: keep what precedes the dump.
  }
  return message.slice(0, at).trim() || message.split('\n')[0] || message;
}

/**
 * An edit of a record the replica no longer holds: deleted on the server, or no longer shared with
 * the user, as the edit was being saved. Nothing was written.
 */
export class RecordGoneError extends Error {
  constructor(readonly id: string) {
    super(`Record ${id} is no longer on this device`);
    this.name = 'RecordGoneError';
  }
}

/**
 * Another tab or window of the app kept the copy open past the wait (a browser tab holding it, a
 * desktop page whose port has not closed): it was not removed.
 */
export class ReplicaInUseError extends Error {
  constructor() {
    super('Another tab or window of the app still has the copy of the data open');
    this.name = 'ReplicaInUseError';
  }
}

/** Why this device's copy could not be removed, in the user's words, for the messages that give a reason. */
export function copyRemovalReason(caught: unknown, t: TFunction): string {
  if (caught instanceof ReplicaInUseError) return t('errors.copyInUse');
  return replicaReason(caught).split('\n')[0] ?? '';
}

/** A failed write to the replica in the user's words: a full or read-only disk says what to do. */
export function replicaFailureText(caught: unknown, t: TFunction): string {
  if (caught instanceof RecordGoneError) return t('errors.recordGone');
  const reason = replicaReason(caught);
  if (reason.includes(DISK_REFUSED)) return t('errors.replicaDisk');
  return t('errors.replicaWrite', { reason: reason.split('\n')[0] });
}
