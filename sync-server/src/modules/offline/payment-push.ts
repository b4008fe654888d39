import { toMajor } from '@tapline/shared/money';
import type { OfflinePaymentDoc } from '@tapline/shared/sync-protocol';
import type { AppContext } from '../../context.ts';
import { PG_ERROR, type Queryable, pgErrorCode } from '../../db/database.ts';
import { enqueueEvents } from '../../events/outbox.ts';
import { LedgerError, type LedgerErrorCode, personToMerchantArguments } from '../../ledger/ledger.ts';
import { tagNoPinLimits } from '../wearables/index.ts';
import { publicKeyMap } from './keys.ts';
import { exposureBudgets, exposureDecline, paymentPolicyDecline } from './policy.ts';
import { type CollectionSettler, type PushTerminal, type PushedDocument, inSavepoint } from './push.ts';
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

  /** Counts every tap on its tag and answers, per tag id, the wallet an active tag pays from. */
  async function countTaps(tx: Queryable, tagIds: readonly string[], mode: string, now: Date): Promise<Map<string, { walletId: string; handle: string } | 'disabled' | 'unknown'>> {
    const unique = [...new Set(tagIds)];
    // The tags locked in one order (by id) before they are counted: two pushes tapping the same
    // rings wait for each other instead of deadlocking.
    const known = await tx.query<{ tag_id: string; status: string }>(
      'SELECT tag_id, status FROM wearables WHERE tag_id = ANY ($1::text[]) AND mode = $2 ORDER BY tag_id FOR NO KEY UPDATE',
      [unique, mode],
      { prepareAs: 'wearables_lock_tags' },
    );
    const tags = new Map<string, { walletId: string; handle: string } | 'disabled' | 'unknown'>(unique.map((tagId) => [tagId, 'unknown']));
    for (const row of known) if (row.status !== 'active') tags.set(row.tag_id, 'disabled');
    const active = new Set(known.filter((row) => row.status === 'active').map((row) => row.tag_id));
    if (active.size === 0) return tags;
    const counted = await tx.query<{ tag_id: string; wallet_id: string; handle: string }>(
      `UPDATE wearables w SET tap_count = w.tap_count + c.taps, last_tapped_at = $2
       FROM (SELECT t.tag_id, count(*)::int8 AS taps FROM unnest($1::text[]) AS t (tag_id) GROUP BY t.tag_id) c
       WHERE w.tag_id = c.tag_id
       RETURNING w.tag_id, w.wallet_id, w.handle`,
      [tagIds.filter((tagId) => active.has(tagId)), now],
      { prepareAs: 'wearables_count_taps' },
    );
    for (const row of counted) tags.set(row.tag_id, { walletId: row.wallet_id, handle: row.handle });
    return tags;
  }

  /** The verdicts of taps that passed the policy's rules, in the order given (the order they were taken). */
  async function settleTaps(tx: Queryable, terminal: PushTerminal, scope: SettlementScope, taps: readonly Pending[], now: Date): Promise<void> {
    const tags = await countTaps(tx, taps.map((tap) => tap.candidate.tagId!), terminal.mode, now);
    const noPinLimits = await tagNoPinLimits(tx, [...tags.keys()], terminal.mode, terminal.limits.currency);
    const paying: { tap: Pending; payer: { walletId: string; handle: string } }[] = [];
    for (const tap of taps) {
      const tagId = tap.candidate.tagId!;
      const tag = tags.get(tagId)!;
      const noPinLimit = noPinLimits.get(tagId) ?? 0;
      if (tag === 'unknown') tap.verdict = declined('tag_not_found', `No tag ${tagId} in ${terminal.mode} mode`);
      else if (tag === 'disabled') tap.verdict = declined('tag_disabled', `Tag ${tagId} is disabled: it cannot pay`);
      else if (tag.walletId === terminal.wallet.id) tap.verdict = declined('payer_is_merchant', 'The tag belongs to the merchant itself');
      // The holder's PIN cannot be asked offline: a tap over the tag's no-PIN limit never pays.
      else if (tap.candidate.amount > noPinLimit) {
        tap.verdict = declined('no_pin_limit_exceeded', `The tap is over the tag's limit for a payment without the holder's PIN (${toMajor(noPinLimit, tap.candidate.currency)} ${tap.candidate.currency}), which an offline terminal cannot ask`, {
          payerWalletId: tag.walletId,
          payerHandle: tag.handle,
        });
      } else paying.push({ tap, payer: tag });
    }
    if (paying.length === 0) return;
    const budgets = await exposureBudgets(tx, { id: terminal.terminalId, createdAt: terminal.createdAt }, terminal.limits.totalMaxMinor, paying.map(({ tap }) => tap.candidate.capturedAt));
    // Every payer's account locked at once in the ledger's lock order, before any merchant shard:
    // two pushes paying from the same wallets then wait for each other instead of deadlocking.
    await tx.query(
      `SELECT 1 FROM ledger_accounts WHERE owner_type = 'wallet' AND owner_id = ANY ($1::text[]) AND currency = $2 AND mode = $3 AND shard = 0
       ORDER BY lock_rank, id FOR NO KEY UPDATE`,
      [[...new Set(paying.map(({ payer }) => payer.walletId))], terminal.limits.currency, terminal.mode],
      { prepareAs: 'offline_lock_payers' },
    );
    // Every tap's transfer in one call, in the order they were taken, each spending its window's budget.
    const transfers = paying.map(({ tap, payer }) => ({
      id: offlineTransferId(tap.candidate.id),
      mode: terminal.mode,
      kind: 'offline_tap',
      payerWalletId: payer.walletId,
      merchantWalletId: terminal.wallet.id,
      currency: tap.candidate.currency,
      amount: tap.candidate.amount,
      metadata: { offlinePaymentId: tap.candidate.id, terminalId: scope.terminalId },
    }));
    const posted = transfers.map(personToMerchantArguments);
    const [row] = await tx.query<{ results: string[] }>(
      'SELECT offline_post_taps($1, $2, $3, $4::text[], $5::text[], $6::int8[], $7::text[], $8::jsonb[], $9::int4[], $10::int8[]) AS results',
      [
        terminal.mode, terminal.wallet.id, terminal.limits.currency, transfers.map((t) => t.id), transfers.map((t) => t.payerWalletId), transfers.map((t) => t.amount),
        posted.map((p) => p.fingerprint), posted.map((p) => p.metadata), budgets.windowOf.map((window) => window + 1), budgets.remaining,
      ],
      { prepareAs: 'offline_post_taps' },
    );
    const results = row?.results ?? [];
    for (const [index, { tap, payer }] of paying.entries()) {
      const result = results[index];
      if (result === 'created' || result === 'exists') {
        tap.verdict = { status: 'accepted', payerWalletId: payer.walletId, payerHandle: payer.handle, transferId: transfers[index]!.id, voucherId: null };
      } else if (result === 'insufficient_funds') tap.verdict = insufficientFunds(tap.candidate, payer);
      else if (result === 'offline_exposure_limit') {
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
      else {
        const rule = paymentPolicyDecline(candidate, terminal.limits, terminal.createdAt, now);
        if (rule) entry.verdict = declined(rule.code, rule.reason);
      }
    }
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
    await enqueueEvents(tx, rows.map((row) => paymentEvent(row, now)));
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
      const seqs = documents.map((entry) => entry.seq).sort((a, b) => a - b);
      const pending: Pending[] = documents
        .map((entry: PushedDocument) => candidateOf(entry.doc, entry.id, terminal.limits.currency))
        .map((candidate, index) => ({ candidate, index }))
        .sort((a, b) => a.candidate.capturedAt.getTime() - b.candidate.capturedAt.getTime() || a.index - b.index)
        .map(({ candidate }, position) => ({ candidate, seq: seqs[position]!, verdict: null }));
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
