/** The offline module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { giftCardSaleSettler, saleDocument } from './gift-card-sales.ts';
export { currentSigner, publicKeys } from './keys.ts';
export { terminalOfflineLimits, terminalSettlementLimits } from './limits.ts';
export { offlinePaymentSettler } from './payment-push.ts';
export { settlePush } from './push.ts';
export { offlineRoutes, startOfflineJobs, tippingOf } from './routes.ts';
export { paymentDocument } from './settlement.ts';
export { acceptedOfflineSince, findTerminalForSync, terminalPaymentsAfter, terminalSalesAfter } from './store.ts';
export type { TerminalSyncRow } from './store.ts';
export { tillSaleDocument, tillSaleRecord, tillSaleSettler } from './till-sales.ts';
export { type StoredTender, type TillSaleRow, terminalTillSalesAfter } from './till-sales-store.ts';
