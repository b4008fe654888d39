import { toMinor } from '@tapline/shared/money';
import {
  GIFT_CARD_LIMITS,
  type GiftCardBulkBody,
  type GiftCardDesignTheme,
  type GiftCardIssuerType,
  type GiftCardRedeemBody,
  type IssueGiftCardBody,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import { type Mode, hashPin, newId, verifyPin } from '../../auth/secrets.ts';
import { ApiError, badRequest, conflict, forbidden, gone, notFound, unprocessable } from '../../http/errors.ts';
import { displayHandle, supportedCurrency } from '../../http/validate.ts';
import { type AccountRef, systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { LedgerError, type TransferLeg, transfer } from '../../ledger/ledger.ts';
import { findWallet } from '../wallets/index.ts';
import { subscriptionGiftPeriod } from '../subscriptions/index.ts';
import { canonicalCode, codeHash, codePrefixOf, newGiftCardCode, qrPng, qrPngs } from './codes.ts';
import { type RateSource, convertMinor, decimalFraction } from './fx.ts';
import { type IssuedRecord, cardRecord, effectiveStatus, issuedRecord, redeemedCard, redemptionRecord } from './records.ts';
import {
  type CardRow,
  type CardSource,
  type NewCard,
  type ProgramRow,
  type RedemptionRow,
  type RewardRuleRow,
  claimDueDelivery,
  claimExpiredCards,
  drawFromCard,
  endCard,
  existingExternalRefs,
  findCard,
  findCardByHash,
  findRedemption,
  insertCards,
  insertRedemption,
  lockCard,
  lockIssuerWallet,
  lockWalletBalances,
  matchingRewardRules,
  recordDeliveryFailure,
  recordVerifyMiss,
  reserveCardPinAttempt,
  settleCardPinAttempt,
  singleIssuesSince,
  verifyMissesOf,
} from './store.ts';
import {
  type ActivationRow,
  activationsOf,
  findActivation,
  findPlan,
  insertActivation,
} from '../subscriptions/index.ts';
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
  parseProgramRow,
} from './validation.ts';

/** Who pays for a card: the caller's wallet on its surface. */
export interface Issuer {
  type: GiftCardIssuerType;
  /** Merchant id, wallet id or agent id. */
  id: string;
  walletId: string;
  handle: string;
  mode: Mode;
  /** The wallet's own currency: the default reporting currency of its analytics. */
  homeCurrency: string;
  merchantId: string | null;
}

/** Whose wallet a redemption credits (CONTRACT.md: the authenticated principal's). */
export interface Redeemer {
  kind: 'merchant' | 'terminal' | 'wallet' | 'agent' | 'delivery';
  walletId: string;
  handle: string;
  mode: Mode;
  merchantId: string | null;
  terminalId: string | null;
}

/**
 * Ids a request derives from its Idempotency-Key (http/idempotency.ts idempotentId): a re-run of
 * the same request after a crash finds the card, batch or redemption it already made and answers
 * with it instead of issuing or redeeming twice. Without a key, fresh ids.
 */
export interface RequestIds {
  cardId?: string | undefined;
  batchId?: string | undefined;
  redemptionId?: string | undefined;
}

export type IssueOutcome = { created: true; card: IssuedRecord } | { created: false; card: ReturnType<typeof cardRecord> };

const DAY_MS = 24 * 3600_000;
/** Cards expired per transaction by the expiry sweep: one ledger transfer of at most 2 legs per card. */
const EXPIRY_BATCH = 25;
/** Deliveries per job run; the rest wait for the next run. */
const DELIVERIES_PER_RUN = 200;

export function giftCardNotFound(): ApiError {
  return notFound('gift_card_not_found', 'No such gift card');
}

/** The answer for a card that cannot be redeemed in its state (spec: used 409, expired 410); the store's checkout uses it too. */
export function stateError(status: string): ApiError {
  switch (status) {
    case 'used':
      return conflict('gift_card_used', 'This gift card has already been fully redeemed');
    case 'expired':
      return gone('gift_card_expired', 'This gift card has expired');
    case 'cancelled':
      return conflict('gift_card_cancelled', 'This gift card has been cancelled');
    case 'refunded':
      return conflict('gift_card_refunded', 'This gift card has been refunded to its issuer');
    case 'scheduled':
      return conflict('gift_card_scheduled', 'This gift card is scheduled for delivery and cannot be redeemed before then');
    default:
      return conflict('gift_card_not_active', `This gift card is ${status}`);
  }
}

function liability(currency: string): AccountRef {
  return systemAccount('gift_card_liability', currency);
}

/** Issuer wallet -> liability, one pair of legs per currency. */
function fundingLegs(issuerWalletId: string, totals: Map<string, number>): TransferLeg[] {
  const legs: TransferLeg[] = [];
  for (const [currency, total] of totals) {
    if (total === 0) continue;
    if (!Number.isSafeInteger(total)) throw unprocessable('amount_too_large', 'The total value of the cards is too large');
    legs.push({ account: walletAccount(issuerWalletId, currency), amount: -total });
    legs.push({ account: liability(currency), amount: total });
  }
  return legs;
}

function sumByCurrency(cards: readonly { currency: string; amount: number }[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const card of cards) totals.set(card.currency, (totals.get(card.currency) ?? 0) + card.amount);
  return totals;
}

/** floor(amount x percent / 100), exactly. */
export function percentOf(amount: number, percent: string): number {
  const { digits, scale } = decimalFraction(percent);
  return Number((BigInt(amount) * digits) / (100n * 10n ** BigInt(scale)));
}

interface CardDraft extends CardFields {
  deliverToHandle: string | null;
  deliverToWalletId: string | null;
  deliverAt: Date | null;
  subscriptionPlanId: string | null;
  giftMonths: number | null;
  multiMerchant: boolean;
  source: CardSource;
  batchId: string | null;
  programId: string | null;
  externalRef: string | null;
  rewardRuleId: string | null;
}

export class GiftCardService {
  constructor(
    private readonly context: AppContext,
    private readonly rates: RateSource,
  ) {}

  private get db() {
    return this.context.db;
  }

  /** A card row ready to insert, with its fresh code (kept in memory only, for the answer). */
  private newCard(issuer: Issuer, draft: CardDraft, now: Date, pinHash: string | null, id: string, transferId: string): { card: NewCard; code: string } {
    const code = newGiftCardCode();
    return { code, card: this.cardRow(issuer, draft, now, pinHash, id, transferId, { hash: codeHash(code), prefix: codePrefixOf(code) }) };
  }

  private cardRow(issuer: Issuer, draft: CardDraft, now: Date, pinHash: string | null, id: string, transferId: string, code: { hash: string; prefix: string }): NewCard {
    return {
      id,
      mode: issuer.mode,
      code_hash: code.hash,
      code_prefix: code.prefix,
      issuer_type: issuer.type,
      issuer_id: issuer.id,
      issuer_wallet_id: issuer.walletId,
      issuer_handle: issuer.handle,
      source: draft.source,
      batch_id: draft.batchId,
      program_id: draft.programId,
      external_ref: draft.externalRef,
      reward_rule_id: draft.rewardRuleId,
      amount: draft.amount,
      currency: draft.currency,
      status: draft.deliverAt ? 'scheduled' : 'active',
      message: draft.message,
      pin_hash: pinHash,
      locked_to_handle: draft.lockedToHandle,
      design_theme: draft.designTheme,
      brand: draft.brand,
      multi_merchant: draft.multiMerchant,
      expires_at: addMonths(now, draft.expiresInMonths),
      deliver_to_handle: draft.deliverToHandle,
      deliver_to_wallet_id: draft.deliverToWalletId,
      deliver_at: draft.deliverAt,
      subscription_plan_id: draft.subscriptionPlanId,
      gift_months: draft.giftMonths,
      issue_transfer_id: transferId,
      created_at: now,
    };
  }

  /**
   * A card sold at a kiosk terminal, inside the caller's transaction (the sync settlement's): the
   * terminal made the code and printed it, so only its hash and prefix arrive. Funded from the
   * merchant's wallet like any issue; a sales channel like bulk and import, so outside the
   * single-issue limit. Refusals come back as a decline (the caller records it), never a throw.
   */
  async issueSoldAtTerminal(
    tx: Queryable,
    issuer: Issuer,
    sale: { cardId: string; codeHash: string; codePrefix: string; amount: number; currency: string; designTheme: GiftCardDesignTheme; message: string | null },
    now: Date,
  ): Promise<{ card: CardRow } | { declineCode: string; declineReason: string }> {
    const draft = this.baseDraft(
      { amount: sale.amount, currency: sale.currency, message: sale.message, pinCode: null, lockedToHandle: null, designTheme: sale.designTheme, expiresInMonths: GIFT_CARD_LIMITS.expiresInMonthsDefault, brand: null },
      'terminal',
    );
    const transferId = `gift_card_issue:${sale.cardId}`;
    const [taken] = await tx.query('SELECT 1 FROM gift_cards WHERE code_hash = $1', [sale.codeHash]);
    if (taken) return { declineCode: 'code_taken', declineReason: 'A card with this code already exists: the terminal must make a new code' };
    try {
      await transfer(tx, { id: transferId, mode: issuer.mode, kind: 'gift_card_issue', legs: fundingLegs(issuer.walletId, new Map([[sale.currency, sale.amount]])), metadata: { cardId: sale.cardId, source: 'terminal' } });
    } catch (error) {
      if (error instanceof LedgerError && error.code === 'insufficient_funds') {
        return { declineCode: 'insufficient_funds', declineReason: `The merchant's wallet has less than the card's value in ${sale.currency}` };
      }
      throw error;
    }
    const [card] = await insertCards(tx, [this.cardRow(issuer, draft, now, null, sale.cardId, transferId, { hash: sale.codeHash, prefix: sale.codePrefix })]);
    if (!card) throw new Error('gift card insert collided');
    return { card };
  }

  private baseDraft(fields: CardFields, source: CardSource): CardDraft {
    return {
      ...fields,
      deliverToHandle: null,
      deliverToWalletId: null,
      deliverAt: null,
      subscriptionPlanId: null,
      giftMonths: null,
      multiMerchant: false,
      source,
      batchId: null,
      programId: null,
      externalRef: null,
      rewardRuleId: null,
    };
  }

  // Issue ---------------------------------------------------------------------------------

  /** The single issue (spec's issue body), on every surface. At most 10 per issuer per 24 hours. */
  async issue(issuer: Issuer, body: IssueGiftCardBody, ids: RequestIds): Promise<IssueOutcome> {
    const now = this.context.now();
    const draft = await this.draftFromIssueBody(issuer, body, now);
    const pinHash = draft.pinCode ? await hashPin(draft.pinCode) : null;
    const cardId = ids.cardId ?? newId('gcard');
    const transferId = `gift_card_issue:${cardId}`;
    const { card, code } = this.newCard(issuer, draft, now, pinHash, cardId, transferId);

    const result = await this.db.transaction(async (tx): Promise<{ existing: CardRow } | { inserted: CardRow }> => {
      const existing = ids.cardId ? await findCard(tx, ids.cardId) : undefined;
      if (existing) return { existing };
      await lockIssuerWallet(tx, issuer.walletId);
      const windowStart = new Date(now.getTime() - DAY_MS);
      const recent = await singleIssuesSince(tx, issuer.walletId, windowStart);
      if (recent.count >= GIFT_CARD_LIMITS.singleIssuesPer24Hours) {
        const freesAt = (recent.oldest ?? now).getTime() + DAY_MS;
        const seconds = Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000));
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

  private async draftFromIssueBody(issuer: Issuer, body: IssueGiftCardBody, now: Date): Promise<CardDraft> {
    let amount: number;
    let currency: string;
    let subscriptionPlanId: string | null = null;
    let giftMonths: number | null = null;
    if (body.subscriptionPlanId !== undefined || body.giftMonths !== undefined) {
      if (issuer.type !== 'merchant') throw forbidden('subscription_gift_merchant_only', 'Only merchants can issue subscription gifts');
      if (body.subscriptionPlanId === undefined || body.giftMonths === undefined) {
        throw badRequest('subscription_gift_incomplete', 'subscriptionPlanId and giftMonths go together');
      }
      const plan = await findPlan(this.db, body.subscriptionPlanId);
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
    const draft: CardDraft = { ...this.baseDraft(fields, 'single'), subscriptionPlanId, giftMonths, multiMerchant: body.multiMerchant === true };
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
      const recipient = await findWallet(this.db, handle, issuer.mode);
      if (!recipient) throw notFound('wallet_not_found', `No ${issuer.mode} wallet with handle ${displayHandle(handle)} to deliver to`);
      draft.deliverToHandle = handle;
      draft.deliverToWalletId = recipient.id;
      draft.deliverAt = deliverAt;
    }
    return draft;
  }

  /** Up to 100 identical cards, one batch, one ledger transfer; exempt from the 24-hour limit. */
  async bulk(issuer: Issuer, body: GiftCardBulkBody, ids: RequestIds): Promise<{ batchId: string; created: boolean; cards: (IssuedRecord | ReturnType<typeof cardRecord>)[] }> {
    const now = this.context.now();
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
    const draft: CardDraft = { ...this.baseDraft(fields, 'bulk'), batchId, multiMerchant: body.multiMerchant === true };
    const made = Array.from({ length: body.count }, () => this.newCard(issuer, draft, now, pinHash, newId('gcard'), transferId));

    const result = await this.db.transaction(async (tx) => {
      const existing = await this.existingBatch(tx, batchId, ids);
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

  private async existingBatch(tx: Queryable, batchId: string, ids: RequestIds): Promise<CardRow[] | undefined> {
    if (!ids.batchId) return undefined;
    const rows = await tx.query<CardRow>('SELECT * FROM gift_cards WHERE batch_id = $1 ORDER BY created_at, id', [batchId]);
    return rows.length > 0 ? rows : undefined;
  }

  /**
   * Funds the rows that fit the issuer's balance, in order, under a lock on its accounts: a row
   * that does not fit fails with insufficient_funds and the others still go through.
   */
  private async allocate<T extends { draft: CardDraft }>(tx: Queryable, issuer: Issuer, rows: readonly T[]): Promise<{ fitting: T[]; refused: T[] }> {
    const currencies = [...new Set(rows.map((row) => row.draft.currency))];
    const balances = await lockWalletBalances(tx, issuer.walletId, issuer.mode, currencies);
    const fitting: T[] = [];
    const refused: T[] = [];
    for (const row of rows) {
      const left = balances.get(row.draft.currency) ?? 0;
      if (row.draft.amount <= left) {
        balances.set(row.draft.currency, left - row.draft.amount);
        fitting.push(row);
      } else {
        refused.push(row);
      }
    }
    return { fitting, refused };
  }

  /** Up to 500 rows, each validated alone; bad rows are reported and never abort the batch. */
  async importCards(issuer: Issuer, rows: readonly unknown[], ids: RequestIds) {
    const now = this.context.now();
    if (rows.length > GIFT_CARD_LIMITS.importRowsMax) throw badRequest('too_many_rows', `At most ${GIFT_CARD_LIMITS.importRowsMax} cards per import`);
    const batchId = ids.batchId ?? newId('gcb');
    const transferId = `gift_card_batch:${batchId}`;
    const failed: { index: number; code: string; reason: string }[] = [];
    const valid: { index: number; draft: CardDraft }[] = [];
    rows.forEach((row, index) => {
      try {
        valid.push({ index, draft: { ...this.baseDraft(parseImportRow(row), 'import'), batchId } });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        failed.push({ index, code: error.code, reason: error.message });
      }
    });

    const outcome = await this.db.transaction(async (tx) => {
      const existing = await this.existingBatch(tx, batchId, ids);
      if (existing) return { existing };
      const { fitting, refused } = await this.allocate(tx, issuer, valid);
      const made = fitting.map((row) => ({ index: row.index, ...this.newCard(issuer, row.draft, now, null, newId('gcard'), transferId) }));
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

  /** Program issue: cards locked to each @handle, optionally delivered at deliverAt; known externalRefs are skipped. */
  async issueProgram(
    issuer: Issuer,
    program: ProgramRow,
    body: { employees: readonly unknown[]; message?: string | undefined; designTheme?: string | undefined; expiresInMonths?: number | undefined },
    ids: RequestIds,
  ) {
    const now = this.context.now();
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

    for (const [index, raw] of body.employees.entries()) {
      const externalRef = typeof raw === 'object' && raw !== null && typeof (raw as { externalRef?: unknown }).externalRef === 'string' ? (raw as { externalRef: string }).externalRef : undefined;
      try {
        const row = parseProgramRow(raw, now);
        if (row.deliverAt && row.deliverAt.getTime() >= expiresAt.getTime()) throw badRequest('deliver_at_after_expiry', 'deliverAt must be before the card expires');
        let deliverToWalletId: string | null = null;
        if (row.deliverAt) {
          const recipient = await findWallet(this.db, row.handle, issuer.mode);
          if (!recipient) throw notFound('wallet_not_found', `No ${issuer.mode} wallet with handle ${displayHandle(row.handle)} to deliver to`);
          deliverToWalletId = recipient.id;
        }
        if (row.externalRef !== null && seenRefs.has(row.externalRef)) {
          pendingSkips.push({ index, externalRef: row.externalRef });
          continue;
        }
        if (row.externalRef !== null) seenRefs.set(row.externalRef, index);
        const fields: CardFields = { amount: row.amount, currency: row.currency, message, pinCode: null, lockedToHandle: row.handle, designTheme, expiresInMonths, brand: null };
        valid.push({
          index,
          draft: {
            ...this.baseDraft(fields, 'program'),
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

    const outcome = await this.db.transaction(async (tx) => {
      const existing = await this.existingBatch(tx, batchId, ids);
      if (existing) return { existing };
      const known = await existingExternalRefs(tx, program.id, valid.flatMap((row) => (row.draft.externalRef === null ? [] : [row.draft.externalRef])));
      const fresh = valid.filter((row) => row.draft.externalRef === null || !known.has(row.draft.externalRef));
      const alreadyIssued = valid.filter((row) => row.draft.externalRef !== null && known.has(row.draft.externalRef));
      const { fitting, refused } = await this.allocate(tx, issuer, fresh);
      const made = fitting.map((row) => ({ index: row.index, ...this.newCard(issuer, row.draft, now, null, newId('gcard'), transferId) }));
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
  async evaluateReward(issuer: Issuer, body: { customerHandle: string; spendAmount: number; currency: string }, ids: RequestIds) {
    const now = this.context.now();
    const customerHandle = parseHandle(body.customerHandle, 'customerHandle');
    const currency = supportedCurrency(body.currency);
    const spend = toMinor(body.spendAmount, currency);
    const customer = await findWallet(this.db, customerHandle, issuer.mode);
    if (!customer) throw notFound('wallet_not_found', `No ${issuer.mode} wallet with handle ${displayHandle(customerHandle)}`);
    const rules = await matchingRewardRules(this.db, issuer.merchantId!, issuer.mode, currency, spend);
    let best: { rule: RewardRuleRow; reward: number } | undefined;
    for (const rule of rules) {
      const raw = percentOf(spend, rule.percent);
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
    const { card, code } = this.newCard(issuer, { ...this.baseDraft(fields, 'reward'), rewardRuleId: chosen.rule.id }, now, null, cardId, transferId);
    const result = await this.db.transaction(async (tx) => {
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

  // Verify and redeem ---------------------------------------------------------------------

  /**
   * Public verify: never the issuer. An IP that asked about too many unknown codes is refused
   * until its window ends; with 2^256 codes no answer pattern can be mined anyway.
   */
  async verify(rawCode: string, ip: string) {
    const now = this.context.now();
    const { verifyMissesMax, verifyMissWindowSeconds } = this.verifyLimits();
    const misses = await verifyMissesOf(this.db, ip, now);
    if (misses && misses.count >= verifyMissesMax) {
      const seconds = Math.max(1, Math.ceil((misses.windowEndsAt.getTime() - now.getTime()) / 1000));
      throw new ApiError(429, 'verify_rate_limited', `Too many unknown gift card codes from this address; retry in ${seconds} seconds`, {
        headers: { 'retry-after': String(seconds) },
      });
    }
    const code = canonicalCode(rawCode);
    let card = code ? await findCardByHash(this.db, codeHash(code)) : undefined;
    if (!card) {
      await recordVerifyMiss(this.db, ip, now, verifyMissWindowSeconds);
      throw giftCardNotFound();
    }
    if (effectiveStatus(card, now) !== card.status) {
      await this.expireDue(card.id);
      card = (await findCard(this.db, card.id)) ?? card;
    }
    const status = effectiveStatus(card, now);
    return {
      valid: status === 'active',
      amount: redeemedCard(card, now).amountRemaining,
      amountRemaining: redeemedCard(card, now).amountRemaining,
      currency: card.currency,
      expiresAt: card.expires_at.toISOString(),
      hasPin: card.pin_hash !== null,
      locked: card.locked_to_handle !== null,
      status,
    };
  }

  private verifyLimits() {
    const { giftCardVerifyMissesMax, giftCardVerifyMissWindowSeconds } = this.context.config;
    return { verifyMissesMax: giftCardVerifyMissesMax, verifyMissWindowSeconds: giftCardVerifyMissWindowSeconds };
  }

  /**
   * Redeem in full or in part into the redeemer's wallet (or activate a subscription gift).
   * Checks: state (used 409, expired 410, cancelled/refunded/scheduled 409), handle lock and
   * merchant acceptance (403), PIN (403; 5 wrong: 429 for 15 minutes), amount (422). The balance
   * is re-checked under the card's row lock, so concurrent redemptions never overdraw it.
   */
  async redeem(redeemer: Redeemer, body: GiftCardRedeemBody, ids: RequestIds) {
    const now = this.context.now();
    const code = canonicalCode(body.code);
    const snapshot = code ? await findCardByHash(this.db, codeHash(code)) : undefined;
    if (!snapshot || snapshot.mode !== redeemer.mode) throw giftCardNotFound();
    if (ids.redemptionId) {
      const done = await this.existingRedemption(ids.redemptionId, now);
      if (done) return done;
    }
    const requested = body.redeemAmount === undefined ? null : parseAmount(body.redeemAmount, snapshot.currency, 'redeemAmount');
    const target = body.targetCurrency === undefined ? snapshot.currency : supportedCurrency(body.targetCurrency, 'targetCurrency');

    if (snapshot.status === 'active' && effectiveStatus(snapshot, now) === 'expired') {
      await this.expireDue(snapshot.id);
      throw stateError('expired');
    }
    if (snapshot.status !== 'active') throw stateError(snapshot.status);
    if (snapshot.locked_to_handle !== null && snapshot.locked_to_handle !== redeemer.handle) {
      throw forbidden('handle_locked', 'This gift card is locked to another @handle');
    }
    if (
      (redeemer.kind === 'merchant' || redeemer.kind === 'terminal') &&
      snapshot.issuer_type === 'merchant' &&
      !snapshot.multi_merchant &&
      snapshot.issuer_id !== redeemer.merchantId
    ) {
      throw forbidden('card_not_accepted', 'This gift card can only be redeemed at the merchant that issued it (it is not multiMerchant)');
    }
    if (snapshot.subscription_plan_id !== null && (requested !== null || target !== snapshot.currency)) {
      throw unprocessable('subscription_gift_not_divisible', 'A subscription gift is redeemed whole: no redeemAmount or targetCurrency');
    }
    await this.checkPin(snapshot, body.pinCode, now);
    if (requested !== null && requested > snapshot.amount_remaining) throw this.overdrawn();
    const fx = target === snapshot.currency ? { rate: '1', asOf: null as string | null } : await this.rates.rate(snapshot.currency, target);
    const redemptionId = ids.redemptionId ?? newId('gcr');

    const outcome = await this.db.transaction(async (tx): Promise<{ expired: true } | { card: CardRow; redemption: RedemptionRow; activation?: ActivationRow }> => {
      const card = await lockCard(tx, snapshot.id);
      if (!card) throw giftCardNotFound();
      if (card.status === 'active' && effectiveStatus(card, now) === 'expired') {
        await this.expireLocked(tx, [card], now);
        return { expired: true };
      }
      if (card.status !== 'active') throw stateError(card.status);
      const drawn = requested ?? card.amount_remaining;
      if (drawn > card.amount_remaining) throw this.overdrawn();
      const credited = card.subscription_plan_id !== null ? 0 : convertMinor(drawn, card.currency, target, fx.rate, 'floor');
      if (card.subscription_plan_id === null && credited <= 0) {
        throw unprocessable('amount_too_small_to_convert', `${drawn} minor units of ${card.currency} convert to nothing in ${target}`);
      }
      return this.applyRedemption(tx, card, redeemer, { id: redemptionId, drawn, credited, target, rate: fx.rate, asOf: fx.asOf }, now);
    });
    if ('expired' in outcome) throw stateError('expired');
    return { card: redeemedCard(outcome.card, now), redemption: redemptionRecord(outcome.redemption, outcome.activation) };
  }

  private overdrawn(): ApiError {
    return unprocessable('redeem_amount_exceeds_balance', `redeemAmount is greater than the remaining balance of the card`);
  }

  private async existingRedemption(id: string, now: Date) {
    const redemption = await findRedemption(this.db, id);
    if (!redemption) return undefined;
    const card = await findCard(this.db, redemption.card_id);
    const activation = redemption.subscription_activation_id ? await findActivation(this.db, redemption.subscription_activation_id) : undefined;
    return { card: redeemedCard(card!, now), redemption: redemptionRecord(redemption, activation) };
  }

  /** The PIN rule, outside any transaction (scrypt is slow; PGlite has one connection). The store's checkout uses it too. */
  async checkPin(card: CardRow, pin: string | undefined, now: Date): Promise<void> {
    if (card.pin_hash === null) return;
    const max = GIFT_CARD_LIMITS.pinAttemptsMax;
    const lockMinutes = GIFT_CARD_LIMITS.pinLockMinutes;
    const lockedError = (until: Date) => {
      const seconds = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
      return new ApiError(429, 'pin_attempts_exceeded', `Too many wrong PINs: this gift card is locked until ${until.toISOString()}`, {
        headers: { 'retry-after': String(seconds) },
      });
    };
    if (card.pin_locked_until && card.pin_locked_until.getTime() > now.getTime()) throw lockedError(card.pin_locked_until);
    if (pin === undefined || pin === '') throw forbidden('pin_required', 'This gift card needs its PIN (pinCode)');
    const reservation = await reserveCardPinAttempt(this.db, card.id, now, max, lockMinutes);
    if (reservation.outcome === 'locked') throw lockedError(reservation.lockedUntil);
    const correct = await verifyPin(pin, card.pin_hash);
    const lockedUntil = await settleCardPinAttempt(this.db, card.id, reservation.attempt, correct, now, max, lockMinutes);
    if (!correct) {
      throw forbidden('wrong_pin', lockedUntil ? `Wrong PIN: too many wrong PINs, the card is locked until ${lockedUntil.toISOString()}` : 'Wrong PIN');
    }
  }

  /**
   * One redemption on a locked, active card: the balance, the record, and ONE ledger transfer
   * from the liability account to the redeemer's wallet (through the FX account when the
   * currencies differ: balanced per currency). A subscription gift pays the plan's merchant and
   * records the activation instead of crediting the redeemer.
   */
  private async applyRedemption(
    tx: Queryable,
    card: CardRow,
    redeemer: Redeemer,
    values: { id: string; drawn: number; credited: number; target: string; rate: string; asOf: string | null },
    now: Date,
  ): Promise<{ card: CardRow; redemption: RedemptionRow; activation?: ActivationRow }> {
    const transferId = `gift_card_redeem:${values.id}`;
    const updated = await drawFromCard(tx, card.id, values.drawn, now, redeemer.kind === 'delivery');
    let activation: ActivationRow | undefined;
    let legs: TransferLeg[];
    if (card.subscription_plan_id !== null && card.gift_months !== null) {
      // The months chain after earlier gifts, or extend the holder's running subscription to the plan.
      const months = await subscriptionGiftPeriod(tx, { planId: card.subscription_plan_id, walletId: redeemer.walletId, months: card.gift_months }, now);
      activation = await insertActivation(tx, {
        id: newId('sact'),
        plan_id: card.subscription_plan_id,
        card_id: card.id,
        mode: card.mode,
        wallet_id: redeemer.walletId,
        handle: redeemer.handle,
        months: card.gift_months,
        starts_at: months.startsAt,
        ends_at: months.endsAt,
        created_at: now,
      });
      // The plan is paid: the liability moves to the plan's merchant (the issuer) as subscription revenue.
      legs = [
        { account: liability(card.currency), amount: -values.drawn },
        { account: walletAccount(card.issuer_wallet_id, card.currency), amount: values.drawn },
      ];
    } else if (values.target === card.currency) {
      legs = [
        { account: liability(card.currency), amount: -values.drawn },
        { account: walletAccount(redeemer.walletId, card.currency), amount: values.drawn },
      ];
    } else {
      legs = [
        { account: liability(card.currency), amount: -values.drawn },
        { account: systemAccount('fx', card.currency), amount: values.drawn },
        { account: systemAccount('fx', values.target), amount: -values.credited },
        { account: walletAccount(redeemer.walletId, values.target), amount: values.credited },
      ];
    }
    const redemption: RedemptionRow = {
      id: values.id,
      card_id: card.id,
      mode: card.mode,
      amount_drawn: values.drawn,
      credited_amount: activation ? 0 : values.credited,
      credited_currency: activation ? card.currency : values.target,
      fx_rate: activation ? '1' : values.rate,
      fx_as_of: values.asOf,
      redeemer_wallet_id: redeemer.walletId,
      redeemer_handle: redeemer.handle,
      redeemer_kind: redeemer.kind,
      terminal_id: redeemer.terminalId,
      transfer_id: transferId,
      subscription_activation_id: activation?.id ?? null,
      created_at: now,
      currency: card.currency,
    };
    await insertRedemption(tx, redemption);
    // Last statement before COMMIT: a hot merchant account is locked only from here to the commit.
    await transfer(tx, {
      id: transferId,
      mode: card.mode,
      kind: activation ? 'gift_card_subscription' : 'gift_card_redeem',
      legs,
      metadata: { cardId: card.id, redemptionId: values.id, ...(values.target !== card.currency ? { fxRate: values.rate } : {}) },
    });
    return activation ? { card: updated, redemption, activation } : { card: updated, redemption };
  }

  // Expiry, cancel, refund ----------------------------------------------------------------

  /**
   * Expires active cards past their time (all of them, or one) and returns each remaining
   * balance to its issuer's wallet: the issuer funded the card, so the breakage is the issuer's.
   * Batches of 25 cards, each batch one transaction and one ledger transfer.
   */
  async expireDue(cardId?: string): Promise<number> {
    const now = this.context.now();
    let expired = 0;
    for (const mode of ['test', 'live'] as const) {
      for (;;) {
        const count = await this.db.transaction(async (tx) => {
          const rows = await claimExpiredCards(tx, now, mode, EXPIRY_BATCH, cardId);
          if (rows.length > 0) await this.expireLocked(tx, rows, now);
          return rows.length;
        });
        expired += count;
        if (count < EXPIRY_BATCH) break;
      }
    }
    return expired;
  }

  /** Expires locked cards of one mode in the caller's transaction, with one return transfer. */
  private async expireLocked(tx: Queryable, rows: readonly CardRow[], now: Date): Promise<void> {
    const transferId = `gift_card_expiry:${rows.length === 1 ? rows[0]!.id : newId('exp')}`;
    const legs = new Map<string, TransferLeg>();
    const add = (account: AccountRef, key: string, amount: number) => {
      const leg = legs.get(key);
      if (leg) leg.amount += amount;
      else legs.set(key, { account, amount });
    };
    for (const row of rows) {
      await endCard(tx, row.id, { status: 'expired', endedAt: row.expires_at, now, transferId, reason: 'expired' });
      add(liability(row.currency), `l:${row.currency}`, -row.amount_remaining);
      add(walletAccount(row.issuer_wallet_id, row.currency), `w:${row.issuer_wallet_id}:${row.currency}`, row.amount_remaining);
    }
    const postings = [...legs.values()].filter((leg) => leg.amount !== 0);
    if (postings.length >= 2) {
      await transfer(tx, { id: transferId, mode: rows[0]!.mode, kind: 'gift_card_expiry', legs: postings, metadata: { cardIds: rows.map((row) => row.id) } });
    }
  }

  /**
   * Admin PATCH: cancel (force-cancel) or refund. Both end the card and return its remaining
   * balance to the issuer's wallet through the ledger; they differ in the state recorded.
   */
  async adminAction(cardId: string, action: 'cancel' | 'refund', reason: string | undefined) {
    const now = this.context.now();
    const outcome = await this.db.transaction(async (tx): Promise<{ expired: true } | { card: CardRow }> => {
      const card = await lockCard(tx, cardId);
      if (!card) throw giftCardNotFound();
      if (card.status === 'active' && effectiveStatus(card, now) === 'expired') {
        await this.expireLocked(tx, [card], now);
        return { expired: true };
      }
      if (card.status !== 'active' && card.status !== 'scheduled') throw stateError(card.status);
      const transferId = `gift_card_${action}:${card.id}`;
      const status = action === 'cancel' ? 'cancelled' : 'refunded';
      const ended = await endCard(tx, card.id, { status, endedAt: now, now, transferId, reason: reason?.trim() ? `${status}: ${reason.trim()}` : status });
      await transfer(tx, {
        id: transferId,
        mode: card.mode,
        kind: action === 'cancel' ? 'gift_card_cancel' : 'gift_card_refund',
        legs: [
          { account: liability(card.currency), amount: -card.amount_remaining },
          { account: walletAccount(card.issuer_wallet_id, card.currency), amount: card.amount_remaining },
        ],
        metadata: { cardId: card.id, action },
      });
      return { card: ended };
    });
    if ('expired' in outcome) throw stateError('expired');
    return cardRecord(outcome.card, now);
  }

  // Scheduled delivery --------------------------------------------------------------------

  /**
   * Redeems every scheduled card whose deliverAt has come into its recipient's wallet (or
   * activates its plan). The card row is the job: each is claimed with FOR UPDATE SKIP LOCKED in
   * its own transaction, so several instances share the work and a restart catches up on all
   * missed times. A failure is recorded on the row and retried with backoff.
   */
  async deliverDue(): Promise<{ delivered: number; failed: number }> {
    const now = this.context.now();
    let delivered = 0;
    let failed = 0;
    const failures: { id: string; attempts: number; message: string }[] = [];
    for (let run = 0; run < DELIVERIES_PER_RUN; run += 1) {
      const outcome = await this.db.transaction(async (tx): Promise<'none' | 'delivered' | { failedId: string; attempts: number; message: string }> => {
        const card = await claimDueDelivery(tx, now);
        if (!card) return 'none';
        if (card.deliver_to_wallet_id === null || card.deliver_to_handle === null) {
          return { failedId: card.id, attempts: card.delivery_attempts, message: 'The card has no recipient wallet' };
        }
        const redeemer: Redeemer = { kind: 'delivery', walletId: card.deliver_to_wallet_id, handle: card.deliver_to_handle, mode: card.mode, merchantId: null, terminalId: null };
        await tx.query('SAVEPOINT gift_card_delivery');
        try {
          await this.applyRedemption(tx, card, redeemer, { id: newId('gcr'), drawn: card.amount_remaining, credited: card.amount_remaining, target: card.currency, rate: '1', asOf: null }, now);
          return 'delivered';
        } catch (error) {
          await tx.query('ROLLBACK TO SAVEPOINT gift_card_delivery');
          return { failedId: card.id, attempts: card.delivery_attempts, message: error instanceof Error ? error.message : String(error) };
        }
      });
      if (outcome === 'none') break;
      if (outcome === 'delivered') {
        delivered += 1;
        continue;
      }
      failed += 1;
      failures.push({ id: outcome.failedId, attempts: outcome.attempts, message: outcome.message });
      // The failed card now waits for its backoff, so the loop moves on to the next due card.
      const backoffMinutes = Math.min(60, 2 ** outcome.attempts);
      await recordDeliveryFailure(this.db, outcome.failedId, outcome.message, new Date(now.getTime() + backoffMinutes * 60_000), now);
    }
    return { delivered, failed };
  }

  /** Activation records of redemptions, for history answers. */
  async redemptionAnswers(rows: readonly RedemptionRow[]) {
    const activations = await activationsOf(this.db, rows.flatMap((row) => (row.subscription_activation_id ? [row.subscription_activation_id] : [])));
    return rows.map((row) => redemptionRecord(row, row.subscription_activation_id ? activations.get(row.subscription_activation_id) : undefined));
  }
}

