import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { balanceMinor } from '../../testing/ledger.ts';
import { ADMIN, type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';
import { tagAllowances } from '../wearables/store.ts';
import { refreshNoPinLimitDefaults } from '../wearables/no-pin-limits.ts';

type Session = { sessionId: string; status: string; amount: number; payerHandle?: string; walletRef?: string; errorMessage?: string; tagId?: string };
type Limits = { currency: string; perTap: number; perDay: number; perTapDefault: number; perDayDefault: number; spentToday?: number };
type Tag = { tagId: string; tapCount: number; noPinLimits: Limits };

for (const target of await databaseTargets()) {
  describe(`no-PIN limits of a tag on POS taps on ${target.name}`, () => {
    // The modules' clock: real time plus an offset the tests move (a new UTC day without waiting).
    let offsetMs = 0;
    const server = useTestServer(target, {
      now: () => new Date(Date.now() + offsetMs),
      rateLimitScale: 20,
      // Small defaults so that a few taps reach them: 1 USD per tap, 3 USD per day, in NGN. The
      // holder's session (judged by this clock) lasts past the next UTC day the tests move to.
      env: { NO_PIN_PER_TAP_USD: '1', NO_PIN_PER_DAY_USD: '3', SESSION_TTL_SECONDS: String(3 * 24 * 3600) },
    });

    /** A merchant, a customer with PIN 2468 and plenty of money, a ring, and the holder's session. */
    async function shop(s: TestServer, fund = 100_000) {
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const payer = uniqueHandle('payer');
      await s.createWallet({ handle: payer, pin: '2468', fund });
      const tag = await s.request<Tag>('POST', '/api/wearables', { headers: key, body: { handle: payer, tagType: 'ring' } });
      assert.equal(tag.status, 201);
      const signedIn = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle: payer, pin: '2468' } });
      const holder = { authorization: `Bearer wallet.${signedIn.body.token}` };
      return { merchant, merchantId: merchant.id, key, payer, tagId: tag.body.tagId, limits: tag.body.noPinLimits, holder };
    }

    const open = async (key: Record<string, string>, amount: number, currency = 'NGN') => {
      const created = await server().request<Session>('POST', '/api/pos/sessions', { headers: key, body: { amount, currency, description: 'x' } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body.sessionId;
    };
    const tap = (key: Record<string, string>, sessionId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      server().request<Session & { code?: string; error?: string }>('POST', `/api/pos/sessions/${sessionId}/tap`, { headers: { ...key, ...headers }, body });
    const status = async (key: Record<string, string>, sessionId: string) => (await server().request<Session>('GET', `/api/pos/sessions/${sessionId}`, { headers: key })).body.status;
    const holderTag = async (holder: Record<string, string>, tagId: string) => (await server().request<Tag>('GET', `/api/wallet/wearables/${tagId}`, { headers: holder })).body;

    it('the defaults are the configured US dollars in the wallet\'s currency; a tap up to the per-tap limit pays without a PIN, above it 403 pin_required and the session stays pending', async () => {
      const s = server();
      const { key, payer, tagId, limits, holder } = await shop(s);
      const [usdNgn] = await s.db.query<{ per_tap: number; per_day: number }>(`SELECT per_tap, per_day FROM no_pin_limit_defaults WHERE currency = 'NGN'`);
      assert.ok(usdNgn && usdNgn.per_tap > 100, 'one dollar is more than a naira');
      assert.ok(usdNgn.per_day >= usdNgn.per_tap * 3 && usdNgn.per_day <= usdNgn.per_tap * 3 + 2, 'per day is three dollars (each rounded down)');
      assert.deepEqual(limits, { currency: 'NGN', perTap: usdNgn.per_tap / 100, perDay: usdNgn.per_day / 100, perTapDefault: usdNgn.per_tap / 100, perDayDefault: usdNgn.per_day / 100 });

      const exact = await tap(key, await open(key, limits.perTap), { tagId });
      assert.equal(exact.status, 200, JSON.stringify(exact.body));
      assert.equal(exact.body.status, 'completed');
      const before = await balanceMinor(s, payer, 'NGN');
      const tapsBefore = (await holderTag(holder, tagId)).tapCount;

      const above = await open(key, limits.perTap + 0.01);
      const refused = await tap(key, above, { tagId });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'pin_required');
      assert.match(refused.body.error ?? '', /PIN/);
      assert.equal(await status(key, above), 'pending', 'the session stays pending');
      assert.equal(await balanceMinor(s, payer, 'NGN'), before, 'nothing moved');
      assert.equal((await holderTag(holder, tagId)).tapCount, tapsBefore, 'a refused tap is not counted');

      const withPin = await tap(key, above, { tagId, pin: '2468' });
      assert.equal(withPin.status, 200, JSON.stringify(withPin.body));
      assert.equal(withPin.body.status, 'completed');
      assert.equal(await balanceMinor(s, payer, 'NGN'), before - Math.round((limits.perTap + 0.01) * 100));
      const after = await holderTag(holder, tagId);
      assert.equal(after.tapCount, tapsBefore + 1);
      assert.equal(after.noPinLimits.spentToday, limits.perTap, 'a tap with the PIN does not use the no-PIN allowance');
    });

    it('a wrong PIN is 403 wrong_pin (session pending); five lock the wallet (429) even for the right one; an unknown tag with a PIN is still 404', async () => {
      const s = server();
      const { key, payer, tagId, limits } = await shop(s);
      const sessionId = await open(key, limits.perTap * 2);
      const wrong = await tap(key, sessionId, { tagId, pin: '1357' });
      assert.equal(wrong.status, 403);
      assert.equal(wrong.body.code, 'wrong_pin');
      assert.equal(await status(key, sessionId), 'pending');
      assert.equal((await tap(key, sessionId, { tagId, pin: '12' })).status, 400, 'a PIN is 4 to 8 digits');
      for (let attempt = 2; attempt <= 5; attempt++) assert.equal((await tap(key, sessionId, { tagId, pin: '1357' })).status, 403);
      const locked = await tap(key, sessionId, { tagId, pin: '2468' });
      assert.equal(locked.status, 429);
      assert.equal(locked.body.code, 'pin_attempts_exceeded');
      assert.equal(await status(key, sessionId), 'pending');
      assert.equal((await s.request('POST', '/api/wallet/sessions', { body: { handle: payer, pin: '2468' } })).status, 429, 'the wallet\'s own lock-out');
      const unknown = await tap(key, sessionId, { tagId: 'TG00000000', pin: '2468' });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.code, 'tag_not_found');
    });

    it('taps without the PIN share a per-day allowance (UTC day); the next day it is whole again; a failed payment gives its share back', async () => {
      const s = server();
      const { key, tagId, limits, holder } = await shop(s);
      const step = limits.perTap;
      const fits = Math.floor(limits.perDay / step);
      for (let index = 0; index < fits; index++) {
        const paid = await tap(key, await open(key, step), { tagId });
        assert.equal(paid.body.status, 'completed', `tap ${index + 1}`);
      }
      assert.equal((await holderTag(holder, tagId)).noPinLimits.spentToday, Math.round(step * fits * 100) / 100);
      const rest = Math.round((limits.perDay - step * fits) * 100) / 100;
      const over = await tap(key, await open(key, rest + 0.01), { tagId });
      assert.equal(over.status, 403);
      assert.equal(over.body.code, 'pin_required', 'under the per-tap limit, over what is left of the day');
      if (rest > 0) assert.equal((await tap(key, await open(key, rest), { tagId })).body.status, 'completed', 'exactly the rest fits');

      // The next UTC day starts afresh.
      const now = s.context.now();
      offsetMs += Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime() + 1000;
      assert.equal((await holderTag(holder, tagId)).noPinLimits.spentToday, 0);
      assert.equal((await tap(key, await open(key, step), { tagId })).body.status, 'completed');

      // A payment that fails (short funds) takes nothing from the allowance.
      const poor = await shop(s, 1);
      const failed = await tap(poor.key, await open(poor.key, 5), { tagId: poor.tagId });
      assert.equal(failed.body.status, 'failed');
      assert.equal((await holderTag(poor.holder, poor.tagId)).noPinLimits.spentToday, 0);
    });

    it('concurrent taps of one tag cannot spend the day\'s allowance twice: exactly as many complete as fit', async () => {
      const s = server();
      const { key, payer, tagId, limits, holder } = await shop(s);
      const fits = Math.floor(limits.perDay / limits.perTap);
      const sessions = await Promise.all(Array.from({ length: fits + 4 }, () => open(key, limits.perTap)));
      const before = await balanceMinor(s, payer, 'NGN');
      const answers = await Promise.all(sessions.map((sessionId) => tap(key, sessionId, { tagId })));
      const completed = answers.filter((answer) => answer.status === 200 && answer.body.status === 'completed');
      const refused = answers.filter((answer) => answer.status === 403 && answer.body.code === 'pin_required');
      assert.equal(completed.length, fits);
      assert.equal(refused.length, 4);
      const perTapMinor = Math.round(limits.perTap * 100);
      assert.equal(await balanceMinor(s, payer, 'NGN'), before - fits * perTapMinor);
      assert.equal((await holderTag(holder, tagId)).noPinLimits.spentToday, (fits * perTapMinor) / 100);
    });

    it('the holder lowers a tag\'s limits (0: every tap needs the PIN); a tap in another currency than the wallet\'s always needs the PIN', async () => {
      const s = server();
      const { key, payer, tagId, holder } = await shop(s);
      const lowered = await s.request<Tag>('PATCH', `/api/wallet/wearables/${tagId}`, { headers: holder, body: { noPinLimits: { perTap: 2 } } });
      assert.equal(lowered.status, 200);
      assert.equal((await tap(key, await open(key, 2), { tagId })).body.status, 'completed');
      assert.equal((await tap(key, await open(key, 2.01), { tagId })).body.code, 'pin_required');
      await s.request('PATCH', `/api/wallet/wearables/${tagId}`, { headers: holder, body: { noPinLimits: { perDay: 0 } } });
      const tiny = await open(key, 0.5);
      assert.equal((await tap(key, tiny, { tagId })).body.code, 'pin_required');
      assert.equal((await tap(key, tiny, { tagId, pin: '2468' })).body.status, 'completed');

      // Dollars held in an NGN wallet: a USD session needs the PIN whatever the amount.
      const credited = await s.request('POST', `/api/admin/wallets/${payer}/credit`, { headers: ADMIN, body: { amount: 10, currency: 'USD' } });
      assert.equal(credited.status, 200);
      await s.request('PATCH', `/api/wallet/wearables/${tagId}`, { headers: holder, body: { noPinLimits: { perTap: null, perDay: null } } });
      const dollars = await open(key, 0.1, 'USD');
      const foreign = await tap(key, dollars, { tagId });
      assert.equal(foreign.status, 403);
      assert.equal(foreign.body.code, 'pin_required');
      assert.equal((await tap(key, dollars, { tagId, pin: '2468' })).body.status, 'completed');
      assert.equal(await balanceMinor(s, payer, 'USD'), 990);
    });

    it('Idempotency-Key: the pin_required answer is not kept, so the same key repeated with the PIN completes; the PIN is not part of the stored hash', async () => {
      const s = server();
      const { key, tagId, limits } = await shop(s);
      const sessionId = await open(key, limits.perTap + 1);
      const headers = { 'idempotency-key': `tap-${sessionId}` };
      const first = await tap(key, sessionId, { tagId }, headers);
      assert.equal(first.body.code, 'pin_required');
      const wrong = await tap(key, sessionId, { tagId, pin: '0000' }, headers);
      assert.equal(wrong.body.code, 'wrong_pin', 'not a replay of the first answer');
      const paid = await tap(key, sessionId, { tagId, pin: '2468' }, headers);
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      assert.equal(paid.body.status, 'completed');
      assert.equal(paid.headers.get('idempotent-replayed'), null);
      const replay = await tap(key, sessionId, { tagId, pin: '2468' }, headers);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body, paid.body);
      const [stored] = await s.db.query<{ response_body: string }>('SELECT response_body FROM idempotency_keys WHERE key = $1', [headers['idempotency-key']]);
      assert.doesNotMatch(stored?.response_body ?? '', /2468/);
    });

    it('tagAllowances (for the settlement of offline taps): the limits in force, 0 in another currency, the merchants allowed, nothing for an unknown tag', async () => {
      const s = server();
      const { tagId, limits, holder, merchantId } = await shop(s);
      const allowance = async (mode: 'test' | 'live', currency: string, id = tagId, merchant = merchantId) => (await tagAllowances(s.db, [id], mode, currency, merchant)).get(id);
      assert.deepEqual(await allowance('test', 'NGN'), { perTap: Math.round(limits.perTap * 100), perDay: Math.round(limits.perDay * 100), merchantAllowed: true });
      assert.deepEqual(await allowance('test', 'USD'), { perTap: 0, perDay: 0, merchantAllowed: true });
      assert.equal((await allowance('test', 'NGN', tagId, 'mer_someone_else'))?.merchantAllowed, false, 'a merchant the holder never allowed');
      assert.equal(await allowance('live', 'NGN'), undefined, 'a test tag in live mode');
      assert.equal(await allowance('test', 'NGN', 'TG00000000'), undefined);
      await s.request('PATCH', `/api/wallet/wearables/${tagId}`, { headers: holder, body: { noPinLimits: { perTap: 1.5, perDay: 3 } } });
      assert.deepEqual(await allowance('test', 'NGN'), { perTap: 150, perDay: 300, merchantAllowed: true });
      await s.db.query('UPDATE no_pin_limit_defaults SET per_tap = 100, per_day = 200 WHERE currency = $1', ['NGN']);
      assert.deepEqual(await allowance('test', 'NGN'), { perTap: 100, perDay: 200, merchantAllowed: true }, 'a lowered default binds a holder\'s older, higher choice');
      await refreshNoPinLimitDefaults(s.context);
      assert.deepEqual(await allowance('test', 'NGN'), { perTap: 150, perDay: 300, merchantAllowed: true });
    });
  });
}
