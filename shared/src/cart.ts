/**
 * A till's cart: the lines of a sale, their discounts and taxes, and the total charged.
 *
 * One implementation for the kiosk (which shows the totals and charges them) and the server
 * (which stores the lines with the sale and refuses lines that do not add up to the amount
 * charged), so the two can never disagree by a rounding.
 *
 * Everything here is integer minor units, like the sync protocol. Tax rates are basis points
 * (750 = 7.5 %). A line's tax is rounded half up, per line; a cart discount is shared between
 * the lines in proportion to what they cost after their own discounts, by largest remainder, so
 * the shares add up to the discount exactly.
 */
import type { ErrorCodeWith } from './error-codes.ts';
import { CART_LINE_NAME_LENGTH_MAX, CART_LINE_QUANTITY_MAX, CART_LINES_MAX, ID_LENGTH_MAX, TAX_RATE_BPS_MAX } from './limits.ts';

export interface SaleLine {
  /** The catalogue product sold, or null for a custom-amount line. */
  productId: string | null;
  /** The name printed on the receipt (the product's name when the sale was made). */
  name: string;
  /** Whole units, 1..CART_LINE_QUANTITY_MAX. */
  quantity: number;
  /** One unit's price in minor units, as the catalogue states it (tax included when `taxInclusive`). */
  unitPrice: number;
  /** The line's own discount in minor units, for the whole line (not per unit). */
  discount: number;
  /** Basis points, 0..TAX_RATE_BPS_MAX. */
  taxRate: number;
  /** True when `unitPrice` already includes the tax (the usual shelf price), false when tax is added on top. */
  taxInclusive: boolean;
}

export interface Cart {
  lines: SaleLine[];
  /** A discount on the whole cart, in minor units, shared between the lines. */
  discount: number;
}

export interface LineTotals {
  /** quantity × unitPrice. */
  gross: number;
  /** The line's own discount plus its share of the cart discount. */
  discount: number;
  /** What the line costs before tax, after discounts. */
  net: number;
  tax: number;
  /** What the customer pays for the line: net + tax. */
  total: number;
}

export interface TaxBreakdown {
  rate: number;
  /** The amount the tax was computed on (net of tax). */
  taxable: number;
  tax: number;
}

export interface CartTotals {
  lines: LineTotals[];
  /** Sum of the lines' gross amounts. */
  subtotal: number;
  /** All discounts, lines' and cart's. */
  discount: number;
  tax: number;
  /** What is charged. */
  total: number;
  /** Tax per rate, for receipts and reports; rates with no tax are kept when something was sold at them. */
  taxes: TaxBreakdown[];
}

export class CartError extends Error {
  readonly code: ErrorCodeWith<400>;
  constructor(code: ErrorCodeWith<400>, message: string) {
    super(message);
    this.name = 'CartError';
    this.code = code;
  }
}

function isWhole(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
}

/** Half-up integer division of non-negative bigints. */
function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

/**
 * Checks a cart's shape and limits; throws a CartError whose code names the rule
 * (`items_invalid`, `item_quantity_invalid`, ...). It does not check totals: see cartTotals.
 */
export function checkCart(cart: Cart): void {
  if (!Array.isArray(cart.lines) || cart.lines.length === 0) throw new CartError('items_invalid', 'A sale needs at least one line');
  if (cart.lines.length > CART_LINES_MAX) throw new CartError('items_too_many', `A sale has at most ${CART_LINES_MAX} lines`);
  cart.lines.forEach((line, index) => {
    const at = `Line ${index + 1}`;
    if (line === null || typeof line !== 'object') throw new CartError('items_invalid', `${at} must be an object`);
    if (line.productId !== null && (typeof line.productId !== 'string' || line.productId.length === 0 || line.productId.length > ID_LENGTH_MAX)) {
      throw new CartError('item_product_invalid', `${at}: productId must be a product id or null`);
    }
    if (typeof line.name !== 'string' || line.name.trim() === '' || line.name.length > CART_LINE_NAME_LENGTH_MAX) {
      throw new CartError('item_name_invalid', `${at}: name must be 1 to ${CART_LINE_NAME_LENGTH_MAX} characters`);
    }
    if (!isWhole(line.quantity, 1, CART_LINE_QUANTITY_MAX)) throw new CartError('item_quantity_invalid', `${at}: quantity must be a whole number from 1 to ${CART_LINE_QUANTITY_MAX}`);
    if (!isWhole(line.unitPrice, 0, Number.MAX_SAFE_INTEGER)) throw new CartError('item_price_invalid', `${at}: unitPrice must be a whole number of minor units, 0 or more`);
    if (!Number.isSafeInteger(line.quantity * line.unitPrice)) throw new CartError('item_price_invalid', `${at}: quantity × unitPrice is too large`);
    if (!isWhole(line.discount, 0, line.quantity * line.unitPrice)) throw new CartError('item_discount_invalid', `${at}: discount must be between 0 and the line's amount`);
    if (!isWhole(line.taxRate, 0, TAX_RATE_BPS_MAX)) throw new CartError('item_tax_rate_invalid', `${at}: taxRate must be basis points from 0 to ${TAX_RATE_BPS_MAX}`);
    if (typeof line.taxInclusive !== 'boolean') throw new CartError('item_tax_inclusive_invalid', `${at}: taxInclusive must be true or false`);
  });
  const afterLineDiscounts = cart.lines.reduce((sum, line) => sum + line.quantity * line.unitPrice - line.discount, 0);
  if (!Number.isSafeInteger(afterLineDiscounts)) throw new CartError('items_invalid', 'The sale is too large');
  if (!isWhole(cart.discount, 0, afterLineDiscounts)) throw new CartError('discount_invalid', 'The cart discount must be between 0 and what the lines cost after their own discounts');
}

