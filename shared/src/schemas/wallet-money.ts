// Wallet money (docs/wallet-money.md): a holder tops up her wallet from her phone and withdraws to
// her mobile money number or bank account, from her wallet session (/api/wallet/...).
import { type Static, Type } from 'typebox';
import { CurrencyCode, MajorAmount, Pin, Timestamp, literalUnion } from './common.ts';
import { TimelineEntry } from './payments.ts';
import { BANK_CODE_LENGTH_MAX, LOOKUP_ID_LENGTH_MAX, NAME_LENGTH_MAX, NOTE_LENGTH_MAX, PHONE_LENGTH_MAX } from '../limits.ts';

export const TOP_UP_STATUSES = ['pending', 'completed', 'failed', 'expired'] as const;
/** pending until the phone's owner approves (completed) or declines (failed), or the wait ends (expired). */
export const TopUpStatus = literalUnion(TOP_UP_STATUSES);

export const CreateTopUpBody = Type.Object({
  amount: { ...MajorAmount, description: 'What the wallet receives, major units (the phone pays amount + fee)' },
  currency: { ...CurrencyCode, description: 'The wallet\'s currency (400 currency_not_accepted otherwise)' },
  phone: Type.String({ minLength: 1, maxLength: PHONE_LENGTH_MAX, description: 'The mobile money number to pay from: E.164 (+254712345678) or the local form of the wallet\'s country (0712345678); 400 invalid_phone' }),
});
export type CreateTopUpBody = Static<typeof CreateTopUpBody>;

export const TopUpQuoteQuery = Type.Object({
  amount: { ...MajorAmount, description: 'What the wallet would receive, major units' },
  currency: Type.Optional({ ...CurrencyCode, description: 'Default: the wallet\'s currency' }),
});

export const TopUpQuote = Type.Object({
  amount: Type.Number({ description: 'What the wallet receives, major units' }),
  fee: Type.Number({ description: 'The top-up fee, major units (WALLET_TOP_UP_FEE_PCT of amount, rounded up)' }),
  total: Type.Number({ description: 'What the phone is asked to pay: amount + fee' }),
  currency: Type.String(),
  feePercent: Type.String({ description: 'The fee as a percentage of amount, an exact decimal string' }),
  provider: Type.Union([Type.String(), Type.Null()], { description: 'sandbox (test mode) or the provider the phone would be asked through; null when none collects in the wallet\'s country (a top-up answers 422 top_up_unavailable)' }),
  limits: Type.Object({
    tier: Type.Integer({ description: 'The wallet\'s verification tier (GET /api/wallet/tier; docs/wallet-tiers.md)' }),
    remainingIn: Type.Union([Type.Number(), Type.Null()], { description: 'The most a top-up may add now: the smaller of the tier\'s money in left for the next 24 hours and the room under its maximum balance; null: no limit' }),
    inLimitedBy: Type.Union([Type.Literal('max_balance'), Type.Literal('daily_in'), Type.Null()], { description: 'Which limit remainingIn is' }),
  }),
});
export type TopUpQuote = Static<typeof TopUpQuote>;

export const TopUpRecord = Type.Object({
  id: Type.String(),
  status: TopUpStatus,
  amount: Type.Number({ description: 'Credited to the wallet on completion, major units' }),
  fee: Type.Number({ description: 'Paid by the phone on top of amount, major units' }),
  total: Type.Number({ description: 'What the phone was asked to pay: amount + fee' }),
  currency: Type.String(),
  phone: Type.String({ description: 'Masked: the country code and the last three digits (+254•••••••011)' }),
  provider: Type.String({ description: 'sandbox (test mode), or the provider asked: mpesa, momo, paystack, flutterwave' }),
  providerReference: Type.Optional(Type.String()),
  failureCode: Type.Optional(Type.String({ description: 'declined, insufficient_funds, no_answer (also on expired), invalid_phone or provider_error' })),
  failureReason: Type.Optional(Type.String({ description: 'A sentence the holder can read' })),
  expiresAt: Timestamp,
  createdAt: Timestamp,
  completedAt: Type.Optional(Timestamp),
});
export type TopUpRecord = Static<typeof TopUpRecord>;

