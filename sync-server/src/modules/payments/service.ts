import { randomBytes, randomUUID } from 'node:crypto';
import { currencyOfCountry } from '@tapline/shared/countries';
import { convertMinor, type Decimal, formatDecimal, formatMinor, parseDecimal, percentOf, toMajor, toMinor } from '@tapline/shared/money';
import type { Config } from '../../config.ts';
import type { Database, Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import { enqueueEvent, enqueueEvents } from '../../events/outbox.ts';
import { type ApiError, badRequest, gone, notFound, unprocessable } from '../../http/errors.ts';
import { displayHandle, supportedCountry, supportedCurrency } from '../../http/validate.ts';
import { type AccountRef, systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { LedgerError, hasWalletAccount, transfer } from '../../ledger/ledger.ts';
import { type FxRateService, findQuote } from '../fx/index.ts';
import { type WalletRow, checkTierMovement, findWallet, findWalletById, hasTier, releaseTierMovement, tierRates } from '../wallets/index.ts';
import { debitBatcher } from './batcher.ts';
import { type PaymentMoney, debitRequest, postDebit, postRefund, postReversal, postSettlement } from './movements.ts';
import { AMOUNT_NOT_PAYABLE, type PayoutProvider, findPayoutProvider } from './providers.ts';
import { type Rail, RAIL_INFO, railAvailableIn } from './rails.ts';
import { type Receiver, type ReceiverInput, checkLiveReceiver, parseReceiver } from './receiver.ts';
import { notifyPaymentOutcomes, onPaymentOutcome } from './outcomes.ts';
import { type NewPayment, type PaymentKind, type PaymentRow, type Scenario, type TimelineEntry, findPayment, insertPayment, updatePayment } from './store.ts';
import { advanceSandboxPending, claimSandboxCompletions, completeSandboxPayments, lockPayment, stopScheduling } from './store-steps.ts';

export interface PaymentsDeps {
  db: Database;
  config: Config;
  now: () => Date;
  fx: FxRateService;
  payoutProviders: readonly PayoutProvider[];
}

/** The body of POST /api/pay, after schema validation. */
export interface PayBody {
  fromCode: string;
  toCode: string;
  rail: string;
  amount: number;
  currency: string;
  receiver: ReceiverInput;
  receiverName?: string | undefined;
  senderName?: string | undefined;
  note?: string | undefined;
  reference?: string | undefined;
  quoteId?: string | undefined;
}

export interface MerchantCaller {
  merchantId: string;
  handle: string;
  mode: Mode;
}

const SANDBOX_REFERENCES: Record<string, Scenario> = {
  test_success: 'sandbox_success',
  test_failure: 'sandbox_failure',
  test_pending: 'sandbox_pending',
  test_reversal: 'sandbox_reversal',
};

export const SANDBOX_FAILURE_REASON = 'The provider declined the payment (sandbox reference test_failure)';
export const SANDBOX_REVERSAL_REASON = 'The provider reversed the payment after it completed (sandbox reference test_reversal)';

/** A payment as the API shows it: both of the spec's response shapes' fields, and the record's. */
export function paymentRecord(row: PaymentRow, options: { owner: boolean }) {
  const receiver = row.receiver as Receiver;
  return {
    success: row.status !== 'failed' && row.status !== 'reversed',
    id: row.id,
    paymentId: row.id,
    transactionId: row.id,
    status: row.status,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    destinationAmount: toMajor(row.destination_amount, row.destination_currency),
    destinationCurrency: row.destination_currency,
    fxRate: Number(row.fx_rate),
    fee: toMajor(row.fee, row.currency),
    estimatedArrival: row.estimated_arrival.toISOString(),
    ...(row.failure_reason ? { failureReason: row.failure_reason } : {}),
    providerReference: row.provider_reference,
    timeline: row.timeline,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    ...(options.owner
      ? {
          mode: row.mode,
          rail: row.rail,
          fromCode: row.from_country,
          toCode: row.to_country,
          midRate: Number(row.mid_rate),
          quoteId: row.quote_id,
          receiver: publicReceiver(receiver),
          receiverName: row.receiver_name,
          senderName: row.sender_name,
          note: row.note,
          reference: row.reference,
          paymentLinkId: row.payment_link_id,
        }
      : {}),
  };
}

function publicReceiver(receiver: Receiver) {
  return {
    type: receiver.type,
    ...(receiver.phone ? { phone: receiver.phone } : {}),
    ...(receiver.accountNumber ? { accountNumber: receiver.accountNumber } : {}),
    ...(receiver.bankCode ? { bankCode: receiver.bankCode } : {}),
    ...(receiver.handle ? { handle: displayHandle(receiver.handle) } : {}),
    ...(receiver.provider ? { provider: receiver.provider } : {}),
    ...(receiver.name ? { name: receiver.name } : {}),
  };
}

/** The spec's payment.completed payload; payment.failed and payment.reversed add failureReason. */
export function paymentEventData(row: PaymentRow): Record<string, unknown> {
  return {
    paymentId: row.id,
    status: row.status,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    destinationAmount: toMajor(row.destination_amount, row.destination_currency),
    destinationCurrency: row.destination_currency,
    fxRate: Number(row.fx_rate),
    fee: toMajor(row.fee, row.currency),
    reference: row.reference,
    ...(row.status === 'failed' || row.status === 'reversed' ? { failureReason: row.failure_reason } : {}),
  };
}

export function moneyOf(row: PaymentRow): PaymentMoney {
  return {
    id: row.id,
    mode: row.mode,
    amount: row.amount,
    currency: row.currency,
    fee: row.fee,
    destinationAmount: row.destination_amount,
    destinationCurrency: row.destination_currency,
    sourceWalletId: row.source_wallet_id,
    provider: row.provider,
  };
}

/**
 * A final transition's event, and the news to the module that owns the payment's kind (payroll,
 * withdrawals). A withdrawal belongs to no merchant: it sends no event, its module tells the holder.
 */
async function emit(tx: Queryable, row: PaymentRow, at: Date): Promise<void> {
  if (row.merchant_id !== null) await enqueueEvent(tx, { merchantId: row.merchant_id, mode: row.mode, type: `payment.${row.status}`, data: paymentEventData(row), at });
  await notifyPaymentOutcomes(tx, [row], at);
}

/** Where an on-us payment's money lands: the recipient wallet in its currency. */
function recipientAccount(row: PaymentRow): AccountRef | undefined {
  return row.recipient_wallet_id ? walletAccount(row.recipient_wallet_id, row.destination_currency) : undefined;
}

// Transitions. Each runs inside the caller's transaction, with the payment row locked or just
// inserted: the ledger transfer, the state change and the event commit together or not at all.

export async function completePayment(
  tx: Queryable,
  row: PaymentRow,
  at: Date,
  note: string,
  change: { providerReference?: string | null; nextStepAt?: Date | null; settleInto?: AccountRef } = {},
): Promise<PaymentRow> {
  const updated = await updatePayment(tx, row.id, {
    status: 'completed',
    entry: { status: 'completed', at: at.toISOString(), note },
    at,
    nextStepAt: change.nextStepAt ?? null,
    ...(change.providerReference ? { providerReference: change.providerReference } : {}),
  });
  await emit(tx, updated, at);
  // The transfer last: the hot system accounts it locks are held only until the commit.
  if (row.scenario !== 'on_us' && row.scenario !== 'link') await postSettlement(tx, moneyOf(row), change.settleInto ?? recipientAccount(row));
  return updated;
}

/**
 * A payout its provider pays inside Tapline (the agent network's cash pickup: the agent hands the
 * cash over and its float takes the money from the rail clearing), completed in the caller's
 * transaction with the settlement into `into` instead of out through `funding`. Undefined when the
 * payment is not that provider's or is final already (nothing moves).
 */
export async function completePaymentInto(tx: Queryable, paymentId: string, provider: string, at: Date, note: string, into: AccountRef): Promise<PaymentRow | undefined> {
  const row = await lockPayment(tx, paymentId);
  if (!row || row.scenario !== 'provider' || row.provider !== provider) return undefined;
  if (row.status !== 'pending' && row.status !== 'processing') return undefined;
  return completePayment(tx, row, at, note, { settleInto: into });
}

export async function failPayment(tx: Queryable, row: PaymentRow, at: Date, reason: string, change: { providerReference?: string | null } = {}): Promise<PaymentRow> {
  const updated = await updatePayment(tx, row.id, {
    status: 'failed',
    entry: { status: 'failed', at: at.toISOString(), note: reason },
    at,
    nextStepAt: null,
    failureReason: reason,
    ...(change.providerReference ? { providerReference: change.providerReference } : {}),
  });
  await emit(tx, updated, at);
  await postRefund(tx, moneyOf(row));
  return updated;
}

export async function reversePayment(tx: Queryable, row: PaymentRow, at: Date, reason: string): Promise<PaymentRow> {
  const updated = await updatePayment(tx, row.id, {
    status: 'reversed',
    entry: { status: 'reversed', at: at.toISOString(), note: reason },
    at,
    nextStepAt: null,
    failureReason: reason,
  });
  await emit(tx, updated, at);
  const money = moneyOf(row);
  const recipient = recipientAccount(row);
  try {
    await postReversal(tx, money, recipient);
  } catch (error) {
    // A sandbox recipient who has spent the money already: sandbox funds absorb the reversal.
    if (!(error instanceof LedgerError && error.code === 'insufficient_funds' && recipient && row.mode === 'test')) throw error;
    await postReversal(tx, money);
  }
  return updated;
}

/** A sandbox payment's next automatic step, run by the scheduler when next_step_at is due. */
export async function sandboxStep(tx: Queryable, row: PaymentRow, at: Date, stepMs: number): Promise<PaymentRow | undefined> {
  if (row.scenario === 'sandbox_default' && row.status === 'pending') {
    return updatePayment(tx, row.id, {
      status: 'processing',
      entry: { status: 'processing', at: at.toISOString(), note: 'Sandbox: accepted by the simulated rail' },
      at,
      nextStepAt: new Date(at.getTime() + stepMs),
    });
  }
  if (row.scenario === 'sandbox_default' && row.status === 'processing') {
    return completePayment(tx, row, at, 'Sandbox: paid out by the simulated rail');
  }
  if (row.scenario === 'sandbox_reversal' && row.status === 'completed') {
    return reversePayment(tx, row, at, SANDBOX_REVERSAL_REASON);
  }
  // Nothing to do (a final state, or a scenario without automatic steps): stop scheduling it.
  await stopScheduling(tx, row.id);
  return undefined;
}

/**
 * Merchant wallets per database: a wallet's id, handle, mode and currency never change, so the
 * hot path of POST /api/pay reads them once instead of on every payment.
 */
const merchantWallets = new WeakMap<Queryable, Map<string, WalletRow>>();
const MERCHANT_WALLETS_CACHED_MAX = 10_000;

async function merchantWallet(db: Queryable, handle: string, mode: Mode): Promise<WalletRow | undefined> {
  let cache = merchantWallets.get(db);
  if (!cache) {
    cache = new Map();
    merchantWallets.set(db, cache);
  }
  const key = `${mode}:${handle}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const wallet = await findWallet(db, handle, mode);
  if (wallet?.owner_type === 'merchant') {
    if (cache.size >= MERCHANT_WALLETS_CACHED_MAX) cache.clear();
    cache.set(key, wallet);
  }
  return wallet;
}

/**
 * The sandbox default path in bulk: every due pending payment moves to processing in ONE
 * statement (a pure state change: no money moves, no event). Returns how many moved.
 */
export async function advanceSandboxBatch(db: Database, now: Date, stepMs: number, limit: number): Promise<number> {
  return advanceSandboxPending(db, now, new Date(now.getTime() + stepMs), limit);
}

/**
 * The sandbox default path's completion in bulk, in one short transaction: the due processing
 * payments (paid out to an outside rail; on-us sandbox payments take the one-by-one path) are
 * marked completed, their payment.completed events written, and their money settled out of
 * rail clearing by ONE transfer per destination currency (metadata lists the payments), posted
 * last so the hot clearing accounts stay locked only until the commit. Returns how many completed.
 */
export async function completeSandboxBatch(db: Database, now: Date, limit: number): Promise<number> {
  return db.transaction(async (tx) => {
    const due = await claimSandboxCompletions(tx, now, limit);
    if (due.length === 0) return 0;
    const rows = await completeSandboxPayments(tx, due, now);
    const merchantRows = rows.filter((row): row is PaymentRow & { merchant_id: string } => row.merchant_id !== null);
    await enqueueEvents(tx, merchantRows.map((row) => ({ merchantId: row.merchant_id, mode: row.mode, type: 'payment.completed', data: paymentEventData(row), at: now })));
    await notifyPaymentOutcomes(tx, rows, now);
    const byCurrency = new Map<string, { mode: Mode; amount: number; ids: string[] }[]>();
    for (const row of rows) {
      const groups = byCurrency.get(row.destination_currency) ?? [];
      let group = groups.find((candidate) => candidate.mode === row.mode);
      if (!group) {
        group = { mode: row.mode, amount: 0, ids: [] };
        groups.push(group);
      }
      group.amount += row.destination_amount;
      group.ids.push(row.id);
      byCurrency.set(row.destination_currency, groups);
    }
    for (const [currency, groups] of byCurrency) {
      for (const group of groups) {
        await transfer(tx, {
          id: `settle_batch:${randomBytes(12).toString('hex')}`,
          mode: group.mode,
          kind: 'payment_settlement',
          legs: [
            { account: systemAccount('rail_clearing', currency), amount: -group.amount },
            { account: systemAccount('funding', currency), amount: group.amount },
          ],
          metadata: { paymentIds: group.ids },
        });
      }
    }
    return rows.length;
  });
}

/** Resolves the FX rate: a locked quote's, or the current table's with the merchant spread. */
async function rateFor(deps: PaymentsDeps, caller: MerchantCaller, quoteId: string | undefined, from: string, to: string, now: Date): Promise<{ rate: Decimal; mid: Decimal; quoteId: string | null }> {
  if (quoteId) {
    const quote = await findQuote(deps.db, quoteId);
    if (!quote || quote.merchant_id !== caller.merchantId || quote.mode !== caller.mode) throw notFound('quote_not_found', `No FX quote ${quoteId}`);
    if (quote.from_currency !== from || quote.to_currency !== to) {
      throw badRequest('quote_mismatch', `Quote ${quoteId} is for ${quote.from_currency} -> ${quote.to_currency}, this payment is ${from} -> ${to}`);
    }
    if (quote.expires_at.getTime() <= now.getTime()) throw gone('quote_expired', `Quote ${quoteId} expired at ${quote.expires_at.toISOString()}; request a new one`);
    return { rate: parseDecimal(quote.rate), mid: parseDecimal(quote.mid_rate), quoteId: quote.id };
  }
  const snapshot = await deps.fx.snapshot();
  const { rate, mid } = deps.fx.merchantRate(snapshot, from, to);
  return { rate, mid, quoteId: null };
}

/**
 * Sandbox merchant wallets hold a float in the merchant's currency; a test payment in another
 * currency gets the same float in that currency the first time, so sandbox payments just work.
 */
export async function ensureSandboxFloat(deps: { db: Database; config: Config }, wallet: WalletRow, currency: string): Promise<void> {
  if (wallet.mode !== 'test' || wallet.owner_type !== 'merchant' || currency === wallet.currency || deps.config.sandboxFloat <= 0) return;
  if (await hasWalletAccount(deps.db, wallet.id, currency, 'test')) return;
  const amount = toMinor(deps.config.sandboxFloat, currency);
  await deps.db.transaction((tx) =>
    transfer(tx, {
      id: `sandbox_float:${wallet.merchant_id}:${currency}`,
      mode: 'test',
      kind: 'sandbox_float',
      legs: [
        { account: systemAccount('funding', currency), amount: -amount },
        { account: walletAccount(wallet.id, currency), amount },
      ],
    }),
  );
}

function sandboxReference(rail: Rail): string {
  // randomUUID draws from a pooled entropy buffer: no system call per payment.
  return `sbx_${rail}_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}

function railUnavailable(message: string): ApiError {
  return unprocessable('rail_unavailable', message);
}

/**
 * POST /api/pay: validates, prices (FX and fee), debits the merchant's wallet and records the
 * payment with its first state, all in one transaction; sandbox references and live on-us
 * transfers take their immediate transitions in the same transaction. `paymentId` is derived
 * from the Idempotency-Key, so a re-run returns the payment it already made.
 */
export async function createPayment(deps: PaymentsDeps, caller: MerchantCaller, body: PayBody, paymentId: string): Promise<{ row: PaymentRow; created: boolean }> {
  const payment = await preparePayment(deps, caller, body, paymentId);
  const { scenario } = payment;
  // Into a person's wallet: her verification tier (docs/wallet-tiers.md), checked and counted under
  // her wallet row's lock in the transaction that debits the merchant, so a refusal debits nothing.
  const recipient = payment.recipient_wallet_id ? await findWalletById(deps.db, payment.recipient_wallet_id) : undefined;
  if (recipient && hasTier(recipient)) {
    const rates = await tierRates(deps);
    return deps.db.transaction(async (tx) => {
      const existing = await findPayment(tx, paymentId);
      if (existing) return { row: existing, created: false };
      await checkTierMovement(deps, tx, recipient, recipientMovement(payment), rates);
      const row = await recordPayment(tx, payment, deps.config.sandboxStepMs);
      return row ? { row, created: true } : { row: (await findPayment(tx, paymentId))!, created: false };
    });
  }
  if (scenario === 'sandbox_default' || scenario === 'sandbox_pending' || scenario === 'provider') return insertWithDebit(deps.db, payment);

  return deps.db.transaction(async (tx) => {
    const row = await recordPayment(tx, payment, deps.config.sandboxStepMs);
    if (row) return { row, created: true };
    // The same request ran before (a re-run after a crash): answer with what it made.
    const existing = await findPayment(tx, paymentId);
    return { row: existing!, created: false };
  });
}

/** A payment into a person's wallet as her tier counts it: money in, in the wallet's currency. */
function recipientMovement(payment: Pick<NewPayment, 'id' | 'kind' | 'destination_amount' | 'destination_currency'>) {
  return { id: `${payment.id}:in`, kind: payment.kind === 'payroll' ? ('payroll_in' as const) : ('payout_in' as const), amount: payment.destination_amount, currency: payment.destination_currency };
}

/** A payment into a person's wallet that failed or was reversed never reached her (or was taken back): it stops counting against her tier. */
export async function releaseRecipientTier(tx: Queryable, rows: readonly PaymentRow[], at: Date): Promise<void> {
  for (const row of rows) if (row.recipient_wallet_id && (row.status === 'failed' || row.status === 'reversed')) await releaseTierMovement(tx, `${row.id}:in`, at);
}

/**
 * Validates and prices a payment (rail, receiver, scenario, FX, fee) without recording it: the
 * payment createPayment would write. Runs outside any transaction (it reads the FX table and may
 * post the sandbox float in its own). Payroll prices its rail items with it (kind 'payroll').
 */
export async function preparePayment(deps: PaymentsDeps, caller: MerchantCaller, body: PayBody, paymentId: string, kind: PaymentKind = 'payout'): Promise<NewPayment> {
  const now = deps.now();
  const fromCountry = supportedCountry(body.fromCode, 'fromCode');
  const toCountry = supportedCountry(body.toCode, 'toCode');
  const rail = body.rail as Rail;
  const currency = supportedCurrency(body.currency);
  const amount = toMinor(body.amount, currency);
  const receiver = parseReceiver(body.receiver, rail, toCountry);
  if (caller.mode === 'live') checkLiveReceiver(receiver, rail, toCountry);
  if (!railAvailableIn(rail, toCountry)) throw railUnavailable(`Rail ${rail} is not available in ${toCountry}`);

  const wallet = await merchantWallet(deps.db, caller.handle, caller.mode);
  if (!wallet) throw notFound('wallet_not_found', `The merchant has no ${caller.mode} wallet`);

  let scenario: Scenario;
  let provider: PayoutProvider | undefined;
  if (caller.mode === 'test') scenario = SANDBOX_REFERENCES[body.reference?.trim() ?? ''] ?? 'sandbox_default';
  else if (rail === 'wallet') scenario = 'on_us';
  else {
    provider = findPayoutProvider(deps.payoutProviders, rail, toCountry);
    if (!provider) throw railUnavailable(`No payout provider is configured for rail ${rail} to ${toCountry} in live mode`);
    scenario = 'provider';
  }

  let recipient: WalletRow | undefined;
  let destinationCurrency: string;
  if (rail === 'wallet') {
    recipient = await findWallet(deps.db, receiver.handle!, caller.mode);
    if (!recipient) throw notFound('recipient_not_found', `No ${caller.mode} wallet ${displayHandle(receiver.handle!)}`);
    if (recipient.id === wallet.id) throw badRequest('receiver_is_sender', 'A payment cannot go to the paying wallet itself');
    destinationCurrency = recipient.currency;
  } else {
    const countryCurrency = currencyOfCountry(toCountry);
    if (!countryCurrency) throw badRequest('country_not_supported', `No currency is known for ${toCountry}`);
    destinationCurrency = countryCurrency;
  }

  const { rate, mid, quoteId } = await rateFor(deps, caller, body.quoteId, currency, destinationCurrency, now);
  const destinationAmount = convertMinor(amount, currency, destinationCurrency, rate, 'down');
  if (destinationAmount <= 0) throw badRequest('amount_too_small', `${body.amount} ${currency} converts to less than the smallest unit of ${destinationCurrency}`);
  // A provider that pays only some amounts (M-Pesa: whole shillings) says so before any debit.
  const unpayable = provider?.refuseAmount?.(destinationAmount, destinationCurrency);
  if (unpayable) throw unprocessable(AMOUNT_NOT_PAYABLE, `${body.amount} ${currency} converts to ${formatMinor(destinationAmount, destinationCurrency)} ${destinationCurrency}, which ${provider!.name} cannot pay: ${unpayable}`);
  const fee = percentOf(amount, deps.config.feePercentByRail[rail] ?? '0', 'up');

  await ensureSandboxFloat(deps, wallet, currency);

  const stepMs = deps.config.sandboxStepMs;
  const timeline: TimelineEntry[] = [{ status: 'pending', at: now.toISOString(), note: 'Payment created; funds debited' }];
  let estimatedArrival = new Date(now.getTime() + RAIL_INFO[rail].typicalArrivalMs);
  if (scenario === 'sandbox_default' || scenario === 'sandbox_pending') estimatedArrival = new Date(now.getTime() + 2 * stepMs);
  else if (scenario !== 'provider') estimatedArrival = now;

  return {
    id: paymentId,
    merchant_id: caller.merchantId,
    mode: caller.mode,
    kind,
    status: 'pending',
    scenario,
    rail,
    from_country: fromCountry,
    to_country: toCountry,
    amount,
    currency,
    fee,
    destination_amount: destinationAmount,
    destination_currency: destinationCurrency,
    fx_rate: formatDecimal(rate),
    mid_rate: formatDecimal(mid),
    quote_id: quoteId,
    receiver,
    receiver_name: body.receiverName?.trim() || null,
    sender_name: body.senderName?.trim() || null,
    note: body.note ?? null,
    reference: body.reference ?? null,
    source_wallet_id: wallet.id,
    recipient_wallet_id: recipient?.id ?? null,
    payment_link_id: null,
    failure_reason: null,
    provider: provider?.name ?? null,
    provider_reference: caller.mode === 'test' ? sandboxReference(rail) : scenario === 'on_us' ? `${paymentId}:debit` : null,
    estimated_arrival: estimatedArrival,
    timeline,
    // The durable scheduler's next step: sandbox progress, a reversal, or the live provider submission.
    next_step_at: scenario === 'sandbox_default' || scenario === 'sandbox_reversal' ? new Date(now.getTime() + stepMs) : scenario === 'provider' ? now : null,
    created_at: now,
  };
}

/**
 * Records a prepared payment in the caller's transaction: inserts it, posts its debit and takes
 * the transitions its scenario takes at once (on-us and the sandbox references). Undefined when
 * a payment with its id exists already (a re-run). Throws LedgerError insufficient_funds.
 */
export async function recordPayment(tx: Queryable, payment: NewPayment, stepMs: number): Promise<PaymentRow | undefined> {
  const inserted = await insertPayment(tx, payment);
  if (!inserted) return undefined;
  const now = payment.created_at;
  const { scenario } = payment;
  let row = inserted;
  const money = moneyOf(row);
  if (scenario === 'on_us') {
    await postDebit(tx, money, walletAccount(row.recipient_wallet_id!, row.destination_currency));
    return completePayment(tx, row, now, 'Settled at once between Tapline wallets');
  }
  await postDebit(tx, money);
  if (scenario === 'sandbox_success') row = await completePayment(tx, row, now, 'Sandbox: completed (reference test_success)');
  // test_reversal completes first; the scheduler reverses it one step later.
  if (scenario === 'sandbox_reversal') row = await completePayment(tx, row, now, 'Sandbox: completed (reference test_reversal)', { nextStepAt: new Date(now.getTime() + stepMs) });
  if (scenario === 'sandbox_failure') row = await failPayment(tx, row, now, SANDBOX_FAILURE_REASON);
  return row;
}

/**
 * The hot path: a payment whose first state is pending is inserted and debited by one statement,
 * grouped with concurrent payments over the same accounts (see DebitBatcher), so the merchant
 * wallet's lock never waits on a client round trip and is taken once per group.
 */
async function insertWithDebit(db: Database, payment: NewPayment): Promise<{ row: PaymentRow; created: boolean }> {
  const row: PaymentRow = { ...payment, step_attempts: 0, updated_at: payment.created_at };
  const groupKey = `${payment.mode}:${payment.source_wallet_id}:${payment.currency}:${payment.destination_currency}`;
  const outcome = await debitBatcher(db).submit(groupKey, { ...row, last_step_error: null }, debitRequest(moneyOf(row)));
  if (outcome === 'payment_exists') {
    const existing = await findPayment(db, payment.id);
    return { row: existing!, created: false };
  }
  return { row, created: true };
}

export function payoutRequestOf(row: PaymentRow) {
  return {
    paymentId: row.id,
    rail: row.rail as Rail,
    toCountry: row.to_country ?? '',
    destinationAmount: row.destination_amount,
    destinationCurrency: row.destination_currency,
    receiver: row.receiver as Receiver,
    receiverName: row.receiver_name,
    senderName: row.sender_name,
    reference: row.reference,
    note: row.note,
  };
}


// A payout into a person's wallet that fails or is reversed gives her tier's room back (no statement for any other payout).
onPaymentOutcome('payout', releaseRecipientTier);
