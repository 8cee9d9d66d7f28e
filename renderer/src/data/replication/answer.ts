import type { PushResponse, SyncDocument } from '@shared/sync';
import { deepEqual, type RxDocumentData, type RxReplicationWriteToMasterRow } from 'rxdb';
import { rebaseOnServerState } from '../rebase';
import { assumeMasterStates, assumeSentStates } from './assumed-master-states';
import {
  asJson,
  type CollectionSync,
  forkStates,
  idOf,
  rowId,
  sameState,
  withTombstoneDefaults,
} from './collection-sync';
import { handDeferredSoon } from './deferred-master-states';
import { keepLostEdits, keptStored } from './kept-states';
import { forkRewrite, type ReplicationProtocol, readAssumedMasterStates } from './rxdb-internals';

type Row<RxDocType> = RxReplicationWriteToMasterRow<RxDocType>;

/**
 * Takes a push's answer into the replica (the states the server took, its merges, the edits it
 * reports lost); resolves what RxDB is handed as the push's conflicts.
 */
export async function takeAnswer<RxDocType>(
  sync: CollectionSync<RxDocType>,
  rows: Row<RxDocType>[],
  sent: Row<RxDocType>[],
  result: PushResponse,
): Promise<never> {
  const { kept, options } = sync;
  // What the push sent is let go of in the records only once the answer is written as assumed:
  // an app ending in between must still find it in doubt (`resendTakenBack`).
  const answered: Array<() => void> = [];
  for (const row of rows) {
    const id = rowId(sync, row);
    sync.changedLocally.delete(id);
    kept.deferred.delete(id);
    answered.push(kept.sent.letGo(id));
    sync.handedToDownstream.delete(id);
    // Read again by every attempt until one is answered: a failed attempt is retried with RxDB's rows as they were.
    sync.assumedAgain.delete(id);
  }
  sync.versions.notePushOutcome(
    rows.map((row) => rowId(sync, row)),
    withTombstoneDefaults(sync, result.conflicts),
  );
  // RxDB writes a record gone on the server into the document only while it is still as pushed:
  // its tombstone is deferred and handed again once nothing of the user's is left to send.
  const gone = withTombstoneDefaults(sync, result.conflicts).filter((document) => document._deleted);
  for (const tombstone of gone) {
    sync.changedLocally.add(idOf(sync, tombstone));
    kept.deferred.set(idOf(sync, tombstone), tombstone);
  }
  if (gone.length > 0) handDeferredSoon(sync);
  const lost = keepLostEdits(kept, result.lost);
  // Nothing would bring the edits lost or the documents gone again: stored before the push is settled.
  await keptStored(kept);
  const conflicting = new Set(result.conflicts.map((document) => idOf(sync, document)));
  // An assumed master state that cannot be written leaves RxDB's: the state is pushed once more, as before.
  const assumed = await assumeSentStates(
    sync,
    sent.filter((row) => !conflicting.has(rowId(sync, row))),
  ).then(
    () => true,
    () => false,
  );
  const taken = await rebaseOnAnswer(sync, sent, result.conflicts).then(
    (asPushed) => {
      if (assumed) for (const release of answered) release();
      return asPushed;
    },
    (error) => {
      console.warn(`Taking the answer to a push of ${sync.remoteCollection} failed:`, error);
      return new Map<string, boolean>();
    },
  );
  if (lost.length > 0) options.onLostEdits?.(lost);
  if (options.onPushed) {
    // A document the answer was taken into is settled if it was still as pushed.
    const others = await settled(
      sync,
      sent.filter((row) => !taken.has(rowId(sync, row))),
    );
    options.onPushed([...others, ...[...taken].filter(([, asPushed]) => asPushed).map(([id]) => id)]);
  }
  return withTombstoneDefaults(sync, result.conflicts) as never;
}

