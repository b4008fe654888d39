// Merchant payouts (docs/payouts.md): the merchant's available balance out of its wallet to its
// settlement account. Nothing here pays anyone: a payout is a payment of kind 'settlement', debited
// from the wallet in the transaction that records the payout (with its statement and its
// payout.created event), then paid out by the payment scheduler through the rails, never twice,
// and refunded by the payments module's own refund or reversal transfer if it fails.
import { createHash } from 'node:crypto';
import { currencyExponent, toMajor, toMinor } from '@tapline/shared/money';
import type { PayoutBalance, PayoutRecord, PayoutSettings } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import { enqueueEvent } from '../../events/outbox.ts';
import { badRequest, conflict, notFound, unprocessable } from '../../http/errors.ts';
import { supportedCurrency } from '../../http/validate.ts';
import { walletAccount } from '../../ledger/accounts.ts';
import { accountBalance } from '../../ledger/ledger.ts';
import { findMerchant } from '../merchants/index.ts';
import { acceptedOfflineSince } from '../offline/index.ts';
import { type NewPayment, RAIL_INFO, recordPayment } from '../payments/index.ts';
import { type WalletRow, findMerchantWallet, lockWalletRow } from '../wallets/index.ts';
import { railOf, requireSettlementAccount, settlementAccountRecord, settlementReceiver } from './accounts.ts';
import { buildStatement } from './statement.ts';
import {
  type PayoutRow,
  type PayoutSettingsRow,
  type SettlementAccountRow,
  databaseClock,
  defaultSettlementAccount,
  findPayout,
  findPayoutByKey,
  findPayoutSettings,
  findSettlementAccount,
  insertPayout,
  lastCoveredTo,
  upsertPayoutSettings,
} from './store.ts';
import type { MerchantCaller } from './types.ts';

const HOUR_MS = 3600_000;

/**
 * The sandbox's payout outcomes (test mode), by the settlement account's last four digits (the
 * account number, or the phone's): 0002 fails at the provider, 0004 stays pending, 0005 is paid and
 * then reversed one step later. Any other account is paid after two SANDBOX_STEP_MS steps.
 */
export const SANDBOX_PAYOUT_SUFFIXES = { sandbox_failure: '0002', sandbox_pending: '0004', sandbox_reversal: '0005' } as const;

const PAYOUT_STATUS = { pending: 'pending', processing: 'processing', completed: 'paid', failed: 'failed', reversed: 'reversed' } as const;

export function payoutRecord(row: PayoutRow, account: SettlementAccountRow, options: { statement: boolean }): PayoutRecord {
  return {
    id: row.id,
    status: PAYOUT_STATUS[row.status],
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    trigger: row.trigger,
    settlementAccount: settlementAccountRecord(account),
    provider: row.provider ?? 'sandbox',
    providerReference: row.provider_reference,
    ...(row.failure_reason ? { failureReason: row.failure_reason } : {}),
    estimatedArrival: row.estimated_arrival.toISOString(),
    timeline: row.timeline,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    ...(options.statement ? { statement: row.statement as PayoutRecord['statement'] } : {}),
  };
}

/** The payout and the account it went to, or 404 payout_not_found (another merchant's, the other mode's). */
export async function getPayout(context: AppContext, caller: MerchantCaller, id: string): Promise<{ row: PayoutRow; account: SettlementAccountRow }> {
  const row = await findPayout(context.db, caller.merchantId, caller.mode, id);
  if (!row) throw notFound('payout_not_found', `No payout ${id.slice(0, 100)}`);
  const account = await findSettlementAccount(context.db, caller.merchantId, caller.mode, row.settlement_account_id, { includeRemoved: true });
  return { row, account: account! };
}

// Settings -------------------------------------------------------------------------------------

async function settingsOf(context: AppContext, caller: MerchantCaller): Promise<PayoutSettingsRow> {
  const stored = await findPayoutSettings(context.db, caller.merchantId, caller.mode);
  if (stored) return stored;
  const merchant = await findMerchant(context.db, caller.merchantId);
  return { schedule: 'daily', minimum_amount: 0, currency: merchant?.currency ?? 'NGN' };
}

