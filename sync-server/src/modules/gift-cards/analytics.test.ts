import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { ADMIN, useTestServer } from '../../testing/server.ts';
import { formatDecimal } from '@tapline/shared/money';
import { DAY, type Json, agent, holder, issueCard, merchant, redeem, runJobs, testClock } from '../../testing/gift-cards.ts';

type Figures = {
  issuedCount: number;
  issuedValue: number;
  redeemedCount: number;
  partialCount: number;
  activeCount: number;
  outstandingValue: number;
  totalDrawn: number;
  redemptionRatePct: number;
  avgMinutesToFirstRedeem: number | null;
  currency: string;
};
type Analytics = Figures & { scope: { type: string; id: string | null }; byCurrency: Record<string, Figures> };

/** round half up (minor x rate) for two-decimal currencies, independently of the server's code. */
function halfUpConvert(minor: number, rate: string): number {
  const [whole = '0', fraction = ''] = rate.split('.');
  const numerator = BigInt(minor) * BigInt(`${whole}${fraction}`);
  const denominator = 10n ** BigInt(fraction.length);
  return Number((numerator * 2n + denominator) / (2n * denominator));
}

for (const target of await databaseTargets()) {
  describe(`gift card analytics on ${target.name}`, () => {
    const clock = testClock('2030-05-04T08:00:00.000Z');
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20 });
    let merchantFigures: Analytics | undefined;
    let agentFigures: Analytics | undefined;

    it('equals the figures computed by hand for a scripted merchant scenario (two currencies, every state)', async () => {
      const s = server();
      const shop = await merchant(s);
      const credit = await s.request('POST', `/api/admin/wallets/${shop.bare}/credit`, { headers: ADMIN, body: { amount: 500, currency: 'USD' } });
      assert.equal(credit.status, 200);
      const customer = await holder(s);
      const friend = await holder(s);
      const t0 = clock.now().getTime();
      const a = await issueCard(s, shop.headers, { amount: 100, currency: 'NGN' });
      const b = await issueCard(s, shop.headers, { amount: 50, currency: 'NGN' });
      await issueCard(s, shop.headers, { amount: 30, currency: 'NGN', expiresInMonths: 1 });
      const d = await issueCard(s, shop.headers, { amount: 20, currency: 'NGN' });
      const e = await issueCard(s, shop.headers, { amount: 40, currency: 'USD' });
      await issueCard(s, shop.headers, { amount: 10, currency: 'NGN', deliverToHandle: friend.handle, deliverAt: new Date(t0 + 120 * 60_000).toISOString() });
      const at = (minutes: number) => clock.advance(t0 + minutes * 60_000 - clock.now().getTime());
      at(10);
      assert.equal((await redeem(s, customer.headers, { code: a.code }, 'wallet')).status, 200); // A used, first redeem after 10 min
      at(25);
      assert.equal((await redeem(s, customer.headers, { code: b.code, redeemAmount: 20 }, 'wallet')).status, 200); // B partial, 25 min
      at(40);
      assert.equal((await redeem(s, customer.headers, { code: b.code, redeemAmount: 5 }, 'wallet')).status, 200); // B again: first time unchanged
      at(60);
      assert.equal((await redeem(s, customer.headers, { code: e.code, redeemAmount: 10 }, 'wallet')).status, 200); // E partial, 60 min
      at(90);
      assert.equal((await s.request('PATCH', `/api/admin/gift-cards/${d.id}`, { headers: ADMIN, body: { action: 'cancel' } })).status, 200);
      at(120);
      assert.equal((await runJobs(s.context)).delivered, 1); // F delivered: used, 120 min
      clock.advance(40 * DAY); // C expires; expiry is applied by the read below

      const answer = await s.request<Analytics>('GET', '/api/merchant/gift-cards/analytics', { headers: shop.headers });
      assert.equal(answer.status, 200);
      const analytics = answer.body;
      // By hand, NGN: A 100 used (drawn 100), B 50 partial (drawn 25, left 25), C 30 expired, D 20 cancelled, F 10 used.
      assert.deepEqual(analytics.byCurrency.NGN, {
        issuedCount: 5,
        issuedValue: 210,
        redeemedCount: 2,
        partialCount: 1,
        activeCount: 1,
        outstandingValue: 25,
        totalDrawn: 135,
        redemptionRatePct: 60,
        avgMinutesToFirstRedeem: 51.67, // (10 + 25 + 120) / 3
        currency: 'NGN',
      });
      // USD: E 40, 10 drawn after 60 minutes, 30 left.
      assert.deepEqual(analytics.byCurrency.USD, {
        issuedCount: 1,
        issuedValue: 40,
        redeemedCount: 0,
        partialCount: 1,
        activeCount: 1,
        outstandingValue: 30,
        totalDrawn: 10,
        redemptionRatePct: 100,
        avgMinutesToFirstRedeem: 60,
        currency: 'USD',
      });
      // Top level, in the merchant's currency (NGN): counts add up; USD money converts at the mid rate, half up.
      const rate = formatDecimal(s.context.fx.midRate(await s.context.fx.snapshot(), 'USD', 'NGN'));
      assert.deepEqual(
        { ...analytics, byCurrency: undefined },
        {
          issuedCount: 6,
          issuedValue: (21_000 + halfUpConvert(4000, rate)) / 100,
          redeemedCount: 2,
          partialCount: 2,
          activeCount: 2,
          outstandingValue: (2500 + halfUpConvert(3000, rate)) / 100,
          totalDrawn: (13_500 + halfUpConvert(1000, rate)) / 100,
          redemptionRatePct: 66.67, // 4 of 6 cards redeemed at least once
          avgMinutesToFirstRedeem: 53.75, // (10 + 25 + 120 + 60) / 4
          currency: 'NGN',
          scope: { type: 'merchant', id: shop.id },
          byCurrency: undefined,
        },
      );
      const inUsd = await s.request<Analytics>('GET', '/api/merchant/gift-cards/analytics?currency=USD', { headers: shop.headers });
      assert.equal(inUsd.body.currency, 'USD');
      assert.equal(inUsd.body.issuedCount, 6);
      merchantFigures = analytics;
    });

    it('scopes analytics to an agent, and the admin reproduces merchant, agent and platform scopes', async () => {
      const s = server();
      const cashPoint = await agent(s, { fund: 1000 });
      const customer = await holder(s);
      const first = await issueCard(s, cashPoint.headers, { amount: 100, currency: 'NGN' }, 'agent');
      await issueCard(s, cashPoint.headers, { amount: 50, currency: 'NGN' }, 'agent');
      clock.advance(5 * 60_000);
      assert.equal((await redeem(s, customer.headers, { code: first.code }, 'wallet')).status, 200);
      const own = await s.request<Analytics>('GET', '/api/agent/gift-cards/analytics', { headers: cashPoint.headers });
      assert.equal(own.status, 200);
      const expected = {
        issuedCount: 2,
        issuedValue: 150,
        redeemedCount: 1,
        partialCount: 0,
        activeCount: 1,
        outstandingValue: 50,
        totalDrawn: 100,
        redemptionRatePct: 50,
        avgMinutesToFirstRedeem: 5,
        currency: 'NGN',
      };
      assert.deepEqual(own.body, { ...expected, scope: { type: 'agent', id: cashPoint.agentId }, byCurrency: { NGN: expected } });
      agentFigures = own.body;

      const byAgent = await s.request<Analytics>('GET', `/api/admin/gift-cards/analytics?issuerType=agent&issuerId=${cashPoint.agentId}`, { headers: ADMIN });
      assert.deepEqual({ ...byAgent.body, scope: undefined }, { ...agentFigures, scope: undefined });
      const byHandle = await s.request<Analytics>('GET', `/api/admin/gift-cards/analytics?issuerId=@${cashPoint.handle}`, { headers: ADMIN });
      assert.equal(byHandle.body.issuedCount, 2);
      const merchantId = merchantFigures!.scope.id!;
      const byMerchant = await s.request<Analytics>('GET', `/api/admin/gift-cards/analytics?issuerType=merchant&issuerId=${merchantId}&currency=NGN`, { headers: ADMIN });
      assert.deepEqual({ ...byMerchant.body, scope: undefined }, { ...merchantFigures!, scope: undefined });
      const platform = await s.request<Analytics>('GET', '/api/admin/gift-cards/analytics?currency=NGN', { headers: ADMIN });
      assert.equal(platform.body.scope.type, 'platform');
      assert.equal(platform.body.issuedCount, 8);
      assert.equal(platform.body.byCurrency.NGN?.issuedCount, 7);
      assert.equal(platform.body.byCurrency.NGN?.issuedValue, 360);
      assert.equal(platform.body.byCurrency.NGN?.totalDrawn, 235);
      assert.equal(platform.body.redeemedCount, 3);
      assert.equal(platform.body.redemptionRatePct, 62.5); // 5 of 8
      const liveOnly = await s.request<Analytics>('GET', '/api/admin/gift-cards/analytics?mode=live', { headers: ADMIN });
      assert.deepEqual(
        { ...liveOnly.body, scope: undefined },
        { issuedCount: 0, issuedValue: 0, redeemedCount: 0, partialCount: 0, activeCount: 0, outstandingValue: 0, totalDrawn: 0, redemptionRatePct: 0, avgMinutesToFirstRedeem: null, currency: 'USD', scope: undefined, byCurrency: {} },
      );
      // A merchant key cannot read the admin analytics; a holder's own analytics are empty.
      assert.equal((await s.request<Json>('GET', '/api/admin/gift-cards/analytics', { headers: { 'x-merchant-api-key': (await merchant(s)).testKey } })).status, 403);
      const mine = await s.request<Analytics>('GET', '/api/wallet/gift-cards/analytics', { headers: customer.headers });
      assert.equal(mine.body.issuedCount, 0);
      assert.equal(mine.body.avgMinutesToFirstRedeem, null);
    });
  });
}
