import {
  type BulkWriteRow,
  getAssumedMasterState,
  getHeightOfRevision,
  getLastCheckpointDoc,
  META_INSTANCE_SCHEMA_TITLE,
  normalizeMangoQuery,
  prepareQuery,
  type RxStorage,
  type RxStorageInstance,
  type RxStorageInstanceReplicationState,
} from 'rxdb';

/** What RxDB's replication plugin puts before a replication identifier to name its protocol instance. */
const PROTOCOL_IDENTIFIER_PREFIX = 'rxdbreplication';

/**
 * The hash RxDB's replication marks its documents with, and the context of its writes of pulled
 * documents to the collection (as RxDB derives them from the replication, database and collection).
 */
async function replicationKeys(
  hash: (input: string) => Promise<string>,
  identifier: string,
  databaseName: string,
  collectionName: string,
): Promise<{ mark: string; downstreamContext: string }> {
  const protocolIdentifier = PROTOCOL_IDENTIFIER_PREFIX + identifier;
  const checkpointKey = await hash([protocolIdentifier, databaseName, collectionName].join('||'));
  return {
    mark: await hash(protocolIdentifier),
    downstreamContext: `replication-downstream-rx_storage_replication_${checkpointKey}`,
  };
}

/** The mark RxDB's replication leaves on a document it wrote from the server. */
interface PulledMark {
  _rev: number;
  hash: string;
}

/**
 * RxDB stores a pulled state in two writes: the document, then its record of the server state.
 * Each document it writes is marked (`_meta.o`: the replication's hash and the revision written) so
 * that one found later without its record — the app closed between the two writes — is known to
 * be the server's, and the next pull records it. RxDB 17 drops that mark on the way to the storage
 * when the document is new to the replica: such a document then passes for an edit waiting to be
 * sent, which a pull never overwrites, while the replication has already passed it by as one of
 * its own writes. It would keep its first state until edited here, and that edit would be sent
 * without a base, its every difference reported lost. This storage puts the mark back.
 *
 * `identifierOf` names the replication of a collection (none: not replicated with records);
 * `hash` is the database's hash function.
 */
export function withPulledDocumentsMarked<Internals, Options>(
  storage: RxStorage<Internals, Options>,
  identifierOf: (collectionName: string) => string | undefined,
  hash: (input: string) => Promise<string>,
): RxStorage<Internals, Options> {
  return {
    ...storage,
    async createStorageInstance(params) {
      const instance = await storage.createStorageInstance(params);
      const identifier = identifierOf(params.collectionName);
      if (identifier === undefined || params.schema.title === META_INSTANCE_SCHEMA_TITLE) return instance;
      const keys = await replicationKeys(hash, identifier, params.databaseName, params.collectionName);
      const bulkWrite: typeof instance.bulkWrite = (rows, context) => {
        // That replication's only: another one (a schema migration copying the collection) writes
        // documents that may hold edits not sent yet.
        if (context === keys.downstreamContext) {
          for (const row of rows) {
            // RxDB's own copy of the document, on its way to the storage: the meta object is replaced
            // (RxDB shares one between the documents of a write), never changed.
            const document = row.document as { _rev: string; _meta: { o?: PulledMark } };
            if (row.previous || document._meta.o) continue;
            document._meta = {
              ...document._meta,
              o: { _rev: getHeightOfRevision(document._rev), hash: keys.mark },
            };
          }
        }
        return instance.bulkWrite(rows, context);
      };
      return new Proxy(instance, {
        get(target, key) {
          if (key === 'bulkWrite') return bulkWrite;
          const value = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
  };
}

/** The mark RxDB's replication leaves on the documents it writes from the server (`_meta.o.hash`). */
export function pulledMark<RxDocType>(internal: RxStorageInstanceReplicationState<RxDocType>): Promise<string> {
  return internal.input.hashFunction(internal.input.identifier);
}

/**
 * Whether a stored document is, as it stands, a state RxDB's replication wrote from the server:
 * marked with the revision it has. RxDB counts such a document as holding the server's state.
 */
export function isPulledState(document: { _rev: string; _meta: { o?: PulledMark } }, mark: string): boolean {
  return document._meta.o?.hash === mark && document._meta.o._rev === getHeightOfRevision(document._rev);
}

/** A stored document as the replication's fork holds it. */
type ForkDocument = Record<string, unknown> & {
  _rev: string;
  _deleted: boolean;
  _meta: { lwt: number; o?: PulledMark };
};

/**
 * Marks, as the server's, the pulled documents of a replica written before `withPulledDocumentsMarked`
 * whose record of the server state never reached the disk (the app closed between RxDB's two
 * writes): they carry no mark, have no record, and the replication's upstream has passed them by
 * (written before its checkpoint: not edits waiting to be sent, which it has not reached yet, and
 * which get a record once sent). Unmarked, a pull never updates them; marked, the next pull of each
 * records it and takes the server's state. Written below RxDB's collection layer (the revision and
 * write time stay, so the upstream does not take the mark for an edit) as the downstream's own
 * write. Returns the ids marked.
 */
export async function markUnrecordedPulls<RxDocType>(
  internal: RxStorageInstanceReplicationState<RxDocType>,
): Promise<string[]> {
  const fork = internal.input.forkInstance as unknown as RxStorageInstance<ForkDocument, unknown, unknown> & {
    originalStorageInstance?: RxStorageInstance<ForkDocument, unknown, unknown>;
  };
  const passed = (await getLastCheckpointDoc(internal, 'up')) as { id: string; lwt: number } | undefined;
  if (!passed) return [];
  const mark = await pulledMark(internal);
  const primaryPath = internal.primaryPath as string;
  const { documents } = await fork.query(
    prepareQuery(
      fork.schema,
      normalizeMangoQuery(fork.schema, {
        selector: { _deleted: { $eq: false }, '_meta.lwt': { $lte: passed.lwt } },
      } as never),
    ),
  );
  const unmarked = documents.filter((doc) => {
    const id = String(doc[primaryPath]);
    const before = doc._meta.lwt < passed.lwt || (doc._meta.lwt === passed.lwt && id <= passed.id);
    return before && !isPulledState(doc, mark);
  });
  if (unmarked.length === 0) return [];
  const recorded = await getAssumedMasterState(
    internal,
    unmarked.map((doc) => String(doc[primaryPath])),
  );
  const rows: BulkWriteRow<ForkDocument>[] = unmarked
    .filter((doc) => !recorded[String(doc[primaryPath])])
    .map((doc) => ({
      previous: doc,
      document: { ...doc, _meta: { ...doc._meta, o: { _rev: getHeightOfRevision(doc._rev), hash: mark } } },
    }));
  if (rows.length === 0) return [];
  await (fork.originalStorageInstance ?? fork).bulkWrite(rows, await internal.downstreamBulkWriteFlag);
  return rows.map((row) => String(row.document[primaryPath]));
}
