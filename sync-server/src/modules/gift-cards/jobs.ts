import type { AppContext } from '../../context.ts';
import { type PolledJob, polledJob } from '../../jobs/poller.ts';
import type { GiftCards } from './service.ts';
import { deleteStaleVerifyMisses } from './store.ts';

export interface GiftCardJobRun {
  delivered: number;
  deliveryFailures: number;
  expired: number;
}

/**
 * The gift-card worker: delivers scheduled cards whose deliverAt has come, expires active cards
 * past their expiry (returning the balance to the issuer) and forgets old verify-miss counters.
 * Durable by construction: the card rows are the jobs, claimed with FOR UPDATE SKIP LOCKED, so
 * any instance, any time after a restart, catches up on everything due by its clock. Tests call
 * runOnce() with the injected clock instead of starting the timer. `intervalMs` 0: no timer.
 */
export function scheduledGiftCardJobs(context: AppContext, service: GiftCards, intervalMs: number, onError: (error: unknown) => void): PolledJob<GiftCardJobRun> {
  async function runOnce(): Promise<GiftCardJobRun> {
    const deliveries = await service.deliverDue();
    const expired = await service.expireDue();
    await deleteStaleVerifyMisses(context.db, context.now());
    return { delivered: deliveries.delivered, deliveryFailures: deliveries.failed, expired };
  }
  return polledJob(runOnce, intervalMs, onError);
}

export type GiftCardJobs = ReturnType<typeof scheduledGiftCardJobs>;
