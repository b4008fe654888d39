import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { checkVoucher, parseVoucher } from '@tapline/shared/offline-qr';
import { type OfflinePaymentDoc, SYNC_EVENTS, type SyncHello } from '@tapline/shared/sync-protocol';
import { databaseTargets } from '../../testing/databases.ts';
import { balanceMinor, systemBalance } from '../../testing/ledger.ts';
import { uniqueHandle, useTestServer } from '../../testing/server.ts';
import { checkLedger } from '../../ledger/check.ts';
import { releaseExpiredVouchers } from './vouchers.ts';
import { roundLimitDown } from '../fx/index.ts';
import { convertMinor } from '@tapline/shared/money';
import { fxServiceRateSource } from '../fx/index.ts';
import { conflictsOf, connectTerminal, pull, push } from '../../testing/offline.ts';

type Voucher = { id: string; status: string; amount: number; currency: string; expiresAt: string; qrPayload?: string; handle: string; usedAmount?: number };
type Payment = { id: string; status: string; amount: number; payerHandle: string | null; declineCode: string | null; walletRef: string | null; terminalId: string | null };

function tapDoc(terminalId: string, tagId: string, amountMinor: number, extra: Partial<OfflinePaymentDoc> = {}): OfflinePaymentDoc {
  return { id: randomUUID(), terminalId, kind: 'tap', tagId, amountMinor, currency: 'NGN', description: 'Suya', capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0, ...extra };
}

describe('offline limit defaults', () => {
  it('round a converted default down to whole major units and two significant figures', () => {
    assert.equal(roundLimitDown(2_652_328, 'NGN'), 2_600_000, 'NGN 26,523.28 reads NGN 26,000');
    assert.equal(roundLimitDown(26_523_280, 'NGN'), 26_000_000);
    assert.equal(roundLimitDown(2000, 'USD'), 2000, 'USD 20 stays');
    assert.equal(roundLimitDown(20_000, 'USD'), 20_000);
    assert.equal(roundLimitDown(9_999, 'USD'), 9_900, 'USD 99.99 is 99');
    assert.equal(roundLimitDown(258_012, 'KES'), 250_000);
    assert.equal(roundLimitDown(12_061, 'XOF'), 12_000, 'a currency without decimals');
    assert.equal(roundLimitDown(199, 'XOF'), 190);
    assert.equal(roundLimitDown(42, 'XOF'), 42);
    assert.equal(roundLimitDown(99, 'NGN'), 0, 'less than one naira');
    assert.equal(roundLimitDown(0, 'NGN'), 0);
  });
});

