import { createRevision, now, type RxDocumentData, type RxStorageInstance } from 'rxdb';

/** What a replication keeps across restarts of the app, each under its name (`KeptMap`). */
export type KeptName = 'sent' | 'deferred' | 'answers' | 'lost';

/** The item id a kept map is stored under; deferred master states keep the one earlier releases wrote. */
export function keptItemId(name: KeptName): string {
  return `kept:${name === 'deferred' ? 'setAside' : name}`;
}

/**
 * What an earlier release kept on the device beside the replica (the window's local storage): read
 * once when the replication starts, then cleared once the replication's records hold it.
 */
export interface KeptOnDevice<T> {
  load(): T;
  save(value: T): void;
}

// biome-ignore lint/suspicious/noExplicitAny: RxDB's replication meta data has a schema of RxDB's own.
type RecordsInstance = RxStorageInstance<any, unknown, unknown>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * One kept map stored among the replication's records (the storage instance of RxDB's replication
 * meta data, where its records of the server's states and its checkpoints are), as a document
 * shaped as a checkpoint under an item id no checkpoint has: RxDB reads its records and checkpoints
 * by id only and never meets it. It is stored as the records are: the desktop storage writes them
 * to disk, after every document write answered before, before it answers; the browser's answers a
 * write once stored. So a change kept here is never behind a record written after it, nor behind
 * what was sent after it was stored — where the window's local storage reaches the disk seconds
 * later, and an app killed meanwhile had written the record and lost what it depended on.
 */
export class KeptRecord {
  private previous: RxDocumentData<unknown> | undefined;

  constructor(
    private readonly records: RecordsInstance,
    private readonly databaseToken: string,
    private readonly name: KeptName,
  ) {}

  private get id(): string {
    return `${keptItemId(this.name)}|1`;
  }

  async load(): Promise<Record<string, unknown> | undefined> {
    const [document] = await this.records.findDocumentsById([this.id], false);
    this.previous = document as RxDocumentData<unknown> | undefined;
    const kept = (document as { checkpointData?: unknown } | undefined)?.checkpointData;
    return isRecord(kept) ? kept : undefined;
  }

  async save(value: Record<string, unknown>): Promise<void> {
    // Only this replication writes it; a conflict means a write of its own was answered late.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const previous = this.previous;
      const document = {
        id: this.id,
        itemId: keptItemId(this.name),
        isCheckpoint: '1',
        checkpointData: value,
        _deleted: false,
        _attachments: {},
        _meta: { lwt: now() },
        _rev: createRevision(this.databaseToken, previous),
      } as unknown as RxDocumentData<unknown>;
      const { error } = await this.records.bulkWrite([{ previous, document }], 'orbita-sync-kept');
      const [refused] = error;
      if (!refused) {
        this.previous = document;
        return;
      }
      if (refused.status !== 409)
        throw new Error(`The replica refused to keep its ${this.name} states (${refused.status})`);
      this.previous = refused.documentInDb as RxDocumentData<unknown>;
    }
    throw new Error(`The replica's ${this.name} states changed under every attempt to keep them`);
  }
}

/**
 * A map a replication keeps across restarts of the app, in its records (`KeptRecord`, attached
 * once the replication has started; until then, and for a map an earlier release kept on the
 * device, it holds what the device kept). Every change is saved once after the changes of one turn
 * of the event loop, in order; `stored()` resolves once what was changed so far is stored.
 */
export class KeptMap<T> extends Map<string, T> {
  /** Entries let go of here and still kept in the record (`letGo`). */
  private readonly lingering = new Map<string, T>();
  /** Ids changed here before the record was read: what it holds of them is older. */
  private touched: Set<string> | undefined = new Set();
  private readonly fromDevice = new Set<string>();
  /** The device holds what an earlier release kept: cleared once the record is saved. */
  private onDevice = false;
  private record: KeptRecord | undefined;
  private loading: Promise<void> | undefined;
  private scheduled = false;
  private saves: Promise<void> = Promise.resolve();
  private detached = false;

  /** `readable` tells what is kept of another release, or damaged, from what can be taken. */
  constructor(
    private readonly name: KeptName,
    private readonly earlier: KeptOnDevice<Record<string, T>> | undefined,
    private readonly readable: (value: unknown) => value is T,
  ) {
    super();
    const kept: unknown = earlier?.load();
    if (!isRecord(kept)) return;
    this.onDevice = Object.keys(kept).length > 0;
    for (const [id, value] of Object.entries(kept)) {
      if (!readable(value)) continue;
      super.set(id, value);
      this.fromDevice.add(id);
    }
  }

  override set(id: string, value: T): this {
    super.set(id, value);
    this.lingering.delete(id);
    this.touched?.add(id);
    this.saveSoon();
    return this;
  }

  override delete(id: string): boolean {
    const had = super.delete(id);
    const lingered = this.lingering.delete(id);
    this.touched?.add(id);
    if (had || lingered) this.saveSoon();
    return had;
  }

  /**
   * Lets go of `id` here and keeps it in the record until the function returned is called (what it
   * was kept for is stored), unless it is set or deleted meanwhile.
   */
  letGo(id: string): () => void {
    const value = this.get(id);
    if (value === undefined) return () => undefined;
    super.delete(id);
    this.lingering.set(id, value);
    this.touched?.add(id);
    return () => {
      if (this.lingering.get(id) !== value) return;
      this.lingering.delete(id);
      this.saveSoon();
    };
  }

  /** Reads what the record keeps (newer than what the device kept) and keeps every change there. */
  attach(record: KeptRecord): Promise<void> {
    this.loading ??= (async () => {
      let stored: Record<string, unknown> | undefined;
      try {
        stored = await record.load();
      } catch (error) {
        console.warn(`The replica could not read its kept ${this.name} states:`, error);
      }
      this.record = record;
      const touched = this.touched ?? new Set<string>();
      this.touched = undefined;
      if (stored) {
        for (const id of this.fromDevice) if (!touched.has(id)) super.delete(id);
        for (const [id, value] of Object.entries(stored))
          if (!touched.has(id) && this.readable(value)) super.set(id, value);
      }
      if (this.onDevice || touched.size > 0) this.saveSoon();
    })();
    return this.loading;
  }

  /** Resolves once every change made so far is stored (or failed to be, which is logged). */
  async stored(): Promise<void> {
    if (!this.loading) return;
    await this.loading;
    await this.saves;
  }

  /** The replication stopped: its records are closed, and changes from now on stay in memory. */
  detach(): void {
    this.detached = true;
  }

  private saveSoon() {
    if (this.scheduled || this.detached) return;
    this.scheduled = true;
    this.saves = this.saves.then(async () => {
      // The other changes of this turn go along.
      await null;
      this.scheduled = false;
      const record = this.record;
      // Saved once the record is read (`attach`).
      if (!record || this.detached) return;
      try {
        await record.save(Object.fromEntries([...this.lingering, ...this]));
        this.fromDevice.clear();
        if (this.onDevice) {
          this.onDevice = false;
          this.earlier?.save({});
        }
      } catch (error) {
        // This session still holds them; only an app ending before they are kept again would not.
        // Stopped meanwhile, the records are closed: what they hold is taken at the next start.
        if (!this.detached) console.warn(`The replica could not keep its ${this.name} states:`, error);
      }
    });
  }
}
