// Wallet money (docs/wallet-money.md): a holder tops up her wallet from her phone and withdraws to
// her mobile money number or bank account. Nothing here moves money on its own:
//
// - A top-up is a mobile-money collection (modules/collections, purpose wallet_top_up): the same
//   sandbox magic numbers, providers, callbacks, polls and expiry as a till's, credited to her
//   wallet once, under the collection's row lock, when the provider confirms.
// - A withdrawal is a payment of kind 'withdrawal' (modules/payments): debited from her wallet in
//   the transaction that records it, paid out by the payment scheduler through the rails, and
//   refunded by the payments module's own refund or reversal transfer when it fails or is reversed.
//
// Both tell the holder in her wallet notifications (GET /api/wallet/notifications) in the
// transaction that ends them: events are merchants' (their webhooks), and these belong to no merchant.
import { currencyOfCountry } from '@tapline/shared/countries';
import { percentOf, toMajor, toMinor } from '@tapline/shared/money';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import { newId } from '../../auth/secrets.ts';
import { badRequest, notFound, unprocessable } from '../../http/errors.ts';
import { walletAccount } from '../../ledger/accounts.ts';
import { accountBalance } from '../../ledger/ledger.ts';
import { type CollectionRow, type TopUpCaller, maskPhone, normalisePhone, onCollectionOutcome } from '../collections/index.ts';
import { type NewPayment, type PaymentRow, type Receiver, RAIL_INFO, type Rail, onPaymentOutcome, railAvailableIn, recordPayment } from '../payments/index.ts';
import { type WalletRow, checkTierMovement, checkWalletPin, findWalletById, forgetTierHold, insertWalletNotification, limitFromUsd, lockWalletRow, releaseTierMovement, settleTopUpMovement, tierRates, tierStanding } from '../wallets/index.ts';
import { findWithdrawal, withdrawnSince } from './store.ts';

/** A day of withdrawals: the limit counts the last 24 hours, whatever the clock reads. */
const DAY_MS = 24 * 3600_000;

/**
 * The sandbox's withdrawal outcomes (test mode), by the last four digits of the destination (the
 * phone's national number or the account number): 0002 fails at the provider, 0004 stays pending,
 * 0005 is paid and then reversed one step later. Any other destination is paid after two steps.
 */
export const SANDBOX_WITHDRAWAL_SUFFIXES = {
  sandbox_failure: '0002',
  sandbox_pending: '0004',
  sandbox_reversal: '0005',
} as const;

export const SANDBOX_WITHDRAWAL_FAILURE = 'The provider declined the withdrawal (sandbox destination ending 0002)';

/** The holder signed in with her wallet session. */
export interface Holder {
  walletId: string;
  handle: string;
  mode: Mode;
}

async function walletOf(context: AppContext, holder: Holder): Promise<WalletRow> {
  const wallet = await findWalletById(context.db, holder.walletId);
  if (!wallet || wallet.mode !== holder.mode) throw notFound('wallet_not_found', 'Wallet not found');
  return wallet;
}

function ownCurrency(wallet: WalletRow, given: string | undefined): string {
  const currency = (given ?? wallet.currency).trim().toUpperCase();
  if (currency !== wallet.currency) throw badRequest('currency_not_accepted', `This wallet moves money in ${wallet.currency} only, not ${currency.slice(0, 8)}`);
  return currency;
}

/** Who a top-up collects for: a wallet (a holder's, or an agent's float). */
export function topUpCaller(wallet: WalletRow): TopUpCaller {
  return { walletId: wallet.id, mode: wallet.mode, country: wallet.country, currency: wallet.currency };
}

// Top-ups ------------------------------------------------------------------------------------

export function topUpRecord(row: CollectionRow) {
  const status = row.status === 'cancelled' ? 'failed' : row.status;
  return {
    id: row.id,
    status,
    amount: toMajor(row.amount, row.currency),
    fee: toMajor(row.fee, row.currency),
    total: toMajor(row.amount + row.fee, row.currency),
    currency: row.currency,
    phone: maskPhone(row.phone),
    provider: row.provider,
    ...(row.provider_reference ? { providerReference: row.provider_reference } : {}),
    ...(row.failure_code ? { failureCode: row.failure_code } : {}),
    ...(row.failure_reason ? { failureReason: row.failure_reason } : {}),
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    ...(row.status === 'completed' && row.ended_at ? { completedAt: row.ended_at.toISOString() } : {}),
  };
}

