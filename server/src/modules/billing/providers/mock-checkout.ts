import { MOCK_SIGNATURE_HEADER, type MockWebhookEvent } from '@shared/api/billing';
import type { Queryable } from '../../../platform/db/db';
import { Problem } from '../../../platform/http/problem';
import type { Logger } from '../../../platform/logging';
import * as repo from '../billing.repo';
import { checkoutTokenMatches, mockWebhookSecret, signMockWebhook } from './mock';

const linkRefused = () =>
  Problem.of('not_found', 'This confirmation link is not valid. Start the top-up again from the Finance page.');

async function checkedPayment(db: Queryable, providerPaymentId: string, token: string) {
  const secret = await mockWebhookSecret(db);
  if (!checkoutTokenMatches(secret, providerPaymentId, token)) throw linkRefused();
  const payment = await repo.findMockPayment(db, providerPaymentId);
  if (!payment) throw linkRefused();
  return { secret, payment };
}

const WORDS = {
  en: {
    title: 'Test payment',
    lead: 'This is the test payment provider: no money is taken.',
    amount: 'Amount',
    pay: 'Pay',
    cancel: 'Cancel',
    decided: { pending: '', succeeded: 'This payment is paid.', canceled: 'This payment is canceled.' },
  },
  ru: {
    title: 'Тестовый платёж',
    lead: 'Это тестовый платёжный провайдер: деньги не списываются.',
    amount: 'Сумма',
    pay: 'Оплатить',
    cancel: 'Отменить',
    decided: { pending: '', succeeded: 'Платёж оплачен.', canceled: 'Платёж отменён.' },
  },
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The confirmation page of a mock payment, in the payer's language (Accept-Language). */
export async function mockCheckoutPage(
  db: Queryable,
  providerPaymentId: string,
  token: string,
  acceptLanguage: string | undefined,
): Promise<string> {
  const { payment } = await checkedPayment(db, providerPaymentId, token);
  const locale = /^\s*ru\b/i.test(acceptLanguage ?? '') ? 'ru' : 'en';
  const words = WORDS[locale];
  const amount = new Intl.NumberFormat(locale === 'ru' ? 'ru-RU' : 'en-US', {
    style: 'currency',
    currency: payment.currency,
  }).format(Number(payment.amount) / 100);
  const pending = payment.status === 'pending';
  const path = `/api/billing/mock/checkout/${encodeURIComponent(providerPaymentId)}`;
  return `<!doctype html>
<html lang="${locale}"><head><meta charset="utf-8"><title>${words.title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#222}
.amount{font-size:2rem;margin:1rem 0}button{font-size:1rem;padding:.5rem 1.5rem;margin-right:.5rem;cursor:pointer}
#pay{background:#1677ff;color:#fff;border:0;border-radius:6px}#cancel{border-radius:6px}</style></head>
<body><h1>${words.title}</h1><p>${words.lead}</p>
<div>${words.amount}:</div><div class="amount" data-testid="amount">${escapeHtml(amount)}</div>
<main id="checkout" data-path="${escapeHtml(path)}" data-token="${escapeHtml(token)}">
${
  pending
    ? `<button id="pay" type="button" data-outcome="succeeded">${words.pay}</button><button id="cancel" type="button" data-outcome="canceled">${words.cancel}</button>`
    : `<p>${words.decided[payment.status]}</p>`
}
<p id="error" role="alert"></p></main>
<script src="/api/billing/mock/checkout.js"></script></body></html>`;
}

/** The page's script: sends the payer's choice, then goes back where the payment started. */
export const MOCK_CHECKOUT_SCRIPT = `(() => {
  const root = document.getElementById('checkout');
  for (const button of root.querySelectorAll('button[data-outcome]')) {
    button.addEventListener('click', async () => {
      for (const other of root.querySelectorAll('button')) other.disabled = true;
      try {
        const response = await fetch(root.dataset.path, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ token: root.dataset.token, outcome: button.dataset.outcome }),
        });
        const body = await response.json();
        if (!response.ok) throw new Error(body.detail || response.statusText);
        if (body.returnUrl) window.location.assign(body.returnUrl);
        else window.location.reload();
      } catch (error) {
        document.getElementById('error').textContent = String(error.message || error);
        for (const other of root.querySelectorAll('button')) other.disabled = false;
      }
    });
  }
})();
`;

/**
 * The payer's choice on the mock page: the mock provider records it, then calls the webhook of
 * the server at `webhookOrigin` signed, as a provider would. A webhook that fails to arrive is
 * picked up by the reconciliation. Where to send the payer back to.
 */
export async function decideMockCheckout(
  deps: { db: Queryable; logger: Pick<Logger, 'warn'> },
  providerPaymentId: string,
  decision: { token: string; outcome: 'succeeded' | 'canceled' },
  webhookOrigin: string,
): Promise<{ returnUrl: string | null }> {
  const { secret, payment } = await checkedPayment(deps.db, providerPaymentId, decision.token);
  await repo.decideMockPayment(deps.db, providerPaymentId, decision.outcome);
  const decided = await repo.findMockPayment(deps.db, providerPaymentId);
  const status = decided?.status ?? payment.status;
  if (status !== 'pending') {
    const event: MockWebhookEvent = {
      event: status === 'succeeded' ? 'payment.succeeded' : 'payment.canceled',
      paymentId: providerPaymentId,
      amount: Number(payment.amount),
      currency: payment.currency as MockWebhookEvent['currency'],
    };
    const body = JSON.stringify(event);
    try {
      const response = await fetch(`${webhookOrigin}/api/billing/webhooks/mock`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          [MOCK_SIGNATURE_HEADER]: signMockWebhook(secret, body, Math.floor(Date.now() / 1000)),
        },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      if (!response.ok) deps.logger.warn({ status: response.status, providerPaymentId }, 'mock webhook refused');
    } catch (error) {
      deps.logger.warn({ err: error, providerPaymentId }, 'mock webhook not delivered');
    }
  }
  return { returnUrl: payment.return_url };
}