export function settingsRecord(context: AppContext, settings: PayoutSettingsRow): PayoutSettings {
  return {
    schedule: settings.schedule,
    minimumAmount: toMajor(settings.minimum_amount, settings.currency),
    currency: settings.currency,
    holdHours: context.config.payoutHoldHours,
    scheduleHourUtc: context.config.payoutScheduleHourUtc,
  };
}

export async function readSettings(context: AppContext, caller: MerchantCaller): Promise<PayoutSettings> {
  return settingsRecord(context, await settingsOf(context, caller));
}

export async function changeSettings(context: AppContext, caller: MerchantCaller, body: { schedule?: PayoutSettingsRow['schedule'] | undefined; minimumAmount?: number | undefined; currency?: string | undefined }) {
  const current = await settingsOf(context, caller);
  const currency = body.currency === undefined ? current.currency : supportedCurrency(body.currency);
  const minimum = body.minimumAmount === undefined ? (currency === current.currency ? current.minimum_amount : 0) : body.minimumAmount === 0 ? 0 : toMinor(body.minimumAmount, currency);
  const next: PayoutSettingsRow = { schedule: body.schedule ?? current.schedule, minimum_amount: minimum, currency };
  await upsertPayoutSettings(context.db, caller.merchantId, caller.mode, next, context.now());
  return settingsRecord(context, next);
}

// Balance --------------------------------------------------------------------------------------

async function merchantWallet(context: AppContext, caller: MerchantCaller): Promise<WalletRow> {
  const wallet = await findMerchantWallet(context.db, caller.merchantId, caller.mode);
  if (!wallet) throw notFound('wallet_not_found', `The merchant has no ${caller.mode} wallet`);
  return wallet;
}

/** The wallet's balance, the hold of recent offline sales (at most the balance) and what is left to pay out, minor units. */
async function availability(db: Queryable, context: AppContext, merchantId: string, mode: Mode, walletId: string, currency: string) {
  const balance = await accountBalance(db, walletAccount(walletId, currency), mode);
  const since = new Date(context.now().getTime() - context.config.payoutHoldHours * HOUR_MS);
  const held = Math.min(Math.max(balance, 0), await acceptedOfflineSince(db, merchantId, mode, currency, since));
  return { balance, onHold: held, available: Math.max(balance - held, 0) };
}

export async function readBalance(context: AppContext, caller: MerchantCaller, currencyInput: string | undefined): Promise<PayoutBalance> {
  const currency = currencyInput === undefined ? (await settingsOf(context, caller)).currency : supportedCurrency(currencyInput);
  const wallet = await merchantWallet(context, caller);
  const now = await availability(context.db, context, caller.merchantId, caller.mode, wallet.id, currency);
  return { currency, balance: toMajor(now.balance, currency), onHold: toMajor(now.onHold, currency), available: toMajor(now.available, currency), holdHours: context.config.payoutHoldHours };
}

// Payouts --------------------------------------------------------------------------------------

export interface PayoutAsk {
  /** Major units; undefined: everything available. */
  amount?: number | undefined;
  currency?: string | undefined;
  settlementAccountId?: string | undefined;
}

interface PayoutOrigin {
  id: string;
  trigger: 'manual' | 'scheduled';
  scheduleKey: string | null;
}

function sandboxScenario(account: SettlementAccountRow): NewPayment['scenario'] {
  const digits = (account.account_number ?? account.phone ?? '').replace(/\D/g, '');
  for (const [scenario, suffix] of Object.entries(SANDBOX_PAYOUT_SUFFIXES)) if (digits.endsWith(suffix)) return scenario as NewPayment['scenario'];
  return 'sandbox_default';
}

/** The payments row that moves a payout's money (no fee: a merchant's own money to its own account). */
/** The most of `available` the provider can pay: itself, or rounded down to a whole major unit when it refuses cents. */
export function payableAtMost(available: number, currency: string, refuseAmount: ((amount: number, currency: string) => string | undefined) | undefined): number {
  if (!refuseAmount?.(available, currency)) return available;
  const unit = 10 ** currencyExponent(currency);
  const whole = available - (available % unit);
  return whole > 0 && !refuseAmount(whole, currency) ? whole : 0;
}

