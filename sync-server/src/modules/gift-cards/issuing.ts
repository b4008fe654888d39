import type { DeclineCode } from '@tapline/shared/decline-codes';
import { GIFT_CARD_LIMITS } from '@tapline/shared/limits';
import {
  type GiftCardBulkBody,
  type GiftCardDesignTheme,
  type IssueGiftCardBody,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import { hashPin, newId } from '../../auth/secrets.ts';
import { ApiError, badRequest, forbidden, notFound, retryAfterSeconds } from '../../http/errors.ts';
import { displayHandle } from '../../http/validate.ts';
import { LedgerError, transfer } from '../../ledger/ledger.ts';
import { findWallet, lockWalletRow } from '../wallets/index.ts';
import { findPlan } from '../subscriptions/index.ts';
import { qrPngs } from './codes.ts';
import { qrPng } from '../../http/qr-image.ts';
import { type CardDraft, type Issuer, type RequestIds, allocate, baseDraft, cardRow, fundingLegs, newCard, sumByCurrency } from './drafts.ts';
import { type IssuedRecord, cardRecord, issuedRecord } from './records.ts';
import { type CardRow, cardsOfBatch, codeTaken, findCard, insertCards, singleIssuesSince } from './store.ts';
import {
  type CardFields,
  addMonths,
  parseAmount,
  parseBrand,
  parseCurrency,
  parseDesignTheme,
  parseExpiresInMonths,
  parseFutureDate,
  parseHandle,
  parseImportRow,
  parseMessage,
  parsePin,
} from './validation.ts';

export type IssueOutcome = { created: true; card: IssuedRecord } | { created: false; card: ReturnType<typeof cardRecord> };

const DAY_MS = 24 * 3600_000;

/** Issuing paid by the caller's wallet: the single issue, bulk, import and the kiosk's card sales. */
export function issuingService(context: AppContext) {
  /** The single issue (spec's issue body), on every surface. At most 10 per issuer per 24 hours. */
  async function issue(issuer: Issuer, body: IssueGiftCardBody, ids: RequestIds): Promise<IssueOutcome> {
    const now = context.now();
    const draft = await draftFromIssueBody(context, issuer, body, now);
    const pinHash = draft.pinCode ? await hashPin(draft.pinCode) : null;
    const cardId = ids.cardId ?? newId('gcard');
    const transferId = `gift_card_issue:${cardId}`;
    const { card, code } = newCard(issuer, draft, now, pinHash, cardId, transferId);

    const result = await context.db.transaction(async (tx): Promise<{ existing: CardRow } | { inserted: CardRow }> => {
      const existing = ids.cardId ? await findCard(tx, ids.cardId) : undefined;
      if (existing) return { existing };
      await lockWalletRow(tx, issuer.walletId);
      const windowStart = new Date(now.getTime() - DAY_MS);
      const recent = await singleIssuesSince(tx, issuer.walletId, windowStart);
      if (recent.count >= GIFT_CARD_LIMITS.singleIssuesPer24Hours) {
        const freesAt = (recent.oldest ?? now).getTime() + DAY_MS;
        const seconds = retryAfterSeconds(freesAt, now);
        throw new ApiError(
          429,
          'gift_card_issue_limit',
          `At most ${GIFT_CARD_LIMITS.singleIssuesPer24Hours} single gift cards per issuer in 24 hours (bulk and import are exempt); retry in ${seconds} seconds`,
          { headers: { 'retry-after': String(seconds) } },
        );
      }
      const [inserted] = await insertCards(tx, [card]);
      if (!inserted) throw new Error('gift card insert collided');
      await transfer(tx, {
        id: transferId,
        mode: issuer.mode,
        kind: 'gift_card_issue',
        legs: fundingLegs(issuer.walletId, new Map([[card.currency, card.amount]])),
        metadata: { cardId, source: 'single' },
      });
      return { inserted };
    });
    if ('existing' in result) return { created: false, card: cardRecord(result.existing, now) };
    return { created: true, card: issuedRecord(result.inserted, now, code, await qrPng(code)) };
  }

  /** Up to 100 identical cards, one batch, one ledger transfer; exempt from the 24-hour limit. */
  async function bulk(issuer: Issuer, body: GiftCardBulkBody, ids: RequestIds): Promise<{ batchId: string; created: boolean; cards: (IssuedRecord | ReturnType<typeof cardRecord>)[] }> {
    const now = context.now();
    const currency = parseCurrency(body.currency);
    const fields: CardFields = {
      amount: parseAmount(body.amount, currency),
      currency,
      message: parseMessage(body.message),
      pinCode: parsePin(body.pinCode),
      lockedToHandle: body.lockedToHandle === undefined ? null : parseHandle(body.lockedToHandle, 'lockedToHandle'),
      designTheme: parseDesignTheme(body.designTheme),
      expiresInMonths: parseExpiresInMonths(body.expiresInMonths),
      brand: parseBrand(body.brandConfig),
    };
    if (!Number.isInteger(body.count) || body.count < 1 || body.count > GIFT_CARD_LIMITS.bulkCountMax) {
      throw badRequest('count_out_of_range', `count must be 1 to ${GIFT_CARD_LIMITS.bulkCountMax}`);
    }
    // Identical cards share one PIN; hashing it once keeps a 100-card batch fast.
    const pinHash = fields.pinCode ? await hashPin(fields.pinCode) : null;
    const batchId = ids.batchId ?? newId('gcb');
    const transferId = `gift_card_batch:${batchId}`;
    const draft: CardDraft = { ...baseDraft(fields, 'bulk'), batchId, multiMerchant: body.multiMerchant === true };
    const made = Array.from({ length: body.count }, () => newCard(issuer, draft, now, pinHash, newId('gcard'), transferId));

    const result = await context.db.transaction(async (tx) => {
      const existing = await existingBatch(tx, batchId, ids);
      if (existing) return { existing };
      const inserted = await insertCards(tx, made.map((entry) => entry.card));
      await transfer(tx, {
        id: transferId,
        mode: issuer.mode,
        kind: 'gift_card_issue',
        legs: fundingLegs(issuer.walletId, sumByCurrency(inserted)),
        metadata: { batchId, source: 'bulk', cards: inserted.length },
      });
      return { inserted };
    });
    if (result.existing) return { batchId, created: false, cards: result.existing.map((row) => cardRecord(row, now)) };
    const inserted = result.inserted ?? [];
    const codes = new Map(made.map((entry) => [entry.card.id, entry.code]));
    const images = await qrPngs(inserted.map((row) => codes.get(row.id)!));
    return { batchId, created: true, cards: inserted.map((row, index) => issuedRecord(row, now, codes.get(row.id)!, images[index]!)) };
  }

  /** Up to 500 rows, each validated alone; bad rows are reported and never abort the batch. */
  async function importCards(issuer: Issuer, rows: readonly unknown[], ids: RequestIds) {
    const now = context.now();
    if (rows.length > GIFT_CARD_LIMITS.importRowsMax) throw badRequest('too_many_rows', `At most ${GIFT_CARD_LIMITS.importRowsMax} cards per import`);
    const batchId = ids.batchId ?? newId('gcb');
    const transferId = `gift_card_batch:${batchId}`;
    const failed: { index: number; code: string; reason: string }[] = [];
    const valid: { index: number; draft: CardDraft }[] = [];
    rows.forEach((row, index) => {
      try {
        valid.push({ index, draft: { ...baseDraft(parseImportRow(row), 'import'), batchId } });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        failed.push({ index, code: error.code, reason: error.message });
      }
    });

    const outcome = await context.db.transaction(async (tx) => {
      const existing = await existingBatch(tx, batchId, ids);
      if (existing) return { existing };
      const { fitting, refused } = await allocate(tx, issuer, valid);
      const made = fitting.map((row) => ({ index: row.index, ...newCard(issuer, row.draft, now, null, newId('gcard'), transferId) }));
      const inserted = await insertCards(tx, made.map((entry) => entry.card));
      const legs = fundingLegs(issuer.walletId, sumByCurrency(inserted));
      if (legs.length > 0) {
        await transfer(tx, { id: transferId, mode: issuer.mode, kind: 'gift_card_issue', legs, metadata: { batchId, source: 'import', cards: inserted.length } });
      }
      return { made, inserted, refused };
    });
    if (outcome.existing) {
      return { batchId, created: false, issuedCount: outcome.existing.length, failedCount: 0, issued: outcome.existing.map((row, index) => ({ ...cardRecord(row, now), index })), failed: [] };
    }
    for (const row of outcome.refused) failed.push({ index: row.index, code: 'insufficient_funds', reason: `Insufficient funds for this card (${row.draft.currency})` });
    failed.sort((a, b) => a.index - b.index);
    const byId = new Map(outcome.made.map((entry) => [entry.card.id, entry]));
    const images = await qrPngs(outcome.inserted.map((row) => byId.get(row.id)!.code));
    const issued = outcome.inserted
      .map((row, position) => ({ ...issuedRecord(row, now, byId.get(row.id)!.code, images[position]!), index: byId.get(row.id)!.index }))
      .sort((a, b) => a.index - b.index);
    return { batchId, created: true, issuedCount: issued.length, failedCount: failed.length, issued, failed };
  }

  /**
   * A card sold at a kiosk terminal, inside the caller's transaction (the sync settlement's): the
   * terminal made the code and printed it, so only its hash and prefix arrive. Funded from the
   * merchant's wallet like any issue; a sales channel like bulk and import, so outside the
   * single-issue limit. Refusals come back as a decline (the caller records it), never a throw.
   */
  async function issueSoldAtTerminal(
    tx: Queryable,
    issuer: Issuer,
    sale: { cardId: string; codeHash: string; codePrefix: string; amount: number; currency: string; designTheme: GiftCardDesignTheme; message: string | null },
    now: Date,
  ): Promise<{ card: CardRow } | { declineCode: DeclineCode; declineReason: string }> {
    const draft = baseDraft(
      { amount: sale.amount, currency: sale.currency, message: sale.message, pinCode: null, lockedToHandle: null, designTheme: sale.designTheme, expiresInMonths: GIFT_CARD_LIMITS.expiresInMonthsDefault, brand: null },
      'terminal',
    );
    const transferId = `gift_card_issue:${sale.cardId}`;
    if (await codeTaken(tx, sale.codeHash)) return { declineCode: 'code_taken', declineReason: 'A card with this code already exists: the terminal must make a new code' };
    try {
      await transfer(tx, { id: transferId, mode: issuer.mode, kind: 'gift_card_issue', legs: fundingLegs(issuer.walletId, new Map([[sale.currency, sale.amount]])), metadata: { cardId: sale.cardId, source: 'terminal' } });
    } catch (error) {
      if (error instanceof LedgerError && error.code === 'insufficient_funds') {
        return { declineCode: 'insufficient_funds', declineReason: `The merchant's wallet has less than the card's value in ${sale.currency}` };
      }
      throw error;
    }
    const [card] = await insertCards(tx, [cardRow(issuer, draft, now, null, sale.cardId, transferId, { hash: sale.codeHash, prefix: sale.codePrefix })]);
    if (!card) throw new Error('gift card insert collided');
    return { card };
  }


  return { issue, bulk, importCards, issueSoldAtTerminal };
}

/** A batch an earlier run of the same request (same Idempotency-Key) already made. */
export async function existingBatch(tx: Queryable, batchId: string, ids: RequestIds): Promise<CardRow[] | undefined> {
  if (!ids.batchId) return undefined;
  const rows = await cardsOfBatch(tx, batchId);
  return rows.length > 0 ? rows : undefined;
}

async function draftFromIssueBody(context: AppContext, issuer: Issuer, body: IssueGiftCardBody, now: Date): Promise<CardDraft> {
    let amount: number;
    let currency: string;
    let subscriptionPlanId: string | null = null;
    let giftMonths: number | null = null;
    if (body.subscriptionPlanId !== undefined || body.giftMonths !== undefined) {
      if (issuer.type !== 'merchant') throw forbidden('subscription_gift_merchant_only', 'Only merchants can issue subscription gifts');
      if (body.subscriptionPlanId === undefined || body.giftMonths === undefined) {
        throw badRequest('subscription_gift_incomplete', 'subscriptionPlanId and giftMonths go together');
      }
      const plan = await findPlan(context.db, body.subscriptionPlanId);
      if (!plan || plan.merchant_id !== issuer.merchantId || plan.mode !== issuer.mode || !plan.active) {
        throw notFound('subscription_plan_not_found', `No subscription plan ${body.subscriptionPlanId}`);
      }
      if (body.currency !== undefined && body.currency !== plan.currency) {
        throw badRequest('currency_mismatch', `The plan is priced in ${plan.currency}; a subscription gift takes the plan's currency`);
      }
      currency = plan.currency;
      amount = plan.price * body.giftMonths;
      if (!Number.isSafeInteger(amount)) throw badRequest('amount_too_large', 'Plan price times months is too large');
      subscriptionPlanId = plan.id;
      giftMonths = body.giftMonths;
    } else {
      if (body.amount === undefined) throw badRequest('amount_required', 'amount is required');
      if (body.currency === undefined) throw badRequest('currency_required', 'currency is required');
      currency = parseCurrency(body.currency);
      amount = parseAmount(body.amount, currency);
    }
    const fields: CardFields = {
      amount,
      currency,
      message: parseMessage(body.message),
      pinCode: parsePin(body.pinCode),
      lockedToHandle: body.lockedToHandle === undefined ? null : parseHandle(body.lockedToHandle, 'lockedToHandle'),
      designTheme: parseDesignTheme(body.designTheme),
      expiresInMonths: parseExpiresInMonths(body.expiresInMonths),
      brand: parseBrand(body.brandConfig),
    };
    const draft: CardDraft = { ...baseDraft(fields, 'single'), subscriptionPlanId, giftMonths, multiMerchant: body.multiMerchant === true };
    if (body.deliverToHandle !== undefined || body.deliverAt !== undefined) {
      if (body.deliverToHandle === undefined || body.deliverAt === undefined) {
        throw badRequest('delivery_incomplete', 'deliverToHandle and deliverAt go together');
      }
      const handle = parseHandle(body.deliverToHandle, 'deliverToHandle');
      const deliverAt = parseFutureDate(body.deliverAt, now, 'deliverAt');
      if (deliverAt.getTime() >= addMonths(now, fields.expiresInMonths).getTime()) {
        throw badRequest('deliver_at_after_expiry', 'deliverAt must be before the card expires');
      }
      if (fields.lockedToHandle && fields.lockedToHandle !== handle) {
        throw badRequest('delivery_conflicts_with_lock', 'A card delivered to one @handle cannot be locked to another');
      }
      const recipient = await findWallet(context.db, handle, issuer.mode);
      if (!recipient) throw notFound('wallet_not_found', `No ${issuer.mode} wallet with handle ${displayHandle(handle)} to deliver to`);
      draft.deliverToHandle = handle;
      draft.deliverToWalletId = recipient.id;
      draft.deliverAt = deliverAt;
    }
    return draft;
  }