/** Ids of pushed rows whose state is still the replica's: one written again meanwhile still waits to be sent. */
async function settled<RxDocType>(sync: CollectionSync<RxDocType>, rows: Row<RxDocType>[]): Promise<string[]> {
  const { held } = await forkStates(
    sync,
    rows.map((row) => rowId(sync, row)),
  );
  return rows
    .filter((row) => {
      const current = held.get(rowId(sync, row));
      return !current || sameState(current, row);
    })
    .map((row) => rowId(sync, row));
}

/**
 * RxDB takes the master state a push was answered with (a conflict: the push merged with what
 * changed there) into the document only while it is still as pushed, and that cannot be told ahead
 * of its write. So every answered document is rebased onto the master state here
 * (`rebaseOnServerState`: one still as pushed becomes it, one changed since keeps those changes),
 * in one write RxDB retries on the newest state, and that state written as assumed; RxDB's own write
 * then finds the document changed and leaves it. Resolves, per document taken, whether it was still as pushed.
 */
async function rebaseOnAnswer<RxDocType>(
  sync: CollectionSync<RxDocType>,
  sent: Row<RxDocType>[],
  conflicts: SyncDocument[],
): Promise<Map<string, boolean>> {
  const asPushed = new Map<string, boolean>();
  if (conflicts.length === 0) return asPushed;
  // The last state of each document the server took from this push (a newer one may follow RxDB's).
  const lastRows = new Map(sent.map((row) => [rowId(sync, row), row]));
  const lastSent = new Map(
    [...lastRows].map(([id, row]) => [id, row.newDocumentState as unknown as Record<string, unknown>]),
  );
  // One answer may name a document twice (a row sent again and its newer state): its last state counts.
  const latest = [...new Map(conflicts.map((document) => [idOf(sync, document), document])).values()];
  // A record gone on the server is not rebased: its edits come back as lost, the record leaves.
  const answered = withTombstoneDefaults(sync, latest).filter(
    (document) => !document._deleted && lastSent.has(idOf(sync, document)),
  );
  if (answered.length === 0) return asPushed;
  // Kept until the document is rebased, and stored before the assumed master state is written:
  // a process dying in between takes the answer again when the replica opens (`resumeTakingAnswers`).
  for (const server of answered) {
    const { _attachments, ...pushed } = lastSent.get(idOf(sync, server)) as Record<string, unknown>;
    sync.kept.answers.set(idOf(sync, server), { pushed, server });
  }
  await sync.kept.answers.stored();
  await assumeMasterStates(sync, answered);
  const docs = await sync.collection.findByIds(answered.map((server) => idOf(sync, server))).exec();
  const hidden = answered.filter((server) => !docs.has(idOf(sync, server)));
  if (hidden.length > 0) await takeBackHidden(sync, hidden, lastRows, asPushed);
  // Each document on its own (RxDB retries a write on the newest state), all at once.
  await Promise.all(
    answered.map((server) => {
      const id = idOf(sync, server);
      const row = lastRows.get(id);
      const pushed = lastSent.get(id);
      const doc = docs.get(id);
      if (!doc || !row || !pushed) return undefined;
      return (
        doc
          .incrementalModify((current: RxDocType) => {
            const { _meta, _rev, _attachments, ...held } = current as Record<string, unknown>;
            // Run again on a newer state when a write came first: its last run tells.
            asPushed.set(id, sameState(held, row));
            return rebaseOnServerState(
              pushed,
              current as unknown as Record<string, unknown>,
              server as unknown as Record<string, unknown>,
            ) as unknown as RxDocType;
          })
          // Let go in a record written after the rebase, which the storage writes after it.
          .then(() => sync.kept.answers.delete(id))
      );
    }),
  );
  return asPushed;
}

/**
 * Documents the replica holds as deleted (RxDB's documents leave them out) answered with a live
 * master state: the server's deletion or hiding sent back as held, or the user's deletion the
 * server did not keep. One still as sent becomes the master state (left deleted, the next push
 * would delete on the server a task shared with the user again); one written again keeps that write.
 */
