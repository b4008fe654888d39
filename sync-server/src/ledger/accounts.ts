/** Who owns a ledger account: a wallet (people, merchants, agents) or the platform itself. */
export type SystemAccountCode =
  | 'funding' // money entering the platform: sandbox faucet, agent cash-in, sandbox floats
  | 'fees' // fees the platform earns
  | 'fx' // the FX desk: one currency in, another out
  | 'gift_card_liability' // value of issued, unredeemed gift cards
  | 'rail_clearing' // money in flight to or from an outside payment rail (one account per provider for live payouts: railClearing)
  | 'offline_risk' // offline payments accepted before the server could check them
  | 'store_revenue' // what the platform's store sold (modules/store), per currency and mode
  | 'offline_qr_reserve' // money wallet holders reserved in offline QR vouchers not yet spent (modules/offline)
  | 'bank'; // the platform's own bank and float accounts: what providers settled to Tapline (a recorded settlement, modules/reconciliation)

export const SYSTEM_ACCOUNT_CODES: readonly SystemAccountCode[] = ['funding', 'fees', 'fx', 'gift_card_liability', 'rail_clearing', 'offline_risk', 'store_revenue', 'offline_qr_reserve', 'bank'];

export type Mode = 'test' | 'live';

export type AccountRef =
  | { ownerType: 'wallet'; walletId: string; currency: string }
  | { ownerType: 'system'; code: SystemAccountCode; currency: string; provider?: string };

export function walletAccount(walletId: string, currency: string): AccountRef {
  return { ownerType: 'wallet', walletId, currency };
}

export function systemAccount(code: SystemAccountCode, currency: string): AccountRef {
  return { ownerType: 'system', code, currency };
}

/**
 * Rail clearing: a live payout's money in flight sits in its provider's account of the currency
 * (owner id `rail_clearing:<provider>`), so each provider's clearing is read and reconciled on its
 * own; money with no provider (sandbox payouts, bills, collections) in the shared `rail_clearing`.
 */
export function railClearing(currency: string, provider: string | null | undefined): AccountRef {
  return provider ? { ownerType: 'system', code: 'rail_clearing', currency, provider } : systemAccount('rail_clearing', currency);
}

/** The owner id of a provider's rail clearing accounts (migration 044). */
export function railClearingOwnerId(provider: string): string {
  return `rail_clearing:${provider}`;
}

export function accountOwnerId(ref: AccountRef): string {
  if (ref.ownerType === 'wallet') return ref.walletId;
  return ref.provider ? `${ref.code}:${ref.provider}` : ref.code;
}
