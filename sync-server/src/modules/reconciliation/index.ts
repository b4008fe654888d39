/** The reconciliation module's public entry: app.ts, rails/ and other modules import only this file. */
import type { ReconciliationService } from './service.ts';
export type { Mismatch, MismatchKind, ProviderTransaction } from './compare.ts';
export { reconciliationRoutes } from './routes.ts';
export { RECONCILE_JOB_INTERVAL_MS, RECONCILE_RETRY_FAILED_MS, dayToReconcile, reconciliationService } from './service.ts';
export type { JobRun, ReconciliationRecord, ReconciliationService, ReconciliationSource } from './service.ts';

declare module '../../context.ts' {
  interface AppContext {
    /**
     * The daily reconciliation of live payouts with each configured provider: reconcile(provider, day)
     * on demand, and the daily job (tests call reconciliation.runOnce() with the injected clock).
     */
    reconciliation: ReconciliationService;
  }
}
