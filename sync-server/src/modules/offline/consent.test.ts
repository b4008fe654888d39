// Issue 30: a customer's consent holds offline too. A tag pays without its holder's PIN only at a
// merchant she allows, and at most its no-PIN day limit in a UTC day: one budget spent by online
// taps and offline settlements alike, whichever terminal, merchant or connection they come from.
// Every push here comes from a raw socket.io client, as a modified kiosk would send it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { OfflinePaymentDoc } from '@tapline/shared/sync-protocol';
import { checkLedger } from '../../ledger/check.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { balanceMinor } from '../../testing/ledger.ts';
import { conflictsOf, connectTerminal, push } from '../../testing/offline.ts';
import { type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';

type Limits = { currency: string; perTap: number; perDay: number; spentToday?: number };
type Tag = { tagId: string; consent: string; noPinLimits: Limits };
type TagMerchant = { merchant: { handle: string; name: string }; source: string; addedAt: string };
type Session = { sessionId: string; status: string; errorMessage?: string };
type Merchant = { id: string; /** '@handle' */ handle: string; liveKey: string; key: Record<string, string>; terminalId: string; token: string };

const PIN = '4829';
const DAY_MS = 86_400_000;

function tapDoc(terminalId: string, tagId: string, amountMinor: number, capturedAt: Date): OfflinePaymentDoc {
  return { id: randomUUID(), terminalId, kind: 'tap', tagId, amountMinor, currency: 'NGN', description: 'Suya', capturedAt: capturedAt.toISOString(), status: 'queued', serverSeq: 0 };
}

const minor = (major: number) => Math.round(major * 100);

for (const target of await databaseTargets()) {
  describe(`a tag's consent and no-PIN day budget, online and offline, on ${target.name}`, () => {
    // The modules' clock: 10:00 UTC on a day well ahead of now (no test runs across a real
    // midnight), moved a day ahead where a test needs the next one.
    const anchor = Date.parse(`${new Date(Date.now() + 2 * DAY_MS).toISOString().slice(0, 10)}T10:00:00.000Z`);
    let offsetMs = anchor - Date.now();
    const now = () => new Date(Date.now() + offsetMs);
    const server = useTestServer(target, { now, rateLimitScale: 50, env: { SESSION_TTL_SECONDS: String(7 * 24 * 3600) } });

    /** A live merchant with a terminal whose offline limits let every no-PIN tap through (its own rules are not under test here). */
    async function liveMerchant(s: TestServer, perPayment: number): Promise<Merchant> {
      const merchant = await s.createMerchant({ name: 'Shop' });
      const key = { 'x-merchant-api-key': merchant.liveKey };
      const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till' } });
      assert.equal(terminal.status, 201, JSON.stringify(terminal.body));
      const limits = await s.request('PATCH', `/api/merchant/terminals/${terminal.body.id}`, { headers: key, body: { offlineLimits: { perPayment, total: 10_000_000, maxAgeHours: 72 } } });
      assert.equal(limits.status, 200, JSON.stringify(limits.body));
      return { id: merchant.id, handle: merchant.handle, liveKey: merchant.liveKey, key, terminalId: terminal.body.id, token: `term.${terminal.body.token}` };
    }

    /** A live wallet with PIN 4829 and money, and its holder's session. */
    async function holder(s: TestServer, fund: number) {
      const handle = uniqueHandle('ada');
      await s.createWallet({ handle, pin: PIN, mode: 'live', fund });
      const signedIn = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: PIN, mode: 'live' } });
      assert.equal(signedIn.status, 201, JSON.stringify(signedIn.body));
      return { handle, session: { authorization: `Bearer wallet.${signedIn.body.token}` } };
    }

    const holderTag = async (s: TestServer, session: Record<string, string>, tagId: string) => {
      const tag = await s.request<Tag>('GET', `/api/wallet/wearables/${tagId}`, { headers: session });
      assert.equal(tag.status, 200);
      return tag.body;
    };

    /** A POS session of `amountMinor` at the merchant, tapped with the tag (and the PIN when given). */
    async function tapOnline(s: TestServer, merchant: Merchant, tagId: string, amountMinor: number, pin?: string) {
      const created = await s.request<Session>('POST', '/api/pos/sessions', { headers: merchant.key, body: { amount: amountMinor / 100, currency: 'NGN', description: 'Till' } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return s.request<Session & { code?: string; error?: string }>('POST', `/api/pos/sessions/${created.body.sessionId}/tap`, {
        headers: merchant.key,
        body: pin === undefined ? { tagId } : { tagId, pin },
      });
    }

    /** Online no-PIN taps at the merchant adding up to `totalMinor`, each within the per-tap limit. */
    async function spendOnline(s: TestServer, merchant: Merchant, tagId: string, totalMinor: number, perTapMinor: number) {
      for (let left = totalMinor; left > 0; left -= Math.min(left, perTapMinor)) {
        const paid = await tapOnline(s, merchant, tagId, Math.min(left, perTapMinor));
        assert.equal(paid.status, 200, JSON.stringify(paid.body));
        assert.equal(paid.body.status, 'completed');
      }
    }

    it('a merchant the holder never allowed takes nothing: offline taps are declined pin_required over every reconnect, online it asks for the PIN', async () => {
      const s = server();
      const ada = await holder(s, 300_000);
      const ring = await s.request<Tag>('POST', '/api/wallet/wearables', { headers: ada.session, body: { tagType: 'ring' } });
      assert.equal(ring.status, 201);
      const { tagId } = ring.body;
      const perTapMinor = minor(ring.body.noPinLimits.perTap);
      const stranger = await liveMerchant(s, ring.body.noPinLimits.perTap);
      const before = await balanceMinor(s, ada.handle, 'NGN', 'live');

      const verdicts: OfflinePaymentDoc[] = [];
      for (let connection = 0; connection < 3; connection++) {
        const { socket } = await connectTerminal(s, stranger.token);
        const docs = Array.from({ length: 9 }, (_, index) => tapDoc(stranger.terminalId, tagId, perTapMinor, new Date(now().getTime() - 60_000 + index)));
        verdicts.push(...conflictsOf(await push(socket, docs)));
        socket.disconnect();
      }
      assert.equal(verdicts.length, 27);
      assert.deepEqual([...new Set(verdicts.map((doc) => `${doc.status}:${doc.declineCode}`))], ['declined:pin_required']);
      assert.match(verdicts[0]!.declineReason ?? '', /not allowed this merchant/);
      assert.equal(await balanceMinor(s, ada.handle, 'NGN', 'live'), before, 'nothing moved');
      assert.equal((await holderTag(s, ada.session, tagId)).noPinLimits.spentToday, 0);

      const online = await tapOnline(s, stranger, tagId, perTapMinor);
      assert.equal(online.status, 403);
      assert.equal(online.body.code, 'pin_required');
      assert.match(online.body.error ?? '', /has not paid this merchant with its holder's PIN/);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('1,000 offline taps over 20 reconnects at 3 merchants and an online tap on the same day take at most the tag\'s no-PIN day limit', async () => {
      const s = server();
      const ada = await holder(s, 1_000_000);
      const registrar = await liveMerchant(s, 1_000);
      // The merchant that registers the ring with the holder's PIN may charge it without.
      const ring = await s.request<Tag>('POST', '/api/wearables', { headers: registrar.key, body: { handle: ada.handle, tagType: 'ring', holderPin: PIN } });
      assert.equal(ring.status, 201, JSON.stringify(ring.body));
      assert.equal(ring.body.consent, 'holder_pin');
      const { tagId } = ring.body;
      const perTapMinor = minor(ring.body.noPinLimits.perTap);
      const perDayMinor = minor(ring.body.noPinLimits.perDay);
      assert.ok(perDayMinor > perTapMinor && perTapMinor > 0, JSON.stringify(ring.body.noPinLimits));
      const added = await liveMerchant(s, ring.body.noPinLimits.perTap);
      const paidWithPin = await liveMerchant(s, ring.body.noPinLimits.perTap);
      const merchants = [registrar, added, paidWithPin];
      await s.request('PATCH', `/api/merchant/terminals/${registrar.terminalId}`, { headers: registrar.key, body: { offlineLimits: { perPayment: ring.body.noPinLimits.perTap } } });

      // The holder adds a merchant herself; another she pays once with the ring and her PIN.
      const allowed = await s.request<TagMerchant>('POST', `/api/wallet/wearables/${tagId}/merchants`, { headers: ada.session, body: { handle: added.handle } });
      assert.equal(allowed.status, 201, JSON.stringify(allowed.body));
      const withPin = await tapOnline(s, paidWithPin, tagId, 5_000, PIN);
      assert.equal(withPin.body.status, 'completed', JSON.stringify(withPin.body));
      const list = await s.request<{ data: TagMerchant[]; total: number }>('GET', `/api/wallet/wearables/${tagId}/merchants`, { headers: ada.session });
      assert.deepEqual(list.body.data.map((entry) => [entry.merchant.handle, entry.source]), [[registrar.handle, 'registered'], [added.handle, 'holder'], [paidWithPin.handle, 'pin']]);
      assert.equal((await holderTag(s, ada.session, tagId)).noPinLimits.spentToday, 0, 'a tap with the PIN takes nothing from the no-PIN budget');

      // An online tap without the PIN, then the offline taps of the same day.
      const onlineMinor = 3 * Math.floor(perDayMinor / 37);
      const online = await tapOnline(s, registrar, tagId, onlineMinor);
      assert.equal(online.body.status, 'completed', JSON.stringify(online.body));
      const start = await balanceMinor(s, ada.handle, 'NGN', 'live');
      const merchantStart = await Promise.all(merchants.map((merchant) => balanceMinor(s, merchant.handle, 'NGN', 'live')));

      const tapMinor = Math.floor(perDayMinor / 37);
      const verdicts: { merchant: number; doc: OfflinePaymentDoc }[] = [];
      for (let connection = 0; connection < 20; connection++) {
        const index = connection % 3;
        const merchant = merchants[index]!;
        const { socket } = await connectTerminal(s, merchant.token);
        const docs = Array.from({ length: 50 }, (_, tap) => tapDoc(merchant.terminalId, tagId, tapMinor, new Date(now().getTime() - 600_000 + connection * 100 + tap)));
        for (const doc of conflictsOf(await push(socket, docs))) verdicts.push({ merchant: index, doc });
        socket.disconnect();
      }
      assert.equal(verdicts.length, 1_000);
      const accepted = verdicts.filter(({ doc }) => doc.status === 'accepted');
      const declined = verdicts.filter(({ doc }) => doc.status === 'declined');
      assert.equal(accepted.length, Math.floor((perDayMinor - onlineMinor) / tapMinor), 'the budget left after the online tap, to the tap');
      assert.deepEqual([...new Set(declined.map(({ doc }) => doc.declineCode))], ['pin_required']);
      assert.match(declined[0]!.doc.declineReason ?? '', /limit for one UTC day/);
      const takenMinor = accepted.length * tapMinor;
      assert.ok(onlineMinor + takenMinor <= perDayMinor, `${onlineMinor} + ${takenMinor} <= ${perDayMinor}`);
      assert.ok(onlineMinor + takenMinor + tapMinor > perDayMinor, 'and the next tap would not have fitted');
      assert.equal(await balanceMinor(s, ada.handle, 'NGN', 'live'), start - takenMinor);
      for (const [index, merchant] of merchants.entries()) {
        const mine = accepted.filter((entry) => entry.merchant === index).length * tapMinor;
        assert.equal(await balanceMinor(s, merchant.handle, 'NGN', 'live'), merchantStart[index]! + mine, `merchant ${index}`);
      }
      assert.equal((await holderTag(s, ada.session, tagId)).noPinLimits.spentToday, (onlineMinor + takenMinor) / 100, 'spentToday shows online and offline alike');

      // The day is spent: online, any allowed merchant now needs the PIN.
      const after = await tapOnline(s, added, tagId, tapMinor);
      assert.equal(after.status, 403);
      assert.equal(after.body.code, 'pin_required');
      const afterWithPin = await tapOnline(s, added, tagId, tapMinor, PIN);
      assert.equal(afterWithPin.body.status, 'completed');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('an offline tap counts on the day it was taken and on the day it settled: each must have room', async () => {
      offsetMs = anchor - Date.now();
      const s = server();
      const ada = await holder(s, 1_000_000);
      const shop = await liveMerchant(s, 1_000);
      const ring = await s.request<Tag>('POST', '/api/wearables', { headers: shop.key, body: { handle: ada.handle, tagType: 'band', holderPin: PIN } });
      assert.equal(ring.status, 201, JSON.stringify(ring.body));
      const { tagId } = ring.body;
      const perTapMinor = minor(ring.body.noPinLimits.perTap);
      const perDayMinor = minor(ring.body.noPinLimits.perDay);
      await s.request('PATCH', `/api/merchant/terminals/${shop.terminalId}`, { headers: shop.key, body: { offlineLimits: { perPayment: ring.body.noPinLimits.perTap } } });
      const a = Math.floor(perTapMinor / 3);

      // Day D: online taps leave 2a of the day; the terminal then takes three taps offline.
      const dayD = now();
      await spendOnline(s, shop, tagId, perDayMinor - 2 * a, perTapMinor);
      const tooMuch = tapDoc(shop.terminalId, tagId, 3 * a, new Date(dayD.getTime() + 60_000));
      const fits = tapDoc(shop.terminalId, tagId, a, new Date(dayD.getTime() + 120_000));
      const late = tapDoc(shop.terminalId, tagId, a, new Date(dayD.getTime() + 180_000));

      // Day D + 1: the kiosk comes back.
      offsetMs += DAY_MS;
      const { socket } = await connectTerminal(s, shop.token);
      const first = conflictsOf(await push(socket, [tooMuch]));
      assert.deepEqual(first.map((doc) => [doc.status, doc.declineCode]), [['declined', 'pin_required']], 'over what day D had left, though day D + 1 is empty');
      const second = conflictsOf(await push(socket, [fits]));
      assert.deepEqual(second.map((doc) => [doc.status, doc.declineCode ?? null]), [['accepted', null]]);
      assert.equal((await holderTag(s, ada.session, tagId)).noPinLimits.spentToday, a / 100, 'counted on the day it settled too');
      const [stored] = await s.db.query<{ history: Record<string, number> }>('SELECT no_pin_history AS history FROM wearables WHERE tag_id = $1', [tagId]);
      assert.equal(Number(stored!.history[dayD.toISOString().slice(0, 10)]), perDayMinor - a, 'and on the day it was taken');

      // Online taps fill day D + 1; day D still has room for `late`, but the settlement day has none.
      await spendOnline(s, shop, tagId, perDayMinor - a, perTapMinor);
      const third = conflictsOf(await push(socket, [late]));
      assert.deepEqual(third.map((doc) => [doc.status, doc.declineCode]), [['declined', 'pin_required']], 'the stricter of the two days decides');
      assert.equal((await holderTag(s, ada.session, tagId)).noPinLimits.spentToday, perDayMinor / 100);
      socket.disconnect();
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      offsetMs = anchor - Date.now();
    });

    it('a terminal\'s offline total is its budget for a UTC day of capture: reconnecting opens nothing new', async () => {
      const s = server();
      const ada = await holder(s, 1_000_000);
      const shop = await liveMerchant(s, 1_000);
      const ring = await s.request<Tag>('POST', '/api/wearables', { headers: shop.key, body: { handle: ada.handle, tagType: 'card', holderPin: PIN } });
      const { tagId } = ring.body;
      const small = Math.floor(minor(ring.body.noPinLimits.perTap) / 4);
      // A total of three small taps a day.
      await s.request('PATCH', `/api/merchant/terminals/${shop.terminalId}`, { headers: shop.key, body: { offlineLimits: { perPayment: small / 100, total: (3 * small) / 100 } } });
      const codes: (string | null)[] = [];
      for (let connection = 0; connection < 5; connection++) {
        const { socket } = await connectTerminal(s, shop.token);
        for (const doc of conflictsOf(await push(socket, [tapDoc(shop.terminalId, tagId, small, new Date(now().getTime() - 10_000 + connection))]))) codes.push(doc.declineCode ?? null);
        socket.disconnect();
      }
      assert.deepEqual(codes, [null, null, null, 'offline_exposure_limit', 'offline_exposure_limit']);
      // The next UTC day has its own total.
      offsetMs += DAY_MS;
      const { socket } = await connectTerminal(s, shop.token);
      const tomorrow = conflictsOf(await push(socket, [tapDoc(shop.terminalId, tagId, small, now())]));
      assert.deepEqual(tomorrow.map((doc) => doc.status), ['accepted']);
      socket.disconnect();
      offsetMs = anchor - Date.now();
    });

    it('the holder keeps the list: add (201, then 200), list, remove (then a tap needs the PIN again, and the PIN allows it again); clear errors', async () => {
      const s = server();
      const ada = await holder(s, 100_000);
      const ring = await s.request<Tag>('POST', '/api/wallet/wearables', { headers: ada.session, body: { tagType: 'ring' } });
      const { tagId } = ring.body;
      const cafe = await liveMerchant(s, 1_000);
      const path = `/api/wallet/wearables/${tagId}/merchants`;
      assert.deepEqual((await s.request<{ data: TagMerchant[]; total: number }>('GET', path, { headers: ada.session })).body, { data: [], total: 0, limit: 20, offset: 0 }, 'a ring she registered herself: nobody yet');
      assert.equal((await tapOnline(s, cafe, tagId, 1_000)).body.code, 'pin_required');

      const added = await s.request<TagMerchant>('POST', path, { headers: ada.session, body: { handle: cafe.handle.slice(1) } });
      assert.equal(added.status, 201);
      assert.deepEqual([added.body.merchant.handle, added.body.merchant.name, added.body.source], [cafe.handle, 'Shop', 'holder']);
      const again = await s.request<TagMerchant>('POST', path, { headers: ada.session, body: { handle: cafe.handle } });
      assert.equal(again.status, 200, 'already allowed: the same entry');
      assert.equal(again.body.addedAt, added.body.addedAt);
      assert.equal((await tapOnline(s, cafe, tagId, 1_000)).body.status, 'completed', 'allowed: no PIN within the limits');

      const removed = await s.request<{ handle: string; deleted: boolean }>('DELETE', `${path}/${cafe.handle}`, { headers: ada.session });
      assert.deepEqual([removed.status, removed.body], [200, { handle: cafe.handle, deleted: true }]);
      const twice = await s.request('DELETE', `${path}/${cafe.handle}`, { headers: ada.session });
      assert.deepEqual([twice.status, twice.body.code], [404, 'tag_merchant_not_found']);
      assert.equal((await tapOnline(s, cafe, tagId, 1_000)).body.code, 'pin_required');
      assert.equal((await tapOnline(s, cafe, tagId, 1_000, PIN)).body.status, 'completed');
      const listed = await s.request<{ data: TagMerchant[] }>('GET', path, { headers: ada.session });
      assert.deepEqual(listed.body.data.map((entry) => entry.source), ['pin'], 'paying with the PIN allows the merchant again');

      const unknown = await s.request('POST', path, { headers: ada.session, body: { handle: 'nobody_here_at_all' } });
      assert.deepEqual([unknown.status, unknown.body.code], [404, 'merchant_not_found']);
      const bad = await s.request('POST', path, { headers: ada.session, body: { handle: 'no spaces!' } });
      assert.equal(bad.status, 400);
      assert.equal(typeof bad.body.code, 'string');
      const other = await holder(s, 10);
      assert.equal((await s.request('GET', path, { headers: other.session })).status, 404, 'another holder\'s tag is unknown to her');
      assert.equal((await s.request('POST', path, { headers: cafe.key, body: { handle: cafe.handle } })).status, 403, 'a merchant cannot allow itself');
      assert.equal((await s.request('GET', path)).status, 401);
    });
  });
}
