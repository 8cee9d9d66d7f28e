import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LostEdit } from '@shared/sync';
import Database from 'better-sqlite3';
import type { RxStorage } from 'rxdb';
import { filter, firstValueFrom, NEVER } from 'rxjs';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { replicaStorage } from '../electron/backend/replica-host';
import { getRxStorageBetterSqlite } from '../electron/backend/rx-storage-sqlite';
import { assigneesChange, manualAssignee } from '../renderer/src/data/assignees';
import {
  createOrbitaDatabase,
  type OrbitaDatabase,
  type ReplicaSync,
  startReplicaSync,
} from '../renderer/src/data/database';
import { changedTask, removedRecord } from '../renderer/src/data/replica';
import { RecordGoneError, replicaFailureText } from '../renderer/src/data/replica-errors';
import type { TaskDocument } from '../renderer/src/data/schemas';
import { apiClient } from './helpers/api';
import { startTestApp, type TestApp } from './helpers/app';
import { createForm, createMember, createOrg, createTask, type Member } from './helpers/factories';

interface Replica {
  db: OrbitaDatabase;
  socket: Socket;
  sync: ReplicaSync;
  lost: LostEdit[];
}

let t: TestApp;
let dir: string;
let admin: Member;
let alice: Member;
let stranger: Member;
// biome-ignore lint/suspicious/noExplicitAny: form bodies are read loosely in tests.
let form: any;
const replicas: Replica[] = [];
const WAIT = { timeout: 15_000, interval: 50 };

beforeAll(async () => {
  t = await startTestApp({ config: { syncPollMs: 50 } });
  dir = await mkdtemp(path.join(tmpdir(), 'orbita-replica-'));
  admin = await createOrg(t);
  alice = await createMember(t, admin, { name: 'Alice' });
  stranger = await createOrg(t, 'Stranger organization');
  form = await createForm(admin, {
    fields: [
      { name: 'Amount', type: 'number' },
      { name: 'Note', type: 'text' },
    ],
  });
});

/** Stops a replica's replication and closes it (RxDB's free tier opens at most 13 collections per process). */
async function closeReplica(replica: Replica): Promise<void> {
  if (replicas.includes(replica)) replicas.splice(replicas.indexOf(replica), 1);
  await replica.sync.cancel();
  replica.socket.close();
  await replica.db.close();
}

