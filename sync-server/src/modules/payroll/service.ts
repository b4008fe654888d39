import { PAYROLL_ITEMS_MAX } from '@tapline/shared/limits';
import { createHash } from 'node:crypto';
import { MoneyError, toMajor, toMinor } from '@tapline/shared/money';
import { type PayrollItemInput } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import { newId } from '../../auth/secrets.ts';
import { enqueueEvent } from '../../events/outbox.ts';
import { ApiError, badRequest, conflict, notFound, unprocessable } from '../../http/errors.ts';
import { canonicalHandle, displayHandle, supportedCountry, supportedCurrency } from '../../http/validate.ts';
import { walletAccount } from '../../ledger/accounts.ts';
import { TRANSFER_LEGS_MAX, type TransferLeg, transfer } from '../../ledger/ledger.ts';
import { findMerchant } from '../merchants/index.ts';
import { type NewPayment, type PaymentRow, type Rail, ensureSandboxFloat, onPaymentOutcome, parseReceiver, preparePayment, railAvailableIn, recordPayment } from '../payments/index.ts';
import { checkTierMovement, findWallet, findWalletById, hasTier, tierRates, walletIdsIn } from '../wallets/index.ts';
import {
  type NewPayrollItem,
  type PayrollItemRow,
  type PayrollRunRow,
  type PayrollRunSummary,
  type PayrollScope,
  countItems,
  deleteItem,
  findItem,
  findRun,
  insertItems,
  insertRun,
  itemsOfPayments,
  lockRun,
  markItemFailed,
  markItemsPaid,
  pendingItemCount,
  runItems,
  setItemPayment,
  setRunStatus,
} from './store.ts';

/** Who calls: a merchant key's merchant, its @handle (its wallet) and mode. */
export interface PayrollCaller extends PayrollScope {
  handle: string;
}

export interface SkippedItem {
  index: number;
  externalRef: string;
  reason: string;
}

/** Recipients credited per ledger transfer: the ledger's leg limit less the merchant's debit. */
const CREDITS_PER_TRANSFER = TRANSFER_LEGS_MAX - 1;

const runNotFound = (id: string) => notFound('payroll_run_not_found', `No payroll run ${id}`);
const itemNotFound = (id: string) => notFound('payroll_item_not_found', `No payroll item ${id}`);
const runNotDraft = (run: PayrollRunRow) => conflict('payroll_run_not_draft', `Payroll run ${run.id} is ${run.status}: only a draft run can be changed, submitted or cancelled`);

/** The run, locked for the caller's transaction, if it is the scope's and still a draft (404 / 409 otherwise). */
async function lockDraft(tx: Queryable, runId: string, scope: PayrollScope, missing: ApiError = runNotFound(runId)): Promise<PayrollRunRow> {
  const run = await lockRun(tx, runId, scope);
  if (!run) throw missing;
  if (run.status !== 'draft') throw runNotDraft(run);
  return run;
}

/** The payment id of a rail item: derived from the item, so no re-run can pay an item twice. */
export function itemPaymentId(itemId: string): string {
  return `pay_${createHash('sha256').update(`payroll:${itemId}`).digest('hex').slice(0, 40)}`;
}

/** A run's final status from its items' outcomes. */
function outcomeOf(summary: PayrollRunSummary): 'completed' | 'partially_failed' | 'failed' {
  if (summary.failed_count === 0) return 'completed';
  return summary.paid_count === 0 ? 'failed' : 'partially_failed';
}

/** The payload of payroll.run.completed / payroll.run.failed. */
function runEventData(summary: PayrollRunSummary): Record<string, unknown> {
  return {
    runId: summary.id,
    status: summary.status,
    currency: summary.currency,
    itemCount: summary.item_count,
    totalAmount: toMajor(summary.total_amount, summary.currency),
    paidAmount: toMajor(summary.paid_amount, summary.currency),
    paidCount: summary.paid_count,
    failedCount: summary.failed_count,
    reference: summary.reference,
  };
}

async function emitItemFailed(tx: Queryable, scope: PayrollScope, item: PayrollItemRow, currency: string, at: Date): Promise<void> {
  await enqueueEvent(tx, {
    merchantId: scope.merchantId,
    mode: scope.mode,
    type: 'payroll.item.failed',
    data: {
      runId: item.run_id,
      itemId: item.id,
      amount: toMajor(item.amount, currency),
      currency,
      externalRef: item.external_ref,
      reference: item.reference,
      paymentId: item.payment_id,
      failureReason: item.failure_reason,
    },
    at,
  });
}

