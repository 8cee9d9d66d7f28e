import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase, testEngine } from '../../../../test/helpers/database';
import type { Db } from '../db/db';
import { createPostgresDb } from '../db/postgres';
import { inUnit } from '../db/unit-of-work';
import { createEventBus } from '../events';
import { createJobWorker, enqueueJob, findJob, type JobHandler, type JobWorker } from './jobs';

let database: TestDatabase;
let db: Db;
const events = createEventBus({ error: () => undefined });
const logger = { error: () => undefined, warn: () => undefined };

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  await db.exec('CREATE TABLE job_effects (job_id uuid, note text)');
});
afterAll(() => database.drop());

function worker(handlers: Record<string, JobHandler>, on: Db = db): JobWorker {
  return createJobWorker({
    db: on,
    events,
    logger,
    pollMs: 50,
    handlers: new Map(Object.entries(handlers)),
    retryDelaySeconds: () => 0,
  });
}

async function enqueue(kind: string, options: { uniqueKey?: string; runAfter?: Date; maxAttempts?: number } = {}) {
  const id = await inUnit({ db, events }, (unit) =>
    enqueueJob(unit, { kind, organizationId: null, payload: { note: kind }, ...options }),
  );
  return id ?? '';
}

async function effects(kind: string): Promise<string[]> {
  const { rows } = await db.query<{ job_id: string }>(
    'SELECT e.job_id FROM job_effects e JOIN jobs j ON j.id = e.job_id WHERE j.kind = $1',
    [kind],
  );
  return rows.map((row) => row.job_id);
}

const writes = (kind: string, fail?: (attempt: number) => boolean): Record<string, JobHandler> => ({
  [kind]: {
    effects: 'database',
    async run(unit, job) {
      await unit.tx.query('INSERT INTO job_effects VALUES ($1, $2)', [job.id, `attempt ${job.attempt}`]);
      if (fail?.(job.attempt)) throw new Error(`refused on attempt ${job.attempt}`);
    },
  },
});

describe('durable jobs', () => {
  it('commit a job’s writes with its completion, and undo those of a failed attempt before trying again', async () => {
    const id = await enqueue('test.retried', { maxAttempts: 5 });
    expect(await worker(writes('test.retried', (attempt) => attempt < 3)).runDue()).toBe(3);
    const { rows } = await db.query<{ note: string }>('SELECT note FROM job_effects WHERE job_id = $1', [id]);
    expect(rows.map((row) => row.note)).toEqual(['attempt 3']);
    expect(await findJob(db, id)).toMatchObject({ state: 'succeeded', attempts: 3, payload: {}, last_error: null });
  });

  it('give up after the last attempt, keeping the last error, with nothing of it written', async () => {
    const id = await enqueue('test.dead', { maxAttempts: 2 });
    await worker(writes('test.dead', () => true)).runDue();
    expect(await findJob(db, id)).toMatchObject({
      state: 'dead',
      attempts: 2,
      last_error: 'Error: refused on attempt 2',
    });
    expect(await effects('test.dead')).toEqual([]);
  });

  it('are enqueued once per unique key, only when the enqueuing unit commits, and not run before their time', async () => {
    expect(await enqueue('test.once', { uniqueKey: 'daily:2026-12-03' })).not.toBe('');
    expect(await enqueue('test.once', { uniqueKey: 'daily:2026-12-03' })).toBe('');
    await expect(
      inUnit({ db, events }, async (unit) => {
        await enqueueJob(unit, { kind: 'test.once', organizationId: null });
        throw new Error('the change was refused');
      }),
    ).rejects.toThrow('refused');
    const later = await enqueue('test.later', { runAfter: new Date(Date.now() + 60_000) });
    expect(await worker({ ...writes('test.once'), ...writes('test.later') }).runDue()).toBe(1);
    expect(await effects('test.once')).toHaveLength(1);
    expect(await findJob(db, later)).toMatchObject({ state: 'queued', attempts: 0 });
  });

  it('are drained by a started worker as soon as they are enqueued, and the worker stops cleanly', async () => {
    const running = worker(writes('test.woken'));
    running.start();
    const id = await enqueue('test.woken');
    for (let wait = 0; wait < 100 && (await findJob(db, id))?.state !== 'succeeded'; wait += 1) await sleep(20);
    expect((await findJob(db, id))?.state).toBe('succeeded');
    await running.stop();
    const after = await enqueue('test.woken');
    await sleep(150);
    expect((await findJob(db, after))?.state).toBe('queued');
  });
});

describe('durable jobs across server processes', () => {
  let other: Db;
  beforeAll(async () => {
    if (testEngine() === 'postgres') other = createPostgresDb(database.url as string, { poolMax: 3 });
  });
  afterAll(async () => {
    await other?.close();
  });

  it('never run one job twice when two instances drain the same database at once', async (context) => {
    if (testEngine() !== 'postgres') context.skip();
    const ids = await Promise.all(Array.from({ length: 40 }, () => enqueue('test.shared')));
    const [a, b] = [worker(writes('test.shared'), db), worker(writes('test.shared'), other)];
    const ran = await Promise.all([a.runDue(), b.runDue()]);
    expect(ran[0] + ran[1]).toBe(40);
    expect((await effects('test.shared')).sort()).toEqual([...ids].sort());
  });

  it('run again, once, a job whose instance died half-way, with nothing of the dead run left', async (context) => {
    if (testEngine() !== 'postgres') context.skip();
    const id = await enqueue('test.orphaned');
    let started!: () => void;
    const halfWay = new Promise<void>((resolve) => {
      started = resolve;
    });
    const dying = worker(
      {
        'test.orphaned': {
          effects: 'database',
          async run(unit, job) {
            await unit.tx.query('INSERT INTO job_effects VALUES ($1, $2)', [job.id, 'dead run']);
            await unit.tx.query("SELECT set_config('application_name', 'dying job', false)");
            started();
            await unit.tx.query('SELECT pg_sleep(30)');
          },
        },
      },
      other,
    );
    const run = dying.runDue().catch(() => 'died');
    await halfWay;
    // The instance dies: its connection ends, and PostgreSQL rolls its transaction back.
    await db.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'dying job'");
    expect(await run).toBe('died');
    expect(await worker(writes('test.orphaned')).runDue()).toBe(1);
    const { rows } = await db.query<{ note: string }>('SELECT note FROM job_effects WHERE job_id = $1', [id]);
    expect(rows.map((row) => row.note)).toEqual(['attempt 1']);
  });

  it('run an outside effect again once the lease of a runner that died is over (at least once)', async (context) => {
    if (testEngine() !== 'postgres') context.skip();
    const id = await enqueue('test.mail');
    const sent: number[] = [];
    const hanging = worker(
      { 'test.mail': { effects: 'outside', leaseSeconds: 1, run: () => new Promise(() => undefined) } },
      other,
    );
    void hanging.runDue();
    for (let wait = 0; wait < 50 && (await findJob(db, id))?.state !== 'running'; wait += 1) await sleep(20);
    const sender = worker({
      'test.mail': {
        effects: 'outside',
        async run(job) {
          sent.push(job.attempt);
        },
      },
    });
    expect(await sender.runDue()).toBe(0);
    await sleep(1_100);
    expect(await sender.runDue()).toBe(1);
    expect(sent).toEqual([2]);
    expect((await findJob(db, id))?.state).toBe('succeeded');
  });
});
