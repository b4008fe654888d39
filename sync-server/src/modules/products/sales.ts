import type { ErrorCodeWith } from '@tapline/shared/error-codes';
import { type Cart, CartError, type CartTotals, type SaleLine, assertCartMatches, cartTotals } from '@tapline/shared/cart';
import { CART_LINE_NAME_LENGTH_MAX } from '@tapline/shared/limits';
import { textProblem, textProblemMessage } from '@tapline/shared/text';
import { toMajor } from '@tapline/shared/money';
import type { Queryable } from '../../db/database.ts';
import { ApiError, badRequest, notFound } from '../../http/errors.ts';
import { bpsToPercent, percentToBps, priceToMinor, productDocument } from './service.ts';
import { type ProductRow, type ProductScope, findProducts, lockProducts, moveStock } from './store.ts';
import type { ProductDoc } from '@tapline/shared/sync-protocol';

/**
 * Lines on sales (docs/catalogue.md): what the POS and offline modules call to turn a sale's
 * items into shared/src/cart.ts SaleLines, check them against the amount charged, check and move
 * stock, and answer them. The arithmetic is cart.ts's: the kiosk and the server cannot disagree.
 */

/** An item as the JSON API takes it: major units, tax in percent. */
export interface SaleItemInput {
  productId?: string | undefined;
  name: string;
  quantity: number;
  unitPrice: number;
  discount?: number | undefined;
  taxRate?: number | undefined;
  taxInclusive?: boolean | undefined;
}

/** A CartError as the API's 400 (its code names the rule). */
function cartRefusal(error: CartError, currency: string, totals?: { itemsTotal: number; amount: number }): ApiError {
  return badRequest(error.code, error.message, totals ? [{ itemsTotal: toMajor(totals.itemsTotal, currency), amount: toMajor(totals.amount, currency) }] : undefined);
}

/** The API's items (major units, percent) as a cart in minor units and basis points; 400 with a CartError code when one is not a valid amount. */
export function cartFromItems(items: readonly SaleItemInput[], discount: number | undefined, currency: string): Cart {
  const money = (value: number, code: ErrorCodeWith<400>, at: string) => {
    try {
      return priceToMinor(value, currency, at);
    } catch {
      throw badRequest(code, `${at} must be an amount in ${currency} from 0 up, with at most the currency's decimals`);
    }
  };
  const lines = items.map((item, index): SaleLine => {
    const at = `items[${index}]`;
    let taxRate = 0;
    if (item.taxRate !== undefined) {
      try {
        taxRate = percentToBps(item.taxRate, `${at}.taxRate`);
      } catch {
        throw badRequest('item_tax_rate_invalid', `${at}.taxRate must be a percent from 0 to 100 with at most two decimals`);
      }
    }
    return {
      productId: item.productId ?? null,
      name: item.name,
      quantity: item.quantity,
      unitPrice: money(item.unitPrice, 'item_price_invalid', `${at}.unitPrice`),
      discount: item.discount === undefined ? 0 : money(item.discount, 'item_discount_invalid', `${at}.discount`),
      taxRate,
      taxInclusive: item.taxInclusive ?? true,
    };
  });
  return { lines, discount: discount === undefined ? 0 : money(discount, 'discount_invalid', 'discount') };
}

/** The cart's totals when its lines add up to `amountMinor`; 400 with the CartError's code otherwise. */
export function checkCartAmount(cart: Cart, amountMinor: number, currency: string): CartTotals {
  try {
    return assertCartMatches(cart, amountMinor);
  } catch (error) {
    if (!(error instanceof CartError)) throw error;
    const itemsTotal = error.code === 'items_total_mismatch' ? cartTotals(cart).total : undefined;
    throw cartRefusal(error, currency, itemsTotal === undefined ? undefined : { itemsTotal, amount: amountMinor });
  }
}

/**
 * A pushed document's lines, read defensively (the terminal's replica is not trusted): the cart,
 * or the CartError that declines the document. `undefined` items: a sale without lines.
 */
export function cartOfDocument(items: unknown, discountMinor: unknown, amountMinor: number): { cart: Cart | null; cartProblem: CartError | null } {
  if (items === undefined || items === null) {
    // A cart discount with no lines to apply to is a replica out of shape: nothing says what the amount paid for.
    if (discountMinor !== undefined && discountMinor !== null && discountMinor !== 0) {
      return { cart: null, cartProblem: new CartError('items_invalid', 'discountMinor needs the items it applies to') };
    }
    return { cart: null, cartProblem: null };
  }
  if (!Array.isArray(items)) return { cart: null, cartProblem: new CartError('items_invalid', 'items must be an array of sale lines') };
  const lines = items.map((item: unknown) => {
    if (item === null || typeof item !== 'object') return item as SaleLine;
    const line = item as Record<string, unknown>;
    return {
      productId: line.productId === undefined ? null : line.productId,
      name: line.name,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      discount: line.discount === undefined ? 0 : line.discount,
      taxRate: line.taxRate === undefined ? 0 : line.taxRate,
      taxInclusive: line.taxInclusive === undefined ? true : line.taxInclusive,
    } as SaleLine;
  });
  const cart: Cart = { lines, discount: (discountMinor ?? 0) as number };
  try {
    assertCartMatches(cart, amountMinor);
    // Text the database could not store (a NUL, an unpaired surrogate) declines the document as a cart rule would.
    cart.lines.forEach((line, index) => {
      const problem = textProblem(line.name, CART_LINE_NAME_LENGTH_MAX);
      if (problem) throw new CartError('item_name_invalid', textProblemMessage(`Line ${index + 1}: name`, problem, CART_LINE_NAME_LENGTH_MAX));
      if (line.productId !== null && textProblem(line.productId, 64)) throw new CartError('item_product_invalid', `Line ${index + 1}: productId must be a product id or null`);
    });
    return { cart, cartProblem: null };
  } catch (error) {
    if (error instanceof CartError) return { cart: null, cartProblem: error };
    throw error;
  }
}

