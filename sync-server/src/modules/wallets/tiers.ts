// Verification tiers of customer wallets (docs/wallet-tiers.md). Each person's wallet has a tier
// (wallets.tier; NULL: WALLET_TIER_DEFAULT) whose limits are defined once, in US dollars, in
// shared/src/wallet-tiers.ts and overridden by the configuration (config.walletTiers). They are
// converted into the wallet's currency at the FX mid rate and rounded down to a round figure, like
// the withdrawal limits and the no-PIN limits.
//
// What counts (one rule, here): money in from outside or from another person (a top-up, a bank
// transfer into her virtual account, an agent's cash-in, a payment from another person's wallet, a
// merchant's payout or payroll paid into her wallet) against the maximum balance and the day's
// money in; money out to outside or to another person (a withdrawal, an agent's cash-out, a
// payment to another person's or an agent's wallet) against the day's money out. Paying merchants
// (taps, offline payments, checkout, links, bills...) does not count, refunds and reversals that
// give a customer her own money back are never checked, and an operator's credit
// (POST /api/admin/wallets/{handle}/credit) is never refused. Merchants' and agents' wallets have no tier.
//
// The FX rates a check needs are read before its transaction (tierRates), never inside it.
// Every check runs in the movement's own transaction under the wallet row's lock
// (lockWalletRow), and writes the movement (wallet_tier_movements) in it, so two movements at
// once cannot pass a limit together. A "day" is the last 24 hours by the app's clock.
import type { ErrorCodeWith } from '@tapline/shared/error-codes';
import { formatDecimal, toMajor } from '@tapline/shared/money';
import { WALLET_TIER_NAMES, type WalletTier, isWalletTier } from '@tapline/shared/wallet-tiers';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';
import { walletBalances } from '../../ledger/ledger.ts';
import { convertMinor, roundLimitDown } from '../fx/index.ts';
import { type WalletRow, lockWalletRow } from './store.ts';
import {
  type TierMovementKind,
  deleteHeldTierMovement,
  findTierMovement,
  insertTierMovement,
  tierUsage,
  updateTierMovement,
} from './tier-store.ts';

/** The tiers' day: the last 24 hours, whatever the clock reads (as the withdrawal limit). */
export const TIER_DAY_MS = 24 * 3600_000;

/** A limit in minor units of a currency; null: none. */
export interface TierLimits {
  maxBalance: number | null;
  dailyIn: number | null;
  dailyOut: number | null;
}

type Rates = Pick<AppContext, 'fx'>;

/**
 * The FX mid rates a check converts with, read before its transaction opens: reading the table may
 * refresh it, which writes to the database, and on PGlite (one connection) that would wait for the
 * very transaction that asked. Inside, conversions are in memory.
 */
export interface TierRates {
  /** Units of `to` per unit of `from`, an exact decimal string; undefined when no rate is known. */
  mid(from: string, to: string): string | undefined;
}

export async function tierRates(context: Rates): Promise<TierRates> {
  let snapshot: Awaited<ReturnType<AppContext['fx']['snapshot']>> | undefined;
  try {
    snapshot = await context.fx.snapshot();
  } catch {
    snapshot = undefined;
  }
  return {
    mid(from, to) {
      if (from === to) return '1';
      if (!snapshot) return undefined;
      try {
        return formatDecimal(context.fx.midRate(snapshot, from, to));
      } catch {
        return undefined;
      }
    },
  };
}

/** US dollars in a currency at the FX mid rate, rounded down to a round figure (no rate known: 0, so nothing passes). */
function usdIn(rates: TierRates, dollars: number, currency: string): number {
  if (dollars === 0) return 0;
  const rate = rates.mid('USD', currency);
  return rate === undefined ? 0 : roundLimitDown(convertMinor(dollars * 100, 'USD', currency, rate, 'down'), currency);
}

/** The same, reading the rates (the withdrawal limits, docs/wallet-money.md). */
export async function limitFromUsd(context: Rates, dollars: number, currency: string): Promise<number> {
  return usdIn(await tierRates(context), dollars, currency);
}

/** An amount of one currency in another at the FX mid rate, rounded up (a limit is never passed by rounding); no rate: 422 fx_unavailable. */
function inCurrency(rates: TierRates, amount: number, from: string, to: string): number {
  if (from === to || amount === 0) return amount;
  const rate = rates.mid(from, to);
  if (rate === undefined) throw new ApiError(422, 'fx_unavailable', `No FX rate from ${from} to ${to} is known: this wallet's limits cannot be checked`);
  return convertMinor(amount, from, to, rate, 'up');
}

