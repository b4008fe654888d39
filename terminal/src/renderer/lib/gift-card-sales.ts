import { GIFT_CARD_CURRENCIES, type GiftCardDesignTheme, addMonths } from '@tapline/shared/gift-card-rules';
import { giftCardCodeHash, giftCardCodePrefix, makeGiftCardCode } from '@tapline/shared/gift-card-code';
import type { GiftCardSaleDoc } from '@tapline/shared/sync-protocol';
import { type MessageKey, type Translator, translator } from '@tapline/shared/i18n';
import { GIFT_CARD_LIMITS } from '@tapline/shared/limits';

/** What the cashier entered on the Sell gift card screen. */
export interface GiftCardSaleInput {
  amountMinor: number;
  currency: string;
  designTheme: GiftCardDesignTheme;
  message: string;
}

/**
 * A sale ready to store and print: the document (hash and prefix only) and the code, which lives
 * in memory until it is printed and the cashier closes the screen. Never store `code`.
 */
export interface GiftCardSale {
  doc: GiftCardSaleDoc;
  code: string;
}

export type GiftCardSaleAttempt = ({ ok: true } & GiftCardSale) | { ok: false; code: string; reason: string };

/**
 * The currencies a card may be sold in: the merchant's own when it is a gift-card currency (the
 * shop takes that money at the till), else any gift-card currency, the cashier picks one.
 */
export function giftCardCurrencies(merchantCurrency: string): readonly string[] {
  return (GIFT_CARD_CURRENCIES as readonly string[]).includes(merchantCurrency) ? [merchantCurrency] : GIFT_CARD_CURRENCIES;
}

/**
 * A new sale, or why it cannot be sold (checked here so a typing slip never prints a card the
 * server will decline as `invalid_document`). The code is made here and hashed at once.
 */
export async function newGiftCardSale(input: GiftCardSaleInput, terminalId: string, now: Date, id: string): Promise<GiftCardSaleAttempt> {
  if (!Number.isSafeInteger(input.amountMinor) || input.amountMinor <= 0) return { ok: false, code: 'amount_required', reason: 'Type the card\'s value first' };
  if (!(GIFT_CARD_CURRENCIES as readonly string[]).includes(input.currency)) {
    return { ok: false, code: 'currency_not_supported', reason: `Gift cards are sold in ${GIFT_CARD_CURRENCIES.join(', ')}` };
  }
  const message = input.message.trim();
  if (message.length > GIFT_CARD_LIMITS.messageLengthMax) {
    return { ok: false, code: 'message_too_long', reason: `The message may have at most ${GIFT_CARD_LIMITS.messageLengthMax} characters` };
  }
  const code = makeGiftCardCode();
  const doc: GiftCardSaleDoc = {
    id,
    terminalId,
    codeHash: await giftCardCodeHash(code),
    codePrefix: giftCardCodePrefix(code),
    amountMinor: input.amountMinor,
    currency: input.currency,
    designTheme: input.designTheme,
    ...(message === '' ? {} : { message }),
    capturedAt: now.toISOString(),
    status: 'queued',
    serverSeq: 0,
  };
  return { ok: true, doc, code };
}

/**
 * The expiry to print while the sale waits to sync: the server issues the card with the default
 * validity from the moment it syncs, so the real expiry is never earlier than this one. Months as
 * the server counts them: the same day, or the month's last when it has fewer days.
 */
export function printedExpiry(capturedAt: string, months: number = GIFT_CARD_LIMITS.expiresInMonthsDefault): string {
  return addMonths(new Date(capturedAt), months).toISOString();
}

/** For the cashier, in the kiosk's language: what became of a sale. */
export function giftCardSaleOutcome(doc: GiftCardSaleDoc, words: Translator<MessageKey> = translator('en')): string {
  if (doc.status === 'accepted') return words.t('kiosk.giftCardOutcome.active', { cardId: doc.cardId ?? '' }).trim();
  if (doc.status === 'declined') {
    const reason = words.reason(doc.declineCode, doc.declineReason || words.t('kiosk.offlineOutcome.declinedFallback'));
    return words.t('kiosk.giftCardOutcome.declined', { reason, code: doc.declineCode ?? 'declined' });
  }
  return words.t('kiosk.giftCardOutcome.queued');
}
