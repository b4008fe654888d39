import type { DeclineCode } from '@tapline/shared/decline-codes';
import { GIFT_CARD_CURRENCIES, GIFT_CARD_DESIGN_THEMES, type GiftCardDesignTheme } from '@tapline/shared/schemas';
import { GIFT_CARD_CODE_HASH } from '@tapline/shared/gift-card-code';
import { isSupportedCurrency } from '@tapline/shared/countries';
import { AMOUNT_MAJOR_MAX, GIFT_CARD_LIMITS } from '@tapline/shared/limits';
import { toMajor } from '@tapline/shared/money';
import { type GiftCardSaleDoc } from '@tapline/shared/sync-protocol';
import { storableText, textProblem, textProblemMessage } from '@tapline/shared/text';
import type { AppContext } from '../../context.ts';
import { PG_ERROR, type Queryable, pgErrorCode } from '../../db/database.ts';
import { newId } from '../../auth/secrets.ts';
import { enqueueEvent } from '../../events/outbox.ts';
import { type CardRow, giftCardService } from '../gift-cards/index.ts';
import { type CollectionSettler, type PushTerminal, CAPTURED_AT_PROBLEM, inCapturedOrder, inSavepoint, parseCapturedAt, schemaProblems, timeDecline } from '../push/index.ts';
import { type GiftCardSaleRow, findGiftCardSales, insertGiftCardSale } from './store.ts';

/** A code prefix as the terminal printed it: `gc_` and 7 hex. */
const CODE_PREFIX = /^gc_[0-9a-f]{7}$/;

export function saleDocument(row: GiftCardSaleRow): GiftCardSaleDoc {
  return {
    id: row.id,
    terminalId: row.terminal_id,
    codeHash: row.code_hash,
    codePrefix: row.code_prefix,
    amountMinor: row.amount,
    currency: row.currency,
    ...(row.design_theme ? { designTheme: row.design_theme as GiftCardDesignTheme } : {}),
    ...(row.message ? { message: row.message } : {}),
    capturedAt: row.captured_at.toISOString(),
    status: row.status,
    ...(row.card_id ? { cardId: row.card_id } : {}),
    ...(row.card_expires_at ? { expiresAt: row.card_expires_at.toISOString() } : {}),
    ...(row.decline_code ? { declineCode: row.decline_code, declineReason: row.decline_reason ?? '' } : {}),
    settledAt: row.settled_at.toISOString(),
    serverSeq: row.server_seq,
  };
}

interface Sale {
  id: string;
  codeHash: string;
  codePrefix: string;
  amount: number;
  currency: string;
  designTheme: GiftCardDesignTheme;
  message: string | null;
  capturedAt: Date;
  invalid: string | null;
}

/** `fallbackCurrency`: recorded with a decline when the sale's own currency is not one the server knows. */
function saleOf(doc: Record<string, unknown>, id: string, fallbackCurrency: string): Sale {
  const problems: string[] = [];
  const codeHash = typeof doc.codeHash === 'string' && GIFT_CARD_CODE_HASH.test(doc.codeHash) ? doc.codeHash : '';
  if (!codeHash) problems.push('codeHash must be the SHA-256 of the code, 64 lower-case hex');
  const codePrefix = typeof doc.codePrefix === 'string' && CODE_PREFIX.test(doc.codePrefix) ? doc.codePrefix : 'gc_0000000';
  if (codePrefix !== doc.codePrefix) problems.push('codePrefix must be the code\'s first 10 characters');
  const currency = typeof doc.currency === 'string' ? doc.currency.toUpperCase() : '';
  const knownCurrency = (GIFT_CARD_CURRENCIES as readonly string[]).includes(currency);
  if (!knownCurrency) problems.push(`currency must be one of ${GIFT_CARD_CURRENCIES.join(', ')}`);
  const amount = typeof doc.amountMinor === 'number' && Number.isSafeInteger(doc.amountMinor) && doc.amountMinor > 0 ? doc.amountMinor : 0;
  if (amount === 0) problems.push('amountMinor must be a positive integer');
  else if (knownCurrency && toMajor(amount, currency) > AMOUNT_MAJOR_MAX) problems.push(`amountMinor must be at most ${AMOUNT_MAJOR_MAX} ${currency} in major units`);
  const theme = doc.designTheme === undefined ? 'default' : doc.designTheme;
  const designTheme = (GIFT_CARD_DESIGN_THEMES as readonly unknown[]).includes(theme) ? (theme as GiftCardDesignTheme) : 'default';
  if (designTheme !== theme) problems.push(`designTheme must be one of ${GIFT_CARD_DESIGN_THEMES.join(', ')}`);
  let message: string | null = null;
  if (doc.message !== undefined && doc.message !== null && typeof doc.message !== 'string') problems.push('message must be a string');
  else if (typeof doc.message === 'string' && doc.message.trim() !== '') {
    const text = doc.message.trim();
    const problem = textProblem(text, GIFT_CARD_LIMITS.messageLengthMax);
    if (problem) problems.push(textProblemMessage('message', problem, GIFT_CARD_LIMITS.messageLengthMax));
    // A declined sale is still recorded: what cannot be stored is replaced.
    message = problem ? storableText(text, GIFT_CARD_LIMITS.messageLengthMax) : text;
  }
  const capturedAt = parseCapturedAt(doc.capturedAt);
  if (capturedAt === null) problems.push(CAPTURED_AT_PROBLEM);
  problems.push(...schemaProblems('gift_card_sales', doc, problems));
  return {
    id,
    codeHash,
    codePrefix,
    amount,
    currency: isSupportedCurrency(currency) ? currency : fallbackCurrency,
    designTheme,
    message,
    capturedAt: capturedAt ?? new Date(0),
    invalid: problems.length > 0 ? problems.join('; ') : null,
  };
}

