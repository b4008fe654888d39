import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { ADMIN, useTestServer } from '../../testing/server.ts';
import { checkLedger } from '../../ledger/check.ts';
import { DAY, HOUR, type Json, agent, assertLiabilityMatchesCards, balanceMinor, holder, issueCard, merchant, redeem, runJobs, testClock } from '../../testing/gift-cards.ts';

type Page = { data: Json[]; total: number; limit: number; offset: number };

for (const target of await databaseTargets()) {
  describe(`gift card admin on ${target.name}`, () => {
    const clock = testClock('2030-07-01T12:00:00.000Z');
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20 });
    const ids: Record<string, string> = {};
    let shopId = '';
    let agentId = '';
    let holderHandle = '';

    it('lists every card with filters (status, issuerType, issuerId, mode, date range) and pagination', async () => {
      const s = server();
      const shop = await merchant(s);
      const person = await holder(s, { fund: 100 });
      const cashPoint = await agent(s, { fund: 100 });
      shopId = shop.id;
      agentId = cashPoint.agentId;
      holderHandle = person.handle;
      ids.m1 = (await issueCard(s, shop.headers, { amount: 10, currency: 'NGN' })).id; // 1 July
      clock.advance(DAY);
      ids.m2 = (await issueCard(s, shop.headers, { amount: 20, currency: 'NGN' })).id; // 2 July
      ids.w1 = (await issueCard(s, person.headers, { amount: 5, currency: 'NGN' }, 'wallet')).id; // 2 July
      clock.advance(DAY);
      ids.a1 = (await issueCard(s, cashPoint.headers, { amount: 7, currency: 'NGN' }, 'agent')).id; // 3 July
      await s.request('PATCH', `/api/admin/gift-cards/${ids.m1}`, { headers: ADMIN, body: { action: 'cancel' } });

      const list = (query = '') => s.request<Page>('GET', `/api/admin/gift-cards${query}`, { headers: ADMIN });
      const all = await list();
      assert.equal(all.status, 200);
      assert.equal(all.body.total, 4);
      // Newest first: a1 (3 July), then m2 and w1 (same instant, 2 July), then m1 (1 July).
      assert.equal(all.body.data[0]?.id, ids.a1);
      assert.deepEqual([all.body.data[1]?.id, all.body.data[2]?.id].sort(), [ids.m2, ids.w1].sort());
      assert.equal(all.body.data[3]?.id, ids.m1);
      const first = all.body.data.find((card) => card.id === ids.a1)!;
      assert.equal(first.issuerType, 'agent');
      assert.equal(first.issuerId, cashPoint.agentId);
      assert.equal(first.issuerHandle, `@${cashPoint.handle}`);
      assert.equal(first.code, undefined);

      assert.deepEqual((await list('?status=cancelled')).body.data.map((card) => card.id), [ids.m1]);
      assert.deepEqual((await list('?issuerType=wallet')).body.data.map((card) => card.id), [ids.w1]);
      assert.deepEqual((await list('?issuerType=agent')).body.data.map((card) => card.id), [ids.a1]);
      assert.equal((await list(`?issuerType=merchant&issuerId=${shop.id}`)).body.total, 2);
      assert.equal((await list(`?issuerId=@${person.handle}`)).body.total, 1);
      assert.equal((await list('?status=active&issuerType=merchant')).body.total, 1);
      assert.deepEqual((await list('?from=2030-07-02&to=2030-07-02')).body.data.map((card) => card.id).sort(), [ids.m2, ids.w1].sort());
      assert.equal((await list('?from=2030-07-02T12:00:00Z')).body.total, 3);
      assert.equal((await list('?to=2030-07-01T12:00:00.000Z')).body.total, 1);
      assert.equal((await list('?startDate=2030-07-03&endDate=2030-07-31')).body.total, 1);
      assert.equal((await list('?mode=live')).body.total, 0);

      const pageOne = await list('?limit=2&offset=0');
      const pageTwo = await list('?limit=2&offset=2');
      assert.deepEqual([pageOne.body.limit, pageOne.body.offset, pageOne.body.total, pageOne.body.data.length], [2, 0, 4, 2]);
      assert.deepEqual([pageTwo.body.offset, pageTwo.body.data.length], [2, 2]);
      assert.deepEqual([...pageOne.body.data, ...pageTwo.body.data].map((card) => card.id), all.body.data.map((card) => card.id));
      assert.equal((await list('?limit=101')).status, 400);
      assert.equal((await list('?limit=0')).status, 400);
      assert.equal((await list('?status=lost')).status, 400);
      assert.equal((await list('?issuerType=bank')).status, 400);
      const badDate = await list('?from=yesterday');
      assert.equal(badDate.status, 400);
      assert.equal(badDate.body.data, undefined);
      assert.equal((await s.request('GET', '/api/admin/gift-cards', { headers: shop.headers })).status, 403);
      assert.equal((await s.request('GET', '/api/admin/gift-cards')).status, 401);
      const one = await s.request<Json>('GET', `/api/admin/gift-cards/${ids.w1}`, { headers: ADMIN });
      assert.equal(one.body.issuerType, 'wallet');
      assert.equal(one.body.issuerHandle, `@${person.handle}`);
      assert.equal((await s.request('GET', '/api/admin/gift-cards/gcard_missing', { headers: ADMIN })).status, 404);
    });

    it('answers stats over every card', async () => {
      const s = server();
      const stats = await s.request<Json & { byStatus: Record<string, number>; byIssuerType: Record<string, number>; byCurrency: Record<string, Json> }>('GET', '/api/admin/gift-cards/stats', { headers: ADMIN });
      assert.equal(stats.status, 200);
      assert.equal(stats.body.totalCount, 4);
      assert.deepEqual(stats.body.byStatus, { scheduled: 0, active: 3, used: 0, expired: 0, cancelled: 1, refunded: 0 });
      assert.deepEqual(stats.body.byIssuerType, { merchant: 2, wallet: 1, agent: 1 });
      assert.deepEqual(stats.body.byCurrency, { NGN: { issuedCount: 4, issuedValue: 42, outstandingValue: 32, totalDrawn: 0, returnedValue: 10 } });
      assert.equal(stats.body.redemptionCount, 0);
      // Issued at or after 24 hours ago: m2 and w1 (exactly 24 hours ago) and a1.
      assert.equal(stats.body.issuedLast24Hours, 3);
      assert.equal((await s.request<Json>('GET', '/api/admin/gift-cards/stats?mode=live', { headers: ADMIN })).body.totalCount, 0);
      assert.equal((await s.request<Json>('GET', `/api/admin/gift-cards?issuerId=${agentId}`, { headers: ADMIN })).body.total, 1);
      assert.equal((await s.request<Json>('GET', `/api/admin/gift-cards?issuerId=${holderHandle}`, { headers: ADMIN })).body.total, 1);
      assert.equal((await s.request<Json>('GET', `/api/admin/gift-cards?issuerId=${shopId}`, { headers: ADMIN })).body.total, 2);
    });

    it('cancels and refunds through the ledger, and refuses used (409), expired (410) and ended (409) cards', async () => {
      const s = server();
      const shop = await merchant(s);
      const customer = await holder(s);
      const patch = (id: string, body: Json) => s.request<Json>('PATCH', `/api/admin/gift-cards/${id}`, { headers: ADMIN, body });

      const spent = await issueCard(s, shop.headers, { amount: 10, currency: 'NGN' });
      await redeem(s, customer.headers, { code: spent.code }, 'wallet');
      const used = await patch(spent.id, { action: 'refund' });
      assert.equal(used.status, 409);
      assert.equal(used.body.code, 'gift_card_used');

      const again = await patch(ids.m1!, { action: 'refund' });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'gift_card_cancelled');

      const expiring = await issueCard(s, shop.headers, { amount: 10, currency: 'NGN', expiresInMonths: 1 });
      const scheduled = await issueCard(s, shop.headers, { amount: 15, currency: 'NGN', deliverToHandle: customer.handle, deliverAt: new Date(clock.now().getTime() + HOUR).toISOString() });
      const before = await balanceMinor(s, shop.bare, 'NGN');
      const cancelled = await patch(scheduled.id, { action: 'cancel', reason: 'wrong recipient' });
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.status, 'cancelled');
      assert.equal(cancelled.body.endReason, 'cancelled: wrong recipient');
      assert.equal(await balanceMinor(s, shop.bare, 'NGN'), before + 1500);
      clock.advance(2 * HOUR);
      assert.equal((await runJobs(s.context)).delivered, 0, 'a cancelled delivery never happens');
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 1000);

      clock.advance(35 * DAY);
      const expired = await patch(expiring.id, { action: 'cancel' });
      assert.equal(expired.status, 410);
      assert.equal(expired.body.code, 'gift_card_expired');
      assert.equal((await patch('gcard_nope', { action: 'cancel' })).status, 404);
      const badAction = await patch(ids.m2!, { action: 'delete' });
      assert.equal(badAction.status, 400);
      assert.equal(badAction.body.code, 'validation_failed');
      assert.equal((await s.request('PATCH', `/api/admin/gift-cards/${ids.m2}`, { headers: shop.headers, body: { action: 'cancel' } })).status, 403);

      await assertLiabilityMatchesCards(s);
      const report = await checkLedger(s.db);
      assert.deepEqual(report.violations, []);
      const kinds = await s.db.query<{ kind: string }>(`SELECT DISTINCT kind FROM ledger_transfers WHERE kind LIKE 'gift_card%' ORDER BY kind`);
      assert.deepEqual(kinds.map((row) => row.kind), ['gift_card_cancel', 'gift_card_expiry', 'gift_card_issue', 'gift_card_redeem']);
    });
  });
}
