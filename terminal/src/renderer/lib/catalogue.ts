import type { RxJsonSchema } from 'rxdb';
import type { ProductDoc as ReplicatedProductDoc } from '@tapline/shared/sync-protocol';
import { ProductDocument, rxJsonSchema } from '@tapline/shared/sync-documents';

/**
 * The merchant's catalogue on the kiosk: the `products` collection the sync server replicates
 * (pull only: the kiosk never writes a product) and an in-memory index built from it, so the
 * cashier finds an item by category, by name or SKU, or by its barcode in a few milliseconds
 * among thousands, offline too.
 *
 * Amounts are minor units and tax rates basis points, like the rest of the sync protocol (the
 * JSON API speaks major units and percents).
 */
/** A product as the replica keeps it (shared/src/sync-protocol.ts; RxDB keeps `_deleted` itself). */
export type ProductDoc = Omit<ReplicatedProductDoc, '_deleted'>;

/** RxDB schema of the replicated products (no index: the kiosk searches its in-memory index). */
export const PRODUCT_SCHEMA = rxJsonSchema(ProductDocument, {
  title: 'product',
  version: 0,
  primaryKey: 'id',
}) as unknown as RxJsonSchema<ProductDoc>;

/** Folds case and accents, so "cafe" finds "Café" and "CAFÉ". */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase();
}

/** What the search reads of a product: its name's words, its SKU and barcode. */
function searchText(product: ProductDoc): string {
  return fold([product.name, product.sku ?? '', product.barcode ?? ''].join(' '));
}

/** The sellable products of one currency (the till sells in the merchant's). */
export function sellable(product: ProductDoc, currency: string): boolean {
  return product.active && product.currency === currency;
}

/** One collator for every sort (far faster than localeCompare over thousands of names). */
const BY_NAME = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** How many results a search answers at most (a screenful is fewer). */
export const SEARCH_RESULTS_MAX = 60;

/**
 * An index of the replica's products, rebuilt when the collection changes (a few ms for 5,000):
 * barcode and SKU lookups are exact (a map), categories are the products' own category strings,
 * and a search matches every word of the query at the start of a word of the name, or anywhere
 * in the SKU or barcode.
 */
export class CatalogueIndex {
  readonly #products: ProductDoc[];
  readonly #texts: string[];
  readonly #byCode = new Map<string, ProductDoc>();
  readonly #categories: string[];

  constructor(products: Iterable<ProductDoc>, currency: string) {
    const kept = [...products].filter((product) => sellable(product, currency));
    kept.sort((a, b) => BY_NAME.compare(a.name, b.name));
    this.#products = kept;
    this.#texts = kept.map(searchText);
    const categories = new Set<string>();
    for (const product of kept) {
      if (product.barcode !== null && product.barcode !== '') this.#byCode.set(product.barcode, product);
      if (product.category !== null && product.category !== '') categories.add(product.category);
    }
    // A SKU answers a scan too, unless a barcode already does.
    for (const product of kept) if (product.sku !== null && product.sku !== '' && !this.#byCode.has(product.sku)) this.#byCode.set(product.sku, product);
    this.#categories = [...categories].sort(BY_NAME.compare);
  }

  get size(): number {
    return this.#products.length;
  }

  /** The categories, sorted: the tabs at the till. */
  get categories(): readonly string[] {
    return this.#categories;
  }

  /** Exact lookup of a scanned code (a barcode, else a SKU). */
  byCode(code: string): ProductDoc | null {
    return this.#byCode.get(code.trim()) ?? null;
  }

  /** The products of a category (null: every product), by name. */
  inCategory(category: string | null, limit = SEARCH_RESULTS_MAX): ProductDoc[] {
    if (category === null) return this.#products.slice(0, limit);
    const found: ProductDoc[] = [];
    for (const product of this.#products) {
      if (product.category === category) found.push(product);
      if (found.length === limit) break;
    }
    return found;
  }

  /** Products whose name, SKU or barcode matches every word of the query, within a category or not. */
  search(query: string, category: string | null = null, limit = SEARCH_RESULTS_MAX): ProductDoc[] {
    const words = fold(query).split(/\s+/).filter(Boolean);
    if (words.length === 0) return this.inCategory(category, limit);
    const found: ProductDoc[] = [];
    for (let index = 0; index < this.#products.length && found.length < limit; index += 1) {
      const product = this.#products[index]!;
      if (category !== null && product.category !== category) continue;
      const text = this.#texts[index]!;
      if (words.every((word) => matchesWord(text, word))) found.push(product);
    }
    return found;
  }
}

/** `word` at the start of a word of `text`, or anywhere in it when it has digits (SKUs, barcodes). */
function matchesWord(text: string, word: string): boolean {
  let at = text.indexOf(word);
  if (/\d/.test(word)) return at !== -1;
  while (at !== -1) {
    if (at === 0 || !/[\p{L}\p{N}]/u.test(text[at - 1]!)) return true;
    at = text.indexOf(word, at + 1);
  }
  return false;
}
