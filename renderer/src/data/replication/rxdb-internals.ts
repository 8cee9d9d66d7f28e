import {
  type BulkWriteRow,
  createRevision,
  getAssumedMasterState,
  getChangedDocumentsSince,
  getMetaWriteRow,
  now,
  type RxCollection,
  type RxDocumentData,
  type RxStorageBulkWriteResponse,
  type RxStorageInstance,
  type RxStorageInstanceReplicationState,
} from 'rxdb';
import type { RxReplicationState } from 'rxdb/plugins/replication';

/**
 * Every part of RxDB's replication that is not its public API, as this replication uses it. Each is
 * exercised against the installed RxDB by `rxdb-internals.test.ts`, which names the one that changed.
 */

export { isPulledState, pulledMark } from '../pulled-marks';

/** RxDB's replication protocol under a running replication (its `internalReplicationState`). */
export type ReplicationProtocol<RxDocType> = RxStorageInstanceReplicationState<RxDocType>;

type ForkWrite<RxDocType> = (
  rows: BulkWriteRow<RxDocType>[],
  context: string,
) => Promise<RxStorageBulkWriteResponse<RxDocType>>;

/** The protocol under `replication`, once it has started. */
export function protocolOf<RxDocType, Checkpoint>(
  replication: RxReplicationState<RxDocType, Checkpoint> | undefined,
): ReplicationProtocol<RxDocType> | undefined {
  return replication?.internalReplicationState;
}

/** Whether RxDB's upstream has writes of the user's to look at (or push). */
export function isUpstreamActive<RxDocType>(protocol: ReplicationProtocol<RxDocType>): boolean {
  return protocol.events.active.up.getValue();
}

/** Whether RxDB's downstream is busy: writing a pull's answer, or waiting to try a failed pull again. */
export function isDownstreamActive<RxDocType>(protocol: ReplicationProtocol<RxDocType>): boolean {
  return protocol.events.active.down.getValue();
}

/** Whether the protocol was cancelled (the replication stopped). */
export function isProtocolCanceled<RxDocType>(protocol: ReplicationProtocol<RxDocType>): boolean {
  return protocol.events.canceled.getValue() === true;
}

/** Resolves once RxDB's downstream queue is over: what it read before is written. */
export function downstreamDone<RxDocType>(protocol: ReplicationProtocol<RxDocType> | undefined): Promise<unknown> {
  return (protocol?.streamQueue.down ?? Promise.resolve()).catch(() => undefined);
}

/** The context of the downstream's writes of master states to the collection's storage instance. */
export function downstreamWriteContext<RxDocType>(protocol: ReplicationProtocol<RxDocType>): Promise<string> {
  return protocol.downstreamBulkWriteFlag;
}

/** Whether a write, by its context, is the downstream's (a master state written to the replica). */
export function isDownstreamContext(context: string): boolean {
  return context.startsWith('replication-downstream');
}

/** Whether a write, by its context, is one of RxDB's replication's own. */
export function isReplicationContext(context: string): boolean {
  return context.startsWith('replication-');
}

/** The storage instance of the replication's meta data: its assumed master states and checkpoints. */
export function metaInstanceOf<RxDocType>(
  protocol: ReplicationProtocol<RxDocType>,
): ReplicationProtocol<RxDocType>['input']['metaInstance'] {
  return protocol.input.metaInstance;
}

/** The assumed master state of each of `ids` that has one, by id. */
export async function readAssumedMasterStates<RxDocType>(
  protocol: ReplicationProtocol<RxDocType>,
  ids: string[],
): Promise<Map<string, Record<string, unknown>>> {
  const known = await getAssumedMasterState(protocol, ids);
  const states = new Map<string, Record<string, unknown>>();
  for (const [id, { docData }] of Object.entries(known)) states.set(id, docData as Record<string, unknown>);
  return states;
}

/** Writes `documents` as their assumed master states (what their next push is merged against). */
export async function writeAssumedMasterStates<RxDocType>(
  protocol: ReplicationProtocol<RxDocType>,
  documents: Record<string, unknown>[],
): Promise<void> {
  if (documents.length === 0) return;
  const idOf = (document: Record<string, unknown>) => String(document[protocol.primaryPath]);
  const known = await getAssumedMasterState(protocol, documents.map(idOf));
  const writes = await Promise.all(
    documents.map((document) => getMetaWriteRow(protocol, document as never, known[idOf(document)]?.metaDocument)),
  );
  await protocol.input.metaInstance.bulkWrite(writes, 'orbita-sync-sent-state');
}

