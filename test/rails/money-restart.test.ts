// test-lane: waiting (scripts/run-tests.mjs: mostly waits on restarts, held requests and expiries)
// Exactly once across a SIGKILL for the newest money paths (docs/agents.md "Funding and settling the
// float", docs/wallet-money.md "Top-ups by bank transfer"), with the real server as a child process on
// both databases, as restart.test.ts and collection-restart.test.ts do for merchant payouts and till
// collections:
//
// 1. An agent's float settlement (a payment of kind agent_settlement, an M-Pesa B2C payout): the
//    server dies while Daraja holds the payout request. After the restart the scheduler asks what
//    became of it before it would send it again: one payout at the fake, the float debited
//    amount + fee once, the settlement completed, and the retry with the Idempotency-Key answers it.
// 2. An agent's float top-up (a collection of purpose agent_float_top_up, an M-Pesa Express STK
//    push): the server dies while Daraja holds the push, before any confirmation is recorded. The
//    retry with the key answers the same top-up (the phone is never asked twice); the callback that
//    comes after the restart credits the float once.
// 3. A bank transfer into a wallet's Paystack dedicated virtual account: charge.success (channel
//    dedicated_nuban) arrives, the server dies while it waits for GET /transaction/verify, and the
//    webhook comes again after the restart (Paystack retries what was not acknowledged), twice: the
//    wallet is credited once.
//
// 4. A wallet holder's withdrawal (a payment of kind withdrawal, an M-Pesa B2C payout), killed as
//    in 1: one payout at the fake, her wallet debited amount + fee once.
//
// Each ends with the ledger check, read with the server stopped.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { ADMIN, balanceMinor, databaseTargets, uniqueHandle, until } from '@tapline/sync-server/testing';
import { type ServerProcess, serverProcess } from '../e2e/server-process.ts';
import { COLLECTION_SCENARIOS, SCENARIOS as MPESA_PAYOUTS, startMpesaFake } from '../fakes/mpesa/index.ts';
import { type PaystackFake, startPaystackFake } from '../fakes/paystack/index.ts';

/** The fakes' holds: 30 s × this (6 s) for a held B2C payout. */
const DELAY_SCALE = 0.2;

/** Restarts under load are slow: a 240 s ceiling. */
const waitFor = <T>(what: string, probe: () => Promise<T | undefined>, everyMs = 100) => until(what, probe, 240_000, everyMs);

type Settlement = { id: string; status: string; amount: number; fee: number; total: number; provider: string; code?: string };
type Withdrawal = { id: string; status: string; amount: number; fee: number; total: number };
type TopUp = { id: string; status: string; amount: number; fee: number; total: number; provider: string; code?: string };

