// One-time cash-out codes and agents' commissions (docs/agents.md) over real HTTP on both
// databases: a holder makes a code with her PIN, an agent pays out exactly its amount once with
// it, a new code replaces the last, wrong codes count in the wallet's PIN lock-out, a code
// expires; the platform pays the agent's commission from its fees in the operation's transfer.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { checkLedger } from '../../ledger/check.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { agent, holder } from '../../testing/gift-cards.ts';
import { balanceMinor, systemBalance } from '../../testing/ledger.ts';
import { ManualClock } from '../../testing/receiver.ts';
import { useTestServer } from '../../testing/server.ts';

type Code = { id: string; code?: string; status: string; amount: number; currency: string; expiresAt: string; createdAt: string; operationId?: string };
type Cash = { id: string; kind: string; amount: number; commission: number; cashOutCodeId?: string; floatBalance?: number };
type Refusal = { code: string; error: string };

for (const target of await databaseTargets()) {
  describe(`cash-out codes and agents' commissions on ${target.name}`, () => {
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20, env: { AGENT_CASH_IN_COMMISSION_PCT: '1', AGENT_CASH_OUT_COMMISSION_PCT: '0.5' } });

    it('pays out exactly a code\'s amount once, with no PIN at the agent; a new code replaces the last; a used one cannot be cancelled', async () => {
      const s = server();
      const desk = await agent(s, { fund: 100 });
      const customer = await holder(s, { fund: 300, pin: '2580', prefix: 'zawadi' });
      const make = (body: Record<string, unknown>) => s.request<Code & Refusal>('POST', '/api/wallet/cash-out-codes', { headers: customer.headers, body });
      const out = (body: Record<string, unknown>, key = randomUUID()) => s.request<Cash & Refusal>('POST', '/api/agent/cash-out', { headers: { ...desk.headers, 'idempotency-key': key }, body: { handle: customer.handle, ...body } });

      const wrongPin = await make({ amount: 40, walletPin: '1111' });
      assert.deepEqual([wrongPin.status, wrongPin.body.code], [403, 'wrong_pin'], 'a code needs her PIN');
      const first = await make({ amount: 40, walletPin: '2580' });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.match(first.body.code ?? '', /^\d{4} \d{4}$/);
      assert.deepEqual([first.body.status, first.body.amount, first.body.currency], ['active', 40, 'NGN']);
      assert.equal(Date.parse(first.body.expiresAt) - Date.parse(first.body.createdAt), 30 * 60_000);
      clock.advance(1_000);
      const second = await make({ amount: 60, walletPin: '2580' });
      assert.equal(second.status, 201);
      const listed = await s.request<{ data: Code[]; total: number }>('GET', '/api/wallet/cash-out-codes', { headers: customer.headers });
      assert.deepEqual(listed.body.data.map((code) => [code.id, code.status, code.code]), [[second.body.id, 'active', undefined], [first.body.id, 'cancelled', undefined]], 'a new code replaces the last; codes are never shown again');
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 30_000, 'a code moves nothing by itself');

      const replaced = await out({ amount: 40, code: first.body.code });
      assert.deepEqual([replaced.status, replaced.body.code], [403, 'wrong_cash_out_code'], 'the replaced code no longer works');
      const both = await out({ amount: 60, code: second.body.code, walletPin: '2580' });
      assert.deepEqual([both.status, both.body.code], [400, 'cash_out_consent_ambiguous']);
      const notDigits = await out({ amount: 60, code: '12ab' });
      assert.deepEqual([notDigits.status, notDigits.body.code], [400, 'cash_out_code_invalid']);
      const otherAmount = await out({ amount: 50, code: second.body.code });
      assert.deepEqual([otherAmount.status, otherAmount.body.code], [400, 'cash_out_code_amount']);
      assert.match(otherAmount.body.error, /60 NGN/);

      const key = randomUUID();
      const paid = await out({ amount: 60, code: second.body.code!.replace(' ', '-') }, key);
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      assert.deepEqual([paid.body.kind, paid.body.amount, paid.body.commission, paid.body.cashOutCodeId, paid.body.floatBalance], ['cash_out', 60, 0.3, second.body.id, 160.3]);
      const replay = await out({ amount: 60, code: second.body.code }, key);
      assert.deepEqual([replay.status, replay.body.id], [201, paid.body.id], 'a retry with the key answers the first cash-out');
      const again = await out({ amount: 60, code: second.body.code });
      assert.deepEqual([again.status, again.body.code], [403, 'wrong_cash_out_code'], 'used once');
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 24_000);
      assert.equal(await balanceMinor(s, desk.handle, 'NGN'), 16_030);
      const cancelUsed = await s.request<Refusal>('POST', `/api/wallet/cash-out-codes/${second.body.id}/cancel`, { headers: customer.headers });
      assert.deepEqual([cancelUsed.status, cancelUsed.body.code], [409, 'cash_out_code_used']);
      const read = (await s.request<{ data: Code[] }>('GET', '/api/wallet/cash-out-codes?limit=1', { headers: customer.headers })).body.data[0]!;
      assert.deepEqual([read.status, read.operationId], ['used', paid.body.id]);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('refuses a code the wallet cannot pay (more than it holds, a currency it does not hold) before the PIN, and bad input with 400s', async () => {
      const s = server();
      const desk = await agent(s, { fund: 100 });
      const customer = await holder(s, { fund: 50, pin: '2580', prefix: 'amara' });
      const make = (body: Record<string, unknown>) => s.request<Code & Refusal>('POST', '/api/wallet/cash-out-codes', { headers: customer.headers, body });

      // Six refusals with a wrong PIN: none reaches the PIN check, so none counts in the lock-out.
      for (let attempt = 0; attempt < 6; attempt++) {
        const tooMuch = await make({ amount: 80, walletPin: '0000' });
        assert.deepEqual([tooMuch.status, tooMuch.body.code], [422, 'insufficient_funds']);
        assert.match(tooMuch.body.error, /holds 50 NGN: a code for 80 NGN/);
      }
      const otherCurrency = await make({ amount: 10, currency: 'USD', walletPin: '2580' });
      assert.deepEqual([otherCurrency.status, otherCurrency.body.code], [422, 'insufficient_funds'], 'the wallet holds no USD');
      const emptyPin = await make({ amount: 10, walletPin: '' });
      assert.equal(emptyPin.status, 400);
      const notACurrency = await make({ amount: 10, currency: 'XYZ', walletPin: '2580' });
      assert.equal(notACurrency.status, 400);
      assert.equal(typeof notACurrency.body.code, 'string');
      const exact = await make({ amount: 50, walletPin: '2580' });
      assert.equal(exact.status, 201, `her PIN still works after the refusals: ${JSON.stringify(exact.body)}`);

      const out = (body: Record<string, unknown>) => s.request<Cash & Refusal>('POST', '/api/agent/cash-out', { headers: { ...desk.headers, 'idempotency-key': randomUUID() }, body: { handle: customer.handle, ...body } });
      const tooLong = await out({ amount: 50, code: '1'.repeat(40) });
      assert.equal(tooLong.status, 400);
      const emptyCode = await out({ amount: 50, code: '' });
      assert.equal(emptyCode.status, 400);
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 5_000, 'nothing moved');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('counts wrong codes in the wallet\'s PIN lock-out, expires codes, and lets her cancel one', async () => {
      const s = server();
      const desk = await agent(s, { fund: 100 });
      const customer = await holder(s, { fund: 300, pin: '2580', prefix: 'baraka' });
      const make = async (amount: number) => {
        const made = await s.request<Code>('POST', '/api/wallet/cash-out-codes', { headers: customer.headers, body: { amount, walletPin: '2580' } });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        return made.body;
      };
      const out = (body: Record<string, unknown>) => s.request<Cash & Refusal>('POST', '/api/agent/cash-out', { headers: { ...desk.headers, 'idempotency-key': randomUUID() }, body: { handle: customer.handle, ...body } });

      const code = await make(20);
      const wrong = code.code === '0000 0000' ? '1111 1111' : '0000 0000';
      for (let attempt = 0; attempt < 5; attempt += 1) assert.equal((await out({ amount: 20, code: wrong })).body.code, 'wrong_cash_out_code');
      const locked = await out({ amount: 20, code: code.code });
      assert.deepEqual([locked.status, locked.body.code], [429, 'pin_attempts_exceeded'], 'five wrong codes lock the wallet like five wrong PINs');
      const pinToo = await out({ amount: 20, walletPin: '2580' });
      assert.equal(pinToo.status, 429, 'the PIN is locked too');
      clock.advance(16 * 60_000);
      const paid = await out({ amount: 20, code: code.code });
      assert.equal(paid.status, 201, 'after the lock-out the right code works');

      const late = await make(10);
      clock.advance(31 * 60_000);
      const expired = await out({ amount: 10, code: late.code });
      assert.deepEqual([expired.status, expired.body.code], [410, 'cash_out_code_expired']);
      const listed = (await s.request<{ data: Code[] }>('GET', '/api/wallet/cash-out-codes?limit=1', { headers: customer.headers })).body.data[0]!;
      assert.equal(listed.status, 'expired');

      clock.advance(1_000);
      const unwanted = await make(15);
      const cancelled = await s.request<Code>('POST', `/api/wallet/cash-out-codes/${unwanted.id}/cancel`, { headers: customer.headers });
      assert.deepEqual([cancelled.status, cancelled.body.status], [200, 'cancelled']);
      const twice = await s.request<Code>('POST', `/api/wallet/cash-out-codes/${unwanted.id}/cancel`, { headers: customer.headers });
      assert.deepEqual([twice.status, twice.body.status], [200, 'cancelled']);
      assert.equal((await out({ amount: 15, code: unwanted.code })).body.code, 'wrong_cash_out_code');
      const stranger = await holder(s, { prefix: 'stranger' });
      const foreign = await s.request<Refusal>('POST', `/api/wallet/cash-out-codes/${unwanted.id}/cancel`, { headers: stranger.headers });
      assert.deepEqual([foreign.status, foreign.body.code], [404, 'cash_out_code_not_found']);
      for (const amount of [0, -1, 1.234]) {
        const bad = await s.request<Refusal>('POST', '/api/wallet/cash-out-codes', { headers: customer.headers, body: { amount, walletPin: '2580' } });
        assert.equal(bad.status, 400, `amount ${amount}`);
      }
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 28_000, 'only the one paid code moved money');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('pays the agent its commission from the platform\'s fees, in the operation\'s one transfer', async () => {
      const s = server();
      const desk = await agent(s, { fund: 500 });
      const customer = await holder(s, { fund: 100, pin: '2580', prefix: 'imani' });
      const feesBefore = await systemBalance(s, 'fees', 'NGN');
      const cashIn = await s.request<Cash>('POST', '/api/agent/cash-in', { headers: { ...desk.headers, 'idempotency-key': randomUUID() }, body: { handle: customer.handle, amount: 100 } });
      assert.equal(cashIn.status, 201, JSON.stringify(cashIn.body));
      assert.deepEqual([cashIn.body.amount, cashIn.body.commission, cashIn.body.floatBalance], [100, 1, 401], 'the float gives 100 and gets 1 back');
      const cashOut = await s.request<Cash>('POST', '/api/agent/cash-out', { headers: { ...desk.headers, 'idempotency-key': randomUUID() }, body: { handle: customer.handle, amount: 50, walletPin: '2580' } });
      assert.deepEqual([cashOut.status, cashOut.body.commission, cashOut.body.floatBalance], [201, 0.25, 451.25]);
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 15_000, 'the customer gets and gives the amounts, no more');
      assert.equal((await systemBalance(s, 'fees', 'NGN')) - feesBefore, -125, 'the platform paid 1.25 in commissions');
      const transfers = await s.db.query<{ n: number }>("SELECT count(*)::int AS n FROM ledger_transfers WHERE id = ANY ($1::text[])", [[`agent_cash:${cashIn.body.id}`, `agent_cash:${cashOut.body.id}`]]);
      assert.equal(Number(transfers[0]!.n), 2, 'one transfer per operation');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