function settlementPayment(context: AppContext, caller: MerchantCaller, wallet: WalletRow, account: SettlementAccountRow, payoutId: string, amount: number, provider: string | undefined): NewPayment {
  const now = context.now();
  const rail = railOf(account);
  const scenario = caller.mode === 'test' ? sandboxScenario(account) : 'provider';
  const stepMs = context.config.sandboxStepMs;
  return {
    // pay_ + the payout's id (po_...): statements tell earlier payouts' movements apart by it.
    id: `pay_${payoutId}`,
    merchant_id: null,
    mode: caller.mode,
    kind: 'settlement',
    status: 'pending',
    scenario,
    rail,
    from_country: wallet.country,
    to_country: account.country,
    amount,
    currency: account.currency,
    fee: 0,
    destination_amount: amount,
    destination_currency: account.currency,
    fx_rate: '1',
    mid_rate: '1',
    quote_id: null,
    receiver: settlementReceiver(account),
    receiver_name: account.account_name,
    sender_name: wallet.display_name,
    note: null,
    reference: payoutId,
    source_wallet_id: wallet.id,
    recipient_wallet_id: null,
    payment_link_id: null,
    failure_reason: null,
    provider: provider ?? null,
    provider_reference: caller.mode === 'test' ? `sbx_payout_${payoutId.slice(3, 19)}` : null,
    estimated_arrival: new Date(now.getTime() + (caller.mode === 'test' ? 2 * stepMs : RAIL_INFO[rail].typicalArrivalMs)),
    timeline: [{ status: 'pending', at: now.toISOString(), note: 'Payout created; funds debited from the merchant wallet' }],
    next_step_at: scenario === 'sandbox_default' || scenario === 'sandbox_reversal' ? new Date(now.getTime() + stepMs) : scenario === 'provider' ? now : null,
    created_at: now,
  };
}

/** payout.* events carry the record without its statement (GET /api/merchant/payouts/{id} has it). */
export function payoutEventData(row: PayoutRow, account: SettlementAccountRow): Record<string, unknown> {
  const { statement: _statement, timeline: _timeline, ...record } = payoutRecord(row, account, { statement: false });
  return { payoutId: row.id, ...record };
}

/**
 * Makes a payout: checks the account and that something may be paid, then, in ONE transaction
 * under the wallet's lock, builds the statement, writes the payout and its payment, debits the
 * wallet (the ledger refuses to take it below zero) and writes payout.created. The id derives from
 * the Idempotency-Key or the schedule's day, so a re-run finds the payout it made instead of
 * paying twice. Live: the payment scheduler submits it (at once when the caller asks it to).
 */
