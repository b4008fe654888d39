import { type PolledJob, polledJob } from '../../jobs/poller.ts';
import type { RenewalRun, SubscriptionService } from './service.ts';

/**
 * The renewal worker: charges every running subscription whose period has ended (or whose retry
 * is due) and cancels those set to cancel at the period's end. Durable by construction: the
 * subscription rows are the jobs, claimed with FOR UPDATE SKIP LOCKED, so any instance, any time
 * after a restart, catches up on everything due by its clock. Tests call runOnce() with the
 * injected clock instead of starting the timer. `intervalMs` 0: no timer.
 */
export function renewalJobs(service: SubscriptionService, intervalMs: number, onError: (error: unknown) => void): PolledJob<RenewalRun> {
  return polledJob(() => service.renewDue(), intervalMs, onError);
}

export type SubscriptionJobs = ReturnType<typeof renewalJobs>;
