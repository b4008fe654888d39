/** The wearables module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { holderWearableRoutes } from './holder-routes.ts';
export { refreshNoPinLimitDefaults, startNoPinLimitDefaultsRefresh } from './no-pin-limits.ts';
export { wearableRoutes } from './routes.ts';
export { normalizeTagId, resolveTag, tagDisabled, tagNotFound } from './service.ts';
export { countTaps, findWearable, noPinLimitDefault, tagAllowances } from './store.ts';
export type { TagAllowance, TagLookup } from './store.ts';
export { walletPayRoutes } from './wallet-pay.ts';
