import { randomUUID } from 'node:crypto';
import { MOCK_SIGNATURE_HEADER } from '@shared/api/billing';
import { mockWebhookSecret, signMockWebhook } from '../server/src/modules/billing/providers/mock';
import { benchApp, benchDatabase, postJson, registerBenchAdmin, report, throughput } from './lib';

const PAYMENTS = 5_000;
const DELIVERIES = 2 * PAYMENTS;
const CONCURRENCY = 10;
const AMOUNT = 10_000;

/**
 * Applying webhook deliveries: 10,000 signed mock deliveries over HTTP for 5,000 pending payments
 * (each delivered twice, the second a duplicate that credits nothing), each verified on its raw
 * bytes and applied under the payment's row lock with its ledger entry and running balance — against
 * 10,000 bare ledger INSERTs through the same pool, at the same concurrency.
 */
export async function run() {
  const database = await benchDatabase();
  const { app, url } = await benchApp(database);
  const db = database.db;
  try {
    const { accessToken } = await registerBenchAdmin(url);
    const me = await fetch(`${url}/api/auth/me`, { headers: { Authorization: `Bearer ${accessToken}` } });
    const organizationId = ((await me.json()) as { organization: { id: string } }).organization.id;
    await db.query(
      `INSERT INTO billing_payments (id, organization_id, provider, provider_payment_id, amount, currency, idempotency_key)
       SELECT gen_random_uuid(), $1, 'mock', 'mock_bench_' || n, $2, 'RUB', 'bench-' || n FROM generate_series(1, $3::int) AS n`,
      [organizationId, AMOUNT, PAYMENTS],
    );
    const secret = await mockWebhookSecret(db);

    // Baseline: bare ledger rows, one INSERT each.
    let written = 0;
    const bare = await throughput(DELIVERIES, CONCURRENCY, () => {
      written += 1;
      return db.query(
        `INSERT INTO billing_ledger (id, organization_id, kind, amount, currency, balance_after, reason)
         VALUES ($1, $2, 'adjustment', 1, 'RUB', $3, 'bench')`,
        [randomUUID(), organizationId, written],
      );
    });
    await db.query(`DELETE FROM billing_ledger WHERE reason = 'bench'`);

    let sent = 0;
    const ours = await throughput(DELIVERIES, CONCURRENCY, async () => {
      const n = (sent % PAYMENTS) + 1;
      sent += 1;
      const body = JSON.stringify({
        event: 'payment.succeeded',
        paymentId: `mock_bench_${n}`,
        amount: AMOUNT,
        currency: 'RUB',
      });
      const signature = signMockWebhook(secret, body, Math.floor(Date.now() / 1000));
      await postJson(url, '/api/billing/webhooks/mock', JSON.parse(body), { [MOCK_SIGNATURE_HEADER]: signature });
    });
    const { rows } = await db.query<{ count: number; balance: string }>(
      `SELECT (SELECT count(*)::int FROM billing_ledger WHERE organization_id = $1 AND kind = 'payment') AS count,
              (SELECT balance FROM billing_accounts WHERE organization_id = $1) AS balance`,
      [organizationId],
    );
    if (rows[0]?.count !== PAYMENTS || Number(rows[0]?.balance) !== PAYMENTS * AMOUNT) {
      throw new Error(
        `credited ${rows[0]?.count} payments (balance ${rows[0]?.balance}); expected ${PAYMENTS} once each`,
      );
    }
    report(`${DELIVERIES} webhook deliveries applied (half duplicates)`, ours, bare, 'deliveries/s');
  } finally {
    await app.close();
    await database.drop();
  }
}
