import {
  createRxDatabase,
  type RxCollection,
  type RxReplicationPullStreamItem,
  type RxReplicationWriteToMasterRow,
  type RxStorage,
  type RxStorageInstance,
} from 'rxdb';
import { replicateRxCollection } from 'rxdb/plugins/replication';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { Subject } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import {
  beforeCancel,
  downstreamDone,
  downstreamWriteContext,
  forkRewrite,
  guardCheckpointCalls,
  interceptForkWrites,
  isDownstreamActive,
  isDownstreamContext,
  isProtocolCanceled,
  isPulledState,
  isReplicationContext,
  isUpstreamActive,
  metaInstanceOf,
  protocolOf,
  pulledMark,
  readAssumedMasterStates,
  writeAssumedMasterStates,
} from './rxdb-internals';

/** Each check fails with this, naming the part of RxDB that no longer works as the replication relies on. */
const changed = (internal: string) => `RxDB changed: ${internal} (see rxdb-internals.ts)`;
const WAIT = { timeout: 10_000 };

interface Note {
  id: string;
  text: string;
  updatedAt: string;
}

type Instance = RxStorageInstance<unknown, unknown, unknown>;

/**
 * RxDB's memory storage whose instances note the contexts of their writes and the ids they read,
 * and whose reads of checkpoints and of changes fail while `failing.reads` is set.
 */
function observedMemory() {
  const memory = getRxStorageMemory();
  const seen = { writes: [] as { context: string; ids: string[] }[], failed: 0 };
  const failing = { reads: false };
  const storage: RxStorage<unknown, unknown> = {
    ...memory,
    async createStorageInstance(params) {
      const instance = (await memory.createStorageInstance(params as never)) as Instance;
      const write = instance.bulkWrite.bind(instance);
      instance.bulkWrite = (rows, context) => {
        seen.writes.push({ context, ids: rows.map((row) => String((row.document as { id?: unknown }).id)) });
        return write(rows, context);
      };
      const read = instance.findDocumentsById.bind(instance);
      instance.findDocumentsById = async (ids, withDeleted) => {
        if (failing.reads && ids.every((id) => id.endsWith('|1'))) {
          seen.failed += 1;
          throw new Error('checkpoint read failed');
        }
        return read(ids, withDeleted);
      };
      const query = instance.query.bind(instance);
      instance.query = async (prepared) => {
        if (failing.reads) {
          seen.failed += 1;
          throw new Error('query failed');
        }
        return query(prepared);
      };
      return instance as never;
    },
  };
  return { storage, seen, failing };
}

/**
 * A notes collection replicated with a master held in the test: `serve(documents)` answers the next
 * pull, `stream$` is the pull stream, `pushed` every push's rows; `holdPulls()` keeps pulls waiting.
 */
async function replicatedNotes() {
  const observed = observedMemory();
  const db = await createRxDatabase({
    name: `internals-${Date.now()}-${Math.random().toString(36).slice(2)}`,
    storage: observed.storage,
    multiInstance: false,
  });
  const schema = {
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: { id: { type: 'string', maxLength: 64 }, text: { type: 'string' }, updatedAt: { type: 'string' } },
    required: ['id'],
  } as const;
  const { notes } = (await db.addCollections({ notes: { schema } })) as { notes: RxCollection<Note> };
  let next: Note[] = [];
  let round = 0;
  let gate: Promise<void> | undefined;
  const pushed: RxReplicationWriteToMasterRow<Note>[][] = [];
  const stream$ = new Subject<RxReplicationPullStreamItem<Note, { round: number }>>();
  const replication = replicateRxCollection<Note, { round: number }>({
    collection: notes,
    replicationIdentifier: 'internals',
    live: true,
    retryTime: 50,
    waitForLeadership: false,
    autoStart: true,
    pull: {
      stream$: stream$.asObservable(),
      async handler(checkpoint) {
        await gate;
        const documents = next.map((document) => ({ ...document, _deleted: false }));
        next = [];
        round += 1;
        return { documents, checkpoint: documents.length > 0 ? { round } : (checkpoint ?? { round: 0 }) };
      },
    },
    push: {
      async handler(rows) {
        pushed.push(rows);
        return [];
      },
    },
  });
  await replication.awaitInitialReplication();
  const protocol = protocolOf(replication);
  if (!protocol) throw new Error(changed('RxReplicationState.internalReplicationState is not set once started'));
  return {
    db,
    notes,
    replication,
    protocol,
    observed,
    pushed,
    stream$,
    /** Answers the next pull with `documents`, and asks RxDB to pull. */
    serve(documents: Note[]) {
      next = documents;
      stream$.next('RESYNC');
    },
    holdPulls(): () => void {
      let open = () => {};
      gate = new Promise((resolve) => {
        open = resolve;
      });
      return () => {
        gate = undefined;
        open();
      };
    },
    stored: async (id: string) => (await notes.storageInstance.findDocumentsById([id], true))[0],
    close: async () => {
      await replication.cancel();
      await db.remove();
    },
  };
}

