import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { ADMIN, useTestServer } from '../../testing/server.ts';
import { checkLedger } from '../../ledger/check.ts';
import { fxServiceRateSource } from '../fx/index.ts';
import { convertUp } from './pricing.ts';
import {
  type Json,
  type Order,
  balanceMinor,
  buyer,
  cardIssuer,
  cardOf,
  checkout,
  createProduct,
  issueCard,
  stockOf,
  systemBalance,
  testClock,
} from '../../testing/shop.ts';

for (const target of await databaseTargets()) {
  describe(`store orders, refunds and reviews on ${target.name}`, () => {
    const clock = testClock();
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 100 });
    const patch = (id: string, body: Json) => server().request<Order & Json>('PATCH', `/api/admin/store/orders/${id}`, { headers: ADMIN, body });

    it('a refund of a mixed order restores the wallet and the gift card exactly, and the stock; a second refund is 409', async () => {
      const s = server();
      const issuer = await cardIssuer(s);
      const product = await createProduct(s, { basePrice: 35.5, stock: 4 });
      const handle = await buyer(s, { fund: 100 });
      const card = await issueCard(s, issuer, { amount: 50, currency: 'NGN' });
      const liabilityBefore = await systemBalance(s, 'gift_card_liability', 'NGN');
      const revenueBefore = await systemBalance(s, 'store_revenue', 'NGN');
      const paid = await checkout(s, { productSlug: product.slug, quantity: 2, buyerHandle: handle, walletPin: '1234', giftCardCode: card.code });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      assert.equal(paid.body.giftCardDebit, 50);
      assert.equal(paid.body.walletDebit, 21);
      assert.equal(await balanceMinor(s, handle, 'NGN'), 7900);
      assert.equal((await cardOf(s, card.id)).status, 'used');
      assert.equal(await stockOf(s, product.id), 2);

      const refunded = await patch(paid.body.order.id, { status: 'refunded', note: 'Damaged in transit' });
      assert.equal(refunded.status, 200, JSON.stringify(refunded.body));
      assert.equal(refunded.body.status, 'refunded');
      assert.equal(await balanceMinor(s, handle, 'NGN'), 10_000, 'the wallet part is back');
      const cardAfter = await cardOf(s, card.id);
      assert.equal(cardAfter.status, 'active', 'a used card is active again');
      assert.equal(cardAfter.amountRemaining, 50);
      assert.equal(await systemBalance(s, 'gift_card_liability', 'NGN'), liabilityBefore);
      assert.equal(await systemBalance(s, 'store_revenue', 'NGN'), revenueBefore);
      assert.equal(await stockOf(s, product.id), 4);
      const last = refunded.body.timeline.at(-1);
      assert.equal(last?.status, 'refunded');
      assert.match(last?.note ?? '', /Returned 71 NGN.*21 NGN to the wallet.*50 NGN to the gift card.*2 back in stock.*Damaged in transit/);

      const again = await patch(paid.body.order.id, { status: 'refunded' });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'invalid_transition');
      assert.equal(await balanceMinor(s, handle, 'NGN'), 10_000);
      // The card can be spent again.
      const reuse = await checkout(s, { productSlug: product.slug, buyerHandle: handle, giftCardCode: card.code });
      assert.equal(reuse.status, 201);
      assert.equal(reuse.body.giftCardDebit, 35.5);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('order states: forward transitions, invalid ones 409, cancelling a paid FX order refunds the exact amount charged', async () => {
      const s = server();
      const product = await createProduct(s, { basePrice: 3.33, baseCurrency: 'USD', stock: 10 });
      const handle = await buyer(s, { fund: 50_000 });
      const first = await checkout(s, { productSlug: product.slug, quantity: 3, buyerHandle: handle, walletPin: '1234' });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const id = first.body.order.id;
      assert.equal((await patch(id, { status: 'shipped' })).status, 409);
      assert.equal((await patch(id, { status: 'paid' })).status, 400, 'not a target state');
      for (const status of ['fulfilled', 'shipped', 'delivered']) {
        const moved = await patch(id, { status });
        assert.equal(moved.status, 200, JSON.stringify(moved.body));
        assert.equal(moved.body.status, status);
      }
      const cancelDelivered = await patch(id, { status: 'cancelled' });
      assert.equal(cancelDelivered.status, 409);
      const history = await s.request<Order>('GET', `/api/admin/store/orders/${id}`, { headers: ADMIN });
      assert.deepEqual(history.body.timeline.map((entry) => entry.status), ['paid', 'fulfilled', 'shipped', 'delivered']);

      const { rate } = await fxServiceRateSource(s.context.fx).rate('USD', 'NGN');
      const charged = convertUp(999, 'USD', 'NGN', rate);
      const before = await balanceMinor(s, handle, 'NGN');
      const second = await checkout(s, { productSlug: product.slug, quantity: 3, buyerHandle: handle, walletPin: '1234' });
      assert.equal(second.status, 201);
      assert.equal(await balanceMinor(s, handle, 'NGN'), before - charged);
      const cancelled = await patch(second.body.order.id, { status: 'cancelled', restock: false });
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.status, 'cancelled');
      assert.equal(await balanceMinor(s, handle, 'NGN'), before, 'exactly what was charged comes back');
      assert.equal(await stockOf(s, product.id), 4, 'restock false keeps the units out');
      assert.equal((await patch(second.body.order.id, { status: 'refunded' })).status, 409);
      const events = await s.db.query<{ type: string }>('SELECT type FROM events WHERE body LIKE $1 ORDER BY created_at, type', [`%${second.body.order.id}%`]);
      assert.deepEqual(events.map((event) => event.type).sort(), ['store.order.cancelled', 'store.order.paid']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('the public order view masks the shipping phone and address; unknown id 404', async () => {
      const s = server();
      const product = await createProduct(s, { basePrice: 5 });
      const handle = await buyer(s, { fund: 10 });
      const paid = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234', notes: 'gate code 4455' });
      const view = await s.request<Order>('GET', `/api/store/orders/${paid.body.order.id}`);
      assert.equal(view.status, 200);
      assert.equal(view.body.shipping.phone, '+*********0142');
      assert.equal(view.body.shipping.address, '12 M****');
      assert.equal(view.body.shipping.city, 'Lagos');
      assert.equal(view.body.notes, null);
      assert.equal(view.body.payment.total, 5);
      assert.ok(!JSON.stringify(view.body).includes('1234'));
      const missing = await s.request('GET', '/api/store/orders/ord_00000000000000000000000000000000');
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, 'order_not_found');
    });

    it('reviews need the buyer\'s own paid order of that product, once, rating 1..5; the summary follows', async () => {
      const s = server();
      const product = await createProduct(s, { basePrice: 5, stock: 10 });
      const otherProduct = await createProduct(s, { basePrice: 5, stock: 10 });
      const handle = await buyer(s, { fund: 100 });
      const stranger = await buyer(s, { fund: 100 });
      const order = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234' });
      const otherOrder = await checkout(s, { productSlug: otherProduct.slug, buyerHandle: handle, walletPin: '1234' });
      const review = (body: Json) => s.request<Json>('POST', '/api/store/reviews', { body: { productSlug: product.slug, buyerHandle: handle, walletPin: '1234', orderId: order.body.order.id, rating: 5, ...body } });

      const noOrder = await review({ buyerHandle: stranger });
      assert.equal(noOrder.status, 403);
      assert.equal(noOrder.body.code, 'order_not_owned');
      const unknownOrder = await review({ orderId: 'ord_ffffffffffffffffffffffffffffffff' });
      assert.equal(unknownOrder.status, 403);
      const wrongProduct = await review({ orderId: otherOrder.body.order.id });
      assert.equal(wrongProduct.status, 422);
      assert.equal(wrongProduct.body.code, 'order_product_mismatch');
      for (const rating of [0, 6, 2.5]) assert.equal((await review({ rating })).status, 400, `rating ${rating}`);
      assert.equal((await review({ title: 'x'.repeat(121) })).status, 400);
      assert.equal((await review({ walletPin: '9999' })).status, 403);

      const created = await review({ rating: 4, title: 'Snug fit', body: 'Pays at every kiosk.' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.rating, 4);
      assert.equal(created.body.buyerHandle, `@${handle}`);
      const second = await review({ rating: 2 });
      assert.equal(second.status, 409);
      assert.equal(second.body.code, 'review_exists');

      const strangerOrder = await checkout(s, { productSlug: product.slug, buyerHandle: stranger, walletPin: '1234' });
      const cancelled = await patch(strangerOrder.body.order.id, { status: 'cancelled' });
      assert.equal(cancelled.status, 200);
      const notEligible = await review({ buyerHandle: stranger, orderId: strangerOrder.body.order.id });
      assert.equal(notEligible.status, 422);
      assert.equal(notEligible.body.code, 'order_not_eligible');
      const strangerAgain = await checkout(s, { productSlug: product.slug, buyerHandle: stranger, walletPin: '1234' });
      assert.equal((await review({ buyerHandle: stranger, orderId: strangerAgain.body.order.id, rating: 1 })).status, 201);

      const detail = await s.request<{ reviews: { count: number; avgRating: number; recent: Json[] } }>('GET', `/api/store/products/${product.slug}`);
      assert.equal(detail.status, 200);
      assert.equal(detail.body.reviews.count, 2);
      assert.equal(detail.body.reviews.avgRating, 2.5);
      assert.equal(detail.body.reviews.recent.length, 2);
      assert.equal(detail.body.reviews.recent.some((r) => 'orderId' in r), false, 'the public view has no order ids');
    });
  });
}