export function walletTierOf(context: Pick<AppContext, 'config'>, wallet: Pick<WalletRow, 'tier'>): WalletTier {
  return isWalletTier(wallet.tier) ? wallet.tier : context.config.walletTierDefault;
}

/** Whether the tiers apply: customers' (people's) wallets only. */
export function hasTier(wallet: Pick<WalletRow, 'owner_type'>): boolean {
  return wallet.owner_type === 'person';
}

/** A tier's limits in a currency. */
export function tierLimitsIn(context: Pick<AppContext, 'config'>, rates: TierRates, tier: WalletTier, currency: string): TierLimits {
  const usd = context.config.walletTiers[tier];
  const of = (dollars: number | null) => (dollars === null ? null : usdIn(rates, dollars, currency));
  return { maxBalance: of(usd.maxBalanceUsd), dailyIn: of(usd.dailyInUsd), dailyOut: of(usd.dailyOutUsd) };
}

/** Everything the wallet holds, in its own currency (another currency's balance at the mid rate, rounded up). */
async function heldInOwnCurrency(rates: TierRates, db: Queryable, wallet: WalletRow): Promise<number> {
  let total = 0;
  for (const balance of await walletBalances(db, wallet.id, wallet.mode)) {
    const available = Number(balance.available);
    if (available > 0) total += inCurrency(rates, available, balance.currency, wallet.currency);
  }
  return total;
}

/** A wallet's tier, its limits, what the last 24 hours used and what is left, in the wallet's currency (minor units). */
export interface TierStanding {
  tier: WalletTier;
  currency: string;
  limits: TierLimits;
  balance: number;
  usedIn: number;
  usedOut: number;
  /** Top-ups asked for and not yet answered: they hold their room. */
  pendingIn: number;
  /** The most that may still come in now (the day's money in and the room under the maximum balance); null: no limit. */
  remainingIn: number | null;
  remainingOut: number | null;
  /** Which limit remainingIn is: the maximum balance or the day's money in. */
  inLimitedBy: 'max_balance' | 'daily_in' | null;
}

/** The standing now; `rates` read before any transaction (tierRates), or read here when none is given (outside transactions only). */
export async function tierStanding(context: Pick<AppContext, 'config' | 'fx' | 'now'>, db: Queryable, wallet: WalletRow, given?: TierRates): Promise<TierStanding> {
  const rates = given ?? (await tierRates(context));
  const tier = walletTierOf(context, wallet);
  const now = context.now();
  const limits = tierLimitsIn(context, rates, tier, wallet.currency);
  const usage = await tierUsage(db, wallet.id, new Date(now.getTime() - TIER_DAY_MS), now);
  const balance = await heldInOwnCurrency(rates, db, wallet);
  const dayRoom = limits.dailyIn === null ? null : Math.max(limits.dailyIn - usage.in - usage.held, 0);
  const balanceRoom = limits.maxBalance === null ? null : Math.max(limits.maxBalance - balance - usage.held, 0);
  let remainingIn: number | null = null;
  let inLimitedBy: TierStanding['inLimitedBy'] = null;
  if (balanceRoom !== null && (dayRoom === null || balanceRoom < dayRoom)) [remainingIn, inLimitedBy] = [balanceRoom, 'max_balance'];
  else if (dayRoom !== null) [remainingIn, inLimitedBy] = [dayRoom, 'daily_in'];
  return {
    tier,
    currency: wallet.currency,
    limits,
    balance,
    usedIn: usage.in,
    usedOut: usage.out,
    pendingIn: usage.held,
    remainingIn,
    remainingOut: limits.dailyOut === null ? null : Math.max(limits.dailyOut - usage.out, 0),
    inLimitedBy,
  };
}

const money = (minor: number, currency: string) => `${currency} ${toMajor(minor, currency).toLocaleString('en-US', { maximumFractionDigits: 3 })}`;

function refusal(code: ErrorCodeWith<422>, message: string, standing: TierStanding, limit: number, remaining: number): ApiError {
  const currency = standing.currency;
  return new ApiError(422, code, message, {
    details: [{ tier: standing.tier, currency, limit: toMajor(limit, currency), remaining: toMajor(remaining, currency) }],
  });
}

export interface TierMovement {
  /** The movement's own id (a top-up's, a withdrawal's, an agent's operation's, a payment's transfer id): a retry counts once. */
  id: string;
  kind: TierMovementKind;
  amount: number;
  currency: string;
}

