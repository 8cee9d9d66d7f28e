import type { SyncDocument } from '@shared/sync';
import type { RxStorageBulkWriteResponse } from 'rxdb';
import { type CollectionSync, idOf, protocolOfSync, pulledMarkOf } from './collection-sync';
import { versionOf } from './received-versions';
import {
  downstreamDone,
  downstreamWriteContext,
  interceptForkWrites,
  isProtocolCanceled,
  isPulledState,
} from './rxdb-internals';

/**
 * Per collection storage instance: when a stopped replication's downstream writes are over. One
 * started on the same collection before then writes with the same context, and pulls after them.
 */
const downstreamEnding = new WeakMap<object, Promise<unknown>>();

/** Resolves once the downstream of a replication of this collection stopped before is over. */
export function previousDownstreamDone<RxDocType>(sync: CollectionSync<RxDocType>): Promise<unknown> {
  return Promise.resolve(downstreamEnding.get(sync.collection.storageInstance));
}

/**
 * Refuses, as write conflicts (which the downstream leaves be: the newer state stays, with its
 * assumed master state), the downstream's writes of master states older than what the replica holds:
 * older than a push's outcome (`ReceivedVersions`), of a document whose push went out unanswered
 * (that answer is newer), older than the master state the document holds, or any once stopped
 * (RxDB writes no checkpoint past it then: it is pulled again at the next start). Returns what
 * lifts the guard, once the stopped replication's downstream is over.
 */
export function guardAgainstStaleWrites<RxDocType>(sync: CollectionSync<RxDocType>): () => void {
  let lifted = false;
  const restore = interceptForkWrites(sync.collection, async (rows, context, write) => {
    const protocol = protocolOfSync(sync);
    const stopped = protocol !== undefined && isProtocolCanceled(protocol);
    if (lifted || !protocol || context !== (await downstreamWriteContext(protocol))) return write(rows, context);
    // A document made here carries this device's clock, no server version.
    const mark = await pulledMarkOf(sync, protocol);
    const stale = rows.filter((row) => {
      const document = row.document as unknown as Record<string, unknown>;
      const version = versionOf(document as SyncDocument);
      const held =
        row.previous && isPulledState(row.previous as never, mark)
          ? versionOf(row.previous as unknown as SyncDocument)
          : undefined;
      return (
        stopped ||
        sync.versions.isOlderThanPushOutcome(document) ||
        sync.kept.sent.has(idOf(sync, document)) ||
        (version !== undefined && held !== undefined && version < held)
      );
    });
    if (stale.length === 0) return write(rows, context);
    const fresh = rows.filter((row) => !stale.includes(row));
    const written: RxStorageBulkWriteResponse<RxDocType> =
      fresh.length > 0 ? await write(fresh, context) : { error: [] };
    return {
      error: [
        ...written.error,
        ...stale.map((row) => ({
          status: 409 as const,
          isError: true as const,
          documentId: idOf(sync, row.document as unknown as Record<string, unknown>),
          writeRow: row,
          context,
          documentInDb: (row.previous ?? row.document) as never,
        })),
      ],
    };
  });
  return () => {
    // The downstream may be between reading a document and writing a master state over it.
    const over = downstreamDone(protocolOfSync(sync)).then(() => {
      lifted = true;
      restore();
    });
    downstreamEnding.set(sync.collection.storageInstance, over);
  };
}