type Decline = { declineCode: DeclineCode; declineReason: string };
type SaleOutcome = { card: CardRow } | Decline;

function saleRow(terminal: PushTerminal, sale: Sale, outcome: SaleOutcome, now: Date, seq: number): GiftCardSaleRow {
  const card = 'card' in outcome ? outcome.card : null;
  return {
    id: sale.id,
    terminal_id: terminal.terminalId,
    merchant_id: terminal.merchantId,
    mode: terminal.mode,
    // An unreadable hash is stored as 64 zeros with the decline, so the row still records the sale.
    code_hash: sale.codeHash || '0'.repeat(64),
    code_prefix: sale.codePrefix,
    amount: sale.amount,
    currency: sale.currency,
    design_theme: sale.designTheme,
    message: sale.message,
    captured_at: sale.capturedAt,
    received_at: now,
    status: card ? 'accepted' : 'declined',
    card_id: card ? card.id : null,
    card_expires_at: card ? card.expires_at : null,
    decline_code: 'card' in outcome ? null : outcome.declineCode,
    decline_reason: 'card' in outcome ? null : outcome.declineReason,
    settled_at: now,
    server_seq: seq,
  };
}

const CODE_TAKEN: Decline = { declineCode: 'code_taken', declineReason: 'A card with this code already exists: the terminal must make a new code' };
const SETTLEMENT_FAILED: Decline = {
  declineCode: 'settlement_failed',
  declineReason: 'The server could not settle this sale and recorded it as declined so that the terminal\'s other sales are not held up; no card was issued',
};

/**
 * Gift cards sold at a terminal (collection `gift_card_sales`): in the order they were sold, each
 * sale in a savepoint of its own issues the card from the merchant's wallet with the code's hash (or
 * is declined with its reason), and is recorded with its event. A code issued meanwhile by another
 * push (the unique index on the hash) is declined `code_taken`.
 */
export function giftCardSaleSettler(context: AppContext): CollectionSettler<GiftCardSaleRow, GiftCardSaleDoc> {
  const cards = giftCardService(context);

  async function outcomeOf(tx: Queryable, terminal: PushTerminal, sale: Sale, now: Date): Promise<SaleOutcome> {
    if (sale.invalid !== null) return { declineCode: 'invalid_document', declineReason: sale.invalid };
    const rule = timeDecline(sale.capturedAt, now, terminal.createdAt);
    if (rule) return { declineCode: rule.code, declineReason: rule.reason };
    const { wallet } = terminal;
    const issuer = { type: 'merchant' as const, id: terminal.merchantId, walletId: wallet.id, handle: wallet.handle, mode: wallet.mode, homeCurrency: wallet.currency, merchantId: terminal.merchantId };
    const issued = await inSavepoint(tx, () => cards.issueSoldAtTerminal(tx, issuer, { cardId: newId('gcard'), ...sale }, now));
    if (issued.ok) return issued.value;
    if (pgErrorCode(issued.error) === PG_ERROR.uniqueViolation) return CODE_TAKEN;
    throw issued.error;
  }

  async function record(tx: Queryable, row: GiftCardSaleRow, now: Date): Promise<GiftCardSaleRow> {
    const inserted = await insertGiftCardSale(tx, row);
    await enqueueEvent(tx, {
      merchantId: inserted.merchant_id,
      mode: inserted.mode,
      type: inserted.status === 'accepted' ? 'terminal.gift_card_sale.accepted' : 'terminal.gift_card_sale.declined',
      data: {
        saleId: inserted.id,
        terminalId: inserted.terminal_id,
        cardId: inserted.card_id,
        codePrefix: inserted.code_prefix,
        amount: toMajor(inserted.amount, inserted.currency),
        currency: inserted.currency,
        declineCode: inserted.decline_code,
        declineReason: inserted.decline_reason,
        capturedAt: inserted.captured_at.toISOString(),
      },
      at: now,
    });
    return inserted;
  }

  return {
    find: findGiftCardSales,
    owner: (row) => ({ merchantId: row.merchant_id, mode: row.mode }),
    document: saleDocument,
    idTaken: (terminal, pushed, now) =>
      saleDocument(saleRow(terminal, saleOf(pushed.doc, pushed.id, terminal.wallet.currency), { declineCode: 'id_taken', declineReason: `Sale id ${pushed.id} belongs to another merchant or mode: the terminal must make a new id` }, now, 0)),

    async settle(tx, terminal, documents, now, isolate) {
      const rows: GiftCardSaleRow[] = [];
      for (const { candidate: sale, seq } of inCapturedOrder(documents, (entry) => saleOf(entry.doc, entry.id, terminal.wallet.currency))) {
        const settle = async () => record(tx, saleRow(terminal, sale, await outcomeOf(tx, terminal, sale, now), now, seq), now);
        if (!isolate) {
          rows.push(await settle());
          continue;
        }
        const outcome = await inSavepoint(tx, settle);
        rows.push(outcome.ok ? outcome.value : await record(tx, saleRow(terminal, sale, SETTLEMENT_FAILED, now, seq), now));
      }
      return rows;
    },
  };
}
