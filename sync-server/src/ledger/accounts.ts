/** Who owns a ledger account: a wallet (people, merchants, agents) or the platform itself. */
export type SystemAccountCode =
  | 'funding' // money entering the platform: sandbox faucet, agent cash-in, sandbox floats
  | 'fees' // fees the platform earns
  | 'fx' // the FX desk: one currency in, another out
  | 'gift_card_liability' // value of issued, unredeemed gift cards
  | 'rail_clearing' // money in flight to or from an outside payment rail
  | 'offline_risk' // offline payments accepted before the server could check them
  | 'store_revenue' // what the platform's store sold (modules/store), per currency and mode
  | 'offline_qr_reserve'; // money wallet holders reserved in offline QR vouchers not yet spent (modules/offline)

export const SYSTEM_ACCOUNT_CODES: readonly SystemAccountCode[] = ['funding', 'fees', 'fx', 'gift_card_liability', 'rail_clearing', 'offline_risk', 'store_revenue', 'offline_qr_reserve'];

export type Mode = 'test' | 'live';

export type AccountRef =
  | { ownerType: 'wallet'; walletId: string; currency: string }
  | { ownerType: 'system'; code: SystemAccountCode; currency: string };

export function walletAccount(walletId: string, currency: string): AccountRef {
  return { ownerType: 'wallet', walletId, currency };
}

export function systemAccount(code: SystemAccountCode, currency: string): AccountRef {
  return { ownerType: 'system', code, currency };
}

export function accountOwnerId(ref: AccountRef): string {
  return ref.ownerType === 'wallet' ? ref.walletId : ref.code;
}
