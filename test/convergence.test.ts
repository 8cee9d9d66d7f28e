import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LostEdit } from '@shared/sync';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import type { RxDocument } from 'rxdb';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { replicaStorage } from '../electron/backend/replica-host';
import { startReplicaThread } from '../electron/backend/replica-thread.fixture';
import { type AssigneesChange, assigneesChange } from '../renderer/src/data/assignees';
import {
  createOrbitaDatabase,
  type OrbitaDatabase,
  type ReplicaSync,
  startReplicaSync,
} from '../renderer/src/data/database';
import {
  changedRow,
  changedTask,
  removedRecord,
  type TaskChange,
  writeBackDeleted,
} from '../renderer/src/data/replica';
import { RecordGoneError } from '../renderer/src/data/replica-errors';
import { type CollectionName, type RowDocument, type TaskDocument, WRITABLE } from '../renderer/src/data/schemas';
import { browserReplicaStorage, remoteReplicaStorage } from '../renderer/src/data/storage';
import { startTestApp, type TestApp } from './helpers/app';
import { dyingStorage } from './helpers/dying-storage';
import { createForm, createMember, createOrg, createTask, type Member } from './helpers/factories';

/**
 * Randomized runs of replicas and the office editing the same tasks and rows, the replicas going
 * off and on line at random, their app quitting and opening again now and then: two of one user,
 * and two of members whose view of the tasks the office changes meanwhile. Each run's choices
 * come from its seed, the timing of the replication does not. Whatever the interleaving, each
 * replica ends holding what the server shows its user, and an edit that nobody else made a
 * competing change to is on the server or reported.
 *
 * More runs: `CONVERGENCE_SEEDS=1000-1099` (or `5,17,40`) runs those seeds in every test, and
 * `CONVERGENCE_STORAGE=browser` keeps the replicas in the browser build's storage (RxDB's
 * IndexedDB storage, on an in-memory IndexedDB) instead of the desktop's SQLite;
 * `CONVERGENCE_STORAGE=remote` keeps them in the desktop's SQLite in a thread of its own, reached
 * over a message port, as the desktop app runs it.
 * `CONVERGENCE_RESTARTS=<share>` sets how many rounds begin with an app quitting (default 0.1).
 * `CONVERGENCE_CRASHES=<share>` sets how many of those quits are the replica process dying
 * instead, whatever it was doing (default 0.5).
 * `CONVERGENCE_TRACE=<directory>` writes there the trace of a run that fails.
 */

interface Replica {
  name: string;
  member: Member;
  db: OrbitaDatabase;
  socket: Socket;
  sync: ReplicaSync;
  lost: LostEdit[];
  online: boolean;
  /** The replica's storage, as its process serves it: the process can die. */
  process: ReturnType<typeof dyingStorage>;
  /** The device's replica process, a thread of its own (`CONVERGENCE_STORAGE=remote`). */
  thread?: ReplicaThread;
}

type ReplicaThread = Awaited<ReturnType<typeof startReplicaThread>>;
/** Each device's replica runs in a process of its own, as the desktop app runs it. */
const remote = process.env.CONVERGENCE_STORAGE === 'remote';

/** An edit of one value: `path` as lost edits name it; `round` orders the edits. */
interface Edit {
  by: string;
  id: string;
  path: string;
  value: unknown;
  round: number;
}

let t: TestApp;
let dir: string;
let admin: Member;
let alice: Member;

