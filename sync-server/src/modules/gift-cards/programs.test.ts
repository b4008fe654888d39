import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { uniqueHandle, useTestServer } from '../../testing/server.ts';
import { HOUR, type IssuedCard, type Json, assertLiabilityMatchesCards, balanceMinor, holder, merchant, redeem, runJobs, testClock } from '../../testing/gift-cards.ts';

type ProgramIssue = {
  batchId: string;
  issuedCount: number;
  failedCount: number;
  skippedCount: number;
  issued: (IssuedCard & { index: number })[];
  failed: { index: number; code: string; reason: string; externalRef?: string }[];
  skipped: { index: number; externalRef: string; cardId: string; reason: string }[];
};

type Evaluation = { rewarded: boolean; reward: number; currency: string; rule: { id: string; name: string } | null; card: IssuedCard | null };

for (const target of await databaseTargets()) {
  describe(`gift card programs and reward rules on ${target.name}`, () => {
    const clock = testClock();
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20 });

    it('creates, lists, renames and archives programs; other merchants and the other mode see none of them', async () => {
      const s = server();
      const shop = await merchant(s);
      const created = await s.request<Json>('POST', '/api/merchant/gift-card-programs', { headers: shop.headers, body: { name: ' Staff rewards ', description: 'Year-end' } });
      assert.equal(created.status, 201);
      assert.match(String(created.body.id), /^gcp_/);
      assert.equal(created.body.name, 'Staff rewards');
      assert.equal(created.body.description, 'Year-end');
      assert.equal(created.body.status, 'active');
      assert.equal(created.body.archived, false);
      await s.request('POST', '/api/merchant/gift-card-programs', { headers: shop.headers, body: { name: 'Second' } });
      const list = await s.request<{ data: Json[]; total: number }>('GET', '/api/merchant/gift-card-programs', { headers: shop.headers });
      assert.equal(list.body.total, 2);
      assert.deepEqual(list.body.data.map((program) => program.name).sort(), ['Second', 'Staff rewards']);
      const renamed = await s.request<Json>('PATCH', `/api/merchant/gift-card-programs/${created.body.id}`, { headers: shop.headers, body: { name: 'Staff 2030' } });
      assert.equal(renamed.body.name, 'Staff 2030');
      const archived = await s.request<Json>('PATCH', `/api/merchant/gift-card-programs/${created.body.id}`, { headers: shop.headers, body: { archived: true } });
      assert.equal(archived.body.status, 'archived');
      assert.equal(archived.body.archived, true);
      const employee = await holder(s);
      const refused = await s.request<Json>('POST', `/api/merchant/gift-card-programs/${created.body.id}/issue`, { headers: shop.headers, body: { employees: [{ handle: employee.handle, amount: 1, currency: 'NGN' }] } });
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, 'program_archived');
      const restored = await s.request<Json>('PATCH', `/api/merchant/gift-card-programs/${created.body.id}`, { headers: shop.headers, body: { status: 'active' } });
      assert.equal(restored.body.status, 'active');
      const other = await merchant(s);
      assert.equal((await s.request('GET', `/api/merchant/gift-card-programs/${created.body.id}`, { headers: other.headers })).status, 404);
      assert.equal((await s.request('GET', `/api/merchant/gift-card-programs/${created.body.id}`, { headers: shop.liveHeaders })).status, 404);
      assert.equal((await s.request('PATCH', `/api/merchant/gift-card-programs/${created.body.id}`, { headers: other.headers, body: { name: 'x' } })).status, 404);
      assert.equal((await s.request<{ total: number }>('GET', '/api/merchant/gift-card-programs', { headers: other.headers })).body.total, 0);
      assert.equal((await s.request('POST', '/api/merchant/gift-card-programs', { headers: shop.headers, body: { name: '' } })).status, 400);
    });

    it('issues to employees: locked cards, scheduled deliveries, per-row failures, and externalRefs never issued twice', async () => {
      const s = server();
      const shop = await merchant(s);
      const program = await s.request<{ id: string }>('POST', '/api/merchant/gift-card-programs', { headers: shop.headers, body: { name: 'Bonus' } });
      const [ada, bola, chidi] = [await holder(s), await holder(s), await holder(s)];
      const deliverAt = new Date(clock.now().getTime() + HOUR).toISOString();
      const before = await balanceMinor(s, shop.bare, 'NGN');
      const first = await s.request<ProgramIssue>('POST', `/api/merchant/gift-card-programs/${program.body.id}/issue`, {
        headers: shop.headers,
        body: {
          message: 'Thank you!',
          employees: [
            { handle: `@${ada!.handle}`, amount: 100, currency: 'NGN', externalRef: 'EMP-1' },
            { handle: bola!.handle, amount: 50, currency: 'NGN', externalRef: 'EMP-2', deliverAt },
            { handle: 'x', amount: 10, currency: 'NGN' },
            { handle: chidi!.handle, amount: 10.001, currency: 'NGN' },
            { handle: ada!.handle, amount: 5, currency: 'NGN', externalRef: 'EMP-1' },
            { handle: uniqueHandle('ghost'), amount: 5, currency: 'NGN', deliverAt },
            { handle: chidi!.handle, amount: 20, currency: 'NGN' },
            { handle: chidi!.handle, amount: 20, currency: 'NGN', deliverAt: '2020-01-01T00:00:00Z' },
            // Locked to a handle nobody holds (a typo in the file): whoever claimed it later would own the card.
            { handle: uniqueHandle('typo'), amount: 5, currency: 'NGN', externalRef: 'EMP-9' },
          ],
        },
      });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.equal(first.body.issuedCount, 3);
      assert.equal(first.body.failedCount, 5);
      assert.equal(first.body.skippedCount, 1);
      assert.deepEqual(first.body.issued.map((card) => [card.index, card.lockedToHandle, card.status, card.programId, card.message]), [
        [0, `@${ada!.handle}`, 'active', program.body.id, 'Thank you!'],
        [1, `@${bola!.handle}`, 'scheduled', program.body.id, 'Thank you!'],
        [6, `@${chidi!.handle}`, 'active', program.body.id, 'Thank you!'],
      ]);
      assert.deepEqual(first.body.failed.map((failure) => [failure.index, failure.code]), [
        [2, 'handle_invalid'],
        [3, 'amount_too_many_decimals'],
        [5, 'wallet_not_found'],
        [7, 'deliver_at_must_be_future'],
        [8, 'wallet_not_found'],
      ]);
      assert.equal(first.body.failed[4]?.externalRef, 'EMP-9', 'a failed row names its externalRef');
      assert.deepEqual(first.body.skipped.map((skip) => [skip.index, skip.externalRef, skip.cardId]), [[4, 'EMP-1', first.body.issued[0]!.id]]);
      assert.equal(before - (await balanceMinor(s, shop.bare, 'NGN')), 17_000, 'only the issued cards are charged');

      const second = await s.request<ProgramIssue>('POST', `/api/merchant/gift-card-programs/${program.body.id}/issue`, {
        headers: shop.headers,
        body: {
          employees: [
            { handle: ada!.handle, amount: 100, currency: 'NGN', externalRef: 'EMP-1' },
            { handle: bola!.handle, amount: 50, currency: 'NGN', externalRef: 'EMP-2' },
            { handle: chidi!.handle, amount: 30, currency: 'NGN', externalRef: 'EMP-3' },
          ],
        },
      });
      assert.equal(second.body.issuedCount, 1);
      assert.equal(second.body.skippedCount, 2);
      assert.deepEqual(second.body.skipped.map((skip) => [skip.externalRef, skip.cardId]), [
        ['EMP-1', first.body.issued[0]!.id],
        ['EMP-2', first.body.issued[1]!.id],
      ]);
      assert.equal(second.body.issued[0]?.externalRef, 'EMP-3');

      // Each card is locked to its employee.
      const adaCard = first.body.issued[0]!;
      assert.equal((await redeem(s, chidi!.headers, { code: adaCard.code }, 'wallet')).body.code, 'handle_locked');
      assert.equal((await redeem(s, ada!.headers, { code: adaCard.code, redeemAmount: 40 }, 'wallet')).status, 200);
      // Bola's card arrives at deliverAt.
      clock.advance(HOUR);
      assert.equal((await runJobs(s.context)).delivered, 1);
      assert.equal(await balanceMinor(s, bola!.handle, 'NGN'), 5000);

      const detail = await s.request<Json & { analytics: Json }>('GET', `/api/merchant/gift-card-programs/${program.body.id}`, { headers: shop.headers });
      assert.equal(detail.status, 200);
      assert.equal(detail.body.name, 'Bonus');
      assert.deepEqual(
        { ...detail.body.analytics, byCurrency: undefined, avgMinutesToFirstRedeem: undefined },
        {
          issuedCount: 4,
          issuedValue: 200,
          redeemedCount: 1,
          partialCount: 1,
          activeCount: 3,
          outstandingValue: 110,
          totalDrawn: 90,
          redemptionRatePct: 50,
          avgMinutesToFirstRedeem: undefined,
          currency: 'NGN',
          scope: { type: 'program', id: program.body.id },
          byCurrency: undefined,
        },
      );
      assert.equal(detail.body.analytics.avgMinutesToFirstRedeem, 30, '0 minutes (Ada) and 60 minutes (Bola): mean 30');
      await assertLiabilityMatchesCards(s);
    });

    it('keeps cashback rules and issues the best matching reward, capped at maxReward, locked to the customer', async () => {
      const s = server();
      const shop = await merchant(s);
      const customer = await holder(s);
      const rule = async (body: Json) => {
        const created = await s.request<Json>('POST', '/api/merchant/reward-rules', { headers: shop.headers, body });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        return created.body;
      };
      const bronze = await rule({ name: 'Bronze', minSpend: 1000, percent: 2, currency: 'NGN' });
      const gold = await rule({ name: 'Gold', minSpend: 5000, percent: 5, maxReward: 200, currency: 'NGN' });
      const everyone = await rule({ name: 'Everyone', minSpend: 0, percent: 1, currency: 'NGN' });
      await rule({ name: 'Dollar', minSpend: 1, percent: 50, currency: 'USD' });
      assert.deepEqual(
        { ...gold, id: undefined, createdAt: undefined, updatedAt: undefined },
        { id: undefined, name: 'Gold', minSpend: 5000, percent: 5, maxReward: 200, currency: 'NGN', status: 'active', archived: false, mode: 'test', createdAt: undefined, updatedAt: undefined },
      );
      for (const [body, field] of [
        [{ name: 'x', minSpend: 1, percent: 0, currency: 'NGN' }, 'percent 0'],
        [{ name: 'x', minSpend: 1, percent: 100.5, currency: 'NGN' }, 'percent over 100'],
        [{ name: 'x', minSpend: -1, percent: 1, currency: 'NGN' }, 'negative minSpend'],
        [{ name: 'x', minSpend: 1, percent: 1, currency: 'XOF' }, 'currency'],
      ] as const) {
        assert.equal((await s.request('POST', '/api/merchant/reward-rules', { headers: shop.headers, body })).status, 400, field);
      }
      const invalidPercent = await s.request<Json>('POST', '/api/merchant/reward-rules', { headers: shop.headers, body: { name: 'x', minSpend: 1, percent: 2.555, currency: 'NGN' } });
      assert.equal(invalidPercent.body.code, 'percent_invalid');

      const evaluate = async (spendAmount: number, currency = 'NGN') => {
        const answer = await s.request<Evaluation>('POST', '/api/merchant/rewards/evaluate', { headers: shop.headers, body: { customerHandle: `@${customer.handle}`, spendAmount, currency } });
        assert.ok(answer.status === 200 || answer.status === 201, JSON.stringify(answer.body));
        return answer;
      };
      const small = await evaluate(800);
      assert.equal(small.status, 201);
      assert.deepEqual([small.body.rewarded, small.body.reward, small.body.rule?.name], [true, 8, 'Everyone']);
      assert.equal(small.body.card?.amount, 8);
      assert.equal(small.body.card?.lockedToHandle, `@${customer.handle}`);
      assert.equal(small.body.card?.rewardRuleId, everyone.id);
      assert.match(small.body.card?.code ?? '', /^gc_[0-9a-f]{64}$/);
      assert.deepEqual([(await evaluate(3000)).body.rule?.name, (await evaluate(3000)).body.reward], ['Bronze', 60]);
      // 10,000: Bronze 200, Gold min(500, 200) = 200, Everyone 100: a tie goes to the higher percent.
      assert.deepEqual([(await evaluate(10_000)).body.rule?.name, (await evaluate(10_000)).body.reward], ['Gold', 200]);
      assert.deepEqual([(await evaluate(100_000)).body.rule?.name, (await evaluate(100_000)).body.reward], ['Bronze', 2000]);
      const archived = await s.request<Json>('PATCH', `/api/merchant/reward-rules/${bronze.id}`, { headers: shop.headers, body: { archived: true } });
      assert.equal(archived.body.status, 'archived');
      assert.deepEqual([(await evaluate(100_000)).body.rule?.name, (await evaluate(100_000)).body.reward], ['Everyone', 1000]);
      const capped = await s.request<Json>('PATCH', `/api/merchant/reward-rules/${everyone.id}`, { headers: shop.headers, body: { maxReward: 50, name: 'Everyone capped' } });
      assert.equal(capped.body.maxReward, 50);
      assert.equal(capped.body.name, 'Everyone capped');
      assert.deepEqual([(await evaluate(100_000)).body.rule?.name, (await evaluate(100_000)).body.reward], ['Gold', 200]);
      const nothing = await evaluate(50, 'KES');
      assert.equal(nothing.status, 200);
      assert.deepEqual(nothing.body, { rewarded: false, reward: 0, currency: 'KES', rule: null, card: null });
      const listed = await s.request<{ total: number }>('GET', '/api/merchant/reward-rules?status=active', { headers: shop.headers });
      assert.equal(listed.body.total, 3);
      assert.equal((await s.request<{ total: number }>('GET', '/api/merchant/reward-rules', { headers: shop.headers })).body.total, 4);
      const unknown = await s.request<Json>('POST', '/api/merchant/rewards/evaluate', { headers: shop.headers, body: { customerHandle: uniqueHandle('nobody'), spendAmount: 10, currency: 'NGN' } });
      assert.equal(unknown.status, 404);
      const other = await merchant(s);
      assert.equal((await s.request('PATCH', `/api/merchant/reward-rules/${gold.id}`, { headers: other.headers, body: { percent: 9 } })).status, 404);
      assert.equal((await s.request<Evaluation>('POST', '/api/merchant/rewards/evaluate', { headers: other.headers, body: { customerHandle: customer.handle, spendAmount: 10_000, currency: 'NGN' } })).body.rewarded, false);

      // The cashback card is the customer's alone.
      const stranger = await holder(s);
      assert.equal((await redeem(s, stranger.headers, { code: small.body.card!.code }, 'wallet')).status, 403);
      assert.equal((await redeem(s, customer.headers, { code: small.body.card!.code }, 'wallet')).status, 200);
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 800);
    });
  });
}
