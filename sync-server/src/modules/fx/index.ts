/** The fx module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
import type { FxRateService as FxRates } from './rates.ts';
export { convertMinor, fxServiceRateSource, roundLimitDown } from './convert.ts';
export type { RateSource } from './convert.ts';
export { deleteExpiredQuotes, findQuote } from './store.ts';
export { EmbeddedRateProvider, UrlRateProvider } from './providers.ts';
export type { FxRateProvider } from './providers.ts';
export { FxRateService } from './rates.ts';
export { fxRoutes } from './routes.ts';

declare module '../../context.ts' {
  interface AppContext {
    /** The FX rate service (rates, quotes, the refresh loop); app.ts builds, starts and stops it. */
    fx: FxRates;
  }
}
