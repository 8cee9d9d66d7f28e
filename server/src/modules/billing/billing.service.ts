import type { IncomingHttpHeaders } from 'node:http';
import type { Balance, Currency, LedgerEntry, LedgerKind, Payment, PaymentProviderName } from '@shared/api/billing';
import type { AuthContext } from '../../platform/auth/auth-context';
import type { Queryable } from '../../platform/db/db';
import { inUnit, type UnitDeps } from '../../platform/db/unit-of-work';
import { decodeCursor, encodeCursor } from '../../platform/http/cursor';
import { Problem } from '../../platform/http/problem';
import { newId } from '../../platform/ids';
import type { Logger } from '../../platform/logging';
import * as organization from '../identity/organization.service';
import { presentLedgerEntry, presentPayment } from './billing.presenter';
import * as repo from './billing.repo';
import type { PaymentProvider, ProviderPaymentState, WebhookSender } from './providers/provider';

export interface BillingDeps extends UnitDeps {
  logger: Pick<Logger, 'warn' | 'info' | 'error'>;
  /** The provider new payments go through; undefined when none is configured (production without one). */
  provider: PaymentProvider | undefined;
  /** Every provider payments may have been made with, by name (webhooks and polls of older payments). */
  providers: ReadonlyMap<PaymentProviderName, PaymentProvider>;
}

const DEFAULT_CURRENCY: Currency = 'RUB';

const paymentNotFound = () => Problem.of('not_found', 'No payment with this id in your organization.');

function providerOf(deps: BillingDeps, name: string): PaymentProvider {
  const provider = deps.providers.get(name as PaymentProviderName);
  if (!provider) throw Problem.of('service_unavailable', `The payment provider ${name} is not configured here.`);
  return provider;
}

/** The balance, threshold and block of the caller's organization. */
export async function getBalance(deps: BillingDeps, auth: Pick<AuthContext, 'organizationId'>): Promise<Balance> {
  const account = await repo.findAccount(deps.db, auth.organizationId);
  return {
    balance: Number(account?.balance ?? 0),
    currency: (account?.currency as Currency | undefined) ?? DEFAULT_CURRENCY,
    threshold: Number(account?.threshold ?? 0),
    billingBlocked: await organization.isBillingBlocked(deps.db, auth.organizationId),
    provider: deps.provider?.name ?? null,
  };
}

/**
 * Appends an entry to the organization's ledger and moves its running balance by the same amount,
 * in the caller's transaction; the balance and threshold after.
 */
async function appendToLedger(
  tx: Queryable,
  entry: {
    organizationId: string;
    kind: LedgerKind;
    amount: number;
    currency: Currency;
    paymentId?: string;
    reason?: string;
  },
): Promise<{ balance: number; threshold: number }> {
  const account = await repo.addToBalance(tx, entry.organizationId, entry.amount, entry.currency);
  const balance = Number(account.balance);
  await repo.insertLedgerEntry(tx, {
    id: newId(),
    organizationId: entry.organizationId,
    kind: entry.kind,
    amount: entry.amount,
    currency: entry.currency,
    balanceAfter: balance,
    paymentId: entry.paymentId ?? null,
    reason: entry.reason ?? null,
  });
  return { balance, threshold: Number(account.threshold) };
}

/** The sum of the organization's ledger (tests compare it with the running balance). */
export function ledgerSum(deps: Pick<UnitDeps, 'db'>, organizationId: string): Promise<number> {
  return repo.ledgerSum(deps.db, organizationId);
}

type LedgerQuery = { kind?: LedgerKind; from?: string; to?: string; limit: number; cursor?: string };

function pageAfter(cursor: string | undefined): [string, string] | undefined {
  const key = decodeCursor(cursor);
  return key ? [String(key[0]), String(key[1])] : undefined;
}

export async function listLedger(deps: BillingDeps, auth: AuthContext, query: LedgerQuery) {
  const rows = await repo.listLedger(deps.db, auth.organizationId, query, {
    limit: query.limit + 1,
    after: pageAfter(query.cursor),
  });
  const items = rows.slice(0, query.limit);
  const last = items.at(-1);
  return {
    items: items.map(presentLedgerEntry),
    nextCursor: rows.length > query.limit && last ? encodeCursor([last.created_at.toISOString(), last.id]) : null,
  };
}

/** Every entry of the ledger matching the filter, newest first, for an export. */
export async function ledgerForExport(
  deps: BillingDeps,
  auth: AuthContext,
  filter: { kind?: LedgerKind; from?: string; to?: string },
): Promise<LedgerEntry[]> {
  const entries: LedgerEntry[] = [];
  let after: [string, string] | undefined;
  for (;;) {
    const rows = await repo.listLedger(deps.db, auth.organizationId, filter, { limit: 1000, after });
    entries.push(...rows.map(presentLedgerEntry));
    const last = rows.at(-1);
    if (rows.length < 1000 || !last) return entries;
    after = [last.created_at.toISOString(), last.id];
  }
}