const DIRECTION: Record<TierMovementKind, 'in' | 'out'> = { top_up: 'in', bank_transfer_in: 'in', agent_cash_in: 'in', p2p_in: 'in', payout_in: 'in', payroll_in: 'in', withdrawal: 'out', agent_cash_out: 'out', p2p_out: 'out' };

/** Money in sent by someone else (a person, a merchant's payout or payroll): the refusal is told to the payer, without the recipient's figures. */
const PAID_BY_OTHERS: ReadonlySet<TierMovementKind> = new Set(['p2p_in', 'payout_in', 'payroll_in']);

/**
 * The tier check of one movement, in the movement's transaction: locks the wallet's row, refuses
 * with 422 (tier_balance_limit_exceeded, tier_daily_in_limit_exceeded, tier_daily_out_limit_exceeded)
 * when it would pass a limit, and records it. A wallet without a tier (a merchant's, an agent's)
 * passes unrecorded; a movement already recorded (a retry) passes again. `heldUntil`: a top-up,
 * held (counting against the limits) until its provider answers or that time passes.
 */
export async function checkTierMovement(
  context: Pick<AppContext, 'config' | 'fx' | 'now'>,
  tx: Queryable,
  wallet: WalletRow,
  movement: TierMovement,
  rates: TierRates,
  heldUntil?: Date,
): Promise<void> {
  if (!hasTier(wallet)) return;
  await lockWalletRow(tx, wallet.id);
  if (await findTierMovement(tx, movement.id)) return;
  const direction = DIRECTION[movement.kind];
  const counted = inCurrency(rates, movement.amount, movement.currency, wallet.currency);
  const standing = await tierStanding(context, tx, wallet, rates);
  const { currency, tier } = standing;
  if (PAID_BY_OTHERS.has(movement.kind) && standing.remainingIn !== null && counted > standing.remainingIn) {
    // Told to the payer: nothing of the recipient's balance or limits.
    throw new ApiError(422, 'recipient_tier_limit_exceeded', 'The recipient\'s wallet cannot receive this amount now: it would pass the limits of its verification tier');
  }
  if (direction === 'in' && standing.remainingIn !== null && counted > standing.remainingIn) {
    if (standing.inLimitedBy === 'max_balance') {
      const pending = standing.pendingIn > 0 ? ` and ${money(standing.pendingIn, currency)} of top-ups on their way` : '';
      throw refusal('tier_balance_limit_exceeded',
        `A tier ${tier} wallet may hold at most ${money(standing.limits.maxBalance!, currency)}; it holds ${money(standing.balance, currency)}${pending}, so at most ${money(standing.remainingIn, currency)} more can come in`,
        standing, standing.limits.maxBalance!, standing.remainingIn);
    }
    throw refusal('tier_daily_in_limit_exceeded',
      `A tier ${tier} wallet may receive at most ${money(standing.limits.dailyIn!, currency)} in 24 hours; ${money(standing.remainingIn, currency)} is left`,
      standing, standing.limits.dailyIn!, standing.remainingIn);
  }
  if (direction === 'out') refuseBeyondDailyOut(standing, counted);
  const now = context.now();
  await insertTierMovement(tx, {
    id: movement.id,
    wallet_id: wallet.id,
    mode: wallet.mode,
    direction,
    kind: movement.kind,
    amount: movement.amount,
    currency: movement.currency,
    counted,
    state: heldUntil ? 'held' : 'counted',
    held_until: heldUntil ?? null,
    beyond_limit: false,
    created_at: now,
  });
}

function refuseBeyondDailyOut(standing: TierStanding, counted: number): void {
  if (standing.remainingOut === null || counted <= standing.remainingOut) return;
  const { currency, tier } = standing;
  throw refusal('tier_daily_out_limit_exceeded',
    `A tier ${tier} wallet may send or withdraw at most ${money(standing.limits.dailyOut!, currency)} in 24 hours; ${money(standing.remainingOut, currency)} is left`,
    standing, standing.limits.dailyOut!, standing.remainingOut);
}

/**
 * Whether money out of `amount` fits the day's money out now, recording nothing: asked when a
 * promise of money out is made (a one-time cash-out code), so the holder hears of the limit then,
 * not at the agent's counter. The movement itself is checked and counted again when it happens.
 * 422 tier_daily_out_limit_exceeded, with the same sentence and details as the movement's.
 */
