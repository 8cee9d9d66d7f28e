import { createRxDatabase, type RxJsonSchema } from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';

/**
 * Writes a replica as an earlier release left it in this browser: its schemas, `count` tasks.
 * Bundled into the end-to-end test's page, on the app's origin.
 */
async function writeOldReplica(name: string, schemas: Record<string, RxJsonSchema<unknown>>, count: number) {
  const db = await createRxDatabase({ name, storage: getRxStorageDexie(), multiInstance: false });
  const collections = await db.addCollections(
    Object.fromEntries(Object.entries(schemas).map(([collection, schema]) => [collection, { schema }])) as never,
  );
  const at = '2026-11-01T10:00:00.000Z';
  const tasks = collections.tasks;
  if (!tasks) throw new Error('the earlier schemas have no tasks collection');
  const { error } = await tasks.bulkInsert(
    Array.from({ length: count }, (_, n) => ({
      id: `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`,
      formId: 'form-1',
      statusId: 'status-1',
      title: `Left by the earlier release ${n}`,
      description: '',
      fields: {},
      labels: {},
      assignees: [],
      createdBy: null,
      createdAt: at,
      updatedAt: at,
    })),
  );
  if (error.length > 0) throw new Error(`could not write the earlier replica: ${JSON.stringify(error[0])}`);
  await db.close();
}

Object.assign(window, { writeOldReplica });
