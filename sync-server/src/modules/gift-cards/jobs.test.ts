import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { useTestServer } from '../../testing/server.ts';
import { checkLedger } from '../../ledger/check.ts';
import { giftCardJobs } from './routes.ts';
import { DAY, HOUR, MINUTE, type Json, assertLiabilityMatchesCards, balanceMinor, holder, issueCard, merchant, redeem, testClock } from '../../testing/gift-cards.ts';

for (const target of await databaseTargets()) {
  describe(`gift card jobs on ${target.name}`, () => {
    const clock = testClock();
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20 });

    it('delivers scheduled cards at deliverAt; a worker started after a long downtime catches up on every missed time, each card once', async () => {
      const s = server();
      const shop = await merchant(s);
      const recipients = [await holder(s), await holder(s), await holder(s)];
      const at = (hours: number) => new Date(clock.now().getTime() + hours * HOUR).toISOString();
      const cards = [];
      for (const [index, recipient] of recipients.entries()) {
        cards.push(await issueCard(s, shop.headers, { amount: 10 * (index + 1), currency: 'NGN', deliverToHandle: `@${recipient.handle}`, deliverAt: at(index + 1) }));
      }
      assert.ok(cards.every((card) => card.status === 'scheduled'));
      const unknownRecipient = await s.request<Json>('POST', '/api/merchant/gift-cards', { headers: shop.headers, body: { amount: 1, currency: 'NGN', deliverToHandle: 'nobody_here', deliverAt: at(1) } });
      assert.equal(unknownRecipient.status, 404);
      assert.equal(unknownRecipient.body.code, 'wallet_not_found');

      // The first is due after one hour: one run delivers it alone.
      clock.advance(HOUR);
      assert.deepEqual(await giftCardJobs(s.context).runOnce(), { delivered: 1, deliveryFailures: 0, expired: 0 });
      assert.equal(await balanceMinor(s, recipients[0]!.handle, 'NGN'), 1000);

      // "Restart" after a long downtime: new workers (as a new process would build) find the rows due
      // by the clock and catch up. Two workers racing claim each card once (FOR UPDATE SKIP LOCKED).
      clock.advance(3 * DAY);
      const [first, second] = await Promise.all([giftCardJobs(s.context).runOnce(), giftCardJobs(s.context).runOnce()]);
      assert.equal(first.delivered + second.delivered, 2);
      assert.equal(await balanceMinor(s, recipients[1]!.handle, 'NGN'), 2000);
      assert.equal(await balanceMinor(s, recipients[2]!.handle, 'NGN'), 3000);
      for (const card of cards) {
        const [row] = await s.db.query<{ status: string; n: number; redeemer_kind: string }>(
          `SELECT c.status, count(r.id)::int8 AS n, max(r.redeemer_kind) AS redeemer_kind FROM gift_cards c LEFT JOIN gift_card_redemptions r ON r.card_id = c.id WHERE c.id = $1 GROUP BY c.status`,
          [card.id],
        );
        assert.deepEqual(row, { status: 'used', n: 1, redeemer_kind: 'delivery' });
      }
      assert.deepEqual(await giftCardJobs(s.context).runOnce(), { delivered: 0, deliveryFailures: 0, expired: 0 });
      await assertLiabilityMatchesCards(s);
    });

    it('records a failed delivery on the card, keeps it scheduled and retries it after a backoff', async () => {
      const s = server();
      const shop = await merchant(s);
      const recipient = await holder(s);
      const card = await issueCard(s, shop.headers, { amount: 7, currency: 'NGN', deliverToHandle: recipient.handle, deliverAt: new Date(clock.now().getTime() + MINUTE).toISOString() });
      const [wallet] = await s.db.query<{ deliver_to_wallet_id: string }>('SELECT deliver_to_wallet_id FROM gift_cards WHERE id = $1', [card.id]);
      await s.db.query('UPDATE gift_cards SET deliver_to_wallet_id = NULL WHERE id = $1', [card.id]);
      clock.advance(MINUTE);
      assert.deepEqual(await giftCardJobs(s.context).runOnce(), { delivered: 0, deliveryFailures: 1, expired: 0 });
      const [failed] = await s.db.query<{ status: string; delivery_attempts: number; delivery_error: string; delivery_next_attempt_at: Date }>(
        'SELECT status, delivery_attempts, delivery_error, delivery_next_attempt_at FROM gift_cards WHERE id = $1',
        [card.id],
      );
      assert.equal(failed?.status, 'scheduled');
      assert.equal(failed?.delivery_attempts, 1);
      assert.match(failed?.delivery_error ?? '', /no recipient wallet/);
      assert.equal(failed?.delivery_next_attempt_at.toISOString(), new Date(clock.now().getTime() + MINUTE).toISOString());
      await s.db.query('UPDATE gift_cards SET deliver_to_wallet_id = $2 WHERE id = $1', [card.id, wallet!.deliver_to_wallet_id]);
      assert.equal((await giftCardJobs(s.context).runOnce()).delivered, 0, 'not before its backoff');
      clock.advance(MINUTE);
      assert.equal((await giftCardJobs(s.context).runOnce()).delivered, 1);
      assert.equal(await balanceMinor(s, recipient.handle, 'NGN'), 700);
    });

    it('delivers a scheduled subscription gift by activating the plan for the recipient', async () => {
      const s = server();
      const shop = await merchant(s);
      const plan = await s.request<{ id: string }>('POST', '/api/merchant/subscription-plans', { headers: shop.headers, body: { name: 'Basic', price: 200, currency: 'NGN' } });
      const recipient = await holder(s);
      const deliverAt = new Date(clock.now().getTime() + 10 * MINUTE).toISOString();
      const gift = await issueCard(s, shop.headers, { subscriptionPlanId: plan.body.id, giftMonths: 2, deliverToHandle: recipient.handle, deliverAt });
      assert.equal(gift.status, 'scheduled');
      assert.equal(gift.amount, 400);
      clock.advance(10 * MINUTE);
      assert.equal((await giftCardJobs(s.context).runOnce()).delivered, 1);
      const activations = await s.request<{ data: { handle: string; months: number; startsAt: string }[] }>('GET', `/api/merchant/subscription-plans/${plan.body.id}/activations`, { headers: shop.headers });
      assert.deepEqual(activations.body.data.map((row) => [row.handle, row.months, row.startsAt]), [[`@${recipient.handle}`, 2, clock.now().toISOString()]]);
      assert.equal(await balanceMinor(s, recipient.handle, 'NGN'), 0);
    });

    it('expires active cards by the job, returns their balance to the issuer, and applies expiry on every read before the job runs', async () => {
      const s = server();
      const shop = await merchant(s);
      const person = await holder(s, { fund: 100 });
      const byPerson = await issueCard(s, person.headers, { amount: 40, currency: 'NGN', expiresInMonths: 1 }, 'wallet');
      const byShop = await issueCard(s, shop.headers, { amount: 25, currency: 'NGN', expiresInMonths: 1 });
      const spender = await holder(s);
      await redeem(s, spender.headers, { code: byShop.code, redeemAmount: 5 }, 'wallet');
      const shopBefore = await balanceMinor(s, shop.bare, 'NGN');
      assert.equal(await balanceMinor(s, person.handle, 'NGN'), 6000);

      clock.advance(40 * DAY);
      // A read before any job run already answers expired (and writes it).
      const read = await s.request<Json>('GET', `/api/gift-cards/verify?code=${byPerson.code}`);
      assert.equal(read.body.status, 'expired');
      assert.equal(read.body.valid, false);
      assert.equal(await balanceMinor(s, person.handle, 'NGN'), 10_000, 'the unspent 40 went back to the holder');
      const run = await giftCardJobs(s.context).runOnce();
      assert.equal(run.expired, 1);
      assert.equal(await balanceMinor(s, shop.bare, 'NGN'), shopBefore + 2000, 'the remaining 20 went back to the merchant');
      const record = await s.request<Json>('GET', `/api/merchant/gift-cards/${byShop.id}`, { headers: shop.headers });
      assert.equal(record.body.status, 'expired');
      assert.equal(record.body.amountRemaining, 20);
      assert.equal(record.body.returnedAmount, 20);
      assert.equal(record.body.endReason, 'expired');
      assert.equal(record.body.endedAt, byShop.expiresAt);
      assert.equal((await giftCardJobs(s.context).runOnce()).expired, 0, 'nothing is expired twice');
      await assertLiabilityMatchesCards(s);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
