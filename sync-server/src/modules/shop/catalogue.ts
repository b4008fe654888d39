import { toMajor, toMinor } from '@tapline/shared/money';
import type { CreateProductBody, ProductListQuery, UpdateProductBody } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { PG_ERROR, type Queryable, pgErrorCode } from '../../db/database.ts';
import { type Mode, newId } from '../../auth/secrets.ts';
import { badRequest, conflict } from '../../http/errors.ts';
import { supportedCountry, supportedCurrency } from '../../http/validate.ts';
import type { RateSource } from '../fx/index.ts';
import { productNotFound, storeModeOf } from './common.ts';
import { convertUp, salePrice } from './pricing.ts';
import { type WalletPrice, adminProductRecord, productDetail, productRecord } from './records.ts';
import { SEED_PRODUCTS } from './seed.ts';
import {
  type FlashSaleRow,
  type ProductRow,
  type VariantRow,
  findProductBySlug,
  findProductsBySlugs,
  insertProduct,
  insertProductIfAbsent,
  listProducts,
  lockProduct,
  reviewSummary,
  runningSales,
  saveProduct,
} from './store.ts';
import { notifyIfBackInStock } from './stock-alerts.ts';

/** Products: the public catalogue (active products only) and the admin's management. */

function slugTaken(slug: string) {
  return conflict('slug_taken', `A product with slug ${slug} already exists in this mode`);
}

function parseVariants(variants: readonly { name: string; priceDelta?: number | undefined }[], currency: string): VariantRow[] {
  const seen = new Set<string>();
  return variants.map((variant, index) => {
    const name = variant.name.trim();
    if (name === '') throw badRequest('variant_invalid', `variants[${index}].name must not be blank`);
    if (seen.has(name.toLowerCase())) throw badRequest('variant_invalid', `variants[${index}].name ${name} is repeated`);
    seen.add(name.toLowerCase());
    const delta = variant.priceDelta === undefined || variant.priceDelta === 0 ? 0 : toMinor(variant.priceDelta, currency);
    return { name, priceDelta: delta };
  });
}

function parseCountries(countries: readonly string[]): string[] {
  return [...new Set(countries.map((country) => supportedCountry(country, 'availableCountries')))];
}

function checkGeo(geoMode: ProductRow['geo_mode'], countries: readonly string[]): void {
  if (geoMode !== 'all' && countries.length === 0) throw badRequest('available_countries_required', `geoMode ${geoMode} needs availableCountries`);
}

export async function createProduct(context: AppContext, body: CreateProductBody) {
  const now = context.now();
  const currency = supportedCurrency(body.baseCurrency, 'baseCurrency');
  const countries = parseCountries(body.availableCountries ?? []);
  const geoMode = body.geoMode ?? 'all';
  checkGeo(geoMode, countries);
  if (body.status === 'archived') throw badRequest('status_invalid', 'Create a product as draft or active; DELETE archives it');
  const row: ProductRow = {
    id: newId('prod'),
    mode: storeModeOf(body.mode),
    slug: body.slug,
    name: body.name.trim(),
    description: body.description?.trim() ?? '',
    category: body.category,
    base_price: toMinor(body.basePrice, currency),
    base_currency: currency,
    stock: body.stock,
    status: body.status ?? 'active',
    images: body.images ?? [],
    variants: parseVariants(body.variants ?? [], currency),
    available_countries: countries,
    geo_mode: geoMode,
    sort_order: body.sortOrder ?? 0,
    created_at: now,
    updated_at: now,
  };
  if (row.name === '') throw badRequest('name_invalid', 'name must not be blank');
  try {
    return adminProductRecord(await insertProduct(context.db, row), undefined, now);
  } catch (error) {
    if (pgErrorCode(error) === PG_ERROR.uniqueViolation) throw slugTaken(body.slug);
    throw error;
  }
}

/** PATCH: any field but mode. Raising stock to a positive value notifies the waiting stock alerts in the same transaction. */
export async function updateProduct(context: AppContext, id: string, body: UpdateProductBody) {
  const now = context.now();
  try {
    const saved = await context.db.transaction(async (tx) => {
      const current = await lockProduct(tx, id);
      if (!current) throw productNotFound(id);
      const currency = body.baseCurrency ? supportedCurrency(body.baseCurrency, 'baseCurrency') : current.base_currency;
      const currencyChanged = currency !== current.base_currency;
      if (currencyChanged && body.basePrice === undefined) throw badRequest('base_price_required', 'Changing baseCurrency needs basePrice in the new currency');
      if (currencyChanged && body.variants === undefined && current.variants.some((variant) => variant.priceDelta > 0)) {
        throw badRequest('variants_required', 'Changing baseCurrency needs the variants\' priceDelta in the new currency');
      }
      const countries = body.availableCountries ? parseCountries(body.availableCountries) : current.available_countries;
      const geoMode = body.geoMode ?? current.geo_mode;
      checkGeo(geoMode, countries);
      const next: ProductRow = {
        ...current,
        slug: body.slug ?? current.slug,
        name: body.name?.trim() ?? current.name,
        description: body.description?.trim() ?? current.description,
        category: body.category ?? current.category,
        base_currency: currency,
        base_price: body.basePrice !== undefined ? toMinor(body.basePrice, currency) : current.base_price,
        stock: body.stock ?? current.stock,
        status: body.status ?? current.status,
        images: body.images ?? current.images,
        variants: body.variants ? parseVariants(body.variants, currency) : current.variants,
        available_countries: countries,
        geo_mode: geoMode,
        sort_order: body.sortOrder ?? current.sort_order,
        updated_at: now,
      };
      if (next.name === '') throw badRequest('name_invalid', 'name must not be blank');
      const row = await saveProduct(tx, next);
      await notifyIfBackInStock(tx, row, current.stock, row.stock, now, context.config.publicBaseUrl);
      return row;
    });
    const sales = await runningSales(context.db, [saved.id], now);
    return adminProductRecord(saved, sales.get(saved.id), now);
  } catch (error) {
    if (pgErrorCode(error) === PG_ERROR.uniqueViolation) throw slugTaken(body.slug ?? '');
    throw error;
  }
}

