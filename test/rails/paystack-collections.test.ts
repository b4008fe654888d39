// Mobile money at the till through Paystack's Charge API, over real HTTP on both databases: a live
// merchant in Ghana with Paystack the only provider that collects there (MoMo not configured), the
// Paystack fake charging the phone and posting its signed charge.success to
// /api/rails/paystack/webhook, the collections job polling GET /transaction/verify. Completed
// (credited once, ledger clean), declined, an OTP the till cannot give, expired, completed with the
// webhook lost, a duplicate webhook, a forged one; the fake counts charges per reference, so
// "exactly once" is checked where the money leaves the customer; and the traffic is held against
// Paystack's OpenAPI document.
// Run: NODE_ENV=test TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx --test test/rails/paystack-collections.test.ts
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { chargeKeyOf } from '@tapline/sync-server/rails/paystack/index.ts';
import { ManualClock, type TestServer, balanceMinor, databaseTargets, freePort, systemBalance, useTestServer } from '@tapline/sync-server/testing';
import { checkRequest, checkResponse, checkWebhook, explains, openApi, type Problem } from '../fakes/paystack/contract.ts';
import { CHARGE_SCENARIOS, type PaystackFake, startPaystackFake } from '../fakes/paystack/index.ts';
import { KNOWN_MISMATCHES } from '../fakes/paystack/known-mismatches.ts';
import { type Collection, eventTypes, liveTill } from './live-till.ts';
import { until } from './until.ts';

