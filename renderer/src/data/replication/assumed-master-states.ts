import type { SyncDocument } from '@shared/sync';
import { deepEqual, type RxDocumentData, type RxReplicationWriteToMasterRow } from 'rxdb';
import { type CollectionSync, idOf, isStopped, protocolOfSync, pulledMarkOf, rowId } from './collection-sync';
import { isPulledState, readAssumedMasterStates, writeAssumedMasterStates } from './rxdb-internals';

/** Writes these documents' states as their assumed master states (what their next push is merged against). */
export async function assumeMasterStates<RxDocType>(
  sync: CollectionSync<RxDocType>,
  documents: SyncDocument[],
): Promise<void> {
  const protocol = protocolOfSync(sync);
  if (documents.length === 0 || !protocol) return;
  await writeAssumedMasterStates(protocol, documents);
}

/**
 * Writes, as each document's assumed master state, the last state a push sent of it that the
 * server took as sent, before the answer is handed to RxDB: RxDB would write the state it handed
 * over, not a newer one sent after it (`withCurrentStates`), and only after handing the answer
 * over. Its own write, based on what it read before the push, is then refused and ignored.
 */
export function assumeSentStates<RxDocType>(
  sync: CollectionSync<RxDocType>,
  rows: RxReplicationWriteToMasterRow<RxDocType>[],
): Promise<void> {
  return assumeMasterStates(sync, [
    ...new Map(rows.map((row) => [rowId(sync, row), row.newDocumentState as unknown as SyncDocument])).values(),
  ]);
}

/**
 * RxDB writes a pulled state in two writes, the document and then its assumed master state, and
 * counts a document marked as pulled (`isPulledState`) as the master's whatever that state says. An
 * app quitting between the two left the older assumed master state, which a write of the user's was
 * then pushed against. So at a write of the user's over a pulled state, that state is written as the
 * assumed master state where it differs, and the push reads it again (`assumedAgain`).
 */
export function assumePulledStates<RxDocType>(
  sync: CollectionSync<RxDocType>,
  events: readonly { previousDocumentData?: unknown }[],
): void {
  const previous = events.flatMap((event) =>
    event.previousDocumentData ? [event.previousDocumentData as RxDocumentData<RxDocType>] : [],
  );
  if (previous.length === 0) return;
  const job = (async () => {
    await sync.replication?.startPromise;
    const protocol = protocolOfSync(sync);
    if (!protocol || isStopped(sync)) return;
    const mark = await pulledMarkOf(sync, protocol);
    const pulled = previous.filter((document) => isPulledState(document as never, mark));
    if (pulled.length === 0) return;
    const known = await readAssumedMasterStates(
      protocol,
      pulled.map((document) => idOf(sync, document as Record<string, unknown>)),
    );
    const unassumed = pulled.flatMap((document) => {
      const { _meta, _rev, _attachments, ...server } = document as Record<string, unknown>;
      const assumed = known.get(idOf(sync, server));
      const { _attachments: _none, ...held } = assumed ?? {};
      return assumed && deepEqual(held, server) ? [] : [server as SyncDocument];
    });
    if (unassumed.length === 0) return;
    await assumeMasterStates(sync, unassumed);
    for (const document of unassumed) sync.assumedAgain.add(idOf(sync, document));
  })().catch((error) => {
    // A replica closing meanwhile has nothing more to send.
    if (!isStopped(sync))
      console.warn(`Writing the pulled states of ${sync.remoteCollection} as assumed failed:`, error);
  });
  sync.assumingPulled.add(job);
  void job.finally(() => sync.assumingPulled.delete(job));
}

/**
 * The rows with their assumed master state read again where RxDB's row has none or it was written
 * since (`assumedAgain`): RxDB reads it once, when it first sees the write, and retries the row as
 * it is, while a state written by then (a page closed between the downstream's two writes) is there.
 */
export async function withCurrentAssumedMasterStates<RxDocType>(
  sync: CollectionSync<RxDocType>,
  rows: RxReplicationWriteToMasterRow<RxDocType>[],
): Promise<RxReplicationWriteToMasterRow<RxDocType>[]> {
  while (sync.assumingPulled.size > 0) await Promise.allSettled([...sync.assumingPulled]);
  const missing = rows.filter((row) => !row.assumedMasterState || sync.assumedAgain.has(rowId(sync, row)));
  const protocol = protocolOfSync(sync);
  if (missing.length === 0 || !protocol) return rows;
  // Reading it again is a help, never a reason for the push to fail.
  const known = await readAssumedMasterStates(
    protocol,
    missing.map((row) => rowId(sync, row)),
  ).catch(() => new Map<string, Record<string, unknown>>());
  return rows.map((row) => {
    if (!missing.includes(row)) return row;
    const current = known.get(rowId(sync, row));
    return current ? { ...row, assumedMasterState: current as typeof row.newDocumentState } : row;
  });
}