export async function listPayments(deps: BillingDeps, auth: AuthContext, query: { limit: number; cursor?: string }) {
  const rows = await repo.listPayments(deps.db, auth.organizationId, {
    limit: query.limit + 1,
    after: pageAfter(query.cursor),
  });
  const items = rows.slice(0, query.limit);
  const last = items.at(-1);
  return {
    items: items.map(presentPayment),
    nextCursor: rows.length > query.limit && last ? encodeCursor([last.created_at.toISOString(), last.id]) : null,
  };
}

export async function getPayment(deps: BillingDeps, auth: AuthContext, paymentId: string): Promise<Payment> {
  const row = await repo.findPayment(deps.db, auth.organizationId, paymentId);
  if (!row) throw paymentNotFound();
  return presentPayment(row);
}

/**
 * Starts a top-up through the configured provider. A repeat of an idempotency key returns the
 * payment first made with it (`created: false`); a key reused for another amount is refused.
 */
export async function createPayment(
  deps: BillingDeps,
  auth: AuthContext,
  input: { amount: number; currency: Currency; idempotencyKey: string; returnUrl: string },
): Promise<{ payment: Payment; created: boolean }> {
  const provider = deps.provider;
  if (!provider) {
    throw Problem.of(
      'service_unavailable',
      'No payment provider is configured on this server: its operator sets BILLING_PROVIDER.',
    );
  }
  const earlier = await repo.findPaymentByKey(deps.db, auth.organizationId, input.idempotencyKey);
  if (earlier) return { payment: repeatOf(earlier, input), created: false };
  const inserted = await repo.insertPayment(deps.db, {
    id: newId(),
    organizationId: auth.organizationId,
    provider: provider.name,
    amount: input.amount,
    currency: input.currency,
    idempotencyKey: input.idempotencyKey,
    returnUrl: input.returnUrl,
    createdBy: auth.userId,
  });
  if (!inserted) {
    // Another request with the same key won the insert just now.
    const winner = await repo.findPaymentByKey(deps.db, auth.organizationId, input.idempotencyKey);
    if (!winner) throw Problem.of('conflict', 'The payment could not be created; send the request again.');
    return { payment: repeatOf(winner, input), created: false };
  }
  // The provider is asked outside any transaction; its own idempotence key makes a retry safe.
  const created = await provider.createPayment({
    organizationId: auth.organizationId,
    amount: input.amount,
    currency: input.currency,
    returnUrl: `${input.returnUrl}${input.returnUrl.includes('?') ? '&' : '?'}payment=${inserted.id}`,
    idempotencyKey: input.idempotencyKey,
  });
  const row = await repo.recordProviderPayment(
    deps.db,
    inserted.id,
    created.providerPaymentId,
    created.confirmationUrl,
  );
  return { payment: presentPayment(row), created: true };
}

function repeatOf(row: repo.PaymentRow, input: { amount: number; currency: Currency }): Payment {
  if (Number(row.amount) !== input.amount || row.currency !== input.currency) {
    throw Problem.of(
      'idempotency_key_reused',
      'This Idempotency-Key was used for a payment of another amount. Send a new key for a new payment.',
    );
  }
  return presentPayment(row);
}

/**
 * Applies a payment's success once, whatever delivers it: the payment moves from pending to
 * succeeded under its row lock, the ledger is credited and the organization's block cleared, all in
 * one transaction. False when it was applied already (or is no longer pending).
 */
async function applySuccess(tx: Queryable, payment: repo.PaymentRow): Promise<boolean> {
  const marked = await repo.markSucceeded(tx, payment.organization_id, payment.id);
  if (!marked) return false;
  await appendToLedger(tx, {
    organizationId: payment.organization_id,
    kind: 'payment',
    amount: Number(payment.amount),
    currency: payment.currency as Currency,
    paymentId: payment.id,
  });
  await organization.setBillingBlocked(tx, payment.organization_id, false);
  return true;
}

/**
 * Takes what a provider vouches for about one of its payments (a webhook, a status poll): a
 * success is applied once, a cancellation recorded. An unknown payment or one whose amount differs
 * is refused and logged.
 */