afterAll(async () => {
  for (const replica of [...replicas]) await closeReplica(replica);
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * A desktop replica: the desktop's storage (documents in memory, persisted to a SQLite file of its
 * own), replicated over its own socket. `onDisk` opens the SQLite storage itself instead, for tests
 * that change the file behind RxDB's back.
 */
async function replica(
  member: Member,
  name: string,
  options: {
    onSignedOut?: () => void;
    onDeactivated?: () => void;
    onDisk?: boolean;
    wrap?: (storage: RxStorage<unknown, unknown>) => RxStorage<unknown, unknown>;
    markUnrecordedPulls?: boolean;
    /** Called with each push's answer before the replication gets it (it may hold it back). */
    beforePushAnswer?: () => Promise<void>;
    /** Likewise for each pull's answer. */
    beforePullAnswer?: () => Promise<void>;
    /** Called before each pull is sent (it may hold it back). */
    beforePullSent?: () => Promise<void>;
    /** Whether to wait for the first pull (default: yes). */
    awaitInitial?: boolean;
  } = {},
): Promise<Replica> {
  const {
    onSignedOut,
    onDeactivated,
    onDisk,
    wrap = (storage) => storage,
    markUnrecordedPulls,
    beforePushAnswer,
    beforePullAnswer,
    beforePullSent,
    awaitInitial = true,
  } = options;
  const db = await createOrbitaDatabase({
    name: `replica-${name}`,
    storage: wrap(
      onDisk
        ? (getRxStorageBetterSqlite({ databaseDirectory: dir }) as RxStorage<unknown, unknown>)
        : replicaStorage(dir),
    ),
    // RxDB's free tier opens at most 13 collections per process; three full replicas would need 21.
    collections: ['tasks', 'users'],
  });
  const socket = io(`${t.url}/sync`, { auth: { token: member.client.accessToken }, transports: ['websocket'] });
  if (beforePushAnswer || beforePullAnswer || beforePullSent) {
    // `socket.timeout()` returns the socket itself: its `emitWithAck` is wrapped once, here.
    const emitWithAck = socket.emitWithAck.bind(socket);
    socket.emitWithAck = (async (event: string, ...args: unknown[]) => {
      if (event === 'sync:pull') await beforePullSent?.();
      const answer = await emitWithAck(event, ...args);
      if (event === 'sync:push') await beforePushAnswer?.();
      if (event === 'sync:pull') await beforePullAnswer?.();
      return answer;
    }) as typeof socket.emitWithAck;
  }
  const lost: LostEdit[] = [];
  const sync = startReplicaSync(db, socket, {
    retryTimeMs: 200,
    onLostEdits: (edits) => lost.push(...edits),
    onSignedOut,
    onDeactivated,
    markUnrecordedPulls,
  });
  const created = { db, socket, sync, lost };
  replicas.push(created);
  if (awaitInitial) await sync.awaitInitial();
  return created;
}

/**
 * A storage whose every write first waits for `before`, told the write's context (RxDB's name for
 * it) and the ids of the documents written.
 */
function beforeEachWrite(before: (context: string, ids: string[]) => Promise<void>) {
  return (storage: RxStorage<unknown, unknown>): RxStorage<unknown, unknown> => ({
    ...storage,
    async createStorageInstance(params) {
      const instance = await storage.createStorageInstance(params);
      return new Proxy(instance, {
        get(target, key) {
          const value = Reflect.get(target, key, target);
          if (key !== 'bulkWrite') return typeof value === 'function' ? value.bind(target) : value;
          return async (rows: never, context: string) => {
            await before(
              context,
              (rows as { document: { id?: string } }[]).map((row) => String(row.document.id)),
            );
            return target.bulkWrite(rows, context);
          };
        },
      });
    },
  });
}

/** A task of a form of its own, and what closes that form to everyone but administrators. */
async function taskToHide(title: string) {
  const crew = (await admin.client.post('/api/roles', { name: `Crew ${Date.now()}`, memberIds: [] })).body as {
    id: string;
  };
  const restricted = await createForm(admin, { fields: [{ name: 'Note', type: 'text' }] });
  const task = await createTask(admin, restricted.id, { title });
  return {
    task,
    hideFromAlice: () => admin.client.patch(`/api/forms/${restricted.id}`, { visibleRoleIds: [crew.id] }),
  };
}

/** Waits until the server and the replica both hold the task under `title`, with nobody assigned. */
async function untilBothHoldUnassigned(replica: Replica, id: string, title: string): Promise<void> {
  await vi.waitFor(async () => {
    const stored = (await admin.client.get(`/api/tasks/${id}`)).body;
    expect(stored.title).toBe(title);
    expect(stored.assignees).toEqual([]);
    const local = await taskIn(replica, id);
    expect(local?.title).toBe(title);
    expect(local?.assignees).toEqual([]);
  }, WAIT);
}

/** Holds answers back until opened; `reached` resolves when the first answer is held. */
function gate() {
  let open: () => void = () => undefined;
  let reach: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  let isOpen = false;
  return {
    reached,
    open: () => {
      isOpen = true;
      open();
    },
    wait: () => {
      reach();
      return isOpen ? Promise.resolve() : opened;
    },
  };
}

/**
 * Deletes the replication's record of the server state of document `id` from replica `name`'s
 * file (opened with `onDisk`), as a page closed between RxDB's document and meta writes leaves it;
 * returns what puts it back (over the record the replication wrote again meanwhile, if it did).
 */
function forgetServerState(name: string, id: string): () => void {
  const file = new Database(path.join(dir, `replica_2d_${name.replaceAll('-', '_2d_')}.sqlite`));
  const tables = (
    file.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rx_rx_2d_replication%'").all() as {
      name: string;
    }[]
  ).map((row) => row.name);
  const metaTable = tables.find((table) => file.prepare(`SELECT 1 FROM "${table}" WHERE id = ?`).get(`${id}|0`));
  if (!metaTable) throw new Error(`no replication meta data for ${id}`);
  const kept = file.prepare(`SELECT * FROM "${metaTable}" WHERE id = ?`).get(`${id}|0`) as Record<string, unknown>;
  file.prepare(`DELETE FROM "${metaTable}" WHERE id = ?`).run(`${id}|0`);
  file.close();
  return () => {
    const again = new Database(path.join(dir, `replica_2d_${name.replaceAll('-', '_2d_')}.sqlite`));
    const columns = Object.keys(kept);
    again
      .prepare(
        `INSERT OR REPLACE INTO "${metaTable}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      )
      .run(...Object.values(kept));
    again.close();
  };
}

/**
 * Takes the mark off document `id` in replica `name`'s file (opened with `onDisk`), as a replica
 * written before `withPulledDocumentsMarked` holds a pulled document that was new to it.
 */
function unmark(name: string, id: string): void {
  const file = new Database(path.join(dir, `replica_2d_${name.replaceAll('-', '_2d_')}.sqlite`));
  try {
    const tables = (
      file.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rx_%'").all() as {
        name: string;
      }[]
    ).map((row) => row.name);
    for (const table of tables) {
      const found = (() => {
        try {
          return file.prepare(`SELECT data FROM "${table}" WHERE id = ?`).get(id) as { data: string } | undefined;
        } catch {
          return undefined;
        }
      })();
      if (!found) continue;
      const document = JSON.parse(found.data) as { _meta: Record<string, unknown> };
      if (!document._meta.o) throw new Error(`${id} carries no mark`);
      delete document._meta.o;
      file.prepare(`UPDATE "${table}" SET data = ? WHERE id = ?`).run(JSON.stringify(document), id);
      return;
    }
    throw new Error(`no document ${id}`);
  } finally {
    file.close();
  }
}

async function taskIn(replica: Replica, id: string): Promise<TaskDocument | undefined> {
  const doc = await replica.db.tasks.findOne(id).exec();
  return doc?.toJSON() as TaskDocument | undefined;
}

describe('desktop replicas', () => {
  it('merge offline edits of two replicas and the server by the rules, and fire an offline transition once', async () => {
    const [amount, note] = form.fields.map((f: { id: string }) => f.id);
    const [, working] = form.statuses.map((s: { id: string }) => s.id);
    const task = await createTask(admin, form.id, { title: 'Pump 7', fields: { [amount]: '10', [note]: 'start' } });
    const first = await replica(alice, 'alice-laptop');
    const second = await replica(alice, 'alice-desktop');
    const outsider = await replica(stranger, 'stranger');
    await vi.waitFor(async () => {
      expect((await taskIn(first, task.id))?.title).toBe('Pump 7');
      expect((await taskIn(second, task.id))?.title).toBe('Pump 7');
    }, WAIT);

    const transitions: string[] = [];
    const stop = t.app.events.subscribe('task.status_changed', (event) => {
      if (event.taskId === task.id) transitions.push(event.toStatusId);
    });

    // On a train: both replicas go offline and edit.
    first.socket.disconnect();
    second.socket.disconnect();
    const onFirst = await first.db.tasks.findOne(task.id).exec(true);
    await onFirst.incrementalPatch({ title: 'Pump 7 (checked)' });
    const onSecond = await second.db.tasks.findOne(task.id).exec(true);
    await onSecond.incrementalPatch({
      statusId: working,
      fields: { ...(onSecond.toJSON().fields as object), [note]: 'valve replaced', [amount]: '11' },
    });
    // Meanwhile in the office: the amount changes on the server.
    await admin.client.patch(`/api/tasks/${task.id}`, { fields: { [amount]: '12' } });

    first.socket.connect();
    second.socket.connect();
    await vi.waitFor(async () => {
      const server = (await admin.client.get(`/api/tasks/${task.id}`)).body;
      expect(server).toMatchObject({
        title: 'Pump 7 (checked)',
        statusId: working,
        fields: { [amount]: '12', [note]: 'valve replaced' },
      });
      for (const copy of [first, second]) {
        const local = await taskIn(copy, task.id);
        expect(local).toMatchObject({ title: server.title, statusId: server.statusId, fields: server.fields });
      }
    }, WAIT);
    // The amount was changed on both sides: the server's value stayed, and the replica was told
    // (by the push's answer, which may arrive after the server's state is visible).
    await vi.waitFor(
      () =>
        expect(second.lost).toEqual([
          expect.objectContaining({
            id: task.id,
            path: `fields.${amount}`,
            attempted: '11',
            kept: '12',
            reason: 'changed_on_server',
          }),
        ]),
      WAIT,
    );
    await t.app.events.idle();
    stop();
    expect(transitions).toEqual([working]);

    // Nothing of this organization ever reached the other organization's replica.
    expect(await taskIn(outsider, task.id)).toBeUndefined();
    const outsiderTasks = await outsider.db.tasks.find().exec();
    expect(outsiderTasks.map((doc) => doc.toJSON().title)).not.toContain('Pump 7 (checked)');
    expect((await outsider.db.users.find().exec()).map((doc) => doc.primary)).toEqual([stranger.userId]);
  });

  it('receives deletions as tombstones that leave the replica', async () => {
    const task = await createTask(admin, form.id, { title: 'Short-lived' });
    const copy = await replica(alice, 'alice-tablet');
    await vi.waitFor(async () => expect(await taskIn(copy, task.id)).toBeDefined(), WAIT);
    await admin.client.delete(`/api/tasks/${task.id}`);
    await vi.waitFor(async () => expect(await taskIn(copy, task.id)).toBeUndefined(), WAIT);
    // The tombstone is still stored until cleanup removes it.
    const stored = () => copy.db.tasks.storageInstance.findDocumentsById([task.id], true);
    expect(await stored()).toHaveLength(1);
    await copy.db.tasks.cleanup(0);
    expect(await stored()).toEqual([]);
  });

  it('merges an edit whose server state was stored only after RxDB first saw the write', async () => {
    const [amount, note] = form.fields.map((field: { id: string }) => field.id);
    const task = await createTask(admin, form.id, { title: 'Late base', fields: { [amount]: '1', [note]: 'n0' } });
    const alices = await replica(alice, 'late-base', { onDisk: true });
    await vi.waitFor(async () => expect(await taskIn(alices, task.id)).toBeDefined(), WAIT);
    // The replication's record of the server state goes missing, as when a page closes between
    // RxDB's two writes…
    const restore = forgetServerState('late-base', task.id);

    // …while Alice, offline, changes the amount and the note, and the office the note.
    alices.socket.disconnect();
    await admin.client.patch(`/api/tasks/${task.id}`, { fields: { [note]: 'office note' } });
    const failedPush = firstValueFrom(alices.sync.states.tasks?.error$ ?? NEVER);
    const doc = await alices.db.tasks.findOne(task.id).exec();
    await doc?.incrementalModify((current: TaskDocument) => ({
      ...current,
      fields: { ...current.fields, [amount]: '2', [note]: 'alice note' },
    }));
    await failedPush;
    // The record is back (the next pull would have written it) before the push is sent.
    restore();
    alices.socket.connect();

    // Merged against that state: her amount goes through, only the note is lost.
    await vi.waitFor(async () => {
      const stored = (await admin.client.get(`/api/tasks/${task.id}`)).body;
      expect(stored.fields).toMatchObject({ [amount]: '2', [note]: 'office note' });
    }, WAIT);
    // She is told by the push's answer, which may arrive after the server's state is visible.
    await vi.waitFor(
      () =>
        expect(alices.lost.filter((edit) => edit.id === task.id).map((edit) => edit.path)).toEqual([`fields.${note}`]),
      WAIT,
    );
  });

  it('merges an edit whose server state was never stored while the server holds the version it was made from', async () => {
    const [amount, note] = form.fields.map((field: { id: string }) => field.id);
    const task = await createTask(admin, form.id, { title: 'No base', fields: { [amount]: '1', [note]: 'n0' } });
    const gone = await createTask(admin, form.id, { title: 'Deleted offline' });
    const alices = await replica(alice, 'no-base', { onDisk: true });
    await vi.waitFor(async () => expect(await taskIn(alices, gone.id)).toBeDefined(), WAIT);
    // The record of both tasks' server state is lost for good: a pull does not write it again for
    // a document edited on the replica since.
    forgetServerState('no-base', task.id);
    forgetServerState('no-base', gone.id);
    alices.socket.disconnect();
    const failedPush = firstValueFrom(alices.sync.states.tasks?.error$ ?? NEVER);
    await (await alices.db.tasks.findOne(task.id).exec())?.incrementalModify((current: TaskDocument) => ({
      ...current,
      title: 'Edited offline',
      fields: { ...current.fields, [amount]: '2' },
    }));
    await (await alices.db.tasks.findOne(gone.id).exec())?.incrementalRemove();
    await failedPush;
    alices.socket.connect();

    // The documents still name the server's version they were edited from: nothing was changed
    // there since, so her edit and her deletion go through, nothing reported lost.
    await vi.waitFor(async () => {
      const stored = (await admin.client.get(`/api/tasks/${task.id}`)).body;
      expect(stored).toMatchObject({ title: 'Edited offline', fields: { [amount]: '2', [note]: 'n0' } });
      expect((await admin.client.get(`/api/tasks/${gone.id}`)).status).toBe(404);
    }, WAIT);
    await vi.waitFor(async () => expect((await taskIn(alices, task.id))?.title).toBe('Edited offline'), WAIT);
    expect(alices.lost.filter((edit) => edit.id === task.id || edit.id === gone.id)).toEqual([]);
    expect(await taskIn(alices, gone.id)).toBeUndefined();
  });

  it('takes the server’s later changes of a pulled task whose server state was not recorded before the app closed', async () => {
    const [amount, note] = form.fields.map((field: { id: string }) => field.id);
    const task = await createTask(admin, form.id, { title: 'Closed between', fields: { [amount]: '1', [note]: 'n0' } });
    const first = await replica(alice, 'closed-between', { onDisk: true });
    await vi.waitFor(async () => expect(await taskIn(first, task.id)).toBeDefined(), WAIT);
    // Everything pulled is handled: the replication goes on from after this task next time.
    await first.sync.awaitInSync();
    await closeReplica(first);
    // The app closed between RxDB's two writes of the pulled task: its record of the server state
    // never reached the disk.
    forgetServerState('closed-between', task.id);

    // The office changes the note; the reopened replica takes it, as it takes any server change.
    await admin.client.patch(`/api/tasks/${task.id}`, { fields: { [note]: 'office' } });
    const again = await replica(alice, 'closed-between', { onDisk: true });
    try {
      await vi.waitFor(async () => expect((await taskIn(again, task.id))?.fields?.[note]).toBe('office'), WAIT);

      // An offline edit of it then merges against that state: nothing is reported lost.
      again.socket.disconnect();
      const failedPush = firstValueFrom(again.sync.states.tasks?.error$ ?? NEVER);
      await (await again.db.tasks.findOne(task.id).exec(true)).incrementalModify((current: TaskDocument) => ({
        ...current,
        fields: { ...current.fields, [amount]: '2' },
      }));
      await failedPush;
      await admin.client.patch(`/api/tasks/${task.id}`, { title: 'Renamed in the office' });
      again.socket.connect();
      await vi.waitFor(async () => {
        const stored = (await admin.client.get(`/api/tasks/${task.id}`)).body;
        expect(stored).toMatchObject({ title: 'Renamed in the office', fields: { [amount]: '2', [note]: 'office' } });
      }, WAIT);
      await vi.waitFor(async () => expect((await taskIn(again, task.id))?.title).toBe('Renamed in the office'), WAIT);
      expect(again.lost.filter((edit) => edit.id === task.id)).toEqual([]);
    } finally {
      await closeReplica(again);
    }
  });

  it('marks, once, the pulled tasks a replica written before their mark was kept holds without a record, and takes the server’s later changes of them', async () => {
    const [, note] = form.fields.map((field: { id: string }) => field.id);
    const task = await createTask(admin, form.id, { title: 'Unmarked', fields: { [note]: 'n0' } });
    const kept = await createTask(admin, form.id, { title: 'Recorded', fields: { [note]: 'n0' } });
    const first = await replica(alice, 'unmarked');
    await vi.waitFor(async () => expect(await taskIn(first, kept.id)).toBeDefined(), WAIT);
    await first.sync.awaitInSync();
    await closeReplica(first);
    // Written by a release that lost the mark of documents new to the replica, and closed between
    // RxDB's two writes of the pulled task: neither its mark nor its record is on disk.
    forgetServerState('unmarked', task.id);
    unmark('unmarked', task.id);
    // A task that lost only its mark keeps its record: nothing to do for it.
    unmark('unmarked', kept.id);

    // The office changes both; the reopened replica takes the changes.
    await admin.client.patch(`/api/tasks/${task.id}`, { fields: { [note]: 'office' } });
    await admin.client.patch(`/api/tasks/${kept.id}`, { fields: { [note]: 'office' } });
    const again = await replica(alice, 'unmarked', { markUnrecordedPulls: true });
    try {
      expect(await again.sync.unrecordedPullsMarked).toEqual([task.id]);
      await vi.waitFor(async () => expect((await taskIn(again, task.id))?.fields?.[note]).toBe('office'), WAIT);
      await vi.waitFor(async () => expect((await taskIn(again, kept.id))?.fields?.[note]).toBe('office'), WAIT);
      expect(again.lost).toEqual([]);
    } finally {
      await closeReplica(again);
    }
  });

  it('takes the server’s later changes of a task edited between the replication’s two writes of a pulled state', async () => {
    const [amount, note] = form.fields.map((field: { id: string }) => field.id);
    const task = await createTask(admin, form.id, { title: 'Between', fields: { [amount]: '1', [note]: 'n0' } });
    // RxDB stores a pulled state in two writes: the document, then its record of the server state.
    // The second one is held here, so an edit can come in between, as a quick user's may.
    let release: () => void = () => undefined;
    let holding = false;
    const heldWrites: Promise<void>[] = [];
    const wrap = beforeEachWrite(async (context) => {
      if (holding && context === 'replication-down-write-meta') {
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        heldWrites.push(gate);
        await gate;
      }
    });
    const alices = await replica(alice, 'between', { wrap });
    try {
      await vi.waitFor(async () => expect(await taskIn(alices, task.id)).toBeDefined(), WAIT);

      holding = true;
      await admin.client.patch(`/api/tasks/${task.id}`, { fields: { [note]: 'office 1' } });
      await vi.waitFor(async () => expect((await taskIn(alices, task.id))?.fields?.[note]).toBe('office 1'), WAIT);
      expect(heldWrites).toHaveLength(1);
      holding = false;
      // Alice changes the amount of the state she sees, offline, before that record is stored.
      alices.socket.disconnect();
      const failedPush = firstValueFrom(alices.sync.states.tasks?.error$ ?? NEVER);
      await (await alices.db.tasks.findOne(task.id).exec(true)).incrementalModify((current: TaskDocument) => ({
        ...current,
        fields: { ...current.fields, [amount]: '2' },
      }));
      // The record is stored now, a moment after her edit.
      release();
      await failedPush;
      alices.socket.connect();
      await vi.waitFor(async () => {
        const stored = (await admin.client.get(`/api/tasks/${task.id}`)).body;
        expect(stored.fields).toMatchObject({ [amount]: '2', [note]: 'office 1' });
      }, WAIT);

      // The office changes the note again: her copy follows, and nothing was reported lost.
      await admin.client.patch(`/api/tasks/${task.id}`, { fields: { [note]: 'office 2' } });
      await vi.waitFor(
        async () =>
          expect((await taskIn(alices, task.id))?.fields).toMatchObject({ [amount]: '2', [note]: 'office 2' }),
        WAIT,
      );
      expect(alices.lost.filter((edit) => edit.id === task.id)).toEqual([]);
    } finally {
      await closeReplica(alices);
    }
  });

  it('keeps an edit made while a push answered with a conflict was on its way: taking off a person it had assigned', async () => {
    const task = await createTask(admin, form.id, { title: 'Assigned and taken off' });
    let answered: () => void = () => undefined;
    let holding: Promise<void> | undefined;
    const arrived: (() => void)[] = [];
    const alices = await replica(alice, 'held-answer', {
      beforePushAnswer: () => {
        for (const resolve of arrived.splice(0)) resolve();
        return holding ?? Promise.resolve();
      },
    });
    await vi.waitFor(async () => expect(await taskIn(alices, task.id)).toBeDefined(), WAIT);
    // The office renames the task; Alice, not having it yet, renames it too and assigns herself.
    await admin.client.patch(`/api/tasks/${task.id}`, { title: 'Office title' });
    holding = new Promise((resolve) => {
      answered = resolve;
    });
    const pushAnswered = new Promise<void>((resolve) => arrived.push(resolve));
    alices.socket.disconnect();
    await (await alices.db.tasks.findOne(task.id).exec())?.incrementalModify((current: TaskDocument) => ({
      ...current,
      title: 'Alice title',
      assignees: [...(current.assignees ?? []), manualAssignee(alice.userId)],
    }));
    alices.socket.connect();
    // The server has taken the push (her title lost to the office's), its answer is on its way…
    await pushAnswered;
    // …while she takes herself off again.
    await (await alices.db.tasks.findOne(task.id).exec())?.incrementalModify((current: TaskDocument) => ({
      ...current,
      assignees: (current.assignees ?? []).filter((assignee) => assignee.userId !== alice.userId),
    }));
    holding = undefined;
    answered();
    await untilBothHoldUnassigned(alices, task.id, 'Office title');
    // Her title was lost once, and said so once; taking herself off was not.
    expect(alices.lost.filter((edit) => edit.id === task.id).map((edit) => edit.path)).toEqual(['title']);
    await closeReplica(alices);
  });

  it('keeps a person the office assigned while the page still showed the task without them, as the user puts someone on', async () => {
    const task = await createTask(admin, form.id, { title: 'Assigned from two places' });
    const alices = await replica(alice, 'assigned-from-a-page');
    try {
      await vi.waitFor(async () => expect(await taskIn(alices, task.id)).toBeDefined(), WAIT);
      // The page shows the task with nobody on it when the office's assignment reaches the replica.
      const shown = (await taskIn(alices, task.id)) as TaskDocument;
      expect(shown.assignees).toEqual([]);
      expect((await admin.client.post(`/api/tasks/${task.id}/assignees`, { userId: admin.userId })).status).toBe(200);
      const assigned = async () => ((await taskIn(alices, task.id))?.assignees ?? []).map((entry) => entry.userId);
      await vi.waitFor(async () => expect(await assigned()).toEqual([admin.userId]), WAIT);
      // Alice puts herself on from that page: the administrator stays, here and on the server.
      const doc = await alices.db.tasks.findOne(task.id).exec(true);
      await doc.incrementalModify((current: TaskDocument) =>
        changedTask(current, { assign: assigneesChange(shown.assignees ?? [], [alice.userId]) }),
      );
      expect(await assigned()).toEqual([admin.userId, alice.userId]);
      await vi.waitFor(async () => {
        const stored = (await admin.client.get(`/api/tasks/${task.id}`)).body;
        expect(stored.assignees.map((entry: { userId: string }) => entry.userId).sort()).toEqual(
          [admin.userId, alice.userId].sort(),
        );
      }, WAIT);
      expect(alices.lost).toEqual([]);
    } finally {
      await closeReplica(alices);
    }
  });

  it('does not delete a task that stopped being shared with the user as it was deleted, and says so', async () => {
    const { task, hideFromAlice } = await taskToHide('Hidden while deleted');
    const alices = await replica(alice, 'hidden-while-deleted');
    try {
      await vi.waitFor(async () => expect(await taskIn(alices, task.id)).toBeDefined(), WAIT);
      // The task page holds the task; the form is closed to Alice, and the task leaves her copy.
      const shown = await alices.db.tasks.findOne(task.id).exec(true);
      await hideFromAlice();
      await vi.waitFor(async () => expect(await taskIn(alices, task.id)).toBeUndefined(), WAIT);
      // Her deletion comes a moment later: refused, in words; nothing is written or sent.
      const deleting = shown.incrementalModify(removedRecord);
      await expect(deleting).rejects.toBeInstanceOf(RecordGoneError);
      expect(
        replicaFailureText(await deleting.catch((caught: unknown) => caught), ((key: string) => key) as never),
      ).toBe('errors.recordGone');
      await alices.sync.awaitInSync();
      expect((await admin.client.get(`/api/tasks/${task.id}`)).status).toBe(200);
      expect(alices.lost).toEqual([]);
    } finally {
      await closeReplica(alices);
    }
  });

  it('lets go of a task no longer shared once the edit its push carried is taken back as the answer comes', async () => {
    const { task, hideFromAlice } = await taskToHide('Hidden while answered');
    const first = await replica(alice, 'gone-answer');
    await vi.waitFor(async () => expect(await taskIn(first, task.id)).toBeDefined(), WAIT);
    // Offline, Alice assigns herself, and the app closes before that is sent …
    first.socket.disconnect();
    await (await first.db.tasks.findOne(task.id).exec(true)).incrementalModify((current: TaskDocument) => ({
      ...current,
      assignees: [...(current.assignees ?? []), manualAssignee(alice.userId)],
    }));
    await closeReplica(first);
    // … while the form is closed to her.
    await hideFromAlice();
    // The app opens again: its push is answered with the task gone, and as that answer comes she
    // takes herself off again, so nothing of hers is left to send.
    const held = gate();
    const again = await replica(alice, 'gone-answer', { awaitInitial: false, beforePushAnswer: () => held.wait() });
    try {
      await held.reached;
      // Its first pull, which brought the task's end, was not written over her edit.
      const internal = again.sync.states.tasks?.internalReplicationState;
      await vi.waitFor(() => expect(internal?.firstSyncDone.down.getValue()).toBe(true), WAIT);
      expect(await taskIn(again, task.id)).toBeDefined();
      await (await again.db.tasks.findOne(task.id).exec(true)).incrementalModify((current: TaskDocument) => ({
        ...current,
        assignees: (current.assignees ?? []).filter((assignee) => assignee.userId !== alice.userId),
      }));
      held.open();
      // The task leaves her copy, as it left her view.
      await vi.waitFor(async () => expect(await taskIn(again, task.id)).toBeUndefined(), WAIT);
      expect((await admin.client.get(`/api/tasks/${task.id}`)).body.assignees).toEqual([]);
    } finally {
      await closeReplica(again);
    }
  });

  it('does not save an edit onto a task deleted on the server as it was being saved, and says so', async () => {
    const task = await createTask(admin, form.id, { title: 'Deleted while edited' });
    const alices = await replica(alice, 'deleted-while-edited');
    try {
      await vi.waitFor(async () => expect(await taskIn(alices, task.id)).toBeDefined(), WAIT);
      // The task page holds the task; the office deletes it, and the deletion is pulled.
      const shown = await alices.db.tasks.findOne(task.id).exec(true);
      await admin.client.delete(`/api/tasks/${task.id}`);
      await vi.waitFor(async () => expect(await taskIn(alices, task.id)).toBeUndefined(), WAIT);
      // Alice's save comes a moment later: refused, in words, and nothing is written or sent.
      const saving = shown.incrementalModify((current: TaskDocument) => changedTask(current, { title: 'Too late' }));
      await expect(saving).rejects.toBeInstanceOf(RecordGoneError);
      const error = await saving.catch((caught: unknown) => caught);
      expect(replicaFailureText(error, ((key: string) => key) as never)).toBe('errors.recordGone');
      const [tombstone] = await alices.db.tasks.storageInstance.findDocumentsById([task.id], true);
      expect(tombstone?.title).toBeUndefined();
      await alices.sync.awaitInSync();
      expect(alices.lost).toEqual([]);
    } finally {
      await closeReplica(alices);
    }
  });

  it('keeps an edit made as the answer to a push is taken: taking off a person the push had assigned', async () => {
    const task = await createTask(admin, form.id, { title: 'Taken off as answered' });
    // RxDB writes the answer to a push (the server's merge) into the document in a write of its
    // own, a moment after the answer came; the edit is made right before that write.
    let beforeAnswerWrite: (() => Promise<void>) | undefined;
    const wrap = beforeEachWrite(async (context) => {
      const edit = context === 'replication-up-write-conflict' ? beforeAnswerWrite : undefined;
      beforeAnswerWrite = edit ? undefined : beforeAnswerWrite;
      await edit?.();
    });
    const alices = await replica(alice, 'answer-taken', { wrap });
    try {
      await vi.waitFor(async () => expect(await taskIn(alices, task.id)).toBeDefined(), WAIT);
      // The office renames the task while Alice, offline, assigns herself.
      alices.socket.disconnect();
      await admin.client.patch(`/api/tasks/${task.id}`, { title: 'Office title' });
      await (await alices.db.tasks.findOne(task.id).exec(true)).incrementalModify((current: TaskDocument) => ({
        ...current,
        assignees: [...(current.assignees ?? []), manualAssignee(alice.userId)],
      }));
      let tookOff = false;
      beforeAnswerWrite = async () => {
        await (await alices.db.tasks.findOne(task.id).exec(true)).incrementalModify((current: TaskDocument) => ({
          ...current,
          assignees: (current.assignees ?? []).filter((assignee) => assignee.userId !== alice.userId),
        }));
        tookOff = true;
      };
      // Back online: the push is merged with the office's title and answered with that state; as
      // it is taken, she takes herself off again.
      alices.socket.connect();
      await vi.waitFor(() => expect(tookOff).toBe(true), WAIT);
      await untilBothHoldUnassigned(alices, task.id, 'Office title');
      expect(alices.lost.filter((edit) => edit.id === task.id)).toEqual([]);
    } finally {
      await closeReplica(alices);
    }
  });

  it.each([
    {
      answer: 'with a conflict',
      // RxDB's write of the server's merge into the document: `rebaseOnAnswer`'s.
      write: 'incremental-write',
      officeTitle: 'Office title',
    },
    {
      answer: 'as sent',
      // RxDB's record of the pushed state as the server's.
      write: 'replication-up-write-meta',
      officeTitle: undefined,
    },
  ])(
    'takes a server change pulled while the answer to a push is being taken ($answer)',
    async ({ write, officeTitle }) => {
      const task = await createTask(admin, form.id, { title: 'Pulled as answered' });
      const held = { pull: gate(), write: gate() };
      const holding = { pull: false, write: false };
      const note = form.fields[1].id as string;
      let pullAnswered: () => void = () => undefined;
      const alices = await replica(alice, `pulled-as-answered-${write}`, {
        beforePullSent: () => (holding.pull ? held.pull.wait() : Promise.resolve()),
        beforePullAnswer: async () => pullAnswered(),
        // The task's own write: another document's write of that kind (the user's record, say)
        // would be held in its place while the answer is taken unheld.
        wrap: beforeEachWrite(async (context, ids) => {
          if (!holding.write || context !== write || !ids.some((id) => id.includes(task.id))) return;
          holding.write = false;
          await held.write.wait();
        }),
      });
      try {
        await vi.waitFor(async () => expect(await taskIn(alices, task.id)).toBeDefined(), WAIT);
        // A pull starts (a reconnection's, say) and is slow to reach the server.
        holding.pull = true;
        void alices.sync.states.tasks?.reSync();
        await held.pull.reached;
        // The office may rename the task; Alice assigns herself, and her push is answered.
        if (officeTitle) await admin.client.patch(`/api/tasks/${task.id}`, { title: officeTitle });
        await (await alices.db.tasks.findOne(task.id).exec(true)).incrementalModify((current: TaskDocument) => ({
          ...current,
          assignees: [...(current.assignees ?? []), manualAssignee(alice.userId)],
        }));
        // Her edit is written; the push's answer is taken in the next such write.
        holding.write = true;
        // While that answer is being taken, the office writes a description, and the pull reaches
        // the server only now: its answer is the one message that brings the description.
        await held.write.reached;
        await admin.client.patch(`/api/tasks/${task.id}`, { description: 'Seal replaced' });
        const pulled = new Promise<void>((resolve) => {
          const internal = alices.sync.states.tasks?.internalReplicationState;
          internal?.events.active.down.pipe(filter((active) => !active)).subscribe(() => resolve());
        });
        const answered = new Promise<void>((resolve) => {
          pullAnswered = resolve;
        });
        held.pull.open();
        await answered;
        // The pull is answered; a change the office makes now comes in a stream message of its own,
        // or in the next pull when RxDB asks for one first (once the answer it waited for is taken).
        const arrived = new Promise<void>((resolve) => {
          alices.socket.on('sync:stream', (message: { documents: { id: string }[] }) => {
            if (message.documents.some((document) => document.id === task.id)) resolve();
          });
          pullAnswered = resolve;
        });
        expect(
          (await admin.client.patch(`/api/tasks/${task.id}`, { fields: { [note]: 'Checked twice' } })).status,
        ).toBe(200);
        await arrived;
        // The pulled state is written once the answer is taken, not left out while it is.
        await Promise.race([pulled, new Promise((resolve) => setTimeout(resolve, 1_000))]);
        held.write.open();
        const expected = {
          title: officeTitle ?? 'Pulled as answered',
          description: 'Seal replaced',
          note: 'Checked twice',
          assignees: [alice.userId],
        };
        const seen = (
          held:
            | {
                title?: string;
                description?: string;
                fields?: Record<string, unknown>;
                assignees?: { userId: string }[];
              }
            | undefined,
        ) => ({
          title: held?.title,
          description: held?.description,
          note: held?.fields?.[note],
          assignees: held?.assignees?.map((assignee) => assignee.userId),
        });
        await vi.waitFor(async () => expect(seen(await taskIn(alices, task.id))).toEqual(expected), WAIT);
        expect(seen((await admin.client.get(`/api/tasks/${task.id}`)).body)).toEqual(expected);
        expect(alices.lost).toEqual([]);
      } finally {
        await closeReplica(alices);
      }
    },
  );

  it('keeps a pushed edit when an older state of the task, pulled before the push, is written after its answer', async () => {
    const other = await createTask(admin, form.id, { title: 'Written slowly' });
    const task = await createTask(admin, form.id, { title: 'Pump 9' });
    const held = gate();
    let holding = false;
    const alices = await replica(alice, 'older-pulled-state', {
      wrap: beforeEachWrite(async (context, ids) => {
        if (!holding || !context.startsWith('replication-downstream') || !ids.includes(other.id)) return;
        holding = false;
        await held.wait();
      }),
    });
    try {
      await vi.waitFor(async () => expect(await taskIn(alices, task.id)).toBeDefined(), WAIT);
      // The replica is slow to write a change of another task; the office's description of this
      // one comes meanwhile, and waits to be written after it.
      holding = true;
      await admin.client.patch(`/api/tasks/${other.id}`, { title: 'Written slowly (renamed)' });
      await held.reached;
      const streamed = new Promise<void>((resolve) => {
        alices.socket.on('sync:stream', (message: { documents: { id: string }[] }) => {
          if (message.documents.some((document) => document.id === task.id)) resolve();
        });
      });
      await admin.client.patch(`/api/tasks/${task.id}`, { description: 'Seal replaced' });
      await streamed;
      // Alice, not having it yet, writes the same description and renames the task: the server
      // takes her push as sent (its outcome is her state), and sends nothing back.
      await (await alices.db.tasks.findOne(task.id).exec(true)).incrementalPatch({
        title: 'Pump 9, checked',
        description: 'Seal replaced',
      });
      await vi.waitFor(async () => {
        const stored = (await admin.client.get(`/api/tasks/${task.id}`)).body;
        expect(stored).toMatchObject({ title: 'Pump 9, checked', description: 'Seal replaced' });
        const internal = alices.sync.states.tasks?.internalReplicationState;
        expect(internal?.events.active.up.getValue()).toBe(false);
      }, WAIT);
      // Now the description's message comes to be written: older than her push's outcome, it is
      // not written over her edit, and her title stays.
      held.open();
      await alices.sync.awaitInSync();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const local = await taskIn(alices, task.id);
      expect({ title: local?.title, description: local?.description }).toEqual({
        title: 'Pump 9, checked',
        description: 'Seal replaced',
      });
      expect(alices.lost).toEqual([]);
    } finally {
      await closeReplica(alices);
    }
  });

  it('takes the server’s change of a task pulled while an edit of it waited to be sent, once that edit is taken back', async () => {
    const other = await createTask(admin, form.id, { title: 'Sent first' });
    const task = await createTask(admin, form.id, { title: 'Pump 7' });
    const first = await replica(alice, 'set-aside');
    await vi.waitFor(async () => expect(await taskIn(first, task.id)).toBeDefined(), WAIT);
    await closeReplica(first);
    // While the app is closed the office changes the task's description.
    await admin.client.patch(`/api/tasks/${task.id}`, { description: 'Seal replaced' });
    // The app opens again; the answers to its first pull and to its first push are held back.
    const held = { pull: gate(), push: gate() };
    const alices = await replica(alice, 'set-aside', {
      awaitInitial: false,
      beforePullAnswer: () => held.pull.wait(),
      beforePushAnswer: () => held.push.wait(),
    });
    // A push of another task is under way: edits made now wait for it.
    await (await alices.db.tasks.findOne(other.id).exec())?.incrementalPatch({ title: 'Sent first (edited)' });
    await held.push.reached;
    // Alice renames the task; the pull, answered now, does not write over her edit (RxDB leaves
    // that to the edit's push).
    await (await alices.db.tasks.findOne(task.id).exec())?.incrementalPatch({ title: 'Pump 7, renamed' });
    await held.pull.reached;
    held.pull.open();
    // The first pull written (the push is still held, so the replication is not in sync yet).
    const internal = alices.sync.states.tasks?.internalReplicationState;
    await vi.waitFor(() => expect(internal?.firstSyncDone.down.getValue()).toBe(true), WAIT);
    expect((await taskIn(alices, task.id))?.description).not.toBe('Seal replaced');
    // She takes her rename back before it is sent: nothing of hers is left to send. The push under
    // way is answered only later, while RxDB still has her two writes to look at.
    await (await alices.db.tasks.findOne(task.id).exec())?.incrementalPatch({ title: 'Pump 7' });
    await new Promise((resolve) => setTimeout(resolve, 600));
    held.push.open();
    // The office's description, set aside when it was pulled, is taken now.
    await vi.waitFor(async () => {
      const local = await taskIn(alices, task.id);
      expect({ title: local?.title, description: local?.description }).toEqual({
        title: 'Pump 7',
        description: 'Seal replaced',
      });
    }, WAIT);
    await vi.waitFor(
      () => expect(alices.sync.states.tasks?.internalReplicationState?.events.active.up.getValue()).toBe(false),
      WAIT,
    );
    expect((await admin.client.get(`/api/tasks/${task.id}`)).body).toMatchObject({
      title: 'Pump 7',
      description: 'Seal replaced',
    });
    // Nothing of hers reached the server: no edit undid the office's description and made it again.
    const audit = (await admin.client.get(`/api/tasks/${task.id}/audit`)).body.items as { actorUserId: string }[];
    expect(audit.filter((entry) => entry.actorUserId === alice.userId)).toEqual([]);
    expect(alices.lost).toEqual([]);
    await closeReplica(alices);
  });

  /** A colleague's replica that counts how often it was told the session ended, and that the account is deactivated. */
  async function countingSessionEnds(name: string) {
    const member = await createMember(t, admin, { name });
    const ends = { signedOut: 0, deactivated: 0 };
    const copy = await replica(member, `${name.toLowerCase()}-laptop`, {
      onSignedOut: () => {
        ends.signedOut += 1;
      },
      onDeactivated: () => {
        ends.deactivated += 1;
      },
    });
    return { member, copy, ends };
  }

  it('pauses replication when the session ends, keeping local edits for later', async () => {
    const { member: bob, copy, ends } = await countingSessionEnds('Bob');
    await admin.client.patch(`/api/users/${bob.userId}`, { status: 'deactivated' });
    // The next pull or push is refused: replication pauses and says so once, and why once.
    await copy.db.tasks.insert({ id: crypto.randomUUID(), formId: form.id, title: 'Written while signed out' });
    await vi.waitFor(() => expect(ends).toEqual({ signedOut: 1, deactivated: 1 }), WAIT);
    const states = Object.values(copy.sync.states);
    expect(states.every((state) => state?.isStoppedOrPaused())).toBe(true);
    expect((await copy.db.tasks.find({ selector: { title: 'Written while signed out' } }).exec()).length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ends).toEqual({ signedOut: 1, deactivated: 1 });
    await closeReplica(copy);
  });

  it('tells a session signed out elsewhere from a deactivated account', async () => {
    const { member: dana, copy, ends } = await countingSessionEnds('Dana');
    await apiClient(t).post('/api/auth/logout', { refreshToken: dana.refreshToken });
    await vi.waitFor(() => expect(ends.signedOut).toBe(1), WAIT);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ends).toEqual({ signedOut: 1, deactivated: 0 });
    await closeReplica(copy);
  });
});
