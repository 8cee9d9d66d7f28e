import type { IncomingHttpHeaders } from 'node:http';
import type { Currency, PaymentProviderName } from '@shared/api/billing';

/** What a provider says about one of its payments. */
export interface ProviderPaymentState {
  providerPaymentId: string;
  status: 'pending' | 'succeeded' | 'canceled';
  /** Kopecks. */
  amount: number;
  currency: Currency;
}

export interface CreatePaymentInput {
  organizationId: string;
  /** Kopecks. */
  amount: number;
  currency: Currency;
  /** Where the payer comes back to once they decided. */
  returnUrl: string;
  /** Unique per organization's payment: a repeat gets the provider's first payment back. */
  idempotencyKey: string;
}

export interface CreatedPayment {
  providerPaymentId: string;
  /** The provider's page where the payer confirms the payment. */
  confirmationUrl: string;
}

/** Where a webhook came from, for providers that also check their sender's address. */
export interface WebhookSender {
  remoteAddress: string | undefined;
}

/**
 * A payment provider behind one interface: the mock one (a signed webhook of its own) and
 * YooKassa. `verifyWebhook` throws a problem for anything it does not believe, and otherwise tells
 * the payment's state as the provider vouches for it.
 */
export interface PaymentProvider {
  readonly name: PaymentProviderName;
  createPayment(input: CreatePaymentInput): Promise<CreatedPayment>;
  verifyWebhook(rawBody: Buffer, headers: IncomingHttpHeaders, sender?: WebhookSender): Promise<ProviderPaymentState>;
  getPaymentStatus(providerPaymentId: string): Promise<ProviderPaymentState>;
}
