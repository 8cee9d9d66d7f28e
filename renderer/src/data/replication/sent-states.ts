import type { SyncDocument } from '@shared/sync';
import { deepEqual, type RxReplicationWriteToMasterRow } from 'rxdb';
import { assumeMasterStates } from './assumed-master-states';
import { asJson, type CollectionSync, forkStates, idOf, rowId } from './collection-sync';
import { forkRewrite, type ReplicationProtocol, readAssumedMasterStates } from './rxdb-internals';

type Row<RxDocType> = RxReplicationWriteToMasterRow<RxDocType>;

/**
 * The rows a push sends: each document's state held now (RxDB's row may hold an older one, without
 * what the previous answer merged in), against the assumed master state RxDB read for the row. An
 * attempt may have been applied although its answer was lost, so a retry first sends again every
 * state earlier attempts sent, in order, each against the one before (`kept.sent`): the server
 * applies them in turn, and nothing taken back meanwhile is lost whichever attempt it holds.
 */
export function withCurrentStates<RxDocType>(
  sync: CollectionSync<RxDocType>,
  rows: Row<RxDocType>[],
  held: Map<string, Record<string, unknown>>,
): Row<RxDocType>[] {
  const sent = sync.kept.sent;
  return rows.flatMap((row) => {
    const id = rowId(sync, row);
    const { _attachments, ...rowState } = row.newDocumentState as Record<string, unknown>;
    const base = asJson(row.assumedMasterState);
    // Sent against another assumed master state, the earlier attempts are settled: that state was taken since.
    const earlier = sent.get(id);
    // Written as assumed as the last state sent (`resendTakenBack`): sent again from the first attempt's base.
    const resending = earlier !== undefined && !deepEqual(earlier.base, base) && deepEqual(earlier.states.at(-1), base);
    const first = resending ? earlier.base : base;
    const states = earlier && deepEqual(earlier.base, first) ? [...earlier.states] : [];
    const current = asJson(held.get(id) ?? rowState) as Record<string, unknown>;
    if (!deepEqual(current, states.at(-1))) states.push(current);
    // Noted before the attempt goes out: its answer may be lost after the server applied it.
    sent.set(id, { base: first, states });
    return states.map((state, index) => ({
      assumedMasterState:
        index === 0
          ? ((resending ? first : row.assumedMasterState) as typeof row.assumedMasterState)
          : (states[index - 1] as typeof row.newDocumentState),
      newDocumentState: state as unknown as typeof row.newDocumentState,
    }));
  });
}

/**
 * Pushes left in doubt when the app quit whose change the user took back entirely before it opened
 * again: the document holds its assumed master state, so RxDB has nothing to send, yet the server
 * may hold what an attempt sent. The last state sent is written as assumed and the document written
 * again as it is, so RxDB pushes it after what the attempts sent (`withCurrentStates`). Before the
 * first pull, which would settle those states by writing the master's.
 */
export async function resendTakenBack<RxDocType>(
  sync: CollectionSync<RxDocType>,
  protocol: ReplicationProtocol<RxDocType>,
): Promise<void> {
  const sent = sync.kept.sent;
  const ids = [...sent.keys()];
  if (ids.length === 0) return;
  const [{ held, pulled }, known] = await Promise.all([forkStates(sync, ids), readAssumedMasterStates(protocol, ids)]);
  const unassumed: SyncDocument[] = [];
  const resent = ids.flatMap((id) => {
    const kept = sent.get(id);
    const current = held.get(id);
    const assumed = known.get(id);
    const last = kept?.states.at(-1);
    if (!kept || !current || !last) return [];
    const server = assumed
      ? asJson(Object.fromEntries(Object.entries(assumed).filter(([k]) => k !== '_attachments')))
      : null;
    // Written by a pull since: pulls are refused while a push is in doubt, so that push was answered.
    if (pulled.has(id)) {
      sent.delete(id);
      if (!deepEqual(asJson(current), server)) unassumed.push(current as SyncDocument);
      return [];
    }
    // Settled by a master state taken since: not sent again, and pulled states are written again.
    if (!deepEqual(server, kept.base) && !deepEqual(server, last)) {
      sent.delete(id);
      return [];
    }
    // Changed since: RxDB sends it, the kept states first.
    if (!deepEqual(asJson(current), server)) return [];
    // Assumed to be the last state sent (or, being that state, the first attempt's base), it is sent after the attempts.
    const against = !deepEqual(asJson(current), last) ? last : kept.base;
    if (against === null || deepEqual(asJson(current), against)) {
      // Every attempt sent this very state, made from it: nothing is in doubt.
      sent.delete(id);
      return [];
    }
    return [against as unknown as SyncDocument];
  });
  if (unassumed.length > 0) await assumeMasterStates(sync, unassumed);
  if (resent.length === 0) return;
  await assumeMasterStates(sync, resent);
  const fork = sync.collection.storageInstance;
  const docs = await fork.findDocumentsById(
    resent.map((document) => idOf(sync, document)),
    true,
  );
  await fork.bulkWrite(
    docs.map((previous) => forkRewrite(sync.collection, previous, previous)),
    'orbita-sync-resend',
  );
}
