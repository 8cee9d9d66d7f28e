import { getHeightOfRevision, META_INSTANCE_SCHEMA_TITLE, type RxStorage } from 'rxdb';

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
