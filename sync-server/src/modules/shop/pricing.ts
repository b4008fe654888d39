import { percentOf } from '@tapline/shared/money';
import { badRequest, unprocessable } from '../../http/errors.ts';
import { convertMinor } from '../fx/index.ts';
import type { FlashSaleRow, ProductRow, ReferralRow } from './store.ts';

/**
 * The store's money arithmetic, in integer minor units only (never floating point):
 *
 * - A flash sale's price: basePrice - discount, where a percent discount is
 *   floor(basePrice x percent / 100) and a fixed one is min(amount, basePrice).
 * - The unit price: (sale price, else basePrice) + the variant's priceDelta.
 * - subtotal = unit price x quantity.
 * - A referral discount on the subtotal: floor(subtotal x percent / 100), or min(amount, subtotal)
 *   for a fixed code: the total is never below zero.
 * - total = subtotal - discount.
 * Discounts round down to the minor unit: a buyer never gets more than the stated percentage.
 * Converting into the wallet's currency rounds up (see convertUp): the wallet never pays less
 * than the price.
 */

const PERCENT = /^\d{1,3}(?:\.\d{1,2})?$/;

/** A percent from JSON as an exact decimal string: 0 < p < 100 (or <= 100 when allowed), at most 2 decimals. */
export function parsePercent(value: number, allowHundred: boolean, field = 'discountValue'): string {
  const text = String(value);
  const limit = allowHundred ? 100 : 99.99;
  if (!PERCENT.test(text) || value <= 0 || value > limit) {
    throw badRequest('percent_invalid', `${field} must be a percentage above 0 and ${allowHundred ? 'at most 100' : 'below 100'}, with at most 2 decimals`);
  }
  return text;
}

export function salePrice(product: Pick<ProductRow, 'base_price'>, sale: Pick<FlashSaleRow, 'discount_type' | 'discount_percent' | 'discount_amount'>): number {
  const discount = sale.discount_type === 'percent' ? percentOf(product.base_price, sale.discount_percent ?? '0', 'down') : Math.min(sale.discount_amount ?? 0, product.base_price);
  return product.base_price - discount;
}

export function safeProduct(a: number, b: number): number {
  const product = a * b;
  if (!Number.isSafeInteger(product)) throw unprocessable('amount_too_large', 'The order total is too large');
  return product;
}

export type ReferralRefusal = 'not_found' | 'inactive' | 'expired' | 'exhausted';

/** Why a code cannot be used now, or null when it can. */
export function referralRefusal(code: ReferralRow | undefined, now: Date): ReferralRefusal | null {
  if (!code) return 'not_found';
  if (!code.active) return 'inactive';
  if (code.expires_at !== null && code.expires_at.getTime() <= now.getTime()) return 'expired';
  if (code.max_uses !== null && code.uses >= code.max_uses) return 'exhausted';
  return null;
}

export function referralDiscount(subtotal: number, code: ReferralRow, orderCurrency: string): number {
  if (code.discount_type === 'percent') return percentOf(subtotal, code.discount_percent ?? '0', 'down');
  if (code.currency !== orderCurrency) {
    throw unprocessable('referral_currency_mismatch', `Referral code ${code.code} takes ${code.currency} off and applies only to orders in ${code.currency}; this order is in ${orderCurrency}`);
  }
  return Math.min(code.discount_amount ?? 0, subtotal);
}

/**
 * minor units of `from` -> minor units of `to` at `rate` (units of `to` per unit of `from`, an
 * exact decimal string), rounded UP: the wallet never pays less than the price.
 */
export function convertUp(minor: number, from: string, to: string, rate: string): number {
  return convertMinor(minor, from, to, rate, 'up');
}
