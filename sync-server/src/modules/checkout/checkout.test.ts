import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkLedger } from '../../ledger/check.ts';
import { sha256Hex } from '../../auth/secrets.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { balanceMinor, systemBalance } from '../../testing/ledger.ts';
import { type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';
import { SANDBOX_COLLECTION_FAILURE, checkoutTransferId, detectCountry, offeredRails } from './service.ts';

type Session = {
  id: string;
  status: string;
  mode: string;
  amount: number;
  currency: string;
  reference: string | null;
  description: string | null;
  country: string;
  rails: string[];
  url: string;
  qrPayload: string;
  merchant: { name: string; handle: string };
  createdAt: string;
  expiresAt: string;
  paidAt?: string;
  paymentMethod?: string;
  payerHandle?: string;
  transferId?: string;
  failureReason?: string;
};
type KeyAnswer = { id: string; key: string; keyHint: string; mode: string; createdAt: string; allowedOrigins?: string[] };

describe('checkout country detection and rails', () => {
  it('prefers the body, then CF-IPCountry / X-Country, then the merchant\'s country', () => {
    assert.equal(detectCountry('ke', { 'cf-ipcountry': 'GH' }, 'NG'), 'KE');
    assert.equal(detectCountry(undefined, { 'cf-ipcountry': 'gh' }, 'NG'), 'GH');
    assert.equal(detectCountry(undefined, { 'x-country': 'ZA' }, 'NG'), 'ZA');
    // Cloudflare's unknown (XX) and Tor (T1) and countries the service does not serve are skipped.
    assert.equal(detectCountry(undefined, { 'cf-ipcountry': 'XX', 'x-country': 'T1' }, 'NG'), 'NG');
    assert.equal(detectCountry(undefined, { 'cf-ipcountry': 'DE' }, 'KE'), 'KE');
    assert.throws(() => detectCountry('DE', {}, 'NG'), /customerCountry DE is not supported/);
  });

  it('offers the rails table\'s mobile money, bank transfer and QR of each country', () => {
    assert.deepEqual(offeredRails('NG'), ['mobile_money', 'bank_transfer', 'qr']);
    assert.deepEqual(offeredRails('ZA'), ['bank_transfer', 'qr']);
    assert.deepEqual(offeredRails('RW'), ['mobile_money', 'bank_transfer']);
    assert.deepEqual(offeredRails('US'), ['bank_transfer']);
    assert.deepEqual(offeredRails('ER'), []);
  });
});

for (const target of await databaseTargets()) {
  describe(`checkout sessions and publishable keys on ${target.name}`, () => {
    // The modules' clock: real time plus an offset the tests move forward (never a real wait).
    let offsetMs = 0;
    const server = useTestServer(target, { now: () => new Date(Date.now() + offsetMs), rateLimitScale: 10 });

    async function merchantWithKeys(s: TestServer, fields: Parameters<TestServer['createMerchant']>[0] = {}) {
      const merchant = await s.createMerchant(fields);
      const secret = { 'x-merchant-api-key': merchant.testKey };
      const created = await s.request<KeyAnswer>('POST', '/api/merchant/publishable-keys', { headers: secret, body: {} });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return { merchant, secret, pk: created.body, publishable: { authorization: `Bearer ${created.body.key}` } };
    }

    async function open(s: TestServer, headers: Record<string, string>, body: Record<string, unknown> = { amount: 25.5, currency: 'NGN', reference: 'order-1', description: 'Two shirts' }) {
      const created = await s.request<Session>('POST', '/api/checkout/sessions', { headers, body });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body;
    }

    async function eventsOf(s: TestServer, merchantId: string) {
      const rows = await s.db.query<{ type: string; body: string }>('SELECT type, body FROM events WHERE merchant_id = $1 ORDER BY created_at, id', [merchantId]);
      return rows.map((row) => ({ type: row.type, body: JSON.parse(row.body) as Record<string, unknown> }));
    }

    it('issues a publishable key shown once and stored as SHA-256, lists it without the key, and a revoked key is a 401', async () => {
      const s = server();
      const { merchant, secret, pk, publishable } = await merchantWithKeys(s);
      assert.match(pk.key, /^pk_test_[0-9a-f]{32}$/);
      assert.match(pk.id, /^pkey_/);
      assert.equal(pk.mode, 'test');
      assert.equal(pk.keyHint, `pk_test_…${pk.key.slice(-4)}`);
      const [stored] = await s.db.query<{ key_hash: string }>('SELECT * FROM publishable_keys WHERE id = $1', [pk.id]);
      assert.equal(stored!.key_hash, sha256Hex(pk.key));
      assert.ok(!JSON.stringify(stored).includes(pk.key), 'the key itself is not stored');

      const live = await s.request<KeyAnswer>('POST', '/api/merchant/publishable-keys', { headers: { 'x-merchant-api-key': merchant.liveKey }, body: { allowedOrigins: ['https://shop.example'] } });
      assert.equal(live.status, 201);
      assert.match(live.body.key, /^pk_live_[0-9a-f]{32}$/);
      assert.deepEqual(live.body.allowedOrigins, ['https://shop.example']);

      const listed = await s.request<{ data: Record<string, unknown>[]; total: number; limit: number; offset: number }>('GET', '/api/merchant/publishable-keys', { headers: secret });
      assert.equal(listed.status, 200);
      assert.deepEqual([listed.body.total, listed.body.limit, listed.body.offset], [1, 20, 0]);
      assert.deepEqual(listed.body.data.map((row) => [row.id, row.keyHint, row.mode, row.revokedAt, row.allowedOrigins]), [[pk.id, pk.keyHint, 'test', null, null]]);
      assert.ok(!JSON.stringify(listed.body).includes(pk.key), 'listing never shows the key');

      await open(s, publishable);
      // The live key cannot revoke a test key (another mode: 404); the test key can.
      assert.equal((await s.request('DELETE', `/api/merchant/publishable-keys/${pk.id}`, { headers: { 'x-merchant-api-key': merchant.liveKey } })).status, 404);
      const revoked = await s.request<{ revokedAt: string }>('DELETE', `/api/merchant/publishable-keys/${pk.id}`, { headers: secret });
      assert.equal(revoked.status, 200);
      assert.ok(revoked.body.revokedAt);
      const refused = await s.request<{ code: string }>('POST', '/api/checkout/sessions', { headers: publishable, body: { amount: 1, currency: 'NGN' } });
      assert.deepEqual([refused.status, refused.body.code], [401, 'publishable_key_revoked']);
      const unknown = await s.request<{ code: string }>('GET', '/api/checkout/sessions/cs_x', { headers: { authorization: `Bearer pk_test_${'0'.repeat(32)}` } });
      assert.deepEqual([unknown.status, unknown.body.code], [401, 'invalid_publishable_key']);
      const malformed = await s.request<{ code: string }>('GET', '/api/checkout/sessions/cs_x', { headers: { authorization: 'Bearer pk_test_123' } });
      assert.deepEqual([malformed.status, malformed.body.code], [401, 'invalid_publishable_key']);
      // Keys are managed with the secret key only.
      assert.equal((await s.request('GET', '/api/merchant/publishable-keys', { headers: { authorization: `Bearer ${live.body.key}` } })).status, 403);
    });

    it('refuses a publishable key on every other route family, public routes included', async () => {
      const s = server();
      const { merchant, publishable } = await merchantWithKeys(s);
      const payer = uniqueHandle('payer');
      await s.createWallet({ handle: payer, fund: 100 });
      const calls: [string, string, unknown?][] = [
        ['POST', '/api/pay', { fromCode: 'NG', toCode: 'NG', rail: 'mobile_money', amount: 10, currency: 'NGN', receiver: '+2348012345678' }],
        ['GET', '/api/merchant/balance'],
        ['POST', '/api/merchant/keys/rotate', {}],
        ['POST', '/api/merchant/publishable-keys', {}],
        ['GET', '/api/pos/sessions'],
        ['POST', '/api/pos/sessions', { amount: 1, currency: 'NGN', description: 'x' }],
        ['GET', '/api/payments'],
        ['GET', '/api/payments/pay_unknown'],
        ['POST', '/api/payment-links', { amount: 5, currency: 'NGN' }],
        ['GET', '/api/fx/rates'],
        ['GET', '/api/fx?from=NG&to=KE&amount=10'],
        ['GET', `/api/pay-identity/${merchant.handle}`],
        ['POST', '/api/merchant/gift-cards', { amount: 5, currency: 'NGN' }],
        ['POST', '/api/wearables', { handle: payer, tagType: 'ring', displayName: 'x' }],
        ['GET', '/api/store/products'],
        ['GET', '/api/wallet/balance'],
        ['POST', '/api/wallet/sessions', { handle: payer, pin: '1234' }],
        ['GET', '/api/admin/merchants'],
        ['POST', '/api/bills/pay', { billType: 'airtime', billerId: 'x', accountRef: 'y', amount: 5 }],
      ];
      for (const [method, path, body] of calls) {
        const answer = await s.request<{ code: string }>(method, path, { headers: { ...publishable, 'idempotency-key': 'k1' }, ...(body === undefined ? {} : { body }) });
        assert.equal(answer.status, 403, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.code, 'credential_not_allowed', `${method} ${path}`);
      }
      // Nothing moved: the payer still has its 100 NGN.
      assert.equal(await balanceMinor(s, payer, 'NGN'), 10_000);
    });

    it('creates sessions with the publishable or the secret key, detects the country and offers its rails, and hides them across merchants and modes', async () => {
      const s = server();
      const { merchant, secret, publishable, pk } = await merchantWithKeys(s, { name: 'Ada Fabrics' });
      const before = Date.now() + offsetMs;
      const session = await open(s, publishable);
      assert.match(session.id, /^cs_/);
      assert.deepEqual(
        [session.status, session.mode, session.amount, session.currency, session.reference, session.description, session.country, session.rails],
        ['open', 'test', 25.5, 'NGN', 'order-1', 'Two shirts', 'NG', ['mobile_money', 'bank_transfer', 'qr']],
      );
      assert.equal(session.url, `${s.config.publicBaseUrl}/pay/checkout/${session.id}`);
      assert.equal(session.qrPayload, session.url);
      assert.deepEqual(session.merchant, { name: 'Ada Fabrics', handle: merchant.handle });
      const ttl = Date.parse(session.expiresAt) - Date.parse(session.createdAt);
      assert.equal(ttl, 30 * 60 * 1000);
      assert.ok(Date.parse(session.createdAt) >= before - 5 && Date.parse(session.createdAt) <= Date.now() + offsetMs);
      const [row] = await s.db.query<{ amount: number; publishable_key_id: string }>('SELECT amount, publishable_key_id FROM checkout_sessions WHERE id = $1', [session.id]);
      assert.deepEqual([row!.amount, row!.publishable_key_id], [2550, pk.id]);

      // Country: the body, else the CDN's header, else the merchant's (NG).
      assert.deepEqual(((await open(s, publishable, { amount: 1, currency: 'NGN', customerCountry: 'za' })) as Session).rails, ['bank_transfer', 'qr']);
      const byHeader = await open(s, { ...publishable, 'cf-ipcountry': 'KE' }, { amount: 1, currency: 'KES' });
      assert.deepEqual([byHeader.country, byHeader.currency, byHeader.rails], ['KE', 'KES', ['mobile_money', 'bank_transfer', 'qr']]);
      const bySecret = await open(s, secret, { amount: 3, currency: 'NGN' });
      assert.deepEqual([bySecret.country, bySecret.reference], ['NG', null]);

      // Reads: the same merchant and mode with either key; anyone else gets a 404.
      for (const headers of [publishable, secret]) {
        const read = await s.request<Session>('GET', `/api/checkout/sessions/${session.id}`, { headers });
        assert.deepEqual([read.status, read.body.id, read.body.status], [200, session.id, 'open']);
      }
      const other = await merchantWithKeys(s);
      for (const headers of [other.publishable, other.secret, { 'x-merchant-api-key': merchant.liveKey }]) {
        const read = await s.request<{ code: string }>('GET', `/api/checkout/sessions/${session.id}`, { headers });
        assert.deepEqual([read.status, read.body.code], [404, 'checkout_session_not_found']);
      }
      const unauthenticated = await s.request<{ code: string }>('GET', `/api/checkout/sessions/${session.id}`);
      assert.deepEqual([unauthenticated.status, unauthenticated.body.code], [401, 'authentication_required']);

      // Bad input is a 400, never a 500.
      for (const [body, code] of [
        [{ amount: 1.005, currency: 'NGN' }, 'amount_too_many_decimals'],
        [{ amount: 0, currency: 'NGN' }, undefined],
        [{ amount: 5, currency: 'XYZ' }, 'currency_not_supported'],
        [{ amount: 5, currency: 'NGN', customerCountry: 'DE' }, 'country_not_supported'],
        [{ amount: '5', currency: 'NGN' }, 'validation_failed'],
      ] as const) {
        const refused = await s.request<{ code: string }>('POST', '/api/checkout/sessions', { headers: publishable, body });
        assert.equal(refused.status, 400, JSON.stringify(body));
        if (code) assert.equal(refused.body.code, code, JSON.stringify(refused.body));
      }
    });

    it('enforces a publishable key\'s allowed origins', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const created = await s.request<KeyAnswer>('POST', '/api/merchant/publishable-keys', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { allowedOrigins: ['https://shop.example'] } });
      const headers = { authorization: `Bearer ${created.body.key}` };
      const fromShop = await s.request('POST', '/api/checkout/sessions', { headers: { ...headers, origin: 'https://shop.example' }, body: { amount: 1, currency: 'NGN' } });
      assert.equal(fromShop.status, 201);
      for (const origin of ['https://evil.example', undefined]) {
        const refused = await s.request<{ code: string }>('POST', '/api/checkout/sessions', { headers: { ...headers, ...(origin ? { origin } : {}) }, body: { amount: 1, currency: 'NGN' } });
        assert.deepEqual([refused.status, refused.body.code], [403, 'origin_not_allowed']);
      }
      const invalid = await s.request('POST', '/api/merchant/publishable-keys', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { allowedOrigins: ['shop.example/path'] } });
      assert.equal(invalid.status, 400);
    });

    it('pays from a wallet with one balanced transfer, replays the Idempotency-Key, emits checkout.session.completed, then answers 409', async () => {
      const s = server();
      const { merchant, publishable } = await merchantWithKeys(s, { webhookUrl: 'http://127.0.0.1:9/hook' });
      const payer = uniqueHandle('payer');
      await s.createWallet({ handle: payer, fund: 100, pin: '4829' });
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const session = await open(s, publishable);

      const wrongPin = await s.request<{ code: string }>('POST', `/api/checkout/sessions/${session.id}/pay`, { headers: { 'idempotency-key': 'attempt-1' }, body: { method: 'wallet', handle: payer, pin: '0000' } });
      assert.deepEqual([wrongPin.status, wrongPin.body.code], [403, 'wrong_pin']);
      const missingPin = await s.request<{ code: string }>('POST', `/api/checkout/sessions/${session.id}/pay`, { body: { method: 'wallet', handle: payer } });
      assert.deepEqual([missingPin.status, missingPin.body.code], [400, 'pin_required']);

      const body = { method: 'wallet', handle: `@${payer.toUpperCase()}`, pin: '4829' };
      const paid = await s.request<Session>('POST', `/api/checkout/sessions/${session.id}/pay`, { headers: { 'idempotency-key': 'attempt-1' }, body });
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      assert.deepEqual(
        [paid.body.status, paid.body.paymentMethod, paid.body.payerHandle, paid.body.transferId, paid.body.amount],
        ['paid', 'wallet', `@${payer}`, checkoutTransferId(session.id), 25.5],
      );
      assert.ok(paid.body.paidAt);
      assert.equal(await balanceMinor(s, payer, 'NGN'), 10_000 - 2550);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + 2550);

      const replay = await s.request<Session>('POST', `/api/checkout/sessions/${session.id}/pay`, { headers: { 'idempotency-key': 'attempt-1' }, body });
      assert.equal(replay.status, 200);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body, paid.body);
      // A replay proves the PIN again.
      const replayWrongPin = await s.request<{ code: string }>('POST', `/api/checkout/sessions/${session.id}/pay`, { headers: { 'idempotency-key': 'attempt-1' }, body: { ...body, pin: '1111' } });
      assert.deepEqual([replayWrongPin.status, replayWrongPin.body.code], [403, 'wrong_pin']);
      assert.equal(await balanceMinor(s, payer, 'NGN'), 10_000 - 2550);

      const again = await s.request<{ code: string }>('POST', `/api/checkout/sessions/${session.id}/pay`, { body });
      assert.deepEqual([again.status, again.body.code], [409, 'checkout_session_not_open']);
      const sandboxAfterPaid = await s.request<{ code: string }>('POST', `/api/checkout/sessions/${session.id}/pay`, { body: { method: 'mobile_money', phone: '+2348012345678' } });
      assert.equal(sandboxAfterPaid.status, 409);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + 2550);

      const polled = await s.request<Session>('GET', `/api/checkout/sessions/${session.id}`, { headers: publishable });
      assert.deepEqual([polled.body.status, polled.body.payerHandle], ['paid', `@${payer}`]);

      const events = await eventsOf(s, merchant.id);
      assert.deepEqual(events.map((event) => event.type), ['checkout.session.completed']);
      const event = events[0]!.body;
      assert.match(String(event.id), /^evt_/);
      assert.deepEqual(
        [event.event, event.sessionId, event.status, event.amount, event.currency, event.reference, event.paymentMethod, event.payerHandle, event.transferId, event.completedAt],
        ['checkout.session.completed', session.id, 'paid', 25.5, 'NGN', 'order-1', 'wallet', `@${payer}`, checkoutTransferId(session.id), paid.body.paidAt],
      );
      const deliveries = await s.db.query<{ url: string; state: string }>('SELECT url, state FROM event_deliveries WHERE merchant_id = $1', [merchant.id]);
      assert.deepEqual(deliveries, [{ url: 'http://127.0.0.1:9/hook', state: 'pending' }]);
      const [transferRow] = await s.db.query<{ kind: string }>('SELECT kind FROM ledger_transfers WHERE id = $1', [checkoutTransferId(session.id)]);
      assert.equal(transferRow!.kind, 'checkout');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('answers 422 insufficient_funds and keeps the session open for another try', async () => {
      const s = server();
      const { merchant, publishable } = await merchantWithKeys(s);
      const payer = uniqueHandle('poor');
      await s.createWallet({ handle: payer, fund: 10 });
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const session = await open(s, publishable);
      const refused = await s.request<{ code: string }>('POST', `/api/checkout/sessions/${session.id}/pay`, { body: { method: 'wallet', handle: payer, pin: '1234' } });
      assert.deepEqual([refused.status, refused.body.code], [422, 'insufficient_funds']);
      assert.equal(await balanceMinor(s, payer, 'NGN'), 1000);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore);
      assert.equal((await s.request<Session>('GET', `/api/checkout/sessions/${session.id}`, { headers: publishable })).body.status, 'open');
      assert.deepEqual(await eventsOf(s, merchant.id), []);
      const unknownWallet = await s.request<{ code: string }>('POST', `/api/checkout/sessions/${session.id}/pay`, { body: { method: 'wallet', handle: 'nobody_here', pin: '1234' } });
      assert.deepEqual([unknownWallet.status, unknownWallet.body.code], [404, 'wallet_not_found']);
      const unknownSession = await s.request<{ code: string }>('POST', '/api/checkout/sessions/cs_nope/pay', { body: { method: 'wallet', handle: payer, pin: '1234' } });
      assert.deepEqual([unknownSession.status, unknownSession.body.code], [404, 'checkout_session_not_found']);
    });

    it('collects sandbox mobile money and bank transfers from the funding account; test_failure fails the session with its event', async () => {
      const s = server();
      const { merchant, publishable } = await merchantWithKeys(s);
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const fundingBefore = await systemBalance(s, 'funding', 'NGN');

      const mobile = await open(s, publishable, { amount: 40, currency: 'NGN', reference: 'order-mm' });
      const missingPhone = await s.request<{ code: string }>('POST', `/api/checkout/sessions/${mobile.id}/pay`, { body: { method: 'mobile_money' } });
      assert.deepEqual([missingPhone.status, missingPhone.body.code], [400, 'phone_required']);
      const paid = await s.request<Session>('POST', `/api/checkout/sessions/${mobile.id}/pay`, { body: { method: 'mobile_money', phone: '+2348012345678' } });
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      assert.deepEqual([paid.body.status, paid.body.paymentMethod, paid.body.transferId], ['paid', 'mobile_money', checkoutTransferId(mobile.id)]);
      const [stored] = await s.db.query<{ payer_account: string }>('SELECT payer_account FROM checkout_sessions WHERE id = $1', [mobile.id]);
      assert.equal(stored!.payer_account, '+2348012345678');

      const bank = await open(s, publishable, { amount: 2.5, currency: 'NGN' });
      const bankPaid = await s.request<Session>('POST', `/api/checkout/sessions/${bank.id}/pay`, { body: { method: 'bank_transfer', accountNumber: '0123456789' } });
      assert.deepEqual([bankPaid.status, bankPaid.body.status, bankPaid.body.paymentMethod], [200, 'paid', 'bank_transfer']);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + 4000 + 250);
      assert.equal(await systemBalance(s, 'funding', 'NGN'), fundingBefore - 4250);

      const failing = await open(s, publishable, { amount: 9, currency: 'NGN', reference: 'test_failure' });
      const failed = await s.request<Session>('POST', `/api/checkout/sessions/${failing.id}/pay`, { body: { method: 'mobile_money', phone: '0801234567' } });
      assert.equal(failed.status, 200);
      assert.deepEqual([failed.body.status, failed.body.failureReason, failed.body.transferId], ['failed', SANDBOX_COLLECTION_FAILURE, undefined]);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + 4250);
      const afterFailure = await s.request<{ code: string }>('POST', `/api/checkout/sessions/${failing.id}/pay`, { body: { method: 'mobile_money', phone: '0801234567' } });
      assert.deepEqual([afterFailure.status, afterFailure.body.code], [409, 'checkout_session_not_open']);

      // A rail the customer's country does not have: 422.
      const southAfrica = await open(s, publishable, { amount: 1, currency: 'NGN', customerCountry: 'ZA' });
      const notOffered = await s.request<{ code: string }>('POST', `/api/checkout/sessions/${southAfrica.id}/pay`, { body: { method: 'mobile_money', phone: '0801234567' } });
      assert.deepEqual([notOffered.status, notOffered.body.code], [422, 'rail_unavailable']);

      const events = await eventsOf(s, merchant.id);
      assert.deepEqual(events.map((event) => [event.type, event.body.sessionId, event.body.paymentMethod]), [
        ['checkout.session.completed', mobile.id, 'mobile_money'],
        ['checkout.session.completed', bank.id, 'bank_transfer'],
        ['checkout.session.failed', failing.id, 'mobile_money'],
      ]);
      assert.deepEqual([events[2]!.body.failureReason, events[2]!.body.reference], [SANDBOX_COLLECTION_FAILURE, 'test_failure']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('refuses mobile money and bank transfer in live mode (no collection provider) but pays live wallets', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const created = await s.request<KeyAnswer>('POST', '/api/merchant/publishable-keys', { headers: { 'x-merchant-api-key': merchant.liveKey }, body: {} });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const publishable = { authorization: `Bearer ${created.body.key}` };
      const session = await open(s, publishable, { amount: 5, currency: 'NGN' });
      assert.equal(session.mode, 'live');
      for (const body of [{ method: 'mobile_money', phone: '+2348012345678' }, { method: 'bank_transfer', accountNumber: '0123456789' }]) {
        const refused = await s.request<{ code: string; error: string }>('POST', `/api/checkout/sessions/${session.id}/pay`, { body });
        assert.deepEqual([refused.status, refused.body.code], [422, 'rail_unavailable']);
        assert.match(refused.body.error, /No (mobile_money|bank_transfer) collection provider/);
      }
      const payer = uniqueHandle('live');
      await s.createWallet({ handle: payer, fund: 20, mode: 'live' });
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN', 'live');
      const paid = await s.request<Session>('POST', `/api/checkout/sessions/${session.id}/pay`, { body: { method: 'wallet', handle: payer, pin: '1234' } });
      assert.deepEqual([paid.status, paid.body.status], [200, 'paid']);
      assert.equal(await balanceMinor(s, payer, 'NGN', 'live'), 1500);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN', 'live'), merchantBefore + 500);
      // A test wallet of the same handle cannot pay a live session.
      const testSession = await open(s, publishable, { amount: 1, currency: 'NGN' });
      const testPayer = uniqueHandle('testonly');
      await s.createWallet({ handle: testPayer, fund: 20 });
      const wrongMode = await s.request<{ code: string }>('POST', `/api/checkout/sessions/${testSession.id}/pay`, { body: { method: 'wallet', handle: testPayer, pin: '1234' } });
      assert.deepEqual([wrongMode.status, wrongMode.body.code], [404, 'wallet_not_found']);
    });

    it('expires a session after 30 minutes: reads show expired and paying is a 410', async () => {
      const s = server();
      const { merchant, publishable } = await merchantWithKeys(s);
      const payer = uniqueHandle('late');
      await s.createWallet({ handle: payer, fund: 100 });
      const session = await open(s, publishable);
      offsetMs += 29 * 60 * 1000;
      assert.equal((await s.request<Session>('GET', `/api/checkout/sessions/${session.id}`, { headers: publishable })).body.status, 'open');
      offsetMs += 61 * 1000;
      const late = await s.request<{ code: string }>('POST', `/api/checkout/sessions/${session.id}/pay`, { body: { method: 'wallet', handle: payer, pin: '1234' } });
      assert.deepEqual([late.status, late.body.code], [410, 'checkout_session_expired']);
      assert.equal(await balanceMinor(s, payer, 'NGN'), 10_000);
      const read = await s.request<Session>('GET', `/api/checkout/sessions/${session.id}`, { headers: publishable });
      assert.equal(read.body.status, 'expired');
      const [row] = await s.db.query<{ status: string }>('SELECT status FROM checkout_sessions WHERE id = $1', [session.id]);
      assert.equal(row!.status, 'expired');
      assert.deepEqual(await eventsOf(s, merchant.id), []);
    });

    it('answers CORS preflights and adds CORS headers on the checkout routes only', async () => {
      const s = server();
      const { publishable } = await merchantWithKeys(s);
      for (const [path, method] of [['/api/checkout/sessions', 'POST'], ['/api/checkout/sessions/cs_abc', 'GET'], ['/api/checkout/sessions/cs_abc/pay', 'POST']] as const) {
        const preflight = await fetch(`${s.baseUrl}${path}`, {
          method: 'OPTIONS',
          headers: { origin: 'https://shop.example', 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type, idempotency-key' },
        });
        assert.equal(preflight.status, 204, path);
        assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
        assert.match(preflight.headers.get('access-control-allow-methods') ?? '', new RegExp(method));
        assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /authorization.*content-type.*idempotency-key/);
        assert.equal(preflight.headers.get('access-control-max-age'), '600');
      }
      const created = await s.request('POST', '/api/checkout/sessions', { headers: { ...publishable, origin: 'https://shop.example' }, body: { amount: 1, currency: 'NGN' } });
      assert.equal(created.headers.get('access-control-allow-origin'), '*');
      assert.match(created.headers.get('access-control-expose-headers') ?? '', /x-ratelimit-remaining/);
      // Errors carry them too, so the drop-in can read {error}.
      const refused = await s.request('GET', '/api/checkout/sessions/cs_abc', { headers: { origin: 'https://shop.example' } });
      assert.deepEqual([refused.status, refused.headers.get('access-control-allow-origin')], [401, '*']);
      // Other routes do not answer other origins.
      const balance = await s.request('GET', '/api/merchant/balance', { headers: { origin: 'https://shop.example' } });
      assert.equal(balance.headers.get('access-control-allow-origin'), null);
      const preflightElsewhere = await fetch(`${s.baseUrl}/api/merchant/balance`, { method: 'OPTIONS', headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' } });
      assert.equal(preflightElsewhere.headers.get('access-control-allow-origin'), null);
    });

    it('rate-limits a publishable key per client IP', async () => {
      const s = server();
      const { publishable } = await merchantWithKeys(s);
      const session = await open(s, publishable, { amount: 1, currency: 'NGN' });
      const first = await s.request('GET', `/api/checkout/sessions/${session.id}`, { headers: publishable });
      // 'other' group: 120 per minute, scaled by 10 in this suite.
      assert.equal(first.headers.get('x-ratelimit-limit'), '1200');
      const remaining = Number(first.headers.get('x-ratelimit-remaining'));
      const second = await s.request('GET', `/api/checkout/sessions/${session.id}`, { headers: publishable });
      assert.equal(Number(second.headers.get('x-ratelimit-remaining')), remaining - 1);
    });

    it('serves the drop-in script cross-origin, the checkout page and its QR code', async () => {
      const s = server();
      const { publishable } = await merchantWithKeys(s, { name: 'Ada Fabrics' });
      const script = await fetch(`${s.baseUrl}/sdk/service.js`);
      assert.equal(script.status, 200);
      assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
      assert.equal(script.headers.get('access-control-allow-origin'), '*');
      assert.equal(script.headers.get('cross-origin-resource-policy'), 'cross-origin');
      assert.equal(script.headers.get('cache-control'), 'public, max-age=300');
      // One standalone script (built by Vite from web/src/sdk) that sets window.Tapline.checkout.
      const source = await script.text();
      assert.match(source, /^\(function\(\)\{/);
      assert.match(source, /\.Tapline=Object\.assign\(/);
      assert.match(source, /checkout:/);

      const session = await open(s, publishable, { amount: 12.5, currency: 'NGN', description: 'Blue ankara' });
      const pageAnswer = await fetch(`${s.baseUrl}/pay/checkout/${session.id}`);
      assert.equal(pageAnswer.status, 200);
      assert.match(pageAnswer.headers.get('content-security-policy') ?? '', /script-src 'self'/);
      const html = await pageAnswer.text();
      assert.match(html, /Pay Ada Fabrics/);
      assert.match(html, /Blue ankara/);
      assert.match(html, /data-page="checkout"/);
      assert.equal((await fetch(`${s.baseUrl}/pay/checkout/cs_unknown`)).status, 404);

      const qr = await fetch(`${s.baseUrl}/pos/qr.svg?data=${encodeURIComponent(session.qrPayload)}`);
      assert.equal(qr.status, 200);
      assert.equal(qr.headers.get('content-type'), 'image/svg+xml');
      assert.match(await qr.text(), /<svg/);
      assert.equal((await fetch(`${s.baseUrl}/pos/qr.svg?data=${encodeURIComponent('https://evil.example/pay/checkout/x')}`)).status, 400);

      const docs = await s.request<{ paths: Record<string, Record<string, { description?: string }>> }>('GET', '/docs/json');
      assert.match(docs.body.paths['/api/checkout/sessions']!.post!.description ?? '', /open -> paid \| failed \| expired/);
      assert.match(docs.body.paths['/api/merchant/publishable-keys']!.post!.description ?? '', /pk_test_ \/ pk_live_/);
      assert.ok(docs.body.paths['/api/checkout/sessions/{id}/pay']!.post);
    });
  });
}
