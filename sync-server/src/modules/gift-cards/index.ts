/** The gift-cards module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { canonicalCode, codeHash, qrPng } from './codes.ts';
export { convertMinor, decimalFraction, fxServiceRateSource } from './fx.ts';
export type { RateSource } from './fx.ts';
export { effectiveStatus } from './records.ts';
export { giftCardRoutes, giftCardService, startGiftCardJobs } from './routes.ts';
export { GiftCardService, giftCardNotFound, percentOf, stateError } from './service.ts';
export { drawFromCard, findCardByHash, lockCard } from './store.ts';
export type { CardRow } from './store.ts';
