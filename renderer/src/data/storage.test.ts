import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { fillWithDefaultSettings, type PreparedQuery, type RxDocumentData, type RxJsonSchema } from 'rxdb';
import { describe, expect, it } from 'vitest';
import { createOrbitaDatabase } from './database';
import { browserReplicaStorage, keepBrowserStorage } from './storage';

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

  it("removes a replica's IndexedDB databases, leaving another replica's", async () => {
    const factory = new IDBFactory();
    const storage = browserReplicaStorage({ indexedDB: factory, IDBKeyRange });
    const names = async () => (await factory.databases()).map((database) => database.name ?? '').sort();
    const task = { formId: 'f1', statusId: 's1', updatedAt: '2026-11-26T10:00:00.000Z' };
    // One copy open at a time, as one page holds one signed-in user's (RxDB's free tier opens few
    // collections per process).
    const staying = await createOrbitaDatabase({ name: 'orbita-staying', storage: storage as never });
    await staying.tasks.insert({ id: 't2', title: 'Boiler room', ...task });
    await staying.close();
    const leaving = await createOrbitaDatabase({ name: 'orbita-leaving', storage: storage as never });
    await leaving.tasks.insert({ id: 't1', title: 'Pump room', ...task });
    expect((await names()).filter((name) => name.includes('orbita-leaving'))).not.toEqual([]);

    await leaving.remove();

    expect((await names()).filter((name) => name.includes('orbita-leaving'))).toEqual([]);
    expect((await names()).filter((name) => name.includes('orbita-staying'))).not.toEqual([]);
    const back = await createOrbitaDatabase({ name: 'orbita-staying', storage: storage as never });
    expect((await back.tasks.find().exec()).map((task) => task.title)).toEqual(['Boiler room']);
    await back.close();
  });
});

describe("keeping the browser build's copy", () => {
  /** A browser's storage manager that keeps the site's storage once asked, if it grants it. */
  function storageManager(grants: boolean, keptAlready = false) {
    let kept = keptAlready;
    const asked: string[] = [];
    return {
      asked,
      persisted: async () => kept,
      persist: async () => {
        asked.push('persist');
        kept = grants;
        return kept;
      },
    };
  }

  it('asks the browser to keep the storage once, and says whether it does', async () => {
    const granting = storageManager(true);
    expect(await keepBrowserStorage(granting)).toBe(true);
    expect(await keepBrowserStorage(granting)).toBe(true);
    // Kept already: not asked again (a browser may ask its user each time).
    expect(granting.asked).toEqual(['persist']);

    const refusing = storageManager(false);
    expect(await keepBrowserStorage(refusing)).toBe(false);
    expect(await keepBrowserStorage(storageManager(false, true))).toBe(true);
  });

  it('says nothing where the browser cannot tell, or fails to', async () => {
    expect(await keepBrowserStorage(undefined)).toBeUndefined();
    const failing = {
      persisted: async () => {
        throw new Error('storage is not available in this context');
      },
      persist: async () => true,
    };
    expect(await keepBrowserStorage(failing)).toBeUndefined();
  });
});
