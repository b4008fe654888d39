import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';

/** The only file of the store module with SQL. Every time written comes from the caller's clock. */

export interface VariantRow {
  name: string;
  /** Minor units of the product currency, >= 0. */
  priceDelta: number;
}

export interface ProductRow {
  id: string;
  mode: Mode;
  slug: string;
  name: string;
  description: string;
  category: string;
  base_price: number;
  base_currency: string;
  stock: number;
  status: 'draft' | 'active' | 'archived';
  images: string[];
  variants: VariantRow[];
  available_countries: string[];
  geo_mode: 'all' | 'include' | 'exclude';
  sort_order: number;
  created_at: Date;
  updated_at: Date;
}

export interface FlashSaleRow {
  id: string;
  mode: Mode;
  product_id: string;
  name: string;
  discount_type: 'percent' | 'fixed';
  discount_percent: string | null;
  discount_amount: number | null;
  start_at: Date;
  end_at: Date;
  max_units: number | null;
  units_sold: number;
  status: 'active' | 'paused' | 'ended';
  created_at: Date;
  updated_at: Date;
}

export interface ReferralRow {
  id: string;
  mode: Mode;
  code: string;
  description: string | null;
  discount_type: 'percent' | 'fixed';
  discount_percent: string | null;
  discount_amount: number | null;
  currency: string | null;
  max_uses: number | null;
  uses: number;
  expires_at: Date | null;
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface TimelineItem {
  status: string;
  at: string;
  note?: string;
}

export interface OrderRow {
  id: string;
  mode: Mode;
  status: 'pending' | 'paid' | 'fulfilled' | 'shipped' | 'delivered' | 'cancelled' | 'refunded';
  product_id: string;
  product_slug: string;
  product_name: string;
  variant_name: string | null;
  quantity: number;
  currency: string;
  unit_price: number;
  subtotal: number;
  discount: number;
  total: number;
  flash_sale_id: string | null;
  referral_code_id: string | null;
  referral_code: string | null;
  buyer_wallet_id: string;
  buyer_handle: string;
  wallet_debit: number;
  wallet_charged: number;
  wallet_currency: string | null;
  fx_rate: string | null;
  gift_card_id: string | null;
  gift_card_prefix: string | null;
  gift_card_debit: number;
  shipping_name: string;
  shipping_phone: string;
  shipping_address: string;
  shipping_city: string;
  shipping_country: string;
  notes: string | null;
  payment_transfer_id: string | null;
  refund_transfer_id: string | null;
  restocked: number;
  gift_card_refunded_to: 'card' | 'wallet' | null;
  timeline: TimelineItem[];
  created_at: Date;
  updated_at: Date;
}

export interface ReviewRow {
  id: string;
  mode: Mode;
  product_id: string;
  order_id: string;
  buyer_wallet_id: string;
  buyer_handle: string;
  rating: number;
  title: string | null;
  body: string | null;
  created_at: Date;
}

export interface StockAlertRow {
  id: string;
  mode: Mode;
  product_id: string;
  wallet_id: string;
  handle: string;
  email: string;
  status: 'waiting' | 'notified';
  created_at: Date;
  notified_at: Date | null;
}

export interface MailRow {
  id: string;
  mode: Mode;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  source: string;
  state: 'pending' | 'sending' | 'sent' | 'failed';
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

export interface Page<T> {
  rows: T[];
  total: number;
}

/** LIKE pattern for a user's substring: its wildcards are matched literally. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

// Products ----------------------------------------------------------------------------------

/** Inserts a product; `skipExisting` leaves a product whose slug exists in the mode alone and answers undefined (the seed's idempotence). */
async function insertProductRow(db: Queryable, row: ProductRow, skipExisting: boolean): Promise<ProductRow | undefined> {
  const [created] = await db.query<ProductRow>(
    `INSERT INTO store_products (id, mode, slug, name, description, category, base_price, base_currency, stock, status, images, variants,
       available_countries, geo_mode, sort_order, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12::jsonb, $13::jsonb, $14, $15, $16, $16)
     ${skipExisting ? 'ON CONFLICT (mode, slug) DO NOTHING' : ''}
     RETURNING *`,
    [
      row.id,
      row.mode,
      row.slug,
      row.name,
      row.description,
      row.category,
      row.base_price,
      row.base_currency,
      row.stock,
      row.status,
      JSON.stringify(row.images),
      JSON.stringify(row.variants),
      JSON.stringify(row.available_countries),
      row.geo_mode,
      row.sort_order,
      row.created_at,
    ],
  );
  return created;
}

export async function insertProduct(db: Queryable, row: ProductRow): Promise<ProductRow> {
  return (await insertProductRow(db, row, false))!;
}

/** Inserts a product unless its slug exists in the mode: the seed's idempotence. */
export function insertProductIfAbsent(db: Queryable, row: ProductRow): Promise<ProductRow | undefined> {
  return insertProductRow(db, row, true);
}

export async function findProduct(db: Queryable, id: string): Promise<ProductRow | undefined> {
  const [row] = await db.query<ProductRow>('SELECT * FROM store_products WHERE id = $1', [id]);
  return row;
}

export async function findProductBySlug(db: Queryable, mode: Mode, slug: string): Promise<ProductRow | undefined> {
  const [row] = await db.query<ProductRow>('SELECT * FROM store_products WHERE mode = $1 AND slug = $2', [mode, slug]);
  return row;
}

export async function findProductsBySlugs(db: Queryable, mode: Mode, slugs: readonly string[]): Promise<ProductRow[]> {
  return db.query<ProductRow>('SELECT * FROM store_products WHERE mode = $1 AND slug = ANY ($2::text[]) ORDER BY sort_order, slug', [mode, slugs]);
}

export async function lockProduct(tx: Queryable, id: string): Promise<ProductRow | undefined> {
  const [row] = await tx.query<ProductRow>('SELECT * FROM store_products WHERE id = $1 FOR UPDATE', [id]);
  return row;
}

export async function saveProduct(tx: Queryable, row: ProductRow): Promise<ProductRow> {
  const [saved] = await tx.query<ProductRow>(
    `UPDATE store_products SET slug = $2, name = $3, description = $4, category = $5, base_price = $6, base_currency = $7, stock = $8,
       status = $9, images = $10::jsonb, variants = $11::jsonb, available_countries = $12::jsonb, geo_mode = $13, sort_order = $14, updated_at = $15
     WHERE id = $1 RETURNING *`,
    [
      row.id,
      row.slug,
      row.name,
      row.description,
      row.category,
      row.base_price,
      row.base_currency,
      row.stock,
      row.status,
      JSON.stringify(row.images),
      JSON.stringify(row.variants),
      JSON.stringify(row.available_countries),
      row.geo_mode,
      row.sort_order,
      row.updated_at,
    ],
  );
  return saved!;
}

const SORTS: Record<string, string> = {
  sort_order: 'sort_order, created_at, id',
  price_asc: 'base_price, sort_order, id',
  price_desc: 'base_price DESC, sort_order, id',
  newest: 'created_at DESC, id DESC',
  name: 'lower(name), id',
};

export interface ProductFilter {
  mode: Mode;
  statuses?: readonly string[] | undefined;
  category?: string | undefined;
  search?: string | undefined;
}

export async function listProducts(db: Queryable, filter: ProductFilter, sort: string, limit: number, offset: number): Promise<Page<ProductRow>> {
  const order = SORTS[sort] ?? SORTS.sort_order!;
  const where = `mode = $1 AND ($2::text[] IS NULL OR status = ANY ($2::text[])) AND ($3::text IS NULL OR category = $3)
    AND ($4::text IS NULL OR name ILIKE $4 OR description ILIKE $4 OR slug ILIKE $4)`;
  const params = [filter.mode, filter.statuses ? [...filter.statuses] : null, filter.category ?? null, filter.search ? containsPattern(filter.search) : null];
  const rows = await db.query<ProductRow>(`SELECT * FROM store_products WHERE ${where} ORDER BY ${order} LIMIT $5 OFFSET $6`, [...params, limit, offset]);
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM store_products WHERE ${where}`, params);
  return { rows, total: count?.total ?? 0 };
}

/**
 * Takes `quantity` units in one conditional statement: under concurrency the row lock queues the
 * checkouts and each re-checks `stock >= quantity`, so stock never goes below zero.
 */
export async function takeStock(tx: Queryable, productId: string, quantity: number): Promise<ProductRow | undefined> {
  const [row] = await tx.query<ProductRow>(
    `UPDATE store_products SET stock = stock - $2 WHERE id = $1 AND status = 'active' AND stock >= $2 RETURNING *`,
    [productId, quantity],
    { prepareAs: 'store_take_stock' },
  );
  return row;
}

/** Puts units back; answers the stock before and after. */
export async function returnStock(tx: Queryable, productId: string, quantity: number, now: Date): Promise<{ before: number; after: number }> {
  const [row] = await tx.query<{ stock: number }>('UPDATE store_products SET stock = stock + $2, updated_at = $3 WHERE id = $1 RETURNING stock', [productId, quantity, now]);
  const after = row?.stock ?? 0;
  return { before: after - quantity, after };
}

// Flash sales ---------------------------------------------------------------------------------

export async function insertFlashSale(tx: Queryable, row: FlashSaleRow): Promise<FlashSaleRow> {
  const [created] = await tx.query<FlashSaleRow>(
    `INSERT INTO store_flash_sales (id, mode, product_id, name, discount_type, discount_percent, discount_amount, start_at, end_at, max_units,
       units_sold, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0, $11, $12, $12) RETURNING *`,
    [row.id, row.mode, row.product_id, row.name, row.discount_type, row.discount_percent, row.discount_amount, row.start_at, row.end_at, row.max_units, row.status, row.created_at],
  );
  return created!;
}

export async function findFlashSale(db: Queryable, id: string): Promise<FlashSaleRow | undefined> {
  const [row] = await db.query<FlashSaleRow>('SELECT * FROM store_flash_sales WHERE id = $1', [id]);
  return row;
}

export async function lockFlashSale(tx: Queryable, id: string): Promise<FlashSaleRow | undefined> {
  const [row] = await tx.query<FlashSaleRow>('SELECT * FROM store_flash_sales WHERE id = $1 FOR UPDATE', [id]);
  return row;
}

export async function saveFlashSale(tx: Queryable, row: FlashSaleRow): Promise<FlashSaleRow> {
  const [saved] = await tx.query<FlashSaleRow>(
    'UPDATE store_flash_sales SET name = $2, end_at = $3, max_units = $4, status = $5, updated_at = $6 WHERE id = $1 RETURNING *',
    [row.id, row.name, row.end_at, row.max_units, row.status, row.updated_at],
  );
  return saved!;
}

/** Sales of a product whose window overlaps [start, end) and that are not ended (one sale at a time per product). */
export async function overlappingSales(tx: Queryable, productId: string, start: Date, end: Date, exceptId: string | null): Promise<FlashSaleRow[]> {
  return tx.query<FlashSaleRow>(
    `SELECT * FROM store_flash_sales WHERE product_id = $1 AND status <> 'ended' AND start_at < $3 AND end_at > $2 AND ($4::text IS NULL OR id <> $4)`,
    [productId, start, end, exceptId],
  );
}

/** The sales running at `now` with units left, for these products (at most one each). */
export async function runningSales(db: Queryable, productIds: readonly string[], now: Date): Promise<Map<string, FlashSaleRow>> {
  if (productIds.length === 0) return new Map();
  const rows = await db.query<FlashSaleRow>(
    `SELECT * FROM store_flash_sales
     WHERE product_id = ANY ($1::text[]) AND status = 'active' AND start_at <= $2 AND end_at > $2 AND (max_units IS NULL OR units_sold < max_units)
     ORDER BY start_at, id`,
    [productIds, now],
  );
  const byProduct = new Map<string, FlashSaleRow>();
  for (const row of rows) if (!byProduct.has(row.product_id)) byProduct.set(row.product_id, row);
  return byProduct;
}

/** Takes units of a running sale in one conditional statement: maxUnits holds under concurrency. */
export async function takeSaleUnits(tx: Queryable, saleId: string, quantity: number, now: Date): Promise<FlashSaleRow | undefined> {
  const [row] = await tx.query<FlashSaleRow>(
    `UPDATE store_flash_sales SET units_sold = units_sold + $2
     WHERE id = $1 AND status = 'active' AND start_at <= $3 AND end_at > $3 AND (max_units IS NULL OR units_sold + $2 <= max_units)
     RETURNING *`,
    [saleId, quantity, now],
  );
  return row;
}

export async function releaseSaleUnits(tx: Queryable, saleId: string, quantity: number): Promise<void> {
  await tx.query('UPDATE store_flash_sales SET units_sold = greatest(units_sold - $2, 0) WHERE id = $1', [saleId, quantity]);
}

export async function listFlashSales(db: Queryable, mode: Mode, limit: number, offset: number): Promise<Page<FlashSaleRow>> {
  const rows = await db.query<FlashSaleRow>('SELECT * FROM store_flash_sales WHERE mode = $1 ORDER BY start_at DESC, id DESC LIMIT $2 OFFSET $3', [mode, limit, offset]);
  const [count] = await db.query<{ total: number }>('SELECT count(*)::int8 AS total FROM store_flash_sales WHERE mode = $1', [mode]);
  return { rows, total: count?.total ?? 0 };
}

/** Running sales of active products, soonest to end first. */
export async function listRunningSales(db: Queryable, mode: Mode, now: Date): Promise<FlashSaleRow[]> {
  return db.query<FlashSaleRow>(
    `SELECT s.* FROM store_flash_sales s JOIN store_products p ON p.id = s.product_id
     WHERE s.mode = $1 AND s.status = 'active' AND s.start_at <= $2 AND s.end_at > $2 AND (s.max_units IS NULL OR s.units_sold < s.max_units)
       AND p.status = 'active'
     ORDER BY s.end_at, s.id LIMIT 100`,
    [mode, now],
  );
}

// Referral codes ------------------------------------------------------------------------------

export async function insertReferral(db: Queryable, row: ReferralRow): Promise<ReferralRow> {
  const [created] = await db.query<ReferralRow>(
    `INSERT INTO store_referral_codes (id, mode, code, description, discount_type, discount_percent, discount_amount, currency, max_uses, uses,
       expires_at, active, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, $10, $11, $12, $12) RETURNING *`,
    [row.id, row.mode, row.code, row.description, row.discount_type, row.discount_percent, row.discount_amount, row.currency, row.max_uses, row.expires_at, row.active, row.created_at],
  );
  return created!;
}

export async function findReferral(db: Queryable, id: string): Promise<ReferralRow | undefined> {
  const [row] = await db.query<ReferralRow>('SELECT * FROM store_referral_codes WHERE id = $1', [id]);
  return row;
}

export async function findReferralByCode(db: Queryable, mode: Mode, code: string): Promise<ReferralRow | undefined> {
  const [row] = await db.query<ReferralRow>('SELECT * FROM store_referral_codes WHERE mode = $1 AND code = $2', [mode, code]);
  return row;
}

export async function saveReferral(db: Queryable, row: ReferralRow): Promise<ReferralRow> {
  const [saved] = await db.query<ReferralRow>(
    'UPDATE store_referral_codes SET description = $2, max_uses = $3, expires_at = $4, active = $5, updated_at = $6 WHERE id = $1 RETURNING *',
    [row.id, row.description, row.max_uses, row.expires_at, row.active, row.updated_at],
  );
  return saved!;
}

export async function listReferrals(db: Queryable, mode: Mode, limit: number, offset: number): Promise<Page<ReferralRow>> {
  const rows = await db.query<ReferralRow>('SELECT * FROM store_referral_codes WHERE mode = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3', [mode, limit, offset]);
  const [count] = await db.query<{ total: number }>('SELECT count(*)::int8 AS total FROM store_referral_codes WHERE mode = $1', [mode]);
  return { rows, total: count?.total ?? 0 };
}

/** Counts one use in one conditional statement: maxUses holds under concurrency. */
export async function useReferral(tx: Queryable, id: string, now: Date): Promise<ReferralRow | undefined> {
  const [row] = await tx.query<ReferralRow>(
    `UPDATE store_referral_codes SET uses = uses + 1
     WHERE id = $1 AND active AND (expires_at IS NULL OR expires_at > $2) AND (max_uses IS NULL OR uses < max_uses)
     RETURNING *`,
    [id, now],
  );
  return row;
}

// Orders --------------------------------------------------------------------------------------

const ORDER_COLUMNS: ReadonlyArray<[keyof OrderRow, string]> = [
  ['id', 'text'],
  ['mode', 'text'],
  ['status', 'text'],
  ['product_id', 'text'],
  ['product_slug', 'text'],
  ['product_name', 'text'],
  ['variant_name', 'text'],
  ['quantity', 'int4'],
  ['currency', 'text'],
  ['unit_price', 'int8'],
  ['subtotal', 'int8'],
  ['discount', 'int8'],
  ['total', 'int8'],
  ['flash_sale_id', 'text'],
  ['referral_code_id', 'text'],
  ['referral_code', 'text'],
  ['buyer_wallet_id', 'text'],
  ['buyer_handle', 'text'],
  ['wallet_debit', 'int8'],
  ['wallet_charged', 'int8'],
  ['wallet_currency', 'text'],
  ['fx_rate', 'text'],
  ['gift_card_id', 'text'],
  ['gift_card_prefix', 'text'],
  ['gift_card_debit', 'int8'],
  ['shipping_name', 'text'],
  ['shipping_phone', 'text'],
  ['shipping_address', 'text'],
  ['shipping_city', 'text'],
  ['shipping_country', 'text'],
  ['notes', 'text'],
  ['payment_transfer_id', 'text'],
  ['timeline', 'jsonb'],
  ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
];

export type NewOrder = Omit<OrderRow, 'refund_transfer_id' | 'restocked' | 'gift_card_refunded_to'>;

export async function insertOrder(tx: Queryable, order: NewOrder): Promise<OrderRow> {
  const names = ORDER_COLUMNS.map(([name]) => name);
  const values = ORDER_COLUMNS.map(([, type], index) => `$${index + 1}::${type}`);
  const params = ORDER_COLUMNS.map(([name]) => {
    const value = order[name as keyof NewOrder];
    if (name === 'timeline') return JSON.stringify(value);
    return value as string | number | Date | null;
  });
  const [row] = await tx.query<OrderRow>(`INSERT INTO store_orders (${names.join(', ')}) VALUES (${values.join(', ')}) RETURNING *`, params);
  return row!;
}

export async function findOrder(db: Queryable, id: string): Promise<OrderRow | undefined> {
  const [row] = await db.query<OrderRow>('SELECT * FROM store_orders WHERE id = $1', [id]);
  return row;
}

export async function lockOrder(tx: Queryable, id: string): Promise<OrderRow | undefined> {
  const [row] = await tx.query<OrderRow>('SELECT * FROM store_orders WHERE id = $1 FOR UPDATE', [id]);
  return row;
}

export async function updateOrderState(
  tx: Queryable,
  id: string,
  fields: { status: OrderRow['status']; timeline: TimelineItem[]; now: Date; refundTransferId?: string | null; restocked?: number; giftCardRefundedTo?: 'card' | 'wallet' | null },
): Promise<OrderRow> {
  const [row] = await tx.query<OrderRow>(
    `UPDATE store_orders SET status = $2, timeline = $3::jsonb, updated_at = $4,
       refund_transfer_id = coalesce($5, refund_transfer_id), restocked = coalesce($6, restocked),
       gift_card_refunded_to = coalesce($7, gift_card_refunded_to)
     WHERE id = $1 RETURNING *`,
    [id, fields.status, JSON.stringify(fields.timeline), fields.now, fields.refundTransferId ?? null, fields.restocked ?? null, fields.giftCardRefundedTo ?? null],
  );
  return row!;
}

export async function listOrdersOfWallet(db: Queryable, walletId: string, limit: number, offset: number): Promise<Page<OrderRow>> {
  const rows = await db.query<OrderRow>('SELECT * FROM store_orders WHERE buyer_wallet_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3', [walletId, limit, offset]);
  const [count] = await db.query<{ total: number }>('SELECT count(*)::int8 AS total FROM store_orders WHERE buyer_wallet_id = $1', [walletId]);
  return { rows, total: count?.total ?? 0 };
}

export async function listOrders(
  db: Queryable,
  filter: { mode: Mode; status?: string | undefined; buyerHandle?: string | undefined },
  limit: number,
  offset: number,
): Promise<Page<OrderRow>> {
  const where = 'mode = $1 AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR buyer_handle = $3)';
  const params = [filter.mode, filter.status ?? null, filter.buyerHandle ?? null];
  const rows = await db.query<OrderRow>(`SELECT * FROM store_orders WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`, [...params, limit, offset]);
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM store_orders WHERE ${where}`, params);
  return { rows, total: count?.total ?? 0 };
}

// Reviews -------------------------------------------------------------------------------------

/** Inserts a review; undefined when the buyer already reviewed the product (the unique key). */
export async function insertReview(db: Queryable, row: ReviewRow): Promise<ReviewRow | undefined> {
  const [created] = await db.query<ReviewRow>(
    `INSERT INTO store_reviews (id, mode, product_id, order_id, buyer_wallet_id, buyer_handle, rating, title, body, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (product_id, buyer_wallet_id) DO NOTHING RETURNING *`,
    [row.id, row.mode, row.product_id, row.order_id, row.buyer_wallet_id, row.buyer_handle, row.rating, row.title, row.body, row.created_at],
  );
  return created;
}

export async function reviewSummary(db: Queryable, productId: string, recent: number): Promise<{ count: number; average: string | null; recent: ReviewRow[] }> {
  const [aggregate] = await db.query<{ count: number; average: string | null }>(
    'SELECT count(*)::int8 AS count, round(avg(rating), 2)::text AS average FROM store_reviews WHERE product_id = $1',
    [productId],
  );
  const rows = await db.query<ReviewRow>('SELECT * FROM store_reviews WHERE product_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2', [productId, recent]);
  return { count: aggregate?.count ?? 0, average: aggregate?.average ?? null, recent: rows };
}

// Stock alerts, notices and mail ---------------------------------------------------------------

/** Subscribes; answers the waiting subscription when the same one exists (created false). */
export async function insertStockAlert(db: Queryable, row: StockAlertRow): Promise<{ alert: StockAlertRow; created: boolean }> {
  const [created] = await db.query<StockAlertRow>(
    `INSERT INTO store_stock_alerts (id, mode, product_id, wallet_id, handle, email, status, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'waiting', $7)
     ON CONFLICT (product_id, wallet_id, email) WHERE status = 'waiting' DO NOTHING RETURNING *`,
    [row.id, row.mode, row.product_id, row.wallet_id, row.handle, row.email, row.created_at],
  );
  if (created) return { alert: created, created: true };
  const [existing] = await db.query<StockAlertRow>(
    `SELECT * FROM store_stock_alerts WHERE product_id = $1 AND wallet_id = $2 AND email = $3 AND status = 'waiting'`,
    [row.product_id, row.wallet_id, row.email],
  );
  return { alert: existing!, created: false };
}

/** Marks every waiting alert of a product notified and answers them (the caller writes notice and mail in the same transaction). */
export async function claimWaitingAlerts(tx: Queryable, productId: string, now: Date): Promise<StockAlertRow[]> {
  return tx.query<StockAlertRow>(
    `UPDATE store_stock_alerts SET status = 'notified', notified_at = $2 WHERE product_id = $1 AND status = 'waiting' RETURNING *`,
    [productId, now],
  );
}

export async function insertMails(tx: Queryable, rows: readonly Omit<MailRow, 'state' | 'attempts' | 'last_error' | 'sent_at'>[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO mail_outbox (id, mode, to_address, subject, text_body, html_body, source, state, next_attempt_at, created_at)
     SELECT r.id, r.mode, r.to_address, r.subject, r.text_body, r.html_body, r.source, 'pending', r.next_attempt_at, r.created_at
     FROM jsonb_to_recordset($1::jsonb) AS r (id text, mode text, to_address text, subject text, text_body text, html_body text, source text,
       next_attempt_at timestamptz, created_at timestamptz)`,
    [JSON.stringify(rows.map((row) => ({ ...row, next_attempt_at: row.next_attempt_at.toISOString(), created_at: row.created_at.toISOString() })))],
  );
}

/**
 * Claims due mails (pending, or sending with a lapsed lease: its sender died) with FOR UPDATE
 * SKIP LOCKED, marking them sending with a lease until `leaseUntil`.
 */
export async function claimDueMails(db: Queryable, now: Date, leaseUntil: Date, limit: number): Promise<MailRow[]> {
  return db.query<MailRow>(
    `UPDATE mail_outbox SET state = 'sending', next_attempt_at = $2, attempts = attempts + 1
     WHERE id IN (SELECT id FROM mail_outbox WHERE state IN ('pending', 'sending') AND next_attempt_at <= $1
                  ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
     RETURNING *`,
    [now, leaseUntil, limit],
  );
}

export async function markMailSent(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query(`UPDATE mail_outbox SET state = 'sent', sent_at = $2, last_error = NULL WHERE id = $1`, [id, now]);
}

export async function markMailFailed(db: Queryable, id: string, error: string, retryAt: Date | null): Promise<void> {
  await db.query(
    `UPDATE mail_outbox SET state = CASE WHEN $3::timestamptz IS NULL THEN 'failed' ELSE 'pending' END,
       next_attempt_at = coalesce($3::timestamptz, next_attempt_at), last_error = $2 WHERE id = $1`,
    [id, error.slice(0, 500), retryAt],
  );
}

export async function countPendingMails(db: Queryable): Promise<number> {
  const [row] = await db.query<{ count: number }>(`SELECT count(*)::int8 AS count FROM mail_outbox WHERE state IN ('pending', 'sending')`);
  return row?.count ?? 0;
}

// Stats ---------------------------------------------------------------------------------------

export async function storeCounts(db: Queryable, mode: Mode): Promise<{ products: number; orders: number; pending: number; reviews: number; average: string | null }> {
  const [row] = await db.query<{ products: number; orders: number; pending: number; reviews: number; average: string | null }>(
    `SELECT (SELECT count(*) FROM store_products WHERE mode = $1 AND status <> 'archived')::int8 AS products,
            (SELECT count(*) FROM store_orders WHERE mode = $1)::int8 AS orders,
            (SELECT count(*) FROM store_orders WHERE mode = $1 AND status IN ('pending', 'paid'))::int8 AS pending,
            (SELECT count(*) FROM store_reviews WHERE mode = $1)::int8 AS reviews,
            (SELECT round(avg(rating), 2)::text FROM store_reviews WHERE mode = $1) AS average`,
    [mode],
  );
  return row!;
}

export async function revenueByCurrency(db: Queryable, mode: Mode): Promise<{ currency: string; amount: number; orders: number }[]> {
  return db.query<{ currency: string; amount: number; orders: number }>(
    `SELECT currency, sum(total)::int8 AS amount, count(*)::int8 AS orders FROM store_orders
     WHERE mode = $1 AND status IN ('paid', 'fulfilled', 'shipped', 'delivered') GROUP BY currency ORDER BY currency`,
    [mode],
  );
}
