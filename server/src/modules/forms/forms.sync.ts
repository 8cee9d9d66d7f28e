import type { SyncDocument } from '@shared/sync';
import { defineSyncCollection, presentEach } from '../../platform/sync/sync-collection';
import type { SyncSource } from '../../platform/sync/sync-source';
import { canReadForm } from './forms.policy';
import { presentForm } from './forms.presenter';
import { formChanges, statusChanges } from './forms.repo';
import type { FormDefinition } from './forms.service';
import { loadFormDefinitions } from './forms.service';

/**
 * Forms (with fields and moves), read-only on replicas; forms the caller may not read
 * (`canReadForm`) arrive as tombstones. A deleted form arrives marked `deleted`: its tasks stay
 * readable, and showing them needs its fields, statuses and moves; it takes no new tasks.
 */
export const formsSyncSource: SyncSource = defineSyncCollection({
  collection: 'forms',
  pull: {
    changes: (db, auth, checkpoint, limit) => formChanges(db, auth.organizationId, auth.userId, checkpoint, limit),
    gone: () => false,
    visible: (auth, row) => canReadForm(auth, { id: row.id, visible_role_ids: row.visible_role_ids }, row.assigned),
    async present(db, auth, rows) {
      const definitions = await loadFormDefinitions(db, auth.organizationId, rows);
      return new Map(
        rows.map((row) => {
          const definition = definitions.get(row.id) as FormDefinition;
          const document = { ...presentForm(definition), deleted: row.deleted_at !== null, _deleted: false };
          return [row.id, document as SyncDocument];
        }),
      );
    },
  },
});

/** Statuses of forms, read-only on replicas; sent to whoever may read their form. */
export const statusesSyncSource: SyncSource = defineSyncCollection({
  collection: 'statuses',
  pull: {
    changes: (db, auth, checkpoint, limit) => statusChanges(db, auth.organizationId, auth.userId, checkpoint, limit),
    visible: (auth, row) =>
      canReadForm(auth, { id: row.form_id, visible_role_ids: row.visible_role_ids }, row.assigned),
    present: (_db, _auth, rows) =>
      presentEach(rows, (row) => ({
        id: row.id,
        formId: row.form_id,
        name: row.name,
        initial: row.is_initial,
        final: row.is_final,
        position: row.position,
      })),
  },
});
