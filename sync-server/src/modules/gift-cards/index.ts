/** The gift-cards module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { canonicalCode, codeHash } from './codes.ts';
export { effectiveStatus } from './records.ts';
export { giftCardRoutes, startGiftCardJobs } from './routes.ts';
export { giftCardService, giftCardNotFound, stateError } from './service.ts';
export type { GiftCards } from './service.ts';
export { drawFromCard, findCard, findCardByHash, lockCard, restoreCardBalance } from './store.ts';
export type { CardRow } from './store.ts';
export { type GiftCardTender, giftCardTenderProblem, lockGiftCardTenders, returnToCard, tenderReturnId as giftCardTenderReturnId } from './till-tenders.ts';
