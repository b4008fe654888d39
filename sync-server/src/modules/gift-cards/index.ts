/** The gift-cards module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { canonicalCode, codeHash, qrPng } from './codes.ts';
export { convertMinor, fxServiceRateSource } from './fx.ts';
export type { RateSource } from './fx.ts';
export { effectiveStatus } from './records.ts';
export { giftCardRoutes, startGiftCardJobs } from './routes.ts';
export { giftCardService, giftCardNotFound, stateError } from './service.ts';
export type { GiftCards } from './service.ts';
export { drawFromCard, findCard, findCardByHash, lockCard, restoreCardBalance } from './store.ts';
export type { CardRow } from './store.ts';
export { type GiftCardTender, giftCardTenderProblem, lockGiftCardTenders, returnToCard, tenderReturnId as giftCardTenderReturnId } from './till-tenders.ts';
