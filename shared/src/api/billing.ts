import { z } from 'zod';
import { endpoint } from './endpoint';

/** Currencies balances and payments are kept in. */
export const Currency = z.enum(['RUB']).meta({ id: 'Currency' });
export type Currency = z.infer<typeof Currency>;

/** The largest single top-up: 10 million roubles, in kopecks. */
export const PAYMENT_AMOUNT_MAX = 1_000_000_000;

/** An amount in minor units (kopecks): a whole number, never a fraction. */
const Kopecks = z.number().int('An amount in whole kopecks');

export const PaymentStatus = z.enum(['pending', 'succeeded', 'canceled', 'refunded']).meta({ id: 'PaymentStatus' });
export type PaymentStatus = z.infer<typeof PaymentStatus>;

export const PaymentProviderName = z.enum(['mock', 'yookassa']).meta({ id: 'PaymentProviderName' });
export type PaymentProviderName = z.infer<typeof PaymentProviderName>;

export const CreatePaymentRequest = z
  .object({
    amount: Kopecks.min(1, 'A top-up is at least 1 kopeck')
      .max(PAYMENT_AMOUNT_MAX, 'At most 10,000,000 ₽ at a time')
      .meta({ description: 'Kopecks (1 ₽ = 100)' }),
    currency: Currency,
  })
  .strict()
  .meta({ id: 'CreatePaymentRequest' });

/** A top-up of the organization's balance through the payment provider. */
export const Payment = z
  .object({
    id: z.uuid(),
    status: PaymentStatus,
    amount: Kopecks,
    currency: Currency,
    provider: PaymentProviderName,
    providerPaymentId: z.string().nullable(),
    /** Where the payer confirms the payment (the provider's page); null once it is decided. */
    confirmationUrl: z.string().nullable(),
    createdBy: z.uuid().nullable(),
    createdAt: z.iso.datetime(),
    succeededAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'Payment' });
export type Payment = z.infer<typeof Payment>;

export const PaymentList = z
  .object({ items: z.array(Payment), nextCursor: z.string().nullable() })
  .meta({ id: 'PaymentList' });

export const Balance = z
  .object({
    balance: Kopecks.meta({ description: 'Kopecks; the ledger’s sum' }),
    currency: Currency,
    threshold: Kopecks.meta({ description: 'Writes are blocked when the balance falls below this' }),
    billingBlocked: z.boolean(),
    provider: PaymentProviderName.nullable().meta({ description: 'The provider top-ups go through; null: none set' }),
  })
  .meta({ id: 'Balance' });
export type Balance = z.infer<typeof Balance>;

export const LedgerKind = z.enum(['payment', 'charge', 'adjustment']).meta({ id: 'LedgerKind' });
export type LedgerKind = z.infer<typeof LedgerKind>;

