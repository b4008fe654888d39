/** Wallet money's public entry (a holder's top-ups and withdrawals, docs/wallet-money.md): app.ts imports only this file. */
export { walletMoneyRoutes } from './routes.ts';
export { SANDBOX_WITHDRAWAL_SUFFIXES } from './service.ts';
