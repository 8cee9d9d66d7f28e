import type { SyncDocument } from '@shared/sync';
import { deepEqual } from 'rxdb';
import { assumePulledStates } from './assumed-master-states';
import {
  type CollectionSync,
  forkStates,
  idOf,
  isStopped,
  protocolOfSync,
  withTombstoneDefaults,
} from './collection-sync';
import { versionOf } from './received-versions';
import {
  isDownstreamActive,
  isDownstreamContext,
  isReplicationContext,
  isUpstreamActive,
  readAssumedMasterStates,
} from './rxdb-internals';

/**
 * The downstream does not write a master state over a change of the user's (the change's push is
 * to settle it) and forgets it. When that change is taken back before it is sent, nothing is
 * pushed, and the replica kept the older state until the server's copy changed again. So the
 * newest master state of each such document is deferred (`kept.deferred`, kept with the records
 * since the checkpoint passes it) and handed to the downstream again once the document holds its
 * assumed master state (`handDeferred`).
 */

/** Defers the master states of documents changed here; lets go of those of documents not changed here. */
export function deferIfChangedLocally<RxDocType>(sync: CollectionSync<RxDocType>, documents: readonly SyncDocument[]) {
  for (const document of documents) {
    const id = idOf(sync, document);
    if (sync.changedLocally.has(id)) sync.kept.deferred.set(id, document);
    else sync.kept.deferred.delete(id);
  }
}

/**
 * Notes the states handed to the downstream: RxDB reads the document, then writes the state over
 * it, and a write of the user's in between refuses or skips RxDB's write (`watchForkWrites` defers it).
 */
export function noteHandedToDownstream<RxDocType>(sync: CollectionSync<RxDocType>, documents: readonly SyncDocument[]) {
  for (const document of documents) {
    const id = idOf(sync, document);
    const before = sync.handedToDownstream.get(id);
    const version = versionOf(document);
    const previous = before && versionOf(before);
    if (!version || !previous || version >= previous) sync.handedToDownstream.set(id, document);
  }
}

/**
 * Hands the deferred master states of documents whose change was taken back before it was sent
 * (they hold their assumed master state again) to the downstream again. A document still differing
 * from its assumed master state is left to its push, whose answer settles it.
 */
async function handDeferred<RxDocType>(sync: CollectionSync<RxDocType>): Promise<void> {
  const protocol = protocolOfSync(sync);
  const { deferred } = sync.kept;
  if (!protocol || deferred.size === 0 || isStopped(sync)) return;
  // A write the upstream has yet to look at may go out against the state handed here and undo it.
  if (isUpstreamActive(protocol)) return handDeferredSoon(sync);
  // A pull under way (or waiting to be retried) brings states at least as new, written after anything handed now.
  if (isDownstreamActive(protocol)) return handDeferredSoon(sync);
  const ids = [...deferred.keys()].filter((id) => !sync.pushing.has(id) && !sync.kept.sent.has(id));
  if (ids.length === 0) return;
  const [{ held }, known] = await Promise.all([forkStates(sync, ids), readAssumedMasterStates(protocol, ids)]);
  if (isDownstreamActive(protocol)) return handDeferredSoon(sync);
  const handed: SyncDocument[] = [];
  for (const id of ids) {
    const pulled = deferred.get(id);
    const assumed = known.get(id);
    const current = held.get(id);
    if (!pulled || !assumed || !current) continue;
    const { _attachments, ...server } = assumed;
    if (!deepEqual(current, server)) continue;
    sync.changedLocally.delete(id);
    const version = versionOf(pulled);
    const assumedVersion = versionOf(server as SyncDocument);
    if (
      sync.versions.isOlderThanPushOutcome(pulled) ||
      (version && assumedVersion && version < assumedVersion) ||
      deepEqual(server, pulled)
    ) {
      deferred.delete(id);
      continue;
    }
    // No pull brings it again (its checkpoint is passed): kept in the records until the downstream has written it.
    sync.releaseOnWrite.set(id, deferred.letGo(id));
    handed.push(pulled);
  }
  if (handed.length > 0 && !isStopped(sync)) {
    noteHandedToDownstream(sync, handed);
    sync.stream$.next({ documents: withTombstoneDefaults(sync, handed) as never, checkpoint: undefined } as never);
  }
}

/** Looks at the deferred master states after the retry time (again, if a look is due already). */
export function handDeferredSoon<RxDocType>(sync: CollectionSync<RxDocType>): void {
  if (sync.deferredTimer) clearTimeout(sync.deferredTimer);
  sync.deferredTimer = setTimeout(() => {
    sync.deferredTimer = undefined;
    handDeferred(sync).catch((error) =>
      console.warn(`Handing the deferred master states of ${sync.remoteCollection} again failed:`, error),
    );
  }, sync.retryTimeMs);
}

/**
 * Follows the writes to the collection's storage: the downstream's writes of states handed to it,
 * and the user's, which make a document changed here and defer a state handed and not yet written.
 */
export function watchForkWrites<RxDocType>(sync: CollectionSync<RxDocType>): { unsubscribe(): void } {
  const { handedToDownstream: handed, releaseOnWrite, kept } = sync;
  return sync.collection.storageInstance.changeStream().subscribe((bulk) => {
    const context = String(bulk.context);
    if (handed.size > 0) {
      for (const event of bulk.events) {
        const pending = handed.get(event.documentId);
        if (!pending) continue;
        if (isDownstreamContext(context)) {
          // Written: this state, or a newer one.
          const version = versionOf(pending);
          if (!version || (versionOf(event.documentData as unknown as SyncDocument) ?? '') >= version) {
            handed.delete(event.documentId);
            const release = releaseOnWrite.get(event.documentId);
            releaseOnWrite.delete(event.documentId);
            // Let go in a record written after the downstream's write, which the storage writes after it.
            release?.();
          }
          continue;
        }
        // The user's write came first: the downstream's write of that state is refused or skipped.
        handed.delete(event.documentId);
        releaseOnWrite.delete(event.documentId);
        const deferred = kept.deferred.get(event.documentId);
        const deferredVersion = deferred && versionOf(deferred);
        const version = versionOf(pending);
        if (!deferredVersion || (version && version >= deferredVersion)) kept.deferred.set(event.documentId, pending);
      }
    }
    if (isDownstreamContext(context)) {
      // A deferred state written after all, or a newer one: nothing is left to hand. A bare
      // tombstone has no version and stays (a state written may be one received before it).
      for (const event of bulk.events) {
        const deferred = kept.deferred.get(event.documentId);
        const version = deferred && versionOf(deferred);
        if (version && (versionOf(event.documentData as unknown as SyncDocument) ?? '') >= version)
          kept.deferred.delete(event.documentId);
      }
      return;
    }
    for (const event of bulk.events) sync.changedLocally.add(event.documentId);
    // The user's writes: the replication's own (answers, resends) start from states it wrote as assumed.
    if (!context.startsWith('orbita-sync') && !isReplicationContext(context)) assumePulledStates(sync, bulk.events);
    if (bulk.events.some((event) => kept.deferred.has(event.documentId))) handDeferredSoon(sync);
  });
}
