import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeUriMessage, findUri, parseNdefMessage, parseTapUrl } from '@tapline/shared/ndef';
import { databaseTargets } from '../../testing/databases.ts';
import { type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';
import { findWallet } from '../wallets/store.ts';
import { insertWearable } from './store.ts';

type Tag = {
  tagId: string;
  handle: string;
  tagType: string;
  displayName: string;
  status: string;
  tapUrl: string;
  redirectTo: string;
  tapCount: number;
  mode: string;
  lastTappedAt: string | null;
  createdAt: string;
  updatedAt: string;
};
type Resolve = { tagId: string; handle: string; displayName: string; tagType: string; redirectTo: string; tapCount: number };

async function walletToken(server: TestServer, handle: string, pin = '1234', mode: 'test' | 'live' = 'test'): Promise<Record<string, string>> {
  const signedIn = await server.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin, mode } });
  assert.equal(signedIn.status, 201, JSON.stringify(signedIn.body));
  return { authorization: `Bearer wallet.${signedIn.body.token}` };
}

for (const target of await databaseTargets()) {
  describe(`tap wearables on ${target.name}`, () => {
    // 1,000 public resolves from one IP fit in a raised limit (the spec's is 120 a minute per caller).
    const server = useTestServer(target, { rateLimitScale: 20 });

    async function merchantWithCustomer() {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const handle = uniqueHandle('ada');
      await s.createWallet({ handle, fund: 100 });
      return { merchant, key, handle };
    }

    async function register(key: Record<string, string>, body: Record<string, unknown>) {
      const created = await server().request<Tag>('POST', '/api/wearables', { headers: key, body });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body;
    }

    it('registers a tag: TG + 8 upper-case hex, tapUrl {PUBLIC_BASE_URL}/tap/<tagId>, tapCount 0; the tapUrl round-trips through NDEF bytes', async () => {
      const s = server();
      const { key, handle } = await merchantWithCustomer();
      const tag = await register(key, { handle: `@${handle.toUpperCase()}`, tagType: 'ring', displayName: 'Ada\'s ring' });
      assert.match(tag.tagId, /^TG[0-9A-F]{8}$/);
      assert.equal(tag.tapUrl, `${s.config.publicBaseUrl}/tap/${tag.tagId}`);
      assert.equal(tag.handle, `@${handle}`);
      assert.equal(tag.tagType, 'ring');
      assert.equal(tag.displayName, 'Ada\'s ring');
      assert.equal(tag.status, 'active');
      assert.equal(tag.tapCount, 0);
      assert.equal(tag.redirectTo, `/pay/${handle}?source=nfc`);
      assert.equal(tag.mode, 'test');
      // What a tag writer writes and a reader parses back: one NDEF URI record.
      const bytes = encodeUriMessage(tag.tapUrl);
      assert.equal(bytes[0], 0xd1, 'MB, ME, SR, well-known');
      assert.equal(bytes[3], 0x55, 'type U');
      const uri = findUri(parseNdefMessage(bytes));
      assert.equal(uri, tag.tapUrl);
      assert.deepEqual(parseTapUrl(uri!), { baseUrl: s.config.publicBaseUrl, tagId: tag.tagId });
      // Every tag type of the spec is accepted; the display name defaults to the wallet's.
      for (const tagType of ['sticker', 'card', 'band', 'keychain', 'watch', 'custom']) {
        const other = await register(key, { handle, tagType });
        assert.equal(other.tagType, tagType);
        assert.equal(other.displayName, handle);
      }
    });

    it('refuses an unknown tagType (400), a handle without a wallet in the key\'s mode (404) and no credential (401)', async () => {
      const s = server();
      const { merchant, key, handle } = await merchantWithCustomer();
      const badType = await s.request('POST', '/api/wearables', { headers: key, body: { handle, tagType: 'implant', displayName: 'x' } });
      assert.equal(badType.status, 400);
      assert.equal(badType.body.code, 'validation_failed');
      const missing = await s.request('POST', '/api/wearables', { headers: key, body: { handle, displayName: 'x' } });
      assert.equal(missing.status, 400);
      const badHandle = await s.request('POST', '/api/wearables', { headers: key, body: { handle: 'x', tagType: 'ring', displayName: 'x' } });
      assert.equal(badHandle.status, 400);
      const nobody = await s.request('POST', '/api/wearables', { headers: key, body: { handle: 'nobody_here_at_all', tagType: 'ring', displayName: 'x' } });
      assert.equal(nobody.status, 404);
      assert.equal(nobody.body.code, 'wallet_not_found');
      const liveOnly = await s.request('POST', '/api/wearables', { headers: { 'x-merchant-api-key': merchant.liveKey }, body: { handle, tagType: 'ring', displayName: 'x' } });
      assert.equal(liveOnly.status, 404, 'the customer has no live wallet');
      const anonymous = await s.request('POST', '/api/wearables', { body: { handle, tagType: 'ring', displayName: 'x' } });
      assert.equal(anonymous.status, 401);
    });

    it('resolves publicly: handle, displayName, redirectTo, and a tap counter that counts every resolve', async () => {
      const s = server();
      const { key, handle } = await merchantWithCustomer();
      const tag = await register(key, { handle, tagType: 'band', displayName: 'Blue band' });
      for (let expected = 1; expected <= 3; expected++) {
        const resolved = await s.request<Resolve>('GET', `/api/tap/${tag.tagId}`);
        assert.equal(resolved.status, 200);
        assert.deepEqual(resolved.body, { tagId: tag.tagId, handle: `@${handle}`, displayName: 'Blue band', tagType: 'band', redirectTo: `/pay/${handle}?source=nfc`, tapCount: expected });
      }
      const lower = await s.request<Resolve>('GET', `/api/tap/${tag.tagId.toLowerCase()}`);
      assert.equal(lower.body.tapCount, 4);
      const unknown = await s.request('GET', '/api/tap/TG00000000');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.code, 'tag_not_found');
      assert.equal((await s.request('GET', '/api/tap/hello')).status, 404);
      const record = await s.request<Tag>('GET', `/api/wearables/${tag.tagId}`, { headers: key });
      assert.equal(record.body.tapCount, 4);
      assert.ok(record.body.lastTappedAt);
    });

    it('counts 1,000 resolves, a hundred at a time, exactly: tapCount 1,000', async () => {
      const s = server();
      const { key, handle } = await merchantWithCustomer();
      const tag = await register(key, { handle, tagType: 'keychain', displayName: 'Keys' });
      // 1,000 resolves in flight together, over at most 100 connections: a thousand sockets at
      // once overflowed a loaded CI machine's accept queue (ECONNRESET) before the server saw them.
      const answers: Awaited<ReturnType<typeof s.request<Resolve>>>[] = [];
      const pending = Array.from({ length: 1000 }, (_, index) => index);
      await Promise.all(
        Array.from({ length: 100 }, async () => {
          for (let next = pending.shift(); next !== undefined; next = pending.shift()) answers.push(await s.request<Resolve>('GET', `/api/tap/${tag.tagId}`));
        }),
      );
      assert.equal(answers.length, 1000);
      assert.deepEqual([...new Set(answers.map((answer) => answer.status))], [200]);
      // Each resolve saw a different count: no two increments collapsed into one.
      assert.equal(new Set(answers.map((answer) => answer.body.tapCount)).size, 1000);
      const record = await s.request<Tag>('GET', `/api/wearables/${tag.tagId}`, { headers: key });
      assert.equal(record.body.tapCount, 1000);
    });

    it('PUT changes handle, displayName and status; a disabled tag resolves 403 (uncounted) until re-enabled', async () => {
      const s = server();
      const { key, handle } = await merchantWithCustomer();
      const other = uniqueHandle('bola');
      await s.createWallet({ handle: other });
      const tag = await register(key, { handle, tagType: 'card', displayName: 'Card' });
      const moved = await s.request<Tag>('PUT', `/api/wearables/${tag.tagId}`, { headers: key, body: { handle: `@${other}`, displayName: 'Bola\'s card' } });
      assert.equal(moved.status, 200);
      assert.equal(moved.body.handle, `@${other}`);
      assert.equal(moved.body.displayName, 'Bola\'s card');
      assert.equal(moved.body.redirectTo, `/pay/${other}?source=nfc`);
      assert.equal((await s.request<Resolve>('GET', `/api/tap/${tag.tagId}`)).body.handle, `@${other}`);
      const disabled = await s.request<Tag>('PUT', `/api/wearables/${tag.tagId}`, { headers: key, body: { status: 'disabled' } });
      assert.equal(disabled.body.status, 'disabled');
      const refused = await s.request('GET', `/api/tap/${tag.tagId}`);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'tag_disabled');
      const page = await fetch(`${s.baseUrl}/tap/${tag.tagId}`, { redirect: 'manual' });
      assert.equal(page.status, 403);
      assert.equal((await s.request<Tag>('GET', `/api/wearables/${tag.tagId}`, { headers: key })).body.tapCount, 1, 'refusals are not counted');
      const enabled = await s.request<Tag>('PUT', `/api/wearables/${tag.tagId}`, { headers: key, body: { status: 'active' } });
      assert.equal(enabled.body.status, 'active');
      assert.equal((await s.request<Resolve>('GET', `/api/tap/${tag.tagId}`)).body.tapCount, 2);
      const badStatus = await s.request('PUT', `/api/wearables/${tag.tagId}`, { headers: key, body: { status: 'lost' } });
      assert.equal(badStatus.status, 400);
      const nobody = await s.request('PUT', `/api/wearables/${tag.tagId}`, { headers: key, body: { handle: 'nobody_here_at_all' } });
      assert.equal(nobody.status, 404);
    });

    it('another merchant and the other mode see 404; lists show only the caller\'s tags', async () => {
      const s = server();
      const { merchant, key, handle } = await merchantWithCustomer();
      const mine = await register(key, { handle, tagType: 'sticker', displayName: 'Sticker' });
      const rival = await s.createMerchant();
      const rivalKey = { 'x-merchant-api-key': rival.testKey };
      await register(rivalKey, { handle, tagType: 'watch', displayName: 'Watch' });
      assert.equal((await s.request('GET', `/api/wearables/${mine.tagId}`, { headers: rivalKey })).status, 404);
      const hijack = await s.request('PUT', `/api/wearables/${mine.tagId}`, { headers: rivalKey, body: { status: 'disabled' } });
      assert.equal(hijack.status, 404);
      assert.equal((await s.request('GET', `/api/wearables/${mine.tagId}`, { headers: { 'x-merchant-api-key': merchant.liveKey } })).status, 404);
      const list = await s.request<{ data: Tag[]; total: number; limit: number; offset: number }>('GET', '/api/wearables', { headers: key });
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.data.map((tag) => tag.tagId), [mine.tagId]);
      assert.equal(list.body.total, 1);
      assert.equal(list.body.limit, 20);
      assert.equal(list.body.offset, 0);
      const liveList = await s.request<{ total: number }>('GET', '/api/wearables', { headers: { 'x-merchant-api-key': merchant.liveKey } });
      assert.equal(liveList.body.total, 0);
    });

    it('a wallet holder registers, lists and disables their own tags (a lost ring stops paying at once), but no one else\'s', async () => {
      const s = server();
      const { key, handle } = await merchantWithCustomer();
      const byMerchant = await register(key, { handle, tagType: 'ring', displayName: 'Shop ring' });
      const holder = await walletToken(s, handle);
      const own = await register(holder, { tagType: 'band', displayName: 'My band' });
      assert.equal(own.handle, `@${handle}`);
      const explicit = await register(holder, { handle: `@${handle}`, tagType: 'sticker' });
      assert.equal(explicit.handle, `@${handle}`);
      const stranger = uniqueHandle('eve');
      await s.createWallet({ handle: stranger });
      const forSomeoneElse = await s.request('POST', '/api/wearables', { headers: holder, body: { handle: stranger, tagType: 'ring' } });
      assert.equal(forSomeoneElse.status, 403);
      assert.equal(forSomeoneElse.body.code, 'handle_not_yours');
      const list = await s.request<{ data: Tag[]; total: number }>('GET', '/api/wearables', { headers: holder });
      assert.deepEqual(list.body.data.map((tag) => tag.tagId).sort(), [byMerchant.tagId, own.tagId, explicit.tagId].sort());
      // The ring the shop registered is lost: the holder disables it, and it neither resolves nor pays.
      const lost = await s.request<Tag>('PUT', `/api/wearables/${byMerchant.tagId}`, { headers: holder, body: { status: 'disabled' } });
      assert.equal(lost.status, 200);
      assert.equal(lost.body.status, 'disabled');
      assert.equal((await s.request('GET', `/api/tap/${byMerchant.tagId}`)).status, 403);
      const session = await s.request<{ sessionId: string }>('POST', '/api/pos/sessions', { headers: key, body: { amount: 5, currency: 'NGN', description: 'x' } });
      const tap = await s.request('POST', `/api/pos/sessions/${session.body.sessionId}/tap`, { headers: key, body: { tagId: byMerchant.tagId } });
      assert.equal(tap.status, 403);
      assert.equal(tap.body.code, 'tag_disabled');
      const repoint = await s.request('PUT', `/api/wearables/${own.tagId}`, { headers: holder, body: { handle: stranger } });
      assert.equal(repoint.status, 403);
      const strangerToken = await walletToken(s, stranger);
      assert.equal((await s.request('PUT', `/api/wearables/${own.tagId}`, { headers: strangerToken, body: { status: 'disabled' } })).status, 404);
      assert.equal((await s.request<{ total: number }>('GET', '/api/wearables', { headers: strangerToken })).body.total, 0);
    });

    it('the /tap/<tagId> page counts the tap and redirects to /pay/<handle>?source=nfc; /pay/<handle> renders the pay form', async () => {
      const s = server();
      const { key, handle } = await merchantWithCustomer();
      const tag = await register(key, { handle, tagType: 'ring', displayName: 'Ring' });
      const redirect = await fetch(`${s.baseUrl}/tap/${tag.tagId}`, { redirect: 'manual' });
      assert.equal(redirect.status, 302);
      assert.equal(redirect.headers.get('location'), `/pay/${handle}?source=nfc`);
      assert.equal((await s.request<Tag>('GET', `/api/wearables/${tag.tagId}`, { headers: key })).body.tapCount, 1);
      const page = await fetch(`${s.baseUrl}/pay/${handle}?source=nfc`);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /text\/html/);
      assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
      const html = await page.text();
      assert.match(html, new RegExp(`@${handle}`));
      assert.match(html, /Tapped with NFC/);
      assert.match(html, /id="pay-form"/);
      assert.equal((await fetch(`${s.baseUrl}/pay/nobody_here_at_all`)).status, 404);
      assert.equal((await fetch(`${s.baseUrl}/tap/TG00000000`, { redirect: 'manual' })).status, 404);
    });

    it('POST /api/wallet/pay moves money between wallets once per Idempotency-Key; 422 on insufficient funds', async () => {
      const s = server();
      const payer = uniqueHandle('payer');
      const payee = uniqueHandle('payee');
      await s.createWallet({ handle: payer, fund: 30 });
      await s.createWallet({ handle: payee });
      const holder = await walletToken(s, payer);
      const body = { to: `@${payee}`, amount: 12.5, note: 'lunch' };
      const paid = await s.request<{ transferId: string; amount: number; currency: string; balance: number; from: string; to: string; status: string }>('POST', '/api/wallet/pay', {
        headers: { ...holder, 'idempotency-key': 'lunch-1' },
        body,
      });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      assert.equal(paid.body.status, 'completed');
      assert.equal(paid.body.from, `@${payer}`);
      assert.equal(paid.body.to, `@${payee}`);
      assert.equal(paid.body.amount, 12.5);
      assert.equal(paid.body.currency, 'NGN');
      assert.equal(paid.body.balance, 17.5);
      const replay = await s.request<{ transferId: string }>('POST', '/api/wallet/pay', { headers: { ...holder, 'idempotency-key': 'lunch-1' }, body });
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(replay.body.transferId, paid.body.transferId);
      const payeeToken = await walletToken(s, payee);
      const balance = await s.request<{ balances: { currency: string; available: number }[] }>('GET', '/api/wallet/balance', { headers: payeeToken });
      assert.deepEqual(balance.body.balances, [{ currency: 'NGN', available: 12.5 }]);
      const tooMuch = await s.request('POST', '/api/wallet/pay', { headers: holder, body: { to: payee, amount: 100 } });
      assert.equal(tooMuch.status, 422);
      assert.equal(tooMuch.body.code, 'insufficient_funds');
      assert.equal((await s.request('POST', '/api/wallet/pay', { headers: holder, body: { to: payer, amount: 1 } })).status, 400);
      assert.equal((await s.request('POST', '/api/wallet/pay', { headers: holder, body: { to: 'nobody_here_at_all', amount: 1 } })).status, 404);
      assert.equal((await s.request('POST', '/api/wallet/pay', { headers: holder, body: { to: payee, amount: 0.001 } })).status, 400);
      assert.equal((await s.request('POST', '/api/wallet/pay', { body: { to: payee, amount: 1 } })).status, 401);
    });

    it('tag ids are collision-safe: a taken id is replaced by a fresh one', async () => {
      const s = server();
      const { handle } = await merchantWithCustomer();
      const wallet = (await findWallet(s.db, handle, 'test'))!;
      const fields = { mode: 'test' as const, walletId: wallet.id, handle, tagType: 'custom', displayName: 'x', merchantId: null, consent: 'holder_session' as const };
      const ids = ['TGC0111DE0', 'TGC0111DE0', 'TGC0111DE1'];
      const first = await insertWearable(s.db, fields, () => ids.shift()!);
      assert.equal(first.tag_id, 'TGC0111DE0');
      const second = await insertWearable(s.db, fields, () => ids.shift()!);
      assert.equal(second.tag_id, 'TGC0111DE1', 'the collision was retried with the next id');
    });
  });
}
