import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { agent, holder } from '../../testing/gift-cards.ts';
import { balanceMinor } from '../../testing/ledger.ts';
import { useTestServer } from '../../testing/server.ts';
import { checkLedger } from '../../ledger/check.ts';

type Cash = { id: string; kind: string; handle: string; amount: number; currency: string; transferId: string; floatBalance?: number };
type Refusal = { code: string; error: string };

for (const target of await databaseTargets()) {
  describe(`an agent's cash desk on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20 });

    it('cashes in from the agent\'s float once per Idempotency-Key, and refuses what the float does not cover', async () => {
      const s = server();
      const desk = await agent(s, { fund: 500 });
      const customer = await holder(s, { prefix: 'amina' });
      const key = randomUUID();
      const send = (body: Record<string, unknown>, idempotencyKey = key) => s.request<Cash & Refusal>('POST', '/api/agent/cash-in', { headers: { ...desk.headers, 'idempotency-key': idempotencyKey }, body });
      const first = await send({ handle: customer.handle, amount: 120.5 });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.deepEqual([first.body.kind, first.body.handle, first.body.amount, first.body.currency, first.body.floatBalance], ['cash_in', `@${customer.handle}`, 120.5, 'NGN', 379.5]);
      const retried = await send({ handle: customer.handle, amount: 120.5 });
      assert.deepEqual([retried.status, retried.body.id], [201, first.body.id], 'a retry answers the first cash-in');
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 12_050, 'credited once');
      assert.equal(await balanceMinor(s, desk.handle, 'NGN'), 37_950);

      const tooMuch = await send({ handle: customer.handle, amount: 400 }, randomUUID());
      assert.deepEqual([tooMuch.status, tooMuch.body.code], [422, 'insufficient_funds']);
      const self = await send({ handle: desk.handle, amount: 1 }, randomUUID());
      assert.deepEqual([self.status, self.body.code], [400, 'cannot_pay_self']);
      const nobody = await send({ handle: 'no_such_person', amount: 1 }, randomUUID());
      assert.deepEqual([nobody.status, nobody.body.code], [404, 'wallet_not_found']);
      for (const amount of [0, -5, 1.234, 'ten']) {
        const bad = await send({ handle: customer.handle, amount }, randomUUID());
        assert.equal(bad.status, 400, `amount ${String(amount)}: ${JSON.stringify(bad.body)}`);
        assert.equal(typeof bad.body.code, 'string');
      }
      const noKey = await s.request('POST', '/api/agent/cash-in', { body: { handle: customer.handle, amount: 1 } });
      assert.equal(noKey.status, 401, 'an agent session is needed');

      const listed = await s.request<{ data: Cash[]; total: number }>('GET', '/api/agent/cash-transactions', { headers: desk.headers });
      assert.deepEqual([listed.body.total, listed.body.data.map((row) => [row.kind, row.amount])], [1, [['cash_in', 120.5]]]);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('cashes out only with the customer\'s PIN, once, never below zero, and locks after five wrong PINs', async () => {
      const s = server();
      const desk = await agent(s, { fund: 10 });
      const customer = await holder(s, { fund: 300, prefix: 'kofi', pin: '2580' });
      const out = (body: Record<string, unknown>, key = randomUUID()) => s.request<Cash & Refusal>('POST', '/api/agent/cash-out', { headers: { ...desk.headers, 'idempotency-key': key }, body });

      const noPin = await s.request<Refusal>('POST', '/api/agent/cash-out', { headers: desk.headers, body: { handle: customer.handle, amount: 50 } });
      assert.equal(noPin.status, 400, 'no PIN, no cash-out');
      const key = randomUUID();
      const wrong = await out({ handle: customer.handle, amount: 50, walletPin: '0000' }, key);
      assert.deepEqual([wrong.status, wrong.body.code], [403, 'wrong_pin']);
      // The same key with the right PIN runs afresh: a refused PIN is not replayed.
      const paid = await out({ handle: customer.handle, amount: 50, walletPin: '2580' }, key);
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      assert.deepEqual([paid.body.kind, paid.body.amount, paid.body.floatBalance], ['cash_out', 50, 60]);
      const replay = await out({ handle: customer.handle, amount: 50, walletPin: '2580' }, key);
      assert.deepEqual([replay.status, replay.body.id], [201, paid.body.id]);
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 25_000, 'paid out once');
      assert.equal(await balanceMinor(s, desk.handle, 'NGN'), 6_000);
      const overdraw = await out({ handle: customer.handle, amount: 251, walletPin: '2580' });
      assert.deepEqual([overdraw.status, overdraw.body.code], [422, 'insufficient_funds']);

      for (let attempt = 0; attempt < 5; attempt += 1) assert.equal((await out({ handle: customer.handle, amount: 1, walletPin: '1111' })).status, 403);
      const locked = await out({ handle: customer.handle, amount: 1, walletPin: '2580' });
      assert.deepEqual([locked.status, locked.body.code], [429, 'pin_attempts_exceeded'], 'the wallet refuses PINs for a while, even the right one');
      assert.equal(await balanceMinor(s, customer.handle, 'NGN'), 25_000);
      const listed = await s.request<{ data: Cash[]; total: number }>('GET', '/api/agent/cash-transactions?limit=5', { headers: desk.headers });
      assert.deepEqual(listed.body.data.map((row) => [row.kind, row.amount]), [['cash_out', 50]]);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
