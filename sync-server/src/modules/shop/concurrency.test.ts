import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { ADMIN, useTestServer } from '../../testing/server.ts';
import { checkLedger } from '../../ledger/check.ts';
import { balanceMinor, buyer, checkout, createProduct, stockOf, systemBalance, testClock } from '../../testing/shop.ts';

for (const target of await databaseTargets()) {
  describe(`store checkout under concurrency on ${target.name}`, () => {
    const clock = testClock();
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 100 });

    it('50 concurrent checkouts of a product with stock 10: exactly 10 orders, 40 refused 409, no money taken from them', async () => {
      const s = server();
      const product = await createProduct(s, { basePrice: 20, stock: 10 });
      const buyers = await Promise.all(Array.from({ length: 50 }, () => buyer(s, { fund: 100 })));
      const revenueBefore = await systemBalance(s, 'store_revenue', 'NGN');
      const results = await Promise.all(buyers.map((handle) => checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234' })));
      const paid = results.flatMap((result, index) => (result.status === 201 ? [buyers[index]!] : []));
      const refused = results.flatMap((result, index) => (result.status === 409 ? [buyers[index]!] : []));
      assert.equal(paid.length, 10, JSON.stringify(results.filter((r) => r.status !== 201 && r.status !== 409).map((r) => r.body)));
      assert.equal(refused.length, 40);
      assert.ok(results.filter((r) => r.status === 409).every((r) => r.body.code === 'out_of_stock'));
      assert.equal(await stockOf(s, product.id), 0);
      for (const handle of paid) assert.equal(await balanceMinor(s, handle, 'NGN'), 8000, handle);
      for (const handle of refused) assert.equal(await balanceMinor(s, handle, 'NGN'), 10_000, handle);
      assert.equal(await systemBalance(s, 'store_revenue', 'NGN'), revenueBefore + 10 * 2000);
      const [orders] = await s.db.query<{ count: number }>('SELECT count(*)::int8 AS count FROM store_orders WHERE product_id = $1', [product.id]);
      assert.equal(orders?.count, 10);
      const report = await checkLedger(s.db);
      assert.deepEqual(report.violations, []);
    });

    it('a flash sale\'s maxUnits holds under concurrency: 5 units at the sale price for 20 buyers', async () => {
      const s = server();
      const product = await createProduct(s, { basePrice: 40, stock: 100 });
      const sale = await s.request<{ id: string; salePrice: number }>('POST', '/api/admin/store/flash-sales', {
        headers: ADMIN,
        body: {
          productId: product.id,
          name: 'Launch hour',
          discountType: 'percent',
          discountValue: 25,
          startAt: new Date(clock.now().getTime() - 60_000).toISOString(),
          endAt: new Date(clock.now().getTime() + 3_600_000).toISOString(),
          maxUnits: 5,
        },
      });
      assert.equal(sale.status, 201, JSON.stringify(sale.body));
      assert.equal(sale.body.salePrice, 30);
      const buyers = await Promise.all(Array.from({ length: 20 }, () => buyer(s, { fund: 100 })));
      const results = await Promise.all(buyers.map((handle) => checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234' })));
      const atSalePrice = results.filter((r) => r.status === 201 && r.body.order.payment.flashSaleId === sale.body.id);
      assert.equal(atSalePrice.length, 5);
      assert.ok(atSalePrice.every((r) => r.body.walletDebit === 30));
      // Every other buyer was either refused (the sale ran out while the request was priced at it) or
      // priced after it ran out, at the regular price: nobody pays a price the request was not priced at.
      const others = results.filter((r) => !atSalePrice.includes(r));
      assert.ok(others.every((r) => (r.status === 409 && r.body.code === 'flash_sale_sold_out') || (r.status === 201 && r.body.walletDebit === 40 && r.body.order.payment.flashSaleId === null)), JSON.stringify(others.map((r) => [r.status, r.body.code])));
      const [row] = await s.db.query<{ units_sold: number }>('SELECT units_sold FROM store_flash_sales WHERE id = $1', [sale.body.id]);
      assert.equal(row?.units_sold, 5);
      const paidCount = results.filter((r) => r.status === 201).length;
      assert.equal(await stockOf(s, product.id), 100 - paidCount);
      for (const [index, result] of results.entries()) {
        const expected = result.status === 201 ? 10_000 - result.body.walletDebit * 100 : 10_000;
        assert.equal(await balanceMinor(s, buyers[index]!, 'NGN'), expected);
      }
      const active = await s.request<{ data: { id: string }[] }>('GET', '/api/store/flash-sales/active');
      assert.ok(!active.body.data.some((item) => item.id === sale.body.id), 'a sold-out sale is no longer listed as active');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
