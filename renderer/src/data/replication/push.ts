import type { PushResponse, SyncDocument } from '@shared/sync';
import { deepEqual, type RxReplicationWriteToMasterRow } from 'rxdb';
import { takeAnswer } from './answer';
import { assumeMasterStates, withCurrentAssumedMasterStates } from './assumed-master-states';
import { asJson, type CollectionSync, forkStates, rowId } from './collection-sync';
import { prepareFirstPull } from './first-pull';
import { withCurrentStates } from './sent-states';
import { callServer, offlineProblem, SyncProblemError, troubleOf, whenConnected } from './socket-call';

type Row<RxDocType> = RxReplicationWriteToMasterRow<RxDocType>;

/** RxDB's push handler: sends the rows over `sync:push` and takes the answer into the replica. */
export async function push<RxDocType>(sync: CollectionSync<RxDocType>, rows: Row<RxDocType>[]): Promise<never> {
  // An answer left untaken when the app last quit is taken before anything is sent.
  await prepareFirstPull(sync);
  const ids = rows.map((row) => rowId(sync, row));
  for (const id of ids) sync.pushing.set(id, (sync.pushing.get(id) ?? 0) + 1);
  let result: PushResponse;
  let sent = rows;
  try {
    result = await sync.backoff.run(async () => {
      const attempt = await sendAttempt(sync, rows);
      sent = attempt.sent;
      return attempt.answer;
    });
  } catch (error) {
    const trouble = troubleOf(error);
    if (trouble) sync.options.onSyncProblem?.('send', trouble);
    throw error;
  } finally {
    for (const id of ids) {
      const left = (sync.pushing.get(id) ?? 1) - 1;
      if (left > 0) sync.pushing.set(id, left);
      else sync.pushing.delete(id);
    }
  }
  sync.options.onSyncProblem?.('send', undefined);
  const taking = takeAnswer(sync, rows, sent, result);
  sync.answering.add(taking);
  try {
    return await taking;
  } finally {
    sync.answering.delete(taking);
  }
}

/** One attempt of a push: the rows as sent (`sent`) and the server's answer. */
async function sendAttempt<RxDocType>(
  sync: CollectionSync<RxDocType>,
  rows: Row<RxDocType>[],
): Promise<{ sent: Row<RxDocType>[]; answer: PushResponse }> {
  const { socket, kept } = sync;
  const ids = rows.map((row) => rowId(sync, row));
  // Read once connected, right before sending: a state stored, or a write, while the push waited goes along.
  await whenConnected(socket, sync.timing.connectWaitMs);
  const noted = new Map(ids.map((id) => [id, kept.sent.get(id)]));
  // The states first: a write of the user's they hold has its pulled state assumed by the time the base is read.
  const { held, pulled } = await forkStates(sync, ids);
  const based = await withCurrentAssumedMasterStates(sync, rows);
  // A master state the downstream wrote and nobody changed since is the server's, never the user's:
  // RxDB's upstream sends one whose assumed master state never reached the disk.
  const fromServer = based.filter((row) => {
    const current = held.get(rowId(sync, row));
    const { _attachments, ...base } = (row.assumedMasterState ?? {}) as Record<string, unknown>;
    return pulled.has(rowId(sync, row)) && !deepEqual(asJson(current), asJson(base));
  });
  if (fromServer.length > 0)
    await assumeMasterStates(
      sync,
      fromServer.map((row) => held.get(rowId(sync, row)) as SyncDocument),
    );
  const changed = based.filter((row) => !fromServer.includes(row));
  sync.options.onSending?.(changed.map((row) => rowId(sync, row)));
  // Not connected, nothing goes out: nothing is in doubt, nothing is noted as sent.
  if (!socket.connected) throw offlineProblem();
  const sent = withCurrentStates(sync, changed, held);
  if (sent.length === 0) return { sent, answer: { conflicts: [], lost: [] } };
  // Stored before it goes out; stopping waits for this, and for a refusal to be noted.
  const storing = kept.sent.stored();
  sync.storingSent.add(storing);
  await storing.finally(() => sync.storingSent.delete(storing));
  const answer = await callServer<PushResponse>(
    socket,
    'sync:push',
    {
      collection: sync.remoteCollection,
      rows: sent.map((row) => ({
        assumedMasterState: (row.assumedMasterState ?? null) as SyncDocument | null,
        newDocumentState: row.newDocumentState as unknown as SyncDocument,
      })),
    },
    // The connection was waited for above.
    { ...sync.timing, connectWaitMs: 0 },
  ).catch((error: unknown) => {
    // Refused before it went out (not connected): nothing of this attempt is in doubt.
    if (error instanceof SyncProblemError && error.problem.code === 'offline') {
      for (const [id, states] of noted) {
        if (states) kept.sent.set(id, states);
        else kept.sent.delete(id);
      }
    }
    throw error;
  });
  return { sent, answer };
}
