import {
  getPrimaryFieldOfPrimaryKey,
  normalizeMangoQuery,
  prepareQuery,
  RX_META_LWT_MINIMUM,
  type RxDocumentData,
  type RxStorageDefaultCheckpoint,
  type RxStorageInstance,
} from 'rxdb';

/**
 * The documents written after `checkpoint` (tombstones too), in (`_meta.lwt`, primary key) order,
 * for a storage without a native way: two range queries on the `[_meta.lwt, primary key]` index
 * that every RxDB schema has — the rest of the checkpoint's write time after its id, then the later
 * times. RxDB's generic way is one `$or` query that storages answer by testing every document from
 * the checkpoint's time on; the documents of one bulk write share their time (a pull batch of
 * 10,000, a whole replica copied by a schema migration), so paging through them tested the block
 * again for every page: a 50,000-task migration took minutes instead of seconds.
 */
export async function changedDocumentsSince<RxDocType>(
  instance: Pick<RxStorageInstance<RxDocType, unknown, unknown>, 'schema' | 'query'>,
  limit: number,
  checkpoint?: RxStorageDefaultCheckpoint,
): Promise<{ documents: RxDocumentData<RxDocType>[]; checkpoint: RxStorageDefaultCheckpoint }> {
  const { schema } = instance;
  const primaryPath = getPrimaryFieldOfPrimaryKey(schema.primaryKey) as string;
  const ranged = async (selector: Record<string, unknown>, count: number) => {
    const query = normalizeMangoQuery(schema, {
      selector: selector as never,
      sort: [{ '_meta.lwt': 'asc' }, { [primaryPath]: 'asc' }] as never,
      skip: 0,
      limit: count,
      index: ['_meta.lwt', primaryPath],
    });
    return (await instance.query(prepareQuery(schema, query))).documents;
  };
  const documents: RxDocumentData<RxDocType>[] = [];
  if (checkpoint) {
    documents.push(...(await ranged({ '_meta.lwt': checkpoint.lwt, [primaryPath]: { $gt: checkpoint.id } }, limit)));
  }
  if (documents.length < limit) {
    const later = checkpoint ? { $gt: checkpoint.lwt } : { $gte: RX_META_LWT_MINIMUM };
    documents.push(...(await ranged({ '_meta.lwt': later }, limit - documents.length)));
  }
  const last = documents.at(-1);
  return {
    documents,
    checkpoint: last
      ? { id: (last as Record<string, unknown>)[primaryPath] as string, lwt: last._meta.lwt }
      : (checkpoint ?? { id: '', lwt: 0 }),
  };
}
