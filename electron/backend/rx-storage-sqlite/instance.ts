import type {
  BulkWriteRow,
  EventBulk,
  PreparedQuery,
  RxDocumentData,
  RxJsonSchema,
  RxStorageBulkWriteResponse,
  RxStorageChangeEvent,
  RxStorageCountResult,
  RxStorageDefaultCheckpoint,
  RxStorageInstance,
  RxStorageQueryResult,
} from 'rxdb';
import { categorizeBulkWriteRows, now } from 'rxdb';
import { type Observable, Subject, type Subscription } from 'rxjs';
import type { BetterSqliteSettings, ChangeBulk, CollectionState } from './database';
import { dropCollection, releaseCollection, releaseDatabase } from './database';
import { closedError, idList, indexKey, removedError, runsWithoutRepeatedIds } from './helpers';
import { countDocuments, explainQuery, queryDocuments } from './query';

/** What `instance.internals` exposes: where the documents live. */
export interface BetterSqliteInternals {
  /** Absolute path of the SQLite file, or `:memory:<database name>`. */
  databaseKey: string;
  /** Table holding this collection's documents at this schema version. */
  tableName: string;
}

/** Per-instance options (none yet); storage-wide settings are given to `getRxStorageBetterSqlite()`. */
export type BetterSqliteInstanceOptions = Record<string, never>;

/** Tombstones removed per `cleanup()` call, so one call never holds the write lock for long. */
const CLEANUP_BATCH = 5_000;