export async function checkTierRoomOut(context: Pick<AppContext, 'config' | 'fx' | 'now'>, db: Queryable, wallet: WalletRow, amount: number, currency: string): Promise<void> {
  if (!hasTier(wallet)) return;
  const rates = await tierRates(context);
  refuseBeyondDailyOut(await tierStanding(context, db, wallet, rates), inCurrency(rates, amount, currency, wallet.currency));
}

/**
 * A top-up's outcome, in the transaction that ends it: a credited one counts (flagged beyond_limit
 * when it was credited after its hold had lapsed: the holder's money is never refused once paid);
 * a failed or expired one gives its room back.
 */
export async function settleTopUpMovement(tx: Queryable, movement: TierMovement & { walletId: string; mode: WalletRow['mode'] }, credited: boolean, at: Date): Promise<void> {
  const row = await findTierMovement(tx, movement.id);
  if (!row) {
    // A top-up asked for before tiers existed: counted as it is credited.
    if (credited) {
      await insertTierMovement(tx, { id: movement.id, wallet_id: movement.walletId, mode: movement.mode, direction: 'in', kind: 'top_up', amount: movement.amount, currency: movement.currency, counted: movement.amount, state: 'counted', held_until: null, beyond_limit: false, created_at: at });
    }
    return;
  }
  if (credited) {
    if (row.state === 'counted') return;
    const lapsed = row.state === 'released' || (row.held_until !== null && row.held_until.getTime() <= at.getTime());
    await updateTierMovement(tx, row.id, 'counted', lapsed, at);
  } else if (row.state === 'held') {
    await updateTierMovement(tx, row.id, 'released', false, at);
  }
}

/**
 * Money that has already arrived and cannot be refused (a bank transfer into the wallet's virtual
 * account: the sender's bank paid it before we heard of it), in its crediting transaction: counted
 * like any money in, and flagged beyond_limit when it passes the tier's maximum balance or the
 * day's money in (as a late mobile-money confirmation is). Answers whether it did. A wallet
 * without a tier records nothing; the same id again (a retry) counts once.
 */
export async function countArrivedMoney(context: Pick<AppContext, 'config' | 'fx' | 'now'>, tx: Queryable, wallet: WalletRow, movement: TierMovement, rates: TierRates): Promise<boolean> {
  if (!hasTier(wallet)) return false;
  await lockWalletRow(tx, wallet.id);
  const known = await findTierMovement(tx, movement.id);
  if (known) return known.beyond_limit;
  const rate = rates.mid(movement.currency, wallet.currency);
  // No rate known: counted at face value rather than refused (the money is already here).
  const counted = rate === undefined ? movement.amount : inCurrency(rates, movement.amount, movement.currency, wallet.currency);
  const standing = await tierStanding(context, tx, wallet, rates);
  const beyondLimit = standing.remainingIn !== null && counted > standing.remainingIn;
  await insertTierMovement(tx, {
    id: movement.id,
    wallet_id: wallet.id,
    mode: wallet.mode,
    direction: 'in',
    kind: movement.kind,
    amount: movement.amount,
    currency: movement.currency,
    counted,
    state: 'counted',
    held_until: null,
    beyond_limit: beyondLimit,
    created_at: context.now(),
  });
  return beyondLimit;
}

/** A withdrawal that failed or was reversed gave its money back: it stops counting against the day's money out. */
export async function releaseTierMovement(tx: Queryable, id: string, at: Date): Promise<void> {
  const row = await findTierMovement(tx, id);
  if (row && row.state !== 'released') await updateTierMovement(tx, id, 'released', false, at);
}

/** A hold whose top-up could not be asked for at all (a bad phone, no provider): forgotten. */
export async function forgetTierHold(db: Queryable, id: string): Promise<void> {
  await deleteHeldTierMovement(db, id);
}

/** The standing as the API answers it (major units). */
export function tierRecord(standing: TierStanding, changedAt: Date | null) {
  const major = (minor: number | null) => (minor === null ? null : toMajor(minor, standing.currency));
  return {
    tier: standing.tier,
    name: WALLET_TIER_NAMES[standing.tier],
    currency: standing.currency,
    limits: { maxBalance: major(standing.limits.maxBalance), dailyIn: major(standing.limits.dailyIn), dailyOut: major(standing.limits.dailyOut) },
    balance: major(standing.balance)!,
    usedToday: { in: major(standing.usedIn)!, out: major(standing.usedOut)!, pendingIn: major(standing.pendingIn)! },
    remaining: { in: major(standing.remainingIn), out: major(standing.remainingOut), inLimitedBy: standing.inLimitedBy },
    changedAt: changedAt ? changedAt.toISOString() : null,
  };
}
