import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { ADMIN, useTestServer } from '../../testing/server.ts';
import { convertMinor, fxServiceRateSource } from '../fx/index.ts';
import { convertUp } from './pricing.ts';
import { HOUR, type Json, type Product, buyer, checkout, createProduct, testClock, uniqueSlug } from '../../testing/shop.ts';

type Page<T> = { data: T[]; total: number; limit: number; offset: number };

for (const target of await databaseTargets()) {
  describe(`store catalogue and admin on ${target.name}`, () => {
    const clock = testClock();
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 100 });
    const adminPost = (path: string, body: Json) => server().request<Json>('POST', path, { headers: ADMIN, body });

    it('admin creation validates: slug, duplicates 409, amounts, geo rules; DELETE archives', async () => {
      const s = server();
      const base = { name: 'Band', category: 'bands', basePrice: 10, baseCurrency: 'NGN', stock: 1 };
      for (const bad of [
        { slug: 'Has Caps' },
        { slug: 'under_score' },
        { slug: uniqueSlug(), basePrice: 1.234 },
        { slug: uniqueSlug(), basePrice: 0 },
        { slug: uniqueSlug(), basePrice: -5 },
        { slug: uniqueSlug(), basePrice: 1e13 },
        { slug: uniqueSlug(), baseCurrency: 'XYZ' },
        { slug: uniqueSlug(), stock: -1 },
        { slug: uniqueSlug(), geoMode: 'include' },
        { slug: uniqueSlug(), images: ['javascript:alert(1)'] },
        { slug: uniqueSlug(), variants: [{ name: 'A' }, { name: 'a' }] },
        { slug: uniqueSlug(), basePrice: 10.5, baseCurrency: 'UGX' },
      ]) {
        const refused = await adminPost('/api/admin/store/products', { ...base, ...bad });
        assert.equal(refused.status, 400, JSON.stringify(bad));
        assert.equal(typeof refused.body.code, 'string');
      }
      const unauthenticated = await s.request('POST', '/api/admin/store/products', { body: { ...base, slug: uniqueSlug() } });
      assert.equal(unauthenticated.status, 401);
      const slug = uniqueSlug('dup');
      assert.equal((await adminPost('/api/admin/store/products', { ...base, slug })).status, 201);
      const duplicate = await adminPost('/api/admin/store/products', { ...base, slug });
      assert.equal(duplicate.status, 409);
      assert.equal(duplicate.body.code, 'slug_taken');
      const product = await createProduct(s, { variants: [{ name: 'Size 8' }, { name: 'Size 9', priceDelta: 2.5 }], geoMode: 'include', availableCountries: ['ng', 'GH'] });
      assert.deepEqual(product.variants, [{ name: 'Size 8', priceDelta: 0 }, { name: 'Size 9', priceDelta: 2.5 }]);
      const detail = await s.request<Json>('GET', `/api/store/products/${product.slug}`);
      assert.deepEqual(detail.body.availableCountries, ['NG', 'GH']);
      assert.equal(detail.body.geoMode, 'include');
      const handle = await buyer(s, { fund: 500 });
      const noVariant = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234' });
      assert.equal(noVariant.status, 400);
      assert.equal(noVariant.body.code, 'variant_required');
      const kenya = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234', variantName: 'size 9', shippingCountry: 'KE' });
      assert.equal(kenya.status, 422);
      assert.equal(kenya.body.code, 'shipping_country_not_available');
      const sized = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234', variantName: 'size 9', quantity: 2 });
      assert.equal(sized.status, 201, JSON.stringify(sized.body));
      assert.equal(sized.body.order.payment.unitPrice, 52.5);
      assert.equal(sized.body.walletDebit, 105);
      assert.equal(sized.body.order.product.variantName, 'Size 9');

      const archived = await s.request<Product>('DELETE', `/api/admin/store/products/${product.id}`, { headers: ADMIN });
      assert.equal(archived.status, 200);
      assert.equal(archived.body.status, 'archived');
      assert.equal((await s.request('GET', `/api/store/products/${product.slug}`)).status, 404);
      const adminList = await s.request<Page<Product>>('GET', '/api/admin/store/products?status=archived&limit=100', { headers: ADMIN });
      assert.ok(adminList.body.data.some((item) => item.id === product.id));
      assert.equal((await s.request('PATCH', '/api/admin/store/products/prod_nope', { headers: ADMIN, body: { stock: 1 } })).status, 404);
    });

    it('seeds 9 sample NFC products once; listing filters, searches, sorts, pages and converts prices', async () => {
      const s = server();
      const first = await s.request<{ created: number; existing: number; products: Product[] }>('POST', '/api/admin/store/seed', { headers: ADMIN, body: {} });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.equal(first.body.created, 9);
      assert.equal(first.body.existing, 0);
      assert.deepEqual([...new Set(first.body.products.map((p) => p.category as string))].sort(), ['bands', 'cards', 'keychains', 'rings', 'stickers', 'watches']);
      assert.ok(first.body.products.every((p) => p.images.every((image) => image.startsWith('/store/images/')) && p.baseCurrency === 'USD' && p.stock > 0));
      const second = await s.request<{ created: number; existing: number; products: Product[] }>('POST', '/api/admin/store/seed', { headers: ADMIN, body: {} });
      assert.equal(second.status, 200);
      assert.equal(second.body.created, 0);
      assert.equal(second.body.existing, 9);
      assert.deepEqual(second.body.products.map((p) => p.id).sort(), first.body.products.map((p) => p.id).sort());
      const liveSeed = await s.request<{ created: number }>('POST', '/api/admin/store/seed', { headers: ADMIN, body: { mode: 'live' } });
      assert.equal(liveSeed.body.created, 9, 'the live catalogue is separate');

      const draft = await createProduct(s, { name: 'Hidden draft ring', category: 'rings', status: 'draft' });
      const bands = await s.request<Page<Product>>('GET', '/api/store/products?category=bands');
      assert.equal(bands.status, 200);
      assert.ok(bands.body.data.every((p) => p.category === 'bands'));
      assert.equal(bands.body.total, bands.body.data.length);
      assert.deepEqual(bands.body.data.map((p) => p.slug).filter((slug) => !slug.startsWith('dup-')), ['silicone-tap-band', 'woven-festival-band']);
      const rings = await s.request<Page<Product>>('GET', '/api/store/products?category=rings&limit=100');
      assert.ok(!rings.body.data.some((p) => p.id === draft.id), 'drafts are not listed');
      const search = await s.request<Page<Product>>('GET', '/api/store/products?search=WATCH');
      assert.deepEqual(search.body.data.map((p) => p.slug), ['tapline-pay-watch']);
      const literal = await s.request<Page<Product>>('GET', `/api/store/products?search=${encodeURIComponent('%')}`);
      assert.equal(literal.body.total, 0, 'wildcards match literally');
      const cheap = await s.request<Page<Product>>('GET', '/api/store/products?sort=price_asc&limit=3&category=stickers');
      assert.deepEqual(cheap.body.data.map((p) => p.basePrice), [4.5, 12]);
      const dear = await s.request<Page<Product>>('GET', '/api/store/products?sort=price_desc&limit=1');
      assert.equal(dear.body.data[0]?.slug, 'tapline-pay-watch');
      const byName = await s.request<Page<Product>>('GET', '/api/store/products?sort=name&limit=100');
      const names = byName.body.data.map((p) => p.name.toLowerCase());
      assert.deepEqual(names, [...names].sort());
      assert.ok(names.length >= 9);
      const page1 = await s.request<Page<Product>>('GET', '/api/store/products?limit=4&offset=0');
      const page2 = await s.request<Page<Product>>('GET', '/api/store/products?limit=4&offset=4');
      assert.equal(page1.body.limit, 4);
      assert.equal(page2.body.offset, 4);
      assert.equal(page1.body.total, page2.body.total);
      assert.equal(new Set([...page1.body.data, ...page2.body.data].map((p) => p.id)).size, 8);
      for (const bad of ['sort=cheapest', 'limit=0', 'limit=101', 'offset=-1', 'walletCurrency=XXX', 'walletCurrency=US']) {
        const refused = await s.request<Json>('GET', `/api/store/products?${bad}`);
        assert.equal(refused.status, 400, bad);
      }
      const { rate } = await fxServiceRateSource(s.context.fx).rate('USD', 'KES');
      const priced = await s.request<Page<Product>>('GET', '/api/store/products?walletCurrency=kes&category=cards&sort=price_asc');
      assert.equal(priced.status, 200);
      const card = priced.body.data[0]!;
      assert.equal(card.basePrice, 9.99);
      assert.equal(card.priceInWalletCurrency, convertUp(999, 'USD', 'KES', rate) / 100);
      assert.equal(card.walletCurrency, 'KES');
      assert.equal(card.walletFxRate, Number(rate));
      const plain = await s.request<Page<Product>>('GET', '/api/store/products?category=cards');
      assert.ok(plain.body.data.every((p) => !('priceInWalletCurrency' in p)));
      assert.equal((await s.request('GET', '/api/store/products/no-such-slug')).status, 404);
    });

    it('flash sales: admin create, overlap 409, listed while running with time left, end early, clock-driven', async () => {
      const s = server();
      const product = await createProduct(s, { basePrice: 80, stock: 10 });
      const now = clock.now().getTime();
      const body = { productId: product.id, name: 'Midday deal', discountType: 'fixed', discountValue: 15.5, startAt: new Date(now + HOUR).toISOString(), endAt: new Date(now + 3 * HOUR).toISOString(), maxUnits: 4 };
      for (const bad of [{ discountValue: 80 }, { discountType: 'percent', discountValue: 100 }, { discountType: 'percent', discountValue: 12.345 }, { endAt: new Date(now + HOUR).toISOString() }, { discountValue: 0 }, { maxUnits: 0 }]) {
        assert.equal((await adminPost('/api/admin/store/flash-sales', { ...body, ...bad })).status, 400, JSON.stringify(bad));
      }
      assert.equal((await adminPost('/api/admin/store/flash-sales', { ...body, productId: 'prod_missing' })).status, 404);
      const created = await adminPost('/api/admin/store/flash-sales', body);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.salePrice, 64.5);
      assert.equal(created.body.state, 'scheduled');
      const overlap = await adminPost('/api/admin/store/flash-sales', { ...body, startAt: new Date(now + 2 * HOUR).toISOString(), endAt: new Date(now + 5 * HOUR).toISOString() });
      assert.equal(overlap.status, 409);
      assert.equal(overlap.body.code, 'flash_sale_overlaps');

      const activeIds = async () => (await s.request<Page<Json>>('GET', '/api/store/flash-sales/active')).body.data.map((sale) => sale.id);
      assert.ok(!(await activeIds()).includes(created.body.id), 'not before startAt');
      clock.advance(HOUR + 30 * 60_000);
      const active = await s.request<Page<Json>>('GET', '/api/store/flash-sales/active');
      const listed = active.body.data.find((sale) => sale.id === created.body.id);
      assert.ok(listed);
      assert.equal(listed.timeRemainingSeconds, 90 * 60);
      assert.equal(listed.unitsLeft, 4);
      assert.equal(listed.discountValue, 15.5);
      const shown = await s.request<Product>('GET', `/api/store/products/${product.slug}`);
      assert.equal(shown.body.price, 64.5);
      assert.equal((shown.body.flashSale as Json).timeRemainingSeconds, 90 * 60);
      const handle = await buyer(s, { fund: 500 });
      const bought = await checkout(s, { productSlug: product.slug, quantity: 2, buyerHandle: handle, walletPin: '1234' });
      assert.equal(bought.status, 201);
      assert.equal(bought.body.walletDebit, 129);
      const tooMany = await checkout(s, { productSlug: product.slug, quantity: 3, buyerHandle: handle, walletPin: '1234' });
      assert.equal(tooMany.status, 409);
      assert.equal(tooMany.body.code, 'flash_sale_sold_out');

      const ended = await s.request<Json>('PATCH', `/api/admin/store/flash-sales/${created.body.id}`, { headers: ADMIN, body: { status: 'ended' } });
      assert.equal(ended.status, 200, JSON.stringify(ended.body));
      assert.equal(ended.body.state, 'ended');
      assert.equal(ended.body.unitsSold, 2);
      assert.ok(!(await activeIds()).includes(created.body.id));
      const full = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234' });
      assert.equal(full.body.walletDebit, 80, 'the regular price once the sale ended');
      const again = await s.request<Json>('PATCH', `/api/admin/store/flash-sales/${created.body.id}`, { headers: ADMIN, body: { status: 'active' } });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'flash_sale_ended');

      const next = await adminPost('/api/admin/store/flash-sales', { ...body, discountType: 'percent', discountValue: 10, startAt: clock.now().toISOString(), endAt: new Date(clock.now().getTime() + HOUR).toISOString() });
      assert.equal(next.status, 201, JSON.stringify(next.body));
      assert.ok((await activeIds()).includes(next.body.id));
      clock.advance(HOUR);
      assert.ok(!(await activeIds()).includes(next.body.id), 'ended by the clock');
      const all = await s.request<Page<Json>>('GET', '/api/admin/store/flash-sales?limit=100', { headers: ADMIN });
      assert.deepEqual(all.body.data.filter((sale) => sale.productId === product.id).map((sale) => sale.state), ['ended', 'ended']);
    });
  });

  describe(`store stats on ${target.name}`, () => {
    const clock = testClock();
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 100 });

    it('counts products, orders, pending orders, reviews, rating and revenue per currency and in one currency', async () => {
      const s = server();
      const empty = await s.request<Json>('GET', '/api/admin/store/stats?mode=live', { headers: ADMIN });
      assert.deepEqual(empty.body, { totalProducts: 0, totalOrders: 0, totalRevenue: 0, revenueCurrency: 'USD', revenueByCurrency: [], totalReviews: 0, pendingOrders: 0, avgRating: null, mode: 'live' });
      const ngn = await createProduct(s, { basePrice: 1000, stock: 10 });
      const usd = await createProduct(s, { basePrice: 12.5, baseCurrency: 'USD', stock: 10 });
      const archived = await createProduct(s, { basePrice: 1, stock: 1 });
      await s.request('DELETE', `/api/admin/store/products/${archived.id}`, { headers: ADMIN });
      const handle = await buyer(s, { fund: 100_000 });
      const first = await checkout(s, { productSlug: ngn.slug, quantity: 2, buyerHandle: handle, walletPin: '1234' });
      const second = await checkout(s, { productSlug: usd.slug, buyerHandle: handle, walletPin: '1234' });
      const third = await checkout(s, { productSlug: ngn.slug, buyerHandle: handle, walletPin: '1234' });
      assert.deepEqual([first.status, second.status, third.status], [201, 201, 201]);
      await s.request('PATCH', `/api/admin/store/orders/${first.body.order.id}`, { headers: ADMIN, body: { status: 'fulfilled' } });
      await s.request('PATCH', `/api/admin/store/orders/${third.body.order.id}`, { headers: ADMIN, body: { status: 'refunded' } });
      const review = await s.request('POST', '/api/store/reviews', { body: { productSlug: ngn.slug, buyerHandle: handle, walletPin: '1234', orderId: first.body.order.id, rating: 4 } });
      assert.equal(review.status, 201);
      const rate = (await fxServiceRateSource(s.context.fx).rate('NGN', 'USD')).rate;
      const stats = await s.request<Json>('GET', '/api/admin/store/stats', { headers: ADMIN });
      assert.equal(stats.status, 200, JSON.stringify(stats.body));
      assert.deepEqual(stats.body, {
        totalProducts: 2,
        totalOrders: 3,
        totalRevenue: (1250 + convertMinor(200_000, 'NGN', 'USD', rate, 'half_up')) / 100,
        revenueCurrency: 'USD',
        revenueByCurrency: [
          { currency: 'NGN', amount: 2000, orders: 1 },
          { currency: 'USD', amount: 12.5, orders: 1 },
        ],
        totalReviews: 1,
        pendingOrders: 1,
        avgRating: 4,
        mode: 'test',
      });
      const inNaira = await s.request<Json>('GET', '/api/admin/store/stats?currency=NGN', { headers: ADMIN });
      const usdRate = (await fxServiceRateSource(s.context.fx).rate('USD', 'NGN')).rate;
      assert.equal(inNaira.body.totalRevenue, (200_000 + convertMinor(1250, 'USD', 'NGN', usdRate, 'half_up')) / 100);
      assert.equal(inNaira.body.revenueCurrency, 'NGN');
      assert.equal((await s.request('GET', '/api/admin/store/stats?currency=ABC', { headers: ADMIN })).status, 400);
    });

    it('every store route is in the published OpenAPI document with its rules', async () => {
      const s = server();
      const docs = await s.request<{ paths: Record<string, Record<string, { description?: string }>> }>('GET', '/docs/json');
      assert.equal(docs.status, 200);
      for (const [path, method] of [
        ['/api/store/products', 'get'],
        ['/api/store/products/{slug}', 'get'],
        ['/api/store/checkout', 'post'],
        ['/api/store/orders/{id}', 'get'],
        ['/api/store/my-orders', 'post'],
        ['/api/store/flash-sales/active', 'get'],
        ['/api/store/reviews', 'post'],
        ['/api/store/stock-alerts', 'post'],
        ['/api/store/referrals/validate', 'post'],
        ['/api/wallet/notifications', 'get'],
        ['/api/admin/store/products', 'post'],
        ['/api/admin/store/products/{id}', 'delete'],
        ['/api/admin/store/seed', 'post'],
        ['/api/admin/store/flash-sales/{id}', 'patch'],
        ['/api/admin/store/orders/{id}', 'patch'],
        ['/api/admin/store/stats', 'get'],
      ] as const) {
        assert.ok(docs.body.paths[path]?.[method], `${method} ${path}`);
      }
      assert.match(docs.body.paths['/api/store/checkout']!.post!.description ?? '', /store_revenue/);
    });
  });
}
