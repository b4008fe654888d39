import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { type OfflinePaymentDoc } from '@tapline/shared/sync-protocol';
import { databaseTargets } from '../../testing/databases.ts';
import { balanceMinor } from '../../testing/ledger.ts';
import { type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';
import { conflictsOf, connectTerminal, push } from '../../testing/offline.ts';

type Limits = { currency: string; perTap: number; perDay: number; perTapDefault: number; perDayDefault: number; spentToday?: number };
type Tag = { tagId: string; handle: string; status: string; consent: string; disabledBy: string | null; noPinLimits: Limits; mode: string; linkedAt: string };
type Activity = {
  type: string;
  id: string;
  status: string;
  amount: number;
  currency: string;
  description: string;
  merchant: { handle: string; name: string } | null;
  walletRef: string | null;
  declineCode: string | null;
  errorMessage: string | null;
  at: string;
};

async function walletToken(server: TestServer, handle: string, mode: 'test' | 'live' = 'test', pin = '1234'): Promise<Record<string, string>> {
  const signedIn = await server.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin, mode } });
  assert.equal(signedIn.status, 201, JSON.stringify(signedIn.body));
  return { authorization: `Bearer wallet.${signedIn.body.token}` };
}

for (const target of await databaseTargets()) {
  describe(`consent before a tag can pay on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20 });

    /** A merchant's live key and a live customer with a PIN and money: the victim of issue 14. */
    async function liveShop() {
      const s = server();
      const merchant = await s.createMerchant();
      const live = { 'x-merchant-api-key': merchant.liveKey };
      const victim = uniqueHandle('victim');
      await s.createWallet({ handle: victim, mode: 'live', pin: '4829', fund: 500 });
      return { s, merchant, live, victim };
    }

    it('live: a merchant cannot link a tag to someone else\'s wallet without the holder\'s PIN (403 holder_consent_required), so it cannot charge them', async () => {
      const { s, merchant, live, victim } = await liveShop();
      const hijack = await s.request('POST', '/api/wearables', { headers: live, body: { handle: victim, tagType: 'ring', displayName: 'mine now' } });
      assert.equal(hijack.status, 403);
      assert.equal(hijack.body.code, 'holder_consent_required');
      assert.match(String(hijack.body.error), /holderPin/);
      const listed = await s.request<{ total: number }>('GET', '/api/wearables', { headers: live });
      assert.equal(listed.body.total, 0, 'no tag was created');
      const holder = await walletToken(s, victim, 'live', '4829');
      assert.equal((await s.request<{ total: number }>('GET', '/api/wallet/wearables', { headers: holder })).body.total, 0);
      assert.equal(await balanceMinor(s, victim, 'NGN', 'live'), 50_000, 'the victim keeps 500 NGN');

      // The merchant's own wallet needs no one's consent.
      const own = await s.request<Tag>('POST', '/api/wearables', { headers: live, body: { handle: merchant.handle, tagType: 'card' } });
      assert.equal(own.status, 201, JSON.stringify(own.body));
      assert.equal(own.body.consent, 'own_wallet');
      assert.equal(own.body.mode, 'live');
    });

    it('live: the holder\'s PIN as holderPin is consent; a wrong one is 403 wrong_pin and five lock the wallet (429), as at sign-in', async () => {
      const { s, live, victim } = await liveShop();
      const wrong = await s.request('POST', '/api/wearables', { headers: live, body: { handle: victim, tagType: 'ring', holderPin: '0000' } });
      assert.equal(wrong.status, 403);
      assert.equal(wrong.body.code, 'wrong_pin');
      const badForm = await s.request('POST', '/api/wearables', { headers: live, body: { handle: victim, tagType: 'ring', holderPin: '12' } });
      assert.equal(badForm.status, 400);
      assert.equal(badForm.body.code, 'validation_failed');
      const agreed = await s.request<Tag>('POST', '/api/wearables', { headers: live, body: { handle: victim, tagType: 'ring', displayName: 'Ring', holderPin: '4829' } });
      assert.equal(agreed.status, 201, JSON.stringify(agreed.body));
      assert.equal(agreed.body.consent, 'holder_pin');
      assert.equal(agreed.body.handle, `@${victim}`);
      // A correct PIN cleared the earlier wrong one; five wrong PINs now lock the wallet for everyone.
      for (let attempt = 1; attempt <= 5; attempt++) {
        const guess = await s.request('POST', '/api/wearables', { headers: live, body: { handle: victim, tagType: 'ring', holderPin: `000${attempt}` } });
        assert.equal(guess.status, 403, `guess ${attempt}`);
        assert.equal(guess.body.code, 'wrong_pin');
      }
      const locked = await s.request('POST', '/api/wearables', { headers: live, body: { handle: victim, tagType: 'ring', holderPin: '4829' } });
      assert.equal(locked.status, 429);
      assert.equal(locked.body.code, 'pin_attempts_exceeded');
      assert.ok(Number(locked.headers.get('retry-after')) > 0);
      const signIn = await s.request('POST', '/api/wallet/sessions', { body: { handle: victim, pin: '4829', mode: 'live' } });
      assert.equal(signIn.status, 429, 'the same lock-out as the wallet\'s sign-in');
    });

    it('test mode accepts the spec\'s body without holderPin (consent test_mode) and checks a holderPin when one is sent', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const customer = uniqueHandle('ada');
      await s.createWallet({ handle: customer, pin: '4321' });
      const plain = await s.request<Tag>('POST', '/api/wearables', { headers: key, body: { handle: customer, tagType: 'ring', displayName: 'Ring' } });
      assert.equal(plain.status, 201);
      assert.equal(plain.body.consent, 'test_mode');
      const wrong = await s.request('POST', '/api/wearables', { headers: key, body: { handle: customer, tagType: 'ring', holderPin: '1111' } });
      assert.equal(wrong.status, 403);
      assert.equal(wrong.body.code, 'wrong_pin');
      const right = await s.request<Tag>('POST', '/api/wearables', { headers: key, body: { handle: customer, tagType: 'ring', holderPin: '4321' } });
      assert.equal(right.status, 201);
      assert.equal(right.body.consent, 'holder_pin');
    });

    it('PUT pointing a live tag at another person\'s wallet needs that holder\'s PIN; the new holder starts with the default limits', async () => {
      const { s, live, victim } = await liveShop();
      const first = uniqueHandle('first');
      await s.createWallet({ handle: first, mode: 'live', pin: '1111' });
      const tag = await s.request<Tag>('POST', '/api/wearables', { headers: live, body: { handle: first, tagType: 'band', holderPin: '1111' } });
      assert.equal(tag.status, 201);
      const firstHolder = await walletToken(s, first, 'live', '1111');
      const lowered = await s.request<Tag>('PATCH', `/api/wallet/wearables/${tag.body.tagId}`, { headers: firstHolder, body: { noPinLimits: { perTap: 1, perDay: 2 } } });
      assert.equal(lowered.status, 200, JSON.stringify(lowered.body));
      assert.equal(lowered.body.noPinLimits.perTap, 1);

      const repoint = await s.request('PUT', `/api/wearables/${tag.body.tagId}`, { headers: live, body: { handle: victim } });
      assert.equal(repoint.status, 403);
      assert.equal(repoint.body.code, 'holder_consent_required');
      assert.equal((await s.request<Tag>('GET', `/api/wearables/${tag.body.tagId}`, { headers: live })).body.handle, `@${first}`, 'unchanged');
      const wrong = await s.request('PUT', `/api/wearables/${tag.body.tagId}`, { headers: live, body: { handle: victim, holderPin: '1111' } });
      assert.equal(wrong.status, 403);
      assert.equal(wrong.body.code, 'wrong_pin', 'the PIN of the wallet the tag would pay from, not the old one');
      const moved = await s.request<Tag>('PUT', `/api/wearables/${tag.body.tagId}`, { headers: live, body: { handle: victim, holderPin: '4829' } });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      assert.equal(moved.body.handle, `@${victim}`);
      assert.equal(moved.body.consent, 'holder_pin');
      assert.equal(moved.body.noPinLimits.perTap, moved.body.noPinLimits.perTapDefault, 'the previous holder\'s limits are not carried over');
      assert.ok(Date.parse(moved.body.linkedAt) >= Date.parse(tag.body.linkedAt));
      // Renaming, or "moving" it to the wallet it already pays from, needs no PIN.
      const renamed = await s.request<Tag>('PUT', `/api/wearables/${tag.body.tagId}`, { headers: live, body: { handle: victim, displayName: 'Band' } });
      assert.equal(renamed.status, 200);
      assert.equal((await s.request<{ total: number }>('GET', '/api/wallet/wearables', { headers: firstHolder })).body.total, 0, 'the first holder no longer sees it');
    });

    it('a ring its holder disabled stays off until the holder re-enables it; the merchant needs holderPin in live mode', async () => {
      const { s, live, victim } = await liveShop();
      const tag = await s.request<Tag>('POST', '/api/wearables', { headers: live, body: { handle: victim, tagType: 'ring', holderPin: '4829' } });
      const holder = await walletToken(s, victim, 'live', '4829');
      const lost = await s.request<Tag>('PATCH', `/api/wallet/wearables/${tag.body.tagId}`, { headers: holder, body: { status: 'disabled' } });
      assert.equal(lost.status, 200);
      assert.equal(lost.body.status, 'disabled');
      assert.equal(lost.body.disabledBy, 'holder');
      assert.equal((await s.request('GET', `/api/tap/${tag.body.tagId}`)).status, 403);
      const merchantOn = await s.request('PUT', `/api/wearables/${tag.body.tagId}`, { headers: live, body: { status: 'active' } });
      assert.equal(merchantOn.status, 403);
      assert.equal(merchantOn.body.code, 'holder_consent_required');
      assert.equal((await s.request<Tag>('GET', `/api/wearables/${tag.body.tagId}`, { headers: live })).body.status, 'disabled');
      const withPin = await s.request<Tag>('PUT', `/api/wearables/${tag.body.tagId}`, { headers: live, body: { status: 'active', holderPin: '4829' } });
      assert.equal(withPin.status, 200);
      assert.equal(withPin.body.status, 'active');
      assert.equal(withPin.body.disabledBy, null);
      // A tag the merchant itself disabled, it may turn on again.
      const off = await s.request<Tag>('PUT', `/api/wearables/${tag.body.tagId}`, { headers: live, body: { status: 'disabled' } });
      assert.equal(off.body.disabledBy, 'merchant');
      const on = await s.request<Tag>('PUT', `/api/wearables/${tag.body.tagId}`, { headers: live, body: { status: 'active' } });
      assert.equal(on.status, 200);
      assert.equal(on.body.status, 'active');
      // And the holder can turn a merchant-disabled tag back on from their wallet.
      await s.request('PUT', `/api/wearables/${tag.body.tagId}`, { headers: live, body: { status: 'disabled' } });
      const holderOn = await s.request<Tag>('PATCH', `/api/wallet/wearables/${tag.body.tagId}`, { headers: holder, body: { status: 'active' } });
      assert.equal(holderOn.body.status, 'active');
    });

    it('holders register (consent holder_session), list, read and rename their tags; another holder\'s tag is 404; limits only go down', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const handle = uniqueHandle('holder');
      await s.createWallet({ handle });
      const holder = await walletToken(s, handle);
      const byShop = await s.request<Tag>('POST', '/api/wearables', { headers: key, body: { handle, tagType: 'card' } });
      const own = await s.request<Tag>('POST', '/api/wallet/wearables', { headers: holder, body: { tagType: 'watch', displayName: 'My watch' } });
      assert.equal(own.status, 201, JSON.stringify(own.body));
      assert.equal(own.body.consent, 'holder_session');
      assert.equal(own.body.handle, `@${handle}`);
      assert.match(own.body.tagId, /^TG[0-9A-F]{8}$/);
      const limits = own.body.noPinLimits;
      assert.equal(limits.currency, 'NGN');
      assert.ok(limits.perTapDefault > 0 && limits.perDayDefault > limits.perTapDefault, JSON.stringify(limits));
      assert.equal(limits.perTap, limits.perTapDefault);
      assert.equal(limits.perDay, limits.perDayDefault);
      assert.equal(limits.spentToday, 0, 'the holder sees what taps without the PIN took today');
      assert.equal(byShop.body.noPinLimits.spentToday, undefined, 'the merchant does not');

      const list = await s.request<{ data: Tag[]; total: number; limit: number; offset: number }>('GET', '/api/wallet/wearables', { headers: holder });
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.data.map((tag) => tag.tagId).sort(), [byShop.body.tagId, own.body.tagId].sort());
      assert.equal(list.body.total, 2);
      const activeOnly = await s.request<{ total: number }>('GET', '/api/wallet/wearables?status=disabled', { headers: holder });
      assert.equal(activeOnly.body.total, 0);
      const one = await s.request<Tag>('GET', `/api/wallet/wearables/${byShop.body.tagId.toLowerCase()}`, { headers: holder });
      assert.equal(one.status, 200);
      assert.equal(one.body.tagId, byShop.body.tagId);

      const stranger = uniqueHandle('stranger');
      await s.createWallet({ handle: stranger });
      const strangerToken = await walletToken(s, stranger);
      assert.equal((await s.request('GET', `/api/wallet/wearables/${own.body.tagId}`, { headers: strangerToken })).status, 404);
      assert.equal((await s.request('PATCH', `/api/wallet/wearables/${own.body.tagId}`, { headers: strangerToken, body: { status: 'disabled' } })).status, 404);
      assert.equal((await s.request('GET', `/api/wallet/wearables/${own.body.tagId}/activity`, { headers: strangerToken })).status, 404);
      assert.equal((await s.request('GET', '/api/wallet/wearables', { headers: key })).status, 403, 'a merchant key is not a holder');
      assert.equal((await s.request('GET', '/api/wallet/wearables')).status, 401);

      const renamed = await s.request<Tag>('PATCH', `/api/wallet/wearables/${own.body.tagId}`, { headers: holder, body: { displayName: 'Old watch' } });
      assert.equal(renamed.status, 200);
      const lowered = await s.request<Tag>('PATCH', `/api/wallet/wearables/${own.body.tagId}`, { headers: holder, body: { noPinLimits: { perTap: 25.5, perDay: 0 } } });
      assert.equal(lowered.status, 200, JSON.stringify(lowered.body));
      assert.equal(lowered.body.noPinLimits.perTap, 25.5);
      assert.equal(lowered.body.noPinLimits.perDay, 0, 'zero: every tap needs the PIN');
      const above = await s.request('PATCH', `/api/wallet/wearables/${own.body.tagId}`, {
        headers: holder,
        body: { displayName: 'Never', noPinLimits: { perTap: 10, perDay: limits.perDayDefault + 1 } },
      });
      assert.equal(above.status, 422);
      assert.equal(above.body.code, 'no_pin_limit_above_default');
      const unchanged = await s.request<Tag & { displayName: string }>('GET', `/api/wallet/wearables/${own.body.tagId}`, { headers: holder });
      assert.equal(unchanged.body.noPinLimits.perTap, 25.5, 'a refused change changes nothing');
      assert.equal(unchanged.body.displayName, 'Old watch');
      for (const body of [{ noPinLimits: { perTap: -1 } }, { noPinLimits: { perTap: '5' } }, { noPinLimits: { perTap: 0.001 } }, { status: 'lost' }]) {
        const refused = await s.request('PATCH', `/api/wallet/wearables/${own.body.tagId}`, { headers: holder, body });
        assert.equal(refused.status, 400, JSON.stringify(body));
      }
      const restored = await s.request<Tag>('PATCH', `/api/wallet/wearables/${own.body.tagId}`, { headers: holder, body: { noPinLimits: { perTap: null, perDay: null } } });
      assert.equal(restored.body.noPinLimits.perTap, limits.perTapDefault);
      assert.equal(restored.body.noPinLimits.perDay, limits.perDayDefault);
    });

    it('a holder sees every payment made with a tag: POS sessions it paid or failed, offline taps accepted and declined, not other holders\'', async () => {
      const s = server();
      const merchant = await s.createMerchant({ name: 'Mama Put' });
      const key = { 'x-merchant-api-key': merchant.testKey };
      const handle = uniqueHandle('ringer');
      await s.createWallet({ handle, fund: 30 });
      const holder = await walletToken(s, handle);
      const tag = await s.request<Tag>('POST', '/api/wearables', { headers: key, body: { handle, tagType: 'ring' } });
      const tagId = tag.body.tagId;
      const sale = async (amount: number) => {
        const session = await s.request<{ sessionId: string }>('POST', '/api/pos/sessions', { headers: key, body: { amount, currency: 'NGN', description: `Sale ${amount}` } });
        const tapped = await s.request<{ status: string }>('POST', `/api/pos/sessions/${session.body.sessionId}/tap`, { headers: key, body: { tagId } });
        assert.equal(tapped.status, 200, JSON.stringify(tapped.body));
        return { sessionId: session.body.sessionId, status: tapped.body.status };
      };
      const paid = await sale(12);
      assert.equal(paid.status, 'completed');
      const tooDear = await sale(25);
      assert.equal(tooDear.status, 'failed');
      // A pending session the tag never paid is not activity.
      await s.request('POST', '/api/pos/sessions', { headers: key, body: { amount: 1, currency: 'NGN' } });

      const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till' } });
      const { socket } = await connectTerminal(s, `term.${terminal.body.token}`);
      const tapDoc = (amountMinor: number): OfflinePaymentDoc => ({
        id: randomUUID(),
        terminalId: terminal.body.id,
        kind: 'tap',
        tagId,
        amountMinor,
        currency: 'NGN',
        description: 'Offline suya',
        capturedAt: new Date().toISOString(),
        status: 'queued',
        serverSeq: 0,
      });
      const offlineOk = tapDoc(300);
      const offlineShort = tapDoc(5_000);
      const settled = conflictsOf(await push(socket, [offlineOk, offlineShort]));
      assert.deepEqual(settled.map((doc) => doc.status), ['accepted', 'declined']);
      // The lost ring is disabled; a terminal that took it offline is declined when it syncs, and the holder sees the attempt.
      await s.request('PATCH', `/api/wallet/wearables/${tagId}`, { headers: holder, body: { status: 'disabled' } });
      const offlineLost = tapDoc(100);
      assert.equal(conflictsOf(await push(socket, [offlineLost]))[0]?.status, 'declined');

      const activity = await s.request<{ data: Activity[]; total: number; limit: number; offset: number }>('GET', `/api/wallet/wearables/${tagId}/activity`, { headers: holder });
      assert.equal(activity.status, 200, JSON.stringify(activity.body));
      assert.equal(activity.body.total, 5);
      const byId = new Map(activity.body.data.map((item) => [item.id, item]));
      const completed = byId.get(paid.sessionId)!;
      assert.deepEqual(
        { type: completed.type, status: completed.status, amount: completed.amount, currency: completed.currency, description: completed.description, merchant: completed.merchant },
        { type: 'pos_session', status: 'completed', amount: 12, currency: 'NGN', description: 'Sale 12', merchant: { handle: merchant.handle, name: 'Mama Put' } },
      );
      assert.match(completed.walletRef ?? '', /^wtx_pos_/);
      const failed = byId.get(tooDear.sessionId)!;
      assert.equal(failed.status, 'failed');
      assert.equal(failed.walletRef, null);
      assert.match(failed.errorMessage ?? '', /insufficient funds/i);
      assert.deepEqual([byId.get(offlineOk.id)?.type, byId.get(offlineOk.id)?.status, byId.get(offlineOk.id)?.amount], ['offline_tap', 'accepted', 3]);
      assert.equal(byId.get(offlineShort.id)?.declineCode, 'insufficient_funds');
      assert.equal(byId.get(offlineLost.id)?.declineCode, 'tag_disabled');
      const times = activity.body.data.map((item) => Date.parse(item.at));
      assert.deepEqual(times, [...times].sort((a, b) => b - a), 'newest first');
      const page = await s.request<{ data: Activity[]; total: number; limit: number; offset: number }>('GET', `/api/wallet/wearables/${tagId}/activity?limit=2&offset=4`, { headers: holder });
      assert.equal(page.body.data.length, 1);
      assert.equal(page.body.total, 5);
      assert.equal(page.body.offset, 4);
    });
  });
}
