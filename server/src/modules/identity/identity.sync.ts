import { defineSyncCollection, presentEach } from '../../platform/sync/sync-collection';
import type { SyncSource } from '../../platform/sync/sync-source';
import { presentUser } from './identity.presenter';
import { roleChanges, userChanges } from './identity.repo';

/** Colleagues, read-only on replicas: as REST presents them, without the creation time replicas do not keep. */
export const usersSyncSource: SyncSource = defineSyncCollection({
  collection: 'users',
  pull: {
    changes: (db, auth, checkpoint, limit) => userChanges(db, auth.organizationId, checkpoint, limit),
    gone: () => false,
    present: (_db, _auth, rows) =>
      presentEach(rows, (row) => {
        const { createdAt: _createdAt, ...user } = presentUser(row);
        return user;
      }),
  },
});

/** Roles with their members, read-only on replicas; deleted roles arrive as tombstones. */
export const rolesSyncSource: SyncSource = defineSyncCollection({
  collection: 'roles',
  pull: {
    changes: (db, auth, checkpoint, limit) => roleChanges(db, auth.organizationId, checkpoint, limit),
    gone: (row) => row.name === null,
    present: (_db, _auth, rows) =>
      presentEach(rows, (row) => ({ id: row.id, name: row.name, memberIds: row.member_ids ?? [] })),
  },
});