beforeAll(async () => {
  // Sessions that outlast a long run of seeds (`CONVERGENCE_SEEDS`): an office whose token expired
  // mid-run had its changes refused, and the run failed for the test's sake, not the product's.
  t = await startTestApp({ config: { syncPollMs: 50, accessTokenSeconds: 24 * 3600 } });
  dir = await mkdtemp(path.join(tmpdir(), 'orbita-convergence-'));
  admin = await createOrg(t);
  alice = await createMember(t, admin, { name: 'Alice' });
  // The office's changes in the trace (reads of what members see are left out).
  const request = admin.client.request.bind(admin.client);
  admin.client.request = async (method, url, body, headers) => {
    if (method !== 'GET') traced('office', `${method} ${url}`, body);
    const response = await request(method, url, body, headers);
    if (method !== 'GET') traced('office', `answered ${method} ${url}`, response.status);
    return response;
  };
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

/** The seeds to run: those of `CONVERGENCE_SEEDS` (`a-b` ranges and single seeds, comma-separated), else `seeds`. */
function seedsOr(seeds: number[]): number[] {
  const asked = process.env.CONVERGENCE_SEEDS?.trim();
  if (!asked) return seeds;
  return asked.split(',').flatMap((part) => {
    const [from, to] = part.split('-').map((bound) => Number.parseInt(bound, 10));
    if (from === undefined || Number.isNaN(from) || (to !== undefined && Number.isNaN(to)))
      throw new Error(`CONVERGENCE_SEEDS: "${part}" is neither a seed nor a range of seeds (a-b)`);
    return Array.from({ length: to === undefined ? 1 : to - from + 1 }, (_, i) => from + i);
  });
}

/** The browser build's IndexedDB, one per run, kept across restarts of the app as a browser keeps it. */
const browserDatabases = new IDBFactory();

/**
 * Where the replicas keep their data: the desktop's SQLite files (here, or in the device's replica
 * process, whose port closing calls `onGone`), or the browser build's IndexedDB.
 */
function storage(thread: ReplicaThread | undefined, onGone: () => void) {
  if (process.env.CONVERGENCE_STORAGE === 'browser')
    return browserReplicaStorage({ indexedDB: browserDatabases, IDBKeyRange });
  if (thread) return remoteReplicaStorage(thread.port, { onGone });
  return replicaStorage(dir);
}

/** A pseudo-random sequence in [0, 1) from `seed` (a linear congruential generator). */
function randomFrom(seed: number) {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  return { next, pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T };
}

/**
 * What a run did, kept when `CONVERGENCE_TRACE` names a directory: each replica's sync messages
 * and answers, its writes, and the edits; a failing run's is written there as
 * `convergence-<run>-<seed>.json` (times in ms since the run began).
 */
const traceDir = process.env.CONVERGENCE_TRACE;
let trace: { at: number; who: string; what: string; data?: unknown }[] = [];
let traceStart = 0;

function traced(who: string, what: string, data?: unknown): void {
  if (!traceDir) return;
  // Copied now: the replication changes some of the objects it sends afterwards.
  trace.push({ at: Math.round(performance.now() - traceStart), who, what, data: structuredClone(data) });
}

/** Runs a randomized run, writing its trace with `edits` when it fails (see `CONVERGENCE_TRACE`). */
async function tracedRun(run: string, seed: number, edits: Edit[], body: () => Promise<void>): Promise<void> {
  trace = [];
  traceStart = performance.now();
  try {
    await body();
  } catch (error) {
    if (traceDir) {
      const file = path.join(traceDir, `convergence-${run}-${seed}.json`);
      await mkdir(traceDir, { recursive: true });
      await writeFile(file, JSON.stringify({ edits, trace }, null, 1));
      console.error(`[convergence] ${run} seed ${seed} failed: its trace is in ${file}`);
    }
    throw error;
  } finally {
    trace = [];
  }
}

/** The replica's sync messages and writes in the trace, as `who`. */
function watched(replica: Pick<Replica, 'name' | 'db' | 'socket'>): void {
  if (!traceDir) return;
  const { name: who, db, socket } = replica;
  // `socket.timeout(ms)` returns the socket itself: its `emitWithAck` is the one to follow.
  const emitWithAck = socket.emitWithAck.bind(socket);
  socket.emitWithAck = (async (event: string, payload: unknown) => {
    traced(who, `send ${event}`, payload);
    try {
      const answer = await emitWithAck(event as never, payload as never);
      traced(who, `answer ${event}`, answer);
      return answer;
    } catch (error) {
      traced(who, `no answer ${event}`, String(error));
      throw error;
    }
  }) as typeof socket.emitWithAck;
  socket.onAny((event: string, payload: unknown) => traced(who, `got ${event}`, payload));
  socket.on('connect', () => traced(who, 'connected'));
  socket.on('disconnect', (reason) => traced(who, 'disconnected', reason));
  db.$.subscribe((event) =>
    traced(who, `write ${event.collectionName}`, { operation: event.operation, document: event.documentData }),
  );
}

/** Opens `device`'s replica (its storage kept from an earlier opening) and starts its sync. */
async function openReplica(
  run: string,
  replica: Pick<Replica, 'name' | 'member' | 'lost' | 'online' | 'thread'>,
  collections: CollectionName[],
): Promise<Pick<Replica, 'db' | 'socket' | 'sync' | 'process'>> {
  // The window stops replicating once the replica process's port closes (`Replica.abandon`).
  const opened: { socket?: Socket; sync?: ReplicaSync } = {};
  const gone = () => {
    opened.socket?.disconnect();
    opened.sync?.abandon();
  };
  const replicaProcess = dyingStorage(storage(replica.thread, gone) as never);
  const db = await createOrbitaDatabase({
    name: `${run}-${replica.name}`,
    storage: replicaProcess.storage as never,
    collections,
  });
  const socket = io(`${t.url}/sync`, {
    auth: { token: replica.member.client.accessToken },
    transports: ['websocket'],
    autoConnect: replica.online,
  });
  watched({ name: replica.name, db, socket });
  traced(replica.name, 'opened');
  // What the replications keep across restarts they keep with their records, in the storage.
  const sync = startReplicaSync(db, socket, {
    retryTimeMs: 100,
    onLostEdits: (edits) => replica.lost.push(...edits),
  });
  Object.assign(opened, { socket, sync });
  return { db, socket, sync, process: replicaProcess };
}

/** Opens a replica per device (by default two of Alice's), each synced with its user's token. */
async function openReplicas(
  run: string,
  collections: CollectionName[],
  devices: [string, Member][] = [
    ['laptop', alice],
    ['desktop', alice],
  ],
): Promise<Replica[]> {
  return Promise.all(
    devices.map(async ([name, member]) => {
      const thread = remote ? await startReplicaThread(dir) : undefined;
      const device = { name, member, lost: [], online: true, thread };
      const replica: Replica = { ...device, ...(await openReplica(run, device, collections)) };
      await replica.sync.awaitInitial();
      return replica;
    }),
  );
}

async function closeReplicas(replicas: Replica[]): Promise<void> {
  for (const replica of replicas) {
    await replica.sync.cancel();
    replica.socket.close();
    await replica.db.close();
    await replica.thread?.stop();
  }
}

/** Closes a replica as the app does when it quits, and opens it again, on line or not as it was. */
async function restart(replica: Replica, run: string, collections: CollectionName[]): Promise<void> {
  traced(replica.name, 'quits');
  await replica.sync.cancel();
  replica.socket.close();
  await replica.db.close();
  Object.assign(replica, await openReplica(run, replica, collections));
}

/**
 * The replica process dies whatever it was doing, and the window opens the replica again on a new
 * one, as the desktop app does (`Replica.abandon`, then `close`): the replication stops before the
 * calls it was waiting on fail.
 */
async function crash(replica: Replica, run: string, collections: CollectionName[]): Promise<void> {
  traced(replica.name, 'replica process dies');
  if (replica.thread) {
    // Its thread ends: what it answered and had not yet written to its files is lost with it.
    await replica.thread.stop();
    replica.thread = await startReplicaThread(dir);
  } else {
    replica.process.kill();
    // The port closes a moment later.
    await new Promise((resolve) => setTimeout(resolve, 10));
    replica.process.closePort(() => {
      replica.socket.disconnect();
      replica.sync.abandon();
    });
  }
  await replica.sync.cancel().catch(() => undefined);
  replica.socket.close();
  await replica.db.close().catch(() => undefined);
  Object.assign(replica, await openReplica(run, replica, collections));
}

/** The share of rounds that begin with an app quitting (`CONVERGENCE_RESTARTS`, default 0.1). */
const restartRate = Number.parseFloat(process.env.CONVERGENCE_RESTARTS ?? '0.1');
if (!(restartRate >= 0 && restartRate <= 1)) throw new Error('CONVERGENCE_RESTARTS: a share of rounds, 0 to 1');
/** The share of those quits that are the replica process dying (`CONVERGENCE_CRASHES`, default 0.5). */
const crashRate = Number.parseFloat(process.env.CONVERGENCE_CRASHES ?? '0.5');
if (!(crashRate >= 0 && crashRate <= 1)) throw new Error('CONVERGENCE_CRASHES: a share of quits, 0 to 1');

/**
 * A round begins: replicas go off line or back at random, now and then an app quits and is opened
 * again whatever was under way; resolves the replica that acts in the round.
 */
async function roundStart(
  replicas: Replica[],
  random: ReturnType<typeof randomFrom>,
  round: number,
  run: string,
  collections: CollectionName[],
): Promise<Replica> {
  toggleNetwork(replicas, random, round);
  if (random.next() < restartRate) {
    const replica = random.pick(replicas);
    // Drawn only when crashes are asked for: with `CONVERGENCE_CRASHES=0` a seed makes the choices
    // it made before crashes were run.
    if (crashRate > 0 && random.next() < crashRate) await crash(replica, run, collections);
    else await restart(replica, run, collections);
  }
  return random.pick(replicas);
}

/** Takes replicas off line or back at random, as a train does. */
function toggleNetwork(replicas: Replica[], random: ReturnType<typeof randomFrom>, round: number): void {
  traced('run', `round ${round}`);
  for (const replica of replicas) {
    if (random.next() >= 0.25) continue;
    replica.online = !replica.online;
    traced(replica.name, replica.online ? 'network back' : 'network cut');
    if (replica.online) replica.socket.connect();
    else replica.socket.disconnect();
  }
}

function backOnline(replicas: Replica[]): void {
  for (const replica of replicas) {
    if (replica.online) continue;
    replica.online = true;
    traced(replica.name, 'network back');
    replica.socket.connect();
  }
}

/**
 * Waits until every replica holds exactly the records the server shows its user (`onServer`),
 * compared as `view` shows them (`held`: the replica's records of this run); returns the server's,
 * by id, as the last replica's user sees them.
 */
async function untilConverged<T extends { id: string }>(
  replicas: Replica[],
  onServer: (member: Member) => Promise<T[]>,
  held: (replica: Replica) => Promise<T[]>,
  view: (record: T) => unknown,
): Promise<Map<string, T>> {
  let server = new Map<string, T>();
  await vi.waitFor(
    async () => {
      for (const replica of replicas) {
        // Converged once nothing waits to be sent either: a replica holding its own deletion of a
        // record it can no longer see looks like the server before that deletion is answered.
        await Promise.all(WRITABLE.map((name) => replica.sync.states[name]?.awaitInSync()));
        server = new Map((await onServer(replica.member)).map((record) => [record.id, record]));
        const expected = Object.fromEntries([...server].map(([id, record]) => [id, view(record)]));
        const records = Object.fromEntries((await held(replica)).map((record) => [record.id, view(record)]));
        expect(records, `what the ${replica.name} holds`).toEqual(expected);
      }
    },
    { timeout: 30_000, interval: 250 },
  );
  return server;
}

/**
 * Edits of the replicas that are neither on the server nor reported lost, among those nobody else
 * competed with: no other replica nor the office changed that value of that record, or deleted
 * it, and the replica did not change it again. (Where others did, the three-way rule decides, and
 * `sync.test.ts` checks it case by case.)
 */
function unseenLosses(
  edits: readonly Edit[],
  replicas: readonly Replica[],
  finalValue: (edit: Edit) => unknown,
): { edit: Edit; now: unknown }[] {
  return edits
    .filter((edit) => edit.by !== 'office')
    .filter((edit) => {
      const others = edits.filter((other) => other !== edit && other.id === edit.id);
      // A deletion competes with every edit of the record, except the deletion its undo takes back.
      const undone = (other: Edit) => edit.path === '_deleted' && other.by === edit.by && other.round < edit.round;
      return !others.some(
        (other) =>
          (other.path === '_deleted' && !undone(other)) ||
          (other.path === edit.path && (other.by !== edit.by || other.round > edit.round)),
      );
    })
    .map((edit) => ({ edit, now: finalValue(edit) }))
    .filter(({ edit, now }) => JSON.stringify(now) !== JSON.stringify(edit.value))
    .filter(({ edit }) => {
      const lost = replicas.find((replica) => replica.name === edit.by)?.lost ?? [];
      // A report of the whole record (path ''), or of the whole set (`assignees`), covers the edit.
      return !lost.some(
        (entry) =>
          entry.id === edit.id &&
          (entry.path === edit.path || entry.path === '' || edit.path.startsWith(`${entry.path}.`)),
      );
    });
}

/**
 * Writes a record as the app does (`changedTask`, `changedRow`, `removedRecord`); false when it was
 * deleted or hidden from the user as it was written (a pulled deletion came first): nothing was
 * written, and the user was told so.
 */
async function writtenAsTheAppWrites<T>(doc: RxDocument<T>, modify: (current: T) => T): Promise<boolean> {
  try {
    await doc.incrementalModify(modify);
    return true;
  } catch (error) {
    if (error instanceof RecordGoneError) return false;
    throw error;
  }
}

/** The replica's tasks of this run's form (tasks of the other runs' forms are theirs). */
async function tasksOfForm(replica: Replica, formId: string): Promise<RxDocument<TaskDocument>[]> {
  return (await replica.db.tasks.find({ selector: { formId } }).exec()) as RxDocument<TaskDocument>[];
}

/** The tasks among `ids` that `member` may see, as the server shows them. */
async function visibleTasks(member: Member, ids: readonly string[]): Promise<TaskDocument[]> {
  const tasks: TaskDocument[] = [];
  for (const id of ids) {
    const answer = await member.client.get(`/api/tasks/${id}`);
    if (answer.status === 200) tasks.push(answer.body as TaskDocument);
  }
  return tasks;
}

/** How a task is compared between a replica and the server. */
const taskView = (task: TaskDocument) => ({
  title: task.title,
  description: task.description,
  statusId: task.statusId,
  fields: Object.fromEntries(Object.entries(task.fields ?? {}).filter(([, value]) => value !== null)),
  assignees: (task.assignees ?? []).map((assignee) => assignee.userId).sort(),
});

/** Records the office's change of `paths` of record `id`, once the server took it, as competing edits. */
function officeEdits(edits: Edit[], id: string, round: number) {
  return (...paths: string[]) =>
    (response: { status: number }) => {
      if (response.status >= 300) return;
      for (const path of paths) edits.push({ by: 'office', id, path, value: undefined, round });
    };
}

function isAssigned(task: TaskDocument, userId: string): boolean {
  return (task.assignees ?? []).some((assignee) => assignee.userId === userId);
}

/** `userId` taken off the task, or put on it by hand, as the task page changes it from what it shows. */
function toggledAssignee(task: TaskDocument, userId: string): AssigneesChange {
  const shown = task.assignees ?? [];
  const chosen = shown.map((assignee) => assignee.userId).filter((id) => id !== userId);
  return assigneesChange(shown, isAssigned(task, userId) ? chosen : [...chosen, userId]);
}

/** A task's value at `path` (as edits and lost edits name it); `_deleted` when there is no task. */
function taskValue(task: TaskDocument | undefined, path: string): unknown {
  if (path === '_deleted') return !task;
  if (!task) return undefined;
  if (path.startsWith('fields.')) return task.fields?.[path.slice('fields.'.length)] ?? null;
  const assignee = path.startsWith('assignees.') ? path.slice('assignees.'.length) : undefined;
  if (assignee) return (task.assignees ?? []).some((entry) => entry.userId === assignee);
  return task[path as 'title' | 'description' | 'statusId'];
}

describe('replicas and the office editing the same records at random', { timeout: 120_000 }, () => {
  it.each(seedsOr([1, 2, 3]))('end with the server’s tasks, nothing lost unseen (seed %i)', async (seed) => {
    const random = randomFrom(seed);
    const form = await createForm(admin, {
      fields: [
        { name: 'Amount', type: 'number' },
        { name: 'Note', type: 'text' },
      ],
    });
    const fieldIds = (form.fields as { id: string }[]).map((field) => field.id);
    const statuses = (form.statuses as { id: string }[]).map((status) => status.id);
    const people = [admin.userId, alice.userId];
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await createTask(admin, form.id, { title: `Task ${seed}.${i}` })).id);
    const edits: Edit[] = [];
    // Each replica's last deletion of a task, as the page showed the task: the one "Undo" takes back.
    const deletedHere = new Map<string, TaskDocument>();
    await tracedRun('tasks', seed, edits, async () => {
      const replicas = await openReplicas(`tasks-${seed}`, ['tasks', 'users']);
      try {
        for (let round = 1; round <= 40; round++) {
          const replica = await roundStart(replicas, random, round, `tasks-${seed}`, ['tasks', 'users']);
          const docs = await tasksOfForm(replica, form.id);
          const edit = (id: string, path: string, value: unknown) =>
            edits.push({ by: replica.name, id, path, value, round });
          const what = random.next();
          if (what < 0.08 || docs.length === 0) {
            const id = randomUUID();
            ids.push(id);
            const now = new Date().toISOString();
            const statusId = random.pick(statuses);
            await replica.db.tasks.insert({
              id,
              formId: form.id,
              statusId,
              title: `Made on the ${replica.name} ${round}`,
              description: '',
              fields: {},
              labels: {},
              assignees: [],
              createdAt: now,
              updatedAt: now,
            });
            edit(id, 'statusId', statusId);
          } else if (what < 0.12) {
            const doc = random.pick(docs);
            const shown = doc.toJSON() as TaskDocument;
            if (await writtenAsTheAppWrites(doc, removedRecord)) {
              edit(doc.primary, '_deleted', true);
              deletedHere.set(replica.name, shown);
            }
          } else if (what < 0.15 && deletedHere.has(replica.name)) {
            // Its last deletion taken back, as the notice's "Undo" does (rounds later, here).
            const shown = deletedHere.get(replica.name) as TaskDocument;
            deletedHere.delete(replica.name);
            if (await writeBackDeleted(replica.db.tasks, shown)) edit(shown.id, '_deleted', false);
          } else {
            const doc = random.pick(docs);
            const current = doc.toJSON() as TaskDocument;
            const made = edits.length;
            const kind = Math.floor(random.next() * 5);
            const change: TaskChange = {};
            if (kind === 0) change.title = `Title ${replica.name} ${round}`;
            if (kind === 1) change.description = `Description ${replica.name} ${round}`;
            if (kind === 2) {
              const fieldId = random.pick(fieldIds);
              const value = fieldId === fieldIds[0] ? String(round) : `note ${round}`;
              change.fields = { [fieldId]: value };
              edit(doc.primary, `fields.${fieldId}`, value);
            }
            if (kind === 3) change.statusId = random.pick(statuses);
            if (kind === 4) {
              const userId = random.pick(people);
              change.assign = toggledAssignee(current, userId);
              edit(doc.primary, `assignees.${userId}`, !isAssigned(current, userId));
            }
            for (const key of ['title', 'description', 'statusId'] as const) {
              if (change[key] !== undefined && change[key] !== current[key]) edit(doc.primary, key, change[key]);
            }
            if (!(await writtenAsTheAppWrites(doc, (current) => changedTask(current, change)))) edits.splice(made);
          }
          // The office, over REST, at the same time.
          const id = random.pick(ids);
          const office = officeEdits(edits, id, round);
          const kind = Math.floor(random.next() * 6);
          const fieldId = random.pick(fieldIds);
          const userId = random.pick(people);
          if (kind === 0)
            await admin.client.patch(`/api/tasks/${id}`, { title: `Office ${round}` }).then(office('title'));
          if (kind === 1)
            await admin.client
              .patch(`/api/tasks/${id}`, { fields: { [fieldId]: String(round * 3) } })
              .then(office(`fields.${fieldId}`));
          if (kind === 2)
            await admin.client
              .post(`/api/tasks/${id}/transition`, { statusId: random.pick(statuses) })
              .then(office('statusId'));
          if (kind === 3)
            await admin.client.post(`/api/tasks/${id}/assignees`, { userId }).then(office(`assignees.${userId}`));
          if (kind === 4)
            await admin.client.delete(`/api/tasks/${id}/assignees/${userId}`).then(office(`assignees.${userId}`));
          if (kind === 5 && random.next() < 0.3) await admin.client.delete(`/api/tasks/${id}`).then(office('_deleted'));
          await new Promise((resolve) => setTimeout(resolve, random.next() * 60));
        }
        backOnline(replicas);
        const server = await untilConverged(
          replicas,
          (member) => visibleTasks(member, ids),
          async (replica) => (await tasksOfForm(replica, form.id)).map((doc) => doc.toJSON() as TaskDocument),
          taskView,
        );
        expect(unseenLosses(edits, replicas, (edit) => taskValue(server.get(edit.id), edit.path))).toEqual([]);
      } finally {
        await closeReplicas(replicas);
      }
    });
  });

  it.each(seedsOr([1, 2]))('end with the server’s directory rows, nothing lost unseen (seed %i)', async (seed) => {
    const random = randomFrom(seed);
    const directory = (
      await admin.client.post('/api/directories', {
        name: `Random ${seed}`,
        columns: [{ name: 'Name' }, { name: 'Size' }],
      })
    ).body as { id: string };
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const parentId = i > 2 ? random.pick(ids.slice(0, 3)) : null;
      const created = await admin.client.post(`/api/directories/${directory.id}/rows`, {
        cells: [`Row ${i}`, String(i)],
        parentId,
      });
      ids.push(created.body.id as string);
    }
    const edits: Edit[] = [];
    // Each replica's last deletion of a row, as the screen showed it: the one "Undo" takes back.
    const deletedHere = new Map<string, RowDocument>();
    await tracedRun('rows', seed, edits, async () => {
      const replicas = await openReplicas(`rows-${seed}`, ['directories', 'directory_rows']);
      try {
        await vi.waitFor(
          async () => {
            for (const replica of replicas)
              expect(
                await replica.db.directory_rows.find({ selector: { directoryId: directory.id } }).exec(),
              ).toHaveLength(8);
            // Runs of many seeds fill the organization with rows every replica syncs first.
          },
          { timeout: 10_000, interval: 50 },
        );
        for (let round = 1; round <= 40; round++) {
          const replica = await roundStart(replicas, random, round, `rows-${seed}`, ['directories', 'directory_rows']);
          const docs = (await replica.db.directory_rows
            .find({ selector: { directoryId: directory.id } })
            .exec()) as RxDocument<RowDocument>[];
          const what = random.next();
          if (what < 0.08 || docs.length < 2) {
            const id = randomUUID();
            ids.push(id);
            await replica.db.directory_rows.insert({
              id,
              directoryId: directory.id,
              parentId: null,
              position: 1_000 + round,
              cells: [`Made on the ${replica.name} ${round}`, ''],
              parentRowIds: [],
              updatedAt: new Date().toISOString(),
            });
          } else if (what < 0.12) {
            const doc = random.pick(docs);
            const shown = doc.toJSON() as RowDocument;
            if (await writtenAsTheAppWrites(doc, removedRecord)) {
              edits.push({ by: replica.name, id: doc.primary, path: '_deleted', value: true, round });
              deletedHere.set(replica.name, shown);
            }
          } else if (what < 0.15 && deletedHere.has(replica.name)) {
            // Its last deletion taken back, as the notice's "Undo" does (rounds later, here).
            const shown = deletedHere.get(replica.name) as RowDocument;
            deletedHere.delete(replica.name);
            if (await writeBackDeleted(replica.db.directory_rows, shown))
              edits.push({ by: replica.name, id: shown.id, path: '_deleted', value: false, round });
          } else if (what < 0.25) {
            const doc = random.pick(docs);
            const parentId = random.pick([
              null,
              ...docs.map((other) => other.primary).filter((id) => id !== doc.primary),
            ]);
            // A move's outcome depends on the tree around it (a cycle is refused, a deleted parent
            // moves its children up): only the convergence of moves is checked.
            await doc.incrementalPatch({ parentId, position: 500 + random.next() });
          } else {
            const doc = random.pick(docs);
            const column = Math.floor(random.next() * 2);
            const value = `${replica.name} ${round}`;
            // Saved as the row editor saves it: the cell changed, onto the cells the replica holds.
            const made = edits.length;
            edits.push({ by: replica.name, id: doc.primary, path: `cells.${column}`, value, round });
            if (!(await writtenAsTheAppWrites(doc, (current) => changedRow(current, { cells: { [column]: value } }))))
              edits.splice(made);
          }
          const id = random.pick(ids);
          const kind = Math.floor(random.next() * 4);
          const rowPath = `/api/directories/${directory.id}/rows/${id}`;
          const office = officeEdits(edits, id, round);
          if (kind === 0 && random.next() < 0.5)
            await admin.client
              .patch(rowPath, { cells: [`Office ${round}`, `${round}`] })
              .then(office('cells.0', 'cells.1'));
          else if (kind === 0) {
            const column = Math.floor(random.next() * 2);
            await admin.client
              .patch(rowPath, { cells: { [column]: `Office ${round}` } })
              .then(office(`cells.${column}`));
          }
          if (kind === 1)
            await admin.client.patch(`${rowPath}/move`, {
              parentId: random.pick([null, ...ids.filter((other) => other !== id)]),
              position: 0,
            });
          if (kind === 2 && random.next() < 0.3) await admin.client.delete(rowPath).then(office('_deleted'));
          if (kind === 3 && random.next() < 0.3) await admin.client.post(`${rowPath}/restore`).then(office('_deleted'));
          await new Promise((resolve) => setTimeout(resolve, random.next() * 60));
        }
        backOnline(replicas);
        const view = (row: RowDocument) => ({
          cells: row.cells,
          parentId: row.parentId ?? null,
          parentRowIds: row.parentRowIds,
        });
        const server = await untilConverged(
          replicas,
          async (member) =>
            (await member.client.get(`/api/directories/${directory.id}/rows?limit=500`)).body.items as RowDocument[],
          async (replica) =>
            (await replica.db.directory_rows.find({ selector: { directoryId: directory.id } }).exec()).map(
              (doc) => doc.toJSON() as RowDocument,
            ),
          view,
        );
        const losses = unseenLosses(edits, replicas, (edit) => {
          const row = server.get(edit.id);
          if (edit.path === '_deleted') return !row;
          return row?.cells[Number(edit.path.slice('cells.'.length))];
        });
        expect(losses).toEqual([]);
      } finally {
        await closeReplicas(replicas);
      }
    });
  });
});

