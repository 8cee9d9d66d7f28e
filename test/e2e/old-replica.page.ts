import { createRxDatabase, type RxJsonSchema } from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { replicaTasks } from '../fixtures/replica-tasks';

/**
 * Writes a replica as an earlier release left it in this browser: its schemas, `count` tasks.
 * Bundled into the end-to-end test's page, on the app's origin.
 */
async function writeOldReplica(name: string, schemas: Record<string, RxJsonSchema<unknown>>, count: number) {
  const db = await createRxDatabase({ name, storage: getRxStorageDexie(), multiInstance: false });
  const collections = await db.addCollections(
    Object.fromEntries(Object.entries(schemas).map(([collection, schema]) => [collection, { schema }])) as never,
  );
  const tasks = collections.tasks;
  if (!tasks) throw new Error('the earlier schemas have no tasks collection');
  const { error } = await tasks.bulkInsert(replicaTasks(count, 'form-1', (n) => `Left by the earlier release ${n}`));
  if (error.length > 0) throw new Error(`could not write the earlier replica: ${JSON.stringify(error[0])}`);
  await db.close();
}

Object.assign(window, { writeOldReplica });