export const WithdrawalDestinationInput = Type.Object({
  type: literalUnion(['mobile_wallet', 'bank_account'] as const),
  phone: Type.Optional(Type.String({ minLength: 1, maxLength: PHONE_LENGTH_MAX, description: 'mobile_wallet: E.164 or the local form of the wallet\'s country' })),
  accountNumber: Type.Optional(Type.String({ pattern: '^[0-9A-Za-z -]{4,40}$', description: 'bank_account: the account number (a Nigerian account is the 10-digit NUBAN)' })),
  bankCode: Type.Optional(Type.String({ minLength: 1, maxLength: BANK_CODE_LENGTH_MAX, description: 'bank_account: the bank\'s code at the provider (required live)' })),
  country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'bank_account: the bank\'s country (default: the wallet\'s)' })),
  provider: Type.Optional(Type.String({ minLength: 1, maxLength: 60, description: 'The mobile money operator or bank, as the holder names it' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_LENGTH_MAX, description: 'The account holder\'s name' })),
});

export const CreateWithdrawalBody = Type.Object({
  amount: { ...MajorAmount, description: 'What reaches the destination, major units (the wallet is debited amount + fee)' },
  currency: { ...CurrencyCode, description: 'The wallet\'s currency (400 currency_not_accepted otherwise)' },
  walletPin: { ...Pin, description: 'The holder\'s wallet PIN: 403 wrong_pin; 5 wrong PINs lock the wallet for 15 minutes (429 pin_attempts_exceeded)' },
  destination: Type.Optional(WithdrawalDestinationInput),
  destinationIndex: Type.Optional(Type.Integer({ minimum: 0, maximum: 19, description: 'Instead of destination: the index of one of the holder\'s saved destinations (GET /api/wallet/destinations)' })),
});
export type CreateWithdrawalBody = Static<typeof CreateWithdrawalBody>;

export const WithdrawalQuoteQuery = Type.Object({
  amount: { ...MajorAmount, description: 'What would reach the destination, major units' },
  currency: Type.Optional({ ...CurrencyCode, description: 'Default: the wallet\'s currency' }),
});

export const WithdrawalLimits = Type.Object({
  perWithdrawal: Type.Number({ description: 'The most one withdrawal may be (amount), major units' }),
  daily: Type.Number({ description: 'The most the wallet\'s withdrawals may add up to in any 24 hours (amounts; failed and reversed ones do not count), major units' }),
  usedToday: Type.Number({ description: 'What withdrawals of the last 24 hours add up to' }),
  remainingToday: Type.Number({ description: 'What may still be withdrawn in the next 24 hours: daily - usedToday, and no more than the tier\'s money out left (tierRemainingOut); at least 0' }),
  tier: Type.Integer({ description: 'The wallet\'s verification tier (GET /api/wallet/tier; docs/wallet-tiers.md)' }),
  tierDailyOut: Type.Union([Type.Number(), Type.Null()], { description: 'The tier\'s money out in any 24 hours (withdrawals, agent cash-out and payments to other people together); null: no limit' }),
  tierRemainingOut: Type.Union([Type.Number(), Type.Null()], { description: 'What is left of tierDailyOut; null: no limit' }),
});

export const WithdrawalQuote = Type.Object({
  amount: Type.Number({ description: 'What reaches the destination, major units' }),
  fee: Type.Number({ description: 'The withdrawal fee, major units (WALLET_WITHDRAWAL_FEE_PCT of amount, rounded up)' }),
  total: Type.Number({ description: 'What the wallet is debited: amount + fee' }),
  currency: Type.String(),
  feePercent: Type.String(),
  balance: Type.Number({ description: 'The wallet\'s balance in that currency now' }),
  limits: WithdrawalLimits,
});
export type WithdrawalQuote = Static<typeof WithdrawalQuote>;

export const WITHDRAWAL_STATUSES = ['pending', 'processing', 'completed', 'failed', 'reversed'] as const;

