import type { PaymentProviderName } from '@shared/api/billing';
import type { ModuleFactory } from '../../platform/module';
import { billingBlockGuard, billingPushGuard } from './billing.guard';
import { reconciliationTask } from './billing.jobs';
import { billingRoutes } from './billing.routes';
import type { BillingDeps } from './billing.service';
import { mockProvider } from './providers/mock';
import type { PaymentProvider } from './providers/provider';
import { yookassaProvider } from './providers/yookassa';

/**
 * Billing: each organization's balance and append-only ledger, top-ups through a payment provider
 * (the mock one, with a signed webhook and its own confirmation page, or YooKassa), applied once
 * whatever delivers them, a reconciliation of pending payments, and writes refused while blocked.
 */
export const billingModule: ModuleFactory = (context) => {
  const { config, db, logger } = context;
  const providers = new Map<PaymentProviderName, PaymentProvider>([['mock', mockProvider(db)]]);
  const { shopId, secretKey } = config.yookassa;
  if (shopId && secretKey) providers.set('yookassa', yookassaProvider({ ...config.yookassa, shopId, secretKey }));
  if (config.billingProvider === 'yookassa' && !providers.has('yookassa')) {
    throw new Error('BILLING_PROVIDER=yookassa needs YOOKASSA_SHOP_ID and YOOKASSA_SECRET_KEY');
  }
  if (!config.billingProvider) logger.warn('no BILLING_PROVIDER set: top-ups are refused until one is');
  const deps: BillingDeps = {
    db,
    events: context.events,
    logger,
    provider: config.billingProvider ? providers.get(config.billingProvider) : undefined,
    providers,
  };
  return {
    name: 'billing',
    routes: billingRoutes(deps),
    guards: [billingBlockGuard(db)],
    pushGuards: [billingPushGuard(db)],
    scheduled: [reconciliationTask(deps)],
  };
};
