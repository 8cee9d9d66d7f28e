import { replicateRxCollection } from 'rxdb/plugins/replication';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOrbitaDatabase } from './database';
import { syncReplicationIdentifier } from './socket-replication';

interface ServerUser {
  id: string;
  email: string;
  name: string;
  _deleted: boolean;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the order of server states in the replica', () => {
  it('writes the next pulled change of a collection the replica only reads without waiting for records it never keeps', async () => {
    const db = await createOrbitaDatabase({
      name: 'server-state-order-users',
      storage: getRxStorageMemory(),
      collections: ['users'],
    });
    const server: ServerUser[] = [{ id: 'u1', email: 'anna@example.org', name: 'Anna', _deleted: false }];
    // Read-only, as the app replicates users: RxDB keeps no records of their server states.
    const replication = replicateRxCollection<ServerUser, number>({
      collection: db.users as never,
      replicationIdentifier: syncReplicationIdentifier('users'),
      live: true,
      pull: {
        async handler(checkpoint) {
          const from = checkpoint ?? 0;
          return { documents: server.slice(from), checkpoint: server.length };
        },
      },
    });
    const name = async () => (await db.users.findOne('u1').exec())?.toJSON().name;
    try {
      await replication.awaitInitialReplication();
      expect(await name()).toBe('Anna');

      // Renamed on the server; the resync after a reconnect pulls it. Time stands still short of
      // how long a record is waited for: the change is written all the same.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      server.push({ id: 'u1', email: 'anna@example.org', name: 'Anna Petrova', _deleted: false });
      replication.reSync();
      await vi.advanceTimersByTimeAsync(9_000);
      expect(await name()).toBe('Anna Petrova');
    } finally {
      vi.useRealTimers();
      await replication.cancel();
      await db.close();
    }
  });
});