export const WithdrawalRecord = Type.Object({
  id: Type.String(),
  status: literalUnion(WITHDRAWAL_STATUSES, { description: 'pending -> processing -> completed (paid); failed or reversed: the money is back in the wallet' }),
  amount: Type.Number({ description: 'What reaches the destination, major units' }),
  fee: Type.Number(),
  total: Type.Number({ description: 'Debited from the wallet: amount + fee (credited back on failed or reversed)' }),
  currency: Type.String(),
  rail: Type.String({ description: 'mobile_money or bank_transfer' }),
  destination: Type.Object({
    type: literalUnion(['mobile_wallet', 'bank_account'] as const),
    phone: Type.Optional(Type.String({ description: 'Masked' })),
    accountNumber: Type.Optional(Type.String({ description: 'Masked: the last four digits' })),
    bankCode: Type.Optional(Type.String()),
    country: Type.String(),
    provider: Type.Optional(Type.String()),
  }),
  provider: Type.String({ description: 'sandbox (test mode) or the payout provider' }),
  providerReference: Type.Union([Type.String(), Type.Null()]),
  failureReason: Type.Optional(Type.String()),
  timeline: Type.Array(TimelineEntry, { description: 'Oldest first' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WithdrawalRecord = Static<typeof WithdrawalRecord>;

// Verification tiers (docs/wallet-tiers.md) ---------------------------------------------------

const NullableMajor = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

export const WalletTierRecord = Type.Object({
  tier: Type.Integer({ minimum: 1, maximum: 3, description: 'The wallet\'s verification tier: 1 basic, 2 identity checked, 3 fully verified' }),
  name: Type.String(),
  currency: Type.String({ description: 'The wallet\'s currency: every amount below is in it, major units' }),
  limits: Type.Object({
    maxBalance: NullableMajor('The most the wallet may hold after money comes in; null: no maximum'),
    dailyIn: NullableMajor('The most that may come in (top-ups, agent cash-in, payments from other people) in any 24 hours; null: no limit'),
    dailyOut: NullableMajor('The most that may go out (withdrawals, agent cash-out, payments to other people) in any 24 hours; null: no limit'),
  }),
  balance: Type.Number({ description: 'What the wallet holds now (other currencies at the FX mid rate)' }),
  usedToday: Type.Object({
    in: Type.Number({ description: 'Money in counted in the last 24 hours' }),
    out: Type.Number({ description: 'Money out counted in the last 24 hours (failed and reversed withdrawals do not count)' }),
    pendingIn: Type.Number({ description: 'Top-ups asked for and not yet answered by the provider: they hold their room until then' }),
  }),
  remaining: Type.Object({
    in: NullableMajor('The most that may still come in now: the smaller of the day\'s money in left and the room under the maximum balance; null: no limit'),
    out: NullableMajor('The most that may still go out in the next 24 hours; null: no limit'),
    inLimitedBy: Type.Union([Type.Literal('max_balance'), Type.Literal('daily_in'), Type.Null()], { description: 'Which limit remaining.in is' }),
  }),
  changedAt: Type.Union([Timestamp, Type.Null()], { description: 'When an administrator last set the tier; null: the default tier' }),
});
export type WalletTierRecord = Static<typeof WalletTierRecord>;

export const SetWalletTierBody = Type.Object({
  tier: Type.Integer({ description: 'The new tier: 1, 2 or 3 (400 unknown_tier otherwise)' }),
  mode: Type.Optional(literalUnion(['test', 'live'] as const, { description: 'Which of the handle\'s wallets (default test)' })),
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Why (e.g. "BVN verified"): kept in the holder\'s notification' })),
});
export type SetWalletTierBody = Static<typeof SetWalletTierBody>;

export const AdminWalletTierRecord = Type.Object({
  handle: Type.String(),
  mode: literalUnion(['test', 'live'] as const),
  previousTier: Type.Integer({ description: 'The tier before this change' }),
  ...WalletTierRecord.properties,
});

// Top-ups by bank transfer to the wallet's own virtual account (docs/wallet-money.md) -----------

export const OpenVirtualAccountBody = Type.Object({
  currency: Type.Optional({ ...CurrencyCode, description: 'Default: the wallet\'s currency (400 currency_not_accepted otherwise)' }),
  bvn: Type.Optional(Type.String({ pattern: '^[0-9]{11}$', description: 'The holder\'s Bank Verification Number, where the provider asks for one to make a permanent account (Flutterwave: 422 bvn_required without it). Passed to the provider, never stored or shown' })),
});

export const VirtualAccountRecord = Type.Object({
  id: Type.String(),
  currency: Type.String(),
  provider: Type.String({ description: 'sandbox (test mode) or the provider that made the account: paystack or flutterwave' }),
  bankName: Type.String({ description: 'The bank to send the transfer to' }),
  accountNumber: Type.String({ description: 'The account number to send it to (a Nigerian one is a 10-digit NUBAN)' }),
  accountName: Type.String({ description: 'The account\'s name, as the sender\'s bank shows it' }),
  feePercent: Type.String({ description: 'The fee kept from each transfer, percent of what arrives (WALLET_BANK_TRANSFER_FEE_PCT), an exact decimal string' }),
  fee: Type.String({ description: 'The fee in a sentence the holder can read, stated before she sends anything' }),
  createdAt: Timestamp,
});
export type VirtualAccountRecord = Static<typeof VirtualAccountRecord>;

export const BankTransferRecord = Type.Object({
  id: Type.String(),
  status: Type.Literal('completed', { description: 'A bank transfer is recorded only once the provider confirmed it and it is credited' }),
  received: Type.Number({ description: 'What the sender\'s bank paid in, major units' }),
  fee: Type.Number({ description: 'Kept from received (feePercent, rounded up), major units' }),
  amount: Type.Number({ description: 'Credited to the wallet: received - fee, major units' }),
  currency: Type.String(),
  provider: Type.String(),
  providerReference: Type.String({ description: 'The provider\'s transaction reference: credited once under it' }),
  accountNumber: Type.String({ description: 'The virtual account it was paid into' }),
  senderName: Type.Optional(Type.String()),
  senderBank: Type.Optional(Type.String()),
  narration: Type.Optional(Type.String()),
  beyondLimit: Type.Boolean({ description: 'Credited although it passed the wallet\'s tier limits (a bank transfer cannot be refused once made)' }),
  paidAt: Type.Optional(Timestamp),
  createdAt: Timestamp,
});
export type BankTransferRecord = Static<typeof BankTransferRecord>;

export const SandboxBankTransferBody = Type.Object({
  amount: { ...MajorAmount, description: 'What the sender pays in, major units (the fee is kept from it)' },
  senderName: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_LENGTH_MAX })),
});

