import { GIFT_CARD_LIMITS } from '@tapline/shared/limits';
import { percentOf, toMinor } from '@tapline/shared/money';
import type { AppContext } from '../../context.ts';
import { newId } from '../../auth/secrets.ts';
import { ApiError, badRequest, conflict, notFound } from '../../http/errors.ts';
import { displayHandle, supportedCurrency } from '../../http/validate.ts';
import { transfer } from '../../ledger/ledger.ts';
import { findWallet, findWalletsByHandle } from '../wallets/index.ts';
import { type CardDraft, type Issuer, type RequestIds, allocate, baseDraft, fundingLegs, newCard, sumByCurrency } from './drafts.ts';
import { existingBatch } from './issuing.ts';
import { cardRecord, issuedRecord } from './records.ts';
import { type ProgramRow, type RewardRuleRow, existingExternalRefs, findCard, insertCards, matchingRewardRules } from './store.ts';
import { type CardFields, addMonths, parseDesignTheme, parseExpiresInMonths, parseHandle, parseMessage, parseProgramRow } from './validation.ts';
import { qrPngs } from './codes.ts';
import { qrPng } from '../../http/qr-image.ts';

/** Issues paid by a merchant for others: a program's cards for its employees, and cashback rewards. */
export function programIssuing(context: AppContext) {
  /** Program issue: cards locked to each @handle, optionally delivered at deliverAt; known externalRefs are skipped. */
  async function issueProgram(
    issuer: Issuer,
    program: ProgramRow,
    body: { employees: readonly unknown[]; message?: string | undefined; designTheme?: string | undefined; expiresInMonths?: number | undefined },
    ids: RequestIds,
  ) {
    const now = context.now();
    if (program.status === 'archived') throw conflict('program_archived', 'This program is archived: restore it before issuing');
    if (body.employees.length > GIFT_CARD_LIMITS.programRowsMax) throw badRequest('too_many_rows', `At most ${GIFT_CARD_LIMITS.programRowsMax} employees per call`);
    const message = parseMessage(body.message);
    const designTheme = parseDesignTheme(body.designTheme);
    const expiresInMonths = parseExpiresInMonths(body.expiresInMonths);
    const expiresAt = addMonths(now, expiresInMonths);
    const batchId = ids.batchId ?? newId('gcb');
    const transferId = `gift_card_batch:${batchId}`;
    const failed: { index: number; code: string; reason: string; externalRef?: string }[] = [];
    const skipped: { index: number; externalRef: string; cardId: string; reason: string }[] = [];
    const valid: { index: number; draft: CardDraft }[] = [];
    const seenRefs = new Map<string, number>();
    const pendingSkips: { index: number; externalRef: string }[] = [];

    // The rows' wallets in one query: a file of 500 employees is one lookup, not 500.
    const parsedRows = body.employees.map((raw) => {
      try {
        return parseProgramRow(raw, now);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return error;
      }
    });
    const wallets = await findWalletsByHandle(context.db, parsedRows.flatMap((row) => (row instanceof ApiError ? [] : [row.handle])), issuer.mode);

    for (const [index, raw] of body.employees.entries()) {
      const externalRef = typeof raw === 'object' && raw !== null && typeof (raw as { externalRef?: unknown }).externalRef === 'string' ? (raw as { externalRef: string }).externalRef : undefined;
      try {
        const row = parsedRows[index]!;
        if (row instanceof ApiError) throw row;
        if (row.deliverAt && row.deliverAt.getTime() >= expiresAt.getTime()) throw badRequest('deliver_at_after_expiry', 'deliverAt must be before the card expires');
        // A card locked to a handle nobody holds would go to whoever claims that handle later (a
        // typo in the file included): the row fails instead, like a delivery to nobody.
        const recipient = wallets.get(row.handle);
        if (!recipient) throw notFound('wallet_not_found', `No ${issuer.mode} wallet with handle ${displayHandle(row.handle)}${row.deliverAt ? ' to deliver to' : ' to lock the card to'}`);
        const deliverToWalletId = row.deliverAt ? recipient.id : null;
        if (row.externalRef !== null && seenRefs.has(row.externalRef)) {
          pendingSkips.push({ index, externalRef: row.externalRef });
          continue;
        }
        if (row.externalRef !== null) seenRefs.set(row.externalRef, index);
        const fields: CardFields = { amount: row.amount, currency: row.currency, message, pinCode: null, lockedToHandle: row.handle, designTheme, expiresInMonths, brand: null };
        valid.push({
          index,
          draft: {
            ...baseDraft(fields, 'program'),
            batchId,
            programId: program.id,
            externalRef: row.externalRef,
            deliverToHandle: row.deliverAt ? row.handle : null,
            deliverToWalletId,
            deliverAt: row.deliverAt,
          },
        });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        failed.push({ index, code: error.code, reason: error.message, ...(externalRef ? { externalRef } : {}) });
      }
    }

    const outcome = await context.db.transaction(async (tx) => {
      const existing = await existingBatch(tx, batchId, ids);
      if (existing) return { existing };
      const known = await existingExternalRefs(tx, program.id, valid.flatMap((row) => (row.draft.externalRef === null ? [] : [row.draft.externalRef])));
      const fresh = valid.filter((row) => row.draft.externalRef === null || !known.has(row.draft.externalRef));
      const alreadyIssued = valid.filter((row) => row.draft.externalRef !== null && known.has(row.draft.externalRef));
      const { fitting, refused } = await allocate(tx, issuer, fresh);
      const made = fitting.map((row) => ({ index: row.index, ...newCard(issuer, row.draft, now, null, newId('gcard'), transferId) }));
      const inserted = await insertCards(tx, made.map((entry) => entry.card));
      // A row another request issued in the meantime lost the unique index race: skipped, not charged.
      const insertedIds = new Set(inserted.map((row) => row.id));
      const raced = made.filter((entry) => !insertedIds.has(entry.card.id));
      const racedRefs = await existingExternalRefs(tx, program.id, raced.map((entry) => entry.card.external_ref!));
      const legs = fundingLegs(issuer.walletId, sumByCurrency(inserted));
      if (legs.length > 0) {
        await transfer(tx, { id: transferId, mode: issuer.mode, kind: 'gift_card_issue', legs, metadata: { batchId, programId: program.id, source: 'program', cards: inserted.length } });
      }
      const allKnown = new Map([...known, ...racedRefs]);
      // Duplicates inside this request point at the card their first occurrence got (or an older one).
      const madeByRef = new Map(inserted.filter((row) => row.external_ref !== null).map((row) => [row.external_ref!, row.id]));
      return { made, inserted, refused, alreadyIssued, raced, allKnown, madeByRef };
    });
    if (outcome.existing) {
      const issued = outcome.existing.map((row, index) => ({ ...cardRecord(row, now), index }));
      return { batchId, created: false, issuedCount: issued.length, failedCount: 0, skippedCount: 0, issued, failed: [], skipped: [] };
    }
    for (const row of outcome.refused) {
      failed.push({ index: row.index, code: 'insufficient_funds', reason: `Insufficient funds for this card (${row.draft.currency})`, ...(row.draft.externalRef ? { externalRef: row.draft.externalRef } : {}) });
    }
    const reason = 'externalRef already issued in this program';
    for (const row of outcome.alreadyIssued) skipped.push({ index: row.index, externalRef: row.draft.externalRef!, cardId: outcome.allKnown.get(row.draft.externalRef!)!, reason });
    for (const entry of outcome.raced) skipped.push({ index: entry.index, externalRef: entry.card.external_ref!, cardId: outcome.allKnown.get(entry.card.external_ref!) ?? '', reason });
    for (const pending of pendingSkips) {
      const cardId = outcome.madeByRef.get(pending.externalRef) ?? outcome.allKnown.get(pending.externalRef);
      if (cardId) skipped.push({ index: pending.index, externalRef: pending.externalRef, cardId, reason });
      else failed.push({ index: pending.index, code: 'duplicate_external_ref', reason: 'externalRef repeats an earlier row that was not issued', externalRef: pending.externalRef });
    }
    failed.sort((a, b) => a.index - b.index);
    skipped.sort((a, b) => a.index - b.index);
    const byId = new Map(outcome.made.map((entry) => [entry.card.id, entry]));
    const images = await qrPngs(outcome.inserted.map((row) => byId.get(row.id)!.code));
    const issued = outcome.inserted
      .map((row, position) => ({ ...issuedRecord(row, now, byId.get(row.id)!.code, images[position]!), index: byId.get(row.id)!.index }))
      .sort((a, b) => a.index - b.index);
    return { batchId, created: true, issuedCount: issued.length, failedCount: failed.length, skippedCount: skipped.length, issued, failed, skipped };
  }

  /**
   * Cashback: the best matching active rule (largest reward after maxReward; then the higher
   * percent; then the older rule) issues a card locked to the customer, paid by the merchant.
   */
  async function evaluateReward(issuer: Issuer, body: { customerHandle: string; spendAmount: number; currency: string }, ids: RequestIds) {
    const now = context.now();
    const customerHandle = parseHandle(body.customerHandle, 'customerHandle');
    const currency = supportedCurrency(body.currency);
    const spend = toMinor(body.spendAmount, currency);
    const customer = await findWallet(context.db, customerHandle, issuer.mode);
    if (!customer) throw notFound('wallet_not_found', `No ${issuer.mode} wallet with handle ${displayHandle(customerHandle)}`);
    const rules = await matchingRewardRules(context.db, issuer.merchantId!, issuer.mode, currency, spend);
    let best: { rule: RewardRuleRow; reward: number } | undefined;
    for (const rule of rules) {
      const raw = percentOf(spend, rule.percent, 'down');
      const reward = rule.max_reward === null ? raw : Math.min(raw, rule.max_reward);
      if (reward <= 0) continue;
      if (!best || reward > best.reward || (reward === best.reward && Number(rule.percent) > Number(best.rule.percent))) best = { rule, reward };
    }
    if (!best) return { rewarded: false as const, reward: 0, currency, rule: null, card: null };
    const chosen = best;
    const fields: CardFields = {
      amount: chosen.reward,
      currency,
      message: null,
      pinCode: null,
      lockedToHandle: customer.handle,
      designTheme: 'default',
      expiresInMonths: GIFT_CARD_LIMITS.expiresInMonthsDefault,
      brand: null,
    };
    const cardId = ids.cardId ?? newId('gcard');
    const transferId = `gift_card_issue:${cardId}`;
    const { card, code } = newCard(issuer, { ...baseDraft(fields, 'reward'), rewardRuleId: chosen.rule.id }, now, null, cardId, transferId);
    const result = await context.db.transaction(async (tx) => {
      const existing = ids.cardId ? await findCard(tx, ids.cardId) : undefined;
      if (existing) return { existing };
      const [inserted] = await insertCards(tx, [card]);
      await transfer(tx, {
        id: transferId,
        mode: issuer.mode,
        kind: 'gift_card_issue',
        legs: fundingLegs(issuer.walletId, new Map([[currency, chosen.reward]])),
        metadata: { cardId, source: 'reward', ruleId: chosen.rule.id },
      });
      return { inserted: inserted! };
    });
    const cardOut = result.existing ? cardRecord(result.existing, now) : issuedRecord(result.inserted!, now, code, await qrPng(code));
    return { rewarded: true as const, reward: chosen.reward, currency, rule: chosen.rule, card: cardOut };
  }


  return { issueProgram, evaluateReward };
}