const note = (id: string, text: string, second: number): Note => ({
  id,
  text,
  updatedAt: `2026-01-01T00:00:0${second}.000Z`,
});

describe('the RxDB internals the replication relies on', () => {
  it('give the protocol under a started replication, keyed by the collection’s primary path', async () => {
    const { protocol, replication, close } = await replicatedNotes();
    try {
      expect(protocol.primaryPath, changed('internalReplicationState.primaryPath')).toBe('id');
      expect(typeof protocol.input.hashFunction, changed('internalReplicationState.input.hashFunction')).toBe(
        'function',
      );
      expect(metaInstanceOf(protocol), changed('internalReplicationState.input.metaInstance')).toBe(
        replication.metaInstance,
      );
    } finally {
      await close();
    }
  });

  it('write master states to the collection’s storage instance with the downstream’s context', async () => {
    const { notes, protocol, serve, close } = await replicatedNotes();
    const contexts: string[] = [];
    const restore = interceptForkWrites(notes, (rows, context, write) => {
      contexts.push(context);
      return write(rows, context);
    });
    const events: string[] = [];
    const subscription = notes.storageInstance.changeStream().subscribe((bulk) => events.push(String(bulk.context)));
    try {
      serve([note('n1', 'start', 1)]);
      await vi.waitFor(() => expect(contexts.length).toBeGreaterThan(0), WAIT);
      const context = await downstreamWriteContext(protocol);
      expect(contexts, changed('the downstream writes through collection.storageInstance.bulkWrite')).toContain(
        context,
      );
      expect(isDownstreamContext(context), changed('downstreamBulkWriteFlag starts with replication-downstream')).toBe(
        true,
      );
      expect(isReplicationContext(context), changed('downstreamBulkWriteFlag starts with replication-')).toBe(true);
      await vi.waitFor(() => expect(events).toContain(context), WAIT);
      expect(
        events.every((event) => isDownstreamContext(event)),
        changed('the change stream names a downstream write by its context'),
      ).toBe(true);
    } finally {
      subscription.unsubscribe();
      restore();
      await close();
    }
  });

  it('leave be a master state the collection’s storage refuses as a conflict, and write on once the guard is lifted', async () => {
    const { notes, protocol, replication, serve, stored, close } = await replicatedNotes();
    const errors: unknown[] = [];
    const subscription = replication.error$.subscribe((error) => errors.push(error));
    try {
      serve([note('n1', 'start', 1)]);
      await vi.waitFor(async () => expect((await stored('n1'))?.text).toBe('start'), WAIT);
      const refusing = interceptForkWrites(notes, async (rows, context, write) => {
        if (context !== (await downstreamWriteContext(protocol))) return write(rows, context);
        return {
          error: rows.map((row) => ({
            status: 409 as const,
            isError: true as const,
            documentId: row.document.id,
            writeRow: row,
            context,
            documentInDb: (row.previous ?? row.document) as never,
          })),
        };
      });
      serve([note('n1', 'colleague', 2)]);
      await replication.awaitInSync();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await stored('n1'))?.text, changed('the downstream leaves a write refused with 409 be')).toBe('start');
      expect(errors, changed('the downstream raises no error for a write refused with 409')).toEqual([]);
      refusing();
      serve([note('n1', 'colleague', 3)]);
      await vi.waitFor(async () => expect((await stored('n1'))?.text).toBe('colleague'), WAIT);
    } finally {
      subscription.unsubscribe();
      await close();
    }
  });

  it('mark the master states the downstream writes over a document so that isPulledState knows them, until the user writes one', async () => {
    const { notes, protocol, serve, stored, close } = await replicatedNotes();
    try {
      serve([note('n1', 'start', 1)]);
      await vi.waitFor(async () => expect((await stored('n1'))?.text).toBe('start'), WAIT);
      // A document new to the replica loses the mark on its way (`withPulledDocumentsMarked` puts it back).
      serve([note('n1', 'colleague', 2)]);
      await vi.waitFor(async () => expect((await stored('n1'))?.text).toBe('colleague'), WAIT);
      const mark = await pulledMark(protocol);
      expect(
        isPulledState((await stored('n1')) as never, mark),
        changed('the downstream marks its writes with _meta.o (hash of input.identifier, revision height)'),
      ).toBe(true);
      await (await notes.findOne('n1').exec(true)).incrementalPatch({ text: 'mine' });
      expect(isPulledState((await stored('n1')) as never, mark), changed('a write of the user’s keeps _meta.o')).toBe(
        false,
      );
    } finally {
      await close();
    }
  });

  it('read and write the assumed master states the upstream pushes against', async () => {
    const { notes, protocol, pushed, serve, stored, close } = await replicatedNotes();
    try {
      serve([note('n1', 'start', 1)]);
      await vi.waitFor(async () => expect((await stored('n1'))?.text).toBe('start'), WAIT);
      await vi.waitFor(async () => {
        const assumed = await readAssumedMasterStates(protocol, ['n1', 'n2']);
        expect(assumed.get('n1'), changed('getAssumedMasterState gives { [id]: { docData } }')).toMatchObject(
          note('n1', 'start', 1),
        );
        expect(assumed.has('n2')).toBe(false);
      }, WAIT);
      await writeAssumedMasterStates(protocol, [{ ...note('n1', 'assumed', 2), _deleted: false }]);
      expect(
        (await readAssumedMasterStates(protocol, ['n1'])).get('n1'),
        changed('getMetaWriteRow and the meta instance keep an assumed master state'),
      ).toMatchObject({ text: 'assumed' });
      await (await notes.findOne('n1').exec(true)).incrementalPatch({ text: 'mine' });
      await vi.waitFor(() => expect(pushed.flat().some((row) => row.newDocumentState.id === 'n1')).toBe(true), WAIT);
      const row = pushed.flat().find((each) => each.newDocumentState.id === 'n1');
      expect(
        row?.assumedMasterState,
        changed('the upstream pushes against the assumed master state written'),
      ).toMatchObject({ text: 'assumed' });
    } finally {
      await close();
    }
  });

  it('push a document rewritten below the collection layer, as it is, against the assumed master state written', async () => {
    const { notes, protocol, pushed, serve, stored, close } = await replicatedNotes();
    try {
      serve([note('n1', 'start', 1)]);
      await vi.waitFor(async () => expect((await stored('n1'))?.text).toBe('start'), WAIT);
      await writeAssumedMasterStates(protocol, [{ ...note('n1', 'sent', 2), _deleted: false }]);
      const previous = await stored('n1');
      if (!previous) throw new Error('n1 was not pulled');
      const { error } = await notes.storageInstance.bulkWrite([forkRewrite(notes, previous, previous)], 'test');
      expect(error, changed('a fork write with createRevision(database.token, previous) is accepted')).toEqual([]);
      await vi.waitFor(
        () =>
          expect(
            pushed.flat().find((row) => row.newDocumentState.id === 'n1')?.assumedMasterState,
            changed('the upstream pushes a document written again as it is, with a new revision'),
          ).toMatchObject({ text: 'sent' }),
        WAIT,
      );
    } finally {
      await close();
    }
  });

  it('tell the downstream and the upstream busy, and their queue over', async () => {
    const { notes, protocol, replication, serve, holdPulls, close } = await replicatedNotes();
    try {
      await replication.awaitInSync();
      await vi.waitFor(() => {
        expect(isDownstreamActive(protocol), changed('events.active.down')).toBe(false);
        expect(isUpstreamActive(protocol), changed('events.active.up')).toBe(false);
      }, WAIT);
      const open = holdPulls();
      serve([note('n1', 'start', 1)]);
      await vi.waitFor(() => expect(isDownstreamActive(protocol), changed('events.active.down')).toBe(true), WAIT);
      await notes.insert(note('n2', 'mine', 1));
      open();
      await vi.waitFor(() => expect(isDownstreamActive(protocol), changed('events.active.down')).toBe(false), WAIT);
      await expect(downstreamDone(protocol), changed('streamQueue.down')).resolves.toBeUndefined();
    } finally {
      await close();
    }
  });

  it('read and write checkpoints through the meta and fork instances the protocol holds, at each call', async () => {
    const { protocol, observed, serve, stored, close } = await replicatedNotes();
    let checkpointWrites = 0;
    let quiet = false;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      guardCheckpointCalls(protocol, {
        beforeCheckpointWrite: async () => {
          checkpointWrites += 1;
        },
        quiet: () => quiet,
      });
      serve([note('n1', 'start', 1)]);
      await vi.waitFor(async () => expect((await stored('n1'))?.text).toBe('start'), WAIT);
      await vi.waitFor(
        () =>
          expect(
            checkpointWrites,
            changed('checkpoints are written through input.metaInstance.bulkWrite with replication-set-checkpoint'),
          ).toBeGreaterThan(0),
        WAIT,
      );
      const checkpoints = observed.seen.writes.filter((write) => write.context === 'replication-set-checkpoint');
      expect(
        checkpoints.length > 0 && checkpoints.every((write) => write.ids.every((id) => id.endsWith('|1'))),
        changed('checkpoint documents have ids ending with |1'),
      ).toBe(true);
      // Failing while quiet (stopping), RxDB's reads of its checkpoints and of changes are nothing found.
      quiet = true;
      observed.failing.reads = true;
      serve([]);
      await vi.waitFor(
        () =>
          expect(
            observed.seen.failed,
            changed('RESYNC reads checkpoints and changes since through input.metaInstance and input.forkInstance'),
          ).toBeGreaterThan(1),
        WAIT,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(unhandled, changed('checkpoint reads go through the instances in internalReplicationState.input')).toEqual(
        [],
      );
    } finally {
      observed.failing.reads = false;
      process.off('unhandledRejection', onUnhandled);
      await close();
    }
  });

  it('cancel through the replication’s cancel, whether the app or the collection closing calls it', async () => {
    const first = await replicatedNotes();
    const byApp: string[] = [];
    beforeCancel(first.replication, async () => {
      byApp.push('cancel');
    });
    await first.replication.cancel();
    expect(byApp, changed('RxReplicationState.cancel')).toEqual(['cancel']);
    expect(isProtocolCanceled(first.protocol), changed('events.canceled')).toBe(true);
    await first.db.remove();
    const second = await replicatedNotes();
    const byCollection: string[] = [];
    beforeCancel(second.replication, async () => {
      byCollection.push('cancel');
    });
    await second.db.remove();
    expect(byCollection, changed('a collection closing calls its replication’s cancel()')).toEqual(['cancel']);
  });
});
