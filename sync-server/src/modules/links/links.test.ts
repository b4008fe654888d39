import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkLedger } from '../../ledger/check.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { ManualClock } from '../../testing/receiver.ts';
import { payLink as payLinkService } from './service.ts';
import { type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';

type Link = Record<string, unknown> & { id: string; url: string; status: string };

async function walletBalance(server: TestServer, handle: string, currency = 'NGN'): Promise<number> {
  const session = await server.request('POST', '/api/wallet/sessions', { body: { handle, pin: '1234' } });
  const response = await server.request<{ balances: { currency: string; available: number }[] }>('GET', '/api/wallet/balance', { headers: { authorization: `Bearer wallet.${session.body.token}` } });
  return response.body.balances.find((entry) => entry.currency === currency)?.available ?? 0;
}

for (const target of await databaseTargets()) {
  describe(`payment links on ${target.name}`, () => {
    const clock = new ManualClock(Date.parse('2026-11-06T08:00:00.000Z'));
    const server = useTestServer(target, { now: clock.now });

    const create = async (key: string, body: Record<string, unknown>) => server().request<Link>('POST', '/api/payment-links', { headers: { 'x-merchant-api-key': key }, body });
    const payLink = async (id: string, body: Record<string, unknown>) => server().request('POST', `/api/payment-links/${id}/pay`, { body });

    it('creates, reads, lists and isolates links; their public page carries a handle + PIN form', async () => {
      const merchant = await server().createMerchant({ name: 'Mama Put Kitchen' });
      const created = await create(merchant.testKey, { amount: 2500, currency: 'NGN', description: 'Jollof for 4', singleUse: true, expiresAt: '2026-12-31' });
      assert.equal(created.status, 201);
      const link = created.body;
      assert.match(link.id, /^plink_/);
      assert.equal(link.url, `${server().config.publicBaseUrl}/pay/link/${link.id}`);
      assert.deepEqual(
        { amountType: link.amountType, amount: link.amount, currency: link.currency, singleUse: link.singleUse, reusable: link.reusable, status: link.status, active: link.active, expiresAt: link.expiresAt, paymentCount: link.paymentCount },
        { amountType: 'fixed', amount: 2500, currency: 'NGN', singleUse: true, reusable: false, status: 'active', active: true, expiresAt: '2026-12-31T23:59:59.999Z', paymentCount: 0 },
      );
      const read = await server().request('GET', `/api/payment-links/${link.id}`, { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.deepEqual(read.body, link);
      const list = await server().request<{ data: Link[]; total: number }>('GET', '/api/payment-links', { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.deepEqual([list.body.total, list.body.data[0]!.id], [1, link.id]);
      const other = await server().createMerchant();
      for (const key of [other.testKey, merchant.liveKey]) {
        assert.equal((await server().request('GET', `/api/payment-links/${link.id}`, { headers: { 'x-merchant-api-key': key } })).status, 404);
        assert.equal((await server().request('POST', `/api/payment-links/${link.id}/deactivate`, { headers: { 'x-merchant-api-key': key } })).status, 404);
      }
      assert.equal((await server().request('GET', '/api/payment-links')).status, 401);
      const page = await fetch(`${server().baseUrl}/pay/link/${link.id}`);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
      const html = await page.text();
      assert.match(html, /Mama Put Kitchen/);
      assert.match(html, /2500\.00 NGN/);
      assert.match(html, /<form id="pay-form">/);
      assert.match(html, /id="handle"/);
      assert.match(html, /type="password"/);
      assert.match(html, /<script src="\/pay\/link\.js" defer><\/script>/);
      const script = await fetch(`${server().baseUrl}/pay/link.js`);
      assert.equal(script.status, 200);
      assert.match(await script.text(), /\/api\/payment-links\/' \+ encodeURIComponent\(linkId\) \+ '\/pay/);
      assert.equal((await fetch(`${server().baseUrl}/pay/link/plink_nothing`)).status, 404);
    });

    it('refuses bad links with 400', async () => {
      const merchant = await server().createMerchant();
      for (const [body, code] of [
        [{ amount: 10, currency: 'JPY' }, 'currency_not_supported'],
        [{ amount: 10.001, currency: 'NGN' }, 'amount_too_many_decimals'],
        [{ amount: 10, currency: 'NGN', expiresAt: '2026-11-06T07:00:00Z' }, 'expires_at_invalid'],
        [{ amount: 10, currency: 'NGN', expiresAt: 'next week' }, 'expires_at_invalid'],
        [{ amount: 10, currency: 'NGN', minAmount: 5 }, 'amount_bounds_with_fixed_amount'],
        [{ currency: 'NGN', minAmount: 50, maxAmount: 5 }, 'amount_bounds_invalid'],
        [{ currency: 'NGN', singleUse: true, reusable: true }, 'single_use_conflict'],
        [{ amount: 10 }, 'validation_failed'],
      ] as const) {
        const response = await create(merchant.testKey, body);
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.equal(response.body.code, code, JSON.stringify(body));
      }
    });

    it('a single-use link is paid once with handle and PIN; the second payment is a 409; a wrong PIN a 403', async () => {
      const merchant = await server().createMerchant();
      const payer = uniqueHandle('payer');
      await server().createWallet({ handle: payer, fund: 10_000 });
      const link = (await create(merchant.testKey, { amount: 2000, currency: 'NGN', singleUse: true, reference: 'inv-77' })).body;
      const wrongPin = await payLink(link.id, { handle: payer, pin: '9999' });
      assert.equal(wrongPin.status, 403);
      assert.equal(wrongPin.body.code, 'wrong_pin');
      const merchantBefore = (await server().request<{ balances: { available: number }[] }>('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': merchant.testKey } })).body.balances[0]!.available;
      const paid = await payLink(link.id, { handle: `@${payer}`, pin: '1234' });
      assert.equal(paid.status, 200);
      assert.equal(paid.body.status, 'completed');
      assert.equal(paid.body.amount, 2000);
      assert.equal(paid.body.payerHandle, `@${payer}`);
      assert.equal(paid.body.merchantHandle, merchant.handle);
      assert.equal(await walletBalance(server(), payer), 8000);
      const merchantAfter = (await server().request<{ balances: { available: number }[] }>('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': merchant.testKey } })).body.balances[0]!.available;
      assert.equal(merchantAfter - merchantBefore, 1970, 'less the 1.5% payment_link fee');
      const payment = await server().request('GET', `/api/payments/${paid.body.paymentId}`, { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(payment.body.status, 'completed');
      assert.equal(payment.body.paymentLinkId, link.id);
      assert.equal(payment.body.reference, 'inv-77');
      assert.equal(payment.body.fee, 30);
      const events = await server().db.query<{ body: string }>('SELECT body FROM events WHERE merchant_id = $1', [merchant.id]);
      assert.deepEqual(events.map((event) => [JSON.parse(event.body).event, JSON.parse(event.body).paymentId]), [['payment.completed', paid.body.paymentId]]);
      const again = await payLink(link.id, { handle: payer, pin: '1234' });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'payment_link_already_paid');
      assert.equal((await fetch(`${server().baseUrl}/pay/link/${link.id}`)).status, 409);
      const read = await server().request<Link>('GET', `/api/payment-links/${link.id}`, { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.deepEqual([read.body.status, read.body.paymentCount, read.body.amountCollected], ['paid', 1, 2000]);
      assert.equal(await walletBalance(server(), payer), 8000);
    });

    it('Idempotency-Key on pay: a retry replays the first answer (after the PIN again), charges once; another body is 422', async () => {
      const merchant = await server().createMerchant();
      const payer = uniqueHandle('payer');
      await server().createWallet({ handle: payer, fund: 10_000 });
      const link = (await create(merchant.testKey, { currency: 'NGN', minAmount: 100 })).body;
      const pay = (body: Record<string, unknown>, key: string) =>
        server().request<Record<string, unknown>>('POST', `/api/payment-links/${link.id}/pay`, { headers: { 'idempotency-key': key }, body });

      // A wrong PIN does not use the key up: the corrected retry with the same key runs.
      const wrongPin = await pay({ handle: payer, pin: '9999', amount: 1500 }, 'basket-1');
      assert.deepEqual([wrongPin.status, wrongPin.body.code], [403, 'wrong_pin']);
      const first = await pay({ handle: payer, pin: '1234', amount: 1500 }, 'basket-1');
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      assert.match(String(first.body.paymentId), /^pay_[0-9a-f]{32}$/);
      const replayed = await pay({ handle: payer, pin: '1234', amount: 1500 }, 'basket-1');
      assert.equal(replayed.status, 200);
      assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replayed.body, first.body);
      // The replay proves the payer again: a wrong PIN gets no answer.
      const replayWrongPin = await pay({ handle: payer, pin: '0000', amount: 1500 }, 'basket-1');
      assert.deepEqual([replayWrongPin.status, replayWrongPin.body.code], [403, 'wrong_pin']);
      const otherBody = await pay({ handle: payer, pin: '1234', amount: 1600 }, 'basket-1');
      assert.deepEqual([otherBody.status, otherBody.body.code], [422, 'idempotency_key_reused']);
      assert.equal(await walletBalance(server(), payer), 8500, 'charged once');
      const read = await server().request<Link>('GET', `/api/payment-links/${link.id}`, { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.deepEqual([read.body.paymentCount, read.body.amountCollected], [1, 1500]);
      // A re-run of the same claim (its first run committed, then the process died before the
      // answer was stored) derives the same payment id and finds the payment instead of paying again.
      const deps = { db: server().db, config: server().config, now: server().context.now };
      const rerun = await payLinkService(deps, link.id, { handle: payer, pin: '1234', amount: 1500 }, String(first.body.paymentId));
      assert.equal(rerun.paymentId, first.body.paymentId);
      assert.equal(await walletBalance(server(), payer), 8500, 'still charged once');
      // Another payer's identical key is their own.
      const other = uniqueHandle('payer');
      await server().createWallet({ handle: other, fund: 10_000 });
      const theirs = await pay({ handle: other, pin: '1234', amount: 1500 }, 'basket-1');
      assert.equal(theirs.status, 200);
      assert.notEqual(theirs.body.paymentId, first.body.paymentId);
      assert.equal(await walletBalance(server(), other), 8500);
      assert.deepEqual((await checkLedger(server().db)).violations, []);
    });

    it('two payers racing for one single-use link: one pays, the other gets 409', async () => {
      const merchant = await server().createMerchant();
      const payers = [uniqueHandle('racer'), uniqueHandle('racer')];
      for (const handle of payers) await server().createWallet({ handle, fund: 1000 });
      const link = (await create(merchant.testKey, { amount: 700, currency: 'NGN', singleUse: true })).body;
      const results = await Promise.all(payers.map((handle) => payLink(link.id, { handle, pin: '1234' })));
      assert.deepEqual(results.map((result) => result.status).sort(), [200, 409]);
      const balances = await Promise.all(payers.map((handle) => walletBalance(server(), handle)));
      assert.deepEqual(balances.sort((a, b) => a - b), [300, 1000]);
    });

    it('a reusable variable-amount link takes several payments within its bounds', async () => {
      const merchant = await server().createMerchant();
      const payer = uniqueHandle('donor');
      await server().createWallet({ handle: payer, fund: 2500 });
      const link = (await create(merchant.testKey, { currency: 'NGN', description: 'Donations', minAmount: 100, maxAmount: 2000 })).body;
      assert.deepEqual([link.amountType, link.amount, link.singleUse], ['variable', null, false]);
      const page = await (await fetch(`${server().baseUrl}/pay/link/${link.id}`)).text();
      assert.match(page, /id="amount"/);
      assert.equal((await payLink(link.id, { handle: payer, pin: '1234' })).body.code, 'amount_required');
      assert.equal((await payLink(link.id, { handle: payer, pin: '1234', amount: 50 })).body.code, 'amount_out_of_range');
      assert.equal((await payLink(link.id, { handle: payer, pin: '1234', amount: 500 })).status, 200);
      assert.equal((await payLink(link.id, { handle: payer, pin: '1234', amount: 1500.5 })).status, 200);
      const insufficient = await payLink(link.id, { handle: payer, pin: '1234', amount: 2000 });
      assert.equal(insufficient.status, 422);
      assert.equal(insufficient.body.code, 'insufficient_funds');
      const read = await server().request<Link>('GET', `/api/payment-links/${link.id}`, { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.deepEqual([read.body.paymentCount, read.body.amountCollected, read.body.status], [2, 2000.5, 'active']);
      assert.equal(await walletBalance(server(), payer), 499.5);
    });

    it('GET /api/payments?paymentLinkId lists what one link received, newest first and paged; other links, merchants and modes stay out', async () => {
      const merchant = await server().createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const [ada, bisi] = [uniqueHandle('ada'), uniqueHandle('bisi')];
      await server().createWallet({ handle: ada, fund: 10_000 });
      await server().createWallet({ handle: bisi, fund: 10_000 });
      const tips = (await create(merchant.testKey, { currency: 'NGN', description: 'Tips' })).body;
      const cake = (await create(merchant.testKey, { amount: 700, currency: 'NGN', description: 'Cake' })).body;
      const paidIds: string[] = [];
      for (const [handle, amount] of [[ada, 100], [bisi, 200], [ada, 300]] as const) {
        const paid = await payLink(tips.id, { handle, pin: '1234', amount });
        assert.equal(paid.status, 200, JSON.stringify(paid.body));
        paidIds.push(String(paid.body.paymentId));
        clock.advance(1000);
      }
      assert.equal((await payLink(cake.id, { handle: bisi, pin: '1234' })).status, 200);

      type Page = { data: { id: string; amount: number; fee: number; status: string; senderName: string | null; paymentLinkId: string | null }[]; total: number; limit: number; offset: number };
      const list = (query: string, headers: Record<string, string> = key) => server().request<Page>('GET', `/api/payments?${query}`, { headers });
      const first = await list(`paymentLinkId=${tips.id}&limit=2`);
      assert.equal(first.status, 200);
      assert.deepEqual([first.body.total, first.body.limit, first.body.offset], [3, 2, 0]);
      assert.deepEqual(first.body.data.map((payment) => [payment.id, payment.amount, payment.fee, payment.status, payment.senderName, payment.paymentLinkId]), [
        [paidIds[2], 300, 4.5, 'completed', ada, tips.id],
        [paidIds[1], 200, 3, 'completed', bisi, tips.id],
      ]);
      const second = await list(`paymentLinkId=${tips.id}&limit=2&offset=2`);
      assert.deepEqual(second.body.data.map((payment) => [payment.id, payment.amount]), [[paidIds[0], 100]]);
      assert.deepEqual((await list(`paymentLinkId=${cake.id}`)).body.data.map((payment) => [payment.amount, payment.senderName]), [[700, bisi]]);
      assert.equal((await list(`paymentLinkId=${tips.id}&status=failed`)).body.total, 0, 'filters combine');
      assert.equal((await list('')).body.total, 4, 'without the filter: every payment');

      // Another merchant's link, the other mode or a link that does not exist: an empty list, as any filter that matches nothing.
      const other = await server().createMerchant();
      for (const [query, headers] of [[`paymentLinkId=${tips.id}`, { 'x-merchant-api-key': other.testKey }], [`paymentLinkId=${tips.id}`, { 'x-merchant-api-key': merchant.liveKey }], ['paymentLinkId=plink_missing', key]] as const) {
        const empty = await list(query, headers);
        assert.equal(empty.status, 200, query);
        assert.deepEqual([empty.body.total, empty.body.data], [0, []], query);
      }
      for (const malformed of ['pay_123', 'plink_', 'plink_a%20b', `plink_${'x'.repeat(65)}`]) {
        const refused = await server().request('GET', `/api/payments?paymentLinkId=${malformed}`, { headers: key });
        assert.equal(refused.status, 400, malformed);
        assert.equal(refused.body.code, 'validation_failed', malformed);
        assert.match(String(refused.body.error), /paymentLinkId/, malformed);
      }
    });

    it('an expired link answers 410 (page and payment); a deactivated one too', async () => {
      const merchant = await server().createMerchant();
      const payer = uniqueHandle('late');
      await server().createWallet({ handle: payer, fund: 5000 });
      const expiring = (await create(merchant.testKey, { amount: 100, currency: 'NGN', expiresAt: new Date(clock.now().getTime() + 3600_000).toISOString() })).body;
      clock.advance(3600_000);
      const late = await payLink(expiring.id, { handle: payer, pin: '1234' });
      assert.equal(late.status, 410);
      assert.equal(late.body.code, 'payment_link_expired');
      assert.equal((await fetch(`${server().baseUrl}/pay/link/${expiring.id}`)).status, 410);
      const read = await server().request<Link>('GET', `/api/payment-links/${expiring.id}`, { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(read.body.status, 'expired');

      const link = (await create(merchant.testKey, { amount: 100, currency: 'NGN' })).body;
      const deactivated = await server().request<Link>('POST', `/api/payment-links/${link.id}/deactivate`, { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(deactivated.status, 200);
      assert.deepEqual([deactivated.body.active, deactivated.body.status], [false, 'inactive']);
      const refused = await payLink(link.id, { handle: payer, pin: '1234' });
      assert.equal(refused.status, 410);
      assert.equal(refused.body.code, 'payment_link_inactive');
      assert.equal(await walletBalance(server(), payer), 5000);
      assert.equal((await payLink('plink_missing', { handle: payer, pin: '1234' })).status, 404);
      assert.deepEqual((await checkLedger(server().db)).violations, []);
    });
  });
}
