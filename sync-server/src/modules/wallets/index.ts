/** The wallets module's public entry: other modules, app.ts, sync/ and web/ import only this file. */
export { balanceResponse, checkWalletPin, requireWallet } from './service.ts';
export { findAgent, findWallet, findWalletById, handleIsTaken, insertAgent, insertAgentSession, insertWallet, insertWalletSession, revokeWalletSession } from './store.ts';
export type { WalletRow } from './store.ts';
export { walletRoutes } from './routes.ts';
