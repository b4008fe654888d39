/** Wallet money's public entry (a holder's top-ups and withdrawals, docs/wallet-money.md): app.ts imports only this file. */
export { walletMoneyRoutes } from './routes.ts';
export { SANDBOX_WITHDRAWAL_SUFFIXES } from './service.ts';
/** The holder's in-app notifications (GET /api/wallet/notifications): an administrator's change of her wallet's tier tells her too. */
export { insertWalletNotification } from './store.ts';