export class RxStorageInstanceBetterSqlite<RxDocType>
  implements
    RxStorageInstance<RxDocType, BetterSqliteInternals, BetterSqliteInstanceOptions, RxStorageDefaultCheckpoint>
{
  readonly internals: BetterSqliteInternals;
  private readonly primaryPath: string;
  private readonly changes$ = new Subject<EventBulk<RxStorageChangeEvent<RxDocType>, RxStorageDefaultCheckpoint>>();
  private readonly shared: Subscription;
  private closed = false;

  constructor(
    readonly databaseName: string,
    readonly collectionName: string,
    readonly schema: Readonly<RxJsonSchema<RxDocumentData<RxDocType>>>,
    readonly options: Readonly<BetterSqliteInstanceOptions>,
    readonly settings: Readonly<BetterSqliteSettings>,
    private readonly state: CollectionState,
  ) {
    this.primaryPath = state.primaryPath;
    this.internals = { databaseKey: state.database.key, tableName: state.table };
    // Every instance of the same collection in this process sees every write.
    this.shared = state.changes$.subscribe((bulk) => this.changes$.next(bulk as never));
  }

  private usable(operation: string): CollectionState {
    if (this.closed) throw closedError(`${operation}() on ${this.databaseName}/${this.collectionName}`);
    if (this.state.removed) throw removedError(`${operation}() on ${this.databaseName}/${this.collectionName}`);
    return this.state;
  }

  async bulkWrite(
    documentWrites: BulkWriteRow<RxDocType>[],
    context: string,
  ): Promise<RxStorageBulkWriteResponse<RxDocType>> {
    const state = this.usable('bulkWrite');
    const { db } = state.database;
    const { primaryPath } = state;
    // Read, conflict check and write in one immediate transaction: no other writer in between.
    const categorized = db
      .transaction(() => {
        let result: CategorizedWrites<RxDocType> | undefined;
        // A document named twice is written in order: the later write meets the earlier one's
        // outcome (a 409 unless its `previous` is that state), as two bulkWrites in a row would.
        for (const run of runsWithoutRepeatedIds(documentWrites, primaryPath)) {
          const part = this.writeRun(state, run, context);
          result = result ? mergeCategorized(result, part) : part;
        }
        return result as CategorizedWrites<RxDocType>;
      })
      .immediate();

    if (categorized.eventBulk.events.length > 0 && categorized.newestRow) {
      const newest = categorized.newestRow.document;
      categorized.eventBulk.checkpoint = {
        id: (newest as Record<string, unknown>)[primaryPath] as string,
        lwt: newest._meta.lwt,
      };
      state.changes$.next(categorized.eventBulk as unknown as ChangeBulk);
    }
    return { error: categorized.errors };
  }

  /** Conflict check and write of rows naming each document once, inside the caller's transaction. */
  private writeRun(
    state: CollectionState,
    documentWrites: BulkWriteRow<RxDocType>[],
    context: string,
  ): CategorizedWrites<RxDocType> {
    const { statements, indexes, primaryPath } = state;
    const ids = documentWrites.map((row) => (row.document as Record<string, unknown>)[primaryPath] as string);
    const inDb = new Map<string, RxDocumentData<RxDocType>>();
    const rows = (ids.length === 1 ? statements.byId.all(ids[0]) : statements.byIds.all(idList(ids))) as string[];
    for (const data of rows) {
      const doc = JSON.parse(data) as RxDocumentData<RxDocType>;
      inDb.set((doc as Record<string, unknown>)[primaryPath] as string, doc);
    }
    const result = categorizeBulkWriteRows<RxDocType>(this, primaryPath as never, inDb, documentWrites, context);
    for (const row of result.bulkInsertDocs) {
      const doc = row.document as RxDocumentData<unknown>;
      const values: unknown[] = [
        (doc as Record<string, unknown>)[primaryPath],
        doc._deleted ? 1 : 0,
        doc._meta.lwt,
        JSON.stringify(doc),
      ];
      for (const index of indexes) values.push(indexKey(index.indexableString(doc)));
      statements.insert.run(values);
    }
    for (const row of result.bulkUpdateDocs) {
      const doc = row.document as RxDocumentData<unknown>;
      const values: unknown[] = [doc._deleted ? 1 : 0, doc._meta.lwt, JSON.stringify(doc)];
      for (const index of indexes) values.push(indexKey(index.indexableString(doc)));
      values.push((doc as Record<string, unknown>)[primaryPath]);
      statements.update.run(values);
    }
    return result;
  }

  async findDocumentsById(ids: string[], withDeleted: boolean): Promise<RxDocumentData<RxDocType>[]> {
    const { statements } = this.usable('findDocumentsById');
    if (ids.length === 0) return [];
    const rows =
      ids.length === 1
        ? (withDeleted ? statements.byId : statements.byIdLive).all(ids[0])
        : (withDeleted ? statements.byIds : statements.byIdsLive).all(idList(ids));
    return (rows as string[]).map((data) => JSON.parse(data) as RxDocumentData<RxDocType>);
  }

  async query(preparedQuery: PreparedQuery<RxDocType>): Promise<RxStorageQueryResult<RxDocType>> {
    const state = this.usable('query');
    return { documents: queryDocuments(state, preparedQuery as PreparedQuery<unknown>) as RxDocumentData<RxDocType>[] };
  }

  async count(preparedQuery: PreparedQuery<RxDocType>): Promise<RxStorageCountResult> {
    const state = this.usable('count');
    return countDocuments(state, preparedQuery as PreparedQuery<unknown>);
  }

  /** SQLite's plan for the index range a query reads (diagnostics and tests): `SEARCH … USING INDEX …`, or `SCAN …`. */
  explainQuery(preparedQuery: PreparedQuery<RxDocType>): string[] {
    return explainQuery(this.usable('explainQuery'), preparedQuery as PreparedQuery<unknown>);
  }

  /** Documents written after the checkpoint, tombstones included, ordered by (`_meta.lwt`, primary key). */
  async getChangedDocumentsSince(
    limit: number,
    checkpoint?: RxStorageDefaultCheckpoint,
  ): Promise<{ documents: RxDocumentData<RxDocType>[]; checkpoint: RxStorageDefaultCheckpoint }> {
    const { statements } = this.usable('getChangedDocumentsSince');
    const rows = checkpoint
      ? statements.changesAfter.all(checkpoint.lwt, checkpoint.id, limit)
      : statements.changes.all(limit);
    const documents = (rows as string[]).map((data) => JSON.parse(data) as RxDocumentData<RxDocType>);
    const last = documents[documents.length - 1];
    return {
      documents,
      checkpoint: last
        ? { id: (last as Record<string, unknown>)[this.primaryPath] as string, lwt: last._meta.lwt }
        : (checkpoint ?? { id: '', lwt: 0 }),
    };
  }

  changeStream(): Observable<EventBulk<RxStorageChangeEvent<RxDocType>, RxStorageDefaultCheckpoint>> {
    this.usable('changeStream');
    return this.changes$.asObservable();
  }

  /** Purges tombstones older than `minimumDeletedTime` ms; `false` when more remain for a later call. */
  async cleanup(minimumDeletedTime: number): Promise<boolean> {
    const { statements } = this.usable('cleanup');
    const { changes } = statements.cleanup.run(now() - minimumDeletedTime, CLEANUP_BATCH);
    return changes < CLEANUP_BATCH;
  }

  async getAttachmentData(documentId: string, attachmentId: string, _digest: string): Promise<Blob> {
    this.usable('getAttachmentData');
    throw new Error(
      `better-sqlite3 storage does not support attachments (document ${documentId}, attachment ${attachmentId})`,
    );
  }

  /** Deletes this collection's table (all its documents) and closes the instance. */
  async remove(): Promise<void> {
    const state = this.usable('remove');
    dropCollection(state);
    await this.close();
  }

  /** Idempotent; closing the last instance of a database closes its SQLite handle. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.shared.unsubscribe();
    this.changes$.complete();
    releaseCollection(this.state);
    releaseDatabase(this.state.database);
  }
}

type CategorizedWrites<RxDocType> = ReturnType<typeof categorizeBulkWriteRows<RxDocType>>;

/** One batch's outcome from its runs': every error and change event, in order, and the newest write. */
function mergeCategorized<RxDocType>(
  earlier: CategorizedWrites<RxDocType>,
  later: CategorizedWrites<RxDocType>,
): CategorizedWrites<RxDocType> {
  earlier.errors.push(...later.errors);
  earlier.eventBulk.events.push(...later.eventBulk.events);
  if (later.newestRow) earlier.newestRow = later.newestRow;
  return earlier;
}