/** Units per product of a sale's lines (custom-amount lines have none). */
export function unitsByProduct(lines: readonly SaleLine[]): Map<string, number> {
  const units = new Map<string, number>();
  for (const line of lines) if (line.productId !== null) units.set(line.productId, (units.get(line.productId) ?? 0) + line.quantity);
  return units;
}

function outOfStock(product: ProductRow, requested: number): ApiError {
  const available = Math.max(product.stock ?? 0, 0);
  return new ApiError(409, 'out_of_stock', `${product.name} has ${available} in stock, ${requested} asked`, { details: [{ productId: product.id, available, requested }] });
}

/** An archived or deactivated product on an online sale: the kiosk names the line to remove (its replica was stale). */
function productUnavailable(product: ProductRow): ApiError {
  const reason = product.archived_at ? 'archived' : 'inactive';
  return new ApiError(409, 'product_unavailable', `${product.name} is ${reason}: it is no longer sold`, { details: [{ productId: product.id, name: product.name, reason }] });
}

/**
 * Checks, for an online sale, that every product it names is the merchant's (404
 * product_not_found), still sold (409 product_unavailable: archived or deactivated; offline sales
 * never come here, they already happened) and that the tracked ones have the units (409 out_of_stock). With `tx` and `lock`, the products stay locked
 * until the caller's transaction ends: the check and the decrement that follows cannot be raced.
 */
export async function checkStock(db: Queryable, scope: ProductScope, lines: readonly SaleLine[], options: { lock: boolean }): Promise<ProductRow[]> {
  const units = unitsByProduct(lines);
  if (units.size === 0) return [];
  const products = options.lock ? await lockProducts(db, scope, [...units.keys()]) : await findProducts(db, scope, [...units.keys()]);
  const byId = new Map(products.map((product) => [product.id, product]));
  for (const [productId, requested] of units) {
    const product = byId.get(productId);
    if (!product) throw notFound('product_not_found', `No product ${productId}`);
    if (product.archived_at || !product.active) throw productUnavailable(product);
    if (product.track_stock && (product.stock ?? 0) < requested) throw outOfStock(product, requested);
  }
  return products;
}

/**
 * Moves the stock of a sale's tracked products: `direction` -1 when it settles (offline sales may
 * go below zero: oversold), +1 when it is refunded. Answers the changed products as replica
 * documents, to stream once the caller's transaction has committed.
 */
export async function moveSaleStock(tx: Queryable, scope: ProductScope, units: ReadonlyMap<string, number>, direction: 1 | -1, now: Date): Promise<ProductDoc[]> {
  const deltas = new Map([...units].map(([productId, quantity]) => [productId, direction * quantity]));
  return (await moveStock(tx, scope, deltas, now)).map(productDocument);
}

/** A stored sale's lines as the API answers them: major units, percent, each line's share of discounts, tax and total. */
export function saleLineRecords(lines: readonly SaleLine[], cartDiscount: number, currency: string) {
  const totals = cartTotals({ lines: [...lines], discount: cartDiscount });
  const major = (minor: number) => toMajor(minor, currency);
  return {
    items: lines.map((line, index) => {
      const computed = totals.lines[index]!;
      return {
        line: index,
        productId: line.productId,
        name: line.name,
        quantity: line.quantity,
        unitPrice: major(line.unitPrice),
        discount: major(computed.discount),
        taxRate: bpsToPercent(line.taxRate),
        taxInclusive: line.taxInclusive,
        net: major(computed.net),
        tax: major(computed.tax),
        total: major(computed.total),
      };
    }),
    cartDiscount: major(cartDiscount),
    totals: { subtotal: major(totals.subtotal), discount: major(totals.discount), tax: major(totals.tax), total: major(totals.total) },
  };
}

/** The stored form of a sale's lines (jsonb), and back. */
export function storedLines(value: unknown): SaleLine[] | null {
  if (value === null || value === undefined) return null;
  const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(parsed) ? (parsed as SaleLine[]) : null;
}

/** A till sale's tender as stored (jsonb), minor units; a refund's tenders have kind and amount only. */
export interface StoredTender {
  kind: string;
  amount: number;
  tendered?: number;
  change?: number;
  reference?: string;
}

/** Stored tenders (jsonb, parsed or not); none for anything else. */
export function storedTenders(value: unknown): StoredTender[] {
  const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(parsed) ? (parsed as StoredTender[]) : [];
}

/** What the tenders of one kind add up to (minor units). */
export function tenderTotal(tenders: readonly StoredTender[], kind: string): number {
  return tenders.filter((tender) => tender.kind === kind).reduce((sum, tender) => sum + Number(tender.amount), 0);
}

/** Tenders as the API answers them: major units, cash with what was handed over and the change, a wallet tap with its session. */
export function tenderRecords(tenders: readonly StoredTender[], currency: string) {
  const major = (minor: number) => toMajor(minor, currency);
  return tenders.map((tender) => ({
    kind: tender.kind,
    amount: major(Number(tender.amount)),
    ...(tender.tendered !== undefined ? { tendered: major(tender.tendered) } : {}),
    ...(tender.change !== undefined ? { change: major(tender.change) } : {}),
    ...(tender.reference !== undefined ? { reference: tender.reference } : {}),
  }));
}