/**
 * processing -> completed | partially_failed | failed once no item is pending, with its event,
 * in the caller's transaction. The run row is locked first: of two transactions settling the
 * last two items, the second waits for the first and then sees its item settled (READ
 * COMMITTED reads afresh after the lock), so exactly one of them ends the run.
 */
async function finishRunIfSettled(tx: Queryable, runId: string, at: Date): Promise<void> {
  const run = await lockRun(tx, runId);
  if (!run || run.status !== 'processing') return;
  if ((await pendingItemCount(tx, runId)) > 0) return;
  const scope = { merchantId: run.merchant_id, mode: run.mode };
  const settled = (await findRun(tx, runId, scope))!;
  const status = outcomeOf(settled);
  await setRunStatus(tx, runId, status, at);
  await enqueueEvent(tx, {
    ...scope,
    type: status === 'failed' ? 'payroll.run.failed' : 'payroll.run.completed',
    data: runEventData({ ...settled, status }),
    at,
  });
}

/**
 * Rail items follow their payments: told in the transaction that completes, fails or reverses
 * a payment of kind 'payroll' (payments/outcomes.ts). A failed or reversed payout has already
 * returned its money to the merchant's wallet (the payment's refund or reversal transfer).
 */
async function settleRailItems(tx: Queryable, payments: readonly PaymentRow[], at: Date): Promise<void> {
  const byId = new Map(payments.map((payment) => [payment.id, payment]));
  const items = await itemsOfPayments(tx, [...byId.keys()]);
  const runIds = new Set<string>();
  for (const item of items) {
    const payment = byId.get(item.payment_id!)!;
    if (payment.status === 'completed' && item.status === 'pending') await markItemsPaid(tx, [item.id], null, at);
    else if ((payment.status === 'failed' || payment.status === 'reversed') && item.status !== 'failed') {
      const failed = await markItemFailed(tx, item.id, payment.failure_reason ?? `The payout ${payment.status}`, at);
      // A payroll payment always has its merchant (only withdrawals have none).
      await emitItemFailed(tx, { merchantId: payment.merchant_id!, mode: payment.mode }, failed, payment.currency, at);
    }
    runIds.add(item.run_id);
  }
  // One order for every transaction that locks several runs: no deadlock between them.
  for (const runId of [...runIds].sort()) await finishRunIfSettled(tx, runId, at);
}

onPaymentOutcome('payroll', settleRailItems);

/** Attributes an item's error to its place in a bulk request, keeping its status and code. */
function atIndex(index: number, error: unknown): unknown {
  if (error instanceof ApiError) return new ApiError(error.statusCode, error.code, `items[${index}]: ${error.message}`, { details: [{ index, code: error.code }] });
  if (error instanceof MoneyError) return badRequest(error.code, `items[${index}]: ${error.message}`, [{ index, code: error.code }]);
  return error;
}

export interface PayrollService {
  createRun(caller: PayrollCaller, body: { currency: string; description?: string | undefined; reference?: string | undefined; items?: readonly PayrollItemInput[] | undefined }, runId?: string): Promise<{ run: PayrollRunSummary; skipped: SkippedItem[]; created: boolean }>;
  getRun(scope: PayrollScope, id: string): Promise<PayrollRunSummary>;
  addItem(caller: PayrollCaller, runId: string, input: PayrollItemInput): Promise<PayrollItemRow & { currency: string }>;
  getItem(scope: PayrollScope, id: string): Promise<PayrollItemRow>;
  removeItem(scope: PayrollScope, id: string): Promise<void>;
  submit(caller: PayrollCaller, id: string): Promise<PayrollRunSummary>;
  cancel(scope: PayrollScope, id: string): Promise<PayrollRunSummary>;
}

