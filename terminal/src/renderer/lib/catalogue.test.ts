// The kiosk's catalogue index: categories from the products, exact barcode and SKU lookups,
// word searches that ignore case and accents, archived and foreign-currency products left out,
// and every kind of search over 5,000 products (how fast is printed, never judged: CI runs on a
// loaded machine; `npm run bench:catalogue` times the search in the kiosk page).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import { CatalogueIndex, fold } from './catalogue.ts';
import { fakeCatalogue } from './catalogue-fixtures.ts';

describe('the catalogue index', () => {
  const products = fakeCatalogue(5_000);

  it('keeps only active products of the till currency, and derives the category tabs from them', () => {
    const index = new CatalogueIndex([...products, ...fakeCatalogue(3, 'GHS').map((p) => ({ ...p, id: `gh_${p.id}` }))], 'NGN');
    const archived = products.filter((p) => !p.active).length;
    assert.ok(archived > 0);
    assert.equal(index.size, 5_000 - archived);
    assert.deepEqual(index.categories, ['Bakery', 'Beauty', 'Drinks', 'Food', 'Household', 'Phones', 'Snacks', 'Stationery']);
    assert.ok(index.inCategory('Drinks').every((p) => p.category === 'Drinks'));
    assert.equal(index.inCategory('Drinks').length, 60);
  });

  it('finds a scanned barcode or SKU exactly, and nothing for a near miss or an archived product', () => {
    const index = new CatalogueIndex(products, 'NGN');
    assert.equal(index.byCode('6000000004321')?.id, 'prod_004321');
    assert.equal(index.byCode(' 6000000004321 ')?.id, 'prod_004321');
    assert.equal(index.byCode('SKU-42')?.id, 'prod_000042');
    assert.equal(index.byCode('600000000432'), null);
    assert.equal(index.byCode('6000000000001'), null, 'prod_000001 is archived');
  });

  it('matches every word at the start of a word of the name, ignoring case and accents; digits anywhere', () => {
    const index = new CatalogueIndex(products, 'NGN');
    const puff = index.search('PUFF 4', null, 1_000);
    assert.ok(puff.length > 0);
    assert.ok(puff.every((p) => p.name.startsWith('Puff puff') && p.name.includes('4')));
    assert.ok(index.search('cafe').every((p) => p.name.startsWith('Café')));
    assert.equal(index.search('cafe').length, 60);
    assert.deepEqual(index.search('uff'), [], 'the middle of a word does not match');
    assert.deepEqual(index.search('jollof', 'Drinks', 1_000).map((p) => p.category).filter((c) => c !== 'Drinks'), []);
    assert.equal(index.search('SKU-4321')[0]?.id, 'prod_004321');
    assert.equal(fold('ÉCOLE Café'), 'ecole cafe');
  });

  it('builds over 5,000 products and answers every kind of search over them (timings printed, not judged)', () => {
    let started = performance.now();
    const index = new CatalogueIndex(products, 'NGN');
    const buildMs = performance.now() - started;
    const queries = ['milk', 'puff 12', 'zobo 4999', 'x', '6000000001234', 'sku-77', 'cafe', 'no such thing at all'];
    let slowest = 0;
    const found = new Map<string, number>();
    for (const query of queries) {
      started = performance.now();
      found.set(query, index.search(query).length);
      index.search(query, 'Food');
      slowest = Math.max(slowest, performance.now() - started);
    }
    started = performance.now();
    const codes = Array.from({ length: 1_000 }, (_, i) => index.byCode(String(6_000_000_000_000 + i))?.id ?? null);
    const lookupMs = (performance.now() - started) / 1_000;
    console.log(`catalogue index over 5,000 products: built in ${buildMs.toFixed(1)} ms; slowest search ${slowest.toFixed(2)} ms; barcode lookup ${(lookupMs * 1000).toFixed(1)} µs (figures only)`);
    assert.equal(found.get('no such thing at all'), 0);
    assert.equal(found.get('6000000001234'), 1);
    assert.equal(index.search('6000000001234')[0]?.id, 'prod_001234');
    assert.ok((found.get('puff 12') ?? 0) > 0);
    assert.ok(index.search('puff 12').every((p) => p.name.startsWith('Puff puff') && p.name.includes('12')));
    // Every barcode an active product has is found, and only those.
    const active = new Set(products.filter((p) => p.active).map((p) => p.id));
    assert.deepEqual(codes.filter((id) => id !== null), codes.map((_, i) => `prod_${String(i).padStart(6, '0')}`).filter((id) => active.has(id)));
  });
});
