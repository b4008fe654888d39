// Mobile money through Flutterwave's Direct Charge, over real HTTP on both databases: a live
// merchant in Uganda with Flutterwave the only provider configured (the default mobile_money:UG
// order is momo, flutterwave: MoMo is not configured), the Flutterwave fake charging the phone
// (POST /v3/charges?type=mobile_money_uganda) and posting its charge.completed with `verif-hash`
// to /api/rails/flutterwave/webhook, each one confirmed by GET /v3/transactions/verify_by_reference
// before anything moves, the collections job polling the same. A till collection completing,
// declined, short of funds, expired, completed with the webhook lost, a duplicate webhook, forged
// webhooks (refused and counted), a webhook that verify contradicts, a payment for another amount;
// a Kenyan till (type=mpesa, whose answer carries the charge); a wallet top-up. The fake counts
// charges per tx_ref, so "exactly once" is checked where the money leaves the customer.
// Run: NODE_ENV=test TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx --test test/rails/flutterwave-collections.test.ts
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { chargeKeyOf, placeholderEmail } from '@tapline/sync-server/rails/flutterwave/index.ts';
import { ADMIN, ManualClock, type TestServer, balanceMinor, databaseTargets, freePort, systemBalance, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';
import { CHARGE_SCENARIOS, type FlutterwaveFake, startFlutterwaveFake } from '../fakes/flutterwave/index.ts';
import { type Collection, eventTypes, liveTill } from './live-till.ts';
import { until } from './until.ts';

type TopUp = { id: string; status: string; amount: number; fee: number; total: number; provider: string; failureCode?: string; failureReason?: string };

/** tapline_rail_callbacks_total{provider="flutterwave",verdict=...} now. */
async function callbackCount(s: TestServer, verdict: string): Promise<number> {
  const metrics = await s.request<string>('GET', '/metrics', { headers: ADMIN });
  const line = String(metrics.body).split('\n').find((text) => text.startsWith(`tapline_rail_callbacks_total{provider="flutterwave",verdict="${verdict}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

for (const target of await databaseTargets()) {
  describe(`mobile money live through the Flutterwave fake (Direct Charge) on ${target.name}`, async () => {
    const port = await freePort();
    const publicBaseUrl = `http://127.0.0.1:${port}`;
    const webhookUrl = `${publicBaseUrl}/api/rails/flutterwave/webhook`;
    const env: Record<string, string> = {};
    let fake: FlutterwaveFake;
    before(async () => {
      fake = await startFlutterwaveFake({ callbackBase: webhookUrl, delayScale: 0.05 });
      Object.assign(env, fake.env);
    });
    after(async () => fake.stop());
    const clock = new ManualClock(Date.now());
    // No RAIL_ROUTES: the default mobile_money:UG order (momo, flutterwave) with only Flutterwave configured.
    const server = useTestServer(target, {
      port,
      now: clock.now,
      env: { PUBLIC_BASE_URL: publicBaseUrl, RAIL_TIMEOUT_MS: '2000', COLLECTION_TIMEOUT_SECONDS: '120', WALLET_TOP_UP_FEE_PCT: '2' },
      app: { providerEnv: env },
    });
    const ask = (s: TestServer, headers: Record<string, string>, amountMinor: number, phone: string, currency = 'UGX') =>
      s.request<Collection>('POST', '/api/pos/collections', { headers: { ...headers, 'idempotency-key': randomUUID() }, body: { amountMinor, currency, phone, description: 'Groceries' } });
    const read = async (s: TestServer, headers: Record<string, string>, id: string) => (await s.request<Collection>('GET', `/api/pos/collections/${id}`, { headers })).body;
    const chargeOf = (id: string) => fake.charge(chargeKeyOf(id));
    const ended = (s: TestServer, headers: Record<string, string>, id: string, poll = false) =>
      until(`collection ${id} to end`, async () => {
        if (poll) {
          clock.advance(2_000);
          await s.context.collections.runOnce();
        }
        const now = await read(s, headers, id);
        return now.status === 'pending' ? undefined : now;
      });
    /** Posts a charge.completed with the given verif-hash (or none) as Flutterwave would. */
    const postWebhook = (body: unknown, hash: string | undefined) =>
      fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...(hash === undefined ? {} : { 'verif-hash': hash }) }, body: JSON.stringify(body) });

    it('completes on charge.completed confirmed by verify_by_reference: the wire format, credited once from rail_clearing, one event, charged once, ledger clean', async () => {
      const s = server();
      const shop = await liveTill(s, 'UG', 'UGX');
      const before = await balanceMinor(s, shop.merchant.handle, 'UGX', 'live');
      const clearing = await systemBalance(s, 'rail_clearing:flutterwave', 'UGX', 'live');
      // The cashier types the local form; the server sends Flutterwave 256770000001 on MTN.
      const created = await ask(s, shop.term, 5_000, '0770 000001');
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual([created.body.status, created.body.provider], ['pending', 'flutterwave']);
      const charge = chargeOf(created.body.id)!;
      assert.deepEqual(
        [charge.type, charge.asked, charge.currency, charge.phone_number, charge.network, charge.email, charge.tx_ref],
        ['mobile_money_uganda', 5_000, 'UGX', '256770000001', 'MTN', placeholderEmail(created.body.id), chargeKeyOf(created.body.id)],
      );
      const done = await ended(s, shop.term, created.body.id);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(done.providerReference, String(charge.id), "Flutterwave's transaction id is the provider reference");
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'UGX', 'live'), before + 5_000);
      assert.equal(await systemBalance(s, 'rail_clearing:flutterwave', 'UGX', 'live'), clearing - 5_000);
      assert.deepEqual([chargeOf(created.body.id)!.timesCharged, chargeOf(created.body.id)!.webhooksSent], [1, 1]);
      assert.ok(fake.requests().includes('GET /v3/transactions/verify_by_reference'), 'the webhook was confirmed by verify');
      // The job and a repeated verdict change nothing more.
      clock.advance(5_000);
      await s.context.collections.runOnce();
      assert.equal(await s.context.collections.applyCallback(created.body.id, 'flutterwave', { status: 'completed' }), 'unchanged');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'UGX', 'live'), before + 5_000, 'credited once');
      assert.deepEqual(await eventTypes(s, shop.merchant.id, created.body.id), ['pos.collection.completed']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a duplicate charge.completed is harmless: both acknowledged, credited once', async () => {
      const s = server();
      const shop = await liveTill(s, 'UG', 'UGX');
      const before = await balanceMinor(s, shop.merchant.handle, 'UGX', 'live');
      const unchanged = await callbackCount(s, 'collection_unchanged');
      const created = await ask(s, shop.term, 1_000, CHARGE_SCENARIOS.duplicate_callback);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      await until('both webhooks', async () => (chargeOf(created.body.id)?.webhooksSent === 2 && (await callbackCount(s, 'collection_unchanged')) > unchanged ? true : undefined));
      assert.equal((await read(s, shop.term, created.body.id)).status, 'completed');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'UGX', 'live'), before + 1_000, 'credited once');
      assert.deepEqual(await eventTypes(s, shop.merchant.id, created.body.id), ['pos.collection.completed']);
      assert.equal(chargeOf(created.body.id)!.timesCharged, 1);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('declined and short of funds fail in words the till explains; nothing credited, nothing charged', async () => {
      const s = server();
      const shop = await liveTill(s, 'UG', 'UGX');
      const before = await balanceMinor(s, shop.merchant.handle, 'UGX', 'live');
      const declined = await ask(s, shop.term, 1_000, CHARGE_SCENARIOS.declined);
      const short = await ask(s, shop.term, 1_000, CHARGE_SCENARIOS.insufficient_funds);
      for (const created of [declined, short]) assert.equal(created.status, 201, JSON.stringify(created.body));
      const a = await ended(s, shop.term, declined.body.id);
      const b = await ended(s, shop.term, short.body.id);
      assert.deepEqual([a.status, a.failureCode], ['failed', 'declined'], a.failureReason);
      assert.deepEqual([b.status, b.failureCode], ['failed', 'insufficient_funds'], b.failureReason);
      assert.match(a.failureReason ?? '', /Flutterwave: Transaction declined by the customer/);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'UGX', 'live'), before, 'nothing credited');
      for (const created of [declined, short]) assert.deepEqual(await eventTypes(s, shop.merchant.id, created.body.id), ['pos.collection.failed']);
      assert.deepEqual([chargeOf(declined.body.id)!.timesCharged, chargeOf(short.body.id)!.timesCharged], [0, 0]);
    });

    it('webhook lost: the job\'s verify_by_reference finds the payment; credited once', async () => {
      const s = server();
      const shop = await liveTill(s, 'UG', 'UGX');
      const before = await balanceMinor(s, shop.merchant.handle, 'UGX', 'live');
      const created = await ask(s, shop.term, 7_000, CHARGE_SCENARIOS.callback_lost);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const done = await ended(s, shop.term, created.body.id, true);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(chargeOf(created.body.id)!.webhooksSent, 0, 'no webhook came');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'UGX', 'live'), before + 7_000);
      assert.equal(chargeOf(created.body.id)!.timesCharged, 1);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('nobody answers: expired (no_answer) after one last verify; forged charge.completed (wrong hash, no hash) are refused (401), counted, and credit nothing', async () => {
      const s = server();
      const shop = await liveTill(s, 'UG', 'UGX');
      const before = await balanceMinor(s, shop.merchant.handle, 'UGX', 'live');
      const created = await ask(s, shop.term, 3_000, CHARGE_SCENARIOS.no_answer);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const refusedBefore = await callbackCount(s, 'refused');
      const forged = { event: 'charge.completed', data: { id: 1, tx_ref: chargeKeyOf(created.body.id), status: 'successful', amount: 3_000, currency: 'UGX' } };
      for (const hash of ['not-the-secret-hash', undefined, '']) {
        const answer = await postWebhook(forged, hash);
        assert.equal(answer.status, 401);
        assert.equal(((await answer.json()) as { code: string }).code, 'callback_refused');
      }
      assert.equal(await callbackCount(s, 'refused'), refusedBefore + 3, 'each forged webhook counted');
      assert.equal((await read(s, shop.term, created.body.id)).status, 'pending');
      const verifies = () => fake.requests().filter((request) => request === 'GET /v3/transactions/verify_by_reference').length;
      const beforeExpiry = verifies();
      clock.advance(121_000);
      await s.context.collections.runOnce();
      const expired = await read(s, shop.term, created.body.id);
      assert.deepEqual([expired.status, expired.failureCode], ['expired', 'no_answer']);
      assert.ok(verifies() > beforeExpiry, 'asked verify once more before expiring');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'UGX', 'live'), before, 'nothing credited');
      assert.deepEqual(await eventTypes(s, shop.merchant.id, created.body.id), ['pos.collection.expired']);
      assert.equal(chargeOf(created.body.id)!.timesCharged, 0);
    });

    it('a genuine-hash charge.completed saying "successful" while verify says failed: verify is believed, nothing credited', async () => {
      const s = server();
      const shop = await liveTill(s, 'UG', 'UGX');
      const before = await balanceMinor(s, shop.merchant.handle, 'UGX', 'live');
      const created = await ask(s, shop.term, 2_000, CHARGE_SCENARIOS.webhook_disagrees);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const done = await ended(s, shop.term, created.body.id);
      assert.deepEqual([done.status, done.failureCode], ['failed', 'declined'], JSON.stringify(done));
      assert.equal(chargeOf(created.body.id)!.webhooksSent, 1, 'the webhook said successful');
      // The same lie sent again with the right hash, and one for a tx_ref Flutterwave never saw.
      const lie = await postWebhook({ event: 'charge.completed', data: { id: 9, tx_ref: chargeKeyOf(created.body.id), status: 'successful', amount: 2_000, currency: 'UGX' } }, env.FLUTTERWAVE_SECRET_HASH);
      assert.equal(lie.status, 200);
      const unknown = await postWebhook({ event: 'charge.completed', data: { id: 9, tx_ref: chargeKeyOf('col_never_asked'), status: 'successful', amount: 2_000, currency: 'UGX' } }, env.FLUTTERWAVE_SECRET_HASH);
      assert.equal(unknown.status, 401, 'Flutterwave holds no such charge');
      assert.equal((await read(s, shop.term, created.body.id)).status, 'failed');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'UGX', 'live'), before, 'nothing credited');
      assert.deepEqual(await eventTypes(s, shop.merchant.id, created.body.id), ['pos.collection.failed']);
    });

    it('paid another amount than asked: neither the webhook nor the poll credits it; it expires, nothing credited', async () => {
      const s = server();
      const shop = await liveTill(s, 'UG', 'UGX');
      const before = await balanceMinor(s, shop.merchant.handle, 'UGX', 'live');
      const created = await ask(s, shop.term, 4_000, CHARGE_SCENARIOS.amount_mismatch);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      await until('the webhook', async () => (chargeOf(created.body.id)?.webhooksSent === 1 ? true : undefined));
      assert.deepEqual([chargeOf(created.body.id)!.status, chargeOf(created.body.id)!.amount], ['successful', 3_999]);
      clock.advance(5_000);
      await s.context.collections.runOnce();
      assert.equal((await read(s, shop.term, created.body.id)).status, 'pending', 'not credited for 3,999 of 4,000');
      clock.advance(121_000);
      await s.context.collections.runOnce();
      assert.equal((await read(s, shop.term, created.body.id)).status, 'expired');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'UGX', 'live'), before, 'nothing credited');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('Kenya (type=mpesa, international digits, no network): the answer carries the charge; completed once', async () => {
      const s = server();
      const shop = await liveTill(s, 'KE', 'KES');
      const before = await balanceMinor(s, shop.merchant.handle, 'KES', 'live');
      const created = await ask(s, shop.term, 15_050, '0700 000001', 'KES');
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const charge = chargeOf(created.body.id)!;
      assert.deepEqual([charge.type, charge.asked, charge.phone_number, charge.network], ['mpesa', 150.5, '254700000001', null]);
      assert.equal(created.body.providerReference, String(charge.id), 'the pending answer carried the charge');
      const done = await ended(s, shop.term, created.body.id);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'KES', 'live'), before + 15_050);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('where Flutterwave does not collect (Nigeria) a live till gets 422 collection_unavailable and nothing is sent', async () => {
      const s = server();
      const shop = await liveTill(s, 'NG', 'NGN');
      const sent = fake.chargesReceived();
      const answer = await ask(s, shop.term, 1_000, '+2348031234567', 'NGN');
      assert.deepEqual([answer.status, answer.body.code], [422, 'collection_unavailable'], JSON.stringify(answer.body));
      assert.equal(fake.chargesReceived(), sent);
    });

    it('a wallet top-up through Flutterwave: quoted, the phone asked amount + fee, credited amount once; a retry with the key and a duplicate verdict change nothing', async () => {
      const s = server();
      const handle = uniqueHandle('flwug');
      await s.createWallet({ handle, pin: '2468', currency: 'UGX', country: 'UG', mode: 'live' });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468', mode: 'live' } });
      assert.equal(session.status, 201, JSON.stringify(session.body));
      const auth = { authorization: `Bearer wallet.${session.body.token}` };
      const quote = await s.request<{ provider: string; total: number }>('GET', '/api/wallet/top-ups/quote?amount=5000', { headers: auth });
      assert.deepEqual([quote.status, quote.body.provider, quote.body.total], [200, 'flutterwave', 5_100]);
      const clearing = await systemBalance(s, 'rail_clearing:flutterwave', 'UGX', 'live');
      const key = randomUUID();
      const body = { amount: 5_000, currency: 'UGX', phone: CHARGE_SCENARIOS.success };
      const created = await s.request<TopUp>('POST', '/api/wallet/top-ups', { headers: { ...auth, 'idempotency-key': key }, body });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual([created.body.provider, created.body.fee, created.body.total], ['flutterwave', 100, 5_100]);
      assert.equal(chargeOf(created.body.id)!.asked, 5_100, 'the phone is asked amount + fee');
      const readTopUp = async (id: string) => (await s.request<TopUp>('GET', `/api/wallet/top-ups/${id}`, { headers: auth })).body;
      await until('charge.completed', async () => ((await readTopUp(created.body.id)).status === 'completed' ? true : undefined));
      assert.equal(await balanceMinor(s, handle, 'UGX', 'live'), 5_000);
      assert.equal(await systemBalance(s, 'rail_clearing:flutterwave', 'UGX', 'live'), clearing - 5_100);
      const retry = await s.request<TopUp>('POST', '/api/wallet/top-ups', { headers: { ...auth, 'idempotency-key': key }, body });
      assert.deepEqual([retry.status, retry.body.id], [201, created.body.id]);
      assert.equal(await s.context.collections.applyCallback(created.body.id, 'flutterwave', { status: 'completed' }), 'unchanged');
      clock.advance(10_000);
      await s.context.collections.runOnce();
      assert.equal(fake.charges().filter((charge) => charge.tx_ref === chargeKeyOf(created.body.id)).length, 1, 'charged under one tx_ref');
      assert.equal(chargeOf(created.body.id)!.timesCharged, 1, 'the phone paid once');
      assert.equal(await balanceMinor(s, handle, 'UGX', 'live'), 5_000, 'credited once');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it("payouts to Kenya carry the sender from the profile: a holder's M-Pesa withdrawal is paid with her name, country and number in meta; a merchant without a mobile money number is refused in words and refunded", async () => {
      const s = server();
      const handle = uniqueHandle('flwke');
      await s.createWallet({ handle, pin: '2468', currency: 'KES', country: 'KE', mode: 'live', fund: 2_000 });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468', mode: 'live' } });
      const auth = { authorization: `Bearer wallet.${session.body.token}` };
      const created = await s.request<{ id: string; status: string; provider: string }>('POST', '/api/wallet/withdrawals', {
        headers: { ...auth, 'idempotency-key': randomUUID() },
        body: { amount: 500, currency: 'KES', walletPin: '2468', destination: { type: 'mobile_wallet', phone: '+254712345678', provider: 'M-Pesa', name: 'Akinyi Kimwei' } },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.provider, 'flutterwave');
      const key = s.context.rails.adapters.get('flutterwave')!.keyOf(created.body.id);
      const sent = await until('the transfer at Flutterwave', async () => {
        clock.advance(5_000);
        await s.context.payments.runOnce();
        return fake.transfer(key);
      });
      assert.deepEqual(sent.meta, { sender: handle, sender_country: 'KE', mobile_number: '254712345678' });
      assert.deepEqual([sent.bank_code, sent.account_number, sent.amount, sent.currency], ['MPS', '254712345678', 500, 'KES']);

      const shop = await liveTill(s, 'KE', 'KES');
      const funded = await s.request('POST', `/api/admin/wallets/${shop.merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 1_000, currency: 'KES', mode: 'live' } });
      assert.equal(funded.status, 200, JSON.stringify(funded.body));
      const balance = await balanceMinor(s, shop.merchant.handle, 'KES', 'live');
      const paid = await s.request<{ paymentId: string; status: string; failureReason?: string }>('POST', '/api/pay', {
        headers: { ...shop.key, 'idempotency-key': randomUUID() },
        body: { fromCode: 'KE', toCode: 'KE', rail: 'mobile_money', amount: 100, currency: 'KES', receiver: { phone: '+254712345678', provider: 'M-Pesa', name: 'Akinyi Kimwei' } },
      });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      const failed = await until('the refusal', async () => {
        clock.advance(5_000);
        await s.context.payments.runOnce();
        const now = await s.request<{ status: string; failureReason?: string }>('GET', `/api/payments/${paid.body.paymentId}`, { headers: shop.key });
        return now.body.status === 'failed' ? now.body : undefined;
      });
      assert.match(failed.failureReason ?? '', /add a mobile money settlement account/);
      assert.equal(fake.transfer(s.context.rails.adapters.get('flutterwave')!.keyOf(paid.body.paymentId)), undefined, 'nothing sent');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'KES', 'live'), balance, 'refunded');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a wallet top-up the customer declines fails as declined and credits nothing', async () => {
      const s = server();
      const handle = uniqueHandle('flwug');
      await s.createWallet({ handle, pin: '2468', currency: 'UGX', country: 'UG', mode: 'live' });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468', mode: 'live' } });
      const auth = { authorization: `Bearer wallet.${session.body.token}` };
      const created = await s.request<TopUp>('POST', '/api/wallet/top-ups', { headers: { ...auth, 'idempotency-key': randomUUID() }, body: { amount: 2_000, currency: 'UGX', phone: CHARGE_SCENARIOS.declined } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const failed = await until('the decline', async () => {
        const now = (await s.request<TopUp>('GET', `/api/wallet/top-ups/${created.body.id}`, { headers: auth })).body;
        return now.status === 'failed' ? now : undefined;
      });
      assert.equal(failed.failureCode, 'declined', failed.failureReason);
      assert.equal(await balanceMinor(s, handle, 'UGX', 'live'), 0);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
