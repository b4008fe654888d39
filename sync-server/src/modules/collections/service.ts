// Mobile money at the till (docs/till.md, "Mobile money at the till"): the till asks for a
// collection, the customer approves it on their phone, the collection completes on the provider's
// confirmation (a callback or a poll) and a till sale names it as its mobile_money tender.
// The same machinery tops up a holder's wallet from her phone (purpose wallet_top_up,
// docs/wallet-money.md) and an agent's float from the agent's own mobile money (purpose
// agent_float_top_up, docs/agents.md): only what is credited, and who is told, differ.
//
// A collection's row is its durable job: next_poll_at says when the sandbox answers, when the
// provider is asked again, or when it expires. Every change of state is applied under the row's
// lock, with its ledger transfer (one per collection, so never twice) and its event.
import { AMOUNT_MAJOR_MAX } from '@tapline/shared/limits';
import { createHash } from 'node:crypto';
import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js';
import { toMajor } from '@tapline/shared/money';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import { type Mode, newId } from '../../auth/secrets.ts';
import { enqueueEvent } from '../../events/outbox.ts';
import { badRequest, conflict, gone, notFound, unprocessable } from '../../http/errors.ts';
import { railClearing, systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { transfer, transferIds } from '../../ledger/ledger.ts';
import { type CollectionRequest, type CollectionUpdate, type RailAdapter, type RailProviderName, providersFor } from '../../rails/index.ts';
import { findMerchant } from '../merchants/index.ts';
import { type NewPayment, type PaymentRow, onPaymentOutcome, preparePayment, recordPayment } from '../payments/index.ts';
import { checkedCashierId } from '../till-staff/index.ts';
import { findMerchantWallet } from '../wallets/index.ts';
import { type CollectionPurpose, type CollectionRow, type TopUpPurpose, claimDueCollections, findCollection, insertCollection, lockCollection, lockCollectionFresh, reopenReturns, updateCollection } from './store.ts';

/**
 * Told, inside the transaction that ends a collection of a purpose other than a till sale (a
 * wallet top-up), that it ended: the module that owns the purpose records its news (the holder's
 * notification) in the same commit as the state and the ledger transfer. A till sale's collection
 * sends its merchant's pos.collection.* event instead.
 */
export type CollectionOutcomeListener = (tx: Queryable, row: CollectionRow, at: Date) => Promise<void>;
const outcomeListeners = new Map<CollectionPurpose, CollectionOutcomeListener>();
/** One listener per purpose; registering again replaces it (every app built in a process registers the same one). */
export function onCollectionOutcome(purpose: TopUpPurpose, listener: CollectionOutcomeListener): void {
  outcomeListeners.set(purpose, listener);
}

/** Who tops up: the signed-in holder's wallet. */
export interface TopUpCaller {
  walletId: string;
  mode: Mode;
  /** The wallet's country (local phone forms, the provider's route) and currency (the only one it tops up in). */
  country: string;
  currency: string;
}

export interface CreateTopUpBody {
  amountMinor: number;
  feeMinor: number;
  currency: string;
  phone: string;
}

/** Who asks: a terminal (its token) or the merchant's own key, in one mode. */
export interface CollectionCaller {
  merchantId: string;
  mode: Mode;
  terminalId: string | null;
}

/** Who gave a collection back, in which shift (POST /api/pos/collections/{id}/return), and the payout's reference. */
export interface ReturnCollectionBody {
  cashierId?: string | undefined;
  shiftId?: string | undefined;
  reference?: string | undefined;
}

/**
 * The payout that gives a collection back to its phone, the `attempt`-th (a payout the provider
 * failed makes the collection returnable again): its id derives from the collection's and the
 * attempt's, so a retry, a second call or two at once make one payout per attempt (the payments'
 * primary key refuses a second). The first attempt's id is the one migration 056 gave.
 */
export function collectionReturnPaymentId(collectionId: string, attempt = 1): string {
  const seed = attempt === 1 ? `collection-return:${collectionId}` : `collection-return:${collectionId}:${attempt}`;
  return `pay_${createHash('sha256').update(seed).digest('hex').slice(0, 32)}`;
}

/**
 * The payout that pays a collection's phone back (a refunded till sale's mobile money part, a
 * cancelled split sale's): a mobile_money payment of `amountMinor` from the merchant's wallet to the
 * phone that paid, its fee the merchant's on top, priced outside any transaction (payments'
 * preparePayment; the caller records it with its debit in its own transaction).
 */
export function preparePayback(
  context: Pick<AppContext, 'db' | 'config' | 'now' | 'fx' | 'payoutProviders'>,
  merchant: { id: string; handle: string; country: string; name: string },
  collection: Pick<CollectionRow, 'mode' | 'country' | 'currency' | 'phone'>,
  amountMinor: number,
  note: string,
  paymentId: string,
  reference?: string,
): Promise<NewPayment> {
  return preparePayment(
    { db: context.db, config: context.config, now: context.now, fx: context.fx, payoutProviders: context.payoutProviders },
    { merchantId: merchant.id, handle: merchant.handle, mode: collection.mode },
    {
      fromCode: merchant.country,
      toCode: collection.country,
      rail: 'mobile_money',
      amount: toMajor(amountMinor, collection.currency),
      currency: collection.currency,
      receiver: collection.phone,
      receiverName: 'Customer',
      senderName: merchant.name,
      note,
      ...(reference === undefined ? {} : { reference }),
    },
    paymentId,
  );
}

export interface CreateCollectionBody {
  amountMinor: number;
  currency: string;
  phone: string;
  description?: string | undefined;
}

/**
 * The sandbox's magic numbers (test mode): the last four digits of the phone's national number.
 * Any other valid number approves after SANDBOX_STEP_MS.
 */
export const SANDBOX_PHONE_SUFFIXES = {
  declined: '0002',
  insufficient_funds: '0003',
  no_answer: '0004',
} as const;
type SandboxOutcome = 'success' | keyof typeof SANDBOX_PHONE_SUFFIXES;

/** Failure codes a till shows in words (terminal i18n: mobileMoney.failure.<code>). */
export type CollectionFailureCode = 'declined' | 'insufficient_funds' | 'no_answer' | 'invalid_phone' | 'provider_error';

const SANDBOX_REASONS: Record<Exclude<SandboxOutcome, 'success' | 'no_answer'>, string> = {
  declined: 'The customer declined the payment on their phone (sandbox number ending 0002)',
  insufficient_funds: 'The customer\'s mobile money balance is too low (sandbox number ending 0003)',
};
const EXPIRED_REASON = 'The customer did not approve the payment in time';
const DESCRIPTION_MAX = 100;
const JOB_BATCH = 50;

function sandboxOutcomeOf(nationalNumber: string): SandboxOutcome {
  for (const [outcome, suffix] of Object.entries(SANDBOX_PHONE_SUFFIXES)) if (nationalNumber.endsWith(suffix)) return outcome as SandboxOutcome;
  return 'success';
}

/** A provider's failure sentence read as one of the codes a till explains. */
export function failureCodeOf(reason: string | undefined): CollectionFailureCode {
  const text = reason ?? '';
  if (/insufficient|not_enough_funds|balance is/i.test(text)) return 'insufficient_funds';
  if (/timeout|timed out|expired|cannot be reached|no answer/i.test(text)) return 'no_answer';
  if (/not a valid phone|not a kenyan mobile|payer_not_found|does not collect from/i.test(text)) return 'invalid_phone';
  if (/declin|cancel|reject|did not pay/i.test(text)) return 'declined';
  return 'provider_error';
}

/** E.164 of what the cashier typed: international (+...) or the merchant country's local form. */
export function normalisePhone(input: string, country: string): { e164: string; country: string; national: string } {
  const parsed = parsePhoneNumberFromString(input.trim(), country as CountryCode);
  if (!parsed || !parsed.isValid()) {
    throw badRequest('invalid_phone', `${JSON.stringify(input.slice(0, 32))} is not a valid phone number: type it with its country code (+254...) or in the local form of ${country}`);
  }
  return { e164: parsed.number, country: parsed.country ?? country, national: String(parsed.nationalNumber) };
}

/** The phone as answers show it: the country code and the last three digits. */
export function maskPhone(e164: string): string {
  const parsed = parsePhoneNumberFromString(e164);
  const code = parsed ? `+${parsed.countryCallingCode}` : e164.slice(0, 4);
  const rest = e164.slice(code.length);
  return `${code}${'•'.repeat(Math.max(rest.length - 3, 0))}${rest.slice(-3)}`;
}

export function collectionRecord(row: CollectionRow) {
  return {
    id: row.id,
    status: row.status,
    amountMinor: row.amount,
    currency: row.currency,
    phone: maskPhone(row.phone),
    provider: row.provider,
    terminalId: row.terminal_id,
    ...(row.description ? { description: row.description } : {}),
    ...(row.provider_reference ? { providerReference: row.provider_reference } : {}),
    ...(row.failure_code ? { failureCode: row.failure_code } : {}),
    ...(row.failure_reason ? { failureReason: row.failure_reason } : {}),
    ...(row.cancelled_at ? { cancelledAt: row.cancelled_at.toISOString() } : {}),
    claimedBy: row.claimed_by ?? null,
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    ...(row.status === 'completed' && row.ended_at ? { completedAt: row.ended_at.toISOString() } : {}),
    returnedAt: row.returned_at?.toISOString() ?? null,
    returnPaymentId: row.return_payment_id,
    returnAttempts: row.return_attempts,
  };
}

function eventData(row: CollectionRow): Record<string, unknown> {
  return {
    collectionId: row.id,
    merchantId: row.merchant_id,
    terminalId: row.terminal_id,
    status: row.status,
    amount: toMajor(row.amount, row.currency),
    amountMinor: row.amount,
    currency: row.currency,
    phone: maskPhone(row.phone),
    provider: row.provider,
    providerReference: row.provider_reference,
    transferId: row.transfer_id,
    failureCode: row.failure_code,
    failureReason: row.failure_reason,
    cancelledAt: row.cancelled_at?.toISOString() ?? null,
    endedAt: row.ended_at?.toISOString() ?? null,
  };
}

/** What a collection ending is announced as: the till's event, or the top-up's listener. */
async function announce(tx: Queryable, row: CollectionRow, at: Date): Promise<void> {
  if (row.purpose === 'till_sale') {
    await enqueueEvent(tx, { merchantId: row.merchant_id!, mode: row.mode, type: `pos.collection.${row.status}`, data: eventData(row), at });
    return;
  }
  await outcomeListeners.get(row.purpose)?.(tx, row, at);
}

/** pos.collection.returned: the collection's fields, and the payout that gave it back (its fee paid by the merchant on top). */
function returnEventData(row: CollectionRow, fee: number): Record<string, unknown> {
  return {
    ...eventData(row),
    returnedAt: row.returned_at?.toISOString() ?? null,
    returnPaymentId: row.return_payment_id,
    returnFee: toMajor(fee, row.currency),
    returnFeeMinor: fee,
    cashierId: row.return_cashier_id,
    shiftId: row.return_shift_id,
    returnAttempts: row.return_attempts,
  };
}

/**
 * Payouts' outcomes (payments' listener, in the transaction that fails or reverses them): a payout
 * that gave a collection back and did not reach the phone makes the collection returnable again,
 * announced by pos.collection.return_failed (the collection's fields, the payout, its status and
 * the provider's reason). The merchant's wallet has its debit back by the same transaction.
 */
export async function reopenFailedReturns(tx: Queryable, rows: readonly PaymentRow[], at: Date): Promise<void> {
  const failed = rows.filter((row) => (row.status === 'failed' || row.status === 'reversed') && row.rail === 'mobile_money');
  if (failed.length === 0) return;
  for (const { row, failedPaymentId } of await reopenReturns(tx, failed.map((payment) => payment.id), at)) {
    const payment = failed.find((candidate) => candidate.id === failedPaymentId)!;
    await enqueueEvent(tx, {
      merchantId: row.merchant_id!,
      mode: row.mode,
      type: 'pos.collection.return_failed',
      data: { ...eventData(row), returnAttempts: row.return_attempts, failedPaymentId, paymentStatus: payment.status, paymentFailureReason: payment.failure_reason },
      at,
    });
  }
}

onPaymentOutcome('payout', reopenFailedReturns, 'collection-returns');

export function collectionNotFound(id: string) {
  return notFound('collection_not_found', `No mobile-money collection ${id.slice(0, 80)}`);
}

/** What a step or a callback found: the provider's word, or the wait's end. */
type Outcome = { status: 'completed'; providerReference?: string | undefined } | { status: 'failed'; code: CollectionFailureCode; reason: string; providerReference?: string | undefined } | { status: 'expired'; reason?: string | undefined };

function outcomeOf(update: CollectionUpdate): Outcome | undefined {
  if (update.status === 'completed') return { status: 'completed', providerReference: update.providerReference };
  if (update.status === 'failed') {
    const reason = update.failureReason ?? 'The provider declined the payment';
    return { status: 'failed', code: failureCodeOf(reason), reason, providerReference: update.providerReference };
  }
  return undefined;
}

export function collectionService(context: AppContext, log: (message: string, detail?: Record<string, unknown>) => void = () => undefined) {
  const { db, config } = context;
  const pollMs = () => Math.max(config.collectionPollMs, 1000);

  /**
   * The configured adapter that collects in the merchant's country: the route table's mobile_money
   * order, the first with collect that does not say it cannot collect there (collectsIn).
   */
  function liveAdapter(country: string): RailAdapter | undefined {
    const names: readonly RailProviderName[] = providersFor(context.rails.routes, 'mobile_money', country);
    const ordered = [...names, ...[...context.rails.adapters.keys()].filter((name) => !names.includes(name))];
    return ordered
      .map((name) => context.rails.adapters.get(name))
      .find((adapter) => adapter?.collect !== undefined && adapter.collectionStatus !== undefined && adapter.collectsIn?.(country) !== false);
  }

  const requestOf = (row: CollectionRow): CollectionRequest => ({
    collectionId: row.id,
    // A top-up's fee is paid by the phone on top of what the wallet receives.
    amount: row.amount + row.fee,
    currency: row.currency,
    phone: row.phone,
    description: row.description ?? 'Tapline',
  });

  /**
   * A completion whose provider record is for another amount or currency than the collection asked
   * (amount + fee) is never credited as this collection: it reads as no answer, and is logged.
   */
  const creditable = (row: CollectionRow, update: CollectionUpdate | undefined): CollectionUpdate | undefined => {
    const paid = update?.status === 'completed' ? update.paid : undefined;
    if (!paid || (paid.amount === requestOf(row).amount && (paid.currency === undefined || paid.currency === row.currency))) return update;
    log('collection completed at the provider for another amount than asked; not credited', { collectionId: row.id, paid: paid.amount, currency: paid.currency, asked: requestOf(row).amount });
    return undefined;
  };

  /**
   * Applies an outcome under the row's lock, idempotently in any order: a completion is applied to
   * a pending, cancelled or expired collection (money the customer paid is never lost: a late one is
   * recorded as completed, unclaimed); a failure or an expiry ends only a pending one (a cancelled
   * one just stops being asked). State, ledger transfer and event commit together.
   */
  async function settle(id: string, outcome: Outcome): Promise<'applied' | 'unchanged' | 'unknown'> {
    const now = context.now();
    return db.transaction(async (tx) => {
      const row = await lockCollection(tx, id);
      if (!row) return 'unknown';
      return settleLocked(tx, row, outcome, now);
    });
  }

  async function settleLocked(tx: Queryable, row: CollectionRow, outcome: Outcome, now: Date): Promise<'applied' | 'unchanged'> {
    if (outcome.status === 'completed') {
      if (row.status === 'completed' || row.status === 'failed') return 'unchanged';
      const transferId = transferIds.posCollection(row.id);
      await transfer(tx, {
        id: transferId,
        mode: row.mode,
        kind: row.purpose === 'till_sale' ? 'pos_collection' : row.purpose,
        legs: [
          // Live: the money is at the provider until it settles to the platform, in that provider's own
          // clearing account (rail_clearing:<provider>, as its payouts); sandbox: the test faucet.
          { account: row.provider === 'sandbox' ? systemAccount('funding', row.currency) : railClearing(row.currency, row.provider), amount: -(row.amount + row.fee) },
          { account: walletAccount(row.merchant_wallet_id, row.currency), amount: row.amount },
          ...(row.fee > 0 ? [{ account: systemAccount('fees', row.currency), amount: row.fee }] : []),
        ],
        metadata: { collectionId: row.id, provider: row.provider, ...(row.terminal_id ? { terminalId: row.terminal_id } : {}) },
      });
      const ended = await updateCollection(tx, row.id, {
        status: 'completed',
        transfer_id: transferId,
        failure_code: null,
        failure_reason: null,
        next_poll_at: null,
        ended_at: now,
        ...(outcome.providerReference ? { provider_reference: outcome.providerReference } : {}),
      }, now);
      await announce(tx, ended, now);
      return 'applied';
    }
    if (row.status === 'cancelled') {
      if (row.next_poll_at === null) return 'unchanged';
      await updateCollection(tx, row.id, { next_poll_at: null }, now);
      return 'applied';
    }
    if (row.status !== 'pending') return 'unchanged';
    const ended = await updateCollection(tx, row.id, outcome.status === 'failed'
      ? { status: 'failed', failure_code: outcome.code, failure_reason: outcome.reason, next_poll_at: null, ended_at: now, ...(outcome.providerReference ? { provider_reference: outcome.providerReference } : {}) }
      : { status: 'expired', failure_code: 'no_answer', failure_reason: outcome.reason ?? EXPIRED_REASON, next_poll_at: null, ended_at: now }, now);
    await announce(tx, ended, now);
    return 'applied';
  }

  /** One step of a due collection: the sandbox's answer, a poll at the provider, or the expiry (after one last query). */
  async function step(row: CollectionRow): Promise<void> {
    const now = context.now();
    const expired = now.getTime() >= row.expires_at.getTime();
    if (row.provider === 'sandbox') {
      const outcome = row.sandbox_outcome as SandboxOutcome | null;
      if (expired || outcome === 'no_answer') {
        if (expired) await settle(row.id, { status: 'expired' });
        else await db.transaction(async (tx) => void (await updateCollection(tx, row.id, { next_poll_at: row.expires_at }, now)));
        return;
      }
      if (outcome === 'declined' || outcome === 'insufficient_funds') await settle(row.id, { status: 'failed', code: outcome, reason: SANDBOX_REASONS[outcome] });
      else await settle(row.id, { status: 'completed', providerReference: `sandbox_${row.id.slice(-12)}` });
      return;
    }
    const adapter = context.rails.adapters.get(row.provider as RailProviderName);
    let update: CollectionUpdate | undefined;
    try {
      if (!adapter?.collectionStatus) throw new Error(`provider ${row.provider} is no longer configured for collections`);
      // M-Pesa's status takes the CheckoutRequestID collect returned (rails/mpesa/adapter.ts).
      const status = adapter.collectionStatus as (request: CollectionRequest, reference?: string) => Promise<CollectionUpdate>;
      update = creditable(row, await status.call(adapter, requestOf(row), row.provider_reference ?? undefined));
    } catch (error) {
      log('collection status query failed; asked again later', { collectionId: row.id, error: String((error as Error)?.message ?? error) });
    }
    const outcome = update ? outcomeOf(update) : undefined;
    if (outcome) {
      await settle(row.id, outcome);
      return;
    }
    if (expired) {
      // The provider could not say (M-Pesa without the CheckoutRequestID of a push whose answer a
      // crash lost): the expiry says so, as the customer may have been prompted and may pay. Such
      // a payment still completes the collection when the provider's callback arrives (settle).
      const unknown = update?.status === 'pending' && update.failureReason ? `${EXPIRED_REASON} as far as the server can tell: ${update.failureReason}` : undefined;
      await settle(row.id, { status: 'expired', reason: unknown });
      return;
    }
    await db.transaction(async (tx) => {
      const locked = await lockCollection(tx, row.id);
      if (!locked || locked.next_poll_at === null) return;
      const next = new Date(Math.min(now.getTime() + pollMs(), locked.expires_at.getTime()));
      await updateCollection(tx, row.id, {
        next_poll_at: next,
        ...(update ? {} : { poll_errors: locked.poll_errors + 1 }),
        ...(update?.providerReference && !locked.provider_reference ? { provider_reference: update.providerReference } : {}),
      }, now);
    });
  }

  /** A collection as its merchant sees it; a sandbox one due for its step is stepped first (reads never wait for the job). */
  async function current(row: CollectionRow): Promise<CollectionRow> {
    if (row.provider !== 'sandbox' || row.next_poll_at === null || row.next_poll_at.getTime() > context.now().getTime()) return row;
    await step(row);
    return (await findCollection(db, row.id)) ?? row;
  }

  async function visible(caller: CollectionCaller, id: string): Promise<CollectionRow> {
    const row = await findCollection(db, id);
    if (!row || row.purpose !== 'till_sale' || row.merchant_id !== caller.merchantId || row.mode !== caller.mode) throw collectionNotFound(id);
    // A till reads, cancels and gives back its own collections only; the merchant's key, all of them.
    if (caller.terminalId !== null && row.terminal_id !== caller.terminalId) throw collectionNotFound(id);
    return row;
  }

  /**
   * Records a new collection and, live, asks the provider's phone prompt once. A retry with the
   * same (derived) id finds the first run's row and never prompts the phone twice.
   */
  async function open(fields: Omit<Parameters<typeof insertCollection>[1], 'provider' | 'sandboxOutcome' | 'nextPollAt' | 'createdAt' | 'expiresAt'>, national: string, adapter: RailAdapter | undefined): Promise<CollectionRow> {
    const createdAt = context.now();
    const { row, created } = await insertCollection(db, {
      ...fields,
      provider: adapter?.name ?? 'sandbox',
      sandboxOutcome: fields.mode === 'test' ? sandboxOutcomeOf(national) : null,
      nextPollAt: new Date(createdAt.getTime() + (adapter ? pollMs() : config.sandboxStepMs)),
      createdAt,
      expiresAt: new Date(createdAt.getTime() + config.collectionTimeoutSeconds * 1000),
    });
    // A retry (same Idempotency-Key, even after a crash) finds the first run's row and never asks the phone twice.
    if (!created || !adapter?.collect) return current(row);
    let update: CollectionUpdate | undefined;
    try {
      update = creditable(row, await adapter.collect(requestOf(row)));
    } catch (error) {
      // Unknown outcome (a timeout, a 5xx): never pushed again; the job asks the provider's status.
      log('collection request: outcome unknown, its status is polled', { collectionId: row.id, error: String((error as Error)?.message ?? error) });
    }
    const outcome = update ? outcomeOf(update) : undefined;
    if (outcome) await settle(row.id, outcome);
    else if (update?.providerReference) {
      // Under the row's lock and only while none is stored: a callback or a poll may have ended
      // the collection while the request was on its way (its receipt is the reference then),
      // and a slow answer must not write the request's id over it.
      await db.transaction(async (tx) => {
        const locked = await lockCollection(tx, row.id);
        if (locked && !locked.provider_reference) await updateCollection(tx, row.id, { provider_reference: update.providerReference! }, context.now());
      });
    }
    return (await findCollection(db, row.id)) ?? row;
  }

  return {
    async create(caller: CollectionCaller, body: CreateCollectionBody, derivedId: string | undefined): Promise<CollectionRow> {
      const merchant = await findMerchant(db, caller.merchantId);
      if (!merchant) throw notFound('merchant_not_found', 'Merchant not found');
      const currency = body.currency.trim().toUpperCase();
      if (currency !== merchant.currency) throw badRequest('currency_not_accepted', `This merchant collects in ${merchant.currency} only, not ${body.currency.slice(0, 8)}`);
      if (!Number.isSafeInteger(body.amountMinor) || body.amountMinor <= 0) throw badRequest('invalid_amount', 'amountMinor must be a positive whole number of minor units');
      if (toMajor(body.amountMinor, currency) > AMOUNT_MAJOR_MAX) throw badRequest('invalid_amount', `amountMinor must be at most ${AMOUNT_MAJOR_MAX} ${currency} in major units`);
      const phone = normalisePhone(body.phone, merchant.country);
      const description = body.description?.trim().slice(0, DESCRIPTION_MAX) || null;
      const wallet = await findMerchantWallet(db, caller.merchantId, caller.mode);
      if (!wallet) throw notFound('wallet_not_found', `The merchant has no ${caller.mode} wallet`);
      const adapter = caller.mode === 'live' ? liveAdapter(merchant.country) : undefined;
      if (caller.mode === 'live' && !adapter) {
        throw unprocessable('collection_unavailable', `No mobile-money collection provider is configured for ${merchant.country} on this server: take another tender`);
      }
      return open({
        id: derivedId ?? newId('col'),
        purpose: 'till_sale',
        merchantId: caller.merchantId,
        mode: caller.mode,
        merchantWalletId: wallet.id,
        terminalId: caller.terminalId,
        amount: body.amountMinor,
        fee: 0,
        currency,
        phone: phone.e164,
        country: phone.country,
        description,
      }, phone.national, adapter);
    },

    /** The provider a top-up in this wallet's country goes to now: sandbox in test mode, undefined when none collects there (live). */
    topUpProvider(caller: Pick<TopUpCaller, 'mode' | 'country'>): string | undefined {
      return caller.mode === 'test' ? 'sandbox' : liveAdapter(caller.country)?.name;
    },

    /**
     * A holder tops up her wallet from her phone: the same collection as a till's (sandbox magic
     * numbers, providers, callbacks, polls, expiry), crediting her wallet with amount once it is
     * confirmed; the phone is asked for amount + fee.
     */
    async createTopUp(caller: TopUpCaller, body: CreateTopUpBody, derivedId: string | undefined, purpose: TopUpPurpose = 'wallet_top_up'): Promise<CollectionRow> {
      const currency = body.currency.trim().toUpperCase();
      if (currency !== caller.currency) throw badRequest('currency_not_accepted', `This wallet is topped up in ${caller.currency} only, not ${body.currency.slice(0, 8)}`);
      if (!Number.isSafeInteger(body.amountMinor) || body.amountMinor <= 0) throw badRequest('invalid_amount', 'amount must be positive');
      const phone = normalisePhone(body.phone, caller.country);
      const adapter = caller.mode === 'live' ? liveAdapter(caller.country) : undefined;
      if (caller.mode === 'live' && !adapter) {
        throw unprocessable('top_up_unavailable', `No mobile-money collection provider is configured for ${caller.country} on this server`);
      }
      return open({
        id: derivedId ?? newId('col'),
        purpose,
        merchantId: null,
        mode: caller.mode,
        merchantWalletId: caller.walletId,
        terminalId: null,
        amount: body.amountMinor,
        fee: body.feeMinor,
        currency,
        phone: phone.e164,
        country: phone.country,
        description: purpose === 'agent_float_top_up' ? 'Tapline agent float top-up' : 'Tapline wallet top-up',
      }, phone.national, adapter);
    },

    /** One of the holder's top-ups (stepped first when the sandbox's answer is due); 404 top_up_not_found otherwise. */
    async getTopUp(caller: Pick<TopUpCaller, 'walletId' | 'mode'>, id: string, purpose: TopUpPurpose = 'wallet_top_up'): Promise<CollectionRow> {
      const row = await findCollection(db, id);
      if (!row || row.purpose !== purpose || row.merchant_wallet_id !== caller.walletId || row.mode !== caller.mode) {
        throw notFound('top_up_not_found', `No top-up ${id.slice(0, 80)} of this wallet`);
      }
      return current(row);
    },

    /** Brings a listed sandbox top-up up to date, like a read does. */
    current,

    async get(caller: CollectionCaller, id: string): Promise<CollectionRow> {
      return current(await visible(caller, id));
    },

    /**
     * The till stops waiting. A pending collection becomes cancelled; the provider is still asked
     * until its expiry, and a confirmation that arrives later is recorded as completed (unclaimed,
     * for the merchant to refund). Cancelling a cancelled one answers it again; an expired one is a 410, another ended one a 409.
     */
    async cancel(caller: CollectionCaller, id: string): Promise<CollectionRow> {
      const seen = await current(await visible(caller, id));
      if (seen.status === 'cancelled') return seen;
      const now = context.now();
      const row = await db.transaction(async (tx) => {
        const locked = await lockCollection(tx, id);
        if (!locked || locked.status !== 'pending') return locked;
        return updateCollection(tx, id, { status: 'cancelled', cancelled_at: now, ended_at: now }, now);
      });
      if (!row) throw collectionNotFound(id);
      if (row.status === 'expired') throw gone('collection_expired', `Collection ${id} expired at ${row.expires_at.toISOString()}: nothing to cancel`);
      if (row.status !== 'cancelled') throw conflict('collection_not_pending', `Collection ${id} is ${row.status}: it can no longer be cancelled`);
      return row;
    },

    /**
     * Gives a completed collection that no till sale claims back to the phone that paid (docs/till.md,
     * "Cancel a split sale"): a mobile_money payout of its whole amount from the merchant's wallet
     * (the sandbox in test mode), the payout's fee paid by the merchant on top, as for a refund. The
     * payout is priced outside the transaction (payments' preparePayment); under the collection's
     * lock the transaction checks it again, records the payout with its debit (recordPayment),
     * marks the collection returned and sends pos.collection.returned. A returned collection answers
     * the same record again and is never a till sale's tender. A terminal gives back its own
     * collections only.
     */
    async returnToPhone(caller: CollectionCaller, id: string, body: ReturnCollectionBody): Promise<CollectionRow> {
      const seen = await current(await visible(caller, id));
      if (seen.returned_at !== null) return seen;
      const refuse = (row: CollectionRow) => {
        if (row.status !== 'completed') {
          throw conflict('collection_not_completed', `Collection ${id} is ${row.status}: only a completed collection took money to give back`);
        }
        if (row.claimed_by) {
          throw conflict('collection_claimed', `Collection ${id} pays till sale ${row.claimed_by}: refund that sale, and its refund pays the phone back`);
        }
      };
      refuse(seen);
      const cashierId = await checkedCashierId(db, seen.merchant_id!, body.cashierId);
      const merchant = await findMerchant(db, seen.merchant_id!);
      if (!merchant) throw collectionNotFound(id);
      const attempt = seen.return_attempts + 1;
      const payment = await preparePayback(context, merchant, seen, seen.amount, `Mobile money collection ${id} given back`, collectionReturnPaymentId(id, attempt), body.reference);
      const now = context.now();
      return db.transaction(async (tx) => {
        const locked = await lockCollectionFresh(tx, id);
        if (!locked) throw collectionNotFound(id);
        // Another call got in first (a retry, a second till, two at once): its return is the answer.
        if (locked.returned_at !== null) return locked;
        refuse(locked);
        // Another call's payout was sent and has already failed since we read: ask again, afresh.
        if (locked.return_attempts !== seen.return_attempts) {
          throw conflict('collection_return_changed', `Collection ${id} was given back meanwhile and that payout failed: send the return again`);
        }
        // The collection names its payout before the payout is recorded: a payout that fails at once
        // (the sandbox's test_failure) makes the collection returnable again in this transaction.
        const returned = await updateCollection(tx, id, {
          returned_at: now,
          return_payment_id: payment.id,
          return_cashier_id: cashierId,
          return_shift_id: body.shiftId?.toLowerCase() ?? null,
          return_attempts: attempt,
        }, now);
        await enqueueEvent(tx, { merchantId: returned.merchant_id!, mode: returned.mode, type: 'pos.collection.returned', data: returnEventData(returned, payment.fee), at: now });
        await recordPayment(tx, payment, config.sandboxStepMs);
        return (await findCollection(tx, id))!;
      });
    },

    /** A provider's verified callback (rails/routes.ts). */
    async applyCallback(collectionId: string, providerName: string, update: CollectionUpdate): Promise<'applied' | 'unchanged' | 'unknown_collection'> {
      const row = await findCollection(db, collectionId);
      if (!row || row.provider !== providerName) return 'unknown_collection';
      // Another amount than asked: not applied (the job's poll asks the provider again).
      if (!creditable(row, update)) return 'unchanged';
      const outcome = outcomeOf(update);
      if (!outcome) {
        if (update.providerReference && !row.provider_reference) {
          await db.transaction(async (tx) => void (await updateCollection(tx, row.id, { provider_reference: update.providerReference! }, context.now())));
        }
        return 'unchanged';
      }
      const applied = await settle(collectionId, outcome);
      return applied === 'unknown' ? 'unknown_collection' : applied;
    },

    /** Steps every due collection once; answers how many. */
    async runOnce(): Promise<number> {
      let total = 0;
      for (;;) {
        const due = await claimDueCollections(db, context.now(), Math.max(4 * config.railTimeoutMs, 30_000), JOB_BATCH);
        for (const row of due) await step(row);
        total += due.length;
        if (due.length < JOB_BATCH) return total;
      }
    },
  };
}

export type CollectionService = ReturnType<typeof collectionService>;
