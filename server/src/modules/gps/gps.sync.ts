import type { SyncDocument } from '@shared/sync';
import { defineSyncCollection } from '../../platform/sync/sync-collection';
import type { SyncSource } from '../../platform/sync/sync-source';
import { objectChanges } from './gps.repo';
import { presentObjects } from './gps.service';

/**
 * GPS objects with their last position, read-only on replicas, for users with GPS module access
 * only: to anyone else the collection is empty (not even tombstones name an object).
 */
export const gpsObjectsSyncSource: SyncSource = defineSyncCollection({
  collection: 'gps_objects',
  pull: {
    changes: async (db, auth, checkpoint, limit) =>
      auth.modules.includes('gps') ? objectChanges(db, auth.organizationId, checkpoint, limit) : [],
    gone: (row) => row.name === null,
    async present(db, auth, rows) {
      const objects = await presentObjects(db, auth.organizationId, rows);
      return new Map(objects.map((object) => [object.id, { ...object, _deleted: false } as unknown as SyncDocument]));
    },
  },
});
