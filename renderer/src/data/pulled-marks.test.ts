import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { replicateRxCollection } from 'rxdb/plugins/replication';
import { describe, expect, it, vi } from 'vitest';
import { createOrbitaDatabase, type OrbitaDatabase } from './database';
import type { TaskDocument } from './schemas';
import { syncReplicationIdentifier } from './socket-replication';
import { browserReplicaStorage } from './storage';

type ServerTask = TaskDocument & { _deleted: boolean };

const task = (id: string, title: string): ServerTask => ({
  id,
  formId: 'form',
  statusId: 'new',
  title,
  updatedAt: new Date().toISOString(),
  _deleted: false,
});

/**
 * A replication of the replica's tasks with `identifier`, pulling from `server` after its
 * checkpoint (a position there); the server cannot be reached for pushes (they fail, and are
 * tried again), so whatever the replica holds of its own stays unsent.
 */
function replicate(db: OrbitaDatabase, identifier: string, server: ServerTask[]) {
  return replicateRxCollection<TaskDocument, number>({
    collection: db.tasks,
    replicationIdentifier: identifier,
    live: true,
    retryTime: 50,
    pull: {
      async handler(checkpoint) {
        const from = checkpoint ?? 0;
        return { documents: server.slice(from), checkpoint: server.length };
      },
    },
    push: {
      async handler() {
        throw new Error('offline');
      },
    },
  });
}

const WAIT = { timeout: 5_000, interval: 20 };

describe("the replica's marks of pulled documents", () => {
  it('lets the sync replication take a later server state of a pulled task whose record was lost, and never of one another replication wrote', async () => {
    const db = await createOrbitaDatabase({
      name: 'pulled-marks',
      storage: browserReplicaStorage({ indexedDB: new IDBFactory(), IDBKeyRange }),
      collections: ['tasks'],
    });
    const title = async (id: string) => (await db.tasks.findOne(id).exec())?.toJSON().title;
    try {
      // Another replication of the collection (a schema migration copies it so) writes task B,
      // which stands for an edit made here and not sent yet.
      const other = replicate(db, 'another-replication', [task('b', 'B as edited here')]);
      await vi.waitFor(async () => expect(await title('b')).toBe('B as edited here'), WAIT);
      await other.cancel();

      const server = [task('a', 'A first')];
      const first = replicate(db, syncReplicationIdentifier('tasks'), server);
      await vi.waitFor(() => expect(first.metaInstance).toBeDefined(), WAIT);
      const meta = first.metaInstance as NonNullable<typeof first.metaInstance>;
      await vi.waitFor(async () => expect(await meta.findDocumentsById(['a|0'], true)).toHaveLength(1), WAIT);
      // The app closed before the record of A's server state was written: it is taken out.
      const records = await meta.findDocumentsById(['a|0'], true);
      await meta.bulkWrite(
        records.map((record) => ({ previous: record, document: { ...record, _deleted: true, _rev: '9-x' } })),
        'test-forget',
      );
      await meta.cleanup(0);
      expect(await meta.findDocumentsById(['a|0'], true)).toEqual([]);
      await first.cancel();

      // The server changes A and sends its state of B: A's is taken, B's edit stays unsent.
      server.push(task('a', 'A changed on the server'), task('b', 'B on the server'));
      const again = replicate(db, syncReplicationIdentifier('tasks'), server);
      await vi.waitFor(async () => expect(await title('a')).toBe('A changed on the server'), WAIT);
      expect(await title('b')).toBe('B as edited here');
      await again.cancel();
    } finally {
      await db.remove();
    }
  });
});
