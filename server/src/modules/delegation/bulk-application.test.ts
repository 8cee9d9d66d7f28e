import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { testEngine } from '../../../../test/helpers/database';
import { createForm, createMember, createOrg, type Member } from '../../../../test/helpers/factories';
import { runScript } from '../../../../test/helpers/server-process';

const TASKS = 10_000;
const onPostgres = testEngine() === 'postgres';
if (!onPostgres) {
  console.warn(
    'bulk-application.test: SKIPPED — killing a server mid-run needs a PostgreSQL server (TEST_DATABASE_URL)',
  );
}

let t: TestApp;
let admin: Member;
let anna: Member;
let boris: Member;
let dataDir: string;

beforeAll(async () => {
  if (!onPostgres) return;
  t = await startTestApp();
  admin = await createOrg(t);
  anna = await createMember(t, admin, { name: 'Anna' });
  boris = await createMember(t, admin, { name: 'Boris' });
  // Only the server process started below (and then this test, resuming) runs the jobs.
  await t.app.jobs.stop();
  dataDir = await mkdtemp(path.join(tmpdir(), 'orbita-bulk-'));
}, 60_000);
afterAll(async () => {
  if (!onPostgres) return;
  await t?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function progress(delegationId: string) {
  const { rows } = await t.database.db.query<{ state: string; applied: number; total: number | null }>(
    'SELECT state, applied, total FROM delegation_applications WHERE delegation_id = $1',
    [delegationId],
  );
  return rows[0];
}

/** Tasks with Boris as Anna's substitute, and the audit rows saying he was added so. */
async function substituted() {
  const { rows } = await t.database.db.query<{ task_id: string }>(
    `SELECT task_id FROM task_assignees WHERE user_id = $1 AND delegated_from_user_id = $2 ORDER BY task_id`,
    [boris.userId, anna.userId],
  );
  const audit = await t.database.db.query<{ task_id: string; rows: number }>(
    `SELECT task_id, count(*)::int AS rows FROM task_audit_log
      WHERE action = 'assignee_added' AND details->>'source' = 'delegation' AND details->>'userId' = $1
      GROUP BY task_id`,
    [boris.userId],
  );
  return { taskIds: rows.map((row) => row.task_id), audit: audit.rows };
}

describe('a delegation applied to 10,000 open tasks', () => {
  it.skipIf(!onPostgres)(
    'goes through them in chunks, survives the server being killed midway, and resumes with every task done once',
    async () => {
      const form = await createForm(admin, { name: 'Orders' });
      await t.database.db.query(
        `INSERT INTO tasks (id, organization_id, form_id, status_id, title)
         SELECT gen_random_uuid(), f.organization_id, f.id, s.id, 'Order ' || n
           FROM forms f JOIN form_statuses s ON s.form_id = f.id AND s.is_initial, generate_series(1, $2::int) AS n
          WHERE f.id = $1`,
        [form.id, TASKS],
      );
      await t.database.db.query(
        `INSERT INTO task_assignees (organization_id, task_id, user_id, source)
         SELECT organization_id, id, $2, 'manual' FROM tasks WHERE form_id = $1`,
        [form.id, anna.userId],
      );
      await t.database.db.query('ANALYZE tasks');
      await t.database.db.query('ANALYZE task_assignees');

      const created = await anna.client.post('/api/delegations', {
        userId: anna.userId,
        substituteUserId: boris.userId,
        formId: null,
        from: new Date(Date.now() - 60_000).toISOString(),
        to: new Date(Date.now() + 86_400_000).toISOString(),
      });
      expect(created.status).toBe(201);
      const delegationId = created.body.id as string;

      // A server process takes the job; it is killed (no shutdown) once some chunks have committed.
      const server = runScript('start', {
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: t.database.url as string,
        DATA_DIR: dataDir,
      });
      try {
        await server.listening;
        const until = Date.now() + 60_000;
        for (;;) {
          const seen = await progress(delegationId);
          if (seen && seen.applied >= 500) break;
          if (Date.now() > until) throw new Error(`no chunk committed in a minute:\n${server.output.join('\n')}`);
          await sleep(5);
        }
        server.child.kill('SIGKILL');
        await server.exited;
      } finally {
        await server.stop();
      }

      const atKill = (await progress(delegationId)) as { state: string; applied: number; total: number };
      expect(atKill.state).toBe('running');
      expect(atKill.total).toBe(TASKS);
      expect(atKill.applied).toBeLessThan(TASKS);
      expect(atKill.applied % 500).toBe(0);
      // Whole chunks only: exactly the first `applied` tasks (in id order) have the substitute.
      const { rows: firstTasks } = await t.database.db.query<{ id: string }>(
        'SELECT id FROM tasks WHERE form_id = $1 ORDER BY id LIMIT $2',
        [form.id, atKill.applied],
      );
      expect((await substituted()).taskIds).toEqual(firstTasks.map((row) => row.id));

      // Resumed (here by this process's worker, as by the next server start).
      await t.app.jobs.runDue();
      const shown = await anna.client.get(`/api/delegations/${delegationId}`);
      expect(shown.body.application).toEqual({ state: 'done', applied: TASKS, total: TASKS });
      const after = await substituted();
      expect(after.taskIds).toHaveLength(TASKS);
      expect(after.audit).toHaveLength(TASKS);
      expect(after.audit.every((row) => row.rows === 1)).toBe(true);
      const { rows: reviews } = await t.database.db.query<{ pending: number }>(
        'SELECT count(*)::int AS pending FROM task_assignees WHERE user_id = $1 AND pending_review',
        [anna.userId],
      );
      expect(reviews[0]?.pending).toBe(TASKS);
    },
    180_000,
  );
});
