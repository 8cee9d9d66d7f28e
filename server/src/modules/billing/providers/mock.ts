import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { type Currency, MOCK_SIGNATURE_HEADER, MockWebhookEvent } from '@shared/api/billing';
import type { Queryable } from '../../../platform/db/db';
import { Problem } from '../../../platform/http/problem';
import { parseRequestBody } from '../../../platform/http/routes';
import * as repo from '../billing.repo';
import type { CreatedPayment, CreatePaymentInput, PaymentProvider, ProviderPaymentState } from './provider';

/** How far a webhook's timestamp may be from now. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const SECRET_NAME = 'billing_mock_webhook_secret';

/** The installation's mock webhook secret: generated on first use and kept in the database. */
export function mockWebhookSecret(db: Queryable): Promise<string> {
  return repo.installationSecret(db, SECRET_NAME, randomBytes(32).toString('hex'));
}

function hmacHex(secret: string, message: Buffer): string {
  return createHmac('sha256', secret).update(message).digest('hex');
}

/** `Orbita-Signature` of a body at unix time `t`: `t=<t>,v1=<hex HMAC-SHA256 of "t.body">`. */
export function signMockWebhook(secret: string, rawBody: Buffer | string, t: number): string {
  const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody, 'utf8');
  return `t=${t},v1=${hmacHex(secret, Buffer.concat([Buffer.from(`${t}.`), body]))}`;
}

const refused = (detail: string) => Problem.of('invalid_signature', detail);

/** Checks a signature over the raw bytes, in constant time, within the tolerance; throws a problem otherwise. */
export function verifyMockSignature(secret: string, rawBody: Buffer, header: string | undefined, nowSeconds: number) {
  if (!header) throw refused(`The ${MOCK_SIGNATURE_HEADER} header is missing.`);
  let t: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2);
    if (key === 't') t = value;
    else if (key === 'v1' && value) signatures.push(value);
  }
  if (!t || !/^\d{1,12}$/.test(t) || signatures.length === 0) {
    throw refused(`${MOCK_SIGNATURE_HEADER} must be t=<unix seconds>,v1=<hex HMAC-SHA256>.`);
  }
  if (Math.abs(nowSeconds - Number(t)) > SIGNATURE_TOLERANCE_SECONDS) {
    throw refused(`The signature's timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} seconds away from now.`);
  }
  const expected = Buffer.from(hmacHex(secret, Buffer.concat([Buffer.from(`${t}.`), rawBody])), 'hex');
  const matches = signatures.some((signature) => {
    const given = Buffer.from(signature, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw refused('The signature does not match the body.');
}

/** The token that lets the payer open a mock payment's confirmation page. */
export function checkoutToken(secret: string, providerPaymentId: string): string {
  return createHmac('sha256', secret).update(`checkout.${providerPaymentId}`).digest('base64url');
}

export function checkoutTokenMatches(secret: string, providerPaymentId: string, token: string): boolean {
  const expected = Buffer.from(checkoutToken(secret, providerPaymentId));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function state(row: repo.MockPaymentRow): ProviderPaymentState {
  return {
    providerPaymentId: row.provider_payment_id,
    status: row.status,
    amount: Number(row.amount),
    currency: row.currency as Currency,
  };
}

/**
 * The mock provider: payments are confirmed on a page our own server serves, which then calls the
 * signed webhook as a provider would; its side of each payment is kept in `billing_mock_payments`.
 */
export function mockProvider(db: Queryable, now: () => number = Date.now): PaymentProvider {
  // Made once per installation and never changed: read once per process.
  let secret: Promise<string> | undefined;
  const currentSecret = () => {
    secret ??= mockWebhookSecret(db).catch((error) => {
      secret = undefined;
      throw error;
    });
    return secret;
  };
  return {
    name: 'mock',
    async createPayment(input: CreatePaymentInput): Promise<CreatedPayment> {
      const providerPaymentId = `mock_${randomBytes(12).toString('hex')}`;
      await repo.insertMockPayment(db, { providerPaymentId, ...input });
      const secret = await currentSecret();
      // The page lives on the server the payer returns to.
      const origin = new URL(input.returnUrl).origin;
      const token = checkoutToken(secret, providerPaymentId);
      return {
        providerPaymentId,
        confirmationUrl: `${origin}/api/billing/mock/checkout/${providerPaymentId}?token=${token}`,
      };
    },
    async verifyWebhook(rawBody: Buffer, headers: IncomingHttpHeaders): Promise<ProviderPaymentState> {
      const header = headers[MOCK_SIGNATURE_HEADER.toLowerCase()];
      verifyMockSignature(
        await currentSecret(),
        rawBody,
        Array.isArray(header) ? header.join(',') : header,
        Math.floor(now() / 1000),
      );
      const event = parseRequestBody(MockWebhookEvent, rawBody);
      return {
        providerPaymentId: event.paymentId,
        status: event.event === 'payment.succeeded' ? 'succeeded' : 'canceled',
        amount: event.amount,
        currency: event.currency,
      };
    },
    async getPaymentStatus(providerPaymentId: string): Promise<ProviderPaymentState> {
      const row = await repo.findMockPayment(db, providerPaymentId);
      if (!row) throw Problem.of('not_found', 'The mock provider has no such payment.');
      return state(row);
    },
  };
}
