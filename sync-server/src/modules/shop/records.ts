import { STORE_LIMITS } from '@tapline/shared/limits';
import { toMajor } from '@tapline/shared/money';
import { displayHandle } from '../../http/validate.ts';
import { salePrice } from './pricing.ts';
import type { NotificationRow } from '../wallets/index.ts';
import type { FlashSaleRow, OrderRow, ProductRow, ReferralRow, ReviewRow, StockAlertRow } from './store.ts';

/** Row -> API shapes. Money leaves in major units; handles with their @. */

const iso = (value: Date | null) => (value ? value.toISOString() : null);

/** A money amount that may be zero (toMajor handles it; kept explicit for readability). */
const major = (minor: number, currency: string) => toMajor(minor, currency);

function secondsUntil(end: Date, now: Date): number {
  return Math.max(0, Math.floor((end.getTime() - now.getTime()) / 1000));
}

export function saleDiscountValue(sale: FlashSaleRow, currency: string): number {
  return sale.discount_type === 'percent' ? Number(sale.discount_percent) : major(sale.discount_amount ?? 0, currency);
}

/** The sale as shown on a product (only a running sale is shown). */
export function flashSaleSummary(sale: FlashSaleRow, product: ProductRow, now: Date) {
  return {
    id: sale.id,
    name: sale.name,
    discountType: sale.discount_type,
    discountValue: saleDiscountValue(sale, product.base_currency),
    salePrice: major(salePrice(product, sale), product.base_currency),
    startAt: sale.start_at.toISOString(),
    endsAt: sale.end_at.toISOString(),
    timeRemainingSeconds: secondsUntil(sale.end_at, now),
    maxUnits: sale.max_units,
    unitsSold: sale.units_sold,
    unitsLeft: sale.max_units === null ? null : Math.max(0, sale.max_units - sale.units_sold),
  };
}

/** What buyers see of a sale now. */
export function saleState(sale: FlashSaleRow, now: Date): 'scheduled' | 'running' | 'sold_out' | 'paused' | 'ended' {
  if (sale.status === 'ended' || sale.end_at.getTime() <= now.getTime()) return 'ended';
  if (sale.status === 'paused') return 'paused';
  if (sale.start_at.getTime() > now.getTime()) return 'scheduled';
  if (sale.max_units !== null && sale.units_sold >= sale.max_units) return 'sold_out';
  return 'running';
}

export function flashSaleRecord(sale: FlashSaleRow, product: ProductRow, now: Date) {
  const state = saleState(sale, now);
  return {
    id: sale.id,
    productId: sale.product_id,
    productSlug: product.slug,
    name: sale.name,
    discountType: sale.discount_type,
    discountValue: saleDiscountValue(sale, product.base_currency),
    currency: product.base_currency,
    salePrice: major(salePrice(product, sale), product.base_currency),
    startAt: sale.start_at.toISOString(),
    endAt: sale.end_at.toISOString(),
    maxUnits: sale.max_units,
    unitsSold: sale.units_sold,
    unitsLeft: sale.max_units === null ? null : Math.max(0, sale.max_units - sale.units_sold),
    status: sale.status,
    state,
    timeRemainingSeconds: state === 'running' ? secondsUntil(sale.end_at, now) : 0,
    mode: sale.mode,
    createdAt: sale.created_at.toISOString(),
    updatedAt: sale.updated_at.toISOString(),
  };
}

export interface WalletPrice {
  amount: number;
  currency: string;
  fxRate: number;
}

export function productRecord(row: ProductRow, sale: FlashSaleRow | undefined, now: Date, walletPrice?: WalletPrice) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    category: row.category,
    basePrice: major(row.base_price, row.base_currency),
    baseCurrency: row.base_currency,
    price: major(sale ? salePrice(row, sale) : row.base_price, row.base_currency),
    stock: row.stock,
    status: row.status,
    images: row.images,
    flashSale: sale ? flashSaleSummary(sale, row, now) : null,
    ...(walletPrice ? { priceInWalletCurrency: walletPrice.amount, walletCurrency: walletPrice.currency, walletFxRate: walletPrice.fxRate } : {}),
    mode: row.mode,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function variantRecords(row: ProductRow) {
  return row.variants.map((variant) => ({ name: variant.name, priceDelta: variant.priceDelta === 0 ? 0 : major(variant.priceDelta, row.base_currency) }));
}

