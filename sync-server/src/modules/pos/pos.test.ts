import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { balanceMinor } from '../../testing/ledger.ts';
import { type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';
import { checkLedger } from '../../ledger/check.ts';
import { walletAccount } from '../../ledger/accounts.ts';
import { transfer } from '../../ledger/ledger.ts';
import { findWallet } from '../wallets/store.ts';
import { sessionTransferId, sweepExpiredPosSessions } from './service.ts';

type Session = {
  sessionId: string;
  status: string;
  amount: number;
  currency: string;
  description: string;
  tapUrl: string;
  qrPayload: string;
  ttlSeconds: number;
  expiresAt: string;
  createdAt: string;
  merchantId: string;
  mode: string;
  terminalId?: string;
  payerHandle?: string;
  walletRef?: string;
  errorMessage?: string;
  completedAt?: string;
  callbackUrl?: string;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A merchant, a funded customer wallet and a ring linked to it. */
async function shop(server: TestServer, options: { fund?: number; currency?: string } = {}) {
  const merchant = await server.createMerchant();
  const key = { 'x-merchant-api-key': merchant.testKey };
  const payer = uniqueHandle('payer');
  await server.createWallet({ handle: payer, fund: options.fund ?? 1000, ...(options.currency ? { currency: options.currency } : {}) });
  const tag = await server.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: payer, tagType: 'ring', displayName: 'Ring' } });
  assert.equal(tag.status, 201);
  return { merchant, key, payer, tagId: tag.body.tagId };
}

