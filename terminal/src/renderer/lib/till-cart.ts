import { type Cart, type CartTotals, type SaleLine, cartTotals } from '@tapline/shared/cart';
import { CART_LINE_NAME_LENGTH_MAX, CART_LINE_QUANTITY_MAX, CART_LINES_MAX } from '@tapline/shared/limits';
import { toMajor } from '@tapline/shared/money';
import type { ProductDoc } from './catalogue.ts';

/**
 * The cart at the till: pure functions over an immutable cart (the Sale screen keeps it in a
 * $state), so every step is tested without a page. Totals come from `cartTotals`
 * (shared/src/cart.ts), the same code the server checks the sale with.
 */
export const EMPTY_CART: Cart = { lines: [], discount: 0 };

/** Why a change was refused, for the cashier's hint. */
export type CartRefusal = 'too_many_lines' | 'quantity_limit' | 'discount_too_large' | 'no_amount';

export type CartChange = { ok: true; cart: Cart } | { ok: false; refused: CartRefusal };

/** The lines without a cart discount larger than what is left after them. */
function clampDiscount(lines: SaleLine[], discount: number): Cart {
  const left = lines.reduce((sum, line) => sum + line.quantity * line.unitPrice - line.discount, 0);
  return { lines, discount: Math.min(discount, Math.max(left, 0)) };
}

/** A catalogue product: one more of it (the same line when it is already in the cart). */
export function addProduct(cart: Cart, product: ProductDoc): CartChange {
  const at = cart.lines.findIndex((line) => line.productId === product.id);
  if (at !== -1) return setQuantity(cart, at, cart.lines[at]!.quantity + 1);
  if (cart.lines.length >= CART_LINES_MAX) return { ok: false, refused: 'too_many_lines' };
  const line: SaleLine = {
    productId: product.id,
    name: product.name.slice(0, CART_LINE_NAME_LENGTH_MAX),
    quantity: 1,
    unitPrice: product.priceMinor,
    discount: 0,
    taxRate: product.taxRate,
    taxInclusive: product.taxInclusive,
  };
  return { ok: true, cart: { lines: [...cart.lines, line], discount: cart.discount } };
}

/** A custom-amount line (no product, no tax): what the cashier typed on the keypad. */
export function addCustomLine(cart: Cart, amountMinor: number, name: string): CartChange {
  if (amountMinor <= 0) return { ok: false, refused: 'no_amount' };
  if (cart.lines.length >= CART_LINES_MAX) return { ok: false, refused: 'too_many_lines' };
  const line: SaleLine = { productId: null, name: name.trim().slice(0, CART_LINE_NAME_LENGTH_MAX), quantity: 1, unitPrice: amountMinor, discount: 0, taxRate: 0, taxInclusive: true };
  return { ok: true, cart: { lines: [...cart.lines, line], discount: cart.discount } };
}

/** A line's quantity; 0 removes the line. Its own discount is kept within the line's new amount. */
export function setQuantity(cart: Cart, index: number, quantity: number): CartChange {
  const line = cart.lines[index];
  if (line === undefined) return { ok: true, cart };
  if (quantity > CART_LINE_QUANTITY_MAX) return { ok: false, refused: 'quantity_limit' };
  if (quantity <= 0) return { ok: true, cart: clampDiscount(cart.lines.filter((_, at) => at !== index), cart.discount) };
  const next = { ...line, quantity, discount: Math.min(line.discount, quantity * line.unitPrice) };
  return { ok: true, cart: clampDiscount(cart.lines.map((current, at) => (at === index ? next : current)), cart.discount) };
}

/** Every line of a product out (the server refused it); the cart discount stays within what is left. */
export function removeProduct(cart: Cart, productId: string): CartChange {
  return { ok: true, cart: clampDiscount(cart.lines.filter((line) => line.productId !== productId), cart.discount) };
}

/** A discount on one line (for the whole line), in minor units: never more than the line costs. */
export function setLineDiscount(cart: Cart, index: number, discountMinor: number): CartChange {
  const line = cart.lines[index];
  if (line === undefined) return { ok: true, cart };
  if (discountMinor > line.quantity * line.unitPrice) return { ok: false, refused: 'discount_too_large' };
  return { ok: true, cart: clampDiscount(cart.lines.map((current, at) => (at === index ? { ...line, discount: Math.max(0, discountMinor) } : current)), cart.discount) };
}

/** A discount on the whole cart, in minor units: never more than the lines cost after their own. */
export function setCartDiscount(cart: Cart, discountMinor: number): CartChange {
  const left = cart.lines.reduce((sum, line) => sum + line.quantity * line.unitPrice - line.discount, 0);
  if (discountMinor > left) return { ok: false, refused: 'discount_too_large' };
  return { ok: true, cart: { lines: cart.lines, discount: Math.max(0, discountMinor) } };
}

/** The cart's totals, or null while it is empty. */
export function totalsOf(cart: Cart): CartTotals | null {
  return cart.lines.length === 0 ? null : cartTotals(cart);
}

/** A sale line as `POST /api/pos/sessions` takes it (major units, tax rate in percent). */
export interface SessionItem {
  productId?: string;
  name: string;
  quantity: number;
  unitPrice: number;
  discount?: number;
  taxRate?: number;
  taxInclusive?: boolean;
}

/** The cart as the POS session's `items` and `discount` (major units, like every API amount). */
export function sessionItems(cart: Cart, currency: string): { items: SessionItem[]; discount?: number } {
  const items = cart.lines.map((line): SessionItem => ({
    ...(line.productId === null ? {} : { productId: line.productId }),
    name: line.name,
    quantity: line.quantity,
    unitPrice: toMajor(line.unitPrice, currency),
    ...(line.discount === 0 ? {} : { discount: toMajor(line.discount, currency) }),
    taxRate: line.taxRate / 100,
    taxInclusive: line.taxInclusive,
  }));
  return { items, ...(cart.discount === 0 ? {} : { discount: toMajor(cart.discount, currency) }) };
}

/** The products of the cart whose tracked stock is short of what the cart holds (shown before Charge; the server decides online). */
export function shortOfStock(cart: Cart, products: ReadonlyMap<string, ProductDoc>): { productId: string; name: string; available: number }[] {
  const wanted = new Map<string, number>();
  for (const line of cart.lines) if (line.productId !== null) wanted.set(line.productId, (wanted.get(line.productId) ?? 0) + line.quantity);
  const short: { productId: string; name: string; available: number }[] = [];
  for (const [productId, quantity] of wanted) {
    const product = products.get(productId);
    if (product === undefined || !product.trackStock || product.stock === null) continue;
    if (product.stock < quantity) short.push({ productId, name: product.name, available: Math.max(product.stock, 0) });
  }
  return short;
}
