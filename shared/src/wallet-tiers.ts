// Verification tiers of customer wallets (docs/wallet-tiers.md): the one definition of each tier's
// limits. Modelled on tiered KYC wallets (the Central Bank of Nigeria's three-tier accounts: tier 1
// opened with a phone number and a name, small balance and daily amounts; tier 2 with an identity
// number checked, larger; tier 3 fully verified, no maximum balance). Amounts are in the reference
// currency, US dollars, converted into a wallet's currency at the FX mid rate and rounded down to a
// round figure by the server; each is overridable by configuration (WALLET_TIER<n>_MAX_BALANCE_USD,
// WALLET_TIER<n>_DAILY_IN_USD, WALLET_TIER<n>_DAILY_OUT_USD; "none" for no limit).

/** The tiers, lowest first. */
export const WALLET_TIERS = [1, 2, 3] as const;
export type WalletTier = (typeof WALLET_TIERS)[number];

/** What a tier allows, in whole US dollars; null: no limit. */
export interface WalletTierLimitsUsd {
  /** The most the wallet may hold after money comes in. */
  maxBalanceUsd: number | null;
  /** The most that may come in (top-ups, agent cash-in, payments from other people) in any 24 hours. */
  dailyInUsd: number | null;
  /** The most that may go out (withdrawals, agent cash-out, payments to other people) in any 24 hours. */
  dailyOutUsd: number | null;
}

/** The defaults (about NGN 300,000 / 50,000 for tier 1 and 600,000 / 200,000 for tier 2 at 1,500 to the dollar; tier 3 ~ NGN 5,000,000 a day). */
export const WALLET_TIER_DEFAULTS: Readonly<Record<WalletTier, WalletTierLimitsUsd>> = {
  1: { maxBalanceUsd: 200, dailyInUsd: 50, dailyOutUsd: 50 },
  2: { maxBalanceUsd: 400, dailyInUsd: 150, dailyOutUsd: 150 },
  3: { maxBalanceUsd: null, dailyInUsd: 3500, dailyOutUsd: 3500 },
};

/** The tier a wallet has until an administrator changes it (WALLET_TIER_DEFAULT). */
export const WALLET_TIER_DEFAULT: WalletTier = 1;

export const WALLET_TIER_NAMES: Readonly<Record<WalletTier, string>> = {
  1: 'Tier 1: basic (phone number and name)',
  2: 'Tier 2: identity checked',
  3: 'Tier 3: fully verified',
};

export function isWalletTier(value: unknown): value is WalletTier {
  return typeof value === 'number' && (WALLET_TIERS as readonly number[]).includes(value);
}

/** The environment variable that overrides one limit of one tier. */
export function walletTierVariable(tier: WalletTier, limit: keyof WalletTierLimitsUsd): string {
  const suffix = limit === 'maxBalanceUsd' ? 'MAX_BALANCE_USD' : limit === 'dailyInUsd' ? 'DAILY_IN_USD' : 'DAILY_OUT_USD';
  return `WALLET_TIER${tier}_${suffix}`;
}
