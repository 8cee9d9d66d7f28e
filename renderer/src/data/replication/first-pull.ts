import { resumeTakingAnswers } from './answer';
import { type CollectionSync, protocolOfSync } from './collection-sync';
import { handDeferredSoon } from './deferred-master-states';
import { readKeptStates } from './kept-states';
import { resendTakenBack } from './sent-states';
import { previousDownstreamDone } from './stale-write-guard';

/**
 * Before the first pull and push, once: waits for a replication stopped before on the collection,
 * reads the kept maps from the records, runs `beforeFirstPull`, takes answers left untaken and
 * resends pushes left in doubt. Deferred master states kept are handed once the first pull is written.
 */
export function prepareFirstPull<RxDocType>(sync: CollectionSync<RxDocType>): Promise<unknown> | undefined {
  const protocol = protocolOfSync(sync);
  if (!protocol) return undefined;
  const before = sync.options.beforeFirstPull;
  sync.preparing ??= previousDownstreamDone(sync)
    .then(() => readKeptStates(sync.kept, protocol, sync.collection.database.token, sync.options.onLostEdits))
    .then(() =>
      Promise.all([
        before?.(protocol),
        resumeTakingAnswers(sync, protocol).then(() => resendTakenBack(sync, protocol)),
      ]),
    )
    .catch((error) => console.warn(`Preparing the pull of ${sync.remoteCollection} failed:`, error))
    .finally(() => sync.kept.deferred.size > 0 && handDeferredSoon(sync));
  return sync.preparing;
}
