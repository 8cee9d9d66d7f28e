import { moscowDay, tickSchedules } from '../server/src/modules/automations/automations.jobs';
import { runInSandbox } from '../server/src/modules/automations/sandbox';
import { inUnit } from '../server/src/platform/db/unit-of-work';
import { createEventBus } from '../server/src/platform/events';
import { benchDatabase, report } from './lib';

const ORGANIZATIONS = 10_000;
const ROUNDS = 5;

/**
 * The scheduler's tick over 10,000 organizations, each with a schedule due now (claim every run
 * and enqueue it as a job, in one transaction), against a bare SELECT of the due rows; then the
 * sandbox's start-up with a trivial run, per run.
 */
export async function run() {
  const database = await benchDatabase();
  const events = createEventBus({ error: () => undefined });
  try {
    await database.db.query(
      `INSERT INTO organizations (id, name) SELECT md5('org' || n)::uuid, 'Org ' || n FROM generate_series(1, $1::int) n`,
      [ORGANIZATIONS],
    );
    await database.db.query(
      `INSERT INTO automations (id, organization_id, name, trigger, trigger_config, code)
       SELECT md5('automation' || n)::uuid, md5('org' || n)::uuid, 'Daily', 'schedule', '{"time": "09:00"}', 'ctx.log(1)'
         FROM generate_series(1, $1::int) n`,
      [ORGANIZATIONS],
    );
    let tickMs = 0;
    let selectMs = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Each round a new day, so every schedule is due again.
      const now = new Date(Date.UTC(2027, 0, 1 + round, 7, 0));
      const day = moscowDay(now);
      let started = performance.now();
      const { rows } = await database.db.query(
        `SELECT id, organization_id, (($1::text || ' ' || (trigger_config->>'time') || $2::text))::timestamptz AS planned
           FROM automations WHERE trigger = 'schedule' AND enabled
            AND (($1::text || ' ' || (trigger_config->>'time') || $2::text))::timestamptz <= $3
            AND (last_scheduled_run_at IS NULL
                 OR last_scheduled_run_at < (($1::text || ' ' || (trigger_config->>'time') || $2::text))::timestamptz)`,
        [day.date, day.offset, now],
      );
      selectMs += performance.now() - started;
      if (rows.length !== ORGANIZATIONS) throw new Error(`expected ${ORGANIZATIONS} due schedules, saw ${rows.length}`);
      started = performance.now();
      const claimed = await inUnit({ db: database.db, events }, (unit) => tickSchedules(unit, now));
      tickMs += performance.now() - started;
      if (claimed !== ORGANIZATIONS) throw new Error(`expected ${ORGANIZATIONS} runs claimed, got ${claimed}`);
      await database.db.query("DELETE FROM jobs WHERE kind = 'automations.run'");
    }
    report(
      `scheduler tick over ${ORGANIZATIONS} due schedules (${(tickMs / ROUNDS).toFixed(0)} ms) vs a bare SELECT of them (${(selectMs / ROUNDS).toFixed(0)} ms)`,
      1000 / (tickMs / ROUNDS),
      1000 / (selectMs / ROUNDS),
      'ticks/s',
    );

    const runs = 200;
    await runInSandbox('ctx.log(1)', {}, {});
    const started = performance.now();
    for (let i = 0; i < runs; i++) {
      const result = await runInSandbox('ctx.log(ctx.trigger.n)', { trigger: { n: i } }, {});
      if (result.status !== 'succeeded') throw new Error(`run failed: ${result.error?.message}`);
    }
    console.log(
      `sandbox start-up and a trivial run: ${((performance.now() - started) / runs).toFixed(2)} ms per run (aim < 5 ms)`,
    );
  } finally {
    await database.drop();
  }
}
