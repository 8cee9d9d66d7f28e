import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LostEdit, PushResponse, SyncAck, SyncDocument } from '@shared/sync';
import {
  createRxDatabase,
  getAssumedMasterState,
  META_INSTANCE_SCHEMA_TITLE,
  type RxStorage,
  type RxStorageInstance,
} from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { Server } from 'socket.io';
import { io } from 'socket.io-client';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { replicaStorage } from '../../../electron/backend/replica-host';
import { getRxStorageMemoryMapped } from '../../../electron/backend/rx-storage-memory-mapped';
import { getRxStorageBetterSqlite } from '../../../electron/backend/rx-storage-sqlite';
import { dyingStorage, unhandledDuring } from '../../../test/helpers/dying-storage';
import { deviceKeeping, keepWithRecords, recordingKept } from '../../../test/helpers/sync-client';
import { ru } from '../i18n/ru';
import { type KeptName, keptItemId } from './kept-records';
import { type DeferredMasterStates, replicateOverSocket } from './socket-replication';

interface HeldPush {
  rows: { assumedMasterState: SyncDocument | null; newDocumentState: SyncDocument }[];
  answer: (response: PushResponse) => void;
  /** Sends a `sync:stream` message on the pushing socket. */
  stream: (message: { collection: string; documents: SyncDocument[]; checkpoint: unknown }) => void;
}

/**
 * A `/sync`-shaped Socket.IO server whose pushes wait until the test answers them. Its first pull
 * answers `pulled`, a later one what `pullNext` set (each once) unless `holdNextPull` holds it for
 * the test to answer; a connection waits while `gate` holds one.
 */
