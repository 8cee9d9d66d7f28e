import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createOrg, type Member } from '../../../../test/helpers/factories';
import { createLogger } from '../../platform/logging';
import { runBillingCommand } from './billing.cli';
import { type BillingDeps, ledgerSum, RECONCILE_AFTER_MS, reconcilePendingPayments } from './billing.service';
import { kopecksToValue, valueToKopecks, yookassaProvider } from './providers/yookassa';

const SHOP = '123456';
const KEY = 'test_secret_key';

interface FakePayment {
  id: string;
  status: 'pending' | 'waiting_for_capture' | 'succeeded' | 'canceled';
  paid: boolean;
  amount: { value: string; currency: string };
  confirmation: { type: 'redirect'; confirmation_url: string; return_url: string };
  created_at: string;
  description?: string;
  metadata: Record<string, string>;
  test: boolean;
}

/**
 * A local stand-in for YooKassa's payments API as its documentation describes it: Basic
 * authentication with the shop id and secret key, `Idempotence-Key` on creation (a repeat returns
 * the first payment), payment objects with `amount.value` as a decimal string, errors as
 * `{type: "error", code, description}`.
 */
function fakeYookassa() {
  const payments = new Map<string, FakePayment>();
  const byKey = new Map<string, string>();
  const requests: { method: string; path: string; idempotenceKey?: string; body?: unknown }[] = [];
  const error = (code: string, description: string) =>
    JSON.stringify({ type: 'error', id: randomUUID(), code, description });
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let text = '';
      req.on('data', (chunk) => {
        text += chunk;
      });
      req.on('end', () => resolve(text));
    });
  const server: Server = createServer(async (req, res) => {
    const text = await read(req);
    const idempotenceKey = req.headers['idempotence-key'] as string | undefined;
    requests.push({
      method: req.method as string,
      path: req.url as string,
      idempotenceKey,
      body: text ? JSON.parse(text) : undefined,
    });
    res.setHeader('Content-Type', 'application/json');
    if (req.headers.authorization !== `Basic ${Buffer.from(`${SHOP}:${KEY}`).toString('base64')}`) {
      res.writeHead(401).end(error('invalid_credentials', 'Basic authentication failed'));
      return;
    }
    if (req.method === 'POST' && req.url === '/v3/payments') {
      if (!idempotenceKey) {
        res.writeHead(400).end(error('invalid_request', 'Idempotence-Key header is required'));
        return;
      }
      const earlier = byKey.get(idempotenceKey);
      if (earlier) {
        res.writeHead(200).end(JSON.stringify(payments.get(earlier)));
        return;
      }
      const body = JSON.parse(text);
      const id = randomUUID();
      const payment: FakePayment = {
        id,
        status: 'pending',
        paid: false,
        amount: body.amount,
        confirmation: {
          type: 'redirect',
          return_url: body.confirmation.return_url,
          confirmation_url: `https://checkout.invalid/payments/${id}`,
        },
        created_at: new Date().toISOString(),
        description: body.description,
        metadata: body.metadata ?? {},
        test: true,
      };
      payments.set(id, payment);
      byKey.set(idempotenceKey, id);
      res.writeHead(200).end(JSON.stringify(payment));
      return;
    }
    const match = /^\/v3\/payments\/([^/]+)$/.exec(req.url ?? '');
    if (req.method === 'GET' && match) {
      const payment = payments.get(decodeURIComponent(match[1] as string));
      if (!payment) res.writeHead(404).end(error('not_found', 'Payment not found'));
      else res.writeHead(200).end(JSON.stringify(payment));
      return;
    }
    res.writeHead(404).end(error('not_found', 'Unknown method'));
  });
  return {
    payments,
    requests,
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v3`)),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    /** The payer paid (the provider's side changes; no notification is sent). */
    pay(id: string) {
      const payment = payments.get(id) as FakePayment;
      payment.status = 'succeeded';
      payment.paid = true;
    },
  };
}

let fake: ReturnType<typeof fakeYookassa>;
let apiUrl: string;
let t: TestApp;
let admin: Member;
let deps: BillingDeps;

beforeAll(async () => {
  fake = fakeYookassa();
  apiUrl = await fake.listen();
  t = await startTestApp({
    config: { billingProvider: 'yookassa', yookassa: { shopId: SHOP, secretKey: KEY, apiUrl, notificationIps: [] } },
  });
  admin = await createOrg(t);
  const provider = yookassaProvider({ shopId: SHOP, secretKey: KEY, apiUrl, notificationIps: [] });
  deps = {
    db: t.database.db,
    events: t.app.events,
    logger: createLogger({ logLevel: 'silent' }),
    provider,
    providers: new Map([['yookassa', provider]]),
  };
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

async function newPayment(amount: number, key = randomUUID()) {
  const response = await admin.client.request(
    'POST',
    '/api/billing/payments',
    { amount, currency: 'RUB' },
    {
      'Idempotency-Key': key,
    },
  );
  expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
  return response.body;
}

function notify(id: string, event = 'payment.succeeded') {
  return t.request('/api/billing/webhooks/yookassa', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ type: 'notification', event, object: { id, status: 'succeeded', paid: true } }),
  });
}

async function balance() {
  const { body } = await admin.client.get('/api/billing/balance');
  expect(body.balance).toBe(await ledgerSum(deps, admin.organizationId));
  return body;
}

describe('the YooKassa adapter', () => {
  it('writes amounts as YooKassa does, without floating point', () => {
    expect([kopecksToValue(12_345), kopecksToValue(100), kopecksToValue(7)]).toEqual(['123.45', '1.00', '0.07']);
    expect([valueToKopecks('123.45'), valueToKopecks('10.1'), valueToKopecks('5'), valueToKopecks('0.29')]).toEqual([
      12_345, 1_010, 500, 29,
    ]);
  });

  it('creates a payment with an Idempotence-Key and a redirect, and a repeat of our key reuses it', async () => {
    const key = randomUUID();
    const payment = await newPayment(12_345, key);
    expect(payment).toMatchObject({ provider: 'yookassa', status: 'pending', amount: 12_345 });
    expect(payment.confirmationUrl).toBe(`https://checkout.invalid/payments/${payment.providerPaymentId}`);
    const created = fake.requests.filter((r) => r.method === 'POST');
    expect(created.at(-1)).toMatchObject({
      body: { amount: { value: '123.45', currency: 'RUB' }, capture: true, confirmation: { type: 'redirect' } },
    });
    expect(created.at(-1)?.idempotenceKey).toMatch(/^[0-9a-f]{64}$/);
    const again = await newPayment(12_345, key);
    expect(again.id).toBe(payment.id);
  });

  it('believes a notification only as far as the API confirms it, and credits once', async () => {
    const before = (await balance()).balance;
    const payment = await newPayment(50_000);
    // Claimed succeeded, but the API says pending: nothing is credited.
    expect((await notify(payment.providerPaymentId)).status).toBe(200);
    expect((await balance()).balance).toBe(before);
    fake.pay(payment.providerPaymentId);
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => notify(payment.providerPaymentId)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect((await balance()).balance).toBe(before + 50_000);
    expect((await admin.client.get(`/api/billing/payments/${payment.id}`)).body.status).toBe('succeeded');
  });

  it('refuses notifications of unknown payments alike, and malformed ones', async () => {
    const unknown = await notify(randomUUID());
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).code).toBe('bad_request');
    const malformed = await t.request('/api/billing/webhooks/yookassa', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"type":"notification"',
    });
    expect(malformed.status).toBe(400);
  });

  it('refuses confirm-test: only the mock provider allows it', async () => {
    const payment = await newPayment(1_000);
    const response = await admin.client.post(`/api/billing/payments/${payment.id}/confirm-test`);
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('mock_provider_only');
    expect((await admin.client.get(`/api/billing/payments/${payment.id}`)).body.status).toBe('pending');
  });

  it('takes notifications only from the configured address ranges', async () => {
    const guarded = yookassaProvider({ shopId: SHOP, secretKey: KEY, apiUrl, notificationIps: ['185.71.76.0/27'] });
    const body = Buffer.from(JSON.stringify({ type: 'notification', event: 'payment.succeeded', object: { id: 'x' } }));
    await expect(guarded.verifyWebhook(body, {}, { remoteAddress: '127.0.0.1' })).rejects.toMatchObject({
      status: 403,
    });
    await expect(guarded.verifyWebhook(body, {}, { remoteAddress: '185.71.76.5' })).rejects.toMatchObject({
      status: 404,
    });
  });
});

describe('the reconciliation', () => {
  it('applies a success whose notification never came, once the payment is 15 minutes old, and clears the block', async () => {
    await runBillingCommand(t.database.db, deps.logger, ['block', admin.organizationId]);
    const before = (await balance()).balance;
    const payment = await newPayment(7_700);
    fake.pay(payment.providerPaymentId);
    expect(await reconcilePendingPayments(deps, new Date())).toBe(0);
    expect((await balance()).balance).toBe(before);
    const later = new Date(Date.now() + RECONCILE_AFTER_MS + 1_000);
    expect(await reconcilePendingPayments(deps, later)).toBe(1);
    expect(await balance()).toMatchObject({ balance: before + 7_700, billingBlocked: false });
    expect((await admin.client.get(`/api/billing/payments/${payment.id}`)).body.status).toBe('succeeded');
    expect(await reconcilePendingPayments(deps, later)).toBe(0);
    expect((await balance()).balance).toBe(before + 7_700);
  });
});