for (const target of await databaseTargets()) {
  describe(`mobile money at the till: live through the Paystack fake (Charge API) on ${target.name}`, async () => {
    const port = await freePort();
    const publicBaseUrl = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = {};
    let fake: PaystackFake;
    before(async () => {
      fake = await startPaystackFake({ callbackBase: `${publicBaseUrl}/api/rails/paystack/webhook`, delayScale: 0.05 });
      Object.assign(env, fake.env);
    });
    after(async () => fake.stop());
    const clock = new ManualClock(Date.now());
    // No RAIL_ROUTES: the default mobile_money:GH order (momo, paystack, flutterwave) with only Paystack configured.
    const server = useTestServer(target, { port, now: clock.now, env: { PUBLIC_BASE_URL: publicBaseUrl, RAIL_TIMEOUT_MS: '2000', COLLECTION_TIMEOUT_SECONDS: '120' }, app: { providerEnv: env } });
    const ask = (s: TestServer, headers: Record<string, string>, amountMinor: number, phone: string) =>
      s.request<Collection>('POST', '/api/pos/collections', { headers: { ...headers, 'idempotency-key': randomUUID() }, body: { amountMinor, currency: 'GHS', phone, description: 'Groceries' } });
    const read = async (s: TestServer, headers: Record<string, string>, id: string) => (await s.request<Collection>('GET', `/api/pos/collections/${id}`, { headers })).body;
    const chargesOf = (id: string) => fake.charges().filter((charge) => charge.reference === chargeKeyOf(id));
    const webhooksOf = (id: string) => fake.webhooks().filter((webhook) => webhook.reference === chargeKeyOf(id));

    it('completes on the signed charge.success (confirmed by verify): credited once from rail_clearing, one event, charged once, ledger clean', async () => {
      const s = server();
      const shop = await liveTill(s, 'GH', 'GHS');
      const before = await balanceMinor(s, shop.merchant.handle, 'GHS', 'live');
      const clearing = await systemBalance(s, 'rail_clearing:paystack', 'GHS', 'live');
      // The cashier types the local form; the server sends Paystack 0240000001 as MTN.
      const created = await ask(s, shop.term, 2_550, '024 000 0001');
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual([created.body.status, created.body.provider, created.body.providerReference], ['pending', 'paystack', chargeKeyOf(created.body.id)]);
      const done = await until('charge.success', async () => {
        const now = await read(s, shop.term, created.body.id);
        return now.status === 'completed' ? now : undefined;
      });
      assert.equal(done.amountMinor, 2_550);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'GHS', 'live'), before + 2_550);
      assert.equal(await systemBalance(s, 'rail_clearing:paystack', 'GHS', 'live'), clearing - 2_550);
      assert.deepEqual(chargesOf(created.body.id).map((charge) => [charge.charged, charge.amount, charge.currency, charge.phone, charge.provider]), [[1, 2_550, 'GHS', '0240000001', 'mtn']]);
      assert.deepEqual(webhooksOf(created.body.id).map((webhook) => webhook.answered), [200]);
      // The job and a repeated verdict change nothing more.
      clock.advance(5_000);
      await s.context.collections.runOnce();
      assert.equal(await s.context.collections.applyCallback(created.body.id, 'paystack', { status: 'completed' }), 'unchanged');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'GHS', 'live'), before + 2_550, 'credited once');
      assert.deepEqual(await eventTypes(s, shop.merchant.id, created.body.id), ['pos.collection.completed']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a duplicate charge.success is harmless: both acknowledged, credited once', async () => {
      const s = server();
      const shop = await liveTill(s, 'GH', 'GHS');
      const before = await balanceMinor(s, shop.merchant.handle, 'GHS', 'live');
      const created = await ask(s, shop.term, 1_000, CHARGE_SCENARIOS.duplicate_callback.gh);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      await until('both webhooks', async () => (webhooksOf(created.body.id).length === 2 ? true : undefined));
      assert.deepEqual(webhooksOf(created.body.id).map((webhook) => webhook.answered), [200, 200]);
      assert.equal((await read(s, shop.term, created.body.id)).status, 'completed');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'GHS', 'live'), before + 1_000, 'credited once');
      assert.deepEqual(await eventTypes(s, shop.merchant.id, created.body.id), ['pos.collection.completed']);
      assert.equal(chargesOf(created.body.id)[0]!.charged, 1);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('declined and short of funds fail in words (found by polling verify: no failure webhook exists); an OTP the till cannot give fails at once; nothing credited', async () => {
      const s = server();
      const shop = await liveTill(s, 'GH', 'GHS');
      const before = await balanceMinor(s, shop.merchant.handle, 'GHS', 'live');
      const declined = await ask(s, shop.term, 1_000, CHARGE_SCENARIOS.declined.gh);
      const short = await ask(s, shop.term, 1_000, CHARGE_SCENARIOS.insufficient_funds.gh);
      const otp = await ask(s, shop.term, 1_000, '020 000 0001');
      for (const created of [declined, short, otp]) assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual([otp.body.status, otp.body.failureCode], ['failed', 'provider_error']);
      assert.match(otp.body.failureReason ?? '', /one-time code \(OTP or voucher\)/);
      const [a, b] = await until('both failures', async () => {
        clock.advance(2_000);
        await s.context.collections.runOnce();
        const both = [await read(s, shop.term, declined.body.id), await read(s, shop.term, short.body.id)];
        return both.every((c) => c.status === 'failed') ? both : undefined;
      });
      assert.equal(a!.failureCode, 'declined', a!.failureReason);
      assert.equal(b!.failureCode, 'insufficient_funds', b!.failureReason);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'GHS', 'live'), before, 'nothing credited');
      for (const created of [declined, short, otp]) assert.deepEqual(await eventTypes(s, shop.merchant.id, created.body.id), ['pos.collection.failed']);
      assert.deepEqual([...chargesOf(declined.body.id), ...chargesOf(short.body.id), ...chargesOf(otp.body.id)].map((charge) => charge.charged), [0, 0, 0]);
    });

    it('webhook lost: the job\'s verify finds the payment; credited once', async () => {
      const s = server();
      const shop = await liveTill(s, 'GH', 'GHS');
      const before = await balanceMinor(s, shop.merchant.handle, 'GHS', 'live');
      const created = await ask(s, shop.term, 7_000, CHARGE_SCENARIOS.callback_lost.gh);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const done = await until('the poll', async () => {
        clock.advance(2_000);
        await s.context.collections.runOnce();
        const now = await read(s, shop.term, created.body.id);
        return now.status === 'completed' ? now : undefined;
      });
      assert.equal(done.amountMinor, 7_000);
      assert.equal(webhooksOf(created.body.id).length, 0, 'no webhook came');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'GHS', 'live'), before + 7_000);
      assert.equal(chargesOf(created.body.id)[0]!.charged, 1);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('nobody answers: expired (no_answer) after one last verify; a forged charge.success is refused (401) and credits nothing', async () => {
      const s = server();
      const shop = await liveTill(s, 'GH', 'GHS');
      const before = await balanceMinor(s, shop.merchant.handle, 'GHS', 'live');
      const created = await ask(s, shop.term, 3_000, CHARGE_SCENARIOS.no_answer.gh);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      // Forged: a charge.success for this collection signed with another key, then unsigned.
      const body = JSON.stringify({ event: 'charge.success', data: { reference: chargeKeyOf(created.body.id), status: 'success', amount: 3_000, currency: 'GHS' } });
      const forged = createHmac('sha512', 'sk_test_not_the_key').update(body).digest('hex');
      const attempts: Record<string, string>[] = [{ 'content-type': 'application/json', 'x-paystack-signature': forged }, { 'content-type': 'application/json' }];
      for (const headers of attempts) {
        const answer = await fetch(`${publicBaseUrl}/api/rails/paystack/webhook`, { method: 'POST', headers, body });
        assert.equal(answer.status, 401);
        assert.equal(((await answer.json()) as { code: string }).code, 'callback_refused');
      }
      assert.equal((await read(s, shop.term, created.body.id)).status, 'pending');
      const asked = () => fake.exchanges().filter((e) => e.pathname === `/transaction/verify/${chargeKeyOf(created.body.id)}`).length;
      const beforeExpiry = asked();
      clock.advance(121_000);
      await s.context.collections.runOnce();
      const expired = await read(s, shop.term, created.body.id);
      assert.deepEqual([expired.status, expired.failureCode], ['expired', 'no_answer']);
      assert.ok(asked() > beforeExpiry, 'asked verify once more before expiring');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'GHS', 'live'), before, 'nothing credited');
      assert.deepEqual(await eventTypes(s, shop.merchant.id, created.body.id), ['pos.collection.expired']);
      assert.equal(chargesOf(created.body.id)[0]!.charged, 0);
    });

    it('a live merchant where Paystack does not collect (Côte d\'Ivoire, MoMo not configured) gets 422 collection_unavailable', async () => {
      const s = server();
      const shop = await liveTill(s, 'CI', 'XOF');
      const answer = await s.request<Collection>('POST', '/api/pos/collections', { headers: shop.term, body: { amountMinor: 1_000, currency: 'XOF', phone: '+2250701234567' } });
      assert.deepEqual([answer.status, answer.body.code], [422, 'collection_unavailable'], JSON.stringify(answer.body));
    });

    it('the contract check: every request the server sent Paystack, and every answer and webhook of the fake, matches openapi.yaml but for the reviewed known mismatches', () => {
      const doc = openApi();
      const exchanges = fake.exchanges();
      assert.ok(exchanges.some((e) => e.method === 'POST' && e.pathname === '/charge'));
      assert.ok(exchanges.some((e) => e.method === 'GET' && e.pathname.startsWith('/transaction/verify/')));
      const problems: Problem[] = [];
      for (const exchange of exchanges) problems.push(...checkRequest(doc, exchange), ...checkResponse(doc, exchange));
      for (const webhook of fake.webhooks()) problems.push(...checkWebhook(doc, JSON.parse(webhook.body)));
      const unexplained = problems.filter((problem) => !KNOWN_MISMATCHES.some((mismatch) => explains(mismatch, problem)));
      assert.deepEqual([...new Set(unexplained.map((p) => `${p.where} | ${p.path} | ${p.keyword} | ${p.message}`))], []);
    });
  });
}
