import { minorFromMajor, toMajor } from '@tapline/shared/money';
import type { Api } from './api.ts';

/**
 * A gift card paying part of a sale at the till (docs/till.md, "Gift cards at the till"): the
 * cashier scans or types the card's code, the till checks it (GET /api/gift-cards/verify), asks
 * for its PIN when it has one, and redeems what the sale needs (at most the card's balance) into
 * the merchant's wallet with the terminal's token. The redemption's id is the tender's reference:
 * the server checks it when the till sale syncs, and gives it back to the card if the sale is
 * cancelled or refunded. The request's key is kept with the split sale before it is sent, so a
 * reload or a lost answer redeems once.
 */

/** A card's code as printed and in its QR code: `gc_` and 64 hex digits. */
const CODE = /^gc_[0-9a-f]{64}$/;

/** What was scanned or typed, as the server reads it: no spaces, lower case. */
export function cleanCode(raw: string): string {
  return raw.replace(/\s+/g, '').toLowerCase();
}

export function codeLooksValid(raw: string): boolean {
  return CODE.test(cleanCode(raw));
}

/** The card as the till sees it after checking it (minor units of its currency). */
export interface CheckedCard {
  code: string;
  valid: boolean;
  status: string;
  balanceMinor: number;
  currency: string;
  hasPin: boolean;
  expiresAt: string;
}

export async function checkCard(api: Api, raw: string): Promise<CheckedCard> {
  const code = cleanCode(raw);
  const answer = await api.verifyGiftCard(code);
  return {
    code,
    valid: answer.valid,
    status: answer.status ?? (answer.valid ? 'active' : 'used'),
    balanceMinor: minorFromMajor(answer.amountRemaining ?? answer.amount, answer.currency),
    currency: answer.currency,
    hasPin: answer.hasPin,
    expiresAt: answer.expiresAt,
  };
}

/** Why the card cannot pay this sale, or null: its state and its currency (a till redeems without conversion). */
export function cardRefusal(card: CheckedCard, saleCurrency: string): 'gift_card_used' | 'gift_card_expired' | 'gift_card_not_active' | 'gift_card_currency' | 'gift_card_empty' | null {
  if (!card.valid) return card.status === 'used' ? 'gift_card_used' : card.status === 'expired' ? 'gift_card_expired' : 'gift_card_not_active';
  if (card.currency !== saleCurrency) return 'gift_card_currency';
  if (card.balanceMinor <= 0) return 'gift_card_empty';
  return null;
}

/** What the card pays: what the sale asks of it, at most its balance. */
export function cardPart(card: Pick<CheckedCard, 'balanceMinor'>, wantedMinor: number): number {
  return Math.max(0, Math.min(card.balanceMinor, wantedMinor));
}

export interface GiftCardPaid {
  reference: string;
  amountMinor: number;
  /** What is left on the card after this tender. */
  remainingMinor: number;
}

/** Draws `amountMinor` from the card into the merchant's wallet; `key` makes a retry draw once. */
export async function redeemCard(api: Api, card: CheckedCard, amountMinor: number, pin: string | null, key: string): Promise<GiftCardPaid> {
  const answer = await api.redeemGiftCard({ code: card.code, redeemAmount: toMajor(amountMinor, card.currency), ...(pin === null ? {} : { pinCode: pin }) }, key);
  return {
    reference: answer.redemption.id,
    amountMinor: minorFromMajor(answer.redemption.credited_amount, card.currency),
    remainingMinor: minorFromMajor(answer.card.amountRemaining, card.currency),
  };
}

/** The codes the gift card screen explains in its own words (kiosk.giftCard.errors.*). */
export const GIFT_CARD_ERRORS = [
  'gift_card_not_found',
  'gift_card_used',
  'gift_card_expired',
  'gift_card_cancelled',
  'gift_card_refunded',
  'gift_card_scheduled',
  'gift_card_not_active',
  'gift_card_currency',
  'gift_card_empty',
  'card_not_accepted',
  'handle_locked',
  'pin_required',
  'wrong_pin',
  'pin_attempts_exceeded',
  'redeem_amount_exceeds_balance',
  'verify_rate_limited',
  'invalid_code',
] as const;
export type GiftCardErrorCode = (typeof GIFT_CARD_ERRORS)[number];

export function isGiftCardError(code: string): code is GiftCardErrorCode {
  return (GIFT_CARD_ERRORS as readonly string[]).includes(code);
}
