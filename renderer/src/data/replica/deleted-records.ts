import type { RxCollection } from 'rxdb';
import { RecordGoneError } from '../replica-errors';
import { type CollectionName, tombstoneDefaults } from '../schemas';

/**
 * A task or directory row as deleted. Like an edit, a deletion is not written onto a record the
 * replica has just learned was deleted or hidden from the user: nothing would be sent (a tombstone
 * over a tombstone), and a task still on the server but no longer shared would stay there unseen.
 */
export function removedRecord<T extends { id: string; _deleted?: boolean }>(current: T): T {
  if (current._deleted) throw new RecordGoneError(current.id);
  return { ...current, _deleted: true };
}

/**
 * Writes `deleted`, a task or directory row as it was when deleted on this device, over the
 * tombstone `collection` holds of it (an undo). The tombstone keeps the values of a deletion made
 * here, which are taken; once the server's own tombstone (no values) has come back with the
 * stream, `deleted` is. False when the replica does not hold it as deleted: brought back already,
 * or its tombstone cleaned up.
 */
export async function writeBackDeleted<T extends { id: string }>(
  collection: RxCollection<T>,
  deleted: T,
): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const [held] = await collection.storageInstance.findDocumentsById([deleted.id], true);
    if (!held?._deleted) return false;
    const { _deleted, _rev, _meta, _attachments, ...values } = held;
    const bare = new Set(['id', ...Object.keys(tombstoneDefaults[collection.name as CollectionName] ?? {})]);
    const carriesValues = Object.keys(values).some((key) => !bare.has(key));
    try {
      // RxDB writes an insert over a tombstone as the next revision of that document.
      await collection.insert((carriesValues ? values : deleted) as never);
      return true;
    } catch (error) {
      const inDb = (error as { parameters?: { writeError?: { documentInDb?: { _deleted?: boolean } } } }).parameters
        ?.writeError?.documentInDb;
      if ((error as { code?: string }).code !== 'CONFLICT' || !inDb) throw error;
      // Brought back meanwhile (the server's answer to the deletion kept it): nothing to undo.
      if (!inDb._deleted) return false;
      // Another tombstone written meanwhile (the server's, streamed back): written over in turn.
      if (attempt === 3) throw error;
    }
  }
}
