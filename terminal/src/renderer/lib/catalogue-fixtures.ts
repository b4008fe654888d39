import type { ProductDoc } from './catalogue.ts';

const CATEGORIES = ['Drinks', 'Food', 'Snacks', 'Household', 'Beauty', 'Phones', 'Stationery', 'Bakery'];
const WORDS = ['Jollof', 'Suya', 'Malt', 'Zobo', 'Chin chin', 'Puff puff', 'Garri', 'Indomie', 'Milo', 'Peak milk', 'Bread', 'Soap', 'Airtime', 'Biro', 'Café'];

/** A made-up catalogue of `count` products: names, SKUs, barcodes and categories that repeat predictably. */
export function fakeCatalogue(count: number, currency = 'NGN'): ProductDoc[] {
  return Array.from({ length: count }, (_, index): ProductDoc => ({
    id: `prod_${String(index).padStart(6, '0')}`,
    name: `${WORDS[index % WORDS.length]} ${index}`,
    priceMinor: 100 + ((index * 37) % 10_000),
    currency,
    sku: `SKU-${index}`,
    barcode: String(6_000_000_000_000 + index),
    category: CATEGORIES[index % CATEGORIES.length]!,
    taxRate: index % 3 === 0 ? 750 : 0,
    taxInclusive: index % 2 === 0,
    imageUrl: null,
    trackStock: index % 5 === 0,
    stock: index % 5 === 0 ? 10 : null,
    active: index % 97 !== 1,
    updatedAt: '2026-11-24T12:00:00.000Z',
    serverSeq: index + 1,
  }));
}
