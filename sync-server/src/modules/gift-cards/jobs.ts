import type { AppContext } from '../../context.ts';
import { Poller } from '../../jobs/poller.ts';
import type { GiftCardService } from './service.ts';
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
 * runOnce() with the injected clock instead of starting the timer.
 */
export class GiftCardJobs {
  private readonly poller: Poller | undefined;

  constructor(
    private readonly context: AppContext,
    private readonly service: GiftCardService,
    intervalMs: number,
    onError: (error: unknown) => void,
  ) {
    this.poller = intervalMs > 0 ? new Poller(() => this.runOnce(), intervalMs, onError) : undefined;
  }

  async runOnce(): Promise<GiftCardJobRun> {
    const deliveries = await this.service.deliverDue();
    const expired = await this.service.expireDue();
    await deleteStaleVerifyMisses(this.context.db, this.context.now());
    return { delivered: deliveries.delivered, deliveryFailures: deliveries.failed, expired };
  }

  start(): void {
    this.poller?.start();
  }

  /** Waits for a run in progress. */
  async stop(): Promise<void> {
    await this.poller?.stop();
  }
}
