import { randomUUID } from 'node:crypto';
import { MOCK_SIGNATURE_HEADER } from '@shared/api/billing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../../../../test/helpers/api';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { createForm, createMember, createOrg, type Member } from '../../../../test/helpers/factories';
import { routeAccess } from '../../platform/http/routes';
import { createLogger } from '../../platform/logging';
import { runBillingCommand } from './billing.cli';
import { ledgerSum } from './billing.service';
import { mockWebhookSecret, signMockWebhook } from './providers/mock';

let t: TestApp;
let admin: Member;
let finance: Member;
let plain: Member;
const logger = createLogger({ logLevel: 'silent' });

beforeAll(async () => {
  t = await startTestApp();
  admin = await createOrg(t);
  finance = await createMember(t, admin, { name: 'Accountant' });
  plain = await createMember(t, admin, { name: 'Worker' });
  const granted = await admin.client.put('/api/module-access', {
    users: [{ userId: finance.userId, modules: ['finance'] }],
  });
  expect(granted.status).toBe(200);
});
afterAll(() => t.close());

async function newPayment(member: Member, amount = 10_000, key = randomUUID()) {
  const response = await member.client.request(
    'POST',
    '/api/billing/payments',
    { amount, currency: 'RUB' },
    {
      'Idempotency-Key': key,
    },
  );
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

function deliver(body: string, signature: string | undefined) {
  return t.request('/api/billing/webhooks/mock', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(signature ? { [MOCK_SIGNATURE_HEADER]: signature } : {}) },
    body,
  });
}

async function signed(body: object, at = Math.floor(Date.now() / 1000)) {
  const text = JSON.stringify(body);
  return { text, signature: signMockWebhook(await mockWebhookSecret(t.database.db), text, at) };
}

function succeededEvent(payment: { providerPaymentId: string; amount: number }) {
  return { event: 'payment.succeeded', paymentId: payment.providerPaymentId, amount: payment.amount, currency: 'RUB' };
}

async function balanceOf(member: Member) {
  const response = await member.client.get('/api/billing/balance');
  expect(response.status).toBe(200);
  return response.body;
}

async function expectBalanceIsLedgerSum(member: Member) {
  const { balance } = await balanceOf(member);
  expect(balance).toBe(await ledgerSum({ db: t.database.db }, member.organizationId));
  return balance as number;
}

async function operator(...args: string[]) {
  return runBillingCommand(t.database.db, logger, args);
}

describe('billing: who may use it', () => {
  it('requires Finance access on every billing route that is not a provider’s', async () => {
    const routes = t.app.routes.filter((route) => route.path.startsWith('/api/billing/'));
    const guarded = routes.filter((route) => routeAccess(route) !== 'public');
    expect(guarded.map((route) => route.operationId).sort()).toEqual([
      'confirmTestPayment',
      'createPayment',
      'exportLedger',
      'getBalance',
      'getPayment',
      'listLedger',
      'listPayments',
    ]);
    const payment = await newPayment(finance);
    for (const route of guarded) {
      const path = route.path.replace(':paymentId', payment.id);
      const method = route.method.toUpperCase();
      const body = method === 'POST' ? { amount: 100, currency: 'RUB' } : undefined;
      const refused = await plain.client.request(method, path, body, { 'Idempotency-Key': randomUUID() });
      expect(refused.status, `${method} ${route.path}`).toBe(403);
      expect(refused.body.code).toBe('module_access_denied');
      const anonymous = await apiClient(t).request(method, path, body);
      expect(anonymous.status, `${method} ${route.path}`).toBe(401);
    }
    expect((await admin.client.get('/api/billing/balance')).status).toBe(200);
    expect((await finance.client.get(`/api/billing/payments/${payment.id}`)).body.status).toBe('pending');
  });
});

