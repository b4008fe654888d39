// Top-ups by bank transfer in test mode over real HTTP, on both databases: a test wallet gets its
// sandbox virtual account (the same one every time, the fee stated up front), a simulated bank
// transfer is credited exactly once (a retry with its Idempotency-Key, the same reference again),
// the fee goes to fees, a transfer past the wallet's tier is credited and flagged beyond_limit, and
// bad input is a 4xx. Live mode through the Paystack fake: test/rails/paystack-virtual-accounts.test.ts.
// Run: NODE_ENV=test TEST_DATABASE_URL=... node --import tsx --test sync-server/src/modules/wallet-money/virtual-accounts.test.ts
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { checkLedger } from '../../ledger/check.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { balanceMinor, systemBalance } from '../../testing/ledger.ts';
import { ManualClock } from '../../testing/receiver.ts';
import { ADMIN, type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';

type Account = { id: string; currency: string; provider: string; bankName: string; accountNumber: string; accountName: string; feePercent: string; fee: string; code?: string };
type Unmatched = { id: string; status: string; reason: string; mode: string; provider: string; providerReference: string; accountNumber: string | null; amount: number; currency: string; senderName: string | null; walletId: string | null; bankTransferId: string | null; returnReference: string | null; note: string | null; resolvedBy: string | null; resolvedAt: string | null; code?: string; error?: string };
type BankTransfer = { id: string; status: string; received: number; fee: number; amount: number; currency: string; provider: string; providerReference: string; accountNumber: string; senderName?: string; beyondLimit: boolean; code?: string; error?: string };

async function holder(s: TestServer, fields: { currency?: string; country?: string; displayName?: string } = {}) {
  const handle = uniqueHandle('va');
  await s.createWallet({ handle, pin: '2468', currency: fields.currency ?? 'NGN', country: fields.country ?? 'NG', ...(fields.displayName ? { displayName: fields.displayName } : {}) });
  const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468' } });
  assert.equal(session.status, 201, JSON.stringify(session.body));
  return { handle, auth: { authorization: `Bearer wallet.${session.body.token}` } };
}

for (const target of await databaseTargets()) {
  describe(`wallet top-ups by bank transfer in the sandbox on ${target.name}`, () => {
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20, env: { WALLET_BANK_TRANSFER_FEE_PCT: '0.5' } });
    const send = (s: TestServer, auth: Record<string, string>, body: unknown, key: string | null = randomUUID()) =>
      s.request<BankTransfer>('POST', '/api/wallet/virtual-account/sandbox-transfer', { headers: { ...auth, ...(key ? { 'idempotency-key': key } : {}) }, body });

    it('gives the wallet one sandbox account with its fee stated up front, and credits each transfer once (received - fee; the fee to fees)', async () => {
      const s = server();
      const { handle, auth } = await holder(s);
      const none = await s.request<{ data: Account[] }>('GET', '/api/wallet/virtual-accounts', { headers: auth });
      assert.deepEqual([none.status, none.body.data], [200, []]);
      const opened = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: auth, body: {} });
      assert.equal(opened.status, 201, JSON.stringify(opened.body));
      assert.deepEqual([opened.body.currency, opened.body.provider, opened.body.bankName, opened.body.feePercent], ['NGN', 'sandbox', 'Tapline Sandbox Bank', '0.5']);
      assert.match(opened.body.accountNumber, /^\d{10}$/);
      assert.equal(opened.body.fee, 'A fee of 0.5% of each transfer is kept: NGN 1000 sent adds NGN 995.');
      const again = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: auth, body: { currency: 'ngn' } });
      assert.deepEqual([again.status, again.body.id, again.body.accountNumber], [200, opened.body.id, opened.body.accountNumber], 'the same account');
      const listed = await s.request<{ data: Account[] }>('GET', '/api/wallet/virtual-accounts', { headers: auth });
      assert.deepEqual(listed.body.data.map((account) => account.id), [opened.body.id]);

      const funding = await systemBalance(s, 'funding', 'NGN');
      const fees = await systemBalance(s, 'fees', 'NGN');
      const key = randomUUID();
      const sent = await send(s, auth, { amount: 2000, senderName: 'ADA OBI' }, key);
      assert.equal(sent.status, 201, JSON.stringify(sent.body));
      assert.deepEqual([sent.body.status, sent.body.received, sent.body.fee, sent.body.amount, sent.body.accountNumber, sent.body.senderName, sent.body.beyondLimit], ['completed', 2000, 10, 1990, opened.body.accountNumber, 'ADA OBI', false]);
      // A retry of the same transfer (its Idempotency-Key, so its reference) credits nothing more.
      const retry = await send(s, auth, { amount: 2000, senderName: 'ADA OBI' }, key);
      assert.deepEqual([retry.status, retry.body.id], [201, sent.body.id]);
      // The same provider reference arriving again (a duplicate webhook, a requery): unchanged.
      const duplicate = await s.context.bankTransfers.credit('sandbox', { providerReference: sent.body.providerReference, accountNumber: opened.body.accountNumber, amount: 200_000, currency: 'NGN' });
      assert.equal(duplicate, 'unchanged');
      assert.equal(await balanceMinor(s, handle, 'NGN'), 199_000, 'credited once');
      assert.equal(await systemBalance(s, 'funding', 'NGN'), funding - 200_000);
      assert.equal(await systemBalance(s, 'fees', 'NGN'), fees + 1000);
      // Two transfers with the same reference at once: one credit.
      const racing = { providerReference: `race_${randomUUID()}`, accountNumber: opened.body.accountNumber, amount: 50_000, currency: 'NGN' };
      const outcomes = await Promise.all([s.context.bankTransfers.credit('sandbox', racing), s.context.bankTransfers.credit('sandbox', racing)]);
      assert.deepEqual(outcomes.sort(), ['applied', 'unchanged']);
      assert.equal(await balanceMinor(s, handle, 'NGN'), 199_000 + 49_750);

      const list = await s.request<{ data: BankTransfer[]; total: number }>('GET', '/api/wallet/bank-transfers', { headers: auth });
      assert.deepEqual([list.status, list.body.total, list.body.data.map((row) => row.amount).sort((a, b) => a - b)], [200, 2, [497.5, 1990]]);
      const notes = await s.request<{ data: { kind: string; data: Record<string, unknown> }[] }>('GET', '/api/wallet/notifications?limit=100', { headers: auth });
      assert.deepEqual(notes.body.data.map((note) => [note.kind, note.data.method]), [['wallet.top_up.completed', 'bank_transfer'], ['wallet.top_up.completed', 'bank_transfer']]);
      // Another provider's record, or a currency the account does not take: not credited, kept for an operator.
      const other = `other_${randomUUID()}`;
      const usd = `usd_${randomUUID()}`;
      assert.equal(await s.context.bankTransfers.credit('paystack', { ...racing, providerReference: other }), 'unknown_account');
      assert.equal(await s.context.bankTransfers.credit('sandbox', { ...racing, providerReference: usd, currency: 'USD' }), 'unknown_account');
      const kept = await s.db.query<{ provider: string; reason: string; mode: string; status: string }>('SELECT provider, reason, mode, status FROM unmatched_bank_transfers WHERE provider_reference IN ($1, $2) ORDER BY provider', [other, usd]);
      assert.deepEqual(kept, [{ provider: 'paystack', reason: 'unknown_account', mode: 'live', status: 'open' }, { provider: 'sandbox', reason: 'currency_not_accepted', mode: 'test', status: 'open' }]);
      assert.equal(await balanceMinor(s, handle, 'NGN'), 199_000 + 49_750, 'nothing more credited');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('keeps a transfer into an account nobody has (once, however often it arrives), lists it for the operator, assigns it to a wallet once and records a return', async () => {
      const s = server();
      const { handle, auth } = await holder(s);
      const [{ id: walletId }] = await s.db.query<{ id: string }>('SELECT id FROM wallets WHERE handle = $1 AND mode = $2', [handle, 'test']) as [{ id: string }];
      const funding = await systemBalance(s, 'funding', 'NGN');
      const fees = await systemBalance(s, 'fees', 'NGN');
      const reference = `lost_${randomUUID()}`;
      const arrived = { providerReference: reference, accountNumber: '9900000001', amount: 300_000, currency: 'NGN', senderName: 'CHIDI OKEKE', senderBank: 'Zenith Bank', narration: 'rent', paidAt: clock.now().toISOString() };
      const both = await Promise.all([s.context.bankTransfers.credit('sandbox', arrived), s.context.bankTransfers.credit('sandbox', arrived)]);
      assert.deepEqual(both, ['unknown_account', 'unknown_account']);
      assert.equal(await s.context.bankTransfers.credit('sandbox', { ...arrived, amount: 999_999 }), 'unknown_account', 'a duplicate (even one that lies about the amount) changes nothing');
      assert.equal(await systemBalance(s, 'funding', 'NGN'), funding, 'nothing moved: the money never entered our books');

      const listed = await s.request<{ data: Unmatched[]; total: number }>('GET', '/api/admin/bank-transfers/unmatched?status=open&limit=100', { headers: ADMIN });
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      const mine = listed.body.data.filter((row) => row.providerReference === reference);
      assert.equal(mine.length, 1, 'kept once');
      const row = mine[0]!;
      assert.deepEqual([row.status, row.reason, row.mode, row.provider, row.accountNumber, row.amount, row.currency, row.senderName, row.walletId, row.resolvedAt], ['open', 'unknown_account', 'test', 'sandbox', '9900000001', 3000, 'NGN', 'CHIDI OKEKE', null, null]);
      const page = await s.request<{ data: Unmatched[]; total: number; limit: number; offset: number }>('GET', '/api/admin/bank-transfers/unmatched?limit=1&offset=0', { headers: ADMIN });
      assert.deepEqual([page.status, page.body.data.length, page.body.limit, page.body.offset], [200, 1, 1, 0]);
      assert.ok(page.body.total >= 1);

      const assigned = await s.request<Unmatched>('POST', `/api/admin/bank-transfers/unmatched/${row.id}/assign`, { headers: ADMIN, body: { walletId, note: 'ticket 41: the sender mistyped the number' } });
      assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
      assert.deepEqual([assigned.body.status, assigned.body.walletId, assigned.body.resolvedBy, assigned.body.note], ['assigned', walletId, 'admin', 'ticket 41: the sender mistyped the number']);
      assert.ok(assigned.body.bankTransferId && assigned.body.resolvedAt);
      // The same path as a matched transfer: 0.5% fee, the record, the notification.
      assert.equal(await balanceMinor(s, handle, 'NGN'), 298_500);
      assert.equal(await systemBalance(s, 'funding', 'NGN'), funding - 300_000);
      assert.equal(await systemBalance(s, 'fees', 'NGN'), fees + 1_500);
      const transfers = await s.request<{ data: BankTransfer[] }>('GET', '/api/wallet/bank-transfers', { headers: auth });
      assert.deepEqual(transfers.body.data.map((t) => [t.id, t.received, t.fee, t.amount, t.providerReference, t.senderName]), [[assigned.body.bankTransferId, 3000, 15, 2985, reference, 'CHIDI OKEKE']]);
      const notes = await s.request<{ data: { kind: string; data: Record<string, unknown> }[] }>('GET', '/api/wallet/notifications?limit=100', { headers: auth });
      assert.deepEqual(notes.body.data.map((note) => [note.kind, note.data.method, note.data.providerReference]), [['wallet.top_up.completed', 'bank_transfer', reference]]);

      // Once: a second assign (to this wallet or another) and a return are 409; the webhook again is unchanged.
      for (const [path, body] of [['assign', { walletId }], ['returned', { reference: 'RFD-1' }]] as const) {
        const again = await s.request<Unmatched>('POST', `/api/admin/bank-transfers/unmatched/${row.id}/${path}`, { headers: ADMIN, body });
        assert.deepEqual([again.status, again.body.code], [409, 'unmatched_transfer_resolved'], path);
      }
      assert.equal(await s.context.bankTransfers.credit('sandbox', arrived), 'unknown_account');
      assert.equal(await balanceMinor(s, handle, 'NGN'), 298_500, 'credited once');

      // Another: sent back at the provider and recorded (no ledger movement).
      const back = `back_${randomUUID()}`;
      assert.equal(await s.context.bankTransfers.credit('sandbox', { ...arrived, providerReference: back }), 'unknown_account');
      const [{ id: backId }] = await s.db.query<{ id: string }>('SELECT id FROM unmatched_bank_transfers WHERE provider_reference = $1', [back]) as [{ id: string }];
      const before = await systemBalance(s, 'funding', 'NGN');
      const returned = await s.request<Unmatched>('POST', `/api/admin/bank-transfers/unmatched/${backId}/returned`, { headers: ADMIN, body: { reference: '  RFD-2024-77  ' } });
      assert.equal(returned.status, 200, JSON.stringify(returned.body));
      assert.deepEqual([returned.body.status, returned.body.returnReference, returned.body.walletId, returned.body.resolvedBy], ['returned', 'RFD-2024-77', null, 'admin']);
      assert.equal(await systemBalance(s, 'funding', 'NGN'), before);
      const late = await s.request<Unmatched>('POST', `/api/admin/bank-transfers/unmatched/${backId}/assign`, { headers: ADMIN, body: { walletId } });
      assert.deepEqual([late.status, late.body.code], [409, 'unmatched_transfer_resolved']);
      assert.equal(await balanceMinor(s, handle, 'NGN'), 298_500);
      const returnedOnes = await s.request<{ data: Unmatched[] }>('GET', '/api/admin/bank-transfers/unmatched?status=returned&limit=100', { headers: ADMIN });
      assert.ok(returnedOnes.body.data.some((r) => r.id === backId) && returnedOnes.body.data.every((r) => r.status === 'returned'));
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('the operator routes refuse bad input with a clear 4xx, never a 500', async () => {
      const s = server();
      const { handle, auth } = await holder(s);
      const usdHandle = uniqueHandle('vausd');
      await s.createWallet({ handle: usdHandle, pin: '2468', currency: 'USD', country: 'US' });
      const ids = async (h: string, mode: string) => ((await s.db.query<{ id: string }>('SELECT id FROM wallets WHERE handle = $1 AND mode = $2', [h, mode]))[0]!).id;
      const liveHandle = uniqueHandle('valive');
      await s.createWallet({ handle: liveHandle, pin: '2468', currency: 'NGN', country: 'NG', mode: 'live' });
      const reference = `bad_${randomUUID()}`;
      assert.equal(await s.context.bankTransfers.credit('sandbox', { providerReference: reference, accountNumber: '9900000002', amount: 10_000, currency: 'NGN' }), 'unknown_account');
      const [{ id }] = await s.db.query<{ id: string }>('SELECT id FROM unmatched_bank_transfers WHERE provider_reference = $1', [reference]) as [{ id: string }];
      const post = (path: string, body: unknown, headers: Record<string, string> = ADMIN) => s.request<Unmatched>('POST', `/api/admin/bank-transfers/unmatched/${path}`, { headers, body });
      const cases: [string, unknown, number, string][] = [
        [`${id}/assign`, { walletId: await ids(usdHandle, 'test') }, 422, 'currency_not_accepted'],
        [`${id}/assign`, { walletId: await ids(liveHandle, 'live') }, 422, 'wallet_mode_mismatch'],
        [`${id}/assign`, { walletId: 'wal_nobody' }, 404, 'wallet_not_found'],
        [`${id}/assign`, {}, 400, 'validation_failed'],
        [`${id}/assign`, { walletId: 42 }, 400, 'validation_failed'],
        [`${id}/assign`, { walletId: '' }, 400, 'validation_failed'],
        [`${id}/assign`, { walletId: 'x'.repeat(101) }, 400, 'validation_failed'],
        ['ubt_nothing/assign', { walletId: await ids(handle, 'test') }, 404, 'unmatched_transfer_not_found'],
        [`${id}/returned`, {}, 400, 'validation_failed'],
        [`${id}/returned`, { reference: '' }, 400, 'validation_failed'],
        [`${id}/returned`, { reference: '   ' }, 422, 'return_reference_required'],
        [`${id}/returned`, { reference: 7 }, 400, 'validation_failed'],
        ['ubt_nothing/returned', { reference: 'R1' }, 404, 'unmatched_transfer_not_found'],
      ];
      for (const [path, body, status, code] of cases) {
        const answer = await post(path, body);
        assert.deepEqual([answer.status, answer.body.code], [status, code], `${path} ${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
        assert.ok((answer.body.error ?? '').length > 0);
      }
      for (const query of ['status=closed', 'limit=0', 'limit=101', 'offset=-1', 'limit=ten']) {
        const answer = await s.request<{ code: string }>('GET', `/api/admin/bank-transfers/unmatched?${query}`, { headers: ADMIN });
        assert.deepEqual([answer.status, answer.body.code], [400, 'validation_failed'], query);
      }
      // Without the admin token: a wallet session is refused, nobody is refused.
      assert.equal((await s.request('GET', '/api/admin/bank-transfers/unmatched', {})).status, 401);
      assert.equal((await s.request('GET', '/api/admin/bank-transfers/unmatched', { headers: auth })).status, 403);
      assert.equal((await post(`${id}/assign`, { walletId: await ids(handle, 'test') }, auth)).status, 403);
      const still = await s.db.query<{ status: string }>('SELECT status FROM unmatched_bank_transfers WHERE id = $1', [id]);
      assert.deepEqual(still, [{ status: 'open' }], 'nothing resolved by a refused call');
      assert.equal(await balanceMinor(s, handle, 'NGN'), 0);
    });

    it('credits a transfer that passes the wallet\'s tier (it cannot be refused at the bank) and flags it beyond_limit', async () => {
      const s = server();
      const { handle, auth } = await holder(s);
      const tier = await s.request<{ tier: number; remaining: { in: number } }>('GET', '/api/wallet/tier', { headers: auth });
      assert.equal(tier.body.tier, 1);
      const opened = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: auth, body: {} });
      assert.equal(opened.status, 201);
      const over = tier.body.remaining.in + 1000;
      const sent = await send(s, auth, { amount: over });
      assert.equal(sent.status, 201, JSON.stringify(sent.body));
      assert.equal(sent.body.beyondLimit, true);
      const credited = Math.round(over * 100) - Math.ceil(over * 100 * 0.005);
      assert.equal(await balanceMinor(s, handle, 'NGN'), credited);
      const rows = await s.db.query<{ kind: string; state: string; beyond_limit: boolean }>('SELECT kind, state, beyond_limit FROM wallet_tier_movements WHERE id = $1', [sent.body.id]);
      assert.deepEqual(rows, [{ kind: 'bank_transfer_in', state: 'counted', beyond_limit: true }]);
      const after = await s.request<{ remaining: { in: number } }>('GET', '/api/wallet/tier', { headers: auth });
      assert.equal(after.body.remaining.in, 0, 'the day\'s money in is used up');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('bad input is a 4xx with a clear code, never a 500', async () => {
      const s = server();
      const { auth } = await holder(s);
      const noAccount = await send(s, auth, { amount: 10 });
      assert.deepEqual([noAccount.status, noAccount.body.code], [422, 'virtual_account_not_found']);
      const currency = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: auth, body: { currency: 'KES' } });
      assert.deepEqual([currency.status, currency.body.code], [400, 'currency_not_accepted']);
      assert.equal((await s.request('POST', '/api/wallet/virtual-account', { headers: auth, body: {} })).status, 201);
      for (const body of [{ amount: -5 }, { amount: 0 }, { amount: 'ten' }, {}]) {
        const answer = await send(s, auth, body);
        assert.equal(answer.status, 400, JSON.stringify([body, answer.body]));
      }
      const anonymous = await s.request<Account>('POST', '/api/wallet/virtual-account', { body: {} });
      assert.equal(anonymous.status, 401);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
