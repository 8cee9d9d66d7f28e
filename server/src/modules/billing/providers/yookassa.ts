import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { BlockList, isIPv6 } from 'node:net';
import { type Currency, YookassaNotification } from '@shared/api/billing';
import { z } from 'zod';
import { Problem } from '../../../platform/http/problem';
import { parseRequestBody } from '../../../platform/http/routes';
import type {
  CreatedPayment,
  CreatePaymentInput,
  PaymentProvider,
  ProviderPaymentState,
  WebhookSender,
} from './provider';

export interface YookassaOptions {
  shopId: string;
  secretKey: string;
  /** The API's base address, e.g. `https://api.yookassa.ru/v3` (a local fake in tests). */
  apiUrl: string;
  /** CIDR ranges notifications may come from; empty: any sender (the payment is re-fetched anyway). */
  notificationIps: readonly string[];
}

/** Kopecks as YooKassa writes amounts: a decimal string with two places (12345 → "123.45"). */
export function kopecksToValue(kopecks: number): string {
  const whole = Math.trunc(kopecks / 100);
  const cents = Math.abs(kopecks % 100);
  return `${whole}.${String(cents).padStart(2, '0')}`;
}

/** A YooKassa amount string as kopecks, without floating point ("123.4" → 12340). */
export function valueToKopecks(value: string): number {
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(value);
  if (!match) throw new Error(`Not an amount: ${value}`);
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

const ApiPayment = z
  .object({
    id: z.string(),
    status: z.enum(['pending', 'waiting_for_capture', 'succeeded', 'canceled']),
    amount: z.object({ value: z.string(), currency: z.string() }),
    confirmation: z.object({ type: z.string(), confirmation_url: z.string().optional() }).loose().optional(),
  })
  .loose();

function blockListOf(ranges: readonly string[]): BlockList | undefined {
  if (ranges.length === 0) return undefined;
  const list = new BlockList();
  for (const range of ranges) {
    const [address, prefix] = range.split('/');
    const type = isIPv6(address as string) ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address as string, type);
    else list.addSubnet(address as string, Number(prefix), type);
  }
  return list;
}

function senderAllowed(list: BlockList | undefined, sender: WebhookSender | undefined): boolean {
  if (!list) return true;
  const address = sender?.remoteAddress?.replace(/^::ffff:/, '');
  if (!address) return false;
  return list.check(address, isIPv6(address) ? 'ipv6' : 'ipv4');
}

/**
 * The YooKassa adapter: payments created with an `Idempotence-Key` and a redirect confirmation;
 * notifications believed only after fetching the payment from the API again (and, when configured,
 * only from its published address ranges).
 */
export function yookassaProvider(options: YookassaOptions): PaymentProvider {
  const authorization = `Basic ${Buffer.from(`${options.shopId}:${options.secretKey}`).toString('base64')}`;
  const allowed = blockListOf(options.notificationIps);

  async function api(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${options.apiUrl}${path}`, {
      method,
      headers: { Authorization: authorization, ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    if (!response.ok) {
      let description = text.slice(0, 300);
      try {
        description = (JSON.parse(text) as { description?: string }).description ?? description;
      } catch {}
      if (response.status === 404) throw Problem.of('not_found', 'YooKassa has no such payment.');
      throw Problem.of('service_unavailable', `YooKassa answered ${response.status}: ${description}`);
    }
    return ApiPayment.parse(JSON.parse(text));
  }

  const state = (payment: z.infer<typeof ApiPayment>): ProviderPaymentState => ({
    providerPaymentId: payment.id,
    // Payments are created with capture: true, so waiting_for_capture is still on its way.
    status: payment.status === 'succeeded' ? 'succeeded' : payment.status === 'canceled' ? 'canceled' : 'pending',
    amount: valueToKopecks(payment.amount.value),
    currency: payment.amount.currency as Currency,
  });

  return {
    name: 'yookassa',
    async createPayment(input: CreatePaymentInput): Promise<CreatedPayment> {
      // Idempotence keys are unique per shop (at most 64 characters): one per organization's key.
      const idempotenceKey = createHash('sha256')
        .update(`${input.organizationId}:${input.idempotencyKey}`)
        .digest('hex');
      const payment = await api(
        'POST',
        '/payments',
        {
          amount: { value: kopecksToValue(input.amount), currency: input.currency },
          capture: true,
          confirmation: { type: 'redirect', return_url: input.returnUrl },
          description: 'Orbita balance top-up',
          metadata: { organizationId: input.organizationId },
        },
        { 'Idempotence-Key': idempotenceKey },
      );
      const url = payment.confirmation?.confirmation_url;
      if (!url) throw Problem.of('service_unavailable', 'YooKassa gave no confirmation page for the payment.');
      return { providerPaymentId: payment.id, confirmationUrl: url };
    },
    async verifyWebhook(rawBody: Buffer, _headers: IncomingHttpHeaders, sender?: WebhookSender) {
      if (!senderAllowed(allowed, sender)) {
        throw Problem.of('forbidden', 'Notifications are taken only from the payment provider’s addresses.');
      }
      const notification = parseRequestBody(YookassaNotification, rawBody);
      // The notification itself is not signed: only what the API says about the payment counts.
      return state(await api('GET', `/payments/${encodeURIComponent(notification.object.id)}`));
    },
    async getPaymentStatus(providerPaymentId: string) {
      return state(await api('GET', `/payments/${encodeURIComponent(providerPaymentId)}`));
    },
  };
}