describe('billing: top-ups', () => {
  it('refuses amounts that are not a positive whole number of kopecks, and a missing idempotency key', async () => {
    for (const amount of [0, -100, 10.5, '100', 2_000_000_000]) {
      const response = await finance.client.request(
        'POST',
        '/api/billing/payments',
        { amount, currency: 'RUB' },
        { 'Idempotency-Key': randomUUID() },
      );
      expect(response.status, String(amount)).toBe(400);
      expect(response.body.errors[0].pointer).toBe('#/amount');
    }
    const dollars = await finance.client.request(
      'POST',
      '/api/billing/payments',
      { amount: 100, currency: 'USD' },
      { 'Idempotency-Key': randomUUID() },
    );
    expect(dollars.body.errors[0].pointer).toBe('#/currency');
    const keyless = await finance.client.post('/api/billing/payments', { amount: 100, currency: 'RUB' });
    expect(keyless.status).toBe(400);
    expect(keyless.body.errors[0].pointer).toBe('#/Idempotency-Key');
  });

  it('returns the first payment to a repeat of its idempotency key, and refuses the key for another amount', async () => {
    const key = randomUUID();
    const first = await newPayment(finance, 5_000, key);
    expect(first).toMatchObject({ status: 'pending', amount: 5_000, currency: 'RUB', provider: 'mock' });
    expect(first.confirmationUrl).toContain('/api/billing/mock/checkout/');
    const again = await finance.client.request(
      'POST',
      '/api/billing/payments',
      { amount: 5_000, currency: 'RUB' },
      {
        'Idempotency-Key': key,
      },
    );
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.id);
    const other = await finance.client.request(
      'POST',
      '/api/billing/payments',
      { amount: 6_000, currency: 'RUB' },
      {
        'Idempotency-Key': key,
      },
    );
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
  });

  it('credits 50 concurrent duplicate webhook deliveries once, and clears the block', async () => {
    await operator('block', admin.organizationId);
    expect((await balanceOf(finance)).billingBlocked).toBe(true);
    const before = await expectBalanceIsLedgerSum(finance);
    const payment = await newPayment(finance, 12_345);
    const { text, signature } = await signed(succeededEvent(payment));
    const answers = await Promise.all(Array.from({ length: 50 }, () => deliver(text, signature)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
    const applied = await Promise.all(answers.map(async (answer) => (await answer.json()).applied));
    expect(applied.filter(Boolean)).toHaveLength(1);
    const after = await balanceOf(finance);
    expect(after).toMatchObject({ balance: before + 12_345, billingBlocked: false });
    await expectBalanceIsLedgerSum(finance);
    expect((await finance.client.get(`/api/billing/payments/${payment.id}`)).body).toMatchObject({
      status: 'succeeded',
      confirmationUrl: null,
    });
    const ledger = (await finance.client.get('/api/billing/ledger?kind=payment')).body.items;
    expect(ledger.filter((entry: { paymentId: string }) => entry.paymentId === payment.id)).toEqual([
      expect.objectContaining({ kind: 'payment', amount: 12_345, balanceAfter: before + 12_345 }),
    ]);
  });

  it('credits once when confirm-test races the webhook', async () => {
    for (let round = 0; round < 5; round += 1) {
      const before = await expectBalanceIsLedgerSum(finance);
      const payment = await newPayment(finance, 700);
      const { text, signature } = await signed(succeededEvent(payment));
      const [webhook, confirmed] = await Promise.all([
        deliver(text, signature),
        finance.client.post(`/api/billing/payments/${payment.id}/confirm-test`),
      ]);
      expect(webhook.status).toBe(200);
      expect(confirmed.status).toBe(200);
      expect(confirmed.body.status).toBe('succeeded');
      expect(await expectBalanceIsLedgerSum(finance)).toBe(before + 700);
    }
  });

  it('refuses bad, missing, old and replayed signatures and malformed bodies, crediting nothing', async () => {
    const before = await expectBalanceIsLedgerSum(finance);
    const payment = await newPayment(finance, 900);
    const event = succeededEvent(payment);
    const now = Math.floor(Date.now() / 1000);
    const good = await signed(event, now - 10);
    const oldSignature = /v1=([0-9a-f]+)/.exec(good.signature)?.[1];
    const stale = await signed(event, now - 301);
    const malformed = '{"event": "payment.succeeded",';
    const malformedSigned = signMockWebhook(await mockWebhookSecret(t.database.db), malformed, now);
    const cases: [string, string | undefined, number, string][] = [
      [good.text, undefined, 400, 'invalid_signature'],
      [good.text, 't=abc,v1=00', 400, 'invalid_signature'],
      [good.text, `t=${now},v1=${'0'.repeat(64)}`, 400, 'invalid_signature'],
      [good.text.replace('900', '90000'), good.signature, 400, 'invalid_signature'],
      [stale.text, stale.signature, 400, 'invalid_signature'],
      // The same body replayed with a fresh timestamp but the old signature.
      [good.text, `t=${now},v1=${oldSignature}`, 400, 'invalid_signature'],
      [malformed, malformedSigned, 400, 'malformed_json'],
    ];
    for (const [body, signature, status, code] of cases) {
      const response = await deliver(body, signature);
      expect(response.status, `${signature} ${body}`).toBe(status);
      expect((await response.json()).code).toBe(code);
    }
    const future = await signed(event, now + 301);
    expect((await deliver(future.text, future.signature)).status).toBe(400);
    const fraction = await signed({ ...event, amount: 900.5 });
    expect((await deliver(fraction.text, fraction.signature)).status).toBe(400);
    expect(await expectBalanceIsLedgerSum(finance)).toBe(before);
    expect((await finance.client.get(`/api/billing/payments/${payment.id}`)).body.status).toBe('pending');
    // A signed one still goes through afterwards.
    expect((await deliver(good.text, good.signature)).status).toBe(200);
    expect(await expectBalanceIsLedgerSum(finance)).toBe(before + 900);
  });

  it('tells an unsigned caller nothing about which payments exist', async () => {
    const payment = await newPayment(finance, 100);
    const known = await deliver(JSON.stringify(succeededEvent(payment)), `t=${Math.floor(Date.now() / 1000)},v1=00`);
    const unknown = await deliver(
      JSON.stringify(succeededEvent({ providerPaymentId: 'mock_nonexistent', amount: 100 })),
      `t=${Math.floor(Date.now() / 1000)},v1=00`,
    );
    expect([known.status, (await known.json()).detail]).toEqual([unknown.status, (await unknown.json()).detail]);
  });

  it('refuses a signed delivery for an unknown payment or a different amount, crediting nothing', async () => {
    const before = await expectBalanceIsLedgerSum(finance);
    const unknown = await signed(succeededEvent({ providerPaymentId: 'mock_nonexistent', amount: 100 }));
    expect((await deliver(unknown.text, unknown.signature)).status).toBe(404);
    const payment = await newPayment(finance, 1_000);
    const more = await signed(succeededEvent({ ...payment, amount: 100_000 }));
    expect((await deliver(more.text, more.signature)).status).toBe(409);
    expect(await expectBalanceIsLedgerSum(finance)).toBe(before);
  });

  it('cancels a payment on a canceled event; a later success does not credit it', async () => {
    const before = await expectBalanceIsLedgerSum(finance);
    const payment = await newPayment(finance, 300);
    const canceled = await signed({ ...succeededEvent(payment), event: 'payment.canceled' });
    expect((await deliver(canceled.text, canceled.signature)).status).toBe(200);
    const success = await signed(succeededEvent(payment));
    expect(await (await deliver(success.text, success.signature)).json()).toEqual({ applied: false });
    expect((await finance.client.get(`/api/billing/payments/${payment.id}`)).body.status).toBe('canceled');
    expect(await expectBalanceIsLedgerSum(finance)).toBe(before);
    const confirm = await finance.client.post(`/api/billing/payments/${payment.id}/confirm-test`);
    expect(confirm.status).toBe(409);
  });

  it('pays through the mock confirmation page, which calls the signed webhook', async () => {
    const before = await expectBalanceIsLedgerSum(finance);
    const payment = await newPayment(finance, 25_000);
    const url = new URL(payment.confirmationUrl);
    const page = await t.request(`${url.pathname}${url.search}`, { headers: { 'Accept-Language': 'ru' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Оплатить');
    expect(html).toMatch(/250,00\s₽/);
    const forged = await t.request(`${url.pathname}?token=forged`);
    expect(forged.status).toBe(404);
    const token = url.searchParams.get('token') as string;
    const pay = await apiClient(t).post(url.pathname, { token, outcome: 'succeeded' });
    expect(pay.status).toBe(200);
    expect(pay.body.returnUrl).toMatch(new RegExp(`/finance\\?payment=${payment.id}$`));
    expect((await finance.client.get(`/api/billing/payments/${payment.id}`)).body.status).toBe('succeeded');
    expect(await expectBalanceIsLedgerSum(finance)).toBe(before + 25_000);
  });
});

describe('billing: the block and the operator', () => {
  it('refuses members’ writes with 402 while blocked, keeps reading, sign-in and billing open', async () => {
    const org = await createOrg(t);
    const form = await createForm(org);
    expect((await operator('threshold', org.organizationId, '0')).exitCode).toBe(0);
    const adjusted = await operator('adjust', org.organizationId, '-500', 'Hosting', 'for', 'May');
    expect(adjusted).toMatchObject({ exitCode: 0 });
    expect(adjusted.output).toContain('blocked');
    const write = await org.client.post('/api/tasks', { formId: form.id, title: 'Blocked' });
    expect(write.status).toBe(402);
    expect(write.body.code).toBe('billing_blocked');
    expect((await org.client.get(`/api/forms/${form.id}`)).status).toBe(200);
    expect((await org.client.get('/api/auth/me')).body.organization.billingBlocked).toBe(true);
    const login = await apiClient(t).post('/api/auth/login', { email: org.email, password: org.password });
    expect(login.status).toBe(200);
    const payment = await newPayment(org, 1_000);
    expect((await org.client.post(`/api/billing/payments/${payment.id}/confirm-test`)).status).toBe(200);
    expect(await balanceOf(org)).toMatchObject({ balance: 500, billingBlocked: false });
    expect((await org.client.post('/api/tasks', { formId: form.id, title: 'Paid' })).status).toBe(201);
    const ledger = (await org.client.get('/api/billing/ledger')).body.items;
    expect(
      ledger.map((e: { kind: string; amount: number; reason: string | null }) => [e.kind, e.amount, e.reason]),
    ).toEqual([
      ['payment', 1_000, null],
      ['adjustment', -500, 'Hosting for May'],
    ]);
    await expectBalanceIsLedgerSum(org);
  });

  it('blocks and unblocks by the operator’s command, naming the organization by name, and explains bad input', async () => {
    const name = `Operator target ${randomUUID()}`;
    const org = await createOrg(t, name);
    expect((await operator('block', name)).output).toContain('is blocked');
    expect((await org.client.post('/api/forms', { name: 'x', fields: [] })).status).toBe(402);
    expect((await operator('unblock', org.organizationId)).output).toContain('not blocked');
    expect((await org.client.post('/api/forms', { name: 'x', fields: [] })).status).toBe(201);
    expect(await operator('adjust', name, '12.5', 'fraction')).toMatchObject({ exitCode: 2 });
    expect(await operator('adjust', name, '100')).toMatchObject({ exitCode: 2 });
    expect(await operator('block', 'No such organization')).toMatchObject({ exitCode: 1 });
    expect(await operator('frobnicate', name)).toMatchObject({ exitCode: 2 });
    expect((await operator('threshold', name, '100')).output).toContain('blocked');
    expect((await balanceOf(org)).billingBlocked).toBe(true);
  });

  it('exports the filtered ledger as CSV in roubles', async () => {
    const org = await createOrg(t);
    await operator('adjust', org.organizationId, '150005', 'Opening credit');
    await operator('adjust', org.organizationId, '-5', 'Correction');
    const response = await t.request('/api/billing/ledger/export?kind=adjustment', {
      headers: { Authorization: `Bearer ${org.client.accessToken}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/csv');
    const lines = (await response.text()).trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(',-0.05,RUB,1500.00,Correction,');
    expect(lines[2]).toContain(',1500.05,RUB,1500.05,Opening credit,');
  });
});
