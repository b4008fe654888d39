import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';

/** A row of `products` (migration 022): minor units, basis points. */
export interface ProductRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  name: string;
  price: number;
  currency: string;
  sku: string | null;
  barcode: string | null;
  category: string | null;
  tax_rate: number;
  tax_inclusive: boolean;
  image_url: string | null;
  track_stock: boolean;
  stock: number | null;
  active: boolean;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
  server_seq: number;
}

export interface ProductScope {
  merchantId: string;
  mode: Mode;
}

/** The fields a merchant sets (create and update). */
export interface ProductFields {
  name: string;
  price: number;
  currency: string;
  sku: string | null;
  barcode: string | null;
  category: string | null;
  taxRate: number;
  taxInclusive: boolean;
  imageUrl: string | null;
  trackStock: boolean;
  stock: number | null;
  active: boolean;
}

const COLUMNS =
  'id, merchant_id, mode, name, price, currency, sku, barcode, category, tax_rate, tax_inclusive, image_url, track_stock, stock, active, archived_at, created_at, updated_at, server_seq';

/** pg answers int8 as text, PGlite as a number: one shape for both. */
function normalize(row: ProductRow): ProductRow {
  return { ...row, price: Number(row.price), stock: row.stock === null ? null : Number(row.stock), server_seq: Number(row.server_seq) };
}

/**
 * The next change number of a merchant's products in one mode. The head row stays locked until
 * the caller's transaction ends, so numbers commit in the order they were taken: a pull that has
 * seen number n never misses a change numbered below n that commits later.
 */
async function nextSeq(tx: Queryable, scope: ProductScope): Promise<number> {
  const [row] = await tx.query<{ seq: number }>(
    `INSERT INTO product_sync_heads (merchant_id, mode, seq) VALUES ($1, $2, 1)
     ON CONFLICT (merchant_id, mode) DO UPDATE SET seq = product_sync_heads.seq + 1
     RETURNING seq`,
    [scope.merchantId, scope.mode],
  );
  return Number(row!.seq);
}

/** A new product; undefined when the id is taken (an Idempotency-Key's retry: the caller reads that one). */
export async function insertProduct(tx: Queryable, scope: ProductScope, id: string, fields: ProductFields, now: Date): Promise<ProductRow | undefined> {
  const seq = await nextSeq(tx, scope);
  const [row] = await tx.query<ProductRow>(
    `INSERT INTO products (id, merchant_id, mode, name, price, currency, sku, barcode, category, tax_rate, tax_inclusive, image_url, track_stock, stock, active, created_at, updated_at, server_seq)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16, $17)
     ON CONFLICT (id) DO NOTHING RETURNING ${COLUMNS}`,
    [
      id, scope.merchantId, scope.mode, fields.name, fields.price, fields.currency, fields.sku, fields.barcode, fields.category,
      fields.taxRate, fields.taxInclusive, fields.imageUrl, fields.trackStock, fields.stock, fields.active, now, seq,
    ],
  );
  return row ? normalize(row) : undefined;
}

export async function findProduct(db: Queryable, scope: ProductScope, id: string, options: { lock?: boolean } = {}): Promise<ProductRow | undefined> {
  const [row] = await db.query<ProductRow>(
    `SELECT ${COLUMNS} FROM products WHERE id = $1 AND merchant_id = $2 AND mode = $3${options.lock ? ' FOR UPDATE' : ''}`,
    [id, scope.merchantId, scope.mode],
  );
  return row ? normalize(row) : undefined;
}

/** Writes every merchant field of a product (the caller merged the update) with a new change number. */
export async function updateProduct(tx: Queryable, scope: ProductScope, id: string, fields: ProductFields, now: Date): Promise<ProductRow> {
  const seq = await nextSeq(tx, scope);
  const [row] = await tx.query<ProductRow>(
    `UPDATE products SET name = $4, price = $5, currency = $6, sku = $7, barcode = $8, category = $9, tax_rate = $10, tax_inclusive = $11,
       image_url = $12, track_stock = $13, stock = $14, active = $15, updated_at = $16, server_seq = $17
     WHERE id = $1 AND merchant_id = $2 AND mode = $3 RETURNING ${COLUMNS}`,
    [
      id, scope.merchantId, scope.mode, fields.name, fields.price, fields.currency, fields.sku, fields.barcode, fields.category,
      fields.taxRate, fields.taxInclusive, fields.imageUrl, fields.trackStock, fields.stock, fields.active, now, seq,
    ],
  );
  return normalize(row!);
}

