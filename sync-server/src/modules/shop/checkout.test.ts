import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { ADMIN, useTestServer } from '../../testing/server.ts';
import { checkLedger } from '../../ledger/check.ts';
import { fxServiceRateSource } from '../fx/index.ts';
import { convertUp } from './pricing.ts';
import {
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
  describe(`store checkout on ${target.name}`, () => {
    const clock = testClock();
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 100 });

    it('wallet only: exact debit, remaining, breakdown, stock and revenue', async () => {
      const s = server();
      const product = await createProduct(s, { basePrice: 50, stock: 10 });
      const handle = await buyer(s, { fund: 1000 });
      const revenueBefore = await systemBalance(s, 'store_revenue', 'NGN');
      const paid = await checkout(s, { productSlug: product.slug, quantity: 2, buyerHandle: handle, walletPin: '1234', notes: 'Leave at the gate' });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      assert.equal(paid.body.walletDebit, 100);
      assert.equal(paid.body.giftCardDebit, 0);
      assert.equal(paid.body.remaining, 900);
      assert.equal(paid.body.remainingCurrency, 'NGN');
      assert.equal(paid.body.giftCardRemaining, null);
      const order = paid.body.order;
      assert.match(order.id, /^ord_[0-9a-f]{32}$/);
      assert.equal(order.status, 'paid');
      assert.equal(order.mode, 'test');
      assert.equal(order.quantity, 2);
      assert.equal(order.buyerHandle, `@${handle}`);
      assert.deepEqual(order.payment, {
        total: 100,
        subtotal: 100,
        unitPrice: 50,
        currency: 'NGN',
        walletDebit: 100,
        giftCardDebit: 0,
        discount: 0,
        referralCode: null,
        flashSaleId: null,
        walletCharged: { amount: 100, currency: 'NGN', fxRate: null },
        giftCardPrefix: null,
      });
      assert.equal(order.shipping.phone, '+234 803 555 0142');
      assert.equal(order.notes, 'Leave at the gate');
      assert.equal(order.timeline.length, 1);
      assert.equal(order.timeline[0]?.status, 'paid');
      assert.equal(order.timeline[0]?.at, clock.now().toISOString());
      assert.equal(await balanceMinor(s, handle, 'NGN'), 90_000);
      assert.equal(await stockOf(s, product.id), 8);
      assert.equal(await systemBalance(s, 'store_revenue', 'NGN'), revenueBefore + 10_000);

      const mine = await s.request<{ data: Order[]; total: number }>('POST', '/api/store/my-orders', { body: { buyerHandle: handle, walletPin: '1234' } });
      assert.equal(mine.status, 200);
      assert.equal(mine.body.total, 1);
      assert.equal(mine.body.data[0]?.id, order.id);
      const event = await s.db.query<{ type: string; body: string }>(`SELECT type, body FROM events WHERE type = 'store.order.paid' AND body LIKE $1`, [`%${order.id}%`]);
      assert.equal(event.length, 1);
      assert.equal(JSON.parse(event[0]!.body).total, 100);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('gift card only: the card covers the total, no wallet PIN needed; a wrong PIN that is sent is still refused', async () => {
      const s = server();
      const issuer = await cardIssuer(s);
      const product = await createProduct(s, { basePrice: 50, stock: 5 });
      const handle = await buyer(s);
      const card = await issueCard(s, issuer, { amount: 150, currency: 'NGN' });
      const liabilityBefore = await systemBalance(s, 'gift_card_liability', 'NGN');

      const wrongPin = await checkout(s, { productSlug: product.slug, quantity: 2, buyerHandle: handle, walletPin: '9999', giftCardCode: card.code });
      assert.equal(wrongPin.status, 403);
      assert.equal(wrongPin.body.code, 'wrong_pin');
      assert.equal((await cardOf(s, card.id)).amountRemaining, 150);

      const paid = await checkout(s, { productSlug: product.slug, quantity: 2, buyerHandle: handle, giftCardCode: card.code });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      assert.equal(paid.body.walletDebit, 0);
      assert.equal(paid.body.giftCardDebit, 100);
      assert.equal(paid.body.remaining, 0);
      assert.equal(paid.body.giftCardRemaining, 50);
      assert.equal(paid.body.order.payment.walletCharged, null);
      assert.equal(paid.body.order.payment.giftCardPrefix, card.codePrefix);
      assert.ok(!JSON.stringify(paid.body).includes(card.code), 'the code is never answered');
      const after = await cardOf(s, card.id);
      assert.equal(after.status, 'active');
      assert.equal(after.amountRemaining, 50);
      assert.equal(await systemBalance(s, 'gift_card_liability', 'NGN'), liabilityBefore - 10_000);
      assert.equal(await stockOf(s, product.id), 3);
      const [row] = await s.db.query<{ count: number }>(`SELECT count(*)::int8 AS count FROM store_orders WHERE id = $1 AND position($2 in row_to_json(store_orders)::text) = 0`, [paid.body.order.id, card.code]);
      assert.equal(row?.count, 1, 'the order row does not hold the code');
    });

    it('mixed: the card pays what it can, the wallet the rest; without the wallet PIN it is a 400 and nothing changes', async () => {
      const s = server();
      const issuer = await cardIssuer(s);
      const product = await createProduct(s, { basePrice: 50, stock: 5 });
      const handle = await buyer(s, { fund: 100 });
      const card = await issueCard(s, issuer, { amount: 30, currency: 'NGN' });

      const noPin = await checkout(s, { productSlug: product.slug, buyerHandle: handle, giftCardCode: card.code });
      assert.equal(noPin.status, 400);
      assert.equal(noPin.body.code, 'wallet_pin_required');
      assert.equal(await stockOf(s, product.id), 5);
      assert.equal((await cardOf(s, card.id)).amountRemaining, 30);

      const paid = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234', giftCardCode: card.code });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      assert.equal(paid.body.walletDebit, 20);
      assert.equal(paid.body.giftCardDebit, 30);
      assert.equal(paid.body.remaining, 80);
      assert.equal(paid.body.giftCardRemaining, 0);
      assert.equal(paid.body.order.payment.total, 50);
      assert.equal(paid.body.order.payment.walletDebit, 20);
      assert.equal(paid.body.order.payment.giftCardDebit, 30);
      const after = await cardOf(s, card.id);
      assert.equal(after.status, 'used');
      assert.equal(after.amountRemaining, 0);
      assert.equal(await balanceMinor(s, handle, 'NGN'), 8000);
      assert.equal(await stockOf(s, product.id), 4);

      const again = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234', giftCardCode: card.code });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'gift_card_used');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a card locked to another handle is 403, a card with a PIN needs it, an expired card is 410', async () => {
      const s = server();
      const issuer = await cardIssuer(s);
      const product = await createProduct(s, { basePrice: 10, stock: 5 });
      const handle = await buyer(s, { fund: 100 });
      const other = await buyer(s);
      const locked = await issueCard(s, issuer, { amount: 20, currency: 'NGN', lockedToHandle: other });
      const refused = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234', giftCardCode: locked.code });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'handle_locked');
      const pinned = await issueCard(s, issuer, { amount: 20, currency: 'NGN', pinCode: '4321' });
      const withoutPin = await checkout(s, { productSlug: product.slug, buyerHandle: handle, giftCardCode: pinned.code });
      assert.equal(withoutPin.status, 403);
      assert.equal(withoutPin.body.code, 'pin_required');
      const withPin = await checkout(s, { productSlug: product.slug, buyerHandle: handle, giftCardCode: pinned.code, giftCardPin: '4321' });
      assert.equal(withPin.status, 201, JSON.stringify(withPin.body));
      assert.equal(withPin.body.giftCardDebit, 10);
      const expiring = await issueCard(s, issuer, { amount: 20, currency: 'NGN', expiresInMonths: 1 });
      clock.advance(40 * 24 * 3_600_000);
      const expired = await checkout(s, { productSlug: product.slug, buyerHandle: handle, giftCardCode: expiring.code });
      assert.equal(expired.status, 410);
      assert.equal(expired.body.code, 'gift_card_expired');
      assert.equal(await stockOf(s, product.id), 4);
      const usdIssuer = await s.createMerchant({ currency: 'USD', country: 'US' });
      const usd = await issueCard(s, { 'x-merchant-api-key': usdIssuer.testKey }, { amount: 20, currency: 'USD' });
      const mismatch = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234', giftCardCode: usd.code });
      assert.equal(mismatch.status, 422);
      assert.equal(mismatch.body.code, 'gift_card_currency_mismatch');
    });

    it('wrong PIN is 403 and counts toward the wallet lock-out (429 after 5)', async () => {
      const s = server();
      const product = await createProduct(s, { basePrice: 10 });
      const handle = await buyer(s, { fund: 100 });
      for (let attempt = 1; attempt <= 5; attempt += 1) {
        const wrong = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '0000' });
        assert.equal(wrong.status, 403, `attempt ${attempt}`);
        assert.equal(wrong.body.code, 'wrong_pin');
      }
      const locked = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234' });
      assert.equal(locked.status, 429);
      assert.equal(locked.body.code, 'pin_attempts_exceeded');
      assert.ok(Number(locked.headers.get('retry-after')) > 0);
      const session = await s.request('POST', '/api/wallet/sessions', { body: { handle, pin: '1234' } });
      assert.equal(session.status, 429, 'the same lock-out as the wallet sign-in');
      assert.equal(await balanceMinor(s, handle, 'NGN'), 10_000);
      assert.equal(await stockOf(s, product.id), 10);
    });

    it('insufficient funds is 422 and changes nothing; unknown product or handle 404; bad input 400', async () => {
      const s = server();
      const product = await createProduct(s, { basePrice: 50, stock: 3 });
      const handle = await buyer(s, { fund: 10 });
      const code = await s.request('POST', '/api/admin/store/referrals', { headers: ADMIN, body: { code: `POOR${process.pid}`, discountType: 'percent', discountValue: 10, maxUses: 5 } });
      assert.equal(code.status, 201);
      const revenueBefore = await systemBalance(s, 'store_revenue', 'NGN');
      const poor = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234', referralCode: `poor${process.pid}` });
      assert.equal(poor.status, 422);
      assert.equal(poor.body.code, 'insufficient_funds');
      assert.equal(await balanceMinor(s, handle, 'NGN'), 1000);
      assert.equal(await stockOf(s, product.id), 3);
      assert.equal(await systemBalance(s, 'store_revenue', 'NGN'), revenueBefore);
      const [uses] = await s.db.query<{ uses: number }>('SELECT uses FROM store_referral_codes WHERE code = $1', [`POOR${process.pid}`]);
      assert.equal(uses?.uses, 0, 'the referral use was rolled back');
      const mine = await s.request<{ total: number }>('POST', '/api/store/my-orders', { body: { buyerHandle: handle, walletPin: '1234' } });
      assert.equal(mine.body.total, 0);

      const unknownProduct = await checkout(s, { productSlug: 'no-such-thing', buyerHandle: handle, walletPin: '1234' });
      assert.equal(unknownProduct.status, 404);
      assert.equal(unknownProduct.body.code, 'product_not_found');
      const unknownBuyer = await checkout(s, { productSlug: product.slug, buyerHandle: 'nobody_here_42', walletPin: '1234' });
      assert.equal(unknownBuyer.status, 404);
      assert.equal(unknownBuyer.body.code, 'wallet_not_found');
      for (const bad of [{ quantity: 0 }, { quantity: 2.5 }, { quantity: 101 }, { shippingCountry: 'ZZ' }, { shippingPhone: 'call me' }, { walletPin: '12' }, { giftCardCode: 'gc_123' }]) {
        const refused = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234', ...bad });
        assert.equal(refused.status, 400, JSON.stringify(bad));
        assert.ok(typeof refused.body.error === 'string' && typeof refused.body.code === 'string');
      }
      const out = await checkout(s, { productSlug: product.slug, quantity: 4, buyerHandle: handle, walletPin: '1234' });
      assert.equal(out.status, 409);
      assert.equal(out.body.code, 'out_of_stock');
    });

    it('Idempotency-Key: a retry replays the first answer with one charge; PINs are not stored; a wrong PIN does not burn the key', async () => {
      const s = server();
      const product = await createProduct(s, { basePrice: 25, stock: 10 });
      const handle = await buyer(s, { fund: 100 });
      const key = `key-${process.pid}-checkout`;
      const body = { productSlug: product.slug, buyerHandle: handle };
      const wrong = await checkout(s, { ...body, walletPin: '5555' }, { 'idempotency-key': key });
      assert.equal(wrong.status, 403);
      const first = await checkout(s, { ...body, walletPin: '1234' }, { 'idempotency-key': key });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const retry = await checkout(s, { ...body, walletPin: '1234' }, { 'idempotency-key': key });
      assert.equal(retry.status, 201);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.equal(retry.body.order.id, first.body.order.id);
      const replayWrongPin = await checkout(s, { ...body, walletPin: '5556' }, { 'idempotency-key': key });
      assert.equal(replayWrongPin.status, 403, 'a replay needs the right PIN');
      const otherBody = await checkout(s, { ...body, walletPin: '1234', quantity: 2 }, { 'idempotency-key': key });
      assert.equal(otherBody.status, 422);
      assert.equal(otherBody.body.code, 'idempotency_key_reused');
      assert.equal(await balanceMinor(s, handle, 'NGN'), 7500, 'charged once');
      assert.equal(await stockOf(s, product.id), 9);
      const rows = await s.db.query<{ scope: string; request_hash: string; response_body: string }>('SELECT scope, request_hash, response_body FROM idempotency_keys WHERE key = $1', [key]);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.scope, `store:${handle}:default`);
      assert.ok(!rows[0]!.response_body.includes('walletPin'));
    });

    it('referral codes: percent and fixed applied, currency rule, usage limit, validate endpoint', async () => {
      const s = server();
      const product = await createProduct(s, { basePrice: 50, stock: 20 });
      const handle = await buyer(s, { fund: 1000 });
      const suffix = String(process.pid);
      const create = (body: Record<string, unknown>) => s.request<Record<string, unknown>>('POST', '/api/admin/store/referrals', { headers: ADMIN, body });
      assert.equal((await create({ code: `save10${suffix}`, discountType: 'percent', discountValue: 10 })).status, 201);
      const fixed = await create({ code: `FIVE${suffix}`, discountType: 'fixed', discountValue: 7.5, currency: 'NGN' });
      assert.equal(fixed.status, 201);
      assert.equal(fixed.body.discountValue, 7.5);
      assert.equal((await create({ code: `USD${suffix}`, discountType: 'fixed', discountValue: 1, currency: 'USD' })).status, 201);
      assert.equal((await create({ code: `ONCE${suffix}`, discountType: 'percent', discountValue: 50, maxUses: 1 })).status, 201);
      assert.equal((await create({ code: `save10${suffix}`, discountType: 'percent', discountValue: 5 })).status, 409);
      assert.equal((await create({ code: `BAD${suffix}`, discountType: 'percent', discountValue: 10.555 })).status, 400);
      assert.equal((await create({ code: `BAD${suffix}`, discountType: 'fixed', discountValue: 5 })).status, 400, 'fixed needs a currency');

      const valid = await s.request<Record<string, unknown>>('POST', '/api/store/referrals/validate', { body: { code: ` Save10${suffix} ` } });
      assert.equal(valid.status, 200);
      assert.deepEqual(
        { valid: valid.body.valid, discountType: valid.body.discountType, discountValue: valid.body.discountValue, currency: valid.body.currency, reason: valid.body.reason },
        { valid: true, discountType: 'percent', discountValue: 10, currency: null, reason: null },
      );
      const unknown = await s.request<Record<string, unknown>>('POST', '/api/store/referrals/validate', { body: { code: 'NOPE-NOPE' } });
      assert.equal(unknown.status, 200);
      assert.equal(unknown.body.valid, false);
      assert.equal(unknown.body.reason, 'not_found');

      const percent = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234', referralCode: `save10${suffix}` });
      assert.equal(percent.status, 201, JSON.stringify(percent.body));
      assert.equal(percent.body.order.payment.discount, 5);
      assert.equal(percent.body.order.payment.total, 45);
      assert.equal(percent.body.walletDebit, 45);
      assert.equal(percent.body.order.payment.referralCode, `SAVE10${suffix}`);
      const fixedPaid = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234', referralCode: `five${suffix}` });
      assert.equal(fixedPaid.status, 201);
      assert.equal(fixedPaid.body.order.payment.discount, 7.5);
      assert.equal(fixedPaid.body.walletDebit, 42.5);
      const wrongCurrency = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234', referralCode: `USD${suffix}` });
      assert.equal(wrongCurrency.status, 422);
      assert.equal(wrongCurrency.body.code, 'referral_currency_mismatch');
      const once = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234', referralCode: `ONCE${suffix}` });
      assert.equal(once.status, 201);
      assert.equal(once.body.walletDebit, 25);
      const twice = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234', referralCode: `ONCE${suffix}` });
      assert.equal(twice.status, 422);
      assert.equal(twice.body.code, 'referral_invalid');
      const exhausted = await s.request<Record<string, unknown>>('POST', '/api/store/referrals/validate', { body: { code: `ONCE${suffix}` } });
      assert.equal(exhausted.body.valid, false);
      assert.equal(exhausted.body.reason, 'exhausted');
      const unknownAtCheckout = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234', referralCode: 'NOPE-NOPE' });
      assert.equal(unknownAtCheckout.status, 422);
      assert.equal(unknownAtCheckout.body.code, 'referral_invalid');
      assert.equal(await balanceMinor(s, handle, 'NGN'), 100_000 - 4500 - 4250 - 2500);

      // The usage limit holds under concurrency: 3 uses for 8 simultaneous buyers.
      assert.equal((await create({ code: `LIMIT3${suffix}`, discountType: 'percent', discountValue: 20, maxUses: 3 })).status, 201);
      const buyers = await Promise.all(Array.from({ length: 8 }, () => buyer(s, { fund: 100 })));
      const results = await Promise.all(buyers.map((b) => checkout(s, { productSlug: product.slug, buyerHandle: b, walletPin: '1234', referralCode: `LIMIT3${suffix}` })));
      assert.equal(results.filter((r) => r.status === 201).length, 3);
      assert.equal(results.filter((r) => r.status === 422 && r.body.code === 'referral_invalid').length, 5);
      const [limit] = await s.db.query<{ uses: number }>('SELECT uses FROM store_referral_codes WHERE code = $1', [`LIMIT3${suffix}`]);
      assert.equal(limit?.uses, 3);
    });

    it('a wallet in another currency pays through FX: charged at the mid rate rounded up, balanced legs', async () => {
      const s = server();
      const product = await createProduct(s, { basePrice: 10, baseCurrency: 'USD', stock: 5 });
      const handle = await buyer(s, { fund: 100_000, currency: 'NGN' });
      const { rate } = await fxServiceRateSource(s.context.fx).rate('USD', 'NGN');
      const expected = convertUp(1000, 'USD', 'NGN', rate);
      const listed = await s.request<{ priceInWalletCurrency: number; walletCurrency: string }>('GET', `/api/store/products/${product.slug}?walletCurrency=NGN`);
      assert.equal(listed.body.priceInWalletCurrency, expected / 100);
      assert.equal(listed.body.walletCurrency, 'NGN');
      const fxUsdBefore = await systemBalance(s, 'fx', 'USD');
      const paid = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234' });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      assert.equal(paid.body.walletDebit, 10, 'in the order currency');
      assert.equal(paid.body.order.payment.currency, 'USD');
      assert.deepEqual(paid.body.order.payment.walletCharged, { amount: expected / 100, currency: 'NGN', fxRate: Number(rate) });
      assert.equal(paid.body.remainingCurrency, 'NGN');
      assert.equal(paid.body.remaining, (10_000_000 - expected) / 100);
      assert.equal(await balanceMinor(s, handle, 'NGN'), 10_000_000 - expected);
      assert.equal(await systemBalance(s, 'fx', 'USD'), fxUsdBefore - 1000);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('test and live never mix: a test buyer buys from the test catalogue and sees only test orders', async () => {
      const s = server();
      const testProduct = await createProduct(s, { basePrice: 10, stock: 5 });
      const live = await createProduct(s, { slug: testProduct.slug, basePrice: 99, stock: 5, mode: 'live' });
      assert.notEqual(live.id, testProduct.id);
      const liveOnly = await createProduct(s, { basePrice: 10, stock: 5, mode: 'live' });
      const handle = await buyer(s, { fund: 500 });
      await s.createWallet({ handle, pin: '1234', currency: 'NGN', country: 'NG', mode: 'live', fund: 500 });
      const testOrder = await checkout(s, { productSlug: testProduct.slug, buyerHandle: handle, walletPin: '1234' });
      assert.equal(testOrder.status, 201);
      assert.equal(testOrder.body.order.mode, 'test');
      assert.equal(testOrder.body.order.payment.total, 10);
      const liveOrder = await checkout(s, { productSlug: testProduct.slug, buyerHandle: handle, walletPin: '1234', mode: 'live' });
      assert.equal(liveOrder.status, 201);
      assert.equal(liveOrder.body.order.mode, 'live');
      assert.equal(liveOrder.body.order.payment.total, 99);
      const notInTest = await checkout(s, { productSlug: liveOnly.slug, buyerHandle: handle, walletPin: '1234' });
      assert.equal(notInTest.status, 404);
      const testList = await s.request<{ data: Order[] }>('POST', '/api/store/my-orders', { body: { buyerHandle: handle, walletPin: '1234' } });
      assert.deepEqual(testList.body.data.map((o) => o.id), [testOrder.body.order.id]);
      const liveList = await s.request<{ data: Order[] }>('POST', '/api/store/my-orders', { body: { buyerHandle: handle, walletPin: '1234', mode: 'live' } });
      assert.deepEqual(liveList.body.data.map((o) => o.id), [liveOrder.body.order.id]);
      const publicTest = await s.request<{ data: { id: string }[] }>('GET', '/api/store/products?limit=100');
      assert.ok(!publicTest.body.data.some((p) => p.id === live.id || p.id === liveOnly.id));
      const issuer = await s.createMerchant();
      const credited = await s.request('POST', `/api/admin/wallets/${issuer.handle.replace(/^@/, '')}/credit`, { headers: ADMIN, body: { amount: 100, currency: 'NGN', mode: 'live' } });
      assert.equal(credited.status, 200, JSON.stringify(credited.body));
      const liveCard = await issueCard(s, { 'x-merchant-api-key': issuer.liveKey }, { amount: 20, currency: 'NGN' });
      const crossMode = await checkout(s, { productSlug: testProduct.slug, buyerHandle: handle, walletPin: '1234', giftCardCode: liveCard.code });
      assert.equal(crossMode.status, 404);
      assert.equal(crossMode.body.code, 'gift_card_not_found');
    });
  });
}