function topUpFee(context: AppContext, amountMinor: number): number {
  return percentOf(amountMinor, context.config.walletTopUpFeePercent, 'up');
}

export async function quoteTopUp(context: AppContext, holder: Holder, query: { amount: number; currency?: string | undefined }) {
  const wallet = await walletOf(context, holder);
  const currency = ownCurrency(wallet, query.currency);
  const amount = toMinor(query.amount, currency);
  const fee = topUpFee(context, amount);
  const standing = await tierStanding(context, context.db, wallet);
  return {
    amount: toMajor(amount, currency),
    fee: toMajor(fee, currency),
    total: toMajor(amount + fee, currency),
    currency,
    feePercent: context.config.walletTopUpFeePercent,
    provider: context.collections.topUpProvider(topUpCaller(wallet)) ?? null,
    limits: {
      tier: standing.tier,
      remainingIn: standing.remainingIn === null ? null : toMajor(standing.remainingIn, currency),
      inLimitedBy: standing.inLimitedBy,
    },
  };
}

/**
 * A top-up is checked against the wallet's tier when it is asked for (docs/wallet-tiers.md): its
 * amount is held against the maximum balance and the day's money in, under the wallet row's lock,
 * until the provider answers (or the collection expires), so two top-ups at once cannot pass a
 * limit together and a confirmed one is always credited. A top-up that could not be asked for at
 * all gives its hold back.
 */
export async function createTopUp(context: AppContext, holder: Holder, body: { amount: number; currency: string; phone: string }, derivedId: string | undefined): Promise<CollectionRow> {
  const wallet = await walletOf(context, holder);
  const currency = ownCurrency(wallet, body.currency);
  const amountMinor = toMinor(body.amount, currency);
  const id = derivedId ?? newId('col');
  normalisePhone(body.phone, wallet.country);
  const heldUntil = new Date(context.now().getTime() + context.config.collectionTimeoutSeconds * 1000);
  const rates = await tierRates(context);
  await context.db.transaction((tx) => checkTierMovement(context, tx, wallet, { id, kind: 'top_up', amount: amountMinor, currency }, rates, heldUntil));
  try {
    return await context.collections.createTopUp(topUpCaller(wallet), { amountMinor, feeMinor: topUpFee(context, amountMinor), currency, phone: body.phone }, id);
  } catch (error) {
    await forgetTierHold(context.db, id);
    throw error;
  }
}

/** In the transaction that ends a top-up: the holder's notification. */
export async function notifyTopUp(tx: Queryable, row: CollectionRow, at: Date): Promise<void> {
  // The wallet's tier: a credited top-up counts (never refused once paid), a failed or expired one gives its room back.
  await settleTopUpMovement(tx, { id: row.id, kind: 'top_up', amount: row.amount, currency: row.currency, walletId: row.merchant_wallet_id, mode: row.mode }, row.status === 'completed', at);
  const amount = `${row.currency} ${toMajor(row.amount, row.currency)}`;
  const completed = row.status === 'completed';
  await insertWalletNotification(tx, {
    walletId: row.merchant_wallet_id,
    mode: row.mode,
    kind: `wallet.top_up.${completed ? 'completed' : 'failed'}`,
    title: completed ? 'Wallet topped up' : 'Top-up not completed',
    body: completed ? `${amount} from ${maskPhone(row.phone)} is in your wallet.` : `${amount} from ${maskPhone(row.phone)} was not added: ${row.failure_reason ?? row.status}.`,
    data: { topUpId: row.id, ...topUpRecord(row) },
    at,
  });
}

// Withdrawals ----------------------------------------------------------------------------------

interface Destination {
  type: 'mobile_wallet' | 'bank_account';
  phone?: string | undefined;
  accountNumber?: string | undefined;
  bankCode?: string | undefined;
  country?: string | undefined;
  provider?: string | undefined;
  name?: string | undefined;
}

export interface WithdrawalBody {
  amount: number;
  currency: string;
  walletPin: string;
  destination?: Destination | undefined;
  destinationIndex?: number | undefined;
}

function withdrawalFee(context: AppContext, amountMinor: number): number {
  return percentOf(amountMinor, context.config.walletWithdrawalFeePercent, 'up');
}