/** Shares `discount` between `weights` in proportion, by largest remainder (ties to the earlier line). */
function shareOut(discount: number, weights: number[]): number[] {
  const whole = weights.reduce((sum, weight) => sum + weight, 0);
  if (discount === 0 || whole === 0) return weights.map(() => 0);
  const total = BigInt(discount);
  const sum = BigInt(whole);
  const shares = weights.map((weight) => (total * BigInt(weight)) / sum);
  const remainders = weights.map((weight, index) => ({ index, remainder: (total * BigInt(weight)) % sum }));
  let left = Number(total - shares.reduce((acc, share) => acc + share, 0n));
  remainders.sort((a, b) => (a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1));
  for (const { index } of remainders) {
    if (left === 0) break;
    shares[index] = (shares[index] ?? 0n) + 1n;
    left -= 1;
  }
  return shares.map(Number);
}

/** The totals of a valid cart (checkCart first). */
export function cartTotals(cart: Cart): CartTotals {
  checkCart(cart);
  const afterOwn = cart.lines.map((line) => line.quantity * line.unitPrice - line.discount);
  const cartShares = shareOut(cart.discount, afterOwn);
  const taxes = new Map<number, TaxBreakdown>();
  const lines = cart.lines.map((line, index): LineTotals => {
    const gross = line.quantity * line.unitPrice;
    const amount = (afterOwn[index] ?? 0) - (cartShares[index] ?? 0);
    const rate = BigInt(line.taxRate);
    let net: number;
    let tax: number;
    if (line.taxInclusive) {
      tax = Number(divideHalfUp(BigInt(amount) * rate, 10_000n + rate));
      net = amount - tax;
    } else {
      net = amount;
      tax = Number(divideHalfUp(BigInt(amount) * rate, 10_000n));
    }
    const entry = taxes.get(line.taxRate) ?? { rate: line.taxRate, taxable: 0, tax: 0 };
    entry.taxable += net;
    entry.tax += tax;
    taxes.set(line.taxRate, entry);
    return { gross, discount: line.discount + (cartShares[index] ?? 0), net, tax, total: net + tax };
  });
  const sum = (pick: (line: LineTotals) => number) => lines.reduce((acc, line) => acc + pick(line), 0);
  return {
    lines,
    subtotal: sum((line) => line.gross),
    discount: sum((line) => line.discount),
    tax: sum((line) => line.tax),
    total: sum((line) => line.total),
    taxes: [...taxes.values()].sort((a, b) => a.rate - b.rate),
  };
}

/** Tax at one rate charged one way: included in the lines' prices, or added on top of them. */
export interface TaxRow {
  rate: number;
  included: boolean;
  taxable: number;
  tax: number;
}

/**
 * A cart's taxes for the kiosk and the receipt: per rate, and apart for the lines whose price
 * includes it and those it is added to, since one rate can be both in one cart (a shelf price and
 * a custom-priced service). Rates sold at 0 are left out. Rows sum to `totals.tax`.
 */
export function taxRows(cart: Cart, totals: CartTotals): TaxRow[] {
  const rows = new Map<string, TaxRow>();
  cart.lines.forEach((line, index) => {
    if (line.taxRate === 0) return;
    const computed = totals.lines[index]!;
    const key = `${line.taxRate}:${line.taxInclusive}`;
    const row = rows.get(key) ?? { rate: line.taxRate, included: line.taxInclusive, taxable: 0, tax: 0 };
    row.taxable += computed.net;
    row.tax += computed.tax;
    rows.set(key, row);
  });
  return [...rows.values()].sort((a, b) => a.rate - b.rate || Number(b.included) - Number(a.included));
}

/**
 * The server's check: the lines are well formed and add up to exactly the amount charged.
 * Throws a CartError (`items_total_mismatch` when they do not add up).
 */
export function assertCartMatches(cart: Cart, amountMinor: number): CartTotals {
  const totals = cartTotals(cart);
  if (totals.total !== amountMinor) {
    throw new CartError('items_total_mismatch', `The items add up to ${totals.total} minor units but ${amountMinor} is charged`);
  }
  return totals;
}