export const LedgerEntry = z
  .object({
    id: z.uuid(),
    kind: LedgerKind,
    amount: Kopecks.meta({ description: 'Kopecks: credits positive, debits negative' }),
    currency: Currency,
    balanceAfter: Kopecks,
    paymentId: z.uuid().nullable(),
    reason: z.string().nullable(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'LedgerEntry' });
export type LedgerEntry = z.infer<typeof LedgerEntry>;

export const LedgerList = z
  .object({ items: z.array(LedgerEntry), nextCursor: z.string().nullable() })
  .meta({ id: 'LedgerList' });

const ListLimit = z.coerce.number().int().min(1).max(200).default(50);

export const PaymentListQuery = z.object({ limit: ListLimit, cursor: z.string().max(200).optional() });

export const LedgerFilter = z.object({
  kind: LedgerKind.optional(),
  from: z.iso.datetime({ offset: true }).optional().meta({ description: 'Entries at or after this time' }),
  to: z.iso.datetime({ offset: true }).optional().meta({ description: 'Entries before this time' }),
});
export const LedgerQuery = LedgerFilter.extend({ limit: ListLimit, cursor: z.string().max(200).optional() });

/** What the mock provider's webhook carries (signed with `Orbita-Signature`). */
export const MockWebhookEvent = z
  .object({
    event: z.enum(['payment.succeeded', 'payment.canceled']),
    paymentId: z.string().min(1).max(200).meta({ description: 'The provider’s payment id' }),
    amount: Kopecks,
    currency: Currency,
  })
  .meta({ id: 'MockWebhookEvent' });
export type MockWebhookEvent = z.infer<typeof MockWebhookEvent>;

/** A YooKassa notification; only `object.id` is trusted: the payment is fetched from its API again. */
export const YookassaNotification = z
  .object({
    type: z.literal('notification'),
    event: z.string().max(100),
    object: z.object({ id: z.string().min(1).max(200) }).loose(),
  })
  .loose()
  .meta({ id: 'YookassaNotification' });

export const WebhookResult = z
  .object({ applied: z.boolean().meta({ description: 'False when the delivery changed nothing (a repeat)' }) })
  .meta({ id: 'WebhookResult' });

export const MockCheckoutDecision = z
  .object({ token: z.string().min(1).max(200), outcome: z.enum(['succeeded', 'canceled']) })
  .meta({ id: 'MockCheckoutDecision' });

export const MockCheckoutResult = z.object({ returnUrl: z.string().nullable() }).meta({ id: 'MockCheckoutResult' });

/** The header carrying the mock provider's webhook signature: `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const MOCK_SIGNATURE_HEADER = 'Orbita-Signature';

const PaymentParams = z.object({ paymentId: z.uuid() });
const CheckoutParams = z.object({ providerPaymentId: z.string().regex(/^mock_[A-Za-z0-9_-]{1,64}$/) });

/** Billing: balance, ledger and top-ups (Finance module access); providers' webhooks (public). */
export const billingApi = {
  getBalance: endpoint({
    method: 'get',
    path: '/api/billing/balance',
    operationId: 'getBalance',
    summary: 'The organization’s balance, threshold and block',
    tags: ['billing'],
    responses: { 200: { description: 'Balance', schema: Balance } },
  }),
  listLedger: endpoint({
    method: 'get',
    path: '/api/billing/ledger',
    operationId: 'listLedger',
    summary: 'The ledger, newest first: payments, charges and adjustments',
    tags: ['billing'],
    request: { query: LedgerQuery },
    responses: { 200: { description: 'A page of entries', schema: LedgerList } },
  }),
  exportLedger: endpoint({
    method: 'get',
    path: '/api/billing/ledger/export',
    operationId: 'exportLedger',
    summary: 'The ledger as CSV (same filters as the list), amounts in roubles with two decimals',
    tags: ['billing'],
    request: { query: LedgerFilter },
    responses: { 200: { description: 'CSV', contentType: 'text/csv; charset=utf-8' } },
  }),
  createPayment: endpoint({
    method: 'post',
    path: '/api/billing/payments',
    operationId: 'createPayment',
    summary: 'Start a top-up: the payer confirms it at `confirmationUrl`',
    description:
      'Send an `Idempotency-Key` header (1–200 characters): a repeat with the same key returns the first payment. ' +
      'The amount is whole kopecks, at least 1.',
    tags: ['billing'],
    request: { body: CreatePaymentRequest },
    responses: {
      201: { description: 'The payment', schema: Payment },
      200: { description: 'The payment made earlier with this idempotency key', schema: Payment },
    },
  }),
  listPayments: endpoint({
    method: 'get',
    path: '/api/billing/payments',
    operationId: 'listPayments',
    summary: 'Payments, newest first',
    tags: ['billing'],
    request: { query: PaymentListQuery },
    responses: { 200: { description: 'A page of payments', schema: PaymentList } },
  }),
  getPayment: endpoint({
    method: 'get',
    path: '/api/billing/payments/:paymentId',
    operationId: 'getPayment',
    summary: 'One payment',
    tags: ['billing'],
    request: { params: PaymentParams },
    responses: { 200: { description: 'The payment', schema: Payment } },
  }),
  confirmTestPayment: endpoint({
    method: 'post',
    path: '/api/billing/payments/:paymentId/confirm-test',
    operationId: 'confirmTestPayment',
    summary: 'Succeed a pending payment at once (the mock provider only; 409 with any other)',
    tags: ['billing'],
    request: { params: PaymentParams },
    responses: { 200: { description: 'The payment', schema: Payment } },
  }),
  mockWebhook: endpoint({
    method: 'post',
    path: '/api/billing/webhooks/mock',
    operationId: 'mockWebhook',
    summary: 'The mock provider’s webhook (public, signed)',
    description:
      '`Orbita-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" with the installation’s secret>`; ' +
      'a timestamp more than 300 s away is refused. Deliveries are idempotent.',
    tags: ['billing'],
    request: { body: MockWebhookEvent },
    responses: { 200: { description: 'Taken', schema: WebhookResult } },
  }),
  yookassaWebhook: endpoint({
    method: 'post',
    path: '/api/billing/webhooks/yookassa',
    operationId: 'yookassaWebhook',
    summary: 'YooKassa’s notifications (public): the payment is fetched from its API to be believed',
    tags: ['billing'],
    request: { body: YookassaNotification },
    responses: { 200: { description: 'Taken', schema: WebhookResult } },
  }),
  mockCheckoutPage: endpoint({
    method: 'get',
    path: '/api/billing/mock/checkout/:providerPaymentId',
    operationId: 'mockCheckoutPage',
    summary: 'The mock provider’s confirmation page (Pay / Cancel)',
    tags: ['billing'],
    request: { params: CheckoutParams, query: z.object({ token: z.string().min(1).max(200) }) },
    responses: { 200: { description: 'HTML page', contentType: 'text/html; charset=utf-8' } },
  }),
  mockCheckoutScript: endpoint({
    method: 'get',
    path: '/api/billing/mock/checkout.js',
    operationId: 'mockCheckoutScript',
    summary: 'The script of the mock confirmation page',
    tags: ['billing'],
    responses: { 200: { description: 'JavaScript', contentType: 'text/javascript; charset=utf-8' } },
  }),
  mockCheckoutDecide: endpoint({
    method: 'post',
    path: '/api/billing/mock/checkout/:providerPaymentId',
    operationId: 'mockCheckoutDecide',
    summary: 'The payer’s choice on the mock page: the mock provider then calls its webhook',
    tags: ['billing'],
    request: { params: CheckoutParams, body: MockCheckoutDecision },
    responses: { 200: { description: 'Where to go back to', schema: MockCheckoutResult } },
  }),
};
