import { type Cart, checkCart } from '@tapline/shared/cart';

/**
 * The cart being rung up, kept in localStorage per terminal so a reload or a crash of the kiosk
 * does not lose it, nor does a payment that failed (the cashier charges the same cart again).
 * It is cleared when the sale is paid (the cashier leaves the paid outcome, or the offline
 * payment of the cart is taken), when the cashier clears the cart, and at sign out.
 */
const KEY_PREFIX = 'tapline.cart.';

/** What is kept: the cart and the currency its prices are in. */
export interface StoredCart {
  currency: string;
  cart: Cart;
}

type Store = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** The kept cart, or null when there is none or it is not a valid cart (a hand-edited or older value is dropped). */
export function loadCart(terminalId: string, store: Store = localStorage): StoredCart | null {
  const raw = store.getItem(KEY_PREFIX + terminalId);
  if (raw === null) return null;
  try {
    const parsed = JSON.parse(raw) as Partial<StoredCart>;
    if (typeof parsed.currency !== 'string' || !/^[A-Z]{3}$/.test(parsed.currency) || parsed.cart === undefined) throw new Error('not a cart');
    // The server's own check of a cart (line count, quantities, prices, discounts, tax rates).
    checkCart(parsed.cart);
    if (parsed.cart.lines.length === 0) throw new Error('empty');
    return { currency: parsed.currency, cart: { lines: parsed.cart.lines, discount: parsed.cart.discount } };
  } catch {
    store.removeItem(KEY_PREFIX + terminalId);
    return null;
  }
}

/** Keeps the cart (an empty one is forgotten). */
export function saveCart(terminalId: string, stored: StoredCart, store: Store = localStorage): void {
  if (stored.cart.lines.length === 0) store.removeItem(KEY_PREFIX + terminalId);
  else store.setItem(KEY_PREFIX + terminalId, JSON.stringify(stored));
}

export function forgetCart(terminalId: string, store: Store = localStorage): void {
  store.removeItem(KEY_PREFIX + terminalId);
}
