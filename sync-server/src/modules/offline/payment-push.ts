import type { OfflinePaymentDoc } from '@tapline/shared/sync-protocol';
import type { AppContext } from '../../context.ts';
import { PG_ERROR, type Queryable, pgErrorCode } from '../../db/database.ts';
import { enqueueEvents } from '../../events/outbox.ts';
import { LedgerError, type LedgerErrorCode, lockWalletAccounts, postOfflineTaps } from '../../ledger/ledger.ts';
import { payerIsMerchant } from '../wallets/index.ts';
import { type TagLookup, countTaps, tagAllowances } from '../wearables/index.ts';
import { publicKeyMap } from './keys.ts';
import { lockProducts, moveSaleStock, unitsByProduct } from '../products/index.ts';
import { PIN_REQUIRED_OFFLINE, exposureBudgets, exposureDecline, paymentPolicyDecline, utcDay } from './policy.ts';
import { type CollectionSettler, type PushTerminal, inCapturedOrder, inSavepoint } from '../push/index.ts';
import {
  type Candidate,
  type SettlementScope,
  type Verdict,
  candidateOf,
  declined,
  insufficientFunds,
  offlineSettlement,
  offlineTransferId,
  paymentDocument,
  paymentEvent,
  paymentRow,
} from './settlement.ts';
import { type OfflinePaymentRow, findOfflinePayments, insertOfflinePayments } from './store.ts';
import { tillSaleTapsSettled } from './till-sales.ts';

interface Pending {
  candidate: Candidate;
  seq: number;
  verdict: Verdict | null;
}

const settlementFailed = (): Verdict =>
  declined('settlement_failed', 'The server could not settle this payment and recorded it as declined so that the terminal\'s other payments are not held up; no money moved');

/**
 * Offline payments pushed by a terminal (collection `offline_payments`), settled in batches: the
 * policy's rules, then the taps together (their tags counted in one statement, their payers' ledger
 * accounts locked in the ledger's order, then each tap's transfer in the order the terminal took
 * them, spending its offline window's budget), then each voucher in a savepoint of its own, then
 * every payment and its event written in a few statements.
 */
