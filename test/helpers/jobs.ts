import { setTimeout as sleep } from 'node:timers/promises';
import type { TestApp } from './app';

/**
 * Waits until the app's durable jobs that are due have run (e-mails sent, say): what a request
 * enqueued is done when this resolves.
 */
export async function jobsDone(t: Pick<TestApp, 'database'>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await t.database.db.query<{ pending: string }>(
      `SELECT count(*) AS pending FROM jobs WHERE state IN ('queued', 'running') AND run_after <= now()`,
    );
    if (Number(rows[0]?.pending ?? 0) === 0) return;
    if (Date.now() > until) throw new Error(`${rows[0]?.pending} durable jobs still pending after ${timeoutMs} ms`);
    await sleep(10);
  }
}
