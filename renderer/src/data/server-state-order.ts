import { META_INSTANCE_SCHEMA_TITLE, type RxStorage, type RxStorageInstance } from 'rxdb';

/** Longest wait for a pulled document's server state to be recorded (it follows in milliseconds). */
const RECORD_WAIT_MS = 10_000;

/** RxDB's contexts of the replication's two writes of a pulled state. */
const DOWNSTREAM_DOCUMENTS = 'replication-downstream-';
const DOWNSTREAM_RECORDS = 'replication-down-write-meta';

interface Recording {
  done: Promise<void>;
  finish: () => void;
}

/**
 * RxDB stores a pulled state in two writes: the document, then its record of the server state (the
 * base a local edit is pushed against). An edit landing between the two is pushed against the
 * record before it — the server state before, or none — and when the record is then written, RxDB's
 * own update of it after the push is refused, so the replica holds the edit against a base it was
 * not made from and takes no later server change of the document until it is edited again.
 *
 * This storage makes every read of those records wait, per document, until the record of a
 * document already written is stored: the push then reads the base the edit was made from.
 * Only collections whose replication keeps records (`keepsRecords`: those replicated both ways)
 * are waited for: RxDB keeps none for a replication that only pulls, and the next pulled page of
 * such a collection (a resync after reconnecting) waited the whole limit for a record never written.
 */
export function withServerStatesInOrder<Internals, Options>(
  storage: RxStorage<Internals, Options>,
  keepsRecords: (collectionName: string) => boolean,
): RxStorage<Internals, Options> {
  const recording = new Map<string, Recording>();
  const settle = (id: string) => {
    recording.get(id)?.finish();
    recording.delete(id);
  };
  const expectRecords = (ids: string[]) => {
    const expected: [string, Recording][] = [];
    for (const id of ids) {
      if (recording.has(id)) continue;
      let finish: () => void = () => undefined;
      const done = new Promise<void>((resolve) => {
        finish = resolve;
      });
      const entry = { done, finish };
      recording.set(id, entry);
      expected.push([id, entry]);
    }
    // Never waited for longer, should a record not come.
    const timer: unknown = setTimeout(() => {
      for (const [id, entry] of expected) if (recording.get(id) === entry) settle(id);
    }, RECORD_WAIT_MS);
    // In Node (tests, benches) it does not keep the process alive.
    (timer as { unref?: () => void }).unref?.();
  };
  return {
    ...storage,
    async createStorageInstance(params) {
      const created = await storage.createStorageInstance(params);
      // Documents are read loosely here: only their ids matter.
      const instance = created as unknown as RxStorageInstance<Record<string, unknown>, Internals, Options>;
      const records = params.schema.title === META_INSTANCE_SCHEMA_TITLE;
      const recorded = !records && keepsRecords(params.collectionName);
      const primaryPath = String(
        typeof params.schema.primaryKey === 'string' ? params.schema.primaryKey : params.schema.primaryKey.key,
      );
      const bulkWrite: typeof instance.bulkWrite = async (rows, context) => {
        if (records) {
          if (context !== DOWNSTREAM_RECORDS) return instance.bulkWrite(rows, context);
          try {
            return await instance.bulkWrite(rows, context);
          } finally {
            for (const row of rows) settle(String(row.document.itemId));
          }
        }
        if (!context.startsWith(DOWNSTREAM_DOCUMENTS) || !recorded) return instance.bulkWrite(rows, context);
        // Expected before the write: nothing may read a record between the document and it. A
        // write keeping the revision stores no new state (a mark put on: `markUnrecordedPulls`),
        // so no record follows it.
        const ids = rows
          .filter((row) => row.previous?._rev !== row.document._rev)
          .map((row) => String(row.document[primaryPath]));
        expectRecords(ids);
        try {
          const result = await instance.bulkWrite(rows, context);
          // A refused document gets no record.
          for (const error of result.error) settle(String(error.documentId));
          return result;
        } catch (error) {
          for (const id of ids) settle(id);
          throw error;
        }
      };
      const findDocumentsById: typeof instance.findDocumentsById = async (ids, withDeleted) => {
        // A record's id is the document's id and `|0` (`|1` for the checkpoint records).
        const waits = ids.flatMap((id) => {
          const pending = recording.get(id.slice(0, id.lastIndexOf('|')));
          return pending ? [pending.done] : [];
        });
        if (waits.length > 0) await Promise.all(waits);
        return instance.findDocumentsById(ids, withDeleted);
      };
      return new Proxy(created, {
        get(target, key) {
          if (key === 'bulkWrite') return bulkWrite;
          if (key === 'findDocumentsById' && records) return findDocumentsById;
          const value = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
  };
}