export function offlinePaymentSettler(context: AppContext): CollectionSettler<OfflinePaymentRow, OfflinePaymentDoc> {
  const vouchers = offlineSettlement(context);

  /** The verdicts of taps that passed the policy's rules, in the order given (the order they were taken). */
  async function settleTaps(tx: Queryable, terminal: PushTerminal, scope: SettlementScope, taps: readonly Pending[], now: Date): Promise<void> {
    // Every tap counted on its tag in one call (the tags locked in id order: two pushes tapping
    // the same rings wait for each other instead of deadlocking).
    const tags = await countTaps(tx, taps.map((tap) => tap.candidate.tagId!), terminal.mode, now);
    const allowances = await tagAllowances(tx, [...tags.keys()], terminal.mode, terminal.limits.currency, terminal.merchantId);
    const paying: { tap: Pending; payer: { walletId: string; handle: string }; noPinPerDay: number }[] = [];
    for (const tap of taps) {
      const tagId = tap.candidate.tagId!;
      const tag: TagLookup = tags.get(tagId) ?? { outcome: 'unknown' };
      const allowance = allowances.get(tagId) ?? { perTap: 0, perDay: 0, merchantAllowed: false };
      if (tag.outcome === 'unknown') tap.verdict = declined('tag_not_found', `No tag ${tagId} in ${terminal.mode} mode`);
      else if (tag.outcome === 'disabled') tap.verdict = declined('tag_disabled', `Tag ${tagId} is disabled: it cannot pay`);
      else if (payerIsMerchant(tag.walletId, terminal.wallet.id)) tap.verdict = declined('payer_is_merchant', 'The tag belongs to the merchant itself');
      // The holder's PIN cannot be asked offline: what would need it online never pays offline.
      else if (!allowance.merchantAllowed) {
        tap.verdict = declined('pin_required', PIN_REQUIRED_OFFLINE.merchant, { payerWalletId: tag.walletId, payerHandle: tag.handle });
      } else if (tap.candidate.amount > allowance.perTap) {
        tap.verdict = declined('pin_required', PIN_REQUIRED_OFFLINE.perTap(allowance.perTap, tap.candidate.currency), { payerWalletId: tag.walletId, payerHandle: tag.handle });
      } else paying.push({ tap, payer: { walletId: tag.walletId, handle: tag.handle }, noPinPerDay: allowance.perDay });
    }
    if (paying.length === 0) return;
    const budgets = await exposureBudgets(tx, terminal.terminalId, terminal.limits.totalMaxMinor, paying.map(({ tap }) => tap.candidate.capturedAt));
    // Every payer's account locked at once in the ledger's lock order, before any merchant shard:
    // two pushes paying from the same wallets then wait for each other instead of deadlocking.
    await lockWalletAccounts(tx, [...new Set(paying.map(({ payer }) => payer.walletId))], terminal.limits.currency, terminal.mode);
    // Every tap's transfer in one call, in the order they were taken, each spending its window's budget.
    const transfers = paying.map(({ tap, payer, noPinPerDay }) => ({
      id: offlineTransferId(tap.candidate.id),
      payerWalletId: payer.walletId,
      amount: tap.candidate.amount,
      metadata: { offlinePaymentId: tap.candidate.id, terminalId: scope.terminalId },
      tagId: tap.candidate.tagId!,
      noPinPerDay,
      capturedOn: utcDay(tap.candidate.capturedAt),
    }));
    const results = await postOfflineTaps(tx, {
      mode: terminal.mode,
      merchantWalletId: terminal.wallet.id,
      currency: terminal.limits.currency,
      taps: transfers,
      windows: budgets.windowOf.map((window) => window + 1),
      budgets: budgets.remaining,
      settledOn: utcDay(now),
    });
    for (const [index, { tap, payer }] of paying.entries()) {
      const result = results[index];
      if (result === 'created' || result === 'exists') {
        tap.verdict = { status: 'accepted', payerWalletId: payer.walletId, payerHandle: payer.handle, transferId: transfers[index]!.id, voucherId: null };
      } else if (result === 'insufficient_funds') tap.verdict = insufficientFunds(tap.candidate, payer);
      else if (result === 'pin_required') {
        const perDay = paying[index]!.noPinPerDay;
        tap.verdict = declined('pin_required', PIN_REQUIRED_OFFLINE.perDay(perDay, tap.candidate.currency), { payerWalletId: payer.walletId, payerHandle: payer.handle });
      } else if (result === 'offline_exposure_limit') {
        const rule = exposureDecline(terminal.limits);
        tap.verdict = declined(rule.code, rule.reason, { payerWalletId: payer.walletId, payerHandle: payer.handle });
      } else throw new LedgerError((result ?? 'account_not_ready') as LedgerErrorCode);
    }
  }

  /** Verdicts, transfers, rows and events of `batch` (documents in the order they were taken). */
  async function settleBatch(tx: Queryable, terminal: PushTerminal, batch: readonly Pending[], now: Date, keys: () => Promise<Map<string, string>>): Promise<OfflinePaymentRow[]> {
    const scope: SettlementScope = { merchantId: terminal.merchantId, merchantWalletId: terminal.wallet.id, mode: terminal.mode, terminalId: terminal.terminalId };
    for (const entry of batch) {
      if (entry.verdict) continue;
      const { candidate } = entry;
      if (candidate.invalid !== null) entry.verdict = declined('invalid_document', candidate.invalid);
      else if (candidate.cartProblem !== null) entry.verdict = declined(candidate.cartProblem.code, candidate.cartProblem.message);
      else {
        const rule = paymentPolicyDecline(candidate, terminal.limits, terminal.createdAt, now);
        if (rule) entry.verdict = declined(rule.code, rule.reason);
      }
    }
    // The catalogue products these sales name, locked before any ledger account (the order a
    // tap at the till takes): their stock moves with the payments, never refused (oversold).
    const productScope = { merchantId: terminal.merchantId, mode: terminal.mode };
    const sold = unitsByProduct(batch.flatMap((entry) => (entry.verdict === null ? (entry.candidate.cart?.lines ?? []) : [])));
    if (sold.size > 0) await lockProducts(tx, productScope, [...sold.keys()]);
    const taps = batch.filter((entry) => entry.verdict === null && entry.candidate.kind === 'tap');
    if (taps.length > 0) await settleTaps(tx, terminal, scope, taps, now);
    for (const entry of batch) {
      if (entry.verdict !== null || entry.candidate.kind !== 'qr') continue;
      const keyMap = await keys();
      const outcome = await inSavepoint(tx, () => vouchers.voucherVerdict(tx, scope, entry.candidate, keyMap));
      if (outcome.ok) entry.verdict = outcome.value;
      // Two terminals settling the same voucher at once: the unique index lets one win.
      else if (pgErrorCode(outcome.error) === PG_ERROR.uniqueViolation) entry.verdict = declined('voucher_already_used', 'The QR code has already paid (first payment wins)');
      else throw outcome.error;
    }
    const rows = await insertOfflinePayments(tx, batch.map((entry) => paymentRow(scope, entry.candidate, entry.verdict!, now, entry.seq)));
    const accepted = unitsByProduct(batch.flatMap((entry) => (entry.verdict?.status === 'accepted' ? (entry.candidate.cart?.lines ?? []) : [])));
    if (accepted.size > 0) await moveSaleStock(tx, productScope, accepted, -1, now);
    await enqueueEvents(tx, rows.map((row) => paymentEvent(row, now)));
    // A split sale's offline tap that reached the server after its sale: declined, that part is unpaid.
    await tillSaleTapsSettled(tx, rows, now);
    return rows;
  }

  return {
    find: findOfflinePayments,
    owner: (row) => ({ merchantId: row.merchant_id, mode: row.mode }),
    document: paymentDocument,
    idTaken(terminal, pushed, now) {
      const candidate = candidateOf(pushed.doc, pushed.id, terminal.limits.currency);
      const verdict = declined('id_taken', `Offline payment id ${pushed.id} belongs to another merchant or mode: the terminal must make a new id`);
      const scope: SettlementScope = { merchantId: terminal.merchantId, merchantWalletId: terminal.wallet.id, mode: terminal.mode, terminalId: terminal.terminalId };
      return paymentDocument(paymentRow(scope, candidate, verdict, now, 0));
    },

    async settle(tx, terminal, documents, now, isolate) {
      if (documents.length === 0) return [];
      // Settled in the order the terminal took them, under change numbers in that order.
      const pending: Pending[] = inCapturedOrder(documents, (entry) => candidateOf(entry.doc, entry.id, terminal.limits.currency)).map((entry) => ({ ...entry, verdict: null }));
      let keyMap: Promise<Map<string, string>> | undefined;
      const keys = () => (keyMap ??= publicKeyMap(tx));
      if (!isolate) return settleBatch(tx, terminal, pending, now, keys);
      const rows: OfflinePaymentRow[] = [];
      for (const entry of pending) {
        const outcome = await inSavepoint(tx, () => settleBatch(tx, terminal, [entry], now, keys));
        if (outcome.ok) rows.push(...outcome.value);
        else rows.push(...(await settleBatch(tx, terminal, [{ ...entry, verdict: settlementFailed() }], now, keys)));
      }
      return rows;
    },
  };
}
