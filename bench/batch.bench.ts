import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { benchApp, benchDatabase, postJson, registerBenchAdmin, report, throughput } from './lib';

const BATCH = 100;

/**
 * Batch creation: `POST /api/forms/:formId/tasks/batch` with 100 tasks (validation of every value,
 * audit rows, assignee sync, the answer, an idempotency key per chunk) against a bare multi-row
 * `INSERT` of the same 100 rows through a raw `pg` pool.
 */
export async function run() {
  const database = await benchDatabase();
  const { app, url } = await benchApp(database);
  const rounds = 20;
  const raw = database.url ? new pg.Pool({ connectionString: database.url, max: 1 }) : undefined;
  try {
    const registered = await registerBenchAdmin(url);
    const auth = { Authorization: `Bearer ${registered.accessToken}` };
    const form = await postJson(
      url,
      '/api/forms',
      {
        name: 'Meter readings',
        fields: [
          { name: 'Amount', type: 'number' },
          { name: 'Note', type: 'text' },
          { name: 'Due', type: 'date' },
        ],
      },
      auth,
    );
    const me = (await fetch(`${url}/api/auth/me`, { headers: auth }).then((r) => r.json())) as {
      user: { id: string };
      organization: { id: string };
    };
    const organizationId: string = me.organization.id;
    const userId: string = me.user.id;
    const statusId: string = form.statuses.find((s: { initial: boolean }) => s.initial).id;
    const [amount, note, due] = form.fields.map((f: { id: string }) => f.id) as [string, string, string];
    const tasks = Array.from({ length: BATCH }, (_, i) => ({
      title: `Reading ${i + 1} — счётчик №${i + 1}`,
      description: `Meter ${i + 1}, entrance ${(i % 6) + 1}`,
      fields: { [amount]: String(1000 + i * 3.25), [note]: `note ${i + 1}`, [due]: '2025-06-30' },
    }));

    const viaApi = () =>
      postJson(url, `/api/forms/${form.id}/tasks/batch`, { tasks }, { ...auth, 'Idempotency-Key': randomUUID() });

    const columns = 8;
    const values = tasks
      .map((_, row) => `(${Array.from({ length: columns }, (_, c) => `$${row * columns + c + 1}`).join(', ')})`)
      .join(', ');
    const sql = `INSERT INTO tasks (id, organization_id, form_id, status_id, title, description, fields, created_by) VALUES ${values}`;
    const bare = () => {
      const params = tasks.flatMap((task) => [
        randomUUID(),
        organizationId,
        form.id,
        statusId,
        task.title,
        task.description,
        JSON.stringify(task.fields),
        userId,
      ]);
      return raw ? raw.query(sql, params) : database.db.query(sql, params);
    };

    await throughput(3, 1, bare);
    const baseline = (await throughput(rounds, 1, bare)) * BATCH;
    await throughput(3, 1, viaApi);
    const ours = (await throughput(rounds, 1, viaApi)) * BATCH;
    report(
      `POST /api/forms/:formId/tasks/batch (${rounds} × ${BATCH}) vs a bare multi-row INSERT`,
      ours,
      baseline,
      'tasks/s',
    );
  } finally {
    await raw?.end();
    await app.close();
    await database.drop();
  }
}