/** A live Kenyan agent with `fund` shillings in its float, signed in. */
async function kenyanAgent(server: ServerProcess, fund: number) {
  const handle = uniqueHandle('agrs');
  const created = await server.request<{ agentId: string; secret: string }>('POST', '/api/admin/agents', { headers: ADMIN, body: { name: 'Duka Agent', handle, country: 'KE', currency: 'KES', mode: 'live' } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  if (fund > 0) {
    const credited = await server.request('POST', `/api/admin/wallets/${handle}/credit`, { headers: ADMIN, body: { amount: fund, currency: 'KES', mode: 'live' } });
    assert.equal(credited.status, 200, JSON.stringify(credited.body));
  }
  const session = await server.request<{ token: string }>('POST', '/api/agent/sessions', { body: { agentId: created.body.agentId, secret: created.body.secret } });
  assert.equal(session.status, 201, JSON.stringify(session.body));
  return { handle, agentId: created.body.agentId, secret: created.body.secret, headers: { authorization: `Bearer agent.${session.body.token}` } };
}

/**
 * Sends a request again until it is answered: right after a restart, a key the dead process had
 * claimed answers 409 idempotency_in_progress until its owner is known to be gone.
 */
async function retried<T>(server: ServerProcess, method: string, path: string, options: { headers: Record<string, string>; body?: unknown }, status: number) {
  return waitFor(`${method} ${path} to answer ${status} after the restart`, async () => {
    const answer = await server.request<T & { code?: string }>(method, path, options);
    if (answer.status === status) return answer;
    assert.deepEqual([answer.status, answer.body?.code], [409, 'idempotency_in_progress'], JSON.stringify(answer.body));
    return undefined;
  }, 1000);
}

/** With the server stopped (one process at a time on an embedded database): what the ledger and tables say. */
async function readStopped<T>(server: ServerProcess, read: (db: Awaited<ReturnType<ServerProcess['openDatabase']>>) => Promise<T>): Promise<T & { violations: unknown[] }> {
  assert.equal(await server.stop('SIGTERM'), 0);
  const db = await server.openDatabase();
  try {
    return { ...(await read(db)), violations: (await checkLedger(db)).violations };
  } finally {
    await db.close();
  }
}

for (const target of await databaseTargets()) {
  describe(`a crash while Daraja holds an agent's float settlement, on ${target.name}`, () => {
    let server: ServerProcess;
    let fake: Awaited<ReturnType<typeof startMpesaFake>> | undefined;
    before(async () => {
      server = await serverProcess(target, (baseUrl) => ({
        ...fake?.env,
        PUBLIC_BASE_URL: baseUrl,
        RAIL_ROUTES: 'mobile_money:KE=mpesa',
        // As restart.test.ts: a 1 s request timeout makes a payout claim's lease 10 s, so the restarted scheduler takes over soon.
        RAIL_TIMEOUT_MS: '1000',
        RAIL_POLL_MS: '1000',
        SCHEDULER_POLL_MS: '200',
        AGENT_SETTLEMENT_FEE_PCT: '1',
      }));
      fake = await startMpesaFake({ callbackBase: server.baseUrl, delayScale: DELAY_SCALE });
      await server.start();
    });
    after(async () => {
      await server?.dispose();
      await fake?.stop();
    });

    it('pays the settlement out once, debits the float once and ends completed; the retry with the key answers the same settlement', async () => {
      const desk = await kenyanAgent(server, 2000);
      const account = await server.request('PUT', `/api/admin/agents/${desk.agentId}/settlement-account`, {
        headers: ADMIN,
        body: { type: 'mobile_money', country: 'KE', phone: MPESA_PAYOUTS.no_answer.phone, operator: 'M-Pesa', accountName: 'Duka Ltd' },
      });
      assert.equal(account.status, 200, JSON.stringify(account.body));
      const b2c = () => fake!.requests().filter((request) => request.method === 'POST' && request.path === '/mpesa/b2c/v3/paymentrequest').length;
      const ask = { headers: { ...desk.headers, 'idempotency-key': randomUUID() }, body: { amount: 500, secret: desk.secret } };
      const first = server.request<Settlement>('POST', '/api/agent/float/settlements', ask).then(
        (response) => response,
        () => undefined,
      );
      // Killed while Daraja holds the B2C request: no answer is recorded.
      await waitFor('Daraja to receive the payout', async () => (b2c() > 0 ? true : undefined));
      await server.stop('SIGKILL');
      const firstAnswer = await first;
      await server.start();
      const again = await retried<Settlement>(server, 'POST', '/api/agent/float/settlements', ask, 201);
      if (firstAnswer) assert.equal(again.body.id, firstAnswer.body.id, 'the retry answers the first settlement');
      assert.deepEqual([again.body.provider, again.body.amount, again.body.fee, again.body.total], ['mpesa', 500, 5, 505]);
      const done = await waitFor('the settlement to be final', async () => {
        const now = await server.request<Settlement>('GET', `/api/agent/float/settlements/${again.body.id}`, { headers: desk.headers });
        assert.equal(now.status, 200, JSON.stringify(now.body));
        assert.ok(['pending', 'processing', 'completed'].includes(now.body.status), JSON.stringify(now.body));
        return now.body.status === 'completed' ? now.body : undefined;
      }, 1000);
      assert.equal(done.id, again.body.id);
      const listed = await server.request<{ data: Settlement[]; total: number }>('GET', '/api/agent/float/settlements', { headers: desk.headers });
      assert.deepEqual([listed.body.total, listed.body.data[0]?.id], [1, again.body.id], 'one settlement');
      assert.deepEqual([...fake!.payouts().map((payout) => payout.times)], [1], 'one payout at Daraja, paid once');
      assert.equal(b2c(), 1, 'never sent again after the restart');

      const stopped = await readStopped(server, async (db) => ({
        float: await balanceMinor({ db }, desk.handle, 'KES', 'live'),
        transfers: (await db.query<{ id: string }>('SELECT id FROM ledger_transfers WHERE id LIKE $1 ORDER BY id', [`${again.body.id}:%`])).map((row) => row.id),
        notes: (await db.query<{ kind: string }>("SELECT kind FROM wallet_notifications WHERE kind LIKE 'agent.float.%' AND wallet_id = (SELECT id FROM wallets WHERE handle = $1 AND mode = 'live')", [desk.handle])).map((row) => row.kind),
      }));
      assert.equal(stopped.float, 200_000 - 50_500, 'amount + fee debited once, nothing given back');
      assert.equal(stopped.transfers.filter((id) => /debit/.test(id)).length, 1, JSON.stringify(stopped.transfers));
      assert.ok(!stopped.transfers.some((id) => /refund|revers/.test(id)), JSON.stringify(stopped.transfers));
      assert.deepEqual(stopped.notes, ['agent.float.settlement.paid']);
      assert.deepEqual(stopped.violations, []);
      await server.start();
    });

    it('a wallet holder\'s withdrawal: paid out once, her wallet debited amount + fee once, completed; the retry with the key answers the same withdrawal', async () => {
      const handle = uniqueHandle('wdrs');
      await server.createWallet({ handle, pin: '2468', currency: 'KES', country: 'KE', mode: 'live' });
      const credited = await server.request('POST', `/api/admin/wallets/${handle}/credit`, { headers: ADMIN, body: { amount: 2000, currency: 'KES', mode: 'live' } });
      assert.equal(credited.status, 200, JSON.stringify(credited.body));
      const session = await server.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468', mode: 'live' } });
      assert.equal(session.status, 201, JSON.stringify(session.body));
      const auth = { authorization: `Bearer wallet.${session.body.token}` };
      const b2c = () => fake!.requests().filter((request) => request.method === 'POST' && request.path === '/mpesa/b2c/v3/paymentrequest').length;
      const sentBefore = b2c();
      const payoutsBefore = fake!.payouts().length;
      const ask = {
        headers: { ...auth, 'idempotency-key': randomUUID() },
        body: { amount: 500, currency: 'KES', walletPin: '2468', destination: { type: 'mobile_wallet', phone: MPESA_PAYOUTS.no_answer.phone, provider: 'M-Pesa' } },
      };
      const first = server.request<Withdrawal>('POST', '/api/wallet/withdrawals', ask).then(
        (response) => response,
        () => undefined,
      );
      // Killed while Daraja holds the B2C request: no answer is recorded.
      await waitFor('Daraja to receive the withdrawal', async () => (b2c() > sentBefore ? true : undefined));
      await server.stop('SIGKILL');
      const firstAnswer = await first;
      await server.start();
      // Her session is in the database: it outlives the process.
      const again = await retried<Withdrawal>(server, 'POST', '/api/wallet/withdrawals', ask, 201);
      if (firstAnswer) assert.equal(again.body.id, firstAnswer.body.id, 'the retry answers the first withdrawal');
      const done = await waitFor('the withdrawal to be final', async () => {
        const now = await server.request<Withdrawal>('GET', `/api/wallet/withdrawals/${again.body.id}`, { headers: auth });
        assert.equal(now.status, 200, JSON.stringify(now.body));
        assert.ok(['pending', 'processing', 'completed'].includes(now.body.status), JSON.stringify(now.body));
        return now.body.status === 'completed' ? now.body : undefined;
      }, 1000);
      const listed = await server.request<{ data: Withdrawal[]; total: number }>('GET', '/api/wallet/withdrawals', { headers: auth });
      assert.deepEqual([listed.body.total, listed.body.data[0]?.id], [1, done.id], 'one withdrawal');
      assert.deepEqual(fake!.payouts().slice(payoutsBefore).map((payout) => payout.times), [1], 'one payout at Daraja, paid once');
      assert.equal(b2c() - sentBefore, 1, 'never sent again after the restart');

      const stopped = await readStopped(server, async (db) => ({ balance: await balanceMinor({ db }, handle, 'KES', 'live') }));
      assert.equal(stopped.balance, 200_000 - Math.round(done.total * 100), 'amount + fee debited once, nothing given back');
      assert.equal(done.total, done.amount + done.fee);
      assert.deepEqual(stopped.violations, []);
      await server.start();
    });
  });

  describe(`a crash while Daraja holds an agent's float top-up push, on ${target.name}`, () => {
    let server: ServerProcess;
    let fake: Awaited<ReturnType<typeof startMpesaFake>> | undefined;
    before(async () => {
      server = await serverProcess(target, (baseUrl) => ({
        ...fake?.env,
        PUBLIC_BASE_URL: baseUrl,
        RAIL_ROUTES: 'mobile_money:KE=mpesa',
        // The default request timeout (20 s): the server is still waiting for the held push when it is killed.
        RAIL_TIMEOUT_MS: '20000',
        COLLECTION_POLL_MS: '1000',
        COLLECTION_TIMEOUT_SECONDS: '120',
        AGENT_FLOAT_TOP_UP_FEE_PCT: '2',
      }));
      // The push is held until the test releases it, after the restart: the agent then approves and Daraja calls back once.
      fake = await startMpesaFake({ callbackBase: server.baseUrl, delayScale: DELAY_SCALE, holdMs: 600_000 });
      await server.start();
    });
    after(async () => {
      await server?.dispose();
      await fake?.stop();
    });

    it('asks the phone once and credits the float once when Daraja confirms after the restart', async () => {
      const desk = await kenyanAgent(server, 0);
      const pushes = () => fake!.requests().filter((request) => request.method === 'POST' && request.path === '/mpesa/stkpush/v1/processrequest').length;
      const phone = COLLECTION_SCENARIOS.push_held.phone;
      const ask = { headers: { ...desk.headers, 'idempotency-key': randomUUID() }, body: { amount: 1000, currency: 'KES', phone } };
      const first = server.request<TopUp>('POST', '/api/agent/float/top-ups', ask).then(
        (response) => response,
        () => undefined,
      );
      await waitFor('Daraja to hold the push', async () => (pushes() > 0 ? true : undefined));
      await server.stop('SIGKILL');
      assert.equal(await first, undefined, 'no answer: the server died while Daraja held the push');
      await server.start();
      // The agent's app repeats the request with its key after the restart: the same top-up, no second push.
      const again = await retried<TopUp>(server, 'POST', '/api/agent/float/top-ups', ask, 201);
      assert.deepEqual([again.body.provider, again.body.amount, again.body.fee, again.body.total], ['mpesa', 1000, 20, 1020]);
      fake!.releaseHeld();
      const done = await waitFor('the top-up to end', async () => {
        const now = await server.request<TopUp>('GET', `/api/agent/float/top-ups/${again.body.id}`, { headers: desk.headers });
        assert.equal(now.status, 200, JSON.stringify(now.body));
        return now.body.status === 'pending' ? undefined : now.body;
      }, 1000);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(pushes(), 1, 'the phone was asked once');
      const charged = fake!.collections().filter((record) => record.phone === phone.replace(/^\+/, '') && record.state === 'completed');
      assert.deepEqual(charged.map((record) => record.amount), [1020], 'the agent paid amount + fee once');
      // Asked again: the first answer replayed (the same top-up), no push.
      const repeat = await server.request<TopUp>('POST', '/api/agent/float/top-ups', ask);
      assert.deepEqual([repeat.status, repeat.body.id, repeat.headers.get('idempotent-replayed')], [201, again.body.id, 'true'], 'asked again: the same top-up');
      assert.equal(pushes(), 1);

      const stopped = await readStopped(server, async (db) => ({
        float: await balanceMinor({ db }, desk.handle, 'KES', 'live'),
        transfers: (await db.query<{ id: string; kind: string }>('SELECT id, kind FROM ledger_transfers WHERE id LIKE $1', [`%${again.body.id}%`])).map((row) => [row.id, row.kind]),
        collections: Number((await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pos_collections WHERE purpose = 'agent_float_top_up' AND merchant_wallet_id = (SELECT id FROM wallets WHERE handle = $1 AND mode = 'live')", [desk.handle]))[0]?.n),
      }));
      assert.equal(stopped.float, 100_000, 'credited the amount once');
      assert.deepEqual(stopped.transfers, [[`collection:${again.body.id}`, 'agent_float_top_up']]);
      assert.equal(stopped.collections, 1);
      assert.deepEqual(stopped.violations, []);
      await server.start();
    });
  });

  describe(`a crash while a Paystack virtual-account credit waits for verify, on ${target.name}`, () => {
    let server: ServerProcess;
    let fake: PaystackFake | undefined;
    before(async () => {
      server = await serverProcess(target, (baseUrl) => ({
        ...fake?.env,
        PUBLIC_BASE_URL: baseUrl,
        // Long enough that the server still waits for the held verify when it is killed.
        RAIL_TIMEOUT_MS: '20000',
      }));
      fake = await startPaystackFake({ callbackBase: `${server.baseUrl}/api/rails/paystack/webhook`, delayScale: DELAY_SCALE });
      await server.start();
    });
    after(async () => {
      await server?.dispose();
      await fake?.stop();
    });

    it('credits the wallet once when charge.success comes again after the restart, however often', async () => {
      const handle = uniqueHandle('dvars');
      await server.createWallet({ handle, pin: '2468', currency: 'NGN', country: 'NG', mode: 'live' });
      const session = await server.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468', mode: 'live' } });
      assert.equal(session.status, 201, JSON.stringify(session.body));
      const auth = { authorization: `Bearer wallet.${session.body.token}` };
      const opened = await server.request<{ accountNumber: string }>('POST', '/api/wallet/virtual-account', { headers: auth, body: {} });
      assert.equal(opened.status, 201, JSON.stringify(opened.body));

      fake!.holdBankTransferVerify(true);
      const verifies = fake!.bankTransferVerifies();
      // The bank pays in; Paystack posts charge.success; the server asks verify, which is held.
      const sending = fake!.sendBankTransfer(opened.body.accountNumber, 250_000, { senderName: 'ADA OBI' });
      await waitFor('the server to ask verify', async () => (fake!.bankTransferVerifies() > verifies ? true : undefined));
      await server.stop('SIGKILL');
      const sent = await sending;
      assert.deepEqual(fake!.webhooks().filter((webhook) => webhook.reference === sent.reference).map((webhook) => webhook.answered), [undefined], 'the first delivery got no answer');
      // The dead process's verify is answered now, to no one.
      fake!.holdBankTransferVerify(false);
      await server.start();

      // Paystack retries the unacknowledged event; then once more, as if the acknowledgement was lost.
      const retry = await fake!.resendWebhook(sent.reference);
      assert.equal(retry.answered, 200);
      const retryAgain = await fake!.resendWebhook(sent.reference);
      assert.equal(retryAgain.answered, 200);
      assert.equal(retry.body, fake!.webhooks().find((webhook) => webhook.reference === sent.reference)!.body, 'the same bytes as the first delivery');
      const listed = await server.request<{ data: { received: number; amount: number; providerReference: string }[]; total: number }>('GET', '/api/wallet/bank-transfers', { headers: auth });
      assert.deepEqual(listed.body.data.map((row) => [row.received, row.amount, row.providerReference]), [[2500, 2500, sent.reference]], 'one transfer credited');

      const stopped = await readStopped(server, async (db) => ({
        balance: await balanceMinor({ db }, handle, 'NGN', 'live'),
        credits: Number((await db.query<{ n: number }>("SELECT count(*)::int AS n FROM ledger_transfers WHERE kind = 'wallet_bank_transfer' AND metadata->>'providerReference' = $1", [sent.reference]))[0]?.n),
        rows: Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM wallet_bank_transfers WHERE provider_reference = $1', [sent.reference]))[0]?.n),
      }));
      assert.equal(stopped.balance, 250_000, 'credited once');
      assert.deepEqual([stopped.credits, stopped.rows], [1, 1]);
      assert.deepEqual(stopped.violations, []);
      await server.start();
    });
  });
}