/**
 * Hands RxDB's protocol copies of its meta and fork instances (the instances themselves, which
 * storages wrap and which outlive the replication, stay as they are): a checkpoint write waits for
 * `beforeCheckpointWrite`, and a checkpoint read or write, or a read of changes since a checkpoint,
 * that fails while `quiet()` holds is answered as nothing found or written.
 */
export function guardCheckpointCalls<RxDocType>(
  protocol: ReplicationProtocol<RxDocType>,
  hooks: { beforeCheckpointWrite: () => Promise<unknown>; quiet: () => boolean },
): void {
  const { input } = protocol;
  const quietly = <T>(call: Promise<T>, nothing: () => T): Promise<T> =>
    call.catch((error: unknown) => {
      if (hooks.quiet()) return nothing();
      throw error;
    });
  const meta = input.metaInstance;
  const isCheckpoint = (id: string) => id.endsWith('|1');
  input.metaInstance = Object.assign(Object.create(meta) as typeof meta, {
    bulkWrite: ((rows, context) =>
      context === 'replication-set-checkpoint'
        ? quietly(
            hooks.beforeCheckpointWrite().then(() => meta.bulkWrite(rows, context)),
            () => ({ error: [] }),
          )
        : meta.bulkWrite(rows, context)) as typeof meta.bulkWrite,
    findDocumentsById: ((ids, withDeleted) =>
      ids.every(isCheckpoint)
        ? quietly(meta.findDocumentsById(ids, withDeleted), () => [])
        : meta.findDocumentsById(ids, withDeleted)) as typeof meta.findDocumentsById,
  });
  const forkInstance = input.forkInstance;
  // RxDB's helper reads a storage without changes by checkpoint through its queries.
  const changesSince: NonNullable<typeof forkInstance.getChangedDocumentsSince> = (limit, checkpoint) =>
    getChangedDocumentsSince(forkInstance, limit, checkpoint);
  input.forkInstance = Object.assign(Object.create(forkInstance) as typeof forkInstance, {
    getChangedDocumentsSince: ((limit, checkpoint) =>
      quietly(changesSince(limit, checkpoint), () => ({ documents: [], checkpoint }))) as typeof changesSince,
  });
}

/**
 * Passes every write to the collection's storage instance, where the downstream writes master
 * states, through `guard` (which writes on with `write`), until the function returned is called.
 */
export function interceptForkWrites<RxDocType>(
  collection: RxCollection<RxDocType>,
  guard: (
    rows: BulkWriteRow<RxDocType>[],
    context: string,
    write: ForkWrite<RxDocType>,
  ) => Promise<RxStorageBulkWriteResponse<RxDocType>>,
): () => void {
  const fork: RxStorageInstance<RxDocType, unknown, unknown> = collection.storageInstance;
  const forkWrite = fork.bulkWrite;
  const write: ForkWrite<RxDocType> = (rows, context) => forkWrite.call(fork, rows, context);
  const intercepted: ForkWrite<RxDocType> = (rows, context) => guard(rows, context, write);
  fork.bulkWrite = intercepted;
  return () => {
    if (fork.bulkWrite === intercepted) fork.bulkWrite = forkWrite;
  };
}

/** A write of `state` over the stored `previous` below RxDB's collection layer, as a revision of this database's. */
export function forkRewrite<RxDocType>(
  collection: RxCollection<RxDocType>,
  previous: RxDocumentData<RxDocType>,
  state: Omit<RxDocumentData<RxDocType>, '_meta' | '_rev'>,
): BulkWriteRow<RxDocType> {
  const document = {
    ...state,
    _meta: { ...previous._meta, lwt: now() },
    _rev: createRevision(collection.database.token, previous),
  } as RxDocumentData<RxDocType>;
  return { previous, document };
}

/** Runs `before` whenever the replication is cancelled: by the app, or by RxDB as its collection closes. */
export function beforeCancel<RxDocType, Checkpoint>(
  replication: RxReplicationState<RxDocType, Checkpoint>,
  before: () => Promise<unknown>,
): void {
  const cancel = replication.cancel.bind(replication);
  replication.cancel = async () => {
    await before();
    return cancel();
  };
}
