/**
 * Gift-card rules both sides need without the schemas (the kiosk's bundle must not carry TypeBox
 * and every API schema for a few constants): currencies, design themes and the month
 * arithmetic of expiry (their limits are GIFT_CARD_LIMITS in limits.ts). shared/src/schemas/gift-cards.ts builds its schemas from these.
 */

/** Spec: the issue body's currency enum. */
export const GIFT_CARD_CURRENCIES = ['USD', 'GHS', 'NGN', 'KES', 'ZAR', 'EUR', 'GBP'] as const;
export type GiftCardCurrency = (typeof GIFT_CARD_CURRENCIES)[number];

export const GIFT_CARD_DESIGN_THEMES = ['default', 'birthday', 'business', 'celebration'] as const;
export type GiftCardDesignTheme = (typeof GIFT_CARD_DESIGN_THEMES)[number];

/** `months` calendar months after `from` (UTC), clamped to the month's last day (31 Jan + 1 = 28/29 Feb). */
export function addMonths(from: Date, months: number): Date {
  const result = new Date(from.getTime());
  const day = from.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, lastDay));
  return result;
}
