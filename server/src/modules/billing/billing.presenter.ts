import type { Currency, LedgerEntry, Payment, PaymentProviderName } from '@shared/api/billing';
import type { LedgerRow, PaymentRow } from './billing.repo';

export function presentPayment(row: PaymentRow): Payment {
  return {
    id: row.id,
    status: row.status,
    amount: Number(row.amount),
    currency: row.currency as Currency,
    provider: row.provider as PaymentProviderName,
    providerPaymentId: row.provider_payment_id,
    confirmationUrl: row.status === 'pending' ? row.confirmation_url : null,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    succeededAt: row.succeeded_at?.toISOString() ?? null,
  };
}

export function presentLedgerEntry(row: LedgerRow): LedgerEntry {
  return {
    id: row.id,
    kind: row.kind,
    amount: Number(row.amount),
    currency: row.currency as Currency,
    balanceAfter: Number(row.balance_after),
    paymentId: row.payment_id,
    reason: row.reason,
    createdAt: row.created_at.toISOString(),
  };
}
