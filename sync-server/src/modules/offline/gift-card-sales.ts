import { GIFT_CARD_CURRENCIES, GIFT_CARD_DESIGN_THEMES, type GiftCardDesignTheme } from '@tapline/shared/schemas';
import { GIFT_CARD_CODE_HASH } from '@tapline/shared/gift-card-code';
import type { GiftCardSaleDoc } from '@tapline/shared/sync-protocol';
import type { AppContext } from '../../context.ts';
import { newId } from '../../auth/secrets.ts';
import { enqueueEvent } from '../../events/outbox.ts';
import { badRequest, conflict } from '../../http/errors.ts';
import { toMajor } from '@tapline/shared/money';
import { GiftCardService } from '../gift-cards/service.ts';
import { fxServiceRateSource } from '../gift-cards/fx.ts';
import type { WalletRow } from '../wallets/store.ts';
import { capturedInFuture, documentId } from './settlement.ts';
import { type GiftCardSaleRow, findGiftCardSale, insertGiftCardSale, nextTerminalSeq } from './store.ts';

const MESSAGE_MAX = 160;
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
  codeHash: string;
  codePrefix: string;
  amount: number;
  currency: string;
  designTheme: GiftCardDesignTheme;
  message: string | null;
  capturedAt: Date;
  invalid: string | null;
}

function saleOf(doc: Record<string, unknown>): Sale {
  const problems: string[] = [];
  const codeHash = typeof doc.codeHash === 'string' && GIFT_CARD_CODE_HASH.test(doc.codeHash) ? doc.codeHash : '';
  if (!codeHash) problems.push('codeHash must be the SHA-256 of the code, 64 lower-case hex');
  const codePrefix = typeof doc.codePrefix === 'string' && CODE_PREFIX.test(doc.codePrefix) ? doc.codePrefix : 'gc_0000000';
  if (codePrefix !== doc.codePrefix) problems.push('codePrefix must be the code\'s first 10 characters');
  const currency = typeof doc.currency === 'string' ? doc.currency.toUpperCase() : '';
  if (!(GIFT_CARD_CURRENCIES as readonly string[]).includes(currency)) problems.push(`currency must be one of ${GIFT_CARD_CURRENCIES.join(', ')}`);
  const amount = typeof doc.amountMinor === 'number' && Number.isSafeInteger(doc.amountMinor) && doc.amountMinor > 0 ? doc.amountMinor : 0;
  if (amount === 0) problems.push('amountMinor must be a positive integer');
  const theme = doc.designTheme === undefined ? 'default' : doc.designTheme;
  const designTheme = (GIFT_CARD_DESIGN_THEMES as readonly unknown[]).includes(theme) ? (theme as GiftCardDesignTheme) : 'default';
  if (designTheme !== theme) problems.push(`designTheme must be one of ${GIFT_CARD_DESIGN_THEMES.join(', ')}`);
  const message = typeof doc.message === 'string' && doc.message.trim() !== '' ? doc.message.trim() : null;
  if (message !== null && message.length > MESSAGE_MAX) problems.push(`message must be at most ${MESSAGE_MAX} characters`);
  const capturedAt = typeof doc.capturedAt === 'string' ? new Date(doc.capturedAt) : new Date(Number.NaN);
  if (Number.isNaN(capturedAt.getTime())) problems.push('capturedAt must be an ISO 8601 time');
  return {
    codeHash,
    codePrefix,
    amount,
    currency: currency.slice(0, 3) || 'XXX',
    designTheme,
    message: message?.slice(0, MESSAGE_MAX) ?? null,
    capturedAt: Number.isNaN(capturedAt.getTime()) ? new Date(0) : capturedAt,
    invalid: problems.length > 0 ? problems.join('; ') : null,
  };
}

/**
 * Settles gift cards sold at a terminal: each sale in one transaction that takes the terminal's
 * next change number, issues the card from the merchant's wallet with the code's hash (or
 * declines the sale with its reason), and writes the sale and its event. A replayed id answers
 * the recorded sale and issues nothing.
 */
export function giftCardSaleSettlement(context: AppContext) {
  const cards = new GiftCardService(context, fxServiceRateSource(context.fx));

  async function settle(terminal: { terminalId: string; merchantId: string; wallet: WalletRow }, doc: Record<string, unknown>): Promise<GiftCardSaleRow> {
    const id = documentId(doc);
    if (!id) throw badRequest('invalid_document', 'A gift card sale needs a UUID id');
    const own = (row: GiftCardSaleRow) => {
      if (row.terminal_id !== terminal.terminalId) throw conflict('sale_id_taken', `Sale id ${id} is already used by another terminal`);
      return row;
    };
    const existing = await findGiftCardSale(context.db, id);
    if (existing) return own(existing);
    const sale = saleOf(doc);
    return context.db.transaction(async (tx) => {
      const now = context.now();
      const seq = await nextTerminalSeq(tx, terminal.terminalId);
      const raced = await findGiftCardSale(tx, id);
      if (raced) return own(raced);
      let outcome: Awaited<ReturnType<GiftCardService['issueSoldAtTerminal']>>;
      if (sale.invalid !== null) outcome = { declineCode: 'invalid_document', declineReason: sale.invalid };
      else if (capturedInFuture(sale.capturedAt, now)) outcome = { declineCode: 'captured_in_future', declineReason: 'The terminal\'s clock is ahead of the server\'s: the sale is dated in the future' };
      else {
        const { wallet } = terminal;
        const issuer = { type: 'merchant' as const, id: terminal.merchantId, walletId: wallet.id, handle: wallet.handle, mode: wallet.mode, homeCurrency: wallet.currency, merchantId: terminal.merchantId };
        outcome = await cards.issueSoldAtTerminal(tx, issuer, { cardId: newId('gcard'), ...sale }, now);
      }
      const row = await insertGiftCardSale(tx, {
        id,
        terminal_id: terminal.terminalId,
        merchant_id: terminal.merchantId,
        mode: terminal.wallet.mode,
        // An unreadable hash is stored as 64 zeros with the decline, so the row still records the sale.
        code_hash: sale.codeHash || '0'.repeat(64),
        code_prefix: sale.codePrefix,
        amount: sale.amount,
        currency: sale.currency,
        design_theme: sale.designTheme,
        message: sale.message,
        captured_at: sale.capturedAt,
        received_at: now,
        status: 'card' in outcome ? 'accepted' : 'declined',
        card_id: 'card' in outcome ? outcome.card.id : null,
        card_expires_at: 'card' in outcome ? outcome.card.expires_at : null,
        decline_code: 'card' in outcome ? null : outcome.declineCode,
        decline_reason: 'card' in outcome ? null : outcome.declineReason,
        settled_at: now,
        server_seq: seq,
      });
      await enqueueEvent(tx, {
        merchantId: terminal.merchantId,
        mode: terminal.wallet.mode,
        type: row.status === 'accepted' ? 'terminal.gift_card_sale.accepted' : 'terminal.gift_card_sale.declined',
        data: {
          saleId: row.id,
          terminalId: row.terminal_id,
          cardId: row.card_id,
          codePrefix: row.code_prefix,
          amount: toMajor(row.amount, row.currency),
          currency: row.currency,
          declineCode: row.decline_code,
          declineReason: row.decline_reason,
          capturedAt: row.captured_at.toISOString(),
        },
        at: now,
      });
      return row;
    });
  }

  return { settle };
}