/** The limits in the wallet's currency: the configured US dollars at the FX mid rate, rounded down (no rate known: 0, no withdrawals). */
export async function withdrawalLimits(context: AppContext, currency: string): Promise<{ perWithdrawal: number; daily: number }> {
  return { perWithdrawal: await limitFromUsd(context, context.config.walletWithdrawalMaxUsd, currency), daily: await limitFromUsd(context, context.config.walletWithdrawalDailyUsd, currency) };
}

export async function quoteWithdrawal(context: AppContext, holder: Holder, query: { amount: number; currency?: string | undefined }) {
  const wallet = await walletOf(context, holder);
  const currency = ownCurrency(wallet, query.currency);
  const amount = toMinor(query.amount, currency);
  const fee = withdrawalFee(context, amount);
  const limits = await withdrawalLimits(context, currency);
  const used = await withdrawnSince(context.db, wallet.id, currency, new Date(context.now().getTime() - DAY_MS));
  const balance = await accountBalance(context.db, walletAccount(wallet.id, currency), wallet.mode);
  const standing = await tierStanding(context, context.db, wallet);
  const tierRemainingOut = standing.remainingOut === null ? null : standing.remainingOut;
  const remaining = Math.max(limits.daily - used, 0);
  return {
    amount: toMajor(amount, currency),
    fee: toMajor(fee, currency),
    total: toMajor(amount + fee, currency),
    currency,
    feePercent: context.config.walletWithdrawalFeePercent,
    balance: toMajor(balance, currency),
    limits: {
      perWithdrawal: toMajor(limits.perWithdrawal, currency),
      daily: toMajor(limits.daily, currency),
      usedToday: toMajor(used, currency),
      remainingToday: toMajor(tierRemainingOut === null ? remaining : Math.min(remaining, tierRemainingOut), currency),
      tier: standing.tier,
      tierDailyOut: standing.limits.dailyOut === null ? null : toMajor(standing.limits.dailyOut, currency),
      tierRemainingOut: tierRemainingOut === null ? null : toMajor(tierRemainingOut, currency),
    },
  };
}

/** The destination named by the body: one given, or one of the holder's saved destinations. */
function destinationOf(wallet: WalletRow, body: WithdrawalBody): Destination {
  if ((body.destination === undefined) === (body.destinationIndex === undefined)) {
    throw badRequest('destination_required', 'Send exactly one of destination ({type: mobile_wallet, phone} or {type: bank_account, accountNumber, bankCode}) and destinationIndex');
  }
  if (body.destination) return body.destination;
  const saved = (wallet.destinations as Destination[])[body.destinationIndex!];
  if (!saved) throw badRequest('destination_not_found', `This wallet has no saved destination ${body.destinationIndex} (GET /api/wallet/destinations)`);
  return saved;
}

const ACCOUNT = /^\d{6,20}$/;

/** Reads the destination as the payments module's receiver, its rail, country and the national digits the sandbox reads. */
function receiverOf(wallet: WalletRow, destination: Destination, mode: Mode): { rail: Rail; country: string; receiver: Receiver; digits: string } {
  const invalid = (message: string) => badRequest('destination_invalid', message);
  if (destination.type === 'mobile_wallet') {
    if (!destination.phone) throw invalid('A mobile_wallet destination needs its phone');
    const phone = normalisePhone(destination.phone, wallet.country);
    return {
      rail: 'mobile_money',
      country: phone.country,
      receiver: { type: 'phone', phone: phone.e164, phoneCountry: phone.country, ...(destination.provider ? { provider: destination.provider.trim() } : {}), ...(destination.name ? { name: destination.name.trim() } : {}) },
      digits: phone.national,
    };
  }
  const accountNumber = (destination.accountNumber ?? '').replace(/[\s-]/g, '');
  if (!ACCOUNT.test(accountNumber)) throw invalid('A bank_account destination needs its account number: 6 to 20 digits');
  const country = (destination.country ?? wallet.country).trim().toUpperCase();
  const bankCode = destination.bankCode?.trim();
  if (mode === 'live' && !bankCode) throw invalid('A live bank withdrawal needs the bank: send destination.bankCode (the bank\'s code, e.g. 058)');
  if (mode === 'live' && country === 'NG' && !/^\d{10}$/.test(accountNumber)) throw invalid('A Nigerian bank account number is the 10-digit NUBAN');
  return {
    rail: 'bank_transfer',
    country,
    receiver: { type: 'account', accountNumber, ...(bankCode ? { bankCode } : {}), ...(destination.provider ? { provider: destination.provider.trim() } : {}), ...(destination.name ? { name: destination.name.trim() } : {}) },
    digits: accountNumber,
  };
}