// Bank transfers we could not match (docs/wallet-money.md, "A transfer we cannot match"): the operator's list (admin token).
export const UNMATCHED_TRANSFER_STATUSES = ['open', 'assigned', 'returned'] as const;

const NullableString = (description?: string) => Type.Union([Type.String(), Type.Null()], description ? { description } : {});

export const UnmatchedBankTransferRecord = Type.Object({
  id: Type.String(),
  status: literalUnion(UNMATCHED_TRANSFER_STATUSES, { description: 'open: waiting for an operator; assigned: credited to walletId; returned: sent back to the sender at the provider' }),
  reason: literalUnion(['unknown_account', 'currency_not_accepted'] as const, { description: 'unknown_account: no account of ours has that number (or provider reference); currency_not_accepted: ours, but in another currency' }),
  mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
  provider: Type.String(),
  providerReference: Type.String({ description: "The provider's transaction reference: kept once under it" }),
  accountNumber: NullableString('The account number it was sent to, when the provider names it'),
  accountReference: NullableString("The provider's reference of the account (Flutterwave: the tx_ref), when it names it that way"),
  amount: Type.Number({ description: 'What the sender paid in, major units' }),
  currency: Type.String(),
  senderName: NullableString(),
  senderBank: NullableString(),
  narration: NullableString(),
  paidAt: Type.Union([Timestamp, Type.Null()]),
  receivedAt: { ...Timestamp, description: 'When the verified webhook reached us' },
  walletId: NullableString('assigned: the wallet credited'),
  bankTransferId: NullableString("assigned: the wallet's bank transfer record (GET /api/wallet/bank-transfers)"),
  returnReference: NullableString("returned: the provider's reference of the refund"),
  note: NullableString("The operator's note"),
  resolvedBy: Type.Union([Type.Literal('admin'), Type.Literal('matched'), Type.Null()], { description: 'admin: an operator; matched: its webhook came again once the account was known and it was credited as a matched transfer' }),
  resolvedAt: Type.Union([Timestamp, Type.Null()]),
});
export type UnmatchedBankTransferRecord = Static<typeof UnmatchedBankTransferRecord>;

export const AssignUnmatchedBody = Type.Object({
  walletId: Type.String({ minLength: 1, maxLength: LOOKUP_ID_LENGTH_MAX, description: 'The wallet to credit (its id, wal_...): same mode and currency as the transfer' }),
  note: Type.Optional(Type.String({ maxLength: NOTE_LENGTH_MAX, description: 'Why, who asked: kept with the record' })),
});

export const ReturnedUnmatchedBody = Type.Object({
  reference: Type.String({ minLength: 1, maxLength: 120, description: "The provider's reference of the refund made there" }),
  note: Type.Optional(Type.String({ maxLength: NOTE_LENGTH_MAX })),
});