export function adminProductRecord(row: ProductRow, sale: FlashSaleRow | undefined, now: Date) {
  return {
    ...productRecord(row, sale, now),
    variants: variantRecords(row),
    availableCountries: row.available_countries,
    geoMode: row.geo_mode,
    sortOrder: row.sort_order,
  };
}

export function publicReview(row: ReviewRow) {
  return { id: row.id, buyerHandle: displayHandle(row.buyer_handle), rating: row.rating, title: row.title, body: row.body, createdAt: row.created_at.toISOString() };
}

export function reviewRecord(row: ReviewRow) {
  return { ...publicReview(row), productId: row.product_id, orderId: row.order_id };
}

export function productDetail(
  row: ProductRow,
  sale: FlashSaleRow | undefined,
  now: Date,
  reviews: { count: number; average: string | null; recent: ReviewRow[] },
  walletPrice?: WalletPrice,
) {
  return {
    ...productRecord(row, sale, now, walletPrice),
    variants: variantRecords(row),
    availableCountries: row.available_countries,
    geoMode: row.geo_mode,
    reviews: {
      count: reviews.count,
      avgRating: reviews.average === null ? null : Number(reviews.average),
      recent: reviews.recent.slice(0, STORE_LIMITS.recentReviews).map(publicReview),
    },
  };
}

/** Keeps a leading + and the last 4 digits of a phone number. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  const visible = digits.slice(-4);
  return `${phone.trim().startsWith('+') ? '+' : ''}${'*'.repeat(Math.max(0, digits.length - 4))}${visible}`;
}

/** Keeps the first 4 characters of an address. */
export function maskAddress(address: string): string {
  const trimmed = address.trim();
  return trimmed.length <= 4 ? '****' : `${trimmed.slice(0, 4)}****`;
}

/**
 * An order. `masked`: the public view by id (GET /api/store/orders/<id>) hides the shipping phone
 * and street address, which only the buyer (my-orders, with the PIN) and the admin see in full.
 * No view carries a PIN or a gift-card code: only the code's first 10 characters.
 */
export function orderRecord(row: OrderRow, masked: boolean) {
  const walletCurrency = row.wallet_currency;
  return {
    id: row.id,
    status: row.status,
    mode: row.mode,
    product: { id: row.product_id, slug: row.product_slug, name: row.product_name, variantName: row.variant_name },
    quantity: row.quantity,
    buyerHandle: displayHandle(row.buyer_handle),
    shipping: {
      name: row.shipping_name,
      phone: masked ? maskPhone(row.shipping_phone) : row.shipping_phone,
      address: masked ? maskAddress(row.shipping_address) : row.shipping_address,
      city: row.shipping_city,
      country: row.shipping_country,
    },
    notes: masked ? null : row.notes,
    payment: {
      total: major(row.total, row.currency),
      subtotal: major(row.subtotal, row.currency),
      unitPrice: major(row.unit_price, row.currency),
      currency: row.currency,
      walletDebit: major(row.wallet_debit, row.currency),
      giftCardDebit: major(row.gift_card_debit, row.currency),
      discount: major(row.discount, row.currency),
      referralCode: row.referral_code,
      flashSaleId: row.flash_sale_id,
      walletCharged:
        walletCurrency && row.wallet_charged > 0
          ? { amount: major(row.wallet_charged, walletCurrency), currency: walletCurrency, fxRate: row.fx_rate === null ? null : Number(row.fx_rate) }
          : null,
      giftCardPrefix: row.gift_card_prefix,
    },
    timeline: row.timeline,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function stockAlertRecord(row: StockAlertRow, product: Pick<ProductRow, 'slug'>) {
  return {
    id: row.id,
    productId: row.product_id,
    productSlug: product.slug,
    buyerHandle: displayHandle(row.handle),
    email: row.email,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    notifiedAt: iso(row.notified_at),
  };
}

export function notificationRecord(row: NotificationRow) {
  return { id: row.id, kind: row.kind, title: row.title, body: row.body, data: row.data, createdAt: row.created_at.toISOString(), readAt: iso(row.read_at) };
}

export function referralRecord(row: ReferralRow) {
  return {
    id: row.id,
    code: row.code,
    description: row.description,
    discountType: row.discount_type,
    discountValue: row.discount_type === 'percent' ? Number(row.discount_percent) : major(row.discount_amount ?? 0, row.currency ?? 'USD'),
    currency: row.currency,
    maxUses: row.max_uses,
    uses: row.uses,
    expiresAt: iso(row.expires_at),
    active: row.active,
    mode: row.mode,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
