import type { ArrivedBankTransfer } from '../../rails/index.ts';
import type { BankTransferOutcome } from './virtual-accounts.ts';
/** Wallet money's public entry (a holder's top-ups and withdrawals, docs/wallet-money.md): app.ts imports only this file. */
export { walletMoneyRoutes } from './routes.ts';
export { SANDBOX_WITHDRAWAL_SUFFIXES } from './service.ts';
/** The holder's in-app notifications (GET /api/wallet/notifications): an administrator's change of her wallet's tier tells her too. */
// An agent's float top-ups and settlements (modules/agent) are the same records as a holder's top-ups and withdrawals.
export { topUpCaller, topUpRecord, withdrawalRecord } from './service.ts';
export { type WalletPayoutKind, findWithdrawal, listWithdrawals, withdrawnSince } from './store.ts';
export { type BankTransferOutcome, creditBankTransfer } from './virtual-accounts.ts';
export { knownBankTransfers } from './virtual-accounts-store.ts';

declare module '../../context.ts' {
  interface AppContext {
    /** Bank transfers into wallets' virtual accounts, credited once (the rails' callback route calls it with a provider's verified record). */
    bankTransfers: { credit(provider: string, transfer: ArrivedBankTransfer): Promise<BankTransferOutcome> };
  }
}
