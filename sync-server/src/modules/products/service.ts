import { AMOUNT_MAJOR_MAX } from '@tapline/shared/limits';
import { randomUUID } from 'node:crypto';
import { currencyExponent, minorFromMajor, toMajor } from '@tapline/shared/money';
import type { ProductDoc } from '@tapline/shared/sync-protocol';
import type { AppContext } from '../../context.ts';
import type { Mode } from '../../auth/secrets.ts';
import type { Queryable } from '../../db/database.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { supportedCurrency } from '../../http/validate.ts';
import { findMerchant } from '../merchants/index.ts';
import {
  type ProductFields,
  type ProductFilter,
  type ProductRow,
  type ProductScope,
  findProduct,
  insertProduct,
  listProducts,
  setArchived,
  skuTaken,
  updateProduct,
} from './store.ts';

/** The most a price may be, in major units (like every API amount). */

/** What a merchant sends to create or update a product (docs/catalogue.md): major units, percent. */
export interface ProductInput {
  name?: string | undefined;
  price?: number | undefined;
  currency?: string | undefined;
  sku?: string | null | undefined;
  barcode?: string | null | undefined;
  category?: string | null | undefined;
  taxRate?: number | undefined;
  taxInclusive?: boolean | undefined;
  imageUrl?: string | null | undefined;
  trackStock?: boolean | undefined;
  stock?: number | null | undefined;
  active?: boolean | undefined;
}

export function productNotFound(id: string) {
  return notFound('product_not_found', `No product ${id}`);
}

/** A percent with at most two decimals (7.5) as basis points (750). */
export function percentToBps(percent: number, field = 'taxRate'): number {
  const bps = Math.round(percent * 100);
  if (!Number.isFinite(percent) || percent < 0 || percent > 100 || Math.abs(percent * 100 - bps) > 1e-6) {
    throw badRequest('invalid_tax_rate', `${field} must be a percent from 0 to 100 with at most two decimals`);
  }
  return bps;
}

export function bpsToPercent(bps: number): number {
  return bps / 100;
}

/** A price in major units (0 allowed) as minor units of `currency`. */
export function priceToMinor(price: number, currency: string, field = 'price'): number {
  if (!Number.isFinite(price) || price < 0 || price > AMOUNT_MAJOR_MAX) throw badRequest('invalid_price', `${field} must be from 0 to ${AMOUNT_MAJOR_MAX}`);
  try {
    return minorFromMajor(price, currency);
  } catch {
    throw badRequest('invalid_price', `${field} takes at most ${currencyExponent(currency)} decimals in ${currency}`);
  }
}

function checkImageUrl(raw: string, mode: Mode): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest('invalid_image_url', 'imageUrl must be an absolute https URL');
  }
  const allowed = url.protocol === 'https:' || (mode === 'test' && url.protocol === 'http:');
  if (!allowed || url.username || url.password) throw badRequest('invalid_image_url', `imageUrl must be an https URL${mode === 'test' ? ' (http allowed in test mode)' : ''} without credentials`);
  return url.toString();
}

