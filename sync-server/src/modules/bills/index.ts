/** The bills module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
import type { BillerProvider as Billers } from './providers.ts';
export type { BillQuestion, BillRecord, BillerProvider } from './providers.ts';
export { type BillRow, listProviderBillsCreated } from './store.ts';
export { billRoutes } from './routes.ts';
export { BILLERS } from './catalogue.ts';

declare module '../../context.ts' {
  interface AppContext {
    /** Live biller adapters (none by default). */
    billerProviders: readonly Billers[];
  }
}
