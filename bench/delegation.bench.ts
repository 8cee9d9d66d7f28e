import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { benchApp, benchDatabase, postJson, registerBenchAdmin, report } from './lib';

const TASKS = 10_000;

/**
 * Bulk application of a delegation: naming a substitute for a user with 10,000 open tasks, until the
 * durable job has added the substitute to every one (chunks of 500, each with review flags, audit rows,
 * events and progress) — against a bare `INSERT … SELECT` of the same 10,000 substitute rows.
 */
export async function run() {
  const database = await benchDatabase();
  const { app, url } = await benchApp(database);
  const db = database.db;
  try {
    const { accessToken } = await registerBenchAdmin(url);
    const form = await postJson(url, '/api/forms', { name: 'Orders', fields: [] }, accessToken);
    const { rows } = await db.query<{ organization_id: string }>('SELECT organization_id FROM forms WHERE id = $1', [
      form.id,
    ]);
    const organizationId = rows[0]?.organization_id as string;
    const person = async (name: string) => {
      const id = randomUUID();
      await db.query('INSERT INTO users (id, organization_id, email, name) VALUES ($1, $2, $3, $4)', [
        id,
        organizationId,
        `${id}@example.org`,
        name,
      ]);
      return id;
    };
    /** `TASKS` open tasks with `userId` as their assignee. */
    const openTasksOf = async (userId: string) => {
      await db.query(
        `WITH made AS (
           INSERT INTO tasks (id, organization_id, form_id, status_id, title)
           SELECT gen_random_uuid(), f.organization_id, f.id, s.id, 'Order ' || n
             FROM forms f JOIN form_statuses s ON s.form_id = f.id AND s.is_initial, generate_series(1, $2::int) AS n
            WHERE f.id = $1 RETURNING id, organization_id)
         INSERT INTO task_assignees (organization_id, task_id, user_id, source)
         SELECT organization_id, id, $3, 'manual' FROM made`,
        [form.id, TASKS, userId],
      );
      await db.query('ANALYZE tasks');
      await db.query('ANALYZE task_assignees');
    };

    // Baseline: the substitute rows of another absent user's tasks, written by one statement.
    const [carl, dina] = [await person('Carl'), await person('Dina')];
    await openTasksOf(carl);
    let started = performance.now();
    await db.query(
      `INSERT INTO task_assignees (organization_id, task_id, user_id, source, delegated_from_user_id)
       SELECT organization_id, task_id, $2, 'delegation', $1 FROM task_assignees WHERE user_id = $1`,
      [carl, dina],
    );
    const bare = performance.now() - started;

    const [anna, boris] = [await person('Anna'), await person('Boris')];
    await openTasksOf(anna);
    started = performance.now();
    const delegation = await postJson(
      url,
      '/api/delegations',
      {
        userId: anna,
        substituteUserId: boris,
        formId: null,
        from: new Date(Date.now() - 60_000).toISOString(),
        to: new Date(Date.now() + 86_400_000).toISOString(),
      },
      accessToken,
    );
    for (;;) {
      const progress = await db.query<{ state: string; applied: number }>(
        'SELECT state, applied FROM delegation_applications WHERE delegation_id = $1',
        [delegation.id],
      );
      if (progress.rows[0]?.state === 'done') break;
      await sleep(2);
    }
    const ours = performance.now() - started;
    const { rows: added } = await db.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM task_assignees WHERE delegated_from_user_id = $1',
      [anna],
    );
    if (added[0]?.count !== TASKS) throw new Error(`the substitute reached ${added[0]?.count} of ${TASKS} tasks`);
    report(`Delegation applied to ${TASKS} open tasks`, TASKS / (ours / 1000), TASKS / (bare / 1000), 'tasks/s');
  } finally {
    await app.close();
    await database.drop();
  }
}