function sandboxScenario(digits: string): NewPayment['scenario'] {
  for (const [scenario, suffix] of Object.entries(SANDBOX_WITHDRAWAL_SUFFIXES)) if (digits.endsWith(suffix)) return scenario as NewPayment['scenario'];
  return 'sandbox_default';
}

/**
 * A withdrawal: checks the destination, the PIN (slow KDF, lock-out), the limits and the balance,
 * then debits the wallet and records the payment in one transaction under the wallet row's lock
 * (so two withdrawals at once cannot both pass the daily limit). Its id derives from the
 * Idempotency-Key: a re-run answers the withdrawal it made and pays nothing twice.
 */
export async function createWithdrawal(context: AppContext, holder: Holder, body: WithdrawalBody, id: string): Promise<{ row: PaymentRow; created: boolean }> {
  const wallet = await walletOf(context, holder);
  const currency = ownCurrency(wallet, body.currency);
  const amount = toMinor(body.amount, currency);
  const { rail, country, receiver, digits } = receiverOf(wallet, destinationOf(wallet, body), holder.mode);
  if (!railAvailableIn(rail, country)) throw unprocessable('rail_unavailable', `Withdrawals by ${rail} are not available in ${country}`);
  if (currencyOfCountry(country) !== currency) {
    throw badRequest('destination_currency_mismatch', `A ${country} destination is paid in ${currencyOfCountry(country) ?? 'another currency'}, this wallet withdraws ${currency}`);
  }
  let provider: string | undefined;
  if (holder.mode === 'live') {
    const chosen = context.payoutProviders.find((candidate) => candidate.supports(rail, country));
    if (!chosen) throw unprocessable('rail_unavailable', `No payout provider is configured for ${rail} to ${country} on this server`);
    // A provider that pays only some amounts (M-Pesa: whole shillings) says so before the PIN and any debit.
    const unpayable = chosen.refuseAmount?.(amount, currency);
    if (unpayable) throw unprocessable('amount_not_payable', `${chosen.name} cannot pay ${currency} ${toMajor(amount, currency)}: ${unpayable}`);
    provider = chosen.name;
  }
  const limits = await withdrawalLimits(context, currency);
  if (amount > limits.perWithdrawal) {
    throw unprocessable('withdrawal_limit_exceeded', `One withdrawal may be at most ${currency} ${toMajor(limits.perWithdrawal, currency)} (WALLET_WITHDRAWAL_MAX_USD)`);
  }
  // The PIN last before money moves: a wrong one costs an attempt only for a withdrawal that could go.
  await checkWalletPin(context.db, wallet, body.walletPin, context.now());
  // A re-run of the same request (a crash after the debit) answers the withdrawal it made.
  const existing = await findWithdrawal(context.db, id);
  if (existing) return { row: existing, created: false };

  const now = context.now();
  const fee = withdrawalFee(context, amount);
  const rates = await tierRates(context);
  const scenario = holder.mode === 'test' ? sandboxScenario(digits) : 'provider';
  const stepMs = context.config.sandboxStepMs;
  const payment: NewPayment = {
    id,
    merchant_id: null,
    mode: holder.mode,
    kind: 'withdrawal',
    status: 'pending',
    scenario,
    rail,
    from_country: wallet.country,
    to_country: country,
    amount,
    currency,
    fee,
    destination_amount: amount,
    destination_currency: currency,
    fx_rate: '1',
    mid_rate: '1',
    quote_id: null,
    receiver,
    receiver_name: receiver.name ?? null,
    sender_name: wallet.display_name,
    note: null,
    reference: null,
    source_wallet_id: wallet.id,
    recipient_wallet_id: null,
    payment_link_id: null,
    failure_reason: null,
    provider: provider ?? null,
    provider_reference: holder.mode === 'test' ? `sbx_withdrawal_${newId('ref').slice(4, 20)}` : null,
    estimated_arrival: new Date(now.getTime() + (holder.mode === 'test' ? 2 * stepMs : RAIL_INFO[rail].typicalArrivalMs)),
    timeline: [{ status: 'pending', at: now.toISOString(), note: 'Withdrawal created; funds debited from the wallet' }],
    next_step_at: scenario === 'sandbox_default' || scenario === 'sandbox_reversal' ? new Date(now.getTime() + stepMs) : scenario === 'provider' ? now : null,
    created_at: now,
  };
  return context.db.transaction(async (tx) => {
    await lockWalletRow(tx, wallet.id);
    const again = await findWithdrawal(tx, id);
    if (again) return { row: again, created: false };
    const used = await withdrawnSince(tx, wallet.id, currency, new Date(now.getTime() - DAY_MS));
    if (used + amount > limits.daily) {
      throw unprocessable('withdrawal_daily_limit_exceeded', `Withdrawals may add up to ${currency} ${toMajor(limits.daily, currency)} in 24 hours; ${currency} ${toMajor(Math.max(limits.daily - used, 0), currency)} is left (WALLET_WITHDRAWAL_DAILY_USD)`);
    }
    // The wallet's tier: the day's money out (the amount sent, like the withdrawal limits), under the same lock.
    await checkTierMovement(context, tx, wallet, { id, kind: 'withdrawal', amount, currency }, rates);
    // The debit (amount + fee) fails with 422 insufficient_funds: the wallet never goes below zero.
    const row = await recordPayment(tx, payment, stepMs);
    if (!row) return { row: (await findWithdrawal(tx, id))!, created: false };
    return { row, created: true };
  });
}

