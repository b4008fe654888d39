import { toMinor } from '@tapline/shared/money';
import type { CreateFlashSaleBody, UpdateFlashSaleBody } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import { type Mode, newId } from '../../auth/secrets.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { parseTime, productNotFound, storeModeOf } from './common.ts';
import { parsePercent } from './pricing.ts';
import { flashSaleRecord } from './records.ts';
import { type FlashSaleRow, type ProductRow, findProduct, insertFlashSale, listFlashSales, listRunningSales, lockFlashSale, lockProduct, overlappingSales, saveFlashSale } from './store.ts';

/**
 * Flash sales. One sale at a time per product (overlapping windows are refused, 409). A sale
 * runs while its status is active, the clock (context.now) is inside [startAt, endAt) and it has
 * units left; then the product's price is the sale price. Units are taken at checkout by one
 * conditional update (units_sold + quantity <= maxUnits), so maxUnits holds under concurrency.
 */

const saleNotFound = (id: string) => notFound('flash_sale_not_found', `No flash sale ${id}`);

async function productsOf(db: Queryable, rows: readonly FlashSaleRow[]): Promise<Map<string, ProductRow>> {
  const products = new Map<string, ProductRow>();
  for (const id of new Set(rows.map((row) => row.product_id))) {
    const product = await findProduct(db, id);
    if (product) products.set(id, product);
  }
  return products;
}

function discountOf(body: { discountType: 'percent' | 'fixed'; discountValue: number }, product: ProductRow) {
  if (body.discountType === 'percent') return { discount_percent: parsePercent(body.discountValue, false), discount_amount: null };
  const amount = toMinor(body.discountValue, product.base_currency);
  if (amount >= product.base_price) throw badRequest('discount_too_large', `A fixed discount must be below the product's basePrice (${product.base_currency})`);
  return { discount_percent: null, discount_amount: amount };
}

export async function createFlashSale(context: AppContext, body: CreateFlashSaleBody) {
  const now = context.now();
  const startAt = parseTime(body.startAt, 'startAt');
  const endAt = parseTime(body.endAt, 'endAt');
  if (endAt.getTime() <= startAt.getTime()) throw badRequest('end_before_start', 'endAt must be after startAt');
  if (endAt.getTime() <= now.getTime()) throw badRequest('end_in_past', 'endAt must be in the future');
  const { sale, product } = await context.db.transaction(async (tx) => {
    // The product's row lock serialises sale creation per product, so the overlap check holds.
    const product = await lockProduct(tx, body.productId);
    if (!product || product.status === 'archived') throw productNotFound(body.productId);
    const discount = discountOf(body, product);
    if ((await overlappingSales(tx, product.id, startAt, endAt, null)).length > 0) {
      throw conflict('flash_sale_overlaps', 'This product already has a flash sale in that window: end it or pick another window');
    }
    const sale = await insertFlashSale(tx, {
      id: newId('fsale'),
      mode: product.mode,
      product_id: product.id,
      name: body.name.trim(),
      discount_type: body.discountType,
      ...discount,
      start_at: startAt,
      end_at: endAt,
      max_units: body.maxUnits ?? null,
      units_sold: 0,
      status: 'active',
      created_at: now,
      updated_at: now,
    });
    return { sale, product };
  });
  return flashSaleRecord(sale, product, now);
}

/** PATCH: end early (status ended, or an endAt now or past), pause/resume, rename, change maxUnits. An ended sale is final (409). */
export async function updateFlashSale(context: AppContext, id: string, body: UpdateFlashSaleBody) {
  const now = context.now();
  const { sale, product } = await context.db.transaction(async (tx) => {
    const current = await lockFlashSale(tx, id);
    if (!current) throw saleNotFound(id);
    if (current.status === 'ended' || current.end_at.getTime() <= now.getTime()) throw conflict('flash_sale_ended', 'This flash sale has ended; create a new one');
    const product = await lockProduct(tx, current.product_id);
    if (!product) throw productNotFound(current.product_id);
    let endAt = body.endAt ? parseTime(body.endAt, 'endAt') : current.end_at;
    let status = body.status ?? current.status;
    if (endAt.getTime() <= now.getTime()) status = 'ended';
    if (status === 'ended' && endAt.getTime() > now.getTime()) endAt = now;
    if (endAt.getTime() <= current.start_at.getTime() && status !== 'ended') throw badRequest('end_before_start', 'endAt must be after startAt');
    if (endAt.getTime() <= current.start_at.getTime()) endAt = new Date(current.start_at.getTime() + 1);
    const maxUnits = body.maxUnits ?? current.max_units;
    if (maxUnits !== null && maxUnits < current.units_sold) throw badRequest('max_units_below_sold', `${current.units_sold} units are already sold: maxUnits must be at least that`);
    if (status !== 'ended' && (await overlappingSales(tx, product.id, current.start_at, endAt, current.id)).length > 0) {
      throw conflict('flash_sale_overlaps', 'Another flash sale of this product overlaps that window');
    }
    const sale = await saveFlashSale(tx, { ...current, name: body.name?.trim() || current.name, end_at: endAt, status, max_units: maxUnits, updated_at: now });
    return { sale, product };
  });
  return flashSaleRecord(sale, product, now);
}

export async function adminListFlashSales(context: AppContext, query: { limit?: number | undefined; offset?: number | undefined; mode?: Mode | undefined }) {
  const limit = query.limit ?? 20;
  const offset = query.offset ?? 0;
  const page = await listFlashSales(context.db, storeModeOf(query.mode), limit, offset);
  const products = await productsOf(context.db, page.rows);
  const now = context.now();
  return { data: page.rows.flatMap((row) => (products.has(row.product_id) ? [flashSaleRecord(row, products.get(row.product_id)!, now)] : [])), total: page.total, limit, offset };
}

/** Public: the sales running now (soonest to end first), with discount, time remaining and units left. */
export async function activeFlashSales(context: AppContext, mode: Mode | undefined) {
  const now = context.now();
  const rows = await listRunningSales(context.db, storeModeOf(mode), now);
  const products = await productsOf(context.db, rows);
  const data = rows.flatMap((row) => (products.has(row.product_id) ? [flashSaleRecord(row, products.get(row.product_id)!, now)] : []));
  return { data, total: data.length, limit: 100, offset: 0 };
}