export async function applyProviderState(
  deps: BillingDeps,
  provider: PaymentProviderName,
  state: ProviderPaymentState,
): Promise<{ applied: boolean }> {
  return inUnit(deps, async ({ tx }) => {
    const payment = await repo.findPaymentByProviderId(tx, provider, state.providerPaymentId);
    if (!payment) {
      deps.logger.warn(
        { provider, providerPaymentId: state.providerPaymentId },
        'payment event for an unknown payment',
      );
      throw Problem.of('not_found', 'No payment with this provider id.');
    }
    if (state.status === 'pending') return { applied: false };
    if (Number(payment.amount) !== state.amount || payment.currency !== state.currency) {
      deps.logger.warn(
        { provider, paymentId: payment.id, expected: payment.amount, got: state.amount, currency: state.currency },
        'payment event with a mismatched amount refused',
      );
      throw Problem.of('conflict', 'The amount does not match the payment’s; nothing was credited.');
    }
    if (state.status === 'canceled') {
      return { applied: await repo.markCanceled(tx, payment.organization_id, payment.id) };
    }
    return { applied: await applySuccess(tx, payment) };
  });
}

/** A provider's webhook: verified by the provider (signature, or a fetch from its API), then applied. */
export async function receiveWebhook(
  deps: BillingDeps,
  providerName: PaymentProviderName,
  rawBody: Buffer,
  headers: IncomingHttpHeaders,
  sender: WebhookSender,
): Promise<{ applied: boolean }> {
  const provider = providerOf(deps, providerName);
  const state = await provider.verifyWebhook(rawBody, headers, sender);
  return applyProviderState(deps, providerName, state);
}

/** Succeeds a pending mock payment at once (tests and demonstrations); refused for other providers. */
export async function confirmTestPayment(deps: BillingDeps, auth: AuthContext, paymentId: string): Promise<Payment> {
  const payment = await repo.findPayment(deps.db, auth.organizationId, paymentId);
  if (!payment) throw paymentNotFound();
  if (payment.provider !== 'mock') {
    throw Problem.of(
      'mock_provider_only',
      `This payment goes through ${payment.provider}; only mock payments can be confirmed without the provider.`,
    );
  }
  if (payment.status === 'canceled' || payment.status === 'refunded') {
    throw Problem.of('conflict', `The payment is ${payment.status}; it cannot succeed any more.`);
  }
  await inUnit(deps, async ({ tx }) => {
    if (payment.provider_payment_id) await repo.decideMockPayment(tx, payment.provider_payment_id, 'succeeded');
    await applySuccess(tx, payment);
  });
  return getPayment(deps, auth, paymentId);
}

/** Pending payments older than this are asked about by the reconciliation. */
export const RECONCILE_AFTER_MS = 15 * 60_000;

/**
 * The reconciliation: asks the provider about payments still pending after 15 minutes and
 * applies what its webhook did not deliver. How many changed.
 */
export async function reconcilePendingPayments(deps: BillingDeps, now: Date): Promise<number> {
  const pending = await repo.pendingPaymentsBefore(deps.db, new Date(now.getTime() - RECONCILE_AFTER_MS), 200);
  let changed = 0;
  for (const payment of pending) {
    try {
      const provider = providerOf(deps, payment.provider);
      const state = await provider.getPaymentStatus(payment.provider_payment_id as string);
      if ((await applyProviderState(deps, provider.name, state)).applied) changed += 1;
    } catch (error) {
      deps.logger.warn({ err: error, paymentId: payment.id }, 'could not reconcile a pending payment');
    }
  }
  return changed;
}

/** The operator's tools (`npm run billing`): each names the organization by id. */
export const operator = {
  /** Adds `amount` kopecks (negative: takes away) with a reason; blocks when the balance falls below the threshold. */
  async adjust(deps: UnitDeps, organizationId: string, amount: number, reason: string) {
    return inUnit(deps, async ({ tx }) => {
      const after = await appendToLedger(tx, {
        organizationId,
        kind: 'adjustment',
        amount,
        currency: DEFAULT_CURRENCY,
        reason,
      });
      const blocked = after.balance < after.threshold;
      if (blocked) await organization.setBillingBlocked(tx, organizationId, true);
      return { ...after, blocked };
    });
  },
  async setBlocked(deps: UnitDeps, organizationId: string, blocked: boolean) {
    return inUnit(deps, ({ tx }) => organization.setBillingBlocked(tx, organizationId, blocked));
  },
  /** Sets the threshold (kopecks); blocks at once when the balance is already below it. */
  async setThreshold(deps: UnitDeps, organizationId: string, threshold: number) {
    return inUnit(deps, async ({ tx }) => {
      const account = await repo.setThreshold(tx, organizationId, threshold);
      const blocked = Number(account.balance) < threshold;
      if (blocked) await organization.setBillingBlocked(tx, organizationId, true);
      return { balance: Number(account.balance), threshold, blocked };
    });
  },
  findOrganizations: (deps: Pick<UnitDeps, 'db'>, reference: string) =>
    organization.findOrganizationsByReference(deps.db, reference),
};
