/** The wallets module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { attemptWalletSecret, balanceResponse, checkWalletPin, payerIsMerchant, requireWallet } from './service.ts';
export { findAgent, findMerchantWallet, findWallet, findWalletById, findWalletsByHandle, handleIsTaken, insertAgent, insertAgentSession, insertWallet, insertWalletSession, lockWalletRow, revokeWalletSession, updateDestinations, walletIdsIn } from './store.ts';
export type { WalletRow } from './store.ts';
export { walletRoutes } from './routes.ts';
export { type TierMovement, type TierRates, checkTierMovement, checkTierRoomOut, countArrivedMoney, forgetTierHold, hasTier, limitFromUsd, releaseTierMovement, settleTopUpMovement, tierRecord, tierRates, tierStanding, walletTierOf } from './tiers.ts';
export { updateWalletTier } from './tier-store.ts';
export { type NotificationRow, insertWalletNotification, insertWalletNotifications, listWalletNotifications } from './notifications-store.ts';