for (const target of await databaseTargets()) {
  describe(`POS sessions on ${target.name}`, () => {
    // The modules' clock: real time plus an offset the tests move forward (never a real wait).
    let offsetMs = 0;
    const server = useTestServer(target, { now: () => new Date(Date.now() + offsetMs), rateLimitScale: 10 });
    const advance = (seconds: number) => {
      offsetMs += seconds * 1000;
    };

    async function open(key: Record<string, string>, body: Record<string, unknown> = { amount: 12.5, currency: 'NGN', description: 'Jollof rice' }) {
      const created = await server().request<Session>('POST', '/api/pos/sessions', { headers: key, body });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body;
    }

    const tap = (key: Record<string, string>, sessionId: string, tagId: string, headers: Record<string, string> = {}) =>
      server().request<Session & { code?: string; error?: string }>('POST', `/api/pos/sessions/${sessionId}/tap`, { headers: { ...key, ...headers }, body: { tagId } });
    const read = (key: Record<string, string>, sessionId: string) => server().request<Session & { code?: string }>('GET', `/api/pos/sessions/${sessionId}`, { headers: key });

    it('creates a pending session: UUID, tapUrl, qrPayload, ttlSeconds 90, expiresAt, amount in major units', async () => {
      const s = server();
      const { key } = await shop(s);
      const before = s.context.now().getTime();
      const session = await open(key, { amount: 12.5, currency: 'ngn', description: 'Jollof rice' });
      assert.match(session.sessionId, UUID);
      assert.equal(session.status, 'pending');
      assert.equal(session.amount, 12.5);
      assert.equal(session.currency, 'NGN');
      assert.equal(session.description, 'Jollof rice');
      assert.equal(session.ttlSeconds, 90);
      assert.equal(session.tapUrl, `${s.config.publicBaseUrl}/tap/${session.sessionId}`);
      assert.equal(session.qrPayload, session.tapUrl);
      assert.equal(session.mode, 'test');
      const expiresAt = Date.parse(session.expiresAt);
      assert.equal(expiresAt - Date.parse(session.createdAt), 90_000);
      assert.ok(expiresAt >= before + 90_000 && expiresAt <= s.context.now().getTime() + 90_000);
      assert.equal(session.payerHandle, undefined);
      assert.equal(session.walletRef, undefined);
      const stored = await s.db.query<{ amount: number }>('SELECT amount FROM pos_sessions WHERE id = $1', [session.sessionId]);
      assert.equal(stored[0]?.amount, 1250, 'the ledger side keeps integer minor units');
      const polled = await read(key, session.sessionId);
      assert.equal(polled.status, 200);
      assert.deepEqual(polled.body, session);
    });

    it('refuses bad amounts, currencies and callback URLs with 400, and wrong credentials with 401/403', async () => {
      const s = server();
      const { key } = await shop(s);
      const cases: [Record<string, unknown>, string][] = [
        [{ amount: 0, currency: 'NGN' }, 'amount_must_not_be_zero'],
        [{ amount: -5, currency: 'NGN' }, 'amount_must_be_positive'],
        [{ amount: 1.234, currency: 'NGN' }, 'amount_too_many_decimals'],
        [{ amount: 2e12, currency: 'NGN' }, 'amount_too_large'],
        [{ amount: 10, currency: 'XYZ' }, 'currency_not_supported'],
        [{ amount: 10 }, 'validation_failed'],
        [{ currency: 'NGN' }, 'validation_failed'],
        // JSON bodies are taken as sent: a string is not an amount.
        [{ amount: '12.50', currency: 'NGN' }, 'validation_failed'],
        [{ amount: 10, currency: 'NGN', description: 42 }, 'validation_failed'],
        [{ amount: 10, currency: 'NGN', description: { text: 'x' } }, 'validation_failed'],
        [{ amount: 10, currency: 'NGN', callbackUrl: 'not a url' }, 'url_invalid'],
        [{ amount: 10, currency: 'NGN', callbackUrl: 'ftp://example.com/x' }, 'url_invalid'],
      ];
      for (const [body, code] of cases) {
        const refused = await s.request('POST', '/api/pos/sessions', { headers: key, body });
        assert.equal(refused.status, 400, JSON.stringify(body));
        assert.equal(refused.body.code, code, JSON.stringify(body));
        assert.equal(typeof refused.body.error, 'string');
      }
      const anonymous = await s.request('POST', '/api/pos/sessions', { body: { amount: 1, currency: 'NGN' } });
      assert.equal(anonymous.status, 401);
      const merchant = await s.createMerchant();
      const live = await s.request('POST', '/api/pos/sessions', {
        headers: { 'x-merchant-api-key': merchant.liveKey },
        body: { amount: 1, currency: 'NGN', callbackUrl: 'https://127.0.0.1/hook' },
      });
      assert.equal(live.status, 400, 'live mode refuses private callback addresses');
      assert.equal(live.body.code, 'url_not_allowed');
    });

    it('accepts the key as Bearer and a terminal token; a wallet token is refused with 403', async () => {
      const s = server();
      const { merchant, key, payer } = await shop(s);
      const bearer = await s.request<Session>('POST', '/api/pos/sessions', { headers: { authorization: `Bearer ${merchant.testKey}` }, body: { amount: 5, currency: 'NGN', description: 'Tea' } });
      assert.equal(bearer.status, 201);
      const terminal = await s.request<{ token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till 1' } });
      const termHeaders = { authorization: `Bearer term.${terminal.body.token}` };
      const viaTerminal = await s.request<Session>('POST', '/api/pos/sessions', { headers: termHeaders, body: { amount: 7, currency: 'NGN', description: 'Bread' } });
      assert.equal(viaTerminal.status, 201);
      assert.equal(viaTerminal.body.merchantId, merchant.id);
      // Either credential of the merchant sees the other's sessions.
      assert.equal((await read(termHeaders, bearer.body.sessionId)).status, 200);
      assert.equal((await read(key, viaTerminal.body.sessionId)).status, 200);
      const [terminalId] = (await s.db.query<{ id: string }>('SELECT terminal_id AS id FROM pos_sessions WHERE id = $1', [viaTerminal.body.sessionId])).map((row) => row.id);
      assert.equal(viaTerminal.body.terminalId, terminalId);
      assert.equal(bearer.body.terminalId, undefined, 'a key opened it: no terminal');
      const byTerminal = await s.request<{ data: Session[]; total: number }>('GET', `/api/pos/sessions?terminalId=${terminalId}`, { headers: key });
      assert.deepEqual([byTerminal.body.total, byTerminal.body.data.map((row) => row.sessionId)], [1, [viaTerminal.body.sessionId]]);
      const none = await s.request<{ data: Session[]; total: number }>('GET', `/api/pos/sessions?terminalId=${terminalId}&status=completed`, { headers: key });
      assert.deepEqual([none.body.total, none.body.data], [0, []]);
      const context = await s.request<{ merchant: { handle: string; currency: string }; mode: string; terminal: { name: string } }>('GET', '/api/pos/context', { headers: termHeaders });
      assert.equal(context.status, 200);
      assert.equal(context.body.merchant.handle, merchant.handle);
      assert.equal(context.body.merchant.currency, 'NGN');
      assert.equal(context.body.terminal.name, 'Till 1');
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle: payer, pin: '1234' } });
      const walletCall = await s.request('POST', '/api/pos/sessions', { headers: { authorization: `Bearer wallet.${session.body.token}` }, body: { amount: 1, currency: 'NGN' } });
      assert.equal(walletCall.status, 403);
      assert.equal(walletCall.body.code, 'credential_not_allowed');
    });

    it('pending -> tap -> completed: payerHandle, walletRef, ONE balanced ledger transfer from payer to merchant', async () => {
      const s = server();
      const { merchant, key, payer, tagId } = await shop(s, { fund: 1000 });
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const session = await open(key, { amount: 250.75, currency: 'NGN', description: 'Groceries' });
      const tapped = await tap(key, session.sessionId, tagId);
      assert.equal(tapped.status, 200, JSON.stringify(tapped.body));
      assert.equal(tapped.body.status, 'completed');
      assert.equal(tapped.body.payerHandle, `@${payer}`);
      assert.equal(typeof tapped.body.walletRef, 'string');
      assert.equal(tapped.body.amount, 250.75);
      assert.equal(tapped.body.errorMessage, undefined);
      assert.ok(tapped.body.completedAt);
      assert.equal(await balanceMinor(s, payer, 'NGN'), 100_000 - 25_075);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + 25_075);
      const postings = await s.db.query<{ amount: number; owner_id: string }>(
        `SELECT p.amount, a.owner_id FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id WHERE p.transfer_id = $1 ORDER BY p.amount`,
        [tapped.body.walletRef!],
      );
      assert.equal(postings.length, 2, 'one transfer, two legs');
      assert.deepEqual(postings.map((posting) => posting.amount), [-25_075, 25_075]);
      const [posted] = await s.db.query<{ kind: string }>('SELECT kind FROM ledger_transfers WHERE id = $1', [tapped.body.walletRef!]);
      assert.equal(posted?.kind, 'pos_payment');
      // The same transfer through the ledger's own API is recognised as a retry (same fingerprint), not posted twice.
      const payerWallet = (await findWallet(s.db, payer, 'test'))!;
      const merchantWallet = (await findWallet(s.db, merchant.handle.slice(1), 'test'))!;
      const retried = await s.db.transaction((tx) =>
        transfer(tx, {
          id: tapped.body.walletRef!,
          mode: 'test',
          kind: 'pos_payment',
          legs: [
            { account: walletAccount(merchantWallet.id, 'NGN'), amount: 25_075 },
            { account: walletAccount(payerWallet.id, 'NGN'), amount: -25_075 },
          ],
        }),
      );
      assert.deepEqual(retried, { status: 'exists' });
      assert.equal(await balanceMinor(s, payer, 'NGN'), 100_000 - 25_075);
      const polled = await read(key, session.sessionId);
      assert.deepEqual(polled.body, tapped.body);
      // The tap counts on the tag, like a resolve.
      const tag = await s.request<{ tapCount: number }>('GET', `/api/wearables/${tagId}`, { headers: key });
      assert.equal(tag.body.tapCount, 1);
    });

    it('the state table: completed, failed, cancelled and expired sessions refuse taps and cancels (409 / 410)', async () => {
      const s = server();
      const { key, payer, tagId } = await shop(s, { fund: 10 });
      const otherPayer = uniqueHandle('other');
      await s.createWallet({ handle: otherPayer, fund: 100 });
      const otherTag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: otherPayer, tagType: 'band' } });

      // completed -> the same tag again 200 with the completed session (a retry whose answer was
      // lost), another tag 409, cancel 409
      const paid = await open(key, { amount: 4, currency: 'NGN', description: 'Tea' });
      const first = await tap(key, paid.sessionId, tagId);
      assert.equal(first.body.status, 'completed');
      const again = await tap(key, paid.sessionId, tagId.toLowerCase());
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, first.body, 'the retry answers the session it completed');
      const second = await tap(key, paid.sessionId, otherTag.body.tagId);
      assert.equal(second.status, 409);
      assert.equal(second.body.code, 'session_not_pending');
      assert.equal((await s.request('POST', `/api/pos/sessions/${paid.sessionId}/cancel`, { headers: key })).status, 409);
      assert.equal(await balanceMinor(s, payer, 'NGN'), 600, 'the second tap charged nothing');
      assert.equal(await balanceMinor(s, otherPayer, 'NGN'), 10_000, 'the other tag paid nothing');

      // pending -> tap with too little money -> failed (200, errorMessage); failed -> tap 409
      const tooDear = await open(key, { amount: 50, currency: 'NGN', description: 'Suya' });
      const failed = await tap(key, tooDear.sessionId, tagId);
      assert.equal(failed.status, 200);
      assert.equal(failed.body.status, 'failed');
      assert.match(failed.body.errorMessage!, /insufficient funds/i);
      assert.equal(failed.body.walletRef, undefined);
      assert.equal(failed.body.payerHandle, `@${payer}`);
      assert.equal(await balanceMinor(s, payer, 'NGN'), 600, 'a failed settlement moves nothing');
      const failedAgain = await tap(key, tooDear.sessionId, tagId);
      assert.equal(failedAgain.status, 200, 'the same tag learns the session failed');
      assert.equal(failedAgain.body.status, 'failed');
      assert.equal(await balanceMinor(s, payer, 'NGN'), 600, 'and is not tried again');
      assert.equal((await tap(key, tooDear.sessionId, otherTag.body.tagId)).status, 409);
      assert.equal((await s.request('POST', `/api/pos/sessions/${tooDear.sessionId}/cancel`, { headers: key })).status, 409);
      assert.equal((await read(key, tooDear.sessionId)).body.status, 'failed');

      // pending -> cancel -> cancelled (errorMessage); cancelled -> tap 409, cancel 409
      const toCancel = await open(key);
      const cancelled = await s.request<Session>('POST', `/api/pos/sessions/${toCancel.sessionId}/cancel`, { headers: key });
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.status, 'cancelled');
      assert.equal(cancelled.body.errorMessage, 'Cancelled by the merchant');
      const tapCancelled = await tap(key, toCancel.sessionId, tagId);
      assert.equal(tapCancelled.status, 409);
      assert.equal(tapCancelled.body.code, 'session_not_pending');
      assert.equal((await s.request('POST', `/api/pos/sessions/${toCancel.sessionId}/cancel`, { headers: key })).status, 409);

      // pending -> 90 s -> expired: tap 410, cancel 410, read expired with errorMessage
      const late = await open(key, { amount: 1, currency: 'NGN', description: 'Water' });
      advance(90);
      const tapLate = await tap(key, late.sessionId, tagId);
      assert.equal(tapLate.status, 410);
      assert.equal(tapLate.body.code, 'session_expired');
      assert.equal((await s.request('POST', `/api/pos/sessions/${late.sessionId}/cancel`, { headers: key })).status, 410);
      const expired = await read(key, late.sessionId);
      assert.equal(expired.body.status, 'expired');
      assert.match(expired.body.errorMessage!, /expired/);
      assert.equal((await tap(key, late.sessionId, tagId)).status, 410, 'still 410 once recorded as expired');
      assert.equal(await balanceMinor(s, payer, 'NGN'), 600);
    });

    it('unknown tag 404 and disabled tag 403 leave the session pending and payable', async () => {
      const s = server();
      const { key, payer, tagId } = await shop(s, { fund: 100 });
      const session = await open(key, { amount: 10, currency: 'NGN', description: 'Fuel' });
      for (const unknown of ['TG00000000', 'nonsense', 'TG1234']) {
        const refused = await tap(key, session.sessionId, unknown);
        assert.equal(refused.status, 404, unknown);
        assert.equal(refused.body.code, 'tag_not_found');
      }
      assert.equal((await read(key, session.sessionId)).body.status, 'pending');
      const disabled = await s.request('PUT', `/api/wearables/${tagId}`, { headers: key, body: { status: 'disabled' } });
      assert.equal(disabled.status, 200);
      const refused = await tap(key, session.sessionId, tagId);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'tag_disabled');
      assert.equal((await read(key, session.sessionId)).body.status, 'pending');
      assert.equal(await balanceMinor(s, payer, 'NGN'), 10_000, 'a disabled tag cannot pay');
      await s.request('PUT', `/api/wearables/${tagId}`, { headers: key, body: { status: 'active' } });
      // The tag id is accepted in lower case and as the whole tapUrl a reader gets from the tag.
      const tagUrl = `${s.config.publicBaseUrl}/tap/TG${tagId.slice(2).toLowerCase()}`;
      const paid = await tap(key, session.sessionId, tagUrl);
      assert.equal(paid.status, 200);
      assert.equal(paid.body.status, 'completed');
      assert.equal(await balanceMinor(s, payer, 'NGN'), 9_000);
    });

    it('expiry: a read after 90 s answers expired; the sweeper expires what nobody reads; 89 s is still payable', async () => {
      const s = server();
      const { key, tagId } = await shop(s, { fund: 100 });
      const early = await open(key, { amount: 1, currency: 'NGN', description: 'Gum' });
      advance(89);
      const stillPending = await read(key, early.sessionId);
      assert.equal(stillPending.body.status, 'pending');
      const young = await open(key, { amount: 1, currency: 'NGN', description: 'Mint' });
      advance(1);
      // early is exactly 90 s old: expired on read, with nobody having swept it.
      const onRead = await read(key, early.sessionId);
      assert.equal(onRead.body.status, 'expired');
      // young is 1 s old and pays.
      assert.equal((await tap(key, young.sessionId, tagId)).body.status, 'completed');

      const unread = await Promise.all([1, 2, 3].map((amount) => open(key, { amount, currency: 'NGN', description: 'x' })));
      const fresh = await open(key, { amount: 4, currency: 'NGN', description: 'fresh' });
      // (The sweeper is global: sessions other tests left pending may be due; ours are not.)
      await sweepExpiredPosSessions(s.db, s.context.now());
      for (const session of [...unread, fresh]) assert.equal((await read(key, session.sessionId)).body.status, 'pending');
      advance(60);
      const refreshed = await open(key, { amount: 5, currency: 'NGN', description: 'later' });
      advance(31);
      const swept = await sweepExpiredPosSessions(s.db, s.context.now());
      assert.ok(swept >= 4, `swept ${swept}`);
      const statuses = await s.db.query<{ id: string; status: string; error_message: string | null; ended_at: Date; expires_at: Date }>(
        'SELECT id, status, error_message, ended_at, expires_at FROM pos_sessions WHERE id = ANY ($1::uuid[])',
        [[...unread, fresh, refreshed].map((session) => session.sessionId)],
      );
      const byId = new Map(statuses.map((row) => [row.id, row]));
      for (const session of [...unread, fresh]) {
        const row = byId.get(session.sessionId)!;
        assert.equal(row.status, 'expired');
        assert.match(row.error_message ?? '', /expired/);
        assert.equal(row.ended_at.getTime(), row.expires_at.getTime(), 'expired at the end of its 90 seconds');
      }
      assert.equal(byId.get(refreshed.sessionId)?.status, 'pending', '31 s old: not swept');
      const list = await s.request<{ data: Session[]; total: number }>('GET', '/api/pos/sessions?status=pending', { headers: key });
      assert.deepEqual(list.body.data.map((session) => session.sessionId), [refreshed.sessionId]);
    });

    it('another merchant, the other mode, and a tag of the other mode all answer 404', async () => {
      const s = server();
      const { merchant, key, tagId, payer } = await shop(s);
      const session = await open(key);
      const other = await s.createMerchant();
      const otherKey = { 'x-merchant-api-key': other.testKey };
      assert.equal((await read(otherKey, session.sessionId)).status, 404);
      assert.equal((await tap(otherKey, session.sessionId, tagId)).status, 404);
      assert.equal((await s.request('POST', `/api/pos/sessions/${session.sessionId}/cancel`, { headers: otherKey })).status, 404);
      const liveKey = { 'x-merchant-api-key': merchant.liveKey };
      const liveRead = await read(liveKey, session.sessionId);
      assert.equal(liveRead.status, 404);
      assert.equal(liveRead.body.code, 'session_not_found');
      assert.equal((await read(key, 'not-a-uuid')).status, 404);
      assert.equal((await read(key, '00000000-0000-4000-8000-000000000000')).status, 404);
      // A test tag cannot pay a live session.
      await s.createWallet({ handle: payer, mode: 'live', fund: 100 });
      const liveSession = await open(liveKey, { amount: 1, currency: 'NGN', description: 'live' });
      const crossMode = await tap(liveKey, liveSession.sessionId, tagId);
      assert.equal(crossMode.status, 404);
      assert.equal(crossMode.body.code, 'tag_not_found');
      assert.equal((await read(liveKey, liveSession.sessionId)).body.status, 'pending');
    });

    it('Idempotency-Key on create and tap replays the first answer; a different body is 422', async () => {
      const s = server();
      const { key, payer, tagId } = await shop(s, { fund: 100 });
      const body = { amount: 3, currency: 'NGN', description: 'Idem' };
      const first = await s.request<Session>('POST', '/api/pos/sessions', { headers: { ...key, 'idempotency-key': 'create-1' }, body });
      const second = await s.request<Session>('POST', '/api/pos/sessions', { headers: { ...key, 'idempotency-key': 'create-1' }, body });
      assert.equal(second.status, 201);
      assert.equal(second.headers.get('idempotent-replayed'), 'true');
      assert.equal(second.body.sessionId, first.body.sessionId);
      const changed = await s.request('POST', '/api/pos/sessions', { headers: { ...key, 'idempotency-key': 'create-1' }, body: { ...body, amount: 4 } });
      assert.equal(changed.status, 422);
      assert.equal(changed.body.code, 'idempotency_key_reused');
      const tapOnce = await tap(key, first.body.sessionId, tagId, { 'idempotency-key': 'tap-1' });
      const tapTwice = await tap(key, first.body.sessionId, tagId, { 'idempotency-key': 'tap-1' });
      assert.equal(tapOnce.body.status, 'completed');
      assert.equal(tapTwice.status, 200);
      assert.equal(tapTwice.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(tapTwice.body, tapOnce.body);
      assert.equal(await balanceMinor(s, payer, 'NGN'), 9_700, 'charged once');
    });

    it('30 concurrent taps on 30 sessions by one wallet funded for 10: exactly 10 complete, 20 fail, balance exactly 0', async () => {
      const s = server();
      const { merchant, key, payer, tagId } = await shop(s, { fund: 10 * 7.25 });
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const sessions = await Promise.all(Array.from({ length: 30 }, (_, index) => open(key, { amount: 7.25, currency: 'NGN', description: `item ${index}` })));
      const taps = await Promise.all(sessions.map((session) => tap(key, session.sessionId, tagId)));
      assert.deepEqual(taps.map((answer) => answer.status), Array(30).fill(200));
      const completed = taps.filter((answer) => answer.body.status === 'completed');
      const failed = taps.filter((answer) => answer.body.status === 'failed');
      assert.equal(completed.length, 10);
      assert.equal(failed.length, 20);
      assert.ok(failed.every((answer) => /insufficient funds/i.test(answer.body.errorMessage ?? '')));
      assert.equal(new Set(completed.map((answer) => answer.body.walletRef)).size, 10);
      assert.equal(await balanceMinor(s, payer, 'NGN'), 0);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + 7_250);
      const report = await checkLedger(s.db);
      assert.deepEqual(report.violations, []);
      const tag = await s.request<{ tapCount: number }>('GET', `/api/wearables/${tagId}`, { headers: key });
      assert.equal(tag.body.tapCount, 30, 'every submitted tap counted');
    });

    it("the ledger's four-statement person-to-merchant path credits the connection's inflow shard and writes what the ledger function would", async () => {
      const s = server();
      const { merchant, key, payer, tagId } = await shop(s, { fund: 10 * 7.25 });
      const merchantWallet = (await findWallet(s.db, merchant.handle.slice(1), 'test'))!;
      const payerWallet = (await findWallet(s.db, payer, 'test'))!;
      // Every shard open, so that every connection's tap takes the lean path.
      await s.db.query(
        `INSERT INTO ledger_accounts (owner_type, owner_id, currency, mode, allow_negative, lock_rank, shard)
         SELECT 'wallet', $1, 'NGN', 'test', false, 1, g FROM generate_series(0, 16) AS g ON CONFLICT DO NOTHING`,
        [merchantWallet.id],
      );
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');

      // One tap on a connection whose pid is known: its credit lands on shard 1 + pid % 16.
      const first = await open(key, { amount: 7.25, currency: 'NGN', description: 'lean' });
      const { pid, outcome } = await s.db.transaction(async (tx) => {
        const [backend] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        const [row] = await tx.query<{ outcome: string }>(
          `SELECT t.outcome FROM pos_tap($1, 'test', $2, $3, NULL, NULL, now(), $4, NULL, 'evt_lean', 'whd_lean', '{"NGN": 2}', NULL, 'whd_lean_webhook') AS t`,
          [first.sessionId, merchant.id, tagId, sessionTransferId(first.sessionId)],
        );
        return { pid: Number(backend!.pid), outcome: row!.outcome };
      });
      assert.equal(outcome, 'completed');
      const postings = await s.db.query<{ leg: number; amount: number; owner_id: string; shard: number }>(
        `SELECT p.leg, p.amount, a.owner_id, a.shard FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id WHERE p.transfer_id = $1 ORDER BY p.leg`,
        [sessionTransferId(first.sessionId)],
      );
      assert.deepEqual(postings, [
        { leg: 1, amount: -725, owner_id: payerWallet.id, shard: 0 },
        { leg: 2, amount: 725, owner_id: merchantWallet.id, shard: 1 + (pid % 16) },
      ]);
      // Same fingerprint as the ledger's own API builds: a retry through transfer() is recognised.
      const retried = await s.db.transaction((tx) =>
        transfer(tx, {
          id: sessionTransferId(first.sessionId),
          mode: 'test',
          kind: 'pos_payment',
          legs: [
            { account: walletAccount(payerWallet.id, 'NGN'), amount: -725 },
            { account: walletAccount(merchantWallet.id, 'NGN'), amount: 725 },
          ],
        }),
      );
      assert.deepEqual(retried, { status: 'exists' });

      // Concurrent taps over HTTP on the lean path: the funds check still holds under the row lock.
      const sessions = await Promise.all(Array.from({ length: 20 }, () => open(key, { amount: 7.25, currency: 'NGN', description: 'lean' })));
      const taps = await Promise.all(sessions.map((session) => tap(key, session.sessionId, tagId)));
      assert.equal(taps.filter((answer) => answer.body.status === 'completed').length, 9);
      assert.equal(taps.filter((answer) => answer.body.status === 'failed').length, 11);
      assert.equal(await balanceMinor(s, payer, 'NGN'), 0);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + 7_250);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    describe('callbacks', () => {
      const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
      let receiverUrl = '';
      const receiver = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
          response.writeHead(200).end('ok');
        });
      });
      before(async () => {
        await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
        receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/pos-callback`;
      });
      after(async () => {
        await new Promise<void>((resolve) => receiver.close(() => resolve()));
      });

      it('pos.session.completed and pos.session.failed reach callbackUrl through the outbox, signed sha256=<hex HMAC>', async () => {
        const s = server();
        const { merchant, key, payer, tagId } = await shop(s, { fund: 20 });
        const ok = await open(key, { amount: 12.5, currency: 'NGN', description: 'Shoes', callbackUrl: receiverUrl });
        assert.equal(ok.callbackUrl, receiverUrl);
        const tooMuch = await open(key, { amount: 15, currency: 'NGN', description: 'Bag', callbackUrl: receiverUrl });
        const quiet = await open(key, { amount: 1, currency: 'NGN', description: 'No callback' });
        // One database call per tap, callback or not: pos_tap writes the transfer, the session and
        // the event together, with no transaction opened around it.
        const calls = { posTap: 0, transactions: 0 };
        const { query, transaction } = s.db;
        s.db.query = ((sql: string, ...rest: unknown[]) => {
          if (sql.includes('pos_tap(')) calls.posTap++;
          return (query as (...args: unknown[]) => unknown).call(s.db, sql, ...rest);
        }) as typeof s.db.query;
        s.db.transaction = ((work: unknown) => {
          calls.transactions++;
          return (transaction as (...args: unknown[]) => unknown).call(s.db, work);
        }) as typeof s.db.transaction;
        let okTap: Session;
        try {
          okTap = (await tap(key, ok.sessionId, tagId)).body;
          assert.equal(okTap.status, 'completed');
          assert.equal((await tap(key, tooMuch.sessionId, tagId)).body.status, 'failed');
          assert.equal((await tap(key, quiet.sessionId, tagId)).body.status, 'completed');
        } finally {
          s.db.query = query;
          s.db.transaction = transaction;
        }
        assert.deepEqual(calls, { posTap: 3, transactions: 0 });

        // Written in the tap's transaction: one delivery per callback session, none for the quiet one.
        const outbox = await s.db.query<{ type: string; url: string; signature_format: string; body: string }>(
          `SELECT e.type, d.url, d.signature_format, e.body FROM event_deliveries d JOIN events e ON e.id = d.event_id
           WHERE e.merchant_id = $1 ORDER BY e.created_at`,
          [merchant.id],
        );
        assert.deepEqual(outbox.map((row) => [row.type, row.url, row.signature_format]), [
          ['pos.session.completed', receiverUrl, 'sha256='],
          ['pos.session.failed', receiverUrl, 'sha256='],
        ]);

        received.length = 0;
        const attempted = await s.context.events.runOnce();
        assert.equal(attempted, 2);
        assert.equal(received.length, 2);
        const bodies = received.map((delivery) => {
          const signature = delivery.headers['x-service-signature'];
          const expected = `sha256=${createHmac('sha256', merchant.webhookSecret).update(delivery.body).digest('hex')}`;
          assert.equal(signature, expected, 'signed over the raw body with the merchant webhook secret');
          return JSON.parse(delivery.body) as Record<string, unknown>;
        });
        const completed = bodies.find((body) => body.event === 'pos.session.completed')!;
        const failed = bodies.find((body) => body.event === 'pos.session.failed')!;
        assert.match(String(completed.id), /^evt_/);
        assert.deepEqual(
          { ...completed, id: undefined, timestamp: undefined, walletRef: undefined, completedAt: undefined },
          { id: undefined, event: 'pos.session.completed', sessionId: ok.sessionId, merchantId: merchant.id, amount: 12.5, currency: 'NGN', payerHandle: `@${payer}`, walletRef: undefined, completedAt: undefined, timestamp: undefined },
        );
        assert.match(String(completed.walletRef), /^wtx_pos_/);
        // Written by pos_tap in SQL, the body is what enqueueEvent would write: compact JSON, keys in this order.
        const completedBody = received.find((delivery) => delivery.body.includes('pos.session.completed'))!.body;
        assert.equal(completedBody, JSON.stringify(completed));
        assert.deepEqual(Object.keys(completed), ['id', 'event', 'sessionId', 'merchantId', 'amount', 'currency', 'payerHandle', 'walletRef', 'completedAt', 'timestamp']);
        assert.deepEqual(Object.keys(failed), ['id', 'event', 'sessionId', 'merchantId', 'amount', 'currency', 'payerHandle', 'walletRef', 'completedAt', 'errorMessage', 'timestamp']);
        assert.equal(completed.walletRef, okTap.walletRef);
        assert.equal(completed.completedAt, okTap.completedAt);
        assert.equal(completed.timestamp, okTap.completedAt);
        assert.equal(failed.walletRef, null);
        assert.ok(!Number.isNaN(Date.parse(String(completed.completedAt))));
        assert.ok(!Number.isNaN(Date.parse(String(completed.timestamp))));
        assert.equal(failed.sessionId, tooMuch.sessionId);
        assert.equal(failed.amount, 15);
        assert.equal(failed.payerHandle, `@${payer}`);
        assert.match(String(failed.errorMessage), /insufficient funds/i);
        const states = await s.db.query<{ state: string }>(`SELECT d.state FROM event_deliveries d WHERE d.merchant_id = $1`, [merchant.id]);
        assert.deepEqual(states.map((row) => row.state), ['succeeded', 'succeeded']);
      });
    });

    it('pays without NFC: the session page, then @handle + PIN and POST /pay with the wallet session', async () => {
      const s = server();
      const { merchant, key } = await shop(s);
      const customer = uniqueHandle('qr');
      await s.createWallet({ handle: customer, pin: '4321', fund: 50 });
      const session = await open(key, { amount: 20, currency: 'NGN', description: 'Haircut' });
      const pagePath = new URL(session.tapUrl).pathname;
      const pageAnswer = await fetch(s.baseUrl + pagePath);
      assert.equal(pageAnswer.status, 200);
      const pageHtml = await pageAnswer.text();
      assert.match(pageHtml, /NGN\s20\.00/);
      assert.match(pageHtml, /Haircut/);
      assert.match(pageHtml, new RegExp(`data-session-id="${session.sessionId}"`));
      const wrongPin = await s.request('POST', '/api/wallet/sessions', { body: { handle: `@${customer}`, pin: '0000', mode: 'test' } });
      assert.equal(wrongPin.status, 403);
      const signedIn = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle: `@${customer}`, pin: '4321', mode: 'test' } });
      const wallet = { authorization: `Bearer wallet.${signedIn.body.token}` };
      const paid = await s.request<Session>('POST', `/api/pos/sessions/${session.sessionId}/pay`, { headers: wallet });
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      assert.equal(paid.body.status, 'completed');
      assert.equal(paid.body.payerHandle, `@${customer}`);
      assert.equal(await balanceMinor(s, customer, 'NGN'), 3_000);
      assert.equal((await read(key, session.sessionId)).body.status, 'completed');
      assert.equal((await s.request('POST', `/api/pos/sessions/${session.sessionId}/pay`, { headers: wallet })).status, 409);
      const donePage = await (await fetch(s.baseUrl + pagePath)).text();
      assert.match(donePage, /This payment is complete/);
      // A merchant key cannot use the wallet path.
      assert.equal((await s.request('POST', `/api/pos/sessions/${session.sessionId}/pay`, { headers: key })).status, 403);
      // A tag linked to the merchant's own handle cannot pay the merchant: the session fails.
      const own = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: merchant.handle, tagType: 'card' } });
      const selfPay = await open(key, { amount: 1, currency: 'NGN', description: 'self' });
      const refused = await tap(key, selfPay.sessionId, own.body.tagId);
      assert.equal(refused.status, 200);
      assert.equal(refused.body.status, 'failed');
      assert.match(refused.body.errorMessage!, /merchant itself/);
    });

    it('an expired session page shows expired; unknown pages answer 404', async () => {
      const s = server();
      const { key } = await shop(s);
      const session = await open(key);
      advance(91);
      const html = await (await fetch(`${s.baseUrl}/tap/${session.sessionId}`)).text();
      assert.match(html, /has expired/);
      assert.equal((await fetch(`${s.baseUrl}/tap/00000000-0000-4000-8000-000000000000`)).status, 404);
    });
  });
}

for (const target of await databaseTargets()) {
  describe(`POS session sweeper wiring on ${target.name}`, () => {
    let offsetMs = 0;
    // The app's own timer, every 20 ms of real time, on the injected clock.
    const server = useTestServer(target, { now: () => new Date(Date.now() + offsetMs), backgroundJobs: true, env: { POS_SWEEP_INTERVAL_MS: '20' } });

    it('expires an unread pending session once the clock passes 90 s, without any read of it', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const created = await s.request<{ sessionId: string }>('POST', '/api/pos/sessions', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { amount: 2, currency: 'NGN', description: 'swept' } });
      const statusOf = async (id: string) => (await s.db.query<{ status: string }>('SELECT status FROM pos_sessions WHERE id = $1', [id]))[0]?.status;
      const status = () => statusOf(created.body.sessionId);
      /** Until the session reads something other than pending (a generous ceiling). */
      const swept = async (id: string) => {
        let seen = await statusOf(id);
        for (const deadline = Date.now() + 60_000; seen === 'pending' && Date.now() < deadline; ) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          seen = await statusOf(id);
        }
        return seen;
      };
      // Not before its time: proven once the sweeper has run since, which a session made overdue
      // after this one shows by being expired (no sleep to guess that it ran).
      const marker = await s.request<{ sessionId: string }>('POST', '/api/pos/sessions', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { amount: 1, currency: 'NGN', description: 'overdue marker' } });
      await s.db.query(`UPDATE pos_sessions SET expires_at = $2 WHERE id = $1`, [marker.body.sessionId, new Date(Date.now() + offsetMs - 1_000)]);
      assert.equal(await swept(marker.body.sessionId), 'expired', 'the sweeper ran');
      assert.equal(await status(), 'pending', 'not before its time');
      offsetMs += 90_000;
      assert.equal(await swept(created.body.sessionId), 'expired');
    });
  });
}