/** Text the merchant typed: trimmed, and empty means none. */
function optionalText(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/** The fields every form of a product shares (API, replica, update), as stored. */
function sharedFields(row: ProductRow) {
  return {
    name: row.name,
    currency: row.currency,
    sku: row.sku,
    barcode: row.barcode,
    category: row.category,
    taxInclusive: row.tax_inclusive,
    imageUrl: row.image_url,
    trackStock: row.track_stock,
    stock: row.track_stock ? row.stock : null,
    active: row.active,
  };
}

/** A product as the API answers it (docs/catalogue.md). */
export function productRecord(row: ProductRow) {
  return {
    id: row.id,
    ...sharedFields(row),
    price: toMajor(row.price, row.currency),
    taxRate: bpsToPercent(row.tax_rate),
    oversold: row.track_stock && (row.stock ?? 0) < 0,
    archivedAt: row.archived_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** A product as the kiosk's replica holds it (shared/src/sync-protocol.ts, ProductDoc). */
export function productDocument(row: ProductRow): ProductDoc {
  return {
    id: row.id,
    ...sharedFields(row),
    priceMinor: row.price,
    taxRate: row.tax_rate,
    updatedAt: row.updated_at.toISOString(),
    serverSeq: row.server_seq,
    _deleted: row.archived_at !== null,
  };
}

/** The product id of an Idempotency-Key's create (derivedUuid), or a new one. */
export function productId(derived: string | undefined): string {
  return `prod_${(derived ?? randomUUID()).replaceAll('-', '')}`;
}

export function productsService(context: AppContext) {
  const { db } = context;

  /** The input merged over `base` (an update) or the defaults (a create), checked. */
  async function resolveFields(scope: ProductScope, input: ProductInput, base: ProductFields | null, exceptId: string | null): Promise<ProductFields> {
    let currency = base?.currency;
    if (input.currency !== undefined) currency = supportedCurrency(input.currency);
    if (currency === undefined) {
      const merchant = await findMerchant(db, scope.merchantId);
      if (!merchant) throw notFound('merchant_not_found', 'Merchant not found');
      currency = merchant.currency;
    }
    const name = input.name === undefined ? base?.name : input.name.trim();
    if (!name) throw badRequest('validation_failed', 'name must not be blank', [{ field: 'name', message: 'must not be blank' }]);
    let price = base?.price;
    if (input.price !== undefined) price = priceToMinor(input.price, currency);
    else if (base && input.currency !== undefined && base.currency !== currency) {
      // A new currency keeps the same major amount only when it can be written in it.
      price = priceToMinor(toMajor(base.price, base.currency), currency);
    }
    if (price === undefined) throw badRequest('validation_failed', 'price is required', [{ field: 'price', message: 'is required' }]);
    const trackStock = input.trackStock ?? base?.trackStock ?? false;
    let stock = input.stock === undefined ? (base?.stock ?? null) : input.stock;
    if (trackStock && stock === null) {
      if (input.trackStock === true && input.stock === undefined && base && !base.trackStock) stock = 0;
      else throw badRequest('stock_required', 'A product that tracks stock needs a stock count');
    }
    if (!trackStock) stock = null;
    const sku = input.sku === undefined ? (base?.sku ?? null) : optionalText(input.sku);
    if (sku !== null && (await skuTaken(db, scope, sku, exceptId))) throw conflict('sku_taken', `Another product already has SKU ${sku}`);
    const imageUrlInput = input.imageUrl === undefined ? (base?.imageUrl ?? null) : optionalText(input.imageUrl);
    return {
      name,
      price,
      currency,
      sku,
      barcode: input.barcode === undefined ? (base?.barcode ?? null) : optionalText(input.barcode),
      category: input.category === undefined ? (base?.category ?? null) : optionalText(input.category),
      taxRate: input.taxRate === undefined ? (base?.taxRate ?? 0) : percentToBps(input.taxRate),
      taxInclusive: input.taxInclusive ?? base?.taxInclusive ?? true,
      imageUrl: imageUrlInput === null ? null : checkImageUrl(imageUrlInput, scope.mode),
      trackStock,
      stock,
      active: input.active ?? base?.active ?? true,
    };
  }

  function fieldsOf(row: ProductRow): ProductFields {
    return { ...sharedFields(row), price: row.price, taxRate: row.tax_rate };
  }

  /** Tells the scope's connected kiosks about changed products. */
  function changed(scope: ProductScope, rows: ProductRow[]): void {
    context.sync.productsChanged(scope.merchantId, scope.mode, rows.map(productDocument));
  }

  /** Runs a change on one locked product (lock first, then the change number: the order sales use). */
  async function change(scope: ProductScope, id: string, work: (tx: Queryable, row: ProductRow) => Promise<ProductRow>): Promise<ProductRow> {
    const row = await db.transaction(async (tx) => {
      const current = await findProduct(tx, scope, id, { lock: true });
      if (!current) throw productNotFound(id);
      return work(tx, current);
    });
    changed(scope, [row]);
    return row;
  }

  return {
    async create(scope: ProductScope, input: ProductInput, derived: string | undefined): Promise<ProductRow> {
      const id = productId(derived);
      if (derived) {
        const existing = await findProduct(db, scope, id);
        if (existing) return existing;
      }
      const fields = await resolveFields(scope, input, null, null);
      const now = context.now();
      const row = await db.transaction(async (tx) => (await insertProduct(tx, scope, id, fields, now)) ?? (await findProduct(tx, scope, id)));
      if (!row) throw new Error(`product ${id} vanished`);
      changed(scope, [row]);
      return row;
    },

    async get(scope: ProductScope, id: string): Promise<ProductRow> {
      const row = await findProduct(db, scope, id);
      if (!row) throw productNotFound(id);
      return row;
    },

    list(scope: ProductScope, filter: ProductFilter, limit: number, offset: number) {
      return listProducts(db, scope, filter, limit, offset);
    },

    async update(scope: ProductScope, id: string, input: ProductInput): Promise<ProductRow> {
      const current = await findProduct(db, scope, id);
      if (!current) throw productNotFound(id);
      // Checked before the transaction (the SKU look-up and the merchant read are outside it);
      // a stock take or another change racing this one is taken over only for the stock count.
      const fields = await resolveFields(scope, input, fieldsOf(current), id);
      return change(scope, id, async (tx, locked) => {
        const stock = input.stock === undefined && fields.trackStock && locked.track_stock ? locked.stock : fields.stock;
        return updateProduct(tx, scope, id, { ...fields, stock }, context.now());
      });
    },

    async archive(scope: ProductScope, id: string, archived: boolean): Promise<ProductRow> {
      return change(scope, id, async (tx, row) => {
        if ((row.archived_at !== null) === archived) return row;
        if (!archived && row.sku !== null && (await skuTaken(tx, scope, row.sku, id))) {
          throw conflict('sku_taken', `Another product now has SKU ${row.sku}: change this one's SKU before unarchiving it`);
        }
        return setArchived(tx, scope, id, archived ? context.now() : null, context.now());
      });
    },
  };
}

export type ProductsService = ReturnType<typeof productsService>;

/** The merchant and mode a product belongs to: what the routes scope each call by. */
export type { ProductScope } from './store.ts';
