import type { Queryable } from '../../platform/db/db';

export interface AccountRow {
  balance: string;
  threshold: string;
  currency: string;
}

export interface PaymentRow {
  id: string;
  organization_id: string;
  provider: string;
  provider_payment_id: string | null;
  status: 'pending' | 'succeeded' | 'canceled' | 'refunded';
  amount: string;
  currency: string;
  idempotency_key: string;
  confirmation_url: string | null;
  return_url: string | null;
  created_by: string | null;
  created_at: Date;
  succeeded_at: Date | null;
}

export interface LedgerRow {
  id: string;
  kind: 'payment' | 'charge' | 'adjustment';
  amount: string;
  currency: string;
  balance_after: string;
  payment_id: string | null;
  reason: string | null;
  created_at: Date;
}

export interface LedgerFilter {
  kind?: string;
  from?: string;
  to?: string;
}

const PAYMENT_COLUMNS = `id, organization_id, provider, provider_payment_id, status, amount, currency, idempotency_key,
  confirmation_url, return_url, created_by, created_at, succeeded_at`;

export async function findAccount(db: Queryable, organizationId: string): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>(
    'SELECT balance, threshold, currency FROM billing_accounts WHERE organization_id = $1',
    [organizationId],
  );
  return rows[0];
}

/** Adds `amount` to the running balance (opening the account if needed); the balance and threshold after. */
export async function addToBalance(
  db: Queryable,
  organizationId: string,
  amount: number,
  currency: string,
): Promise<AccountRow> {
  const { rows } = await db.query<AccountRow>(
    `INSERT INTO billing_accounts (organization_id, currency, balance) VALUES ($1, $3, $2)
     ON CONFLICT (organization_id) DO UPDATE SET balance = billing_accounts.balance + EXCLUDED.balance, updated_at = now()
     RETURNING balance, threshold, currency`,
    [organizationId, amount, currency],
  );
  return rows[0] as AccountRow;
}

export async function setThreshold(db: Queryable, organizationId: string, threshold: number): Promise<AccountRow> {
  const { rows } = await db.query<AccountRow>(
    `INSERT INTO billing_accounts (organization_id, threshold) VALUES ($1, $2)
     ON CONFLICT (organization_id) DO UPDATE SET threshold = EXCLUDED.threshold, updated_at = now()
     RETURNING balance, threshold, currency`,
    [organizationId, threshold],
  );
  return rows[0] as AccountRow;
}

export async function insertLedgerEntry(
  db: Queryable,
  entry: {
    id: string;
    organizationId: string;
    kind: LedgerRow['kind'];
    amount: number;
    currency: string;
    balanceAfter: number;
    paymentId: string | null;
    reason: string | null;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO billing_ledger (id, organization_id, kind, amount, currency, balance_after, payment_id, reason)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      entry.id,
      entry.organizationId,
      entry.kind,
      entry.amount,
      entry.currency,
      entry.balanceAfter,
      entry.paymentId,
      entry.reason,
    ],
  );
}

/** The sum of the organization's ledger (what the running balance must equal). */
export async function ledgerSum(db: Queryable, organizationId: string): Promise<number> {
  const { rows } = await db.query<{ sum: string }>(
    'SELECT COALESCE(sum(amount), 0)::bigint AS sum FROM billing_ledger WHERE organization_id = $1',
    [organizationId],
  );
  return Number(rows[0]?.sum ?? 0);
}

function ledgerWhere(organizationId: string, filter: LedgerFilter, params: unknown[]): string {
  params.push(organizationId);
  const clauses = [`organization_id = $${params.length}`];
  if (filter.kind) {
    params.push(filter.kind);
    clauses.push(`kind = $${params.length}`);
  }
  if (filter.from) {
    params.push(filter.from);
    clauses.push(`created_at >= $${params.length}`);
  }
  if (filter.to) {
    params.push(filter.to);
    clauses.push(`created_at < $${params.length}`);
  }
  return clauses.join(' AND ');
}

