/** Merchant payouts' public entry (settlement, docs/payouts.md): app.ts imports only this file. */
import type { PolledJob } from '../../jobs/poller.ts';
import type { ScheduleRun } from './schedule.ts';
// Registers the payment outcome listener that sends payout.paid and payout.failed.
import './events.ts';
export { payoutRoutes } from './routes.ts';
export { payoutJobs, runScheduledPayouts } from './schedule.ts';
export type { ScheduleRun } from './schedule.ts';
export { SANDBOX_PAYOUT_SUFFIXES } from './service.ts';

declare module '../../context.ts' {
  interface AppContext {
    /** The automatic payouts (tests call payoutJobs.runOnce() with the injected clock). */
    payoutJobs: PolledJob<ScheduleRun>;
  }
}
export { payoutSenderOf } from './sender.ts';
// An agent's float is settled to an account checked the same way (modules/agent).
export { type CheckedDestination, checkSettlementDestination, railOf, settlementReceiver } from './accounts.ts';
export { mask as maskAccountNumber } from './resolve.ts';
