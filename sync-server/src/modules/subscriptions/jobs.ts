import { Poller } from '../../jobs/poller.ts';
import type { RenewalRun, SubscriptionService } from './service.ts';

/**
 * The renewal worker: charges every running subscription whose period has ended (or whose retry
 * is due) and cancels those set to cancel at the period's end. Durable by construction: the
 * subscription rows are the jobs, claimed with FOR UPDATE SKIP LOCKED, so any instance, any time
 * after a restart, catches up on everything due by its clock. Tests call runOnce() with the
 * injected clock instead of starting the timer.
 */
export class SubscriptionJobs {
  private readonly poller: Poller | undefined;

  constructor(
    private readonly service: SubscriptionService,
    intervalMs: number,
    onError: (error: unknown) => void,
  ) {
    this.poller = intervalMs > 0 ? new Poller(() => this.runOnce(), intervalMs, onError) : undefined;
  }

  runOnce(): Promise<RenewalRun> {
    return this.service.renewDue();
  }

  start(): void {
    this.poller?.start();
  }

  /** Waits for a run in progress. */
  async stop(): Promise<void> {
    await this.poller?.stop();
  }
}