describe('replicas of members whose view of the tasks changes while they edit them', { timeout: 120_000 }, () => {
  it.each(seedsOr([1, 2, 3]))('hold exactly what each member may see, nothing lost unseen (seed %i)', async (seed) => {
    const random = randomFrom(seed);
    const bob = await createMember(t, admin, { name: `Bob ${seed}` });
    const role = (
      await admin.client.post('/api/roles', { name: `Crew ${seed} ${randomUUID()}`, memberIds: [alice.userId] })
    ).body as { id: string };
    const form = await createForm(admin, { visibleRoleIds: [role.id], fields: [{ name: 'Note', type: 'text' }] });
    const fieldId = (form.fields as { id: string }[])[0]?.id as string;
    const statuses = (form.statuses as { id: string }[]).map((status) => status.id);
    const people = [alice.userId, bob.userId];
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await createTask(admin, form.id, { title: `Task ${seed}.${i}` })).id);
    const edits: Edit[] = [];
    await tracedRun('view', seed, edits, async () => {
      const replicas = await openReplicas(
        `view-${seed}`,
        ['tasks', 'users'],
        [
          ['alice', alice],
          ['bob', bob],
        ],
      );
      try {
        for (let round = 1; round <= 40; round++) {
          const replica = await roundStart(replicas, random, round, `view-${seed}`, ['tasks', 'users']);
          const docs = await tasksOfForm(replica, form.id);
          if (docs.length > 0) {
            const doc = random.pick(docs);
            const edit = (path: string, value: unknown) =>
              edits.push({ by: replica.name, id: doc.primary, path, value, round });
            const kind = Math.floor(random.next() * 10);
            if (kind === 0) {
              if (await writtenAsTheAppWrites(doc, removedRecord)) edit('_deleted', true);
            } else {
              const current = doc.toJSON() as TaskDocument;
              const made = edits.length;
              const change: TaskChange = {};
              if (kind <= 3) change.title = `Title ${replica.name} ${round}`;
              else if (kind <= 6) {
                change.fields = { [fieldId]: `note ${replica.name} ${round}` };
                edit(`fields.${fieldId}`, change.fields[fieldId]);
              } else if (kind <= 7) change.statusId = random.pick(statuses);
              else {
                // Taking oneself off may hide the task; putting a colleague on shares it with them.
                const userId = random.pick(people);
                change.assign = toggledAssignee(current, userId);
                edit(`assignees.${userId}`, !isAssigned(current, userId));
              }
              for (const key of ['title', 'statusId'] as const) {
                if (change[key] !== undefined && change[key] !== current[key]) edit(key, change[key]);
              }
              if (!(await writtenAsTheAppWrites(doc, (current) => changedTask(current, change)))) edits.splice(made);
            }
          }
          // The office changes who sees what, and edits too.
          const id = random.pick(ids);
          const office = officeEdits(edits, id, round);
          const kind = Math.floor(random.next() * 7);
          const userId = random.pick(people);
          if (kind === 0)
            await admin.client.put(`/api/roles/${role.id}/members`, {
              userIds: people.filter(() => random.next() < 0.5),
            });
          if (kind === 1)
            await admin.client.patch(`/api/forms/${form.id}`, { visibleRoleIds: random.next() < 0.5 ? [] : [role.id] });
          if (kind === 2)
            await admin.client.post(`/api/tasks/${id}/assignees`, { userId }).then(office(`assignees.${userId}`));
          if (kind === 3)
            await admin.client.delete(`/api/tasks/${id}/assignees/${userId}`).then(office(`assignees.${userId}`));
          if (kind === 4)
            await admin.client.patch(`/api/tasks/${id}`, { title: `Office ${round}` }).then(office('title'));
          if (kind === 5)
            await admin.client
              .patch(`/api/tasks/${id}`, { fields: { [fieldId]: `office ${round}` } })
              .then(office(`fields.${fieldId}`));
          if (kind === 6 && random.next() < 0.3) await admin.client.delete(`/api/tasks/${id}`).then(office('_deleted'));
          await new Promise((resolve) => setTimeout(resolve, random.next() * 60));
        }
        backOnline(replicas);
        await untilConverged(
          replicas,
          (member) => visibleTasks(member, ids),
          async (replica) => (await tasksOfForm(replica, form.id)).map((doc) => doc.toJSON() as TaskDocument),
          taskView,
        );
        // Whatever each member may see now, an edit of theirs that nobody competed with is on the
        // server, or they were told it was not kept.
        const server = new Map((await visibleTasks(admin, ids)).map((task) => [task.id, task]));
        expect(unseenLosses(edits, replicas, (edit) => taskValue(server.get(edit.id), edit.path))).toEqual([]);
      } finally {
        await closeReplicas(replicas);
      }
    });
  });
});
