import { billingApi, MockCheckoutResult } from '@shared/api/billing';
import type { Request } from 'express';
import { Problem } from '../../platform/http/problem';
import { defineRoute } from '../../platform/http/routes';
import * as billing from './billing.service';
import { ledgerCsv } from './ledger-csv';
import { decideMockCheckout, MOCK_CHECKOUT_SCRIPT, mockCheckoutPage } from './providers/mock-checkout';

const FINANCE = { module: 'finance' } as const;

/** The Idempotency-Key of a payment creation: required, 1–200 printable characters. */
function idempotencyKeyOf(req: Request): string {
  const key = req.headers['idempotency-key'];
  if (typeof key === 'string' && /^[\x21-\x7e]{1,200}$/.test(key)) return key;
  throw Problem.of('validation_failed', 'Send an Idempotency-Key header of 1–200 visible characters.', {
    errors: [
      {
        location: 'headers',
        pointer: '#/Idempotency-Key',
        detail: 'Required: 1–200 visible ASCII characters',
        code: 'idempotency_key',
      },
    ],
  });
}

/** This server as its own caller reaches it (the mock provider calls its webhook here). */
function ownOrigin(req: Request): string {
  const address = (req.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  return `http://${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort}`;
}

export function billingRoutes(deps: billing.BillingDeps) {
  return [
    defineRoute({
      ...billingApi.getBalance,
      access: FINANCE,
      handler: async ({ auth }) => ({ status: 200, body: await billing.getBalance(deps, auth) }),
    }),
    defineRoute({
      ...billingApi.listLedger,
      access: FINANCE,
      handler: async ({ auth, query }) => ({ status: 200, body: await billing.listLedger(deps, auth, query) }),
    }),
    defineRoute({
      ...billingApi.exportLedger,
      access: FINANCE,
      handler: async ({ auth, query }) => ({
        status: 200,
        body: ledgerCsv(await billing.ledgerForExport(deps, auth, query), auth.locale),
        headers: { 'Content-Disposition': 'attachment; filename="ledger.csv"' },
      }),
    }),
    defineRoute({
      ...billingApi.createPayment,
      access: FINANCE,
      handler: async ({ auth, body, req }) => {
        const idempotencyKey = idempotencyKeyOf(req);
        const { payment, created } = await billing.createPayment(deps, auth, {
          ...body,
          idempotencyKey,
          returnUrl: `${req.protocol}://${req.get('host')}/finance`,
        });
        return { status: created ? 201 : 200, body: payment };
      },
    }),
    defineRoute({
      ...billingApi.listPayments,
      access: FINANCE,
      handler: async ({ auth, query }) => ({ status: 200, body: await billing.listPayments(deps, auth, query) }),
    }),
    defineRoute({
      ...billingApi.getPayment,
      access: FINANCE,
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await billing.getPayment(deps, auth, params.paymentId),
      }),
    }),
    defineRoute({
      ...billingApi.confirmTestPayment,
      access: FINANCE,
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await billing.confirmTestPayment(deps, auth, params.paymentId),
      }),
    }),
    defineRoute({
      ...billingApi.mockWebhook,
      access: 'public',
      rawBody: true,
      handler: async ({ rawBody, req }) => ({
        status: 200,
        body: await billing.receiveWebhook(deps, 'mock', rawBody as Buffer, req.headers, {
          remoteAddress: req.socket.remoteAddress,
        }),
      }),
    }),
    defineRoute({
      ...billingApi.yookassaWebhook,
      access: 'public',
      rawBody: true,
      handler: async ({ rawBody, req, log }) => {
        try {
          return {
            status: 200,
            body: await billing.receiveWebhook(deps, 'yookassa', rawBody as Buffer, req.headers, {
              remoteAddress: req.socket.remoteAddress,
            }),
          };
        } catch (error) {
          // Unsigned callers learn nothing about which payments exist: every refusal reads alike.
          if (error instanceof Problem && (error.status === 404 || error.status === 409)) {
            log.warn({ err: error }, 'YooKassa notification refused');
            throw Problem.of('bad_request', 'The notification does not match a payment of this server.');
          }
          throw error;
        }
      },
    }),
    defineRoute({
      ...billingApi.mockCheckoutPage,
      access: 'public',
      handler: async ({ params, query, req }) => ({
        status: 200,
        body: await mockCheckoutPage(deps.db, params.providerPaymentId, query.token, req.headers['accept-language']),
      }),
    }),
    defineRoute({
      ...billingApi.mockCheckoutScript,
      access: 'public',
      handler: () => ({ status: 200, body: MOCK_CHECKOUT_SCRIPT }),
    }),
    defineRoute({
      ...billingApi.mockCheckoutDecide,
      access: 'public',
      handler: async ({ params, body, req }) => ({
        status: 200,
        body: MockCheckoutResult.parse(await decideMockCheckout(deps, params.providerPaymentId, body, ownOrigin(req))),
      }),
    }),
  ];
}