async function takeBackHidden<RxDocType>(
  sync: CollectionSync<RxDocType>,
  answered: SyncDocument[],
  lastRows: Map<string, Row<RxDocType>>,
  asPushed: Map<string, boolean>,
): Promise<void> {
  const fork = sync.collection.storageInstance;
  const stored = await fork.findDocumentsById(
    answered.map((server) => idOf(sync, server)),
    true,
  );
  const held = new Map(stored.map((doc) => [idOf(sync, doc as Record<string, unknown>), doc]));
  const writes = answered.flatMap((server) => {
    const id = idOf(sync, server);
    const previous = held.get(id);
    const row = lastRows.get(id);
    if (!previous || !row || !previous._deleted) return [];
    const { _meta, _rev, _attachments, ...state } = previous as Record<string, unknown>;
    if (!sameState(state, row)) return [];
    asPushed.set(id, true);
    const live = { ...(server as unknown as RxDocumentData<RxDocType>), _deleted: false, _attachments: {} };
    return [forkRewrite(sync.collection, previous, live)];
  });
  if (writes.length > 0) {
    const result = await fork.bulkWrite(writes, 'orbita-sync-answer');
    // Written again meanwhile: that write is the user's, and is sent next.
    for (const error of result.error) asPushed.set(error.documentId, false);
  }
  for (const server of answered) sync.kept.answers.delete(idOf(sync, server));
}

/**
 * Answers whose taking was cut short (`TakenAnswers`): where the master state was written as
 * assumed, each document is rebased onto it as `rebaseOnAnswer` would have; where it was not, the
 * push is in doubt as any unanswered one and is sent again. Before RxDB pushes.
 */
export async function resumeTakingAnswers<RxDocType>(
  sync: CollectionSync<RxDocType>,
  protocol: ReplicationProtocol<RxDocType>,
): Promise<void> {
  const { answers } = sync.kept;
  const fork = sync.collection.storageInstance;
  for (let round = 0; round < 3 && answers.size > 0; round += 1) {
    const ids = [...answers.keys()];
    const [stored, known] = await Promise.all([
      fork.findDocumentsById(ids, true),
      readAssumedMasterStates(protocol, ids),
    ]);
    const held = new Map(stored.map((doc) => [idOf(sync, doc as Record<string, unknown>), doc]));
    const writes = ids.flatMap((id) => {
      const answer = answers.get(id);
      const previous = held.get(id);
      const assumed = known.get(id);
      const { _attachments, ...server } = assumed ?? {};
      if (!answer || !previous || !assumed || !deepEqual(asJson(server), asJson(answer.server))) {
        answers.delete(id);
        return [];
      }
      const { _meta, _rev, _attachments: _none, ...state } = previous as Record<string, unknown>;
      const asPushed = deepEqual(asJson(state), asJson(answer.pushed));
      // Deleted since the push: the user's deletion, sent against the master state.
      if (previous._deleted && !asPushed) {
        answers.delete(id);
        return [];
      }
      const rebased = asPushed
        ? { ...answer.server, _deleted: false }
        : rebaseOnServerState(answer.pushed, state, answer.server as unknown as Record<string, unknown>);
      if (deepEqual(asJson(rebased), asJson(state))) {
        answers.delete(id);
        return [];
      }
      const document = {
        ...(rebased as unknown as RxDocumentData<RxDocType>),
        _attachments: previous._attachments ?? {},
      };
      return [forkRewrite(sync.collection, previous, document)];
    });
    if (writes.length === 0) return;
    const result = await fork.bulkWrite(writes, 'orbita-sync-answer');
    const refused = new Set(result.error.map((error) => error.documentId));
    // Written again meanwhile: read again and rebased in the next round.
    for (const { document } of writes) {
      const id = idOf(sync, document as unknown as Record<string, unknown>);
      if (!refused.has(id)) answers.delete(id);
    }
  }
}
