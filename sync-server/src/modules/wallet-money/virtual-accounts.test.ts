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
import { type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';

type Account = { id: string; currency: string; provider: string; bankName: string; accountNumber: string; accountName: string; feePercent: string; fee: string; code?: string };
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
      // Another provider's record, or an account nobody has: not credited.
      assert.equal(await s.context.bankTransfers.credit('paystack', { ...racing, providerReference: 'other' }), 'unknown_account');
      assert.equal(await s.context.bankTransfers.credit('sandbox', { ...racing, providerReference: 'usd', currency: 'USD' }), 'unknown_account');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
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
