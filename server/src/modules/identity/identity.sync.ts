import { defineSyncCollection } from '../../platform/sync/sync-collection';
import type { SyncSource } from '../../platform/sync/sync-source';
import { roleChanges, userChanges } from './identity.repo';

/** Colleagues, read-only on replicas. */
export const usersSyncSource: SyncSource = defineSyncCollection({
  collection: 'users',
  pull: {
    changes: (db, auth, checkpoint, limit) => userChanges(db, auth.organizationId, checkpoint, limit),
    gone: () => false,
    present: (_db, _auth, rows) =>
      new Map(
        rows.map((row) => [
          row.id,
          {
            id: row.id,
            email: row.email,
            name: row.name,
            isAdmin: row.is_admin,
            status: row.status,
            locale: row.locale,
            roleIds: row.role_ids,
            _deleted: false,
          },
        ]),
      ),
  },
});

/** Roles with their members, read-only on replicas; deleted roles arrive as tombstones. */
export const rolesSyncSource: SyncSource = defineSyncCollection({
  collection: 'roles',
  pull: {
    changes: (db, auth, checkpoint, limit) => roleChanges(db, auth.organizationId, checkpoint, limit),
    gone: (row) => row.name === null,
    present: (_db, _auth, rows) =>
      new Map(
        rows.map((row) => [row.id, { id: row.id, name: row.name, memberIds: row.member_ids ?? [], _deleted: false }]),
      ),
  },
});
