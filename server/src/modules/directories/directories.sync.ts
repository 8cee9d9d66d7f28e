import {
  changedSince,
  checkpointParams,
  nextCheckpoint,
  type SyncSource,
  syncColumns,
  tombstone,
} from '../../platform/sync/sync-source';
import type { DirectoryRow, RowRecord } from './directories.repo';
import { presentDirectory, presentRow } from './directories.service';

/** Directories, read-only on replicas. */
export const directoriesSyncSource: SyncSource = {
  collection: 'directories',
  async pull(db, auth, checkpoint, limit) {
    const { rows } = await db.query<DirectoryRow & { deleted_at: Date | null; sync_xid: string; sync_seq: string }>(
      `SELECT d.id, d.name, d.columns, d.parent_directory_id, d.parent_row_ids::text[] AS parent_row_ids,
              d.tree_display_column_index, d.tree_column_index, d.created_at, d.updated_at, d.deleted_at, ${syncColumns('d')}
         FROM directories d WHERE d.organization_id = $1 AND ${changedSince('d', 2, 3)}
        ORDER BY d.sync_xid, d.sync_seq LIMIT $4`,
      [auth.organizationId, ...checkpointParams(checkpoint), limit],
    );
    return {
      documents: rows.map((row) =>
        row.deleted_at ? tombstone(row.id) : { ...presentDirectory(row), _deleted: false },
      ),
      checkpoint: nextCheckpoint(rows, checkpoint),
    };
  },
};

/** Rows of directories, read-only on replicas. */
export const directoryRowsSyncSource: SyncSource = {
  collection: 'directory_rows',
  async pull(db, auth, checkpoint, limit) {
    const { rows } = await db.query<RowRecord & { sync_xid: string; sync_seq: string }>(
      `SELECT r.id, r.directory_id, r.parent_id, r.position, r.cells, r.parent_row_ids::text[] AS parent_row_ids,
              r.updated_at, r.deleted_at, ${syncColumns('r')}
         FROM directory_rows r WHERE r.organization_id = $1 AND ${changedSince('r', 2, 3)}
        ORDER BY r.sync_xid, r.sync_seq LIMIT $4`,
      [auth.organizationId, ...checkpointParams(checkpoint), limit],
    );
    return {
      documents: rows.map((row) =>
        row.deleted_at ? tombstone(row.id) : { ...presentRow(row), directoryId: row.directory_id, _deleted: false },
      ),
      checkpoint: nextCheckpoint(rows, checkpoint),
    };
  },
};
