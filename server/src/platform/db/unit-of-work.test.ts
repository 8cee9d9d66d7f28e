import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/helpers/database';
import { createEventBus, type DomainEvents, type EventBus } from '../events';
import type { Db } from './db';
import { inUnit, type RecordedEvent } from './unit-of-work';

let database: TestDatabase;
let db: Db;
beforeAll(async () => {
  database = await createTestDatabase({ migrated: false });
  db = database.db;
  await db.exec('CREATE TABLE unit_notes (note text PRIMARY KEY)');
});
afterAll(() => database.drop());

const silent = { error: () => undefined };
const role = (roleId: string): DomainEvents['role.members_changed'] => ({ organizationId: 'org', roleId });

async function notes(): Promise<string[]> {
  const { rows } = await db.query<{ note: string }>('SELECT note FROM unit_notes ORDER BY note');
  return rows.map((row) => row.note);
}

/** A bus whose subscribers note each published role id, with what the database held at that moment. */
function listeningBus(): { events: EventBus; heard: { roleId: string; stored: string[] }[] } {
  const events = createEventBus(silent);
  const heard: { roleId: string; stored: string[] }[] = [];
  events.subscribe('role.members_changed', async ({ roleId }) => {
    heard.push({ roleId, stored: await notes() });
  });
  return { events, heard };
}

describe('unit of work', () => {
  it('publishes its events only after its writes have committed', async () => {
    await db.exec('DELETE FROM unit_notes');
    const { events, heard } = listeningBus();
    await inUnit({ db, events }, async (unit) => {
      await unit.tx.query("INSERT INTO unit_notes VALUES ('a')");
      await unit.emit('role.members_changed', role('r1'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(heard).toEqual([]);
    });
    await events.idle();
    expect(heard).toEqual([{ roleId: 'r1', stored: ['a'] }]);
  });

  it('publishes nothing and keeps nothing when its work fails', async () => {
    await db.exec('DELETE FROM unit_notes');
    const { events, heard } = listeningBus();
    await expect(
      inUnit({ db, events }, async (unit) => {
        await unit.tx.query("INSERT INTO unit_notes VALUES ('b')");
        await unit.emit('role.members_changed', role('r2'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await events.idle();
    expect(heard).toEqual([]);
    expect(await notes()).toEqual([]);
  });

  it('runs in-transaction hooks inside the unit: their writes commit with it, and a failing hook undoes it all', async () => {
    await db.exec('DELETE FROM unit_notes');
    const { events, heard } = listeningBus();
    const stop = events.hook('role.members_changed', async (unit, { roleId }) => {
      if (roleId === 'bad') throw new Error('hook refused');
      await unit.tx.query('INSERT INTO unit_notes VALUES ($1)', [`hooked ${roleId}`]);
    });
    await inUnit({ db, events }, (unit) => unit.emit('role.members_changed', role('r3')));
    expect(await notes()).toEqual(['hooked r3']);
    await expect(
      inUnit({ db, events }, async (unit) => {
        await unit.tx.query("INSERT INTO unit_notes VALUES ('c')");
        await unit.emit('role.members_changed', role('bad'));
      }),
    ).rejects.toThrow('hook refused');
    stop();
    await events.idle();
    expect(await notes()).toEqual(['hooked r3']);
    expect(heard.map((h) => h.roleId)).toEqual(['r3']);
  });

  it('runs services bound to it as steps: a refused step is undone alone, and every event waits for the whole unit', async () => {
    await db.exec('DELETE FROM unit_notes');
    const { events, heard } = listeningBus();
    await inUnit({ db, events }, async (unit) => {
      const step = unit.bind({ db, events });
      await inUnit(step, async (inner) => {
        await inner.tx.query("INSERT INTO unit_notes VALUES ('kept')");
        await inner.emit('role.members_changed', role('kept'));
      });
      await expect(
        inUnit(step, async (inner) => {
          await inner.tx.query("INSERT INTO unit_notes VALUES ('undone')");
          await inner.emit('role.members_changed', role('undone'));
          throw new Error('step refused');
        }),
      ).rejects.toThrow('step refused');
      await events.idle();
      expect(heard).toEqual([]);
    });
    await events.idle();
    expect(await notes()).toEqual(['kept']);
    expect(heard).toEqual([{ roleId: 'kept', stored: ['kept'] }]);
  });

  it('writes its events, those of its steps included, to the outbox inside its own transaction', async () => {
    await db.exec('DELETE FROM unit_notes');
    const { events } = listeningBus();
    const written: RecordedEvent[][] = [];
    const outbox = {
      async write(tx: Parameters<Parameters<Db['transaction']>[0]>[0], recorded: readonly RecordedEvent[]) {
        written.push([...recorded]);
        await tx.query('INSERT INTO unit_notes VALUES ($1)', [`outbox ${recorded.length}`]);
      },
    };
    await inUnit({ db, events, outbox }, async (unit) => {
      await unit.emit('role.members_changed', role('o1'));
      await inUnit(unit.bind({ db, events, outbox }), (inner) => inner.emit('role.members_changed', role('o2')));
    });
    expect(written.map((batch) => batch.map((event) => (event.payload as { roleId: string }).roleId))).toEqual([
      ['o1', 'o2'],
    ]);
    expect(await notes()).toEqual(['outbox 2']);
    await expect(
      inUnit({ db, events, outbox }, async (unit) => {
        await unit.emit('role.members_changed', role('o3'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await notes()).toEqual(['outbox 2']);
    await events.idle();
  });
});
