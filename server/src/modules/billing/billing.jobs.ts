import type { ScheduledTask } from '../../platform/jobs/jobs';
import { type BillingDeps, reconcilePendingPayments } from './billing.service';

/** How often pending payments are looked at (each is asked about once it is 15 minutes old). */
export const RECONCILE_INTERVAL_MS = 5 * 60_000;

/** The reconciliation: polls the provider for payments whose webhook never came. */
export function reconciliationTask(deps: BillingDeps): ScheduledTask {
  return {
    name: 'billing.reconcile',
    intervalMs: RECONCILE_INTERVAL_MS,
    run: async (now) => {
      const changed = await reconcilePendingPayments(deps, now);
      if (changed > 0) deps.logger.info({ changed }, 'reconciled pending payments');
    },
  };
}