/** A page of the ledger, newest first, after the `(created_at, id)` of `after`. */
export async function listLedger(
  db: Queryable,
  organizationId: string,
  filter: LedgerFilter,
  page: { limit: number; after?: [string, string] },
): Promise<LedgerRow[]> {
  const params: unknown[] = [];
  let where = ledgerWhere(organizationId, filter, params);
  if (page.after) {
    params.push(page.after[0], page.after[1]);
    where += ` AND (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
  }
  params.push(page.limit);
  const { rows } = await db.query<LedgerRow>(
    `SELECT id, kind, amount, currency, balance_after, payment_id, reason, created_at FROM billing_ledger
     WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  return rows;
}

export async function insertPayment(
  db: Queryable,
  payment: {
    id: string;
    organizationId: string;
    provider: string;
    amount: number;
    currency: string;
    idempotencyKey: string;
    returnUrl: string;
    createdBy: string | null;
  },
): Promise<PaymentRow | undefined> {
  const { rows } = await db.query<PaymentRow>(
    `INSERT INTO billing_payments (id, organization_id, provider, amount, currency, idempotency_key, return_url, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (organization_id, idempotency_key) DO NOTHING
     RETURNING ${PAYMENT_COLUMNS}`,
    [
      payment.id,
      payment.organizationId,
      payment.provider,
      payment.amount,
      payment.currency,
      payment.idempotencyKey,
      payment.returnUrl,
      payment.createdBy,
    ],
  );
  return rows[0];
}

export async function recordProviderPayment(
  db: Queryable,
  id: string,
  providerPaymentId: string,
  confirmationUrl: string | null,
): Promise<PaymentRow> {
  const { rows } = await db.query<PaymentRow>(
    `UPDATE billing_payments SET provider_payment_id = $2, confirmation_url = $3, updated_at = now()
     WHERE id = $1 RETURNING ${PAYMENT_COLUMNS}`,
    [id, providerPaymentId, confirmationUrl],
  );
  return rows[0] as PaymentRow;
}

export async function findPaymentByKey(
  db: Queryable,
  organizationId: string,
  idempotencyKey: string,
): Promise<PaymentRow | undefined> {
  const { rows } = await db.query<PaymentRow>(
    `SELECT ${PAYMENT_COLUMNS} FROM billing_payments WHERE organization_id = $1 AND idempotency_key = $2`,
    [organizationId, idempotencyKey],
  );
  return rows[0];
}

export async function findPayment(db: Queryable, organizationId: string, id: string): Promise<PaymentRow | undefined> {
  const { rows } = await db.query<PaymentRow>(
    `SELECT ${PAYMENT_COLUMNS} FROM billing_payments WHERE organization_id = $1 AND id = $2`,
    [organizationId, id],
  );
  return rows[0];
}

/** A payment by the provider's id (webhooks: the caller names no organization). */
export async function findPaymentByProviderId(
  db: Queryable,
  provider: string,
  providerPaymentId: string,
): Promise<PaymentRow | undefined> {
  const { rows } = await db.query<PaymentRow>(
    `SELECT ${PAYMENT_COLUMNS} FROM billing_payments WHERE provider = $1 AND provider_payment_id = $2`,
    [provider, providerPaymentId],
  );
  return rows[0];
}

export async function listPayments(
  db: Queryable,
  organizationId: string,
  page: { limit: number; after?: [string, string] },
): Promise<PaymentRow[]> {
  const params: unknown[] = [organizationId];
  let where = 'organization_id = $1';
  if (page.after) {
    params.push(page.after[0], page.after[1]);
    where += ' AND (created_at, id) < ($2::timestamptz, $3::uuid)';
  }
  params.push(page.limit);
  const { rows } = await db.query<PaymentRow>(
    `SELECT ${PAYMENT_COLUMNS} FROM billing_payments WHERE ${where}
     ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  return rows;
}

/**
 * Marks a pending payment succeeded; undefined when it was not pending. Concurrent callers queue
 * on the row's lock and the later ones find it no longer pending: one of them wins.
 */
export async function markSucceeded(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<PaymentRow | undefined> {
  const { rows } = await db.query<PaymentRow>(
    `UPDATE billing_payments SET status = 'succeeded', succeeded_at = now(), updated_at = now()
     WHERE organization_id = $1 AND id = $2 AND status = 'pending' RETURNING ${PAYMENT_COLUMNS}`,
    [organizationId, id],
  );
  return rows[0];
}

export async function markCanceled(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE billing_payments SET status = 'canceled', canceled_at = now(), updated_at = now()
     WHERE organization_id = $1 AND id = $2 AND status = 'pending'`,
    [organizationId, id],
  );
  return rowCount > 0;
}

/** Pending payments created before `before`, oldest first (the reconciliation's work). */
export async function pendingPaymentsBefore(db: Queryable, before: Date, limit: number): Promise<PaymentRow[]> {
  const { rows } = await db.query<PaymentRow>(
    `SELECT ${PAYMENT_COLUMNS} FROM billing_payments
     WHERE status = 'pending' AND provider_payment_id IS NOT NULL AND created_at < $1
     ORDER BY created_at LIMIT $2`,
    [before, limit],
  );
  return rows;
}

/** The installation's secret named `name`, made from `candidate` the first time it is asked for. */
export async function installationSecret(db: Queryable, name: string, candidate: string): Promise<string> {
  await db.query('INSERT INTO installation_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name,
    candidate,
  ]);
  const { rows } = await db.query<{ value: string }>('SELECT value FROM installation_secrets WHERE name = $1', [name]);
  return (rows[0] as { value: string }).value;
}

export interface MockPaymentRow {
  provider_payment_id: string;
  organization_id: string;
  status: 'pending' | 'succeeded' | 'canceled';
  amount: string;
  currency: string;
  return_url: string | null;
}

export async function insertMockPayment(
  db: Queryable,
  payment: { providerPaymentId: string; organizationId: string; amount: number; currency: string; returnUrl: string },
): Promise<void> {
  await db.query(
    `INSERT INTO billing_mock_payments (provider_payment_id, organization_id, amount, currency, return_url)
     VALUES ($1, $2, $3, $4, $5)`,
    [payment.providerPaymentId, payment.organizationId, payment.amount, payment.currency, payment.returnUrl],
  );
}

export async function findMockPayment(db: Queryable, providerPaymentId: string): Promise<MockPaymentRow | undefined> {
  const { rows } = await db.query<MockPaymentRow>(
    `SELECT provider_payment_id, organization_id, status, amount, currency, return_url
     FROM billing_mock_payments WHERE provider_payment_id = $1`,
    [providerPaymentId],
  );
  return rows[0];
}

/** The mock provider decides a payment once: true when this call decided it. */
export async function decideMockPayment(
  db: Queryable,
  providerPaymentId: string,
  status: 'succeeded' | 'canceled',
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE billing_mock_payments SET status = $2 WHERE provider_payment_id = $1 AND status = 'pending'`,
    [providerPaymentId, status],
  );
  return rowCount > 0;
}