export function payrollService(context: AppContext): PayrollService {
  const { db, config } = context;
  const paymentDeps = { db, config, now: context.now, fx: context.fx, payoutProviders: context.payoutProviders };

  async function requireRun(scope: PayrollScope, id: string): Promise<PayrollRunSummary> {
    const run = await findRun(db, id, scope);
    if (!run) throw runNotFound(id);
    return run;
  }

  /**
   * Validates one item against its run and resolves its destination: an on-us handle must be a
   * wallet of the run's mode in the run's currency (not the paying wallet); a rail item needs a
   * receiver that suits the rail and a country where the rail is offered. Whether a live rail has
   * a payout adapter is checked at submit (adapters are configured at start-up), where a missing
   * one fails that item alone.
   */
  async function resolveItem(caller: PayrollCaller, run: Pick<PayrollRunRow, 'currency' | 'merchant_wallet_id'>, input: PayrollItemInput): Promise<NewPayrollItem> {
    const amount = toMinor(input.amount, run.currency);
    const common = { id: newId('pitm'), amount, reference: input.reference ?? null, external_ref: input.externalRef ?? null };
    const railFields = input.rail !== undefined || input.receiver !== undefined || input.toCode !== undefined;
    if ((input.handle !== undefined) === railFields) {
      throw badRequest('item_destination_invalid', 'An item pays either a handle, or a rail with receiver and toCode');
    }
    if (input.handle !== undefined) {
      const handle = canonicalHandle(input.handle);
      const wallet = await findWallet(db, handle, caller.mode);
      if (!wallet) throw notFound('recipient_not_found', `No ${caller.mode} wallet ${displayHandle(handle)}`);
      if (wallet.id === run.merchant_wallet_id) throw badRequest('receiver_is_sender', 'A payroll item cannot pay the paying wallet itself');
      if (wallet.currency !== run.currency) {
        throw badRequest('currency_mismatch', `${displayHandle(handle)} holds ${wallet.currency}; this run pays ${run.currency} (pay it from a ${wallet.currency} run)`);
      }
      return { ...common, handle, recipient_wallet_id: wallet.id, rail: null, receiver: null, to_country: null, receiver_name: input.receiverName?.trim() || null };
    }
    if (input.rail === undefined || input.receiver === undefined || input.toCode === undefined) {
      throw badRequest('item_destination_invalid', 'A rail item needs rail, receiver and toCode');
    }
    const rail = input.rail as Rail;
    const toCountry = supportedCountry(input.toCode, 'toCode');
    const receiver = parseReceiver(input.receiver, rail, toCountry);
    if (!railAvailableIn(rail, toCountry)) throw unprocessable('rail_unavailable', `Rail ${rail} is not available in ${toCountry}`);
    return { ...common, handle: null, recipient_wallet_id: null, rail, receiver, to_country: toCountry, receiver_name: input.receiverName?.trim() || null };
  }

  /**
   * Prices every rail item as the payment it becomes, outside any transaction (FX table,
   * sandbox float). A refusal (a live rail without a payout adapter, an amount too small after
   * FX) fails that item alone, with the refusal's message as its failureReason.
   */
  async function prepareRailPayments(caller: PayrollCaller, run: PayrollRunRow, items: readonly PayrollItemRow[]): Promise<Map<string, NewPayment | { failure: string }>> {
    const prepared = new Map<string, NewPayment | { failure: string }>();
    const rails = items.filter((item) => item.rail !== null);
    if (rails.length === 0) return prepared;
    const merchant = await findMerchant(db, caller.merchantId);
    if (!merchant) throw new Error(`merchant ${caller.merchantId} vanished`);
    for (const item of rails) {
      const body = {
        fromCode: merchant.country,
        toCode: item.to_country!,
        rail: item.rail!,
        amount: toMajor(item.amount, run.currency),
        currency: run.currency,
        receiver: { ...item.receiver! },
        receiverName: item.receiver_name ?? undefined,
        senderName: merchant.name,
        note: run.description ?? undefined,
        reference: item.reference ?? run.reference ?? undefined,
      };
      try {
        prepared.set(item.id, await preparePayment(paymentDeps, caller, body, itemPaymentId(item.id), 'payroll'));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        prepared.set(item.id, { failure: error.message });
      }
    }
    return prepared;
  }

  /**
   * Pays the on-us items: the merchant's wallet is debited and the recipients credited by
   * balanced transfers of at most TRANSFER_LEGS_MAX legs (one for a run of up to 63 recipients),
   * all in the caller's transaction. Ids derive from the run: a re-run cannot post twice.
   */
  async function payOnUs(tx: Queryable, run: PayrollRunRow, items: readonly PayrollItemRow[], at: Date): Promise<void> {
    const byWallet = new Map<string, { amount: number; itemIds: string[] }>();
    for (const item of items) {
      const credit = byWallet.get(item.recipient_wallet_id!) ?? { amount: 0, itemIds: [] };
      credit.amount += item.amount;
      credit.itemIds.push(item.id);
      byWallet.set(item.recipient_wallet_id!, credit);
    }
    const credits = [...byWallet];
    for (let start = 0, part = 0; start < credits.length; start += CREDITS_PER_TRANSFER, part += 1) {
      const chunk = credits.slice(start, start + CREDITS_PER_TRANSFER);
      const total = chunk.reduce((sum, [, credit]) => sum + credit.amount, 0);
      const legs: TransferLeg[] = [
        { account: walletAccount(run.merchant_wallet_id, run.currency), amount: -total },
        ...chunk.map(([walletId, credit]) => ({ account: walletAccount(walletId, run.currency), amount: credit.amount })),
      ];
      const transferId = `payroll:${run.id}:${part}`;
      const itemIds = chunk.flatMap(([, credit]) => credit.itemIds);
      await transfer(tx, { id: transferId, mode: run.mode, kind: 'payroll_disbursement', legs, metadata: { runId: run.id, itemIds } });
      await markItemsPaid(tx, itemIds, transferId, at);
    }
  }

  /** On-us items whose wallet can no longer take the run's currency: they fail before any money moves. */
  async function unpayableWallets(tx: Queryable, run: PayrollRunRow, items: readonly PayrollItemRow[]): Promise<Set<string>> {
    const ids = [...new Set(items.map((item) => item.recipient_wallet_id!))];
    if (ids.length === 0) return new Set();
    const payable = await walletIdsIn(tx, ids, run.mode, run.currency);
    return new Set(ids.filter((id) => !payable.has(id)));
  }

  return {
    async createRun(caller, body, runId) {
      const currency = supportedCurrency(body.currency);
      const wallet = await findWallet(db, caller.handle, caller.mode);
      if (!wallet) throw notFound('wallet_not_found', `The merchant has no ${caller.mode} wallet`);
      const run = { currency, merchant_wallet_id: wallet.id };
      const inputs = body.items ?? [];
      const items: NewPayrollItem[] = [];
      const skipped: SkippedItem[] = [];
      const seen = new Set<string>();
      for (const [index, input] of inputs.entries()) {
        if (input.externalRef !== undefined && seen.has(input.externalRef)) {
          skipped.push({ index, externalRef: input.externalRef, reason: 'externalRef repeats an earlier item of this run' });
          continue;
        }
        if (input.externalRef !== undefined) seen.add(input.externalRef);
        try {
          items.push(await resolveItem(caller, run, input));
        } catch (error) {
          throw atIndex(index, error);
        }
      }
      const id = runId ?? newId('prun');
      const now = context.now();
      const created = await db.transaction(async (tx) => {
        const inserted = await insertRun(tx, {
          id,
          merchant_id: caller.merchantId,
          mode: caller.mode,
          merchant_wallet_id: wallet.id,
          currency,
          description: body.description ?? null,
          reference: body.reference ?? null,
          created_at: now,
        });
        // A re-run of the same idempotent request (after a crash) finds the run it made.
        if (inserted) await insertItems(tx, id, items, now);
        return inserted;
      });
      return { run: await requireRun(caller, id), skipped: created ? skipped : [], created };
    },

    getRun: requireRun,

    async addItem(caller, runId, input) {
      const run = await requireRun(caller, runId);
      if (run.status !== 'draft') throw runNotDraft(run);
      const item = await resolveItem(caller, run, input);
      const now = context.now();
      await db.transaction(async (tx) => {
        await lockDraft(tx, runId, caller);
        if ((await countItems(tx, runId)) >= PAYROLL_ITEMS_MAX) throw badRequest('too_many_items', `A payroll run holds at most ${PAYROLL_ITEMS_MAX} items`);
        const inserted = await insertItems(tx, runId, [item], now);
        if (!inserted.has(item.id)) throw conflict('external_ref_taken', `Payroll run ${runId} already has an item with externalRef ${item.external_ref}`);
      });
      return { ...(await findItem(db, item.id, caller))!, currency: run.currency };
    },

    async getItem(scope, id) {
      const item = await findItem(db, id, scope);
      if (!item) throw itemNotFound(id);
      return item;
    },

    async removeItem(scope, id) {
      const item = await findItem(db, id, scope);
      if (!item) throw itemNotFound(id);
      await db.transaction(async (tx) => {
        await lockDraft(tx, item.run_id, scope, itemNotFound(id));
        await deleteItem(tx, id);
      });
    },

    /**
     * draft -> processing, paying every item in ONE database transaction with the run's state
     * and events: on-us items by the run's transfers, rail items as payments (their own debit
     * transfers, then the payment scheduler). A merchant wallet short of the total refuses the
     * whole transaction (422 insufficient_funds): nothing moves and the run stays a draft. Items
     * that cannot be paid fail here without being debited. The run ends at once when no rail
     * payment is still on its way.
     */
    async submit(caller, id) {
      const run = await requireRun(caller, id);
      if (run.status !== 'draft') throw runNotDraft(run);
      const items = await runItems(db, id);
      if (items.length === 0) throw unprocessable('payroll_run_empty', `Payroll run ${id} has no items`);
      const wallet = await findWallet(db, caller.handle, caller.mode);
      if (wallet) await ensureSandboxFloat({ db, config }, wallet, run.currency);
      const prepared = await prepareRailPayments(caller, run, items);
      // Read before the transaction (tiers.ts): the recipients' tiers are checked inside it.
      const rates = await tierRates(context);
      const now = context.now();
      await db.transaction(async (tx) => {
        // The lock decides between concurrent submits: the second finds the run no longer a draft.
        const locked = await lockDraft(tx, id, caller);
        const current = await runItems(tx, id);
        if (current.length !== items.length || current.some((item, index) => item.id !== items[index]!.id)) {
          throw conflict('payroll_run_changed', `The items of payroll run ${id} changed while it was being submitted; submit again`);
        }
        await setRunStatus(tx, id, 'processing', now);
        const onUs = current.filter((item) => item.handle !== null);
        const unpayable = await unpayableWallets(tx, locked, onUs);
        const failures: { item: PayrollItemRow; reason: string }[] = [];
        for (const item of onUs) {
          if (unpayable.has(item.recipient_wallet_id!)) failures.push({ item, reason: `${displayHandle(item.handle!)} can no longer receive ${locked.currency}` });
        }
        // A person's wallet takes what her verification tier lets in (docs/wallet-tiers.md): an item
        // past it fails here, before any debit, and is counted against her tier when it is paid.
        const refused = new Set<string>();
        for (const item of onUs.filter((candidate) => !unpayable.has(candidate.recipient_wallet_id!))) {
          const recipient = await findWalletById(tx, item.recipient_wallet_id!);
          if (!recipient || !hasTier(recipient)) continue;
          try {
            await checkTierMovement(context, tx, recipient, { id: `payroll:${item.id}:in`, kind: 'payroll_in', amount: item.amount, currency: locked.currency }, rates);
          } catch (error) {
            if (!(error instanceof ApiError) || error.code !== 'recipient_tier_limit_exceeded') throw error;
            refused.add(item.id);
            failures.push({ item, reason: `${displayHandle(item.handle!)}: ${error.message} (recipient_tier_limit_exceeded)` });
          }
        }
        const payments: { itemId: string; payment: NewPayment }[] = [];
        for (const item of current.filter((candidate) => candidate.rail !== null)) {
          const outcome = prepared.get(item.id)!;
          if ('failure' in outcome) failures.push({ item, reason: outcome.failure });
          else payments.push({ itemId: item.id, payment: outcome });
        }
        for (const { item, reason } of failures) await emitItemFailed(tx, caller, await markItemFailed(tx, item.id, reason, now), locked.currency, now);
        await payOnUs(tx, locked, onUs.filter((item) => !unpayable.has(item.recipient_wallet_id!) && !refused.has(item.id)), now);
        for (const { itemId, payment } of payments) {
          await setItemPayment(tx, itemId, payment.id, now);
          // The payment's own debit transfer; a sandbox reference may settle it at once, and the
          // outcome listener then settles the item in this same transaction.
          await recordPayment(tx, payment, config.sandboxStepMs);
        }
        await finishRunIfSettled(tx, id, now);
      });
      return requireRun(caller, id);
    },

    async cancel(scope, id) {
      const now = context.now();
      await db.transaction(async (tx) => {
        await lockDraft(tx, id, scope);
        await setRunStatus(tx, id, 'cancelled', now);
      });
      return requireRun(scope, id);
    },
  };
}
