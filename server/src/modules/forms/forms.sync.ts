import {
  changedSince,
  checkpointParams,
  nextCheckpoint,
  type SyncSource,
  syncColumns,
  tombstone,
} from '../../platform/sync/sync-source';
import { canReadForm } from './forms.policy';
import { presentForm } from './forms.presenter';
import { assignedOnForm, type FormRow } from './forms.repo';
import { loadFormDefinitions } from './forms.service';

const FORM_COLUMNS = `f.id, f.name, f.qr_generation_enabled, f.visible_role_ids::text[] AS visible_role_ids, f.created_at, f.updated_at, f.deleted_at`;

/**
 * Forms (with fields and moves), read-only on replicas; forms the caller may not read
 * (`canReadForm`) arrive as tombstones. A deleted form arrives marked `deleted`: its tasks stay
 * readable, and showing them needs its fields, statuses and moves; it takes no new tasks.
 */
export const formsSyncSource: SyncSource = {
  collection: 'forms',
  async pull(db, auth, checkpoint, limit) {
    const { rows } = await db.query<FormRow & { assigned: boolean; sync_xid: string; sync_seq: string }>(
      `SELECT ${FORM_COLUMNS}, ${assignedOnForm('f', 5)} AS assigned, ${syncColumns('f')} FROM forms f
        WHERE f.organization_id = $1 AND ${changedSince('f', 2, 3)} ORDER BY f.sync_xid, f.sync_seq LIMIT $4`,
      [auth.organizationId, ...checkpointParams(checkpoint), limit, auth.userId],
    );
    const readable = rows.filter((row) => canReadForm(auth, row, row.assigned));
    const definitions = await loadFormDefinitions(db, auth.organizationId, readable);
    return {
      documents: rows.map((row) => {
        const definition = definitions.get(row.id);
        return definition && readable.includes(row)
          ? { ...presentForm(definition), deleted: row.deleted_at !== null, _deleted: false }
          : tombstone(row.id);
      }),
      checkpoint: nextCheckpoint(rows, checkpoint),
    };
  },
};

/** Statuses of forms, read-only on replicas; sent to whoever may read their form. */
export const statusesSyncSource: SyncSource = {
  collection: 'statuses',
  async pull(db, auth, checkpoint, limit) {
    const { rows } = await db.query<{
      id: string;
      form_id: string;
      name: string;
      is_initial: boolean;
      is_final: boolean;
      position: number;
      deleted_at: Date | null;
      visible_role_ids: string[];
      assigned: boolean;
      sync_xid: string;
      sync_seq: string;
    }>(
      `SELECT s.id, s.form_id, s.name, s.is_initial, s.is_final, s.position, s.deleted_at,
              f.visible_role_ids::text[] AS visible_role_ids, ${assignedOnForm('f', 5)} AS assigned, ${syncColumns('s')}
         FROM form_statuses s JOIN forms f ON f.id = s.form_id
        WHERE s.organization_id = $1 AND ${changedSince('s', 2, 3)} ORDER BY s.sync_xid, s.sync_seq LIMIT $4`,
      [auth.organizationId, ...checkpointParams(checkpoint), limit, auth.userId],
    );
    return {
      documents: rows.map((row) =>
        row.deleted_at || !canReadForm(auth, row, row.assigned)
          ? tombstone(row.id)
          : {
              id: row.id,
              formId: row.form_id,
              name: row.name,
              initial: row.is_initial,
              final: row.is_final,
              position: row.position,
              _deleted: false,
            },
      ),
      checkpoint: nextCheckpoint(rows, checkpoint),
    };
  },
};
