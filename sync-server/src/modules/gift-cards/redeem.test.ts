import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { ADMIN, useTestServer } from '../../testing/server.ts';
import { checkLedger } from '../../ledger/check.ts';
import { formatDecimal } from '@tapline/shared/money';
import {
  DAY,
  MINUTE,
  type Json,
  agent,
  assertLiabilityMatchesCards,
  balanceMinor,
  holder,
  issueCard,
  merchant,
  monthsAfter,
  redeem,
  runJobs,
  systemBalance,
  testClock,
} from '../../testing/gift-cards.ts';

type Redeemed = {
  card: { id: string; status: string; amount: number; amountRemaining: number; currency: string; locked: boolean; hasPin: boolean };
  redemption: { id: string; amount_drawn: number; credited_amount: number; credited_currency: string; fx_rate: number; redeemer: string; timestamp: string; currency: string; subscription: Json | null };
  code?: string;
};

/** floor(minor x rate) for two-decimal currencies, in exact integer arithmetic. */
function floorConvert(minor: number, rate: string): number {
  const [whole = '0', fraction = ''] = rate.split('.');
  return Number((BigInt(minor) * BigInt(`${whole}${fraction}`)) / 10n ** BigInt(fraction.length));
}

for (const target of await databaseTargets()) {
  describe(`gift card verify and redeem on ${target.name}`, () => {
    const clock = testClock();
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20, env: { GIFT_CARD_VERIFY_MISSES_MAX: '5', GIFT_CARD_VERIFY_MISS_WINDOW_SECONDS: '600' } });

    it('walks every row of the spec\'s state table', async () => {
      const s = server();
      const shop = await merchant(s);
      const customer = await holder(s);

      // active + redeem with redeemAmount below the balance: stays active, balance reduced, record added.
      const card = await issueCard(s, shop.headers, { amount: 100, currency: 'NGN' });
      const partial = await redeem(s, customer.headers, { code: card.code, redeemAmount: 30 }, 'wallet');
      assert.equal(partial.status, 200, JSON.stringify(partial.body));
      const partialBody = partial.body as unknown as Redeemed;
      assert.equal(partialBody.card.status, 'active');
      assert.equal(partialBody.card.amountRemaining, 70);
      assert.equal(partialBody.redemption.amount_drawn, 30);
      assert.equal(partialBody.redemption.credited_amount, 30);
      assert.equal(partialBody.redemption.credited_currency, 'NGN');
      assert.equal(partialBody.redemption.fx_rate, 1);
      assert.equal(partialBody.redemption.redeemer, `@${customer.handle}`);
      assert.equal(partialBody.redemption.timestamp, clock.now().toISOString());
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 3000);

      // active + redeem without redeemAmount: fully redeemed, the wallet credited with the rest.
      const full = await redeem(s, customer.headers, { code: card.code }, 'wallet');
      assert.equal(full.status, 200);
      assert.equal((full.body as unknown as Redeemed).card.status, 'used');
      assert.equal((full.body as unknown as Redeemed).card.amountRemaining, 0);
      assert.equal((full.body as unknown as Redeemed).redemption.amount_drawn, 70);
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 10_000);

      // used + redeem: 409.
      const used = await redeem(s, customer.headers, { code: card.code }, 'wallet');
      assert.equal(used.status, 409);
      assert.equal(used.body.code, 'gift_card_used');

      // expired + redeem: 410 (and the balance goes back to the issuer).
      const expiring = await issueCard(s, shop.headers, { amount: 40, currency: 'NGN', expiresInMonths: 1 });
      const shopBefore = await balanceMinor(s, shop.bare, 'NGN');
      clock.advance(32 * DAY);
      const expired = await redeem(s, customer.headers, { code: expiring.code }, 'wallet');
      assert.equal(expired.status, 410);
      assert.equal(expired.body.code, 'gift_card_expired');
      assert.equal(await balanceMinor(s, shop.bare, 'NGN'), shopBefore + 4000);
      const expiredRecord = await s.request<Json>('GET', `/api/merchant/gift-cards/${expiring.id}`, { headers: shop.headers });
      assert.equal(expiredRecord.body.status, 'expired');
      assert.equal(expiredRecord.body.returnedAmount, 40);

      // active + admin PATCH cancel: force-cancelled; the balance returns to the issuer.
      const toCancel = await issueCard(s, shop.headers, { amount: 55, currency: 'NGN' });
      const beforeCancel = await balanceMinor(s, shop.bare, 'NGN');
      const cancelled = await s.request<Json>('PATCH', `/api/admin/gift-cards/${toCancel.id}`, { headers: ADMIN, body: { action: 'cancel' } });
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.status, 'cancelled');
      assert.equal(cancelled.body.returnedAmount, 55);
      assert.equal(await balanceMinor(s, shop.bare, 'NGN'), beforeCancel + 5500);
      assert.equal((await redeem(s, customer.headers, { code: toCancel.code }, 'wallet')).body.code, 'gift_card_cancelled');

      // active + admin PATCH refund: the remaining balance is refunded to the issuer.
      const toRefund = await issueCard(s, customer.headers, { amount: 80, currency: 'NGN' }, 'wallet');
      const friend = await holder(s);
      assert.equal((await redeem(s, friend.headers, { code: toRefund.code, redeemAmount: 25 }, 'wallet')).status, 200);
      const beforeRefund = await balanceMinor(s, customer.handle, 'NGN');
      const refunded = await s.request<Json>('PATCH', `/api/admin/gift-cards/${toRefund.id}`, { headers: ADMIN, body: { action: 'refund', reason: 'customer request' } });
      assert.equal(refunded.status, 200);
      assert.equal(refunded.body.status, 'refunded');
      assert.equal(refunded.body.returnedAmount, 55);
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), beforeRefund + 5500);
      const afterRefund = await redeem(s, friend.headers, { code: toRefund.code }, 'wallet');
      assert.equal(afterRefund.status, 409);
      assert.equal(afterRefund.body.code, 'gift_card_refunded');

      // active (scheduled) + deliverAt reached: auto-redeemed into the recipient's wallet.
      const deliverAt = new Date(clock.now().getTime() + 2 * DAY).toISOString();
      const gift = await issueCard(s, shop.headers, { amount: 12.5, currency: 'NGN', deliverToHandle: friend.handle, deliverAt });
      assert.equal(gift.status, 'scheduled');
      assert.equal(gift.deliveryScheduledAt, deliverAt);
      const early = await redeem(s, friend.headers, { code: gift.code }, 'wallet');
      assert.equal(early.status, 409);
      assert.equal(early.body.code, 'gift_card_scheduled');
      const friendBefore = await balanceMinor(s, friend.handle, 'NGN');
      assert.equal((await runJobs(s.context)).delivered, 0, 'not before deliverAt');
      clock.advance(2 * DAY);
      assert.equal((await runJobs(s.context)).delivered, 1);
      assert.equal(await balanceMinor(s, friend.handle, 'NGN'), friendBefore + 1250);
      const delivered = await s.request<Json>('GET', `/api/merchant/gift-cards/${gift.id}`, { headers: shop.headers });
      assert.equal(delivered.body.status, 'used');
      assert.equal(delivered.body.deliveredAt, clock.now().toISOString());
      const history = await s.request<{ data: Redeemed['redemption'][] }>('GET', `/api/merchant/gift-cards/${gift.id}/redemptions`, { headers: shop.headers });
      assert.equal(history.body.data.length, 1);
      assert.equal(history.body.data[0]?.redeemer, `@${friend.handle}`);
      assert.equal(history.body.data[0]?.amount_drawn, 12.5);

      await assertLiabilityMatchesCards(s);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('refuses redeemAmount over the balance with 422, and redeemAmount equal to it uses the card', async () => {
      const s = server();
      const shop = await merchant(s);
      const card = await issueCard(s, shop.headers, { amount: 50, currency: 'NGN' });
      const customer = await holder(s);
      const over = await redeem(s, customer.headers, { code: card.code, redeemAmount: 50.01 }, 'wallet');
      assert.equal(over.status, 422);
      assert.equal(over.body.code, 'redeem_amount_exceeds_balance');
      const badDecimals = await redeem(s, customer.headers, { code: card.code, redeemAmount: 1.234 }, 'wallet');
      assert.equal(badDecimals.status, 400);
      assert.equal((await redeem(s, customer.headers, { code: card.code, redeemAmount: 20 }, 'wallet')).status, 200);
      const overRemaining = await redeem(s, customer.headers, { code: card.code, redeemAmount: 30.01 }, 'wallet');
      assert.equal(overRemaining.status, 422);
      const exact = await redeem(s, customer.headers, { code: card.code, redeemAmount: 30 }, 'wallet');
      assert.equal(exact.status, 200);
      assert.equal((exact.body as unknown as Redeemed).card.status, 'used');
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 5000);
    });

    it('never lets 20 concurrent partial redemptions overdraw a card', async () => {
      const s = server();
      const shop = await merchant(s);
      const card = await issueCard(s, shop.headers, { amount: 95, currency: 'NGN' });
      const customer = await holder(s);
      const liabilityBefore = await systemBalance(s, 'gift_card_liability', 'NGN');
      const answers = await Promise.all(Array.from({ length: 20 }, () => redeem(s, customer.headers, { code: card.code, redeemAmount: 10 }, 'wallet')));
      const succeeded = answers.filter((answer) => answer.status === 200);
      const refused = answers.filter((answer) => answer.status !== 200);
      assert.equal(succeeded.length, 9, answers.map((answer) => answer.status).join(','));
      for (const answer of refused) {
        assert.equal(answer.status, 422);
        assert.equal(answer.body.code, 'redeem_amount_exceeds_balance');
      }
      const remaining = succeeded.map((answer) => (answer.body as unknown as Redeemed).card.amountRemaining).sort((a, b) => a - b);
      assert.deepEqual(remaining, [5, 15, 25, 35, 45, 55, 65, 75, 85], 'each success saw the balance the one before left');
      const [row] = await s.db.query<{ amount_remaining: number; status: string }>('SELECT amount_remaining, status FROM gift_cards WHERE id = $1', [card.id]);
      assert.equal(row?.amount_remaining, 500);
      assert.equal(row?.status, 'active');
      const [drawn] = await s.db.query<{ total: number; n: number }>('SELECT sum(amount_drawn)::int8 AS total, count(*)::int8 AS n FROM gift_card_redemptions WHERE card_id = $1', [card.id]);
      assert.equal(drawn?.total, 9000);
      assert.equal(drawn?.n, 9);
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 9000);
      assert.equal(liabilityBefore - (await systemBalance(s, 'gift_card_liability', 'NGN')), 9000);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('checks the PIN (403) and locks the card for 15 minutes after 5 wrong PINs (429), even against concurrent guesses', async () => {
      const s = server();
      const shop = await merchant(s);
      const card = await issueCard(s, shop.headers, { amount: 60, currency: 'NGN', pinCode: '2468' });
      const customer = await holder(s);
      const missing = await redeem(s, customer.headers, { code: card.code }, 'wallet');
      assert.equal(missing.status, 403);
      assert.equal(missing.body.code, 'pin_required');
      for (let attempt = 1; attempt <= 5; attempt += 1) {
        const wrong = await redeem(s, customer.headers, { code: card.code, pinCode: '1111' }, 'wallet');
        assert.equal(wrong.status, 403, `attempt ${attempt}`);
        assert.equal(wrong.body.code, 'wrong_pin');
      }
      const locked = await redeem(s, customer.headers, { code: card.code, pinCode: '2468' }, 'wallet');
      assert.equal(locked.status, 429, 'locked even with the right PIN');
      assert.equal(locked.body.code, 'pin_attempts_exceeded');
      assert.equal(locked.headers.get('retry-after'), '900');
      clock.advance(14 * MINUTE);
      assert.equal((await redeem(s, customer.headers, { code: card.code, pinCode: '2468' }, 'wallet')).status, 429);
      assert.equal((await redeem(s, customer.headers, { code: card.code, pinCode: '2468' }, 'wallet')).headers.get('retry-after'), '60');
      clock.advance(MINUTE);
      const open = await redeem(s, customer.headers, { code: card.code, pinCode: '2468', redeemAmount: 10 }, 'wallet');
      assert.equal(open.status, 200, JSON.stringify(open.body));
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 1000);

      // Ten guesses at once: at most five are ever checked.
      const guesses = await Promise.all(Array.from({ length: 10 }, () => redeem(s, customer.headers, { code: card.code, pinCode: '9999' }, 'wallet')));
      const checked = guesses.filter((guess) => guess.status === 403).length;
      assert.ok(checked <= 5, `${checked} guesses were checked`);
      assert.ok(guesses.every((guess) => guess.status === 403 || guess.status === 429));
      assert.equal((await redeem(s, customer.headers, { code: card.code, pinCode: '2468' }, 'wallet')).status, 429);
      clock.advance(15 * MINUTE);
    });

    it('honours the handle lock (403) against the redeemer\'s own wallet', async () => {
      const s = server();
      const shop = await merchant(s);
      const owner = await holder(s);
      const stranger = await holder(s);
      const card = await issueCard(s, shop.headers, { amount: 20, currency: 'NGN', lockedToHandle: `@${owner.handle.toUpperCase()}` });
      const refused = await redeem(s, stranger.headers, { code: card.code }, 'wallet');
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'handle_locked');
      const byMerchant = await redeem(s, shop.headers, { code: card.code });
      assert.equal(byMerchant.status, 403, 'the merchant\'s own wallet is not the locked handle either');
      const accepted = await redeem(s, owner.headers, { code: card.code }, 'wallet');
      assert.equal(accepted.status, 200);
      assert.equal(await balanceMinor(s, owner.handle, 'NGN'), 2000);
    });

    it('credits another currency at the FX service\'s mid rate: floor(drawn x rate), one transfer balanced per currency', async () => {
      const s = server();
      const shop = await merchant(s);
      const card = await issueCard(s, shop.headers, { amount: 15000, currency: 'NGN' });
      const traveller = await holder(s, { currency: 'USD' });
      const snapshot = await s.context.fx.snapshot();
      const rate = formatDecimal(s.context.fx.midRate(snapshot, 'NGN', 'USD'));
      const fxNgnBefore = await systemBalance(s, 'fx', 'NGN');
      const fxUsdBefore = await systemBalance(s, 'fx', 'USD');
      const answer = await redeem(s, traveller.headers, { code: card.code, redeemAmount: 1234.56, targetCurrency: 'USD' }, 'wallet');
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const body = answer.body as unknown as Redeemed;
      const credited = floorConvert(123_456, rate);
      assert.ok(credited > 0);
      assert.equal(body.redemption.amount_drawn, 1234.56);
      assert.equal(body.redemption.currency, 'NGN');
      assert.equal(body.redemption.credited_currency, 'USD');
      assert.equal(body.redemption.fx_rate, Number(rate));
      assert.equal(Math.round(body.redemption.credited_amount * 100), credited);
      assert.equal(body.card.amountRemaining, 13765.44);
      assert.equal(await balanceMinor(s, traveller.handle, 'USD'), credited);
      assert.equal((await systemBalance(s, 'fx', 'NGN')) - fxNgnBefore, 123_456);
      assert.equal(fxUsdBefore - (await systemBalance(s, 'fx', 'USD')), credited);
      const [transfer] = await s.db.query<{ legs: number }>(
        `SELECT count(*)::int8 AS legs FROM ledger_postings WHERE transfer_id = (SELECT transfer_id FROM gift_card_redemptions WHERE id = $1)`,
        [body.redemption.id],
      );
      assert.equal(transfer?.legs, 4, 'liability -> fx (NGN), fx -> wallet (USD): one transfer');
      const unsupported = await redeem(s, traveller.headers, { code: card.code, targetCurrency: 'JPY' }, 'wallet');
      assert.equal(unsupported.status, 400);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('redeems on the merchant surface with a key or a terminal token into the merchant\'s wallet; multiMerchant decides who else may', async () => {
      const s = server();
      const shop = await merchant(s);
      const terminal = await s.request<{ token: string }>('POST', '/api/merchant/terminals', { headers: shop.headers, body: { name: 'Till 1' } });
      const till = { authorization: `Bearer term.${terminal.body.token}` };
      const card = await issueCard(s, shop.headers, { amount: 30, currency: 'NGN' });
      const before = await balanceMinor(s, shop.bare, 'NGN');
      const atTill = await redeem(s, till, { code: card.code, redeemAmount: 10 });
      assert.equal(atTill.status, 200, JSON.stringify(atTill.body));
      assert.equal((atTill.body as unknown as Redeemed).redemption.redeemer, shop.handle);
      assert.equal(await balanceMinor(s, shop.bare, 'NGN'), before + 1000);
      // Terminals are scoped to verify and redeem: no issuing.
      assert.equal((await s.request('POST', '/api/merchant/gift-cards', { headers: till, body: { amount: 1, currency: 'NGN' } })).status, 403);

      const other = await merchant(s);
      const elsewhere = await redeem(s, other.headers, { code: card.code });
      assert.equal(elsewhere.status, 403);
      assert.equal(elsewhere.body.code, 'card_not_accepted');
      const anywhere = await issueCard(s, shop.headers, { amount: 30, currency: 'NGN', multiMerchant: true });
      assert.equal((await redeem(s, other.headers, { code: anywhere.code })).status, 200);
      assert.equal(await balanceMinor(s, other.bare, 'NGN'), 100_000_000 + 3000);
      // The other mode never sees the card; unknown codes are 404.
      const live = await redeem(s, shop.liveHeaders, { code: card.code });
      assert.equal(live.status, 404);
      assert.equal(live.body.code, 'gift_card_not_found');
      assert.equal((await redeem(s, shop.headers, { code: `gc_${'0'.repeat(64)}` })).status, 404);
      assert.equal((await redeem(s, shop.headers, { code: 'gc_short' })).status, 400);
    });

    it('redeems on the agent surface into the agent\'s wallet, and lists own cards by status on every surface', async () => {
      const s = server();
      const person = await holder(s, { fund: 100 });
      const card = await issueCard(s, person.headers, { amount: 35, currency: 'NGN' }, 'wallet');
      const spent = await issueCard(s, person.headers, { amount: 5, currency: 'NGN' }, 'wallet');
      const cashPoint = await agent(s);
      const cashed = await redeem(s, cashPoint.headers, { code: card.code, redeemAmount: 15 }, 'agent');
      assert.equal(cashed.status, 200, JSON.stringify(cashed.body));
      assert.equal((cashed.body as unknown as Redeemed).redemption.redeemer, `@${cashPoint.handle}`);
      assert.equal(await balanceMinor(s, cashPoint.handle, 'NGN'), 1500);
      assert.equal((await redeem(s, cashPoint.headers, { code: spent.code }, 'agent')).status, 200);
      const active = await s.request<{ data: Json[]; total: number }>('GET', '/api/wallet/gift-cards?status=active', { headers: person.headers });
      assert.deepEqual(active.body.data.map((row) => [row.id, row.amountRemaining]), [[card.id, 20]]);
      const used = await s.request<{ data: Json[]; total: number }>('GET', '/api/wallet/gift-cards?status=used', { headers: person.headers });
      assert.deepEqual(used.body.data.map((row) => row.id), [spent.id]);
      assert.equal((await s.request('POST', '/api/agent/gift-cards/redeem', { headers: person.headers, body: { code: card.code } })).status, 403);
    });

    it('verifies publicly without revealing the issuer, and refuses an address that asks about too many unknown codes', async () => {
      const s = server();
      const shop = await merchant(s);
      const card = await issueCard(s, shop.headers, { amount: 75.25, currency: 'NGN', pinCode: '1357', lockedToHandle: 'someone' });
      const verified = await s.request<Json>('GET', `/api/gift-cards/verify?code=${card.code}`);
      assert.equal(verified.status, 200);
      assert.deepEqual(verified.body, {
        valid: true,
        amount: 75.25,
        amountRemaining: 75.25,
        currency: 'NGN',
        expiresAt: card.expiresAt,
        hasPin: true,
        locked: true,
        status: 'active',
      });
      const text = JSON.stringify(verified.body);
      assert.ok(!text.includes(shop.id) && !text.includes(shop.bare), 'no issuer in the answer');
      const posted = await s.request<Json>('POST', '/api/gift-cards/verify', { body: { code: card.code.toUpperCase() } });
      assert.deepEqual(posted.body, verified.body);

      const free = await issueCard(s, shop.headers, { amount: 10, currency: 'NGN' });
      const customer = await holder(s);
      await redeem(s, customer.headers, { code: free.code, redeemAmount: 4 }, 'wallet');
      assert.equal((await s.request<Json>('GET', `/api/gift-cards/verify?code=${free.code}`)).body.amount, 6);
      await redeem(s, customer.headers, { code: free.code }, 'wallet');
      const spent = await s.request<Json>('GET', `/api/gift-cards/verify?code=${free.code}`);
      assert.equal(spent.body.valid, false);
      assert.equal(spent.body.status, 'used');
      assert.equal((await s.request<Json>('GET', '/api/gift-cards/verify?code=nope')).status, 400);

      // Five unknown codes per window (this suite's setting); the sixth ask is refused, even for a real code.
      for (let miss = 0; miss < 5; miss += 1) {
        const unknown = await s.request<Json>('GET', `/api/gift-cards/verify?code=gc_${String(miss).repeat(64)}`);
        assert.equal(unknown.status, 404);
        assert.equal(unknown.body.code, 'gift_card_not_found');
      }
      const blocked = await s.request<Json>('GET', `/api/gift-cards/verify?code=${card.code}`);
      assert.equal(blocked.status, 429);
      assert.equal(blocked.body.code, 'verify_rate_limited');
      assert.equal(blocked.headers.get('retry-after'), '600');
      assert.equal(blocked.headers.get('x-ratelimit-limit'), '2400', 'the spec\'s per-minute headers stay on the answer');
      clock.advance(600_000);
      assert.equal((await s.request<Json>('GET', `/api/gift-cards/verify?code=${card.code}`)).status, 200);
    });

    it('lists redemption records for the issuing merchant (own cards only), the admin and a wallet issuer', async () => {
      const s = server();
      const shop = await merchant(s);
      const card = await issueCard(s, shop.headers, { amount: 90, currency: 'NGN' });
      const customer = await holder(s);
      await redeem(s, customer.headers, { code: card.code, redeemAmount: 10 }, 'wallet');
      clock.advance(5 * MINUTE);
      await redeem(s, customer.headers, { code: card.code, redeemAmount: 20 }, 'wallet');
      const history = await s.request<{ data: Redeemed['redemption'][]; total: number; limit: number; offset: number }>('GET', `/api/merchant/gift-cards/${card.id}/redemptions`, { headers: shop.headers });
      assert.equal(history.status, 200);
      assert.equal(history.body.total, 2);
      assert.deepEqual(history.body.data.map((record) => record.amount_drawn), [10, 20], 'oldest first');
      for (const record of history.body.data) {
        assert.deepEqual(Object.keys(record).sort(), ['amount_drawn', 'credited_amount', 'credited_currency', 'currency', 'fx_rate', 'id', 'redeemer', 'subscription', 'timestamp']);
      }
      assert.equal(Date.parse(history.body.data[1]!.timestamp) - Date.parse(history.body.data[0]!.timestamp), 5 * MINUTE);
      const paged = await s.request<{ data: unknown[]; total: number; offset: number }>('GET', `/api/merchant/gift-cards/${card.id}/redemptions?limit=1&offset=1`, { headers: shop.headers });
      assert.equal(paged.body.data.length, 1);
      assert.equal(paged.body.total, 2);
      const other = await merchant(s);
      assert.equal((await s.request('GET', `/api/merchant/gift-cards/${card.id}/redemptions`, { headers: other.headers })).status, 404);
      assert.equal((await s.request('GET', `/api/merchant/gift-cards/${card.id}/redemptions`, { headers: shop.liveHeaders })).status, 404);
      const asAdmin = await s.request<{ total: number }>('GET', `/api/merchant/gift-cards/${card.id}/redemptions`, { headers: ADMIN });
      assert.equal(asAdmin.body.total, 2);
      assert.equal((await s.request<{ total: number }>('GET', `/api/admin/gift-cards/${card.id}/redemptions`, { headers: ADMIN })).body.total, 2);
      assert.equal((await s.request('GET', '/api/admin/gift-cards/gcard_nope/redemptions', { headers: ADMIN })).status, 404);
      const own = await issueCard(s, customer.headers, { amount: 5, currency: 'NGN' }, 'wallet');
      assert.equal((await s.request<{ total: number }>('GET', `/api/wallet/gift-cards/${own.id}/redemptions`, { headers: customer.headers })).body.total, 0);
    });

    it('gifts a subscription: amount = plan price x months, and redeeming activates the plan instead of crediting a wallet', async () => {
      const s = server();
      const shop = await merchant(s);
      const plan = await s.request<{ id: string; price: number; currency: string }>('POST', '/api/merchant/subscription-plans', { headers: shop.headers, body: { name: 'Pro', price: 1500, currency: 'NGN' } });
      assert.equal(plan.status, 201);
      const before = await balanceMinor(s, shop.bare, 'NGN');
      const gift = await issueCard(s, shop.headers, { subscriptionPlanId: plan.body.id, giftMonths: 3, amount: 1 });
      assert.equal(gift.amount, 4500, 'the amount is set from the plan');
      assert.equal(gift.currency, 'NGN');
      assert.equal(gift.subscriptionPlanId, plan.body.id);
      assert.equal(gift.giftMonths, 3);
      assert.equal(before - (await balanceMinor(s, shop.bare, 'NGN')), 450_000);
      const customer = await holder(s);
      const partial = await redeem(s, customer.headers, { code: gift.code, redeemAmount: 10 }, 'wallet');
      assert.equal(partial.status, 422);
      assert.equal(partial.body.code, 'subscription_gift_not_divisible');
      const activated = await redeem(s, customer.headers, { code: gift.code }, 'wallet');
      assert.equal(activated.status, 200);
      const body = activated.body as unknown as Redeemed;
      assert.equal(body.card.status, 'used');
      assert.equal(body.redemption.credited_amount, 0);
      assert.equal(body.redemption.amount_drawn, 4500);
      assert.deepEqual(
        { ...body.redemption.subscription, id: undefined },
        { id: undefined, planId: plan.body.id, cardId: gift.id, handle: `@${customer.handle}`, months: 3, startsAt: clock.now().toISOString(), endsAt: monthsAfter(clock.now(), 3), createdAt: clock.now().toISOString() },
      );
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 0, 'no wallet credited');
      assert.equal(await balanceMinor(s, shop.bare, 'NGN'), before, 'the plan\'s merchant is paid from the liability');
      // A second gift extends the running plan from its end.
      const second = await issueCard(s, shop.headers, { subscriptionPlanId: plan.body.id, giftMonths: 1 });
      const extended = (await redeem(s, customer.headers, { code: second.code }, 'wallet')).body as unknown as Redeemed;
      assert.equal(extended.redemption.subscription?.startsAt, monthsAfter(clock.now(), 3));
      const activations = await s.request<{ total: number }>('GET', `/api/merchant/subscription-plans/${plan.body.id}/activations`, { headers: shop.headers });
      assert.equal(activations.body.total, 2);
      const otherShop = await merchant(s);
      const foreignPlan = await s.request<Json>('POST', '/api/merchant/gift-cards', { headers: otherShop.headers, body: { subscriptionPlanId: plan.body.id, giftMonths: 1 } });
      assert.equal(foreignPlan.status, 404);
      assert.equal(foreignPlan.body.code, 'subscription_plan_not_found');
      await assertLiabilityMatchesCards(s);
    });
  });
}
