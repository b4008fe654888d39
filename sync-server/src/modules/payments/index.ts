/** The payments module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
import type { PaymentScheduler as Scheduler } from './scheduler.ts';
import type { PayoutProvider as Payouts } from './providers.ts';
export { onPaymentOutcome } from './outcomes.ts';
export { RAIL_INFO, describeRails, isRail, railAvailableIn } from './rails.ts';
export type { Rail } from './rails.ts';
export { parseReceiver } from './receiver.ts';
export type { Receiver } from './receiver.ts';
export { completePaymentInto, ensureSandboxFloat, paymentEventData, payoutRequestOf, preparePayment, recordPayment } from './service.ts';
export { findLinkPayment, findPayment, findProviderPayouts, insertPayment, listProviderPayoutsCreated } from './store.ts';
export type { NewPayment, PaymentRow, PaymentStatus } from './store.ts';
export type { PayoutProvider, PayoutRequest, PayoutSender, PayoutUpdate } from './providers.ts';
export { paymentRoutes } from './routes.ts';
export { paymentScheduler, providerLeaseFor } from './scheduler.ts';

declare module '../../context.ts' {
  interface AppContext {
    /** The payment scheduler (sandbox steps, provider polls); tests call payments.runOnce(). */
    payments: Scheduler;
    /** Live payout adapters (none by default: live rails other than wallet answer 422). */
    payoutProviders: readonly Payouts[];
  }
}
