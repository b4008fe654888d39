import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifySignature } from '@tapline/shared/webhook-signature';
import { checkLedger } from '../../ledger/check.ts';
import { walletAccount } from '../../ledger/accounts.ts';
import { transfer } from '../../ledger/ledger.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { WebhookReceiver } from '../../testing/receiver.ts';
import { useTestServer } from '../../testing/server.ts';
import { DAY, assertLiabilityMatchesCards, balanceMinor, holder, issueCard, keyHeaders, merchant, monthsAfter, redeem, testClock } from '../../testing/gift-cards.ts';
import { chargeTransferId } from './service.ts';
import { type Subscription, chargesOf, createPlan, credit, eventsOf, readSubscription, renew, subscribed, subscribedCustomer } from '../../testing/subscriptions.ts';

type Redeemed = { redemption: { subscription: { startsAt: string; endsAt: string; months: number } | null } };

for (const target of await databaseTargets()) {
  describe(`subscription renewals on ${target.name}`, () => {
    const clock = testClock();
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20 });
    let receiver: WebhookReceiver;
    before(async () => {
      receiver = await WebhookReceiver.start();
    });
    after(async () => {
      await receiver.close();
    });

    /** Moves the clock to an instant (never back). */
    const advanceTo = (iso: string) => {
      const ms = Date.parse(iso) - clock.now().getTime();
      assert.ok(ms >= 0, `the clock only moves forward (to ${iso})`);
      clock.advance(ms);
    };

    it('renews at the period end exactly once, even with three workers at once and a run after them', async () => {
      const s = server();
      const shop = await merchant(s);
      const plan = await createPlan(s, shop.headers, { price: 1000 });
      const customers = [await holder(s, { fund: 3500 }), await holder(s, { fund: 3500 })];
      const subscriptions: Subscription[] = [];
      for (const customer of customers) subscriptions.push(await subscribed(s, customer.headers, { planId: plan.id }));
      const merchantBefore = await balanceMinor(s, shop.bare, 'NGN');
      const firstEnd = subscriptions[0]!.currentPeriodEnd;

      advanceTo(firstEnd);
      await Promise.all([renew(s), renew(s), renew(s)]);
      await renew(s);
      for (const [index, created] of subscriptions.entries()) {
        const customer = customers[index]!;
        const renewed = await readSubscription(s, customer.headers, created.id);
        assert.equal(renewed.status, 'active');
        assert.equal(renewed.period, 2);
        assert.equal(renewed.currentPeriodStart, created.currentPeriodEnd);
        assert.equal(renewed.currentPeriodEnd, monthsAfter(new Date(created.currentPeriodEnd), 1));
        assert.equal(renewed.nextChargeAt, renewed.currentPeriodEnd);
        const charges = await chargesOf(s, customer.headers, created.id);
        assert.deepEqual(charges.map((charge) => [charge.period, charge.status, charge.attempt, charge.transferId, charge.attemptedAt]), [
          [1, 'paid', 1, chargeTransferId(created.id, 1), created.createdAt],
          [2, 'paid', 1, chargeTransferId(created.id, 2), firstEnd],
        ]);
        assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 150_000, '3500 - 2 x 1000');
        const events = await eventsOf(s, created.id);
        assert.deepEqual(events.map((event) => [event.event, event.period, event.periodStart, event.status]), [
          ['subscription.charged', 1, created.currentPeriodStart, 'active'],
          ['subscription.charged', 2, created.currentPeriodEnd, 'active'],
        ]);
      }
      assert.equal((await balanceMinor(s, shop.bare, 'NGN')) - merchantBefore, 200_000, 'two renewals of 1000.00');

      // The second guard: the ledger refuses to post a period's transfer twice (it answers exists).
      const [wallet] = await s.db.query<{ id: string }>("SELECT id FROM wallets WHERE handle = $1 AND mode = 'test'", [customers[0]!.handle]);
      const [merchantWallet] = await s.db.query<{ id: string }>("SELECT id FROM wallets WHERE handle = $1 AND mode = 'test'", [shop.bare]);
      const again = await s.db.transaction((tx) =>
        transfer(tx, {
          id: chargeTransferId(subscriptions[0]!.id, 2),
          mode: 'test',
          kind: 'subscription_charge',
          legs: [
            { account: walletAccount(wallet!.id, 'NGN'), amount: -100_000 },
            { account: walletAccount(merchantWallet!.id, 'NGN'), amount: 100_000 },
          ],
        }),
      );
      assert.deepEqual(again, { status: 'exists' });
      assert.equal(await balanceMinor(s, customers[0]!.handle, 'NGN'), 150_000);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('past_due after a refused renewal, retried 1 day later; a retry that pays makes it active on the same billing anchor', async () => {
      const s = server();
      const shop = await merchant(s);
      const { customer, created } = await subscribedCustomer(s, shop.headers, { price: 1000, fund: 1000 });
      const end = created.currentPeriodEnd;
      const nextEnd = monthsAfter(new Date(end), 1);

      advanceTo(end);
      await renew(s);
      const pastDue = await readSubscription(s, shop.headers, created.id);
      const retryAt = new Date(Date.parse(end) + DAY).toISOString();
      assert.deepEqual(
        [pastDue.status, pastDue.period, pastDue.currentPeriodEnd, pastDue.failedAttempts, pastDue.nextChargeAt],
        ['past_due', 1, end, 1, retryAt],
      );
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 0);

      advanceTo(new Date(Date.parse(retryAt) - 1).toISOString());
      await renew(s);
      assert.equal((await readSubscription(s, shop.headers, created.id)).failedAttempts, 1, 'no retry before its time');

      await credit(s, customer.handle, 1000);
      clock.advance(1);
      await renew(s);
      const paid = await readSubscription(s, customer.headers, created.id);
      assert.deepEqual(
        [paid.status, paid.period, paid.currentPeriodStart, paid.currentPeriodEnd, paid.failedAttempts, paid.nextChargeAt],
        ['active', 2, end, nextEnd, 0, nextEnd],
      );
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 0);
      const charges = await chargesOf(s, shop.headers, created.id);
      assert.deepEqual(charges.map((charge) => [charge.period, charge.status, charge.attempt, charge.failureReason, charge.periodStart, charge.periodEnd, charge.transferId]), [
        [1, 'paid', 1, null, created.currentPeriodStart, end, chargeTransferId(created.id, 1)],
        [2, 'failed', 1, 'insufficient_funds', end, nextEnd, null],
        [2, 'paid', 2, null, end, nextEnd, chargeTransferId(created.id, 2)],
      ]);
      const events = await eventsOf(s, created.id);
      assert.deepEqual(events.map((event) => [event.event, event.status, event.period, event.failureReason, event.nextAttemptAt]), [
        ['subscription.charged', 'active', 1, undefined, undefined],
        ['subscription.charge_failed', 'past_due', 2, 'insufficient_funds', retryAt],
        ['subscription.charged', 'active', 2, undefined, undefined],
      ]);
      assert.equal(events[1]!.amount, 1000);
      assert.equal(events[1]!.periodStart, end);
      assert.equal(events[1]!.timestamp, end);
    });

    it('after the retries 1, 3 and 5 days apart all fail: cancelled (payment_failed), every event in the outbox and at the webhook', async () => {
      const s = server();
      const created = await s.createMerchant({ webhookUrl: receiver.url });
      const headers = keyHeaders(created.testKey);
      const { plan, customer, created: subscription } = await subscribedCustomer(s, headers, { price: 1000, fund: 1000 });
      const attempts = [subscription.currentPeriodEnd];
      advanceTo(subscription.currentPeriodEnd);
      await renew(s);
      for (const days of [1, 3, 5]) {
        const read = await readSubscription(s, headers, subscription.id);
        assert.equal(read.status, 'past_due');
        const due = new Date(clock.now().getTime() + days * DAY).toISOString();
        assert.equal(read.nextChargeAt, due, `retry ${days} days after the previous attempt`);
        advanceTo(due);
        attempts.push(due);
        await renew(s);
      }
      const cancelled = await readSubscription(s, customer.headers, subscription.id);
      assert.deepEqual(
        [cancelled.status, cancelled.cancellationReason, cancelled.cancelledAt, cancelled.nextChargeAt, cancelled.failedAttempts, cancelled.period],
        ['cancelled', 'payment_failed', attempts[3], null, 4, 1],
      );
      const charges = await chargesOf(s, headers, subscription.id);
      assert.deepEqual(charges.map((charge) => [charge.period, charge.status, charge.attempt, charge.attemptedAt]), [
        [1, 'paid', 1, subscription.createdAt],
        ...attempts.map((at, index) => [2, 'failed', index + 1, at]),
      ]);
      const events = await eventsOf(s, subscription.id);
      assert.deepEqual(events.map((event) => [event.event, event.status, event.attempt, event.nextAttemptAt ?? null, event.timestamp]), [
        ['subscription.charged', 'active', 1, null, subscription.createdAt],
        ['subscription.charge_failed', 'past_due', 1, attempts[1], attempts[0]],
        ['subscription.charge_failed', 'past_due', 2, attempts[2], attempts[1]],
        ['subscription.charge_failed', 'past_due', 3, attempts[3], attempts[2]],
        ['subscription.charge_failed', 'cancelled', 4, null, attempts[3]],
        ['subscription.cancelled', 'cancelled', undefined, null, attempts[3]],
      ]);
      assert.deepEqual({ ...events[5], id: undefined }, {
        id: undefined,
        event: 'subscription.cancelled',
        subscriptionId: subscription.id,
        planId: plan.id,
        merchantId: created.id,
        customerHandle: `@${customer.handle}`,
        amount: 1000,
        currency: 'NGN',
        period: 1,
        periodStart: subscription.currentPeriodStart,
        periodEnd: subscription.currentPeriodEnd,
        status: 'cancelled',
        cancellationReason: 'payment_failed',
        failureReason: 'insufficient_funds',
        timestamp: attempts[3],
      });

      // The dispatcher delivers them, signed with the merchant's webhook secret.
      await s.context.events.runOnce();
      const delivered = receiver.received
        .filter((request) => JSON.parse(request.rawBody.toString('utf8')).subscriptionId === subscription.id)
        .map((request) => {
          assert.equal(verifySignature(created.webhookSecret, request.rawBody, String(request.headers['x-service-signature'])), true);
          return JSON.parse(request.rawBody.toString('utf8')) as Record<string, unknown>;
        });
      assert.deepEqual(delivered.map((event) => event.id).sort(), events.map((event) => event.id).sort());
      await renew(s);
      assert.equal((await chargesOf(s, headers, subscription.id)).length, 5, 'a cancelled subscription is left alone');
    });

    it('a gift activation covering now: the subscription starts paid through its end, then renews from there', async () => {
      const s = server();
      const shop = await merchant(s);
      const plan = await createPlan(s, shop.headers, { price: 1000 });
      const customer = await holder(s, { fund: 1500 });
      const gift = await issueCard(s, shop.headers, { subscriptionPlanId: plan.id, giftMonths: 2 });
      const activated = (await redeem(s, customer.headers, { code: gift.code }, 'wallet')).body as unknown as Redeemed;
      const giftEnd = activated.redemption.subscription!.endsAt;
      assert.equal(giftEnd, monthsAfter(clock.now(), 2));
      clock.advance(DAY);

      const created = await subscribed(s, customer.headers, { planId: plan.id });
      assert.equal(created.currentPeriodEnd, giftEnd);
      assert.equal(created.nextChargeAt, giftEnd);
      assert.equal(created.period, 1);
      assert.deepEqual(await chargesOf(s, customer.headers, created.id), [], 'nothing charged while the gift runs');
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 150_000);
      assert.deepEqual(await eventsOf(s, created.id), []);

      advanceTo(giftEnd);
      await renew(s);
      const renewed = await readSubscription(s, customer.headers, created.id);
      assert.deepEqual([renewed.status, renewed.period, renewed.currentPeriodStart, renewed.currentPeriodEnd], ['active', 2, giftEnd, monthsAfter(new Date(giftEnd), 1)]);
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 50_000);
      await assertLiabilityMatchesCards(s);
    });

    it('a gift redeemed while the holder subscribes: whichever commits first, the paid time adds up (no month lost or paid twice)', async () => {
      const s = server();
      const shop = await merchant(s);
      const plan = await createPlan(s, shop.headers, { price: 1000 });
      for (let round = 0; round < 3; round += 1) {
        const customer = await holder(s, { fund: 1000 });
        const gift = await issueCard(s, shop.headers, { subscriptionPlanId: plan.id, giftMonths: 2 });
        const [created, redeemed] = await Promise.all([
          subscribed(s, customer.headers, { planId: plan.id }),
          redeem(s, customer.headers, { code: gift.code }, 'wallet'),
        ]);
        assert.equal(redeemed.status, 200, JSON.stringify(redeemed.body));
        const activation = (redeemed.body as unknown as Redeemed).redemption.subscription!;
        const charged = (await chargesOf(s, customer.headers, created.id)).length;
        const read = await readSubscription(s, customer.headers, created.id);
        assert.equal(read.currentPeriodEnd, activation.endsAt, 'the subscription runs exactly to the gift\'s end');
        assert.equal(read.currentPeriodEnd, monthsAfter(clock.now(), charged === 1 ? 3 : 2), 'one paid month plus two gifted, or two gifted');
        assert.equal(await balanceMinor(s, customer.handle, 'NGN'), charged === 1 ? 0 : 100_000);
      }
    });

    it('a gift redeemed while subscribed extends the current period; while past_due it pays the overdue period and makes it active', async () => {
      const s = server();
      const shop = await merchant(s);
      const { plan, customer, created } = await subscribedCustomer(s, shop.headers, { price: 1000, fund: 1000 });
      const end = created.currentPeriodEnd;

      // Active: the gift's months start where the paid period ends, and the period runs on to their end.
      const extendGift = await issueCard(s, shop.headers, { subscriptionPlanId: plan.id, giftMonths: 2 });
      const extended = (await redeem(s, customer.headers, { code: extendGift.code }, 'wallet')).body as unknown as Redeemed;
      const extendedEnd = monthsAfter(new Date(end), 2);
      assert.deepEqual(extended.redemption.subscription, { ...extended.redemption.subscription, startsAt: end, endsAt: extendedEnd, months: 2 });
      const afterGift = await readSubscription(s, customer.headers, created.id);
      assert.deepEqual([afterGift.status, afterGift.period, afterGift.currentPeriodStart, afterGift.currentPeriodEnd, afterGift.nextChargeAt], ['active', 1, created.currentPeriodStart, extendedEnd, extendedEnd]);
      advanceTo(end);
      await renew(s);
      assert.deepEqual((await chargesOf(s, customer.headers, created.id)).length, 1, 'not charged at the old end');

      // Past due: the renewal at the extended end fails (the wallet is empty) ...
      advanceTo(extendedEnd);
      await renew(s);
      const pastDue = await readSubscription(s, customer.headers, created.id);
      assert.equal(pastDue.status, 'past_due');
      // ... and a gift redeemed now pays from the old end, as period 2.
      clock.advance(DAY / 2);
      const rescueGift = await issueCard(s, shop.headers, { subscriptionPlanId: plan.id, giftMonths: 1 });
      const rescued = (await redeem(s, customer.headers, { code: rescueGift.code }, 'wallet')).body as unknown as Redeemed;
      const rescuedEnd = monthsAfter(new Date(extendedEnd), 1);
      assert.equal(rescued.redemption.subscription?.startsAt, extendedEnd);
      assert.equal(rescued.redemption.subscription?.endsAt, rescuedEnd);
      const active = await readSubscription(s, customer.headers, created.id);
      assert.deepEqual(
        [active.status, active.period, active.currentPeriodStart, active.currentPeriodEnd, active.failedAttempts, active.nextChargeAt],
        ['active', 2, extendedEnd, rescuedEnd, 0, rescuedEnd],
      );
      // The retry that was due is gone: nothing is attempted until the gift's end.
      clock.advance(DAY);
      await renew(s);
      assert.deepEqual((await chargesOf(s, customer.headers, created.id)).map((charge) => charge.status), ['paid', 'failed']);
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 0);
      await assertLiabilityMatchesCards(s);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