async function heldSyncServer(pulled: SyncDocument[] = []) {
  const http = createServer();
  const server = new Server(http);
  const waiting: HeldPush[] = [];
  let arrived: (() => void) | undefined;
  const pulls = { count: 0 };
  /** The rows of every push received, in order. */
  const pushed: HeldPush['rows'][] = [];
  let next = pulled;
  let latest: { emit: (event: string, ...args: unknown[]) => void } | undefined;
  const gate: { holding?: Promise<void> } = {};
  let heldPull: ((answer: (documents: SyncDocument[]) => void) => void) | undefined;
  server.use((_socket, next) => {
    void (gate.holding ?? Promise.resolve()).then(() => next());
  });
  server.on('connection', (socket) => {
    latest = socket;
    socket.on('sync:pull', (_payload, ack: (answer: SyncAck<unknown>) => void) => {
      pulls.count += 1;
      const count = pulls.count;
      const answer = (documents: SyncDocument[]) =>
        ack({ ok: true, data: { documents, checkpoint: documents.length > 0 ? { at: count } : null } });
      const hold = heldPull;
      heldPull = undefined;
      if (hold) return hold(answer);
      const documents = next;
      next = [];
      answer(documents);
    });
    socket.on('sync:push', (payload: { rows: HeldPush['rows'] }, ack: (answer: SyncAck<PushResponse>) => void) => {
      pushed.push(payload.rows);
      waiting.push({
        rows: payload.rows,
        answer: (data) => ack({ ok: true, data }),
        stream: (message) => socket.emit('sync:stream', message),
      });
      arrived?.();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    /** Pull requests answered so far. */
    pulls,
    pushed,
    /** What the next pull answers. */
    pullNext(documents: SyncDocument[]) {
      next = documents;
    },
    /** Sends a `sync:stream` message on the latest connection. */
    stream(message: { collection: string; documents: SyncDocument[]; checkpoint: unknown }) {
      latest?.emit('sync:stream', message);
    },
    /** Asks the latest connection to pull again (`sync:resync`). */
    resync() {
      latest?.emit('sync:resync');
    },
    /** The next pull waits: resolves once it arrives, with the function answering it. */
    holdNextPull(): Promise<(documents: SyncDocument[]) => void> {
      return new Promise((resolve) => {
        heldPull = resolve;
      });
    },
    /** Connections wait from now on, until the function returned is called. */
    holdConnections(): () => void {
      let open = () => {};
      gate.holding = new Promise<void>((resolve) => {
        open = resolve;
      });
      return () => {
        gate.holding = undefined;
        open();
      };
    },
    async nextPush(): Promise<HeldPush> {
      while (waiting.length === 0) await new Promise<void>((resolve) => (arrived = resolve));
      return waiting.shift() as HeldPush;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** A server state of a note, versioned by the second it was written at. */
/** How long a test waits for what it expects: it bounds a failure only (two test files share two cores). */
const WAIT_MS = 20_000;

const at = (second: number) => `2026-01-01T00:00:0${second}.000Z`;
const note = (id: string, text: string, second: number) =>
  ({ id, text, updatedAt: at(second), _deleted: false }) as SyncDocument;

async function notesDatabase(
  storage: RxStorage<unknown, unknown> = getRxStorageMemory(),
  name = `held-${Date.now()}-${Math.random().toString(36).slice(2)}`,
) {
  const db = await createRxDatabase({
    name,
    storage,
    multiInstance: false,
  });
  const schema = {
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id: { type: 'string', maxLength: 64 },
      text: { type: 'string' },
      by: { type: 'string' },
      updatedAt: { type: 'string' },
    },
    required: ['id'],
  } as const;
  const { notes } = await db.addCollections({ notes: { schema } });
  return { db, notes };
}

/**
 * A notes replica connected to `server`: `replicate()` starts its replication (again, as an app
 * opened again does), `stored(id)` reads a note as stored, deleted or not, `close()` ends the
 * replication, the socket, the database and the server.
 */
async function notesOn(
  server: { url: string; close(): Promise<unknown> },
  storage?: RxStorage<unknown, unknown>,
  name?: string,
) {
  const { db, notes } = await notesDatabase(storage, name);
  const socket = io(server.url, { transports: ['websocket'] });
  let state: ReturnType<typeof replicateOverSocket> | undefined;
  return {
    notes,
    socket,
    db,
    stored: async (id: string) => (await notes.storageInstance.findDocumentsById([id], true))[0],
    /** `options` go to the replication beside the defaults (a quick retry). */
    replicate(options: Partial<Parameters<typeof replicateOverSocket>[0]> = {}) {
      state = replicateOverSocket({
        collection: notes,
        remoteCollection: 'notes',
        socket,
        retryTimeMs: 50,
        ...options,
      });
      return state;
    },
    /** Its process died (`desktopProcess`): the window stops `replication` and lets the replica go. */
    async abandon(process: Awaited<ReturnType<typeof desktopProcess>>, replication: { cancel(): Promise<unknown> }) {
      let stopped: Promise<unknown> | undefined;
      process.closePorts(() => {
        stopped = replication.cancel();
      });
      await stopped;
      socket.close();
      await db.close().catch(() => undefined);
    },
    async close() {
      await state?.cancel();
      socket.close();
      await db.remove();
      await server.close();
    },
  };
}

/**
 * The desktop's replica storage (in memory, written to SQLite files on its next turn) in a process
 * that can die: `dieAtPersisting(id)` kills it as it writes that document to its files, so a write
 * it answered from memory never reaches them; `closePorts` then fails whatever it was doing, as
 * its port closing does (`onGone` first: the window stops the replication). `restarted()` is the
 * storage of a process started again on the files.
 */
async function desktopProcess() {
  const directory = await mkdtemp(path.join(tmpdir(), 'orbita-process-'));
  const files = () =>
    getRxStorageBetterSqlite({ databaseDirectory: directory, indexes: false }) as RxStorage<unknown, unknown>;
  const disk = dyingStorage(files());
  const port = dyingStorage(getRxStorageMemoryMapped({ storage: disk.storage }) as RxStorage<unknown, unknown>);
  return {
    name: `process-${Date.now()}-${Math.random().toString(36).slice(2)}`,
    storage: port.storage,
    dieAtPersisting(id: string) {
      disk.dieAtWrite((ids, context) => {
        const dies = ids.includes(id) && context === 'memory-mapped-persist';
        if (dies) port.kill();
        return dies;
      });
    },
    dead: () => disk.dead(),
    closePorts(onGone: () => void) {
      disk.closePort();
      port.closePort(onGone);
    },
    restarted: () => getRxStorageMemoryMapped({ storage: files() }) as RxStorage<unknown, unknown>,
    remove: () => rm(directory, { recursive: true, force: true }),
  };
}

/**
 * `base` with every write to its instances passed through `intercept`, which may answer it itself
 * or write it on (`write`).
 */
function interceptingWrites(
  base: RxStorage<unknown, unknown>,
  intercept: (
    rows: Parameters<RxStorageInstance<unknown, unknown, unknown>['bulkWrite']>[0],
    context: string,
    write: RxStorageInstance<unknown, unknown, unknown>['bulkWrite'],
  ) => ReturnType<RxStorageInstance<unknown, unknown, unknown>['bulkWrite']>,
): RxStorage<unknown, unknown> {
  return {
    ...base,
    async createStorageInstance(params) {
      const instance = (await base.createStorageInstance(params)) as RxStorageInstance<unknown, unknown, unknown>;
      const write = instance.bulkWrite.bind(instance);
      instance.bulkWrite = (rows, context) => intercept(rows, context, write);
      return instance as never;
    },
  };
}

/**
 * RxDB's memory storage whose next write or read by id matching `matches`, once `arm` was called,
 * waits until `release`; `arm` resolves when that call is waiting. `matches` sees every such call
 * (a read with the context ''), armed or not.
 */
function memoryHoldingOne(matches: (ids: string[], context: string, operation: 'write' | 'read') => boolean) {
  const memory = getRxStorageMemory();
  const hold: { armed: boolean; reached?: () => void; release?: () => void } = { armed: false };
  const held = async (ids: string[], context: string, operation: 'write' | 'read') => {
    if (!matches(ids, context, operation) || !hold.armed) return;
    hold.armed = false;
    await new Promise<void>((resolve) => {
      hold.release = resolve;
      hold.reached?.();
    });
  };
  const storage = {
    ...memory,
    async createStorageInstance(params: Parameters<typeof memory.createStorageInstance>[0]) {
      const instance = await memory.createStorageInstance(params);
      const write = instance.bulkWrite.bind(instance);
      instance.bulkWrite = async (rows, context) => {
        await held(
          rows.map((row) => String((row.document as { id?: string }).id)),
          context,
          'write',
        );
        return write(rows, context);
      };
      const read = instance.findDocumentsById.bind(instance);
      instance.findDocumentsById = async (ids, withDeleted) => {
        await held(ids, '', 'read');
        return read(ids, withDeleted);
      };
      return instance;
    },
  } as RxStorage<unknown, unknown>;
  return {
    storage,
    arm: () =>
      new Promise<void>((resolve) => {
        hold.reached = resolve;
        hold.armed = true;
      }),
    release: () => hold.release?.(),
  };
}

/**
 * A note in sync, on a storage whose next save of the kept map `name` waits once armed
 * (`slow.arm()`, `slow.release()`); `edit()` changes the note, `recorded()` is RxDB's record of
 * its server state, `reported` the lost edits the replication reported, in order.
 */
async function syncedWithKeptHeld(name: KeptName) {
  const server = await heldSyncServer([note('n1', 'start', 1)]);
  const slow = memoryHoldingOne(
    (ids, context) => context === 'orbita-sync-kept' && ids.includes(`${keptItemId(name)}|1`),
  );
  const recording = recordingKept(slow.storage);
  const replica = await notesOn(server, recording.storage);
  const reported: LostEdit[][] = [];
  const replicate = () => replica.replicate({ onLostEdits: (edits) => reported.push(edits) });
  const state = replicate();
  await state.awaitInSync();
  const internal = state.internalReplicationState;
  if (!internal) throw new Error('The replication has not started');
  return {
    server,
    slow,
    recording,
    replica,
    state,
    replicate,
    reported,
    edit: async () => (await replica.notes.findOne('n1').exec(true)).incrementalPatch({ text: 'mine' }),
    recorded: async () => (await getAssumedMasterState(internal, ['n1'])).n1?.docData,
  };
}
/** Long enough for a write that does not wait for the held one to happen. */
const meanwhile = () => new Promise((resolve) => setTimeout(resolve, 200));

describe('pulls', () => {
  it('pull once when the first connection comes after the start, and again after every reconnection', async () => {
    const server = await heldSyncServer();
    const { db, notes } = await notesDatabase();
    const socket = io(server.url, { transports: ['websocket'], autoConnect: false });
    const state = replicateOverSocket({ collection: notes, remoteCollection: 'notes', socket, retryTimeMs: 50 });
    try {
      // The replication starts before the socket connects, as the app's does.
      await new Promise((resolve) => setTimeout(resolve, 20));
      socket.connect();
      await state.awaitInitialReplication();
      await state.awaitInSync();
      expect(server.pulls.count).toBe(1);
      // Stream messages sent while disconnected are lost: a reconnection pulls what they carried.
      socket.disconnect();
      socket.connect();
      await vi.waitFor(() => expect(server.pulls.count).toBe(2), { timeout: 10_000 });
    } finally {
      await state.cancel();
      socket.close();
      await db.remove();
      await server.close();
    }
  });
});

describe('troubles', () => {
  it('say a pull the server does not answer in time as a problem of its own, and the words for it', async () => {
    const server = await heldSyncServer();
    const { db, notes } = await notesDatabase();
    const socket = io(server.url, { transports: ['websocket'] });
    const troubles: unknown[] = [];
    const held = server.holdNextPull();
    const state = replicateOverSocket({
      collection: notes,
      remoteCollection: 'notes',
      socket,
      retryTimeMs: 50,
      ackTimeoutMs: 300,
      onSyncProblem: (direction, trouble) => trouble && troubles.push([direction, trouble]),
    });
    try {
      const answer = await held;
      await vi.waitFor(() => expect(troubles.length).toBeGreaterThan(0), { timeout: WAIT_MS });
      expect(troubles[0]).toEqual([
        'receive',
        { code: 'no_answer', status: 504, detail: 'The server did not answer in time.' },
      ]);
      // Said in the user's words, not socket.io's.
      expect(ru.problems.no_answer).toBe('сервер не ответил вовремя');
      answer([]);
      await state.awaitInitialReplication();
    } finally {
      await state.cancel();
      socket.close();
      await db.remove();
      await server.close();
    }
  });
});

describe('stream messages', () => {
  it('sent before the answer of a pull under way never take back the newer states that answer holds', async () => {
    const http = createServer();
    const server = new Server(http);
    let pulls = 0;
    server.on('connection', (socket) => {
      socket.on('sync:pull', (_payload, ack: (answer: SyncAck<unknown>) => void) => {
        pulls += 1;
        if (pulls > 1) return ack({ ok: true, data: { documents: [], checkpoint: { xid: '9', seq: '2' } } });
        // The server answers a socket's messages in order: the stream message it read before this
        // pull goes out first, with the note as it was then; the pull's answer holds it as it is now.
        socket.emit('sync:stream', {
          collection: 'notes',
          documents: [{ id: 'n1', text: 'before', _deleted: false }],
          checkpoint: { xid: '9', seq: '1' },
        });
        setTimeout(
          () =>
            ack({
              ok: true,
              data: { documents: [{ id: 'n1', text: 'after', _deleted: false }], checkpoint: { xid: '9', seq: '2' } },
            }),
          50,
        );
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const { db, notes } = await notesDatabase();
    const socket = io(`http://127.0.0.1:${(http.address() as AddressInfo).port}`, { transports: ['websocket'] });
    const state = replicateOverSocket({ collection: notes, remoteCollection: 'notes', socket, push: false });
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      expect((await notes.findOne('n1').exec())?.toJSON().text).toBe('after');
    } finally {
      await state.cancel();
      socket.close();
      await db.remove();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('stream messages meeting an edit', () => {
  it('are written once a write of the note that changed nothing lands between RxDB reading and writing it', async () => {
    const server = await heldSyncServer([note('n1', 'one', 1)]);
    const slow = memoryHoldingOne((ids, context) => ids.includes('n1') && context.startsWith('replication-down'));
    const replica = await notesOn(server, slow.storage);
    const state = replica.replicate();
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      // The server's change arrives; RxDB has read the note and waits to write the change over it.
      const writing = slow.arm();
      server.stream({ collection: 'notes', documents: [note('n1', 'two', 2)], checkpoint: { at: 9 } });
      await writing;
      // Meanwhile the user saves the note unchanged (a status chosen again, say): nothing to send,
      // and RxDB's write, made against the note as it read it, is refused.
      await (await replica.notes.findOne('n1').exec())?.incrementalPatch({ text: 'one' });
      slow.release();
      await vi.waitFor(async () => expect((await replica.stored('n1'))?.text).toBe('two'), { timeout: WAIT_MS });
    } finally {
      await replica.close();
    }
  });
});

describe('stream messages during a push', () => {
  it('sent after the answer of a pull that waits for a push’s answer to be taken are written', async () => {
    const http = createServer();
    const server = new Server(http);
    let pulls = 0;
    const held: { pull?: () => void; push?: (conflicts: SyncDocument[]) => void; stream?: () => void } = {};
    server.on('connection', (socket) => {
      socket.on('sync:pull', (_payload, ack: (answer: SyncAck<unknown>) => void) => {
        pulls += 1;
        const answer = (documents: SyncDocument[], seq: string) =>
          ack({ ok: true, data: { documents, checkpoint: { xid: '9', seq } } });
        if (pulls === 1) return answer([{ id: 'n1', text: 'start', _deleted: false }], '1');
        held.pull = () => answer([{ id: 'n1', text: 'merged', _deleted: false }], '2');
      });
      socket.on('sync:push', (_payload, ack: (answer: SyncAck<PushResponse>) => void) => {
        held.push = (conflicts) => ack({ ok: true, data: { conflicts, lost: [] } });
      });
      held.stream = () =>
        socket.emit('sync:stream', {
          collection: 'notes',
          documents: [{ id: 'n2', text: 'streamed', _deleted: false }],
          checkpoint: { xid: '9', seq: '3' },
        });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    // The replica's write of a push's answer (the rebase's) waits while held.
    const answerWrite = memoryHoldingOne((_ids, context) => context === 'incremental-write');
    const { db, notes } = await notesDatabase(answerWrite.storage);
    const socket = io(`http://127.0.0.1:${(http.address() as AddressInfo).port}`, { transports: ['websocket'] });
    const state = replicateOverSocket({ collection: notes, remoteCollection: 'notes', socket, retryTimeMs: 50 });
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      // A pull is under way (a resync's), and a push of the note, answered with the server's merge.
      state.reSync();
      await vi.waitFor(() => expect(held.pull).toBeDefined(), { timeout: 10_000 });
      await (await notes.findOne('n1').exec())?.incrementalPatch({ text: 'mine' });
      await vi.waitFor(() => expect(held.push).toBeDefined(), { timeout: 10_000 });
      const answerBeingTaken = answerWrite.arm();
      held.push?.([{ id: 'n1', text: 'merged', _deleted: false }]);
      await answerBeingTaken;
      // The pull is answered while that answer is being taken; a message the server sends after
      // it is newer than anything the pull holds.
      held.pull?.();
      await new Promise((resolve) => setTimeout(resolve, 50));
      held.stream?.();
      await new Promise((resolve) => setTimeout(resolve, 50));
      answerWrite.release();
      await vi.waitFor(async () => expect((await notes.findOne('n2').exec())?.toJSON().text).toBe('streamed'), {
        timeout: WAIT_MS,
      });
      expect((await notes.findOne('n1').exec())?.toJSON().text).toBe('merged');
    } finally {
      await state.cancel();
      socket.close();
      await db.remove();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('stream messages RxDB holds during a push', () => {
  it('never take back a newer state a pull brought meanwhile', async () => {
    const server = await heldSyncServer([note('n0', 'zero', 1), note('n1', 'start', 1), note('n2', 'two', 1)]);
    // The replica is slow to write what one pull brought, while a second pull waits behind it.
    const slow = memoryHoldingOne((ids, context) => ids.includes('n2') && context.startsWith('replication-downstream'));
    const replica = await notesOn(server, slow.storage);
    const state = replica.replicate();
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      const reached = slow.arm();
      const first = server.holdNextPull();
      server.resync();
      const answerFirst = await first;
      server.resync();
      answerFirst([note('n2', 'two, changed', 2)]);
      await reached;
      // Meanwhile the push of one note goes out, and a colleague's text of another arrives: RxDB
      // holds it until the push is answered.
      await (await replica.notes.findOne('n0').exec(true)).incrementalPatch({ text: 'zero, mine' });
      const push = await server.nextPush();
      server.stream({ collection: 'notes', documents: [note('n1', 'colleague', 2)], checkpoint: { at: 8 } });
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The second pull brings the office's later text of that note, written at once.
      server.pullNext([note('n1', 'office', 3)]);
      slow.release();
      await vi.waitFor(async () => expect(await replica.stored('n1')).toMatchObject({ text: 'office' }), {
        timeout: WAIT_MS,
      });
      // The push is answered: the colleague's older text is not written over the office's.
      push.answer({ conflicts: [], lost: [] });
      await state.awaitInSync();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await replica.stored('n1')).toMatchObject({ text: 'office' });
    } finally {
      await replica.close();
    }
  });
});

describe('server states of a document made on the device', () => {
  it('are written although its clock was ahead of the server’s', async () => {
    const server = await heldSyncServer([note('n0', 'zero', 1)]);
    const replica = await notesOn(server);
    const state = replica.replicate();
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      // Made on a device whose clock runs ahead: its version is later than the server's will be.
      await replica.notes.insert({ id: 'n9', text: 'made here', updatedAt: at(9) });
      (await server.nextPush()).answer({ conflicts: [], lost: [] });
      await state.awaitInSync();
      server.stream({ collection: 'notes', documents: [note('n9', 'office', 5)], checkpoint: { at: 8 } });
      await vi.waitFor(async () => expect(await replica.stored('n9')).toMatchObject({ text: 'office' }), {
        timeout: WAIT_MS,
      });
      // Held as pulled now: a colleague's later text is written over it too.
      server.stream({ collection: 'notes', documents: [note('n9', 'colleague', 6)], checkpoint: { at: 9 } });
      await vi.waitFor(async () => expect(await replica.stored('n9')).toMatchObject({ text: 'colleague' }), {
        timeout: WAIT_MS,
      });
    } finally {
      await replica.close();
    }
  });
});

describe('pushes answered by the server', () => {
  it('are not undone by a state received before them that the replica writes after their answer', async () => {
    const server = await heldSyncServer([note('n0', 'zero', 1), note('n1', 'start', 1)]);
    const stream = (document: SyncDocument) =>
      server.stream({ collection: 'notes', documents: [document], checkpoint: { at: 9 } });
    // The replica is slow to write the server's change of another note.
    const slow = memoryHoldingOne((ids, context) => ids.includes('n0') && context.startsWith('replication-downstream'));
    const replica = await notesOn(server, slow.storage);
    const { notes } = replica;
    const state = replica.replicate();
    const text = async () => (await notes.findOne('n1').exec())?.toJSON().text;
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      const reached = slow.arm();
      stream(note('n0', 'zero, changed', 2));
      await reached;
      // A colleague's change of this note arrives and waits behind that write …
      stream(note('n1', 'theirs', 2));
      await new Promise((resolve) => setTimeout(resolve, 50));
      // … while the user edits it; the push is merged with the colleague's change and answered.
      await (await notes.findOne('n1').exec())?.incrementalPatch({ text: 'mine' });
      (await server.nextPush()).answer({ conflicts: [note('n1', 'mine and theirs', 3)], lost: [] });
      await vi.waitFor(async () => expect(await text()).toBe('mine and theirs'), { timeout: WAIT_MS });
      // The colleague's state, older than that answer, is not written over it, nor sent back.
      slow.release();
      await vi.waitFor(async () => expect((await notes.findOne('n0').exec())?.toJSON().text).toBe('zero, changed'), {
        timeout: WAIT_MS,
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await text()).toBe('mine and theirs');
      expect(server.pushed).toHaveLength(1);
    } finally {
      await replica.close();
    }
  });

  it('that changed nothing leave a record hidden and shared again at the same version to be written', async () => {
    const server = await heldSyncServer([note('n1', 'start', 1)]);
    const replica = await notesOn(server);
    const { notes, socket } = replica;
    let state = replica.replicate();
    const held = async () => (await notes.findOne('n1').exec())?.toJSON().text;
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      // Offline, the user makes the change a colleague made meanwhile on the server, and quits.
      socket.disconnect();
      await (await notes.findOne('n1').exec())?.incrementalPatch({ text: 'same' });
      await state.cancel();
      // Opened again on line: the first pull brings the colleague's state while the push is under
      // way. The server holds that state already: the push changes nothing, nor the version.
      server.pullNext([note('n1', 'same', 2)]);
      socket.connect();
      state = replica.replicate();
      const push = await server.nextPush();
      await vi.waitFor(() => expect(server.pulls.count).toBe(2), { timeout: WAIT_MS });
      expect(push.rows[0]?.newDocumentState.text).toBe('same');
      push.answer({ conflicts: [], lost: [] });
      await state.awaitInSync();
      // The note is hidden from the user, then shared with them again as it was.
      server.stream({ collection: 'notes', documents: [{ id: 'n1', _deleted: true }], checkpoint: { at: 9 } });
      await vi.waitFor(async () => expect(await notes.findOne('n1').exec()).toBeNull(), { timeout: WAIT_MS });
      server.stream({ collection: 'notes', documents: [note('n1', 'same', 2)], checkpoint: { at: 10 } });
      await vi.waitFor(async () => expect(await held()).toBe('same'), { timeout: WAIT_MS });
      expect(server.pushed).toHaveLength(1);
    } finally {
      await replica.close();
    }
  });

  it('answered with a record shared again take it back into a replica that held it as hidden, and never delete it', async () => {
    const server = await heldSyncServer([note('n1', 'start', 1), note('n2', 'other', 1)]);
    const replica = await notesOn(server);
    const { notes, socket } = replica;
    let state = replica.replicate();
    const n1 = () => replica.stored('n1');
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      // Without the network the user changes another note, and the app quits before sending it.
      socket.disconnect();
      await (await notes.findOne('n2').exec(true)).incrementalPatch({ text: 'other, mine' });
      await state.cancel();
      // Opened again, still off line: that change waits to be sent (its push under way once RxDB
      // started sending), and the user changes the note and takes the change back.
      state = replica.replicate();
      await vi.waitFor(() => expect(state.internalReplicationState?.events.active.up.getValue()).toBe(true), {
        timeout: WAIT_MS,
      });
      const doc = await notes.findOne('n1').exec(true);
      await doc.incrementalPatch({ text: 'mine' });
      await doc.incrementalPatch({ text: 'start' });
      // Back on line, the first pull says the note was hidden from the user, while the other
      // note's push is under way.
      server.pullNext([{ id: 'n1', _deleted: true }]);
      socket.connect();
      const other = await server.nextPush();
      await vi.waitFor(async () => expect((await n1())?._deleted).toBe(true), { timeout: WAIT_MS });
      other.answer({ conflicts: [], lost: [] });
      // RxDB looks at the note's change now and sends the note as the replica holds it: the
      // server answers with the note as it is, shared with the user again since.
      const push = await server.nextPush();
      expect(push.rows.map((row) => row.newDocumentState.id)).toEqual(['n1']);
      push.answer({ conflicts: [note('n1', 'start', 2)], lost: [] });
      await vi.waitFor(async () => expect((await n1())?.updatedAt).toBe(at(2)), { timeout: WAIT_MS });
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The note is back as the server holds it, and nothing ever asked the server to delete it.
      expect(await n1()).toMatchObject({ text: 'start', _deleted: false });
      const deletions = server.pushed
        .flat()
        .filter((row) => row.newDocumentState._deleted && !row.assumedMasterState?._deleted);
      expect(deletions).toEqual([]);
    } finally {
      await replica.close();
    }
  });

  it.each([
    ['answered', false],
    ['failed as the connection dropped, and tried again', true],
  ])(
    'answered with a record gone take its tombstone only once no pull is under way (one %s): the state that pull brings stays',
    async (_how, drops) => {
      const server = await heldSyncServer([note('n1', 'start', 1)]);
      const replica = await notesOn(server);
      const { notes, socket } = replica;
      const state = replica.replicate();
      const n1 = () => replica.stored('n1');
      try {
        await state.awaitInitialReplication();
        await state.awaitInSync();
        // The user changes the note and, as the push goes, takes the change back; the server answers
        // that the note is no longer shared with them.
        const doc = await notes.findOne('n1').exec(true);
        await doc.incrementalPatch({ text: 'mine' });
        const push = await server.nextPush();
        await doc.incrementalPatch({ text: 'start' });
        // Right then the server asks for a pull, which it answers once the note is shared again.
        const pulled = server.holdNextPull();
        push.answer({ conflicts: [{ id: 'n1', _deleted: true }], lost: [] });
        server.resync();
        let answerPull = await pulled;
        if (drops) {
          // The connection drops under the pull: RxDB waits and tries it again, off line for a while.
          socket.disconnect();
          await new Promise((resolve) => setTimeout(resolve, 300));
          const again = server.holdNextPull();
          socket.connect();
          answerPull = await again;
        }
        // Long enough for the tombstone the answer deferred to be taken, were it taken now.
        await new Promise((resolve) => setTimeout(resolve, 300));
        answerPull([note('n1', 'shared again', 2)]);
        await vi.waitFor(async () => expect((await n1())?.updatedAt).toBe(at(2)), { timeout: WAIT_MS });
        await state.awaitInSync();
        await new Promise((resolve) => setTimeout(resolve, 300));
        // The tombstone, older than the pulled state, was not written after it.
        expect(await n1()).toMatchObject({ text: 'shared again', _deleted: false });
      } finally {
        await replica.close();
      }
    },
  );

  it('answered with a record gone while the change was taken back, delete it although the app quits before that', async () => {
    const server = await heldSyncServer([note('n1', 'start', 1)]);
    const recording = recordingKept(getRxStorageMemory());
    const replica = await notesOn(server, recording.storage);
    const keeping = { retryTimeMs: 500 };
    const n1 = () => replica.stored('n1');
    let state = replica.replicate(keeping);
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      // The user changes the note and takes the change back while the push is out; the server
      // answers that the note is gone (deleted by the office).
      const doc = await replica.notes.findOne('n1').exec(true);
      await doc.incrementalPatch({ text: 'mine' });
      const push = await server.nextPush();
      await doc.incrementalPatch({ text: 'start' });
      push.answer({ conflicts: [{ id: 'n1', _deleted: true }], lost: [] });
      await state.awaitInSync();
      // The app quits right then, the note still on the device.
      await state.cancel();
      expect(await n1()).toMatchObject({ text: 'start', _deleted: false });
      // Opened again, with nothing left for a pull to bring: the note is deleted all the same.
      state = replica.replicate(keeping);
      await vi.waitFor(async () => expect((await n1())?._deleted).toBe(true), { timeout: WAIT_MS });
      await state.awaitInSync();
      await vi.waitFor(() => expect(recording.now('deferred')).toEqual({}), { timeout: WAIT_MS });
      expect(server.pushed).toHaveLength(1);
    } finally {
      await replica.close();
    }
  });

  /**
   * The app quits while RxDB writes a colleague's text it held back during the pushes of two
   * edits, one of them of that note, which the server took as sent: RxDB has read the note and
   * not written it yet; `release` lets it go on.
   */
  async function quitWhileWritingAStateHeldBack() {
    const server = await heldSyncServer([note('n0', 'zero', 1), note('n1', 'start', 1)]);
    // Once the answer of a push of n1 is recorded, the replica is slow to read the note.
    let recorded = false;
    const slow = memoryHoldingOne((ids, context, operation) => {
      if (context === 'replication-up-write-meta' && ids.includes('n1|0')) recorded = true;
      return recorded && operation === 'read' && ids.includes('n1');
    });
    const replica = await notesOn(server, slow.storage);
    const state = replica.replicate();
    const edit = async (id: string, text: string) =>
      (await replica.notes.findOne(id).exec(true)).incrementalPatch({ text });
    await state.awaitInitialReplication();
    await state.awaitInSync();
    // While the push of one note is out, a colleague's text of another arrives: RxDB holds it
    // until the pushes are answered. The user edits that note too.
    await edit('n0', 'zero, mine');
    const first = await server.nextPush();
    server.stream({ collection: 'notes', documents: [note('n1', 'colleague', 2)], checkpoint: { at: 9 } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await edit('n1', 'mine');
    const reached = slow.arm();
    first.answer({ conflicts: [], lost: [] });
    (await server.nextPush()).answer({ conflicts: [], lost: [] });
    // RxDB takes up the colleague's text, older than the answer, and the app quits meanwhile.
    await reached;
    await state.cancel();
    return { server, replica, release: slow.release };
  }

  it('are not undone by a state RxDB held back during them and writes as the app quits', async () => {
    const { server, replica, release } = await quitWhileWritingAStateHeldBack();
    try {
      release();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await replica.stored('n1')).toMatchObject({ text: 'mine' });
      // Opened again, the replica sends nothing back.
      const state = replica.replicate();
      await state.awaitInSync();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await replica.stored('n1')).toMatchObject({ text: 'mine' });
      expect(server.pushed).toHaveLength(2);
    } finally {
      await replica.close();
    }
  });

  it('leave a replication started again while RxDB still writes such a state to pull as usual', async () => {
    const { server, replica, release } = await quitWhileWritingAStateHeldBack();
    try {
      // Opened again at once, the office having changed the note since.
      server.pullNext([note('n1', 'office', 5)]);
      const state = replica.replicate();
      await new Promise((resolve) => setTimeout(resolve, 300));
      release();
      await vi.waitFor(async () => expect(await replica.stored('n1')).toMatchObject({ text: 'office' }), {
        timeout: WAIT_MS,
      });
      await state.awaitInSync();
      expect(server.pushed).toHaveLength(2);
    } finally {
      await replica.close();
    }
  });

  it('are taken into the replica before it stops: an app quitting meanwhile keeps the server’s merge', async () => {
    const server = await heldSyncServer([note('n1', 'start', 1)]);
    // The replica is slow to write the answer's merge into the note.
    const slow = memoryHoldingOne((ids, context) => ids.includes('n1') && context === 'incremental-write');
    const replica = await notesOn(server, slow.storage);
    const state = replica.replicate();
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      await (await replica.notes.findOne('n1').exec(true)).incrementalPatch({ text: 'mine' });
      const push = await server.nextPush();
      const reached = slow.arm();
      // The server merges the edit with a colleague's value.
      push.answer({ conflicts: [{ ...note('n1', 'mine', 3), by: 'colleague' }], lost: [] });
      await reached;
      // The app quits while the merge is being written: once stopped, the note holds it.
      setTimeout(() => slow.release(), 200);
      await state.cancel();
      expect(await replica.stored('n1')).toMatchObject({ text: 'mine', by: 'colleague' });
    } finally {
      await replica.close();
    }
  });

  it('are taken into the replica when it opens again after its process died between the answer’s two writes', async () => {
    const server = await heldSyncServer([note('n1', 'start', 1)]);
    // The replica's process dies as the merge is written into the note, after its record.
    const dying = dyingStorage(getRxStorageMemory());
    const recording = recordingKept(dying.storage);
    const replica = await notesOn(server, recording.storage);
    let state = replica.replicate();
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      await (await replica.notes.findOne('n1').exec(true)).incrementalPatch({ text: 'mine' });
      const push = await server.nextPush();
      dying.dieAtWrite((ids, context) => ids.includes('n1') && context === 'incremental-write');
      // The server merges the edit with a colleague's value.
      push.answer({ conflicts: [{ ...note('n1', 'mine', 3), by: 'colleague' }], lost: [] });
      await vi.waitFor(() => expect(dying.dead()).toBe(true), { timeout: WAIT_MS });
      // The window stops the replication once the process's port closes (`Replica.abandon`).
      let stopped: Promise<void> | undefined;
      dying.closePort(() => {
        stopped = state.cancel();
      });
      await stopped;
      dying.revive();
      // On the disk: the note as pushed, against the merge recorded as the server's state.
      expect(await replica.stored('n1')).not.toHaveProperty('by');
      const pushesBefore = server.pushed.length;
      state = replica.replicate();
      await vi.waitFor(
        async () => expect(await replica.stored('n1')).toMatchObject({ text: 'mine', by: 'colleague' }),
        {
          timeout: WAIT_MS,
        },
      );
      // Nothing sent takes the colleague's value back off.
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const rows of server.pushed.slice(pushesBefore))
        for (const row of rows) expect(row.newDocumentState).toMatchObject({ by: 'colleague' });
      await vi.waitFor(() => expect(recording.now('answers')).toEqual({}), { timeout: WAIT_MS });
    } finally {
      await replica.close();
    }
  });

  it('are taken into the replica when it opens again after its process died before the desktop storage had the merge on disk', async () => {
    const server = await heldSyncServer([note('n1', 'start', 1)]);
    const process = await desktopProcess();
    const replica = await notesOn(server, process.storage, process.name);
    let again: Awaited<ReturnType<typeof notesOn>> | undefined;
    try {
      const state = replica.replicate();
      await state.awaitInitialReplication();
      await state.awaitInSync();
      await (await replica.notes.findOne('n1').exec(true)).incrementalPatch({ text: 'mine' });
      const push = await server.nextPush();
      // The edit reaches the disk on the storage's next turn, which may come after the push.
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The storage answers the merge's write from memory; the process dies as it writes it to disk.
      process.dieAtPersisting('n1');
      push.answer({ conflicts: [{ ...note('n1', 'mine', 3), by: 'colleague' }], lost: [] });
      await vi.waitFor(() => expect(process.dead()).toBe(true), { timeout: WAIT_MS });
      await replica.abandon(process, state);
      // The process starts again on its files: the note as pushed, against the merge recorded.
      again = await notesOn(server, process.restarted(), process.name);
      expect(await again.stored('n1')).not.toHaveProperty('by');
      const pushesBefore = server.pushed.length;
      again.replicate();
      await vi.waitFor(async () => expect(await again?.stored('n1')).toMatchObject({ text: 'mine', by: 'colleague' }), {
        timeout: WAIT_MS,
      });
      // Nothing sent takes the colleague's value back off.
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const rows of server.pushed.slice(pushesBefore))
        for (const row of rows) expect(row.newDocumentState).toMatchObject({ by: 'colleague' });
    } finally {
      if (again) await again.close();
      else await server.close();
      await process.remove();
    }
  });

  /**
   * The replica process dies as `act` makes RxDB write or read a checkpoint, and its port closes
   * while that call waits: the rejections nobody handled meanwhile.
   */
  async function diedDuring(
    act: (server: Awaited<ReturnType<typeof heldSyncServer>>, dying: ReturnType<typeof dyingStorage>) => void,
  ) {
    const server = await heldSyncServer([note('n1', 'start', 1)]);
    const dying = dyingStorage(getRxStorageMemory());
    const replica = await notesOn(server, dying.storage);
    const state = replica.replicate();
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      return await unhandledDuring(async () => {
        act(server, dying);
        await vi.waitFor(() => expect(dying.dead()).toBe(true), { timeout: WAIT_MS });
        // Long enough for RxDB to be waiting on the dead process.
        await new Promise((resolve) => setTimeout(resolve, 100));
        let stopped: Promise<void> | undefined;
        dying.closePort(() => {
          stopped = state.cancel();
        });
        await stopped;
      });
    } finally {
      dying.revive();
      await replica.close();
    }
  }

  it('stop quietly when the replica process dies as RxDB writes a checkpoint', async () => {
    const unhandled = await diedDuring((server, dying) => {
      // RxDB writes the checkpoint after a streamed state without waiting for it.
      dying.dieAtWrite((_ids, context) => context === 'replication-set-checkpoint');
      server.stream({ collection: 'notes', documents: [note('n1', 'colleague', 2)], checkpoint: { at: 2 } });
    });
    expect(unhandled).toEqual([]);
  });

  it('stop quietly when the replica process dies as RxDB reads its checkpoints to pull and push again', async () => {
    const unhandled = await diedDuring((server, dying) => {
      dying.kill();
      server.resync();
    });
    expect(unhandled).toEqual([]);
  });

  it('answered with a record gone are not taken back by a pulled state RxDB left for the push', async () => {
    const server = await heldSyncServer([note('n1', 'start', 1)]);
    const replica = await notesOn(server);
    const state = replica.replicate();
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      // A pull is under way as the user's change goes out; answered then, it brings a colleague's
      // text, which RxDB leaves for the push to settle.
      const pulled = server.holdNextPull();
      server.resync();
      const answerPull = await pulled;
      await (await replica.notes.findOne('n1').exec(true)).incrementalPatch({ text: 'mine' });
      const push = await server.nextPush();
      answerPull([note('n1', 'colleague', 2)]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await replica.stored('n1')).toMatchObject({ text: 'mine' });
      // Then the office deletes the note: the push is answered with its tombstone.
      push.answer({ conflicts: [{ id: 'n1', _deleted: true }], lost: [] });
      await vi.waitFor(async () => expect((await replica.stored('n1'))?._deleted).toBe(true), { timeout: WAIT_MS });
      await state.awaitInSync();
      // Long enough for a deferred state to be taken, were it taken.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await replica.stored('n1')).toMatchObject({ _deleted: true });
    } finally {
      await replica.close();
    }
  });

  it('are not undone by a stream message read before them, whose other documents still arrive', async () => {
    const server = await heldSyncServer();
    const { db, notes } = await notesDatabase();
    const socket = io(server.url, { transports: ['websocket'] });
    const state = replicateOverSocket({ collection: notes, remoteCollection: 'notes', socket });
    try {
      await state.awaitInitialReplication();
      await notes.insert({ id: 'n1', text: 'mine' });
      const push = await server.nextPush();
      // Read by the server before it applied the push: the note as it was, and another note.
      push.stream({
        collection: 'notes',
        documents: [
          { id: 'n1', text: 'theirs', _deleted: false },
          { id: 'n2', text: 'other', _deleted: false },
        ],
        checkpoint: { xid: '9', seq: '1' },
      });
      // The stream message is on its way before the answer, as the server sends them.
      await new Promise((resolve) => setTimeout(resolve, 50));
      push.answer({ conflicts: [], lost: [] });
      await vi.waitFor(async () => expect(await notes.findOne('n2').exec()).toBeTruthy(), { timeout: 10_000 });
      await state.awaitInSync();
      expect((await notes.findOne('n1').exec())?.toJSON().text).toBe('mine');
    } finally {
      await state.cancel();
      socket.close();
      await db.remove();
      await server.close();
    }
  });

  it('are followed by the state the document holds, not an older one RxDB read before the answer', async () => {
    const server = await heldSyncServer([{ id: 'n1', text: 'start', by: '', _deleted: false } as SyncDocument]);
    // RxDB reads the replica's changes page after page as its replication starts, pushing each
    // page while it reads the next: the second read waits until the test lets it go.
    const memory = getRxStorageMemory();
    const reads = { count: 0, from: Number.POSITIVE_INFINITY, reached: () => {}, release: () => {}, done: () => {} };
    const storage = {
      ...memory,
      async createStorageInstance(params: Parameters<typeof memory.createStorageInstance>[0]) {
        const instance = await memory.createStorageInstance(params);
        if (params.collectionName !== 'notes' || params.schema.title === META_INSTANCE_SCHEMA_TITLE) return instance;
        const query = instance.query.bind(instance);
        instance.query = async (prepared) => {
          const changesSince = JSON.stringify(prepared.query.sort ?? []).includes('_meta.lwt');
          if (!changesSince || ++reads.count !== reads.from) return query(prepared);
          await new Promise<void>((resolve) => {
            reads.release = resolve;
            reads.reached();
          });
          const result = await query(prepared);
          reads.done();
          return result;
        };
        return instance;
      },
    } as RxStorage<unknown, unknown>;
    const { db, notes } = await notesDatabase(storage);
    const note = async () => (await notes.findOne('n1').exec())?.toJSON();
    const sync = () => {
      const socket = io(server.url, { transports: ['websocket'] });
      return { socket, state: replicateOverSocket({ collection: notes, remoteCollection: 'notes', socket }) };
    };
    let current = sync();
    try {
      await current.state.awaitInitialReplication();
      await current.state.awaitInSync();
      // Edited while the app is closed: the replication sends it as it starts again.
      await current.state.cancel();
      current.socket.close();
      await (await notes.findOne('n1').exec())?.incrementalPatch({ text: 'one' });
      const secondRead = new Promise<void>((resolve) => {
        reads.reached = resolve;
      });
      reads.from = reads.count + 2;
      current = sync();
      const first = await server.nextPush();
      await secondRead;
      // Written again while that push is on its way, before RxDB's next read; the server merged the
      // push with a colleague's change: Bob signed the note.
      await (await notes.findOne('n1').exec())?.incrementalPatch({ text: 'two' });
      const read = new Promise<void>((resolve) => {
        reads.done = resolve;
      });
      reads.release();
      await read;
      first.answer({ conflicts: [{ id: 'n1', text: 'one', by: 'Bob', _deleted: false } as SyncDocument], lost: [] });
      await vi.waitFor(async () => expect(await note()).toMatchObject({ text: 'two', by: 'Bob' }), {
        timeout: 10_000,
      });
      // The write made during the push is sent as the note holds it now: nothing takes Bob's name off.
      const second = await server.nextPush();
      expect(second.rows).toEqual([
        {
          assumedMasterState: expect.objectContaining({ text: 'one', by: 'Bob' }),
          newDocumentState: expect.objectContaining({ text: 'two', by: 'Bob' }),
        },
      ]);
      second.answer({ conflicts: [], lost: [] });
      await current.state.awaitInSync();
      expect(await note()).toMatchObject({ text: 'two', by: 'Bob' });
    } finally {
      reads.release();
      await current.state.cancel();
      current.socket.close();
      await db.remove();
      await server.close();
    }
  });

  it('leave a document written again during its push waiting to be sent, until that write is pushed too', async () => {
    const server = await heldSyncServer();
    const { db, notes } = await notesDatabase();
    const socket = io(server.url, { transports: ['websocket'] });
    const answered: string[][] = [];
    const state = replicateOverSocket({
      collection: notes,
      remoteCollection: 'notes',
      socket,
      onPushed: (ids) => answered.push(ids),
    });
    try {
      await state.awaitInitialReplication();
      await notes.insert({ id: 'n1', text: 'first' });
      const first = await server.nextPush();
      expect(first.rows.map((row) => row.newDocumentState.text)).toEqual(['first']);
      // Written again while the first state is on its way: that write still has to be sent.
      await (await notes.findOne('n1').exec())?.incrementalPatch({ text: 'second' });
      first.answer({ conflicts: [], lost: [] });
      const second = await server.nextPush();
      expect(second.rows.map((row) => row.newDocumentState.text)).toEqual(['second']);
      expect(answered).toEqual([[]]);
      second.answer({ conflicts: [], lost: [] });
      await vi.waitFor(() => expect(answered).toEqual([[], ['n1']]), { timeout: 10_000 });
    } finally {
      await state.cancel();
      socket.close();
      await db.remove();
      await server.close();
    }
  });
});

describe('master states deferred for a change of the user’s', () => {
  it('kept when the app quit are not taken over a deletion the first pull brings when it opens again', async () => {
    const server = await heldSyncServer([note('n1', 'start', 1)]);
    const recording = recordingKept(getRxStorageMemory());
    const replica = await notesOn(server, recording.storage);
    const n1 = () => replica.stored('n1');
    let state = replica.replicate();
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      // The app quit with a colleague's text deferred, not taken yet; the office deleted the note since.
      await keepWithRecords(state, 'deferred', { n1: note('n1', 'colleague', 2) });
      await state.cancel();
      server.pullNext([{ id: 'n1', _deleted: true }]);
      state = replica.replicate();
      await vi.waitFor(async () => expect((await n1())?._deleted).toBe(true), { timeout: WAIT_MS });
      await state.awaitInSync();
      // Long enough for the deferred text to be taken, were it taken.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await n1())?._deleted).toBe(true);
      expect(recording.now('deferred')).toEqual({});
    } finally {
      await replica.close();
    }
  });

  it('are kept with the records before a checkpoint passes them', async () => {
    const { server, slow, replica, state } = await syncedWithKeptHeld('deferred');
    try {
      const internal = state.internalReplicationState;
      if (!internal) throw new Error('The replication has not started');
      const checkpoint = async () =>
        ((await internal.input.metaInstance.findDocumentsById(['down|1'], false))[0] as { checkpointData?: unknown })
          ?.checkpointData;
      // The user saves the note unchanged, then a colleague's text arrives: deferred for that save.
      await (await replica.notes.findOne('n1').exec(true)).incrementalPatch({ text: 'start' });
      const reached = slow.arm();
      server.stream({ collection: 'notes', documents: [note('n1', 'colleague', 2)], checkpoint: { at: 9 } });
      await reached;
      // Past it first, a process dying before the state was kept left nothing to take it again.
      await meanwhile();
      expect(await checkpoint()).not.toEqual({ at: 9 });
      slow.release();
      await vi.waitFor(async () => expect(await checkpoint()).toEqual({ at: 9 }), { timeout: WAIT_MS });
    } finally {
      await replica.close();
    }
  });

  it('kept on the device by an earlier release are taken from there once, then kept with the records', async () => {
    const { recording, replica, state: first } = await syncedWithKeptHeld('deferred');
    let state = first;
    try {
      await state.cancel();
      // An earlier release quit with a colleague's text deferred, kept beside the replica.
      const keepDeferredMasterStates = deviceKeeping<DeferredMasterStates>();
      keepDeferredMasterStates.save({ n1: note('n1', 'colleague', 2) });
      state = replica.replicate({ keepDeferredMasterStates });
      await vi.waitFor(async () => expect((await replica.stored('n1'))?.text).toBe('colleague'), { timeout: WAIT_MS });
      // Kept with the records before it was taken, and no longer beside the replica.
      expect(recording.saved('deferred')[0]).toEqual({ n1: note('n1', 'colleague', 2) });
      expect(keepDeferredMasterStates.load()).toEqual({});
      await vi.waitFor(() => expect(recording.now('deferred')).toEqual({}), { timeout: WAIT_MS });
    } finally {
      await replica.close();
    }
  });

  it('written by RxDB after all are not kept on the device', async () => {
    const { server, recording, replica, state } = await syncedWithKeptHeld('deferred');
    try {
      // The user saves the note unchanged, then a colleague's text arrives: deferred for that
      // save, and written by RxDB all the same (the note holds its server state).
      await (await replica.notes.findOne('n1').exec(true)).incrementalPatch({ text: 'start' });
      server.stream({ collection: 'notes', documents: [note('n1', 'colleague', 2)], checkpoint: { at: 9 } });
      await vi.waitFor(async () => expect((await replica.stored('n1'))?.text).toBe('colleague'), { timeout: WAIT_MS });
      await state.awaitInSync();
      // It was kept for a moment, and is no more.
      expect(recording.saved('deferred').some((kept) => 'n1' in kept)).toBe(true);
      await vi.waitFor(() => expect(recording.now('deferred')).toEqual({}), { timeout: WAIT_MS });
    } finally {
      await replica.close();
    }
  });

  it('handed to RxDB again are kept on the device until the desktop storage has them on disk', async () => {
    const server = await heldSyncServer([note('n1', 'start', 1)]);
    const process = await desktopProcess();
    const replica = await notesOn(server, process.storage, process.name);
    let state = replica.replicate();
    let again: Awaited<ReturnType<typeof notesOn>> | undefined;
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      // The app quit with a colleague's text deferred, not taken yet.
      await keepWithRecords(state, 'deferred', { n1: note('n1', 'colleague', 2) });
      await state.cancel();
      // Opened again, it takes the text, answered from memory; the process dies writing it to disk.
      process.dieAtPersisting('n1');
      state = replica.replicate();
      await vi.waitFor(() => expect(process.dead()).toBe(true), { timeout: WAIT_MS });
      await replica.abandon(process, state);
      // Started again on its files, which do not have the text: taken again.
      const recording = recordingKept(process.restarted());
      again = await notesOn(server, recording.storage, process.name);
      expect((await again.stored('n1'))?.text).toBe('start');
      again.replicate();
      await vi.waitFor(async () => expect((await again?.stored('n1'))?.text).toBe('colleague'), { timeout: WAIT_MS });
      await vi.waitFor(() => expect(recording.now('deferred')).toEqual({}), { timeout: WAIT_MS });
    } finally {
      if (again) await again.close();
      else await server.close();
      await process.remove();
    }
  });
});

describe('pulled states whose record never reached the device', () => {
  /**
   * RxDB stores a pulled state in two writes, the document and then its record of the server's
   * state; the app quits between the two for the note shared again, whose record stays the
   * tombstone of its hiding.
   */
  async function quitWithTheRecordOfASharedNoteMissing(options: { upstreamCheckpointLost?: boolean } = {}) {
    // Its reads of the note can be held too (`slow`).
    const slow = memoryHoldingOne((ids, _context, operation) => operation === 'read' && ids.includes('n1'));
    const memory = slow.storage;
    // `upstreamCheckpointLost`: RxDB's upstream checkpoint past the note is not stored either, so
    // the upstream looks at the note again when the replica opens.
    const dropping = { armed: false, checkpoints: false };
    const storage = interceptingWrites(memory, async (rows, context, write) => {
      if (dropping.armed && context === 'replication-down-write-meta' && JSON.stringify(rows).includes('shared')) {
        dropping.armed = false;
        return { error: [] };
      }
      if (dropping.checkpoints && context === 'replication-set-checkpoint' && JSON.stringify(rows).includes('"up|'))
        return { error: [] };
      return write(rows, context);
    });
    const server = await heldSyncServer([note('n1', 'start', 1)]);
    const replica = await notesOn(server, storage);
    const state = replica.replicate();
    await state.awaitInitialReplication();
    await state.awaitInSync();
    server.stream({ collection: 'notes', documents: [{ id: 'n1', _deleted: true }], checkpoint: { at: 8 } });
    await vi.waitFor(async () => expect((await replica.stored('n1'))?._deleted).toBe(true), { timeout: WAIT_MS });
    await state.awaitInSync();
    dropping.armed = true;
    dropping.checkpoints = options.upstreamCheckpointLost === true;
    server.stream({ collection: 'notes', documents: [note('n1', 'shared', 2)], checkpoint: { at: 9 } });
    await vi.waitFor(async () => expect((await replica.stored('n1'))?._deleted).toBe(false), { timeout: WAIT_MS });
    await vi.waitFor(() => expect(dropping.armed).toBe(false), { timeout: WAIT_MS });
    await state.cancel();
    dropping.checkpoints = false;
    return { server, replica, slow };
  }
  /** The rows of a push: each one's base and whether it deletes. */
  const basesOf = (push: HeldPush) => push.rows.map((row) => [row.assumedMasterState, row.newDocumentState._deleted]);

  it('are the base of the next push: a deletion of a record shared again is sent as the user’s', async () => {
    const { server, replica } = await quitWithTheRecordOfASharedNoteMissing();
    try {
      // Opened again, off line (its first pull waits): the user deletes the note.
      const pulled = server.holdNextPull();
      const state = replica.replicate();
      await (await replica.notes.findOne('n1').exec(true)).remove();
      const push = await server.nextPush();
      // Sent against the state the user saw, the server takes it as their deletion.
      expect(basesOf(push)).toEqual([[note('n1', 'shared', 2), true]]);
      push.answer({ conflicts: [], lost: [] });
      (await pulled)([]);
      await state.awaitInSync();
      expect(await replica.stored('n1')).toMatchObject({ _deleted: true });
    } finally {
      await replica.close();
    }
  });

  it('stay the base of every attempt of that push: one made off line does not use it up', async () => {
    const { server, replica, slow } = await quitWithTheRecordOfASharedNoteMissing({ upstreamCheckpointLost: true });
    try {
      // Opened again with no network: as RxDB's first attempt to send the note, whose record
      // differs, reads it, the user deletes it; each attempt fails until the network is back.
      replica.socket.disconnect();
      const reached = slow.arm();
      replica.replicate();
      await reached;
      await (await replica.notes.findOne('n1').exec(true)).remove();
      slow.release();
      await new Promise((resolve) => setTimeout(resolve, 300));
      replica.socket.connect();
      expect(basesOf(await server.nextPush())).toEqual([[note('n1', 'shared', 2), true]]);
    } finally {
      await replica.close();
    }
  });

  it('give way to a newer state the first pull brings when the app opens', async () => {
    // RxDB's upstream passed the note (it leaves the states its downstream writes alone) and never
    // looks at it again; the note is unlike its record, and only its pulled mark tells it from a
    // change of the user's that a pulled state must not be written over.
    const { server, replica } = await quitWithTheRecordOfASharedNoteMissing();
    try {
      // The office changed the note since: the first pull brings it, while RxDB's record of the
      // note is still the one before the state the replica holds.
      server.pullNext([note('n1', 'office', 3)]);
      const state = replica.replicate();
      await vi.waitFor(async () => expect((await replica.stored('n1'))?.text).toBe('office'), { timeout: WAIT_MS });
      await state.awaitInSync();
      expect(server.pushed).toEqual([]);
    } finally {
      await replica.close();
    }
  });

  it('are never pushed as the user’s when RxDB’s upstream finds one again as the app opens', async () => {
    const { server, replica } = await quitWithTheRecordOfASharedNoteMissing({ upstreamCheckpointLost: true });
    try {
      // RxDB's upstream looks at the note again (its checkpoint past it was lost) and finds it
      // unlike its record: the office's state, not a change of the user's, is not sent.
      const before = server.pushed.length;
      const state = replica.replicate();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(server.pushed.slice(before)).toEqual([]);
      await state.awaitInSync();
      // It is recorded as the server's instead: the user's next edit is sent against it.
      await (await replica.notes.findOne('n1').exec(true)).incrementalPatch({ text: 'mine' });
      const push = await server.nextPush();
      expect(push.rows.map((row) => [row.assumedMasterState, row.newDocumentState.text])).toEqual([
        [note('n1', 'shared', 2), 'mine'],
      ]);
      push.answer({ conflicts: [], lost: [] });
    } finally {
      await replica.close();
    }
  });

  it('are the base of a push the user’s write reaches as it goes out', async () => {
    const { server, replica, slow } = await quitWithTheRecordOfASharedNoteMissing({ upstreamCheckpointLost: true });
    try {
      // Opened again: as RxDB's push of the note, whose record differs, reads it to send it, the
      // user deletes it.
      const reached = slow.arm();
      replica.replicate();
      await reached;
      await (await replica.notes.findOne('n1').exec(true)).remove();
      slow.release();
      expect(basesOf(await server.nextPush())).toEqual([[note('n1', 'shared', 2), true]]);
    } finally {
      await replica.close();
    }
  });
});

describe('pushes', () => {
  const replicaDirectories: string[] = [];
  afterAll(async () => {
    for (const directory of replicaDirectories) await rm(directory, { recursive: true, force: true });
  });

  it('carry the server state stored while they waited for the connection', async () => {
    const server = await heldSyncServer([{ id: 'n1', text: 'server', _deleted: false } as SyncDocument]);
    // The replication's records of server states, with some of them not stored (yet).
    const unrecorded = new Set<string>();
    const memory = getRxStorageMemory();
    const storage = {
      ...memory,
      async createStorageInstance(params: Parameters<typeof memory.createStorageInstance>[0]) {
        const instance = await memory.createStorageInstance(params);
        if (params.schema.title !== META_INSTANCE_SCHEMA_TITLE) return instance;
        const find = instance.findDocumentsById.bind(instance);
        instance.findDocumentsById = async (ids, withDeleted) =>
          (await find(ids, withDeleted)).filter((doc) => !unrecorded.has(String((doc as { itemId?: string }).itemId)));
        return instance;
      },
    } as RxStorage<unknown, unknown>;
    const { db, notes } = await notesDatabase(storage);
    const socket = io(server.url, { transports: ['websocket'] });
    // A failed push is retried only after this: the one under test is the push waiting to connect.
    const state = replicateOverSocket({ collection: notes, remoteCollection: 'notes', socket, retryTimeMs: 10_000 });
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      expect((await notes.findOne('n1').exec())?.text).toBe('server');

      // The connection drops; the replica edits the note while its server state is not on record and
      // the connection is coming back.
      unrecorded.add('n1');
      socket.disconnect();
      const open = server.holdConnections();
      socket.connect();
      const listening = socket.listeners('connect').length;
      await (await notes.findOne('n1').exec())?.incrementalPatch({ text: 'mine' });
      // The push waits for the connection …
      await vi.waitFor(() => expect(socket.listeners('connect').length).toBeGreaterThan(listening), {
        timeout: 10_000,
      });
      // … during which the record is stored: it is sent along, so the server can merge against it.
      unrecorded.delete('n1');
      open();
      const push = await server.nextPush();
      expect(push.rows).toEqual([
        {
          assumedMasterState: expect.objectContaining({ id: 'n1', text: 'server' }),
          newDocumentState: expect.objectContaining({ id: 'n1', text: 'mine' }),
        },
      ]);
      push.answer({ conflicts: [], lost: [] });
    } finally {
      await state.cancel();
      socket.close();
      await db.remove();
      await server.close();
    }
  });

  it('retried after the connection dropped, send the row again and then the state the document has now', async () => {
    const server = await heldSyncServer();
    const { db, notes } = await notesDatabase();
    const socket = io(server.url, { transports: ['websocket'] });
    const lost: LostEdit[][] = [];
    const state = replicateOverSocket({
      collection: notes,
      remoteCollection: 'notes',
      socket,
      retryTimeMs: 50,
      onLostEdits: (edits) => lost.push(edits),
    });
    try {
      await state.awaitInitialReplication();
      await notes.insert({ id: 'n1', text: 'first' });
      // The push reaches the server, but the connection drops before its answer comes back …
      const unanswered = await server.nextPush();
      expect(unanswered.rows.map((row) => row.newDocumentState.text)).toEqual(['first']);
      socket.disconnect();
      // … and, offline, the note is written again.
      await (await notes.findOne('n1').exec())?.incrementalPatch({ text: 'second' });
      socket.connect();
      // The first attempt may have been applied: the retry sends it again, then what the note holds
      // now against it, so the server applies the change from 'first' to 'second' whichever it holds.
      const retried = await server.nextPush();
      expect(retried.rows).toEqual([
        { assumedMasterState: null, newDocumentState: expect.objectContaining({ id: 'n1', text: 'first' }) },
        {
          assumedMasterState: expect.objectContaining({ id: 'n1', text: 'first' }),
          newDocumentState: expect.objectContaining({ id: 'n1', text: 'second' }),
        },
      ]);
      // A colleague had changed the text meanwhile: both rows lose it, and the user is told of the
      // value they tried last.
      const kept = { id: 'n1', text: 'colleague', _deleted: false } as SyncDocument;
      const loss = (attempted: string) =>
        ({ id: 'n1', path: 'text', attempted, kept: 'colleague', reason: 'changed_on_server' }) as LostEdit;
      retried.answer({ conflicts: [kept, kept], lost: [loss('first'), loss('second')] });
      await vi.waitFor(() => expect(lost).toEqual([[loss('second')]]), { timeout: 10_000 });
    } finally {
      await state.cancel();
      socket.close();
      await db.remove();
      await server.close();
    }
  });

  it('whose answer was lost, keep a change taken back meanwhile from the state the server took from the first attempt', async () => {
    const server = await heldSyncServer([note('n1', 'start', 1)]);
    const { db, notes } = await notesDatabase();
    const socket = io(server.url, { transports: ['websocket'] });
    const replicate = () =>
      replicateOverSocket({ collection: notes, remoteCollection: 'notes', socket, retryTimeMs: 50 });
    let state = replicate();
    const write = async (text: string) => (await notes.findOne('n1').exec())?.incrementalPatch({ text });
    const text = async () => (await notes.findOne('n1').exec())?.text;
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      // The user changes the note with the app closed to the network; it opens again on line and
      // sends the change, which the server applies, but the connection drops before its answer.
      await state.cancel();
      await write('mine');
      state = replicate();
      await server.nextPush();
      socket.disconnect();
      // Offline, the user takes the change back: the note holds its recorded server state again.
      await write('start');
      // Back on line, the server asks for a pull, which brings the state it took from that attempt
      // while the push is tried again.
      server.pullNext([note('n1', 'mine', 2)]);
      const pulls = server.pulls.count;
      socket.once('connect', () => server.resync());
      socket.connect();
      const retried = await server.nextPush();
      expect(retried.rows.map((row) => [row.assumedMasterState?.text, row.newDocumentState.text])).toEqual([
        ['start', 'mine'],
        ['mine', 'start'],
      ]);
      // The reconnect's pull and the push's retry start together, in either order; RxDB holds a
      // pull asked for while a push is under way until it is answered. Socket.IO keeps a socket's
      // messages in order, so a pull sent first has reached the server by now: its state, older
      // than the change taken back, must not be written over it. A pull sent after the push is
      // read by the server after it applied the push, as a server does: the change taken back.
      if (server.pulls.count > pulls) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(await text()).toBe('start');
      } else server.pullNext([note('n1', 'start', 3)]);
      // The server takes the change back, as sent.
      retried.answer({ conflicts: [], lost: [] });
      await state.awaitInSync();
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The note stays as the user left it, and nothing sends the change again.
      expect(await text()).toBe('start');
      expect(server.pushed).toHaveLength(2);
    } finally {
      await state.cancel();
      socket.close();
      await db.remove();
      await server.close();
    }
  });

  it('retried again, send every newer state an earlier attempt sent, each against the one before', async () => {
    const server = await heldSyncServer();
    const { db, notes } = await notesDatabase();
    const socket = io(server.url, { transports: ['websocket'] });
    const state = replicateOverSocket({ collection: notes, remoteCollection: 'notes', socket, retryTimeMs: 50 });
    const write = async (text: string) => (await notes.findOne('n1').exec())?.incrementalPatch({ text });
    const texts = (push: HeldPush) =>
      push.rows.map((row) => [row.assumedMasterState?.text ?? null, row.newDocumentState.text]);
    try {
      await state.awaitInitialReplication();
      await notes.insert({ id: 'n1', text: 'first' });
      // Two attempts reach the server, each unanswered, the note written again offline after each.
      await server.nextPush();
      socket.disconnect();
      await write('second');
      socket.connect();
      expect(texts(await server.nextPush())).toEqual([
        [null, 'first'],
        ['first', 'second'],
      ]);
      socket.disconnect();
      await write('third');
      socket.connect();
      // Either attempt may have been applied: the third sends 'second' again before 'third', so
      // the change from 'second' to 'third' is applied whichever the server holds.
      const third = await server.nextPush();
      expect(texts(third)).toEqual([
        [null, 'first'],
        ['first', 'second'],
        ['second', 'third'],
      ]);
      third.answer({ conflicts: [], lost: [] });
      await write('fourth');
      // Answered: the next push starts from the state the server took.
      expect(texts(await server.nextPush())).toEqual([['third', 'fourth']]);
    } finally {
      await state.cancel();
      socket.close();
      await db.remove();
      await server.close();
    }
  });

  it('keep what they send with the records before it goes out', async () => {
    const { server, slow, replica, edit } = await syncedWithKeptHeld('sent');
    try {
      const reached = slow.arm();
      await edit();
      await reached;
      // Until it is stored, nothing goes out: an app killed meanwhile would not know to send it again.
      await meanwhile();
      expect(server.pushed).toEqual([]);
      slow.release();
      const push = await server.nextPush();
      expect(push.rows.map((row) => row.newDocumentState.text)).toEqual(['mine']);
      push.answer({ conflicts: [], lost: [] });
    } finally {
      await replica.close();
    }
  });

  it('answered keep what they sent in the records until the answer is recorded', async () => {
    const server = await heldSyncServer([note('n1', 'start', 1)]);
    // The answer's record of the note's server state waits once armed.
    const slow = memoryHoldingOne((ids, context) => context === 'orbita-sync-sent-state' && ids.includes('n1|0'));
    const recording = recordingKept(slow.storage);
    const replica = await notesOn(server, recording.storage);
    const state = replica.replicate();
    try {
      await state.awaitInSync();
      await (await replica.notes.findOne('n1').exec(true)).incrementalPatch({ text: 'mine' });
      const push = await server.nextPush();
      const reached = slow.arm();
      push.answer({ conflicts: [], lost: [] });
      await reached;
      // Let go first, an app ending before the record kept neither: a change the push made and
      // the user took back since would never be sent again.
      await meanwhile();
      expect(Object.keys(recording.now('sent'))).toEqual(['n1']);
      slow.release();
      await vi.waitFor(() => expect(recording.now('sent')).toEqual({}), { timeout: WAIT_MS });
    } finally {
      await replica.close();
    }
  });

  it('answered with a merge keep the answer with the records before the merge is recorded', async () => {
    const { server, slow, replica, edit, recorded } = await syncedWithKeptHeld('answers');
    try {
      await edit();
      const push = await server.nextPush();
      const reached = slow.arm();
      push.answer({ conflicts: [{ ...note('n1', 'mine', 3), by: 'colleague' }], lost: [] });
      await reached;
      // Recorded first, a process dying before the answer was kept left nothing to take it again.
      await meanwhile();
      expect(await recorded()).not.toHaveProperty('by');
      slow.release();
      await vi.waitFor(async () => expect(await replica.stored('n1')).toMatchObject({ by: 'colleague' }), {
        timeout: WAIT_MS,
      });
    } finally {
      await replica.close();
    }
  });

  it('answered with lost edits keep them with the records before the push is settled, until they are seen', async () => {
    const held = await syncedWithKeptHeld('lost');
    const { server, slow, recording, replica, reported, edit, recorded } = held;
    let { state } = held;
    const lost: LostEdit = {
      id: 'n1',
      path: 'text',
      attempted: 'mine',
      kept: 'colleague',
      reason: 'changed_on_server',
    };
    try {
      await edit();
      const push = await server.nextPush();
      const reached = slow.arm();
      push.answer({ conflicts: [note('n1', 'colleague', 3)], lost: [lost] });
      await reached;
      // Recorded first, an app ending before they were kept left nothing to report them again.
      await meanwhile();
      expect(await recorded()).toMatchObject({ text: 'start' });
      slow.release();
      await vi.waitFor(() => expect(reported).toEqual([[lost]]), { timeout: WAIT_MS });
      await state.awaitInSync();
      await state.cancel();
      // Opened again, they are reported again until seen.
      state = held.replicate();
      await vi.waitFor(() => expect(reported).toEqual([[lost], [lost]]), { timeout: WAIT_MS });
      state.forgetLost((edit) => edit.id === 'n1');
      await vi.waitFor(() => expect(recording.now('lost')).toEqual({}), { timeout: WAIT_MS });
    } finally {
      await replica.close();
    }
  });

  it('kept after their push was answered give way to what is pulled when the app opens', async () => {
    const server = await heldSyncServer([note('n1', 'start', 1)]);
    // RxDB's record of a streamed state can be lost (the replica process died between its writes).
    const dropping = { armed: false };
    const storage = interceptingWrites(
      getRxStorageMemory() as RxStorage<unknown, unknown>,
      async (rows, context, write) => {
        if (dropping.armed && context === 'replication-down-write-meta') {
          dropping.armed = false;
          return { error: [] };
        }
        return write(rows, context);
      },
    );
    const replica = await notesOn(server, storage);
    let state = replica.replicate();
    try {
      await state.awaitInSync();
      const before = await replica.stored('n1');
      await (await replica.notes.findOne('n1').exec(true)).incrementalPatch({ text: 'mine' });
      const push = await server.nextPush();
      push.answer({ conflicts: [], lost: [] });
      await state.awaitInSync();
      // The app ends with what the push sent still in the records, as if the push were in doubt
      // (its letting go never reached the disk), and the server's state of the note, streamed
      // meanwhile, written without its record.
      const sent = push.rows.map((row) => row.newDocumentState as Record<string, unknown>);
      const { _meta, _rev, _attachments, ...base } = before as Record<string, unknown>;
      await keepWithRecords(state, 'sent', { n1: { base, states: sent } });
      dropping.armed = true;
      server.stream({ collection: 'notes', documents: [note('n1', 'mine', 3)], checkpoint: { at: 9 } });
      await vi.waitFor(async () => expect((await replica.stored('n1'))?.updatedAt).toBe(at(3)), { timeout: WAIT_MS });
      await vi.waitFor(() => expect(dropping.armed).toBe(false), { timeout: WAIT_MS });
      await state.cancel();
      // Opened again, the office's change since is pulled and taken.
      server.pullNext([note('n1', 'office', 4)]);
      state = replica.replicate();
      await vi.waitFor(async () => expect((await replica.stored('n1'))?.text).toBe('office'), { timeout: WAIT_MS });
    } finally {
      await replica.close();
    }
  });

  it('left in doubt when the app quits, send what their attempts sent again when it opens next', async () => {
    const server = await heldSyncServer();
    const recording = recordingKept(getRxStorageMemory());
    const { db, notes } = await notesDatabase(recording.storage);
    const sync = () => {
      const socket = io(server.url, { transports: ['websocket'] });
      const state = replicateOverSocket({
        collection: notes,
        remoteCollection: 'notes',
        socket,
        retryTimeMs: 50,
      });
      return { socket, state };
    };
    const write = async (text: string) => (await notes.findOne('n1').exec())?.incrementalPatch({ text });
    const texts = (push: HeldPush) =>
      push.rows.map((row) => [row.assumedMasterState?.text ?? null, row.newDocumentState.text]);
    let current = sync();
    try {
      await current.state.awaitInitialReplication();
      await notes.insert({ id: 'n1', text: 'first' });
      // Two attempts reach the server, each unanswered; the app quits, the note written again meanwhile.
      await server.nextPush();
      current.socket.disconnect();
      await write('second');
      current.socket.connect();
      expect(texts(await server.nextPush())).toEqual([
        [null, 'first'],
        ['first', 'second'],
      ]);
      await current.state.cancel();
      current.socket.close();
      await write('third');
      current = sync();
      // Either attempt may have been applied: what they sent goes again, in order, before 'third'.
      const opened = await server.nextPush();
      expect(texts(opened)).toEqual([
        [null, 'first'],
        ['first', 'second'],
        ['second', 'third'],
      ]);
      opened.answer({ conflicts: [], lost: [] });
      await current.state.awaitInSync();
      await vi.waitFor(() => expect(recording.now('sent')).toEqual({}), { timeout: WAIT_MS });
    } finally {
      await current.state.cancel();
      current.socket.close();
      await db.remove();
      await server.close();
    }
  });

  it.each([
    {
      server: 'applied the push',
      holds: 'mine',
      answer: { conflicts: [], lost: [] },
      ends: 'start',
    },
    {
      server: 'took a colleague’s text since',
      holds: 'colleague',
      answer: {
        conflicts: [note('n1', 'colleague', 3)],
        lost: [{ id: 'n1', path: 'text', attempted: 'start', kept: 'colleague', reason: 'changed_on_server' }],
      },
      ends: 'colleague',
    },
  ] as { server: string; holds: string; answer: PushResponse; ends: string }[])(
    'left in doubt when the app quits and taken back, send the taking back before a pull is written over it (the server $server)',
    async ({ holds, answer, ends }) => {
      const before = await heldSyncServer([note('n1', 'start', 1)]);
      const recording = recordingKept(getRxStorageMemory());
      const { db, notes } = await notesDatabase(recording.storage);
      const sync = (url: string) => {
        const socket = io(url, { transports: ['websocket'] });
        return {
          socket,
          state: replicateOverSocket({ collection: notes, remoteCollection: 'notes', socket }),
        };
      };
      const write = async (text: string) => (await notes.findOne('n1').exec())?.incrementalPatch({ text });
      const text = async () => (await notes.findOne('n1').exec())?.text;
      const texts = (push: HeldPush) =>
        push.rows.map((row) => [row.assumedMasterState?.text ?? null, row.newDocumentState.text]);
      let current = sync(before.url);
      // The server's state when the app opens again, and what its first pull answers.
      const after = await heldSyncServer([note('n1', holds, 2)]);
      try {
        await current.state.awaitInitialReplication();
        await write('mine');
        await before.nextPush();
        // The app quits with that push in doubt, and the user takes the change back: the note
        // holds its recorded server state again, nothing for RxDB to send.
        await current.state.cancel();
        current.socket.close();
        expect(Object.keys(recording.now('sent'))).toEqual(['n1']);
        await write('start');
        current = sync(after.url);
        // Opened again: what the attempt sent goes again, then the taking back after it, so the
        // server takes the change back whether or not it applied the attempt.
        const push = await after.nextPush();
        expect(texts(push)).toEqual([
          ['start', 'mine'],
          ['mine', 'start'],
        ]);
        // The first pull, answered meanwhile, is not written over the user's text.
        await vi.waitFor(() => expect(after.pulls.count).toBeGreaterThan(0), { timeout: WAIT_MS });
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(await text()).toBe('start');
        push.answer(answer);
        await current.state.awaitInSync();
        await vi.waitFor(async () => expect(await text()).toBe(ends), { timeout: WAIT_MS });
        await vi.waitFor(() => expect(recording.now('sent')).toEqual({}), { timeout: WAIT_MS });
        // Settled: an edit made on that state goes alone.
        await write('later');
        expect(texts(await after.nextPush())).toEqual([[ends, 'later']]);
      } finally {
        await current.state.cancel();
        current.socket.close();
        await db.remove();
        await before.close();
        await after.close();
      }
    },
  );

  it('kept on the device in a form the replication cannot read are let go, and the replica syncs as without them', async () => {
    const server = await heldSyncServer([note('n1', 'start', 1)]);
    const replica = await notesOn(server);
    const keepSentStates = deviceKeeping();
    const keepDeferredMasterStates = deviceKeeping<DeferredMasterStates>();
    // What the device holds under the keys an earlier release kept these in is damaged.
    keepSentStates.save({ n1: { base: null, states: 'sent' } } as never);
    keepDeferredMasterStates.save({ n1: 7 } as never);
    let state = replica.replicate({ keepSentStates, keepDeferredMasterStates });
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      // A colleague's text arrives, and the user's edit goes out.
      server.stream({ collection: 'notes', documents: [note('n1', 'colleague', 2)], checkpoint: { at: 9 } });
      await vi.waitFor(async () => expect((await replica.stored('n1'))?.text).toBe('colleague'), { timeout: WAIT_MS });
      await (await replica.notes.findOne('n1').exec(true)).incrementalPatch({ text: 'mine' });
      const push = await server.nextPush();
      expect(push.rows.map((row) => [row.assumedMasterState?.text, row.newDocumentState.text])).toEqual([
        ['colleague', 'mine'],
      ]);
      push.answer({ conflicts: [], lost: [] });
      await state.awaitInSync();
      expect(keepSentStates.load()).toEqual({});
      await state.cancel();
      state = replica.replicate({ keepSentStates, keepDeferredMasterStates });
      await state.awaitInSync();
      expect((await replica.stored('n1'))?.text).toBe('mine');
    } finally {
      await replica.close();
    }
  });

  it('left in doubt with the very state the document holds, and made from it, are let go and pulled states taken again', async () => {
    const server = await heldSyncServer([note('n1', 'start', 1)]);
    const recording = recordingKept(getRxStorageMemory());
    const { db, notes } = await notesDatabase(recording.storage);
    const socket = io(server.url, { transports: ['websocket'] });
    const replicate = () =>
      replicateOverSocket({ collection: notes, remoteCollection: 'notes', socket, retryTimeMs: 50 });
    let state = replicate();
    try {
      await state.awaitInitialReplication();
      await state.awaitInSync();
      // The app quit with an attempt in doubt that sent the note as it was (changed and changed
      // back before it went out): the note holds that state, which is its recorded server state.
      const [stored] = await notes.storageInstance.findDocumentsById(['n1'], false);
      const { _meta, _rev, _attachments, ...held } = stored as Record<string, unknown>;
      await keepWithRecords(state, 'sent', { n1: { base: held, states: [held] } });
      await state.cancel();
      // Opened again, a colleague's change is pulled: it is taken, and nothing is sent.
      server.pullNext([note('n1', 'colleague', 2)]);
      state = replicate();
      await vi.waitFor(async () => expect((await notes.findOne('n1').exec())?.text).toBe('colleague'), {
        timeout: WAIT_MS,
      });
      await state.awaitInSync();
      expect(server.pushed).toEqual([]);
      await vi.waitFor(() => expect(recording.now('sent')).toEqual({}), { timeout: WAIT_MS });
    } finally {
      await state.cancel();
      socket.close();
      await db.remove();
      await server.close();
    }
  });

  it.each([
    ['RxDB’s memory storage', async () => getRxStorageMemory() as RxStorage<unknown, unknown>],
    [
      'the desktop replica’s storage',
      async () => {
        const directory = await mkdtemp(path.join(tmpdir(), 'orbita-sent-'));
        replicaDirectories.push(directory);
        return replicaStorage(directory);
      },
    ],
  ])(
    'retried with the state the document has now and taken by the server, leave that state as the server’s (%s)',
    async (_name, storage) => {
      const server = await heldSyncServer();
      const { db, notes } = await notesDatabase(await storage());
      const socket = io(server.url, { transports: ['websocket'] });
      const lost: LostEdit[] = [];
      const state = replicateOverSocket({
        collection: notes,
        remoteCollection: 'notes',
        socket,
        retryTimeMs: 50,
        onLostEdits: (edits) => lost.push(...edits),
      });
      try {
        await state.awaitInitialReplication();
        await notes.insert({ id: 'n1', text: 'first' });
        const unanswered = await server.nextPush();
        socket.disconnect();
        await (await notes.findOne('n1').exec())?.incrementalPatch({ text: 'second' });
        socket.connect();
        const retried = await server.nextPush();
        expect(retried.rows.map((row) => row.newDocumentState.text)).toEqual(['first', 'second']);
        retried.answer({ conflicts: [], lost: [] });
        // The server holds what the replica holds: nothing is left to send.
        const next = await Promise.race([
          state.awaitInSync().then(() => 'in sync'),
          server.nextPush().then((push) => `pushed again: ${JSON.stringify(push.rows)}`),
        ]);
        expect(next).toBe('in sync');
        // A colleague's later change comes in as a change, not as a conflict with the user's value.
        retried.stream({
          collection: 'notes',
          documents: [{ id: 'n1', text: 'colleague', _deleted: false } as SyncDocument],
          checkpoint: { at: 2 },
        });
        await vi.waitFor(async () => expect((await notes.findOne('n1').exec())?.text).toBe('colleague'), {
          timeout: 10_000,
        });
        expect(lost).toEqual([]);
        expect(unanswered.rows.map((row) => row.newDocumentState.text)).toEqual(['first']);
      } finally {
        await state.cancel();
        socket.close();
        await db.remove();
        await server.close();
      }
    },
  );
});
