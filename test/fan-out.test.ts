import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../server/src/app';
import { createLogger } from '../server/src/platform/logging';
import { startTestApp, type TestApp, testConfig } from './helpers/app';
import { testEngine } from './helpers/database';
import { createForm, createOrg, createTask, type Member } from './helpers/factories';
import { deadPort, silentServer } from './helpers/network';
import { connectSync } from './helpers/sync-client';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether Redis answers; required where TEST_REQUIRE_REDIS=1 (CI), else the suite skips, loudly. */
async function redisAnswers(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

const available = await redisAnswers();
if (!available) {
  if (process.env.TEST_REQUIRE_REDIS === '1') throw new Error(`Redis is required but does not answer at ${REDIS_URL}`);
  console.warn(`\n[orbita tests] SKIPPING the Redis fan-out suite: no Redis answers at ${REDIS_URL}\n`);
}

let t: TestApp;
let admin: Member;
// biome-ignore lint/suspicious/noExplicitAny: form bodies are read loosely in tests.
let form: any;

beforeAll(async () => {
  if (!available) return;
  t = await startTestApp();
  admin = await createOrg(t);
  form = await createForm(admin);
});
afterAll(async () => {
  await t?.close();
});

/** Another server instance over the test database that looks for changes by itself only once a minute. */
async function instance(redisUrl: string, redisPrefix: string) {
  const config = testConfig({ dataDir: t.dataDir, syncPollMs: 60_000, redisUrl, redisPrefix });
  const app = createApp({ config, db: t.database.db, logger: createLogger(config) });
  const { url } = await app.listen();
  return { url, close: () => app.close() };
}

/** What the server at `url` says of itself (`GET /api/health`). */
async function health(url: string) {
  const response = await fetch(`${url}/api/health`);
  expect(response.status).toBe(200);
  return (await response.json()) as { status: string; redis?: { status: string } };
}

/**
 * A replica connected to `replicaOn` pulls a new task, which is retitled over REST on
 * `answeredBy`; resolves once the replica's stream has brought the new title.
 */
async function retitledAndStreamed(at: {
  replicaOn: string;
  answeredBy: string;
  title: string;
  /** Runs right before the write (starts a transaction that hides it, say). */
  before?: () => Promise<void>;
  /** Runs right after the write was answered (ends that transaction). */
  after?: () => Promise<void>;
}) {
  const client = await connectSync({ url: at.replicaOn }, admin.client.accessToken as string);
  try {
    const task = await createTask(admin, form.id, { title: 'Before' });
    await client.pullUntil('tasks', (docs) => docs.some((d) => d.id === task.id));
    await at.before?.();
    const answer = await fetch(`${at.answeredBy}/api/tasks/${task.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${admin.client.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: at.title }),
    });
    expect(answer.status).toBe(200);
    await at.after?.();
    await vi.waitFor(
      () => {
        const documents = client.streamed.filter((m) => m.collection === 'tasks').flatMap((m) => m.documents);
        expect(documents.findLast((d) => d.id === task.id)?.title).toBe(at.title);
      },
      { timeout: 10_000, interval: 50 },
    );
  } finally {
    client.close();
  }
}

describe.skipIf(!available)('server instances sharing Redis', () => {
  it('stream a change one instance answered to the replicas of another at once, not at its next poll', async () => {
    const prefix = `orbita-test-${randomUUID()}`;
    const one = await instance(REDIS_URL, prefix);
    const other = await instance(REDIS_URL, prefix);
    try {
      // Each says Redis is up.
      for (const { url } of [one, other]) {
        await expect.poll(async () => (await health(url)).redis, { timeout: 10_000 }).toEqual({ status: 'up' });
      }
      // Answered by the first instance; the replica is connected to the other.
      await retitledAndStreamed({ replicaOn: other.url, answeredBy: one.url, title: 'After' });
    } finally {
      await one.close();
      await other.close();
    }
  });

  it('stream a change announced while an older transaction hides it soon after that one ends, not at the next poll', async (context) => {
    if (testEngine() !== 'postgres') context.skip('needs a second connection: a PostgreSQL server');
    const prefix = `orbita-test-${randomUUID()}`;
    const one = await instance(REDIS_URL, prefix);
    const other = await instance(REDIS_URL, prefix);
    const older = new pg.Client({ connectionString: t.database.url });
    await older.connect();
    try {
      for (const { url } of [one, other]) {
        await expect.poll(async () => (await health(url)).redis, { timeout: 10_000 }).toEqual({ status: 'up' });
      }
      await retitledAndStreamed({
        replicaOn: other.url,
        answeredBy: one.url,
        title: 'After the report',
        // A transaction older than the write runs on: the other instance's look at the
        // announcement cannot see the write yet.
        before: async () => {
          await older.query('BEGIN');
          await older.query('SELECT pg_current_xact_id()');
        },
        after: async () => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          await older.query('COMMIT');
        },
      });
    } finally {
      await older.end();
      await one.close();
      await other.close();
    }
  });

  it('keep working alone while Redis cannot be reached: their own changes still stream at once', async () => {
    const alone = await instance(`redis://127.0.0.1:${await deadPort()}`, `orbita-test-${randomUUID()}`);
    try {
      // Redis is reported down; the server still serves.
      expect(await health(alone.url)).toMatchObject({ status: 'ok', redis: { status: 'down' } });
      await retitledAndStreamed({ replicaOn: alone.url, answeredBy: alone.url, title: 'After, alone' });
    } finally {
      await alone.close();
    }
  });

  it('close cleanly while Redis takes the connection and never answers: nothing they were waiting on is left failing', async () => {
    const hanging = await silentServer();
    const failures: unknown[] = [];
    const onRejection = (reason: unknown) => failures.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const stuck = await instance(`redis://127.0.0.1:${hanging.port}`, `orbita-test-${randomUUID()}`);
      // Connected but never ready: the subscriptions wait in the client's queue.
      expect(await health(stuck.url)).toMatchObject({ status: 'ok', redis: { status: 'down' } });
      await stuck.close();
      // The connections end once Redis lets them go.
      await hanging.close();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(failures.map(String)).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
      await hanging.close();
    }
  });
});