export async function setArchived(tx: Queryable, scope: ProductScope, id: string, archivedAt: Date | null, now: Date): Promise<ProductRow> {
  const seq = await nextSeq(tx, scope);
  const [row] = await tx.query<ProductRow>(
    `UPDATE products SET archived_at = $4, updated_at = $5, server_seq = $6 WHERE id = $1 AND merchant_id = $2 AND mode = $3 RETURNING ${COLUMNS}`,
    [id, scope.merchantId, scope.mode, archivedAt, now, seq],
  );
  return normalize(row!);
}

/** Whether another product not archived has this SKU (case-insensitive). */
export async function skuTaken(db: Queryable, scope: ProductScope, sku: string, exceptId: string | null): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM products WHERE merchant_id = $1 AND mode = $2 AND lower(sku) = lower($3) AND archived_at IS NULL AND ($4::text IS NULL OR id <> $4::text) LIMIT 1`,
    [scope.merchantId, scope.mode, sku, exceptId],
  );
  return rows.length > 0;
}

export interface ProductFilter {
  search?: string | undefined;
  category?: string | undefined;
  active?: boolean | undefined;
  archived: boolean;
}

/** Escapes LIKE's wildcards so a search is literal text. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

export async function listProducts(db: Queryable, scope: ProductScope, filter: ProductFilter, limit: number, offset: number): Promise<{ rows: ProductRow[]; total: number }> {
  const search = filter.search?.trim() ? filter.search.trim().toLowerCase() : null;
  const where = `merchant_id = $1 AND mode = $2
    AND (archived_at IS NOT NULL) = $3
    AND ($4::text IS NULL OR lower(name) LIKE '%' || $5::text || '%' OR lower(sku) LIKE $5::text || '%' OR lower(barcode) = $4::text)
    AND ($6::text IS NULL OR category = $6::text)
    AND ($7::boolean IS NULL OR active = $7::boolean)`;
  const params = [scope.merchantId, scope.mode, filter.archived, search, search === null ? null : likeLiteral(search), filter.category ?? null, filter.active ?? null];
  const rows = await db.query<ProductRow>(`SELECT ${COLUMNS} FROM products WHERE ${where} ORDER BY lower(name), id LIMIT $8 OFFSET $9`, [...params, limit, offset]);
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM products WHERE ${where}`, params);
  return { rows: rows.map(normalize), total: Number(count?.total ?? 0) };
}

/** The replica's pull: a merchant's products in one mode changed after `afterSeq`, in change order. */
export async function productsAfter(db: Queryable, merchantId: string, mode: Mode, afterSeq: number, limit: number): Promise<ProductRow[]> {
  const rows = await db.query<ProductRow>(
    `SELECT ${COLUMNS} FROM products WHERE merchant_id = $1 AND mode = $2 AND server_seq > $3 ORDER BY server_seq LIMIT $4`,
    [merchantId, mode, afterSeq, limit],
    { prepareAs: 'products_after' },
  );
  return rows.map(normalize);
}

/** The products a sale names, locked in id order (one order for every transaction: no deadlock). */
export async function lockProducts(tx: Queryable, scope: ProductScope, ids: readonly string[]): Promise<ProductRow[]> {
  if (ids.length === 0) return [];
  const rows = await tx.query<ProductRow>(
    `SELECT ${COLUMNS} FROM products WHERE merchant_id = $1 AND mode = $2 AND id = ANY($3::text[]) ORDER BY id FOR UPDATE`,
    [scope.merchantId, scope.mode, [...ids].sort()],
  );
  return rows.map(normalize);
}

export async function findProducts(db: Queryable, scope: ProductScope, ids: readonly string[]): Promise<ProductRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.query<ProductRow>(`SELECT ${COLUMNS} FROM products WHERE merchant_id = $1 AND mode = $2 AND id = ANY($3::text[])`, [scope.merchantId, scope.mode, [...ids]]);
  return rows.map(normalize);
}

/**
 * Moves the stock of tracked products by `delta` units each (negative: sold; positive: refunded),
 * with a new change number so the kiosks' replicas hear of it. Untracked products are left alone.
 * Answers the changed rows.
 */
export async function moveStock(tx: Queryable, scope: ProductScope, deltas: ReadonlyMap<string, number>, now: Date): Promise<ProductRow[]> {
  const changed: ProductRow[] = [];
  for (const [id, delta] of [...deltas].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (delta === 0) continue;
    const seq = await nextSeq(tx, scope);
    const [row] = await tx.query<ProductRow>(
      `UPDATE products SET stock = stock + $4, updated_at = $5, server_seq = $6
       WHERE id = $1 AND merchant_id = $2 AND mode = $3 AND track_stock RETURNING ${COLUMNS}`,
      [id, scope.merchantId, scope.mode, delta, now, seq],
    );
    if (row) changed.push(normalize(row));
  }
  return changed;
}