export async function archiveProduct(context: AppContext, id: string) {
  return updateProduct(context, id, { status: 'archived' });
}

/** The unit price in the wallet's currency: the effective price at the FX service's mid rate, rounded up (what checkout charges). */
async function walletPrices(rates: RateSource, rows: readonly { row: ProductRow; sale: FlashSaleRow | undefined }[], walletCurrency: string | undefined): Promise<Map<string, WalletPrice>> {
  const prices = new Map<string, WalletPrice>();
  if (!walletCurrency) return prices;
  const currency = supportedCurrency(walletCurrency, 'walletCurrency');
  const rateOf = new Map<string, string>();
  for (const { row, sale } of rows) {
    let rate = rateOf.get(row.base_currency);
    if (rate === undefined) {
      rate = row.base_currency === currency ? '1' : (await rates.rate(row.base_currency, currency)).rate;
      rateOf.set(row.base_currency, rate);
    }
    const unit = sale ? salePrice(row, sale) : row.base_price;
    prices.set(row.id, { amount: toMajor(convertUp(unit, row.base_currency, currency, rate), currency), currency, fxRate: Number(rate) });
  }
  return prices;
}

export async function publicList(context: AppContext, rates: RateSource, query: ProductListQuery) {
  const limit = query.limit ?? 20;
  const offset = query.offset ?? 0;
  const mode = storeModeOf(query.mode);
  if (query.walletCurrency) supportedCurrency(query.walletCurrency, 'walletCurrency');
  const page = await listProducts(context.db, { mode, statuses: ['active'], category: query.category, search: query.search?.trim() || undefined }, query.sort ?? 'sort_order', limit, offset);
  const now = context.now();
  const sales = await runningSales(context.db, page.rows.map((row) => row.id), now);
  const withSales = page.rows.map((row) => ({ row, sale: sales.get(row.id) }));
  const prices = await walletPrices(rates, withSales, query.walletCurrency);
  return { data: withSales.map(({ row, sale }) => productRecord(row, sale, now, prices.get(row.id))), total: page.total, limit, offset };
}

export async function publicDetail(context: AppContext, rates: RateSource, slug: string, query: { walletCurrency?: string | undefined; mode?: Mode | undefined }) {
  const product = await findProductBySlug(context.db, storeModeOf(query.mode), slug);
  if (!product || product.status !== 'active') throw productNotFound(slug);
  const now = context.now();
  const sale = (await runningSales(context.db, [product.id], now)).get(product.id);
  const prices = await walletPrices(rates, [{ row: product, sale }], query.walletCurrency);
  const reviews = await reviewSummary(context.db, product.id, 5);
  return productDetail(product, sale, now, reviews, prices.get(product.id));
}

export async function adminList(db: Queryable, now: Date, query: { limit?: number | undefined; offset?: number | undefined; status?: ProductRow['status'] | undefined; category?: string | undefined; search?: string | undefined; mode?: Mode | undefined }) {
  const limit = query.limit ?? 20;
  const offset = query.offset ?? 0;
  const page = await listProducts(db, { mode: storeModeOf(query.mode), statuses: query.status ? [query.status] : undefined, category: query.category, search: query.search?.trim() || undefined }, 'newest', limit, offset);
  const sales = await runningSales(db, page.rows.map((row) => row.id), now);
  return { data: page.rows.map((row) => adminProductRecord(row, sales.get(row.id), now)), total: page.total, limit, offset };
}

/** The 9 sample NFC products, by slug: seeding twice creates nothing the second time. */
export async function seedProducts(context: AppContext, mode: Mode) {
  const now = context.now();
  let created = 0;
  await context.db.transaction(async (tx) => {
    for (const [index, sample] of SEED_PRODUCTS.entries()) {
      const inserted = await insertProductIfAbsent(tx, {
        id: newId('prod'),
        mode,
        slug: sample.slug,
        name: sample.name,
        description: sample.description,
        category: sample.category,
        base_price: toMinor(sample.price, sample.currency),
        base_currency: sample.currency,
        stock: sample.stock,
        status: 'active',
        images: sample.images,
        variants: sample.variants.map((variant) => ({ name: variant.name, priceDelta: variant.priceDelta === 0 ? 0 : toMinor(variant.priceDelta, sample.currency) })),
        available_countries: [],
        geo_mode: 'all',
        sort_order: (index + 1) * 10,
        created_at: now,
        updated_at: now,
      });
      if (inserted) created += 1;
    }
  });
  const rows = await findProductsBySlugs(context.db, mode, SEED_PRODUCTS.map((sample) => sample.slug));
  return { created, existing: SEED_PRODUCTS.length - created, products: rows.map((row) => adminProductRecord(row, undefined, now)) };
}
