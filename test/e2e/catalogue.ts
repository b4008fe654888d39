// A large catalogue for the kiosk's tests and the catalogue benchmark: products seeded straight
// into the database (creating them is the API's tests' business), and the kiosk page's search
// run inside the page, each query with what it found and how long it took there.
import type { Page } from 'playwright-core';
import type { TestServer } from '@tapline/sync-server/testing';

/** `count` products 'Item 0001'... priced 1.01..., SKU-<i>, barcode 6000000000000 + i, in 12 categories 'Cat 00'..'Cat 11'. */
export async function seedCatalogue(s: Pick<TestServer, 'db'>, merchantId: string, count: number): Promise<void> {
  await s.db.query(
    `INSERT INTO products (id, merchant_id, mode, name, price, currency, sku, barcode, category, created_at, updated_at, server_seq)
     SELECT 'prod_bench' || i, $1, 'test', 'Item ' || lpad(i::text, 4, '0'), 100 + i, 'NGN', 'SKU-' || i, (6000000000000 + i)::text, 'Cat ' || lpad((i % 12)::text, 2, '0'), now(), now(), i
     FROM generate_series(1, $2::int) AS i`,
    [merchantId, count],
  );
  await s.db.query(`INSERT INTO product_sync_heads (merchant_id, mode, seq) VALUES ($1, 'test', $2)`, [merchantId, count]);
}

export interface SearchResult {
  query: string;
  /** The first product's name shown, or null when none. */
  first: string | null;
  /** Its price as shown. */
  firstPrice: string | null;
  count: number;
  /** From the search field changing to the grid checked right after, inside the page. */
  ms: number;
}

/** Types each query into the sale screen's search field (in the page) and reads the grid right after. */
export function searchInPage(page: Page, queries: string[]): Promise<SearchResult[]> {
  return page.evaluate<SearchResult[]>(`(async () => {
    const input = document.querySelector('#item-search');
    const out = [];
    for (const query of ${JSON.stringify(queries)}) {
      const started = performance.now();
      input.value = query;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await new Promise((resolve) => setTimeout(resolve, 0));
      const buttons = document.querySelectorAll('#items button[data-product]');
      out.push({ query, ms: performance.now() - started, first: buttons[0] ? buttons[0].querySelector('.name').textContent : null, firstPrice: buttons[0] ? buttons[0].querySelector('.price').textContent : null, count: buttons.length });
    }
    return out;
  })()`);
}
