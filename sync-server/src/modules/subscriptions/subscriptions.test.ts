import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkLedger } from '../../ledger/check.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { uniqueHandle, useTestServer } from '../../testing/server.ts';
import { balanceMinor, holder, merchant, monthsAfter, testClock } from '../../testing/gift-cards.ts';
import { chargeTransferId } from './service.ts';
import { type Json, type Subscription, chargesOf, createPlan, eventsOf, readSubscription, renew, subscribe, subscribed } from '../../testing/subscriptions.ts';

for (const target of await databaseTargets()) {
  describe(`subscriptions on ${target.name}`, () => {
    const clock = testClock();
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20 });

    it('a wallet holder subscribes with their session: the first month is charged at once, in one transfer, with its event', async () => {
      const s = server();
      const shop = await merchant(s);
      const plan = await createPlan(s, shop.headers, { price: 1500 });
      const customer = await holder(s, { fund: 4000 });
      const merchantBefore = await balanceMinor(s, shop.bare, 'NGN');
      const now = clock.now();

      const created = await subscribed(s, customer.headers, { planId: plan.id });
      assert.match(created.id, /^sub_/);
      assert.deepEqual({ ...created, id: undefined }, {
        id: undefined,
        planId: plan.id,
        customerHandle: `@${customer.handle}`,
        merchantId: shop.id,
        mode: 'test',
        status: 'active',
        amount: 1500,
        currency: 'NGN',
        interval: 'month',
        period: 1,
        currentPeriodStart: now.toISOString(),
        currentPeriodEnd: monthsAfter(now, 1),
        cancelAtPeriodEnd: false,
        nextChargeAt: monthsAfter(now, 1),
        failedAttempts: 0,
        cancelledAt: null,
        cancellationReason: null,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      });
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 250_000, '4000.00 - 1500.00');
      assert.equal((await balanceMinor(s, shop.bare, 'NGN')) - merchantBefore, 150_000);

      const charges = await chargesOf(s, customer.headers, created.id);
      assert.deepEqual(charges.map((charge) => ({ ...charge, id: undefined })), [{
        id: undefined,
        subscriptionId: created.id,
        period: 1,
        periodStart: now.toISOString(),
        periodEnd: monthsAfter(now, 1),
        amount: 1500,
        currency: 'NGN',
        status: 'paid',
        failureReason: null,
        attempt: 1,
        attemptedAt: now.toISOString(),
        transferId: chargeTransferId(created.id, 1),
      }]);
      const [transfer] = await s.db.query<{ kind: string; n: number }>(
        'SELECT t.kind, (SELECT count(*) FROM ledger_postings p WHERE p.transfer_id = t.id)::int8 AS n FROM ledger_transfers t WHERE t.id = $1',
        [chargeTransferId(created.id, 1)],
      );
      assert.deepEqual(transfer, { kind: 'subscription_charge', n: 2 });

      const events = await eventsOf(s, created.id);
      assert.equal(events.length, 1);
      assert.match(String(events[0]!.id), /^evt_/);
      assert.deepEqual({ ...events[0], id: undefined, chargeId: undefined }, {
        id: undefined,
        event: 'subscription.charged',
        subscriptionId: created.id,
        planId: plan.id,
        merchantId: shop.id,
        customerHandle: `@${customer.handle}`,
        amount: 1500,
        currency: 'NGN',
        period: 1,
        periodStart: now.toISOString(),
        periodEnd: monthsAfter(now, 1),
        status: 'active',
        chargeId: undefined,
        attempt: 1,
        transferId: chargeTransferId(created.id, 1),
        timestamp: now.toISOString(),
      });
      assert.equal(events[0]!.chargeId, charges[0]!.id);
      assert.deepEqual(await readSubscription(s, shop.headers, created.id), created, 'the merchant reads the same subscription');
    });

    it('a merchant subscribes a customer with their handle and wallet PIN; a wrong PIN is 403 and creates nothing', async () => {
      const s = server();
      const shop = await merchant(s);
      const plan = await createPlan(s, shop.headers, { price: 250.5 });
      const customer = await holder(s, { fund: 1000, pin: '4829' });

      const wrong = await subscribe(s, shop.headers, { planId: plan.id, customerHandle: `@${customer.handle.toUpperCase()}`, walletPin: '0000' });
      assert.equal(wrong.status, 403);
      assert.equal(wrong.body.code, 'wrong_pin');
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 100_000);

      const created = await subscribed(s, shop.headers, { planId: plan.id, customerHandle: `@${customer.handle.toUpperCase()}`, walletPin: '4829' });
      assert.equal(created.customerHandle, `@${customer.handle}`);
      assert.equal(created.amount, 250.5);
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 100_000 - 25_050);
      assert.deepEqual(await readSubscription(s, customer.headers, created.id), created, 'the holder reads it too');
      const [count] = await s.db.query<{ n: number }>('SELECT count(*)::int8 AS n FROM subscriptions WHERE wallet_id = (SELECT id FROM wallets WHERE handle = $1)', [customer.handle]);
      assert.equal(count?.n, 1);
    });

    it('a merchant\'s call meets the wallet\'s PIN lock-out: after 5 wrong PINs, 429 even with the right one', async () => {
      const s = server();
      const shop = await merchant(s);
      const plan = await createPlan(s, shop.headers, { price: 10 });
      const customer = await holder(s, { fund: 100, pin: '4829' });
      const body = { planId: plan.id, customerHandle: customer.handle };
      for (let attempt = 1; attempt <= 5; attempt += 1) {
        const wrong = await subscribe(s, shop.headers, { ...body, walletPin: '0000' });
        assert.equal(wrong.status, 403, `attempt ${attempt}`);
      }
      const locked = await subscribe(s, shop.headers, { ...body, walletPin: '4829' });
      assert.equal(locked.status, 429);
      assert.equal(locked.body.code, 'pin_attempts_exceeded');
      assert.ok(Number(locked.headers.get('retry-after')) > 0);
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 10_000);
    });

    it('honours Idempotency-Key: a retry replays the first answer and charges once; another body is 422; a wrong PIN does not use the key up', async () => {
      const s = server();
      const shop = await merchant(s);
      const plan = await createPlan(s, shop.headers, { price: 100 });
      const other = await createPlan(s, shop.headers, { price: 100, name: 'Other' });
      const customer = await holder(s, { fund: 1000, pin: '4829' });
      const key = { 'idempotency-key': `sub-${uniqueHandle()}` };
      const body = { planId: plan.id, customerHandle: customer.handle, walletPin: '4829' };

      const wrongPin = await subscribe(s, shop.headers, { ...body, walletPin: '1111' }, key);
      assert.equal(wrongPin.status, 403);
      const first = await subscribe(s, shop.headers, body, key);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const replay = await subscribe(s, shop.headers, body, key);
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body, first.body);
      const replayWrongPin = await subscribe(s, shop.headers, { ...body, walletPin: '2222' }, key);
      assert.equal(replayWrongPin.status, 403, 'a replay proves the PIN again');
      const reused = await subscribe(s, shop.headers, { ...body, planId: other.id }, key);
      assert.equal(reused.status, 422);
      assert.equal(reused.body.code, 'idempotency_key_reused');
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 90_000, 'charged once');
      assert.equal((await chargesOf(s, shop.headers, first.body.id)).length, 1);
      const stored = await s.db.query<{ request_hash: string; response_body: string }>('SELECT request_hash, response_body FROM idempotency_keys WHERE key = $1', [key['idempotency-key']]);
      assert.equal(stored.length, 1);
      assert.ok(!stored[0]!.response_body.includes('4829'));

      // A wallet holder's key is theirs: the same key from the holder is a new request.
      const holderKey = await subscribe(s, customer.headers, { planId: other.id }, key);
      assert.equal(holderKey.status, 201);
      assert.notEqual(holderKey.body.id, first.body.id);
    });

    it('without funds: 422 insufficient_funds, no subscription, no charge, no event, nothing moved', async () => {
      const s = server();
      const shop = await merchant(s);
      const plan = await createPlan(s, shop.headers, { price: 1500 });
      const customer = await holder(s, { fund: 1499 });
      const merchantBefore = await balanceMinor(s, shop.bare, 'NGN');
      const refused = await subscribe(s, customer.headers, { planId: plan.id });
      assert.equal(refused.status, 422);
      assert.equal(refused.body.code, 'insufficient_funds');
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 149_900);
      assert.equal(await balanceMinor(s, shop.bare, 'NGN'), merchantBefore);
      const [counts] = await s.db.query<{ subscriptions: number; charges: number; events: number }>(
        `SELECT (SELECT count(*) FROM subscriptions WHERE plan_id = $1)::int8 AS subscriptions,
                (SELECT count(*) FROM subscription_charges c JOIN subscriptions x ON x.id = c.subscription_id WHERE x.plan_id = $1)::int8 AS charges,
                (SELECT count(*) FROM events WHERE body::jsonb ->> 'planId' = $1)::int8 AS events`,
        [plan.id],
      );
      assert.deepEqual(counts, { subscriptions: 0, charges: 0, events: 0 });
      const list = await s.request<{ total: number }>('GET', '/api/subscriptions', { headers: customer.headers });
      assert.equal(list.body.total, 0);
    });

    it('one running subscription per plan and holder: a second is 409, concurrent ones too; after a cancel, a new one is allowed', async () => {
      const s = server();
      const shop = await merchant(s);
      const plan = await createPlan(s, shop.headers, { price: 10 });
      const customer = await holder(s, { fund: 100 });
      const first = await subscribed(s, customer.headers, { planId: plan.id });
      const again = await subscribe(s, shop.headers, { planId: plan.id, customerHandle: customer.handle, walletPin: '1234' });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'subscription_exists');

      const racer = await holder(s, { fund: 100 });
      const raced = await Promise.all([subscribe(s, racer.headers, { planId: plan.id }), subscribe(s, racer.headers, { planId: plan.id })]);
      assert.deepEqual(raced.map((answer) => answer.status).sort(), [201, 409]);
      assert.equal(await balanceMinor(s, racer.handle, 'NGN'), 9_000, 'charged once');

      const cancelled = await s.request<Subscription>('POST', `/api/subscriptions/${first.id}/cancel`, { headers: customer.headers, body: { atPeriodEnd: false } });
      assert.equal(cancelled.status, 200);
      const renewed = await subscribed(s, customer.headers, { planId: plan.id });
      assert.notEqual(renewed.id, first.id);
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 8_000, 'no refund of the cancelled period; the new one is charged');
    });

    it('refuses bad input with 400 and missing credentials with 401', async () => {
      const s = server();
      const shop = await merchant(s);
      const plan = await createPlan(s, shop.headers);
      const customer = await holder(s, { fund: 10_000 });
      const cases: [Record<string, string>, Json, string][] = [
        [customer.headers, {}, 'validation_failed'],
        [customer.headers, { planId: '' }, 'validation_failed'],
        [customer.headers, { planId: 42 }, 'validation_failed'],
        [customer.headers, { planId: plan.id, customerHandle: customer.handle }, 'customer_fields_not_allowed'],
        [shop.headers, { planId: plan.id }, 'customer_handle_required'],
        [shop.headers, { planId: plan.id, customerHandle: customer.handle }, 'wallet_pin_required'],
        [shop.headers, { planId: plan.id, customerHandle: 'x', walletPin: '1234' }, 'validation_failed'],
        [shop.headers, { planId: plan.id, customerHandle: customer.handle, walletPin: '12' }, 'validation_failed'],
      ];
      for (const [headers, body, code] of cases) {
        const refused = await subscribe(s, headers, body);
        assert.equal(refused.status, 400, JSON.stringify(body));
        assert.equal(refused.body.code, code, JSON.stringify(body));
        assert.equal(typeof refused.body.error, 'string');
      }
      for (const query of ['status=paused', 'limit=0', 'limit=101', 'offset=-1']) {
        const refused = await s.request<Json>('GET', `/api/subscriptions?${query}`, { headers: shop.headers });
        assert.equal(refused.status, 400, query);
        assert.equal(refused.body.code, 'validation_failed', query);
      }
      const created = await subscribed(s, customer.headers, { planId: plan.id });
      const badCancel = await s.request<Json>('POST', `/api/subscriptions/${created.id}/cancel`, { headers: customer.headers, body: { atPeriodEnd: 'no' } });
      assert.equal(badCancel.status, 400);
      assert.equal(badCancel.body.code, 'validation_failed');
      const anonymous = await s.request<Json>('POST', '/api/subscriptions', { body: { planId: plan.id } });
      assert.equal(anonymous.status, 401);
      const anonymousList = await s.request<Json>('GET', '/api/subscriptions');
      assert.equal(anonymousList.status, 401);
      const nobody = await subscribe(s, shop.headers, { planId: plan.id, customerHandle: 'nobody_here', walletPin: '1234' });
      assert.equal(nobody.status, 404);
      assert.equal(nobody.body.code, 'wallet_not_found');
    });

    it('404 for another merchant\'s plan or subscription and across modes; 409 for a retired plan', async () => {
      const s = server();
      const shop = await merchant(s);
      const otherShop = await merchant(s);
      const plan = await createPlan(s, shop.headers);
      const customer = await holder(s, { fund: 10_000 });
      const stranger = await holder(s, { fund: 10_000 });

      const foreignPlan = await subscribe(s, otherShop.headers, { planId: plan.id, customerHandle: customer.handle, walletPin: '1234' });
      assert.equal(foreignPlan.status, 404);
      assert.equal(foreignPlan.body.code, 'subscription_plan_not_found');
      await s.createWallet({ handle: customer.handle, mode: 'live', fund: 10_000 });
      const liveKey = await subscribe(s, shop.liveHeaders, { planId: plan.id, customerHandle: customer.handle, walletPin: '1234' });
      assert.equal(liveKey.status, 404);
      assert.equal(liveKey.body.code, 'subscription_plan_not_found');
      const unknown = await subscribe(s, customer.headers, { planId: 'plan_nope' });
      assert.equal(unknown.status, 404);

      const created = await subscribed(s, customer.headers, { planId: plan.id });
      for (const [headers, who] of [[otherShop.headers, 'other merchant'], [shop.liveHeaders, 'live key'], [stranger.headers, 'other holder']] as const) {
        for (const [method, path] of [['GET', `/api/subscriptions/${created.id}`], ['GET', `/api/subscriptions/${created.id}/charges`], ['POST', `/api/subscriptions/${created.id}/cancel`]] as const) {
          const answer = await s.request<Json>(method, path, { headers, ...(method === 'POST' ? { body: {} } : {}) });
          assert.equal(answer.status, 404, `${who} ${method} ${path}`);
          assert.equal(answer.body.code, 'subscription_not_found');
        }
        const list = await s.request<{ total: number }>('GET', '/api/subscriptions', { headers });
        assert.equal(list.body.total, 0, who);
      }

      const retired = await s.request<Json>('PATCH', `/api/merchant/subscription-plans/${plan.id}`, { headers: shop.headers, body: { active: false } });
      assert.equal(retired.status, 200);
      assert.equal(retired.body.active, false);
      const inactive = await subscribe(s, stranger.headers, { planId: plan.id });
      assert.equal(inactive.status, 409);
      assert.equal(inactive.body.code, 'subscription_plan_inactive');
      const foreignPatch = await s.request<Json>('PATCH', `/api/merchant/subscription-plans/${plan.id}`, { headers: otherShop.headers, body: { active: true } });
      assert.equal(foreignPatch.status, 404);
      assert.equal((await readSubscription(s, customer.headers, created.id)).status, 'active', 'running subscriptions keep going');
    });

    it('lists: a merchant its subscribers (filters status and planId), a holder their own, newest first', async () => {
      const s = server();
      const shop = await merchant(s);
      const basic = await createPlan(s, shop.headers, { name: 'Basic', price: 5 });
      const pro = await createPlan(s, shop.headers, { name: 'Pro', price: 20 });
      const ada = await holder(s, { fund: 1000 });
      const obi = await holder(s, { fund: 1000 });
      const adaBasic = await subscribed(s, ada.headers, { planId: basic.id });
      clock.advance(1000);
      const adaPro = await subscribed(s, ada.headers, { planId: pro.id });
      clock.advance(1000);
      const obiBasic = await subscribed(s, obi.headers, { planId: basic.id });
      await s.request('POST', `/api/subscriptions/${adaPro.id}/cancel`, { headers: shop.headers, body: { atPeriodEnd: false } });

      const ids = async (headers: Record<string, string>, query = '') => {
        const page = await s.request<{ data: Subscription[]; total: number; limit: number; offset: number }>('GET', `/api/subscriptions${query}`, { headers });
        assert.equal(page.status, 200, JSON.stringify(page.body));
        return { ids: page.body.data.map((row) => row.id), total: page.body.total, limit: page.body.limit, offset: page.body.offset };
      };
      assert.deepEqual(await ids(shop.headers), { ids: [obiBasic.id, adaPro.id, adaBasic.id], total: 3, limit: 20, offset: 0 });
      assert.deepEqual((await ids(shop.headers, '?status=active')).ids, [obiBasic.id, adaBasic.id]);
      assert.deepEqual((await ids(shop.headers, '?status=cancelled')).ids, [adaPro.id]);
      assert.deepEqual((await ids(shop.headers, `?planId=${basic.id}`)).ids, [obiBasic.id, adaBasic.id]);
      assert.deepEqual(await ids(shop.headers, '?limit=1&offset=1'), { ids: [adaPro.id], total: 3, limit: 1, offset: 1 });
      assert.deepEqual((await ids(ada.headers)).ids, [adaPro.id, adaBasic.id]);
      assert.deepEqual((await ids(obi.headers, `?planId=${pro.id}`)).ids, []);
    });

    it('documents every route in the OpenAPI document, with the state machine and the events', async () => {
      const s = server();
      const docs = await s.request<{ paths: Record<string, Record<string, { description?: string; summary?: string; responses?: Record<string, unknown>; requestBody?: unknown }>> }>('GET', '/docs/json');
      assert.equal(docs.status, 200);
      const paths = docs.body.paths;
      for (const [path, method] of [
        ['/api/subscriptions', 'post'],
        ['/api/subscriptions', 'get'],
        ['/api/subscriptions/{id}', 'get'],
        ['/api/subscriptions/{id}/charges', 'get'],
        ['/api/subscriptions/{id}/cancel', 'post'],
        ['/api/merchant/subscription-plans/{id}', 'patch'],
      ] as const) {
        const operation = paths[path]?.[method];
        assert.ok(operation, `${method} ${path}`);
        assert.ok(operation.summary, `${method} ${path} has a summary`);
      }
      const create = paths['/api/subscriptions']!.post!;
      for (const words of ['subscription.charged', 'subscription.charge_failed', 'subscription.cancelled', 'past_due', 'insufficient_funds', 'No proration']) {
        assert.ok(create.description?.includes(words), words);
      }
      assert.ok(create.responses?.['201'] && create.responses['409'] && create.responses['422']);
      assert.ok(create.requestBody);
    });

    it('cancel now: cancelled at once with its event, no refund; a second cancel is 409', async () => {
      const s = server();
      const shop = await merchant(s);
      const plan = await createPlan(s, shop.headers, { price: 30 });
      const customer = await holder(s, { fund: 100 });
      const created = await subscribed(s, customer.headers, { planId: plan.id });
      clock.advance(3600_000);
      const cancelled = await s.request<Subscription>('POST', `/api/subscriptions/${created.id}/cancel`, { headers: customer.headers, body: { atPeriodEnd: false } });
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.status, 'cancelled');
      assert.equal(cancelled.body.cancelledAt, clock.now().toISOString());
      assert.equal(cancelled.body.cancellationReason, 'cancellation_requested');
      assert.equal(cancelled.body.nextChargeAt, null);
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 7_000, 'no proration refund');
      const again = await s.request<Json>('POST', `/api/subscriptions/${created.id}/cancel`, { headers: shop.headers, body: { atPeriodEnd: false } });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'subscription_cancelled');
      const events = await eventsOf(s, created.id);
      assert.deepEqual(events.map((event) => event.event), ['subscription.charged', 'subscription.cancelled']);
      assert.equal(events[1]!.status, 'cancelled');
      assert.equal(events[1]!.cancellationReason, 'cancellation_requested');
      assert.equal(events[1]!.timestamp, clock.now().toISOString());
      clock.advance(40 * 24 * 3600_000);
      await renew(s);
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 7_000, 'a cancelled subscription is never charged');
      assert.equal((await chargesOf(s, customer.headers, created.id)).length, 1);
    });

    it('cancel at period end (the default): stays active, then the job cancels it at the end instead of charging', async () => {
      const s = server();
      const shop = await merchant(s);
      const plan = await createPlan(s, shop.headers, { price: 30 });
      const customer = await holder(s, { fund: 100 });
      const created = await subscribed(s, customer.headers, { planId: plan.id });
      const marked = await s.request<Subscription>('POST', `/api/subscriptions/${created.id}/cancel`, { headers: shop.headers });
      assert.equal(marked.status, 200, JSON.stringify(marked.body));
      assert.equal(marked.body.status, 'active');
      assert.equal(marked.body.cancelAtPeriodEnd, true);
      const twice = await s.request<Subscription>('POST', `/api/subscriptions/${created.id}/cancel`, { headers: customer.headers, body: { atPeriodEnd: true } });
      assert.equal(twice.status, 200);
      assert.deepEqual(twice.body, marked.body, 'asking again changes nothing');

      clock.advance(Date.parse(created.currentPeriodEnd) - clock.now().getTime() - 1);
      await renew(s);
      assert.equal((await readSubscription(s, customer.headers, created.id)).status, 'active', 'not before the end');
      clock.advance(1);
      await renew(s);
      const ended = await readSubscription(s, customer.headers, created.id);
      assert.equal(ended.status, 'cancelled');
      assert.equal(ended.cancelledAt, created.currentPeriodEnd);
      assert.equal(ended.cancellationReason, 'cancellation_requested');
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 7_000, 'only the first period was charged');
      const events = await eventsOf(s, created.id);
      assert.deepEqual(events.map((event) => event.event), ['subscription.charged', 'subscription.cancelled']);
      assert.equal(events[1]!.periodEnd, created.currentPeriodEnd);
      const report = await checkLedger(s.db);
      assert.deepEqual(report.violations, []);
    });
  });
}
