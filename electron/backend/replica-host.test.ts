import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { emitterPort } from '@shared/message-port';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import {
  fillWithDefaultSettings,
  getRxReplicationMetaInstanceSchema,
  type RxDocumentData,
  type RxJsonSchema,
} from 'rxdb';

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOrbitaDatabase } from '../../renderer/src/data/database';
import { Replica } from '../../renderer/src/data/replica';
import { collectionSchemas } from '../../renderer/src/data/schemas';
import { browserReplicaStorage, remoteReplicaStorage } from '../../renderer/src/data/storage';
import { hostReplicaStorage } from './replica-host';
import { startReplicaThread } from './replica-thread.fixture';

let dir: string;
let thread: Awaited<ReturnType<typeof startReplicaThread>>;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'orbita-replica-host-'));
  thread = await startReplicaThread(dir);
});

afterAll(async () => {
  await thread.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('replica storage outside the window', () => {
  it('serves the replica from another thread over a message port, persisted in SQLite files there', async () => {
    const db = await createOrbitaDatabase({
      name: 'remote-replica',
      storage: remoteReplicaStorage(thread.port),
      collections: ['tasks'],
    });
    await db.tasks.bulkInsert([
      { id: 'a1', title: 'Check the pump', formId: 'f1' },
      { id: 'a2', title: 'Replace the valve', formId: 'f1' },
    ]);
    const found = await db.tasks.find({ selector: { title: { $regex: 'valve' } } }).exec();
    expect(found.map((doc) => doc.primary)).toEqual(['a2']);
    // Live queries work across the port.
    const counts: number[] = [];
    const subscription = db.tasks.count().$.subscribe((count) => counts.push(count));
    await db.tasks.insert({ id: 'a3', title: 'Third' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    subscription.unsubscribe();
    expect(counts.at(-1)).toBe(3);
    await db.close();
    // The data lives in the other thread's SQLite file.
    expect(existsSync(dir)).toBe(true);
    expect(readdirSync(dir)).toContain('remote_2d_replica.sqlite');
  });

  it('closes what a page left open when its port goes away (a reload), so the SQLite files are released', async () => {
    const here = new MessageChannel();
    const stop = hostReplicaStorage(emitterPort(here.port2), { databaseDirectory: dir });
    const db = await createOrbitaDatabase({
      name: 'reloaded-page',
      storage: remoteReplicaStorage(emitterPort(here.port1)),
      collections: ['tasks'],
    });
    await db.tasks.insert({ id: 'r1', title: 'Written before the reload' });
    const wal = path.join(dir, 'reloaded_2d_page.sqlite-wal');
    expect(existsSync(wal)).toBe(true);
    // The page goes away without closing its database.
    here.port1.close();
    // SQLite merges and deletes the write-ahead log when its last connection closes.
    await vi.waitFor(() => expect(existsSync(wal)).toBe(false), { timeout: 10_000, interval: 50 });
    stop();
  });

  it('removes a copy the page never opened, over a port of its own (a deactivated account at start)', async () => {
    const userId = '0190a000-0000-7000-8000-00000000d1ed';
    const files = () => readdirSync(dir).filter((name) => name.includes('0190a000'));
    const db = await createOrbitaDatabase({
      name: `orbita-${userId}`,
      storage: remoteReplicaStorage(thread.port),
      collections: ['tasks'],
    });
    await db.tasks.insert({ id: 'd1', title: 'Kept at sign-out' });
    await db.close();
    expect(files().length).toBeGreaterThan(0);
    const own = new MessageChannel();
    const stop = hostReplicaStorage(emitterPort(own.port2), { databaseDirectory: dir });
    await Replica.removeCopy({ userId, storage: remoteReplicaStorage(emitterPort(own.port1)) });
    own.port1.close();
    stop();
    expect(files()).toEqual([]);
  });

  it("sends the page the change events of its collections, not of the replication's meta data", async () => {
    const here = new MessageChannel();
    const stop = hostReplicaStorage(emitterPort(here.port2), { databaseDirectory: dir });
    const storage = remoteReplicaStorage(emitterPort(here.port1));
    const tasksSchema = fillWithDefaultSettings(collectionSchemas.tasks as never);
    const open = (collectionName: string, schema: RxJsonSchema<RxDocumentData<unknown>>) =>
      storage.createStorageInstance({
        databaseInstanceToken: 'token',
        databaseName: 'events-page',
        collectionName,
        schema,
        options: {},
        multiInstance: false,
        devMode: false,
      });
    const tasks = await open('tasks', tasksSchema as never);
    const meta = await open('rx-replication-meta', getRxReplicationMetaInstanceSchema(tasksSchema, false) as never);
    const seen: string[] = [];
    const subscriptions = [
      tasks.changeStream().subscribe(() => seen.push('tasks')),
      meta.changeStream().subscribe(() => seen.push('meta')),
    ];
    const document = (data: Record<string, unknown>) => ({
      ...data,
      _deleted: false,
      _meta: { lwt: Date.now() },
      _rev: '1-events',
      _attachments: {},
    });
    const metaWrite = await meta.bulkWrite(
      [{ document: document({ id: 'm1', isCheckpoint: '0', itemId: 't1', docData: { id: 't1' } }) }] as never,
      'test',
    );
    expect(metaWrite.error).toEqual([]);
    await tasks.bulkWrite([{ document: document({ id: 't1', title: 'Pump' }) }] as never, 'test');
    // Messages keep their order: the meta event would have come before the task's.
    await vi.waitFor(() => expect(seen).toEqual(['tasks']), { timeout: 5_000, interval: 20 });
    // The meta data itself is written and read as usual.
    expect(
      (await meta.findDocumentsById(['m1'], false)).map((doc) => (doc as unknown as { itemId: string }).itemId),
    ).toEqual(['t1']);
    for (const subscription of subscriptions) subscription.unsubscribe();
    await tasks.close();
    await meta.close();
    here.port1.close();
    stop();
  });

  it('runs the same data layer on IndexedDB (Dexie) in the browser build', async () => {
    const db = await createOrbitaDatabase({
      name: 'browser-replica',
      storage: browserReplicaStorage({ indexedDB, IDBKeyRange }),
      collections: ['tasks'],
    });
    await db.tasks.insert({ id: 'b1', title: 'In a browser' });
    expect((await db.tasks.findOne('b1').exec())?.toJSON().title).toBe('In a browser');
    await db.close();
  });
});