export async function createPayout(context: AppContext, caller: MerchantCaller, ask: PayoutAsk, origin: PayoutOrigin, minimum?: number): Promise<{ row: PayoutRow; account: SettlementAccountRow; created: boolean }> {
  const earlier = await findPayout(context.db, caller.merchantId, caller.mode, origin.id);
  if (earlier) return { ...(await getPayout(context, caller, earlier.id)), created: false };
  const settings = await settingsOf(context, caller);
  const currency = ask.currency === undefined ? settings.currency : supportedCurrency(ask.currency);
  const account = ask.settlementAccountId
    ? await requireSettlementAccount(context, caller, ask.settlementAccountId)
    : await defaultSettlementAccount(context.db, caller.merchantId, caller.mode, currency);
  if (!account) throw unprocessable('no_settlement_account', `There is no ${currency} settlement account to pay out to: add one (POST /api/merchant/settlement-accounts)`);
  if (account.currency !== currency) throw badRequest('currency_mismatch', `Settlement account ${account.id} is paid in ${account.currency}, not ${currency}`);
  let provider: string | undefined;
  let refuseAmount: ((amount: number, currency: string) => string | undefined) | undefined;
  if (caller.mode === 'live') {
    const found = context.payoutProviders.find((candidate) => candidate.supports(railOf(account), account.country));
    if (!found) throw unprocessable('rail_unavailable', `No payout provider is configured for ${railOf(account)} to ${account.country} on this server`);
    provider = found.name;
    refuseAmount = found.refuseAmount?.bind(found);
  }
  const asked = ask.amount === undefined ? undefined : toMinor(ask.amount, currency);
  const wallet = await merchantWallet(context, caller);
  const floor = minimum ?? settings.minimum_amount;

  const made = await context.db.transaction(async (tx) => {
    // Serialises this merchant's payouts: the availability read below stays true until the commit.
    await lockWalletRow(tx, wallet.id);
    const again = origin.scheduleKey ? await findPayoutByKey(tx, origin.scheduleKey) : await findPayout(tx, caller.merchantId, caller.mode, origin.id);
    if (again) return { row: again, created: false };
    const now = await availability(tx, context, caller.merchantId, caller.mode, wallet.id, currency);
    if (now.available <= 0) {
      throw unprocessable('nothing_to_pay_out', `Nothing is available to pay out in ${currency}${now.onHold > 0 ? ` (${currency} ${toMajor(now.onHold, currency)} is on hold: offline sales of the last ${context.config.payoutHoldHours} hours)` : ''}`);
    }
    // A provider that pays only some amounts (M-Pesa: whole shillings): an amount asked for is
    // refused as /api/pay refuses it; "everything available" becomes the most it can pay, the
    // cents staying in the wallet for the next payout.
    const unpayable = asked === undefined ? undefined : refuseAmount?.(asked, currency);
    if (unpayable) throw unprocessable('amount_not_payable', `${currency} ${toMajor(asked!, currency)} cannot be paid out through ${provider}: ${unpayable}`);
    const amount = asked ?? payableAtMost(now.available, currency, refuseAmount);
    if (amount <= 0) throw unprocessable('nothing_to_pay_out', `Less than one whole unit of ${currency} is available, and ${provider} pays whole units only`);
    if (amount > now.available) throw unprocessable('amount_exceeds_available', `At most ${currency} ${toMajor(now.available, currency)} is available to pay out now`);
    if (amount < floor) throw unprocessable('payout_below_minimum', `A payout is at least ${currency} ${toMajor(floor, currency)} (the payout settings' minimumAmount)`);
    const periodEnd = await databaseClock(tx);
    const periodStart = await lastCoveredTo(tx, caller.merchantId, caller.mode, currency);
    const statement = await buildStatement(tx, { walletId: wallet.id, mode: caller.mode, currency, periodStart, periodEnd, balance: now.balance, onHold: now.onHold, amount });
    const payment = settlementPayment(context, caller, wallet, account, origin.id, amount, provider);
    // The payout first (its payment key is checked at the commit): a sandbox payment that fails at
    // once tells the outcome listener, which reads the payout.
    const payout = {
      id: origin.id,
      merchant_id: caller.merchantId,
      mode: caller.mode,
      currency,
      amount,
      payment_id: payment.id,
      settlement_account_id: account.id,
      trigger: origin.trigger,
      schedule_key: origin.scheduleKey,
      statement,
      covered_from: periodStart,
      covered_to: periodEnd,
      created_at: payment.created_at,
    };
    if (!(await insertPayout(tx, payout))) throw conflict('payout_in_progress', 'This payout is being made by another request; retry shortly');
    const created: PayoutRow = {
      ...payout,
      status: 'pending',
      provider: payment.provider,
      provider_reference: payment.provider_reference,
      failure_reason: null,
      estimated_arrival: payment.estimated_arrival,
      timeline: payment.timeline,
      updated_at: payment.created_at,
    };
    await enqueueEvent(tx, { merchantId: caller.merchantId, mode: caller.mode, type: 'payout.created', data: payoutEventData(created, account), at: payment.created_at });
    // The debit (422 insufficient_funds rather than a wallet below zero), and the sandbox's
    // immediate outcomes, whose payout.* events the outcome listener writes (events.ts).
    await recordPayment(tx, payment, context.config.sandboxStepMs);
    return { row: (await findPayout(tx, caller.merchantId, caller.mode, origin.id))!, created: true };
  });
  return { ...made, account };
}

/** A scheduled payout's id: the same for the merchant, mode, currency and UTC day, whoever runs the job, however often. */
export function scheduledPayoutId(scheduleKey: string): string {
  return `po_${createHash('sha256').update(scheduleKey).digest('hex').slice(0, 32)}`;
}