for (const target of await databaseTargets()) {
  describe(`offline QR vouchers and terminal sync on ${target.name}`, () => {
    let offsetMs = 0;
    const now = () => new Date(Date.now() + offsetMs);
    const server = useTestServer(target, { now, rateLimitScale: 20 });

    /** A merchant with a terminal, and a customer with a PIN, funds, a wallet session and a ring. */
    async function shop(fund = 1000) {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front counter' } });
      assert.equal(terminal.status, 201);
      const customer = uniqueHandle('cust');
      await s.createWallet({ handle: customer, fund });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle: customer, pin: '1234' } });
      assert.equal(session.status, 201, JSON.stringify(session.body));
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: customer, tagType: 'ring', displayName: 'Ring' } });
      assert.equal(tag.status, 201);
      return {
        merchant,
        key,
        terminalId: terminal.body.id,
        termToken: `term.${terminal.body.token}`,
        customer,
        wallet: { authorization: `Bearer wallet.${session.body.token}` },
        tagId: tag.body.tagId,
      };
    }

    async function voucher(walletHeaders: Record<string, string>, amount: number, extra: Record<string, unknown> = {}) {
      const created = await server().request<Voucher>('POST', '/api/offline/qr', { headers: walletHeaders, body: { amount, ...extra } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body;
    }

    it('reserves a voucher\'s amount, shows the same signed QR again, verifies with the published key, and revokes it back', async () => {
      const s = server();
      const { customer, wallet } = await shop(1000);
      const created = await voucher(wallet, 250);
      assert.equal(created.status, 'active');
      assert.equal(created.amount, 250);
      assert.equal(created.currency, 'NGN');
      assert.equal(created.handle, `@${customer}`);
      assert.match(created.qrPayload ?? '', /^TLQ1\./);
      assert.equal(await balanceMinor(s, customer, 'NGN'), 75_000);
      assert.equal(parseVoucher(created.qrPayload!)?.claims.a, 25_000);

      const again = await s.request<Voucher>('GET', `/api/offline/qr/${created.id}`, { headers: wallet });
      assert.equal(again.status, 200);
      assert.equal(again.body.qrPayload, created.qrPayload, 'the same voucher text: Ed25519 signs deterministically');

      const keys = await s.request<{ keys: { keyId: string; publicKey: string }[] }>('GET', '/api/offline/qr/keys');
      assert.equal(keys.status, 200);
      const verified = await checkVoucher(created.qrPayload!, { keys: new Map(keys.body.keys.map((k) => [k.keyId, k.publicKey])), mode: 'test', currency: 'NGN', amountMinor: 25_000, at: now() });
      assert.equal(verified.ok, true);

      const list = await s.request<{ data: Voucher[]; total: number }>('GET', '/api/offline/qr', { headers: wallet });
      assert.equal(list.body.total, 1);
      assert.equal(list.body.data[0]?.qrPayload, undefined, 'lists never carry the voucher text');

      const revoked = await s.request<Voucher>('POST', `/api/offline/qr/${created.id}/revoke`, { headers: wallet });
      assert.equal(revoked.status, 200);
      assert.equal(revoked.body.status, 'revoked');
      assert.equal(await balanceMinor(s, customer, 'NGN'), 100_000);
      // The holder's active vouchers (what the offline QR page lists): none left, the revoked one under its status.
      const active = await s.request<{ data: Voucher[]; total: number; limit: number }>('GET', '/api/offline/qr?status=active&limit=5', { headers: wallet });
      assert.equal(active.status, 200);
      assert.deepEqual([active.body.total, active.body.data.length, active.body.limit], [0, 0, 5]);
      const ended = await s.request<{ data: Voucher[]; total: number }>('GET', '/api/offline/qr?status=revoked', { headers: wallet });
      assert.deepEqual(ended.body.data.map((voucher) => [voucher.id, voucher.status]), [[created.id, 'revoked']]);
      assert.equal((await s.request('GET', '/api/offline/qr?status=lost', { headers: wallet })).status, 400);
      const twice = await s.request('POST', `/api/offline/qr/${created.id}/revoke`, { headers: wallet });
      assert.equal(twice.status, 409);
      assert.equal(twice.body.code, 'voucher_not_active');

      const stored = await s.db.query<{ payload_hash: string }>('SELECT payload_hash FROM offline_qr_vouchers WHERE id = $1', [created.id]);
      assert.match(stored[0]!.payload_hash, /^[0-9a-f]{64}$/);
      assert.notEqual(stored[0]!.payload_hash, created.qrPayload);
    });

    it('refuses a voucher beyond the balance (422), bad bodies (400), other holders (404) and other credentials (401/403)', async () => {
      const s = server();
      const { customer, wallet, key } = await shop(100);
      const tooMuch = await s.request('POST', '/api/offline/qr', { headers: wallet, body: { amount: 100.01 } });
      assert.equal(tooMuch.status, 422);
      assert.equal(tooMuch.body.code, 'insufficient_funds');
      assert.equal(await balanceMinor(s, customer, 'NGN'), 10_000);
      for (const body of [{ amount: '5' }, { amount: 0 }, { amount: 5, expiresInHours: 73 }, { amount: 1.234 }, {}]) {
        const bad = await s.request('POST', '/api/offline/qr', { headers: wallet, body });
        assert.equal(bad.status, 400, JSON.stringify(body));
        assert.equal(typeof bad.body.error, 'string');
      }
      const mine = await voucher(wallet, 10);
      const other = await shop(100);
      const foreign = await s.request('GET', `/api/offline/qr/${mine.id}`, { headers: other.wallet });
      assert.equal(foreign.status, 404);
      assert.equal((await s.request('POST', '/api/offline/qr', { body: { amount: 5 } })).status, 401);
      assert.equal((await s.request('POST', '/api/offline/qr', { headers: key, body: { amount: 5 } })).status, 403);
    });

    it('redeems a voucher online for part of its amount: the merchant gets the payment, the holder the rest, and it never pays twice', async () => {
      const s = server();
      const { customer, wallet, key, merchant } = await shop(1000);
      const reserveBefore = await systemBalance(s, 'offline_qr_reserve', 'NGN');
      const created = await voucher(wallet, 300);
      assert.equal(await systemBalance(s, 'offline_qr_reserve', 'NGN'), reserveBefore + 30_000);
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const redeemed = await s.request<Payment>('POST', '/api/offline/qr/redeem', { headers: key, body: { voucher: created.qrPayload, amount: 120.5, description: 'Bread' } });
      assert.equal(redeemed.status, 200, JSON.stringify(redeemed.body));
      assert.equal(redeemed.body.status, 'accepted');
      assert.equal(redeemed.body.amount, 120.5);
      assert.equal(redeemed.body.payerHandle, `@${customer}`);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + 12_050);
      assert.equal(await balanceMinor(s, customer, 'NGN'), 100_000 - 12_050);
      assert.equal(await systemBalance(s, 'offline_qr_reserve', 'NGN'), reserveBefore);
      const used = await s.request<Voucher>('GET', `/api/offline/qr/${created.id}`, { headers: wallet });
      assert.equal(used.body.status, 'used');
      assert.equal(used.body.usedAmount, 120.5);
      assert.equal(used.body.qrPayload, undefined);

      const again = await s.request('POST', '/api/offline/qr/redeem', { headers: key, body: { voucher: created.qrPayload, amount: 1 } });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'voucher_already_used');
      const forged = await s.request('POST', '/api/offline/qr/redeem', { headers: key, body: { voucher: `${created.qrPayload!.slice(0, -4)}AAAA`, amount: 1 } });
      assert.equal(forged.status, 400);
      assert.equal(forged.body.code, 'voucher_signature_invalid');
      const second = await voucher(wallet, 10);
      const over = await s.request('POST', '/api/offline/qr/redeem', { headers: key, body: { voucher: second.qrPayload, amount: 10.01 } });
      assert.equal(over.status, 422);
      assert.equal(over.body.code, 'amount_exceeds_voucher');
      offsetMs += 25 * 3600_000;
      const late = await s.request('POST', '/api/offline/qr/redeem', { headers: key, body: { voucher: second.qrPayload, amount: 5 } });
      assert.equal(late.status, 410);
      assert.equal(late.body.code, 'voucher_expired');
      offsetMs = 0;
      assert.equal(await balanceMinor(s, customer, 'NGN'), 100_000 - 12_050 - 1_000, 'the second voucher is still reserved');
    });

    it('refuses a sync handshake without a valid terminal token, and a revoked terminal', async () => {
      const s = server();
      await assert.rejects(connectTerminal(s, ''), /missing_token/);
      await assert.rejects(connectTerminal(s, 42 as unknown as string), /missing_token/);
      await assert.rejects(connectTerminal(s, 'mk_test_' + '0'.repeat(64)), /invalid_terminal_token/);
      await assert.rejects(connectTerminal(s, `term.${'0'.repeat(64)}`), /invalid_terminal_token/);
      const { key, terminalId, termToken } = await shop();
      const { socket } = await connectTerminal(s, termToken);
      assert.equal(socket.connected, true);
      assert.equal((await s.request('DELETE', `/api/merchant/terminals/${terminalId}`, { headers: key })).status, 200);
      const answer = await pull(socket, null);
      assert.deepEqual('code' in answer ? answer.code : 'no failure', 'terminal_revoked');
      offsetMs += 1100; // the credential memory lasts one second of the app's clock
      await assert.rejects(connectTerminal(s, termToken), /terminal_revoked/);
      offsetMs = 0;
    });

    it('greets a terminal with its merchant, mode, offline limits and the voucher keys; the merchant changes the limits', async () => {
      const s = server();
      const { key, terminalId, termToken, merchant } = await shop();
      const { hello, socket } = await connectTerminal(s, termToken);
      assert.equal(hello.terminal.id, terminalId);
      assert.equal(hello.merchant.handle, merchant.handle);
      assert.equal(hello.merchant.currency, 'NGN');
      assert.equal(hello.mode, 'test');
      assert.equal(hello.offlineLimits.currency, 'NGN');
      assert.ok(hello.offlineLimits.perPaymentMaxMinor > 0 && hello.offlineLimits.totalMaxMinor > hello.offlineLimits.perPaymentMaxMinor, JSON.stringify(hello.offlineLimits));
      // The defaults are USD 20 and 200 at the mid rate, rounded down to round figures (fx's roundLimitDown).
      const { rate } = await fxServiceRateSource(s.context.fx).rate('USD', 'NGN');
      const converted = (dollars: number) => convertMinor(dollars * 100, 'USD', 'NGN', rate, 'down');
      assert.deepEqual([hello.offlineLimits.perPaymentMaxMinor, hello.offlineLimits.totalMaxMinor], [roundLimitDown(converted(20), 'NGN'), roundLimitDown(converted(200), 'NGN')]);
      for (const limit of [hello.offlineLimits.perPaymentMaxMinor, hello.offlineLimits.totalMaxMinor]) assert.match(String(limit / 100), /^\d{2}0*$/, 'two significant figures of whole naira');
      assert.equal(hello.offlineLimits.maxAgeSeconds, 72 * 3600);
      assert.ok(hello.offlineQrKeys.length >= 1);
      assert.equal(hello.offlineQrKeys[0]?.algorithm, 'Ed25519');

      // The connected terminal is greeted again with its new limits, without reconnecting.
      const greeted = new Promise<SyncHello>((resolve) => socket.once(SYNC_EVENTS.hello, resolve));
      const changed = await s.request<{ perPayment: number; total: number; maxAgeHours: number }>('PATCH', `/api/merchant/terminals/${terminalId}`, {
        headers: key,
        body: { offlineLimits: { perPayment: 5000, total: 20000.5, maxAgeHours: 12 } },
      });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.deepEqual(changed.body, { terminalId, currency: 'NGN', perPayment: 5000, total: 20000.5, maxAgeHours: 12, language: 'en', name: 'Front counter', tipping: { mode: 'off', percentages: [10, 15, 20] } });
      const noPinPerTapMaxMinor = hello.offlineLimits.noPinPerTapMaxMinor!;
      const noPinPerDayMaxMinor = hello.offlineLimits.noPinPerDayMaxMinor!;
      assert.ok(noPinPerTapMaxMinor > 0, 'the largest offline tap: the default no-PIN limit per tap');
      assert.ok(noPinPerDayMaxMinor >= noPinPerTapMaxMinor, 'the most one tag pays without its PIN in a day: the default no-PIN day limit');
      const [defaults] = await s.db.query<{ per_tap: number; per_day: number }>(`SELECT per_tap, per_day FROM no_pin_limit_defaults WHERE currency = 'NGN'`);
      assert.deepEqual([noPinPerTapMaxMinor, noPinPerDayMaxMinor], [Number(defaults!.per_tap), Number(defaults!.per_day)]);
      assert.deepEqual((await greeted).offlineLimits, { currency: 'NGN', perPaymentMaxMinor: 500_000, totalMaxMinor: 2_000_050, maxAgeSeconds: 12 * 3600, noPinPerTapMaxMinor, noPinPerDayMaxMinor });
      const { hello: next } = await connectTerminal(s, termToken);
      assert.deepEqual(next.offlineLimits, { currency: 'NGN', perPaymentMaxMinor: 500_000, totalMaxMinor: 2_000_050, maxAgeSeconds: 12 * 3600, noPinPerTapMaxMinor, noPinPerDayMaxMinor });
      const reset = await s.request<{ perPayment: number }>('PATCH', `/api/merchant/terminals/${terminalId}`, { headers: key, body: { offlineLimits: { perPayment: null } } });
      assert.equal(reset.body.perPayment, hello.offlineLimits.perPaymentMaxMinor / 100);
      const bad = await s.request('PATCH', `/api/merchant/terminals/${terminalId}`, { headers: key, body: { offlineLimits: { maxAgeHours: 0 } } });
      assert.equal(bad.status, 400);
      const other = await shop();
      assert.equal((await s.request('PATCH', `/api/merchant/terminals/${terminalId}`, { headers: other.key, body: { offlineLimits: {} } })).status, 404);
    });

    it('settles pushed offline taps once: accepted with the payer, declined without funds, a replay answers the recorded verdict', async () => {
      const s = server();
      const { terminalId, termToken, customer, tagId, merchant } = await shop(100);
      const { socket } = await connectTerminal(s, termToken);
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const first = tapDoc(terminalId, tagId, 6_000);
      const second = tapDoc(terminalId, tagId, 6_000, { description: 'more suya' });
      const [accepted, declined] = conflictsOf(await push(socket, [first, second]));
      assert.equal(accepted?.id, first.id);
      assert.equal(accepted?.status, 'accepted');
      assert.equal(accepted?.payerHandle, `@${customer}`);
      assert.match(accepted?.walletRef ?? '', /^offline:/);
      assert.equal(accepted?.serverSeq, 1);
      assert.equal(declined?.status, 'declined');
      assert.equal(declined?.declineCode, 'insufficient_funds');
      assert.equal(declined?.serverSeq, 2);
      assert.equal(await balanceMinor(s, customer, 'NGN'), 4_000);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + 6_000);

      const replay = conflictsOf(await push(socket, [{ ...first, amountMinor: 1 }]));
      assert.deepEqual(replay[0], accepted, 'a replayed id answers the recorded payment, whatever it carries now');
      assert.equal(await balanceMinor(s, customer, 'NGN'), 4_000);

      const all = await pull(socket, null);
      assert.ok('documents' in all);
      assert.deepEqual(all.documents.map((doc) => [doc.id, doc.status, doc.serverSeq]), [[first.id, 'accepted', 1], [second.id, 'declined', 2]]);
      assert.deepEqual(all.checkpoint, { serverSeq: 2 });
      const rest = await pull(socket, 2);
      assert.ok('documents' in rest);
      assert.deepEqual(rest.documents, []);
      assert.deepEqual(rest.checkpoint, { serverSeq: 2 });
      const page = await pull(socket, 0, 1);
      assert.ok('documents' in page);
      assert.equal(page.documents.length, 1);
      assert.deepEqual(page.checkpoint, { serverSeq: 1 });

      const tapCount = await s.db.query<{ tap_count: number }>('SELECT tap_count FROM wearables WHERE tag_id = $1', [tagId]);
      assert.equal(tapCount[0]?.tap_count, 2, 'each submitted tap counts once; the replay does not');
    });

    it('records what it cannot settle instead of losing it: unknown and disabled tags, bad fields, a future date; refuses a push without ids', async () => {
      const s = server();
      const { terminalId, termToken, tagId, key } = await shop(100);
      const { socket } = await connectTerminal(s, termToken);
      assert.equal((await s.request('PUT', `/api/wearables/${tagId}`, { headers: key, body: { status: 'disabled' } })).status, 200);
      const docs = [
        tapDoc(terminalId, 'TG00000000', 100),
        tapDoc(terminalId, tagId, 100),
        { ...tapDoc(terminalId, tagId, 100), amountMinor: '100' },
        tapDoc(terminalId, tagId, 100, { capturedAt: new Date(Date.now() + 3600_000).toISOString() }),
      ];
      const verdicts = conflictsOf(await push(socket, docs));
      assert.deepEqual(verdicts.map((doc) => [doc.status, doc.declineCode]), [
        ['declined', 'tag_not_found'],
        ['declined', 'tag_disabled'],
        ['declined', 'invalid_document'],
        ['declined', 'captured_in_future'],
      ]);
      assert.match(verdicts[2]?.declineReason ?? '', /amountMinor/);
      // A document without a UUID id cannot be stored under an idempotency key: rejected by its row, the others settle.
      const good = tapDoc(terminalId, 'TG00000001', 100);
      const noId = await push(socket, [{ ...tapDoc(terminalId, tagId, 100), id: 'not-a-uuid' }, good]);
      assert.ok('conflicts' in noId, JSON.stringify(noId));
      assert.deepEqual(noId.rejected?.map((row) => [row.index, row.code]), [[0, 'invalid_document']]);
      assert.deepEqual(noId.conflicts.map((doc) => [doc.id, doc.declineCode]), [[good.id, 'tag_not_found']]);
      const wrongCollection = await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.pull, { collection: 'nope', checkpoint: null, batchSize: 10 });
      assert.equal(wrongCollection.code, 'unknown_collection');
      const badCheckpoint = await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.pull, { collection: 'offline_payments', checkpoint: { serverSeq: -1 }, batchSize: 10 });
      assert.equal(badCheckpoint.code, 'invalid_checkpoint');
      const oddBatch = await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.pull, { collection: 'offline_payments', checkpoint: null, batchSize: 'all' });
      assert.equal(oddBatch.documents.length, 5, 'a batch size that is not an integer means the largest');
      const two = await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.pull, { collection: 'offline_payments', checkpoint: null, batchSize: 2 });
      assert.equal(two.documents.length, 2);
      const none = await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.pull, { collection: 'offline_payments', checkpoint: null, batchSize: 0 });
      assert.equal(none.documents.length, 1, 'a batch size under 1 means 1');
      const notRows = await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.push, { collection: 'offline_payments', rows: 'none' });
      assert.equal(notRows.code, 'invalid_push');
      const tooMany = await push(socket, Array.from({ length: 101 }, () => tapDoc(terminalId, tagId, 100)));
      assert.equal('code' in tooMany ? tooMany.code : '', 'invalid_push');
      const nothing = await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.push, null);
      assert.equal(nothing.code, 'unknown_collection');
      const listed = await s.request<{ data: Payment[]; total: number }>('GET', '/api/offline/payments?status=declined', { headers: key });
      assert.equal(listed.body.total, 5);
      assert.ok(listed.body.data.every((payment) => payment.terminalId === terminalId && payment.status === 'declined'));
    });

    it('settles an offline voucher payment pushed late, and declines the same voucher spent at a second terminal', async () => {
      const s = server();
      const { terminalId, termToken, customer, wallet, key, merchant } = await shop(500);
      const second = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Back counter' } });
      const reserveBefore = await systemBalance(s, 'offline_qr_reserve', 'NGN');
      const created = await voucher(wallet, 200);
      const parsedId = parseVoucher(created.qrPayload!)!.claims.id;
      const capturedAt = new Date().toISOString();
      const qr = (terminal: string, amountMinor: number): OfflinePaymentDoc => ({
        id: randomUUID(), terminalId: terminal, kind: 'qr', voucher: created.qrPayload!, voucherId: parsedId, amountMinor, currency: 'NGN', description: 'Fabric', capturedAt, status: 'queued', serverSeq: 0,
      });
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const a = await connectTerminal(s, termToken);
      const b = await connectTerminal(s, `term.${second.body.token}`);
      // Both terminals took the voucher while offline; they sync at the same moment.
      const [fromA, fromB] = await Promise.all([push(a.socket, [qr(terminalId, 15_000)]), push(b.socket, [qr(second.body.id, 18_000)])]);
      const verdicts = [...conflictsOf(fromA), ...conflictsOf(fromB)];
      assert.deepEqual(verdicts.map((doc) => doc.status).sort(), ['accepted', 'declined']);
      const winner = verdicts.find((doc) => doc.status === 'accepted')!;
      const loser = verdicts.find((doc) => doc.status === 'declined')!;
      assert.equal(loser.declineCode, 'voucher_already_used');
      assert.equal(winner.voucherId, created.id);
      assert.equal(winner.voucher, undefined, 'the master state never carries the voucher text');
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + winner.amountMinor);
      assert.equal(await balanceMinor(s, customer, 'NGN'), 50_000 - winner.amountMinor);
      assert.equal(await systemBalance(s, 'offline_qr_reserve', 'NGN'), reserveBefore);
    });

    it('gives an expired voucher\'s money back after the settlement grace; a payment taken before expiry settles until then', async () => {
      const s = server();
      const { terminalId, termToken, customer, wallet, key } = await shop(500);
      // Payments older than the terminal's age limit are declined before the voucher is looked at: allow 96 hours here.
      assert.equal((await s.request('PATCH', `/api/merchant/terminals/${terminalId}`, { headers: key, body: { offlineLimits: { maxAgeHours: 96 } } })).status, 200);
      const early = await voucher(wallet, 100, { expiresInHours: 1 });
      const late = await voucher(wallet, 100, { expiresInHours: 1 });
      const capturedAt = new Date(Date.now() + 30 * 60_000).toISOString();
      offsetMs = 24 * 3600_000; // expired a day ago, within the 72-hour grace
      assert.equal(await releaseExpiredVouchers(s.context), 0);
      const { socket } = await connectTerminal(s, termToken);
      const settled = conflictsOf(await push(socket, [{ id: randomUUID(), terminalId, kind: 'qr', voucher: early.qrPayload!, amountMinor: 10_000, currency: 'NGN', description: '', capturedAt, status: 'queued', serverSeq: 0 }]));
      assert.equal(settled[0]?.status, 'accepted');
      offsetMs = 74 * 3600_000;
      assert.equal(await releaseExpiredVouchers(s.context), 1);
      assert.equal(await releaseExpiredVouchers(s.context), 0);
      assert.equal(await balanceMinor(s, customer, 'NGN'), 40_000);
      const afterRelease = conflictsOf(await push(socket, [{ id: randomUUID(), terminalId, kind: 'qr', voucher: late.qrPayload!, amountMinor: 5_000, currency: 'NGN', description: '', capturedAt, status: 'queued', serverSeq: 0 }]));
      assert.equal(afterRelease[0]?.declineCode, 'voucher_expired');
      assert.equal(await balanceMinor(s, customer, 'NGN'), 40_000);
      offsetMs = 0;
    });

    it('settles 40 concurrent pushes of 10 payments from two connections exactly once each', async () => {
      const s = server();
      const { terminalId, termToken, customer, tagId } = await shop(1000);
      const one = await connectTerminal(s, termToken);
      const two = await connectTerminal(s, termToken);
      const docs = Array.from({ length: 10 }, () => tapDoc(terminalId, tagId, 1_000));
      const streamed: OfflinePaymentDoc[] = [];
      two.socket.on(SYNC_EVENTS.stream, (message: { documents: OfflinePaymentDoc[] }) => streamed.push(...message.documents));
      const answers = await Promise.all([...docs, ...docs].flatMap((doc, index) => [push(one.socket, [doc]), push((index % 2 === 0 ? two : one).socket, [doc])]));
      for (const answer of answers) assert.equal(conflictsOf(answer)[0]?.status, "accepted", JSON.stringify(answer));
      assert.equal(await balanceMinor(s, customer, 'NGN'), 100_000 - 10 * 1_000);
      const rows = await s.db.query<{ count: number; seqs: number }>('SELECT count(*)::int8 AS count, count(DISTINCT server_seq)::int8 AS seqs FROM offline_payments WHERE terminal_id = $1', [terminalId]);
      assert.deepEqual(rows[0], { count: 10, seqs: 10 });
      assert.ok(streamed.length > 0, 'the other connection of the terminal hears the verdicts');
      const report = await checkLedger(s.db);
      assert.deepEqual(report.violations, []);
    });
  });
}