function maskAccount(accountNumber: string): string {
  return `${'•'.repeat(Math.max(accountNumber.length - 4, 0))}${accountNumber.slice(-4)}`;
}

export function withdrawalRecord(row: PaymentRow) {
  const receiver = row.receiver as Receiver;
  return {
    id: row.id,
    status: row.status,
    amount: toMajor(row.amount, row.currency),
    fee: toMajor(row.fee, row.currency),
    total: toMajor(row.amount + row.fee, row.currency),
    currency: row.currency,
    rail: row.rail,
    destination: {
      type: receiver.type === 'phone' ? ('mobile_wallet' as const) : ('bank_account' as const),
      ...(receiver.phone ? { phone: maskPhone(receiver.phone) } : {}),
      ...(receiver.accountNumber ? { accountNumber: maskAccount(receiver.accountNumber) } : {}),
      ...(receiver.bankCode ? { bankCode: receiver.bankCode } : {}),
      country: row.to_country ?? '',
      ...(receiver.provider ? { provider: receiver.provider } : {}),
    },
    provider: row.provider ?? 'sandbox',
    providerReference: row.provider_reference,
    ...(row.failure_reason ? { failureReason: row.failure_reason } : {}),
    timeline: row.timeline,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** In the transaction that completes, fails or reverses withdrawals (payments/outcomes.ts): the holder's notifications. */
export async function notifyWithdrawals(tx: Queryable, rows: readonly PaymentRow[], at: Date): Promise<void> {
  for (const row of rows) {
    const amount = `${row.currency} ${toMajor(row.amount, row.currency)}`;
    const paid = row.status === 'completed';
    // Money back in the wallet: the withdrawal stops counting against the tier's money out.
    if (!paid) await releaseTierMovement(tx, row.id, at);
    const kind = paid ? 'wallet.withdrawal.paid' : row.status === 'reversed' ? 'wallet.withdrawal.reversed' : 'wallet.withdrawal.failed';
    await insertWalletNotification(tx, {
      walletId: row.source_wallet_id,
      mode: row.mode,
      kind,
      title: paid ? 'Withdrawal paid' : row.status === 'reversed' ? 'Withdrawal reversed' : 'Withdrawal failed',
      body: paid
        ? `${amount} was paid out.`
        : `${amount} was not paid out (${row.failure_reason ?? row.status}); ${row.currency} ${toMajor(row.amount + row.fee, row.currency)} is back in your wallet.`,
      data: { withdrawalId: row.id, ...withdrawalRecord(row) },
      at,
    });
  }
}

// The holder hears of her top-ups and withdrawals in the transactions that end them.
onCollectionOutcome('wallet_top_up', notifyTopUp);
onPaymentOutcome('withdrawal', notifyWithdrawals);
