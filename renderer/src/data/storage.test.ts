import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { fillWithDefaultSettings, type PreparedQuery, type RxDocumentData, type RxJsonSchema } from 'rxdb';
import { describe, expect, it } from 'vitest';
import { browserReplicaStorage } from './storage';

interface Note {
  id: string;
}

describe("the browser build's replica storage", () => {
  it('reads changes since a checkpoint by index ranges, without testing each IndexedDB record', async () => {
    const storage = browserReplicaStorage({ indexedDB: new IDBFactory(), IDBKeyRange });
    const instance = await storage.createStorageInstance<Note>({
      databaseInstanceToken: 'token',
      databaseName: 'browser-changes',
      collectionName: 'notes',
      schema: fillWithDefaultSettings({
        version: 0,
        primaryKey: 'id',
        type: 'object',
        properties: { id: { type: 'string', maxLength: 20 } },
        required: ['id'],
      } as RxJsonSchema<Note>),
      options: {},
      multiInstance: false,
      devMode: false,
    });
    // One bulk write: every record shares its write time, as a pull batch does.
    const ids = Array.from({ length: 40 }, (_, n) => `n${String((n * 7) % 40).padStart(2, '0')}`);
    await instance.bulkWrite(
      ids.map((id) => ({
        document: { id, _deleted: false, _attachments: {}, _rev: '1-a', _meta: { lwt: 5000 } } as RxDocumentData<Note>,
      })),
      'test',
    );
    const plans: boolean[] = [];
    const query = instance.query.bind(instance);
    instance.query = (prepared: PreparedQuery<Note>) => {
      plans.push(prepared.queryPlan.selectorSatisfiedByIndex);
      return query(prepared);
    };
    const seen: string[] = [];
    let checkpoint: unknown;
    for (;;) {
      const page = await instance.getChangedDocumentsSince?.(6, checkpoint);
      if (!page || page.documents.length === 0) break;
      seen.push(...page.documents.map((doc) => doc.id));
      checkpoint = page.checkpoint;
    }
    expect(seen).toEqual([...ids].sort());
    expect(plans.length).toBeGreaterThan(0);
    expect(plans.every(Boolean)).toBe(true);
    await instance.close();
  });
});
