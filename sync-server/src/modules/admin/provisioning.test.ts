import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { ADMIN, uniqueHandle, useTestServer } from '../../testing/server.ts';
import { checkLedger } from '../../ledger/check.ts';

for (const target of await databaseTargets()) {
  describe(`provisioning and credentials on ${target.name}`, () => {
    const server = useTestServer(target);

    it('creates a merchant with keys of the right form and a funded sandbox wallet', async () => {
      const { request, createMerchant } = server();
      const merchant = await createMerchant({ handle: '@Mama_Put', currency: 'NGN' });
      assert.match(merchant.id, /^mer_/);
      assert.equal(merchant.handle, '@mama_put');
      assert.match(merchant.testKey, /^mk_test_[0-9a-f]{64}$/);
      assert.match(merchant.liveKey, /^mk_live_[0-9a-f]{64}$/);
      assert.match(merchant.webhookSecret, /^whsec_[0-9a-f]{64}$/);
      const test = await request('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(test.status, 200);
      assert.deepEqual(test.body, { handle: '@mama_put', balances: [{ currency: 'NGN', available: 1_000_000 }] });
      const live = await request('GET', '/api/merchant/balance', { headers: { authorization: `Bearer ${merchant.liveKey}` } });
      assert.deepEqual(live.body, { handle: '@mama_put', balances: [{ currency: 'NGN', available: 0 }] });
      // Keys are stored only as hashes.
      const stored = await server().db.query<{ key_hash: string }>('SELECT key_hash FROM api_keys');
      assert.ok(stored.every((row) => /^[0-9a-f]{64}$/.test(row.key_hash) && row.key_hash !== merchant.testKey.slice(8)));
    });

    it('refuses a taken handle with 409 and bad fields with 400', async () => {
      const { request, createMerchant } = server();
      const merchant = await createMerchant();
      const again = await request('POST', '/api/admin/merchants', { headers: ADMIN, body: { name: 'x', handle: merchant.handle, country: 'NG', currency: 'NGN' } });
      assert.equal(again.status, 409);
      assert.deepEqual(again.body, { error: `The handle ${merchant.handle} is already taken`, code: 'handle_taken' });
      const badCountry = await request('POST', '/api/admin/merchants', { headers: ADMIN, body: { name: 'x', handle: uniqueHandle(), country: 'FR', currency: 'NGN' } });
      assert.equal(badCountry.status, 400);
      assert.equal(badCountry.body.code, 'country_not_supported');
      const missing = await request('POST', '/api/admin/merchants', { headers: ADMIN, body: { name: 'x', country: 'NG', currency: 'NGN' } });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.code, 'validation_failed');
      assert.match(String(missing.body.error), /handle is required/);
    });

    it('creates and credits a customer wallet; amounts obey the currency exponent', async () => {
      const { request, createWallet } = server();
      const handle = uniqueHandle('ada');
      await createWallet({ handle, currency: 'KES', country: 'KE' });
      const credit = await request('POST', `/api/admin/wallets/@${handle}/credit`, { headers: ADMIN, body: { amount: 250.75, currency: 'KES' } });
      assert.equal(credit.status, 200);
      assert.equal(credit.body.balance, 250.75);
      assert.equal(credit.body.amount, 250.75);
      for (const [amount, code] of [[0.001, 'amount_too_many_decimals'], [0, 'amount_must_not_be_zero'], [-5, 'amount_must_be_positive'], [2e12, 'amount_too_large']] as const) {
        const refused = await request('POST', `/api/admin/wallets/${handle}/credit`, { headers: ADMIN, body: { amount, currency: 'KES' } });
        assert.equal(refused.status, 400, `amount ${amount}`);
        assert.equal(refused.body.code, code);
      }
      const ugx = await request('POST', `/api/admin/wallets/${handle}/credit`, { headers: ADMIN, body: { amount: 10.5, currency: 'UGX' } });
      assert.equal(ugx.body.code, 'amount_too_many_decimals');
      const unknown = await request('POST', '/api/admin/wallets/nobody_here/credit', { headers: ADMIN, body: { amount: 1, currency: 'KES' } });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.code, 'wallet_not_found');
    });

    it('replays a credit sent twice with one Idempotency-Key and refuses the key with another body', async () => {
      const { request, createWallet } = server();
      const handle = uniqueHandle('idem');
      await createWallet({ handle });
      const headers = { ...ADMIN, 'idempotency-key': `credit-${handle}` };
      const first = await request('POST', `/api/admin/wallets/${handle}/credit`, { headers, body: { amount: 100, currency: 'NGN' } });
      const second = await request('POST', `/api/admin/wallets/${handle}/credit`, { headers, body: { amount: 100, currency: 'NGN' } });
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      assert.deepEqual(second.body, first.body);
      assert.equal(second.headers.get('idempotent-replayed'), 'true');
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const other = await request('POST', `/api/admin/wallets/${handle}/credit`, { headers, body: { amount: 101, currency: 'NGN' } });
      assert.equal(other.status, 422);
      assert.equal(other.body.code, 'idempotency_key_reused');
      const session = await request('POST', '/api/wallet/sessions', { body: { handle, pin: '1234' } });
      const balance = await request('GET', '/api/wallet/balance', { headers: { authorization: `Bearer wallet.${session.body.token}` } });
      assert.deepEqual(balance.body, { handle: `@${handle}`, balances: [{ currency: 'NGN', available: 100 }] });
    });

    it('signs a wallet in with its PIN and locks it after 5 wrong PINs', async () => {
      const { request, createWallet, db } = server();
      const handle = uniqueHandle('pin');
      await createWallet({ handle, pin: '482913' });
      const stored = await db.query<{ pin_hash: string }>('SELECT pin_hash FROM wallets WHERE handle = $1', [handle]);
      assert.match(stored[0]!.pin_hash, /^scrypt\$16384\$8\$1\$/);
      for (let attempt = 1; attempt <= 5; attempt++) {
        const wrong = await request('POST', '/api/wallet/sessions', { body: { handle, pin: '000000' } });
        assert.equal(wrong.status, 403, `attempt ${attempt}`);
        assert.equal(wrong.body.code, 'wrong_pin');
      }
      const locked = await request('POST', '/api/wallet/sessions', { body: { handle, pin: '482913' } });
      assert.equal(locked.status, 429);
      assert.equal(locked.body.code, 'pin_attempts_exceeded');
      assert.ok(Number(locked.headers.get('retry-after')) > 800);
      await db.query(`UPDATE wallets SET locked_until = now() - interval '1 second' WHERE handle = $1`, [handle]);
      const ok = await request('POST', '/api/wallet/sessions', { body: { handle: `@${handle.toUpperCase()}`, pin: '482913' } });
      assert.equal(ok.status, 201);
      assert.match(String(ok.body.token), /^[0-9a-f]{64}$/);
      const signOut = await request('DELETE', '/api/wallet/sessions/current', { headers: { authorization: `Bearer wallet.${ok.body.token}` } });
      assert.equal(signOut.status, 200);
      const after = await request('GET', '/api/wallet/balance', { headers: { authorization: `Bearer wallet.${ok.body.token}` } });
      assert.equal(after.status, 401);
    });

    it('rotates a key with a grace period (both work) and without (the old one is refused)', async () => {
      const { request, createMerchant } = server();
      const merchant = await createMerchant();
      const graced = await request('POST', '/api/merchant/keys/rotate', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { graceHours: 2 } });
      assert.equal(graced.status, 200);
      const newKey = String(graced.body.key);
      assert.match(newKey, /^mk_test_[0-9a-f]{64}$/);
      const expiresIn = Date.parse(String(graced.body.previousKeyExpiresAt)) - Date.now();
      assert.ok(expiresIn > 2 * 3600_000 - 60_000 && expiresIn <= 2 * 3600_000, `grace ${expiresIn}`);
      for (const key of [merchant.testKey, newKey]) {
        assert.equal((await request('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': key } })).status, 200);
      }
      const immediate = await request('POST', '/api/merchant/keys/rotate', { headers: { authorization: `Bearer ${newKey}` }, body: { graceHours: 0 } });
      assert.equal(immediate.status, 200);
      const refused = await request('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': newKey } });
      assert.equal(refused.status, 401);
      assert.deepEqual(refused.body, { error: 'This API key was rotated and its grace period has ended', code: 'api_key_expired' });
      assert.equal((await request('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': String(immediate.body.key) } })).status, 200);
      const tooLong = await request('POST', '/api/merchant/keys/rotate', { headers: { 'x-merchant-api-key': String(immediate.body.key) }, body: { graceHours: 25 } });
      assert.equal(tooLong.status, 400);
    });

    it('keeps test and live apart: a live key never sees test wallets or terminals', async () => {
      const { request, createMerchant, createWallet } = server();
      const merchant = await createMerchant();
      const handle = uniqueHandle('iso');
      await createWallet({ handle, mode: 'test', fund: 50 });
      const liveSession = await request('POST', '/api/wallet/sessions', { body: { handle, pin: '1234', mode: 'live' } });
      assert.equal(liveSession.status, 404);
      const liveCredit = await request('POST', `/api/admin/wallets/${handle}/credit`, { headers: ADMIN, body: { amount: 1, currency: 'NGN', mode: 'live' } });
      assert.equal(liveCredit.status, 404);
      const terminal = await request('POST', '/api/merchant/terminals', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { name: 'Till 1' } });
      assert.equal(terminal.status, 201);
      const liveList = await request('GET', '/api/merchant/terminals', { headers: { 'x-merchant-api-key': merchant.liveKey } });
      assert.deepEqual(liveList.body, { data: [], total: 0, limit: 20, offset: 0 });
      const liveRevoke = await request('DELETE', `/api/merchant/terminals/${terminal.body.id}`, { headers: { 'x-merchant-api-key': merchant.liveKey } });
      assert.equal(liveRevoke.status, 404);
      const testList = await request('GET', '/api/merchant/terminals', { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(testList.body.total, 1);
    });

    it('issues revocable terminal tokens', async () => {
      const { request, createMerchant } = server();
      const merchant = await createMerchant();
      const created = await request('POST', '/api/merchant/terminals', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { name: 'Front till' } });
      const token = `term.${created.body.token}`;
      const asTerminal = await request('GET', '/api/merchant/balance', { headers: { authorization: `Bearer ${token}` } });
      assert.equal(asTerminal.status, 403, 'a terminal is not a merchant key');
      assert.equal(asTerminal.body.code, 'credential_not_allowed');
      await request('DELETE', `/api/merchant/terminals/${created.body.id}`, { headers: { 'x-merchant-api-key': merchant.testKey } });
      const revoked = await request('GET', '/api/merchant/balance', { headers: { authorization: `Bearer ${token}` } });
      assert.equal(revoked.status, 401);
      assert.equal(revoked.body.code, 'terminal_revoked');
    });

    it('signs agents in with id and secret', async () => {
      const { request } = server();
      const created = await request('POST', '/api/admin/agents', { headers: ADMIN, body: { name: 'Kiosk Agent', handle: uniqueHandle('agent'), country: 'GH', currency: 'GHS' } });
      assert.equal(created.status, 201);
      const wrong = await request('POST', '/api/agent/sessions', { body: { agentId: created.body.agentId, secret: 'nope' } });
      assert.equal(wrong.status, 401);
      const session = await request('POST', '/api/agent/sessions', { body: { agentId: created.body.agentId, secret: created.body.secret } });
      assert.equal(session.status, 201);
      const balance = await request('GET', '/api/agent/balance', { headers: { authorization: `Bearer agent.${session.body.token}` } });
      assert.deepEqual(balance.body, { handle: created.body.handle, balances: [{ currency: 'GHS', available: 0 }] });
    });

    it('sets the webhook URL and rotates its secret; live refuses private addresses', async () => {
      const { request, createMerchant } = server();
      const merchant = await createMerchant();
      const set = await request('PATCH', '/api/merchant/settings', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { webhookUrl: 'http://127.0.0.1:9999/hooks' } });
      assert.deepEqual(set.body, { webhookUrl: 'http://127.0.0.1:9999/hooks' });
      const rotated = await request('PATCH', '/api/merchant/settings', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { rotateWebhookSecret: true } });
      assert.match(String(rotated.body.webhookSecret), /^whsec_[0-9a-f]{64}$/);
      assert.notEqual(rotated.body.webhookSecret, merchant.webhookSecret);
      for (const url of ['https://10.0.0.5/hook', 'https://localhost/hook', 'https://[::1]/x', 'https://169.254.169.254/latest', 'http://example.com/x']) {
        const refused = await request('PATCH', '/api/merchant/settings', { headers: { 'x-merchant-api-key': merchant.liveKey }, body: { webhookUrl: url } });
        assert.equal(refused.status, 400, url);
        assert.equal(refused.body.code, 'url_not_allowed');
      }
    });

    it('keeps the ledger consistent after provisioning', async () => {
      const report = await checkLedger(server().db);
      assert.deepEqual(report.violations, []);
      assert.ok(report.transfers > 0);
    });
  });
}
