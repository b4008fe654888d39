// Wallet top-ups by bank transfer, live through the Flutterwave fake (virtual account numbers), over
// real HTTP on both databases, with Flutterwave the only provider configured: a live NGN wallet gets
// a permanent account number (POST /v3/virtual-account-numbers with its BVN, under a tx_ref fixed per
// wallet and currency), the fake "sends a bank transfer" into it and posts charge.completed
// (payment_type bank_transfer) with `verif-hash` to /api/rails/flutterwave/webhook, and the server
// credits the wallet once, after GET /v3/transactions/{id}/verify: a duplicate webhook, one whose
// body claims another amount, one verify cannot confirm yet (503, delivered again), a lost one found
// by a requery (resend-hook), forged ones (refused and counted) and one into an account that is no
// wallet's here (acknowledged, logged, counted) credit nothing more.
// Run: NODE_ENV=test TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx --test test/rails/flutterwave-virtual-accounts.test.ts
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { accountIdOf, accountKeyOf, virtualAccountEmail } from '@tapline/sync-server/rails/flutterwave/index.ts';
import { ADMIN, ManualClock, type TestServer, balanceMinor, databaseTargets, freePort, systemBalance, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';
import { type FlutterwaveFake, startFlutterwaveFake } from '../fakes/flutterwave/index.ts';
import { type PaystackFake, startPaystackFake } from '../fakes/paystack/index.ts';
import { until } from './until.ts';

type Account = { id: string; currency: string; provider: string; bankName: string; accountNumber: string; accountName: string; feePercent: string; fee: string; code?: string };
type BankTransfer = { id: string; received: number; fee: number; amount: number; providerReference: string; accountNumber: string; senderName?: string; senderBank?: string; beyondLimit: boolean };

const BVN = '12345678901';

/** tapline_rail_callbacks_total{provider="flutterwave",verdict=...} now. */
async function callbackCount(s: TestServer, verdict: string): Promise<number> {
  const metrics = await s.request<string>('GET', '/metrics', { headers: ADMIN });
  const line = String(metrics.body).split('\n').find((text) => text.startsWith(`tapline_rail_callbacks_total{provider="flutterwave",verdict="${verdict}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('a virtual account number\'s tx_ref: fixed per wallet and currency, reversible, never a payout\'s or a charge\'s', () => {
  it('maps and reads back', () => {
    assert.equal(accountKeyOf('wal_Ab3', 'NGN'), 'tplv_wal_-ab3-0-n-g-n');
    assert.deepEqual(accountIdOf('tplv_wal_-ab3-0-n-g-n'), { walletId: 'wal_Ab3', currency: 'NGN' });
    for (const notOurs of ['tpl_wal_-ab3', 'tplc_col_-ab3', 'tplv_wal_ab3', 'URF_1613406439309_370935', 'tplv_x-q']) assert.equal(accountIdOf(notOurs), undefined, notOurs);
    assert.equal(virtualAccountEmail('wal_Ab3', 'NGN'), 'tplv_wal_-ab3-0-n-g-n@wallets.invalid');
  });
});

for (const target of await databaseTargets()) {
  describe(`WALLET_VIRTUAL_ACCOUNT_PROVIDER chooses Flutterwave over Paystack, both configured, on ${target.name}`, async () => {
    const port = await freePort();
    const env: Record<string, string> = {};
    let flutterwave: FlutterwaveFake;
    let paystack: PaystackFake;
    before(async () => {
      flutterwave = await startFlutterwaveFake({ callbackBase: `http://127.0.0.1:${port}/api/rails/flutterwave/webhook`, delayScale: 0.05 });
      paystack = await startPaystackFake({ callbackBase: `http://127.0.0.1:${port}/api/rails/paystack/webhook`, delayScale: 0.05 });
      Object.assign(env, flutterwave.env, paystack.env);
    });
    after(async () => {
      await flutterwave.stop();
      await paystack.stop();
    });
    const server = useTestServer(target, { port, env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, RAIL_TIMEOUT_MS: '2000', WALLET_VIRTUAL_ACCOUNT_PROVIDER: 'flutterwave' }, app: { providerEnv: env } });

    it('an NGN wallet\'s account is a Flutterwave one (Paystack, first by default, is not asked)', async () => {
      const s = server();
      const handle = uniqueHandle('flvap');
      await s.createWallet({ handle, pin: '2468', currency: 'NGN', country: 'NG', mode: 'live' });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468', mode: 'live' } });
      const opened = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: { authorization: `Bearer wallet.${session.body.token}` }, body: { bvn: BVN } });
      assert.deepEqual([opened.status, opened.body.provider, opened.body.bankName], [201, 'flutterwave', 'WEMA BANK'], JSON.stringify(opened.body));
      assert.equal(flutterwave.virtualAccounts().length, 1);
      assert.equal(paystack.virtualAccounts().length, 0);
    });
  });


  describe(`wallet top-ups by bank transfer: live through the Flutterwave fake (virtual account numbers) on ${target.name}`, async () => {
    const port = await freePort();
    const publicBaseUrl = `http://127.0.0.1:${port}`;
    const webhookUrl = `${publicBaseUrl}/api/rails/flutterwave/webhook`;
    const env: Record<string, string> = {};
    let fake: FlutterwaveFake;
    before(async () => {
      fake = await startFlutterwaveFake({ callbackBase: webhookUrl, delayScale: 0.05 });
      Object.assign(env, fake.env);
    });
    after(async () => fake.stop());
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, { port, now: clock.now, env: { PUBLIC_BASE_URL: publicBaseUrl, RAIL_TIMEOUT_MS: '2000', WALLET_BANK_TRANSFER_FEE_PCT: '1' }, app: { providerEnv: env } });

    /** A live NGN wallet in Nigeria and its session's Authorization header. */
    const holderSession = async (s: TestServer, handle = uniqueHandle('flva')) => {
      await s.createWallet({ handle, pin: '2468', currency: 'NGN', country: 'NG', mode: 'live' });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468', mode: 'live' } });
      assert.equal(session.status, 201, JSON.stringify(session.body));
      return { authorization: `Bearer wallet.${session.body.token}` };
    };
    /** The same, with her account made. */
    const holder = async (s: TestServer) => {
      const handle = uniqueHandle('flva');
      const auth = await holderSession(s, handle);
      const opened = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: auth, body: { bvn: BVN } });
      assert.equal(opened.status, 201, JSON.stringify(opened.body));
      return { handle, auth, account: opened.body };
    };
    const walletIdOf = async (s: TestServer, handle: string) => (await s.db.query<{ id: string }>('SELECT id FROM wallets WHERE handle = $1', [handle]))[0]!.id;
    const transfersOf = async (s: TestServer, auth: Record<string, string>) => (await s.request<{ data: BankTransfer[]; total: number }>('GET', '/api/wallet/bank-transfers', { headers: auth })).body;
    const post = (body: unknown, hash: string | undefined) =>
      fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...(hash === undefined ? {} : { 'verif-hash': hash }) }, body: JSON.stringify(body) });

    it('opens one permanent NGN account number per wallet (the same on every call, found again after a lost row), asking for the BVN, fee stated up front', async () => {
      const s = server();
      const handle = uniqueHandle('flva');
      const auth = await holderSession(s, handle);
      const walletId = await walletIdOf(s, handle);
      const noBvn = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: auth, body: {} });
      assert.deepEqual([noBvn.status, noBvn.body.code], [422, 'bvn_required']);
      const badBvn = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: auth, body: { bvn: '1234' } });
      assert.equal(badBvn.status, 400);
      assert.equal(fake.virtualAccountRequests().length, 0, 'nothing asked of Flutterwave without a BVN');

      const opened = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: auth, body: { bvn: BVN } });
      assert.equal(opened.status, 201, JSON.stringify(opened.body));
      const account = opened.body;
      assert.deepEqual([account.provider, account.currency, account.bankName, account.accountName, account.feePercent], ['flutterwave', 'NGN', 'WEMA BANK', handle, '1']);
      assert.match(account.accountNumber, /^\d{10}$/);
      assert.equal(account.fee, 'A fee of 1% of each transfer is kept: NGN 1000 sent adds NGN 990.');
      // The wire: the SDK's accountSchema fields only, the tx_ref and e-mail fixed per wallet and currency.
      assert.deepEqual(fake.virtualAccountRequests().at(-1), { email: virtualAccountEmail(walletId, 'NGN'), is_permanent: true, bvn: BVN, tx_ref: accountKeyOf(walletId, 'NGN'), narration: handle });
      assert.match(virtualAccountEmail(walletId, 'NGN'), /^tplv_.+@wallets\.invalid$/);

      const again = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: auth, body: { currency: 'NGN' } });
      assert.deepEqual([again.status, again.body.id, again.body.accountNumber], [200, account.id, account.accountNumber]);
      const listed = await s.request<{ data: Account[] }>('GET', '/api/wallet/virtual-accounts', { headers: auth });
      assert.deepEqual(listed.body.data.map((row) => row.accountNumber), [account.accountNumber]);
      // A crash after Flutterwave answered (the row lost): the same tx_ref asks again and gets the same account, never a second.
      await s.db.query('DELETE FROM wallet_virtual_accounts WHERE id = $1', [account.id]);
      const remade = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: auth, body: { bvn: BVN } });
      assert.deepEqual([remade.status, remade.body.accountNumber], [201, account.accountNumber]);
      const made = fake.virtualAccounts().filter((row) => row.txRef === accountKeyOf(walletId, 'NGN'));
      assert.deepEqual(made.map((row) => [row.accountNumber, row.timesAsked]), [[account.accountNumber, 2]], 'one account at Flutterwave');
      // Two first requests at once (two taps): one account, both answered with it.
      const other = await holderSession(s);
      const both = await Promise.all([0, 1].map(() => s.request<Account>('POST', '/api/wallet/virtual-account', { headers: other, body: { bvn: BVN } })));
      assert.deepEqual(both.map((answer) => answer.status).sort(), [200, 201], JSON.stringify(both.map((answer) => answer.body)));
      assert.equal(both[0]!.body.accountNumber, both[1]!.body.accountNumber);
      assert.equal(fake.virtualAccounts().filter((row) => row.accountNumber === both[0]!.body.accountNumber).length, 1);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('credits a transfer once on charge.completed confirmed by verify (from rail_clearing:flutterwave, the fee to fees); a duplicate webhook changes nothing', async () => {
      const s = server();
      const { handle, auth, account } = await holder(s);
      const clearing = await systemBalance(s, 'rail_clearing:flutterwave', 'NGN', 'live');
      const fees = await systemBalance(s, 'fees', 'NGN', 'live');
      const unchangedBefore = await callbackCount(s, 'bank_transfer_unchanged');
      const sent = await fake.sendBankTransfer(account.accountNumber, 2500, { senderName: 'JOHN DOE', duplicateWebhook: true });
      assert.deepEqual(sent.deliveries, [200, 200]);
      assert.equal(await balanceMinor(s, handle, 'NGN', 'live'), 247_500, 'credited once: 2500 - 1% fee');
      assert.equal(await systemBalance(s, 'rail_clearing:flutterwave', 'NGN', 'live'), clearing - 250_000);
      assert.equal(await systemBalance(s, 'fees', 'NGN', 'live'), fees + 2_500);
      assert.equal(await callbackCount(s, 'bank_transfer_unchanged'), unchangedBefore + 1, 'the duplicate was heard and changed nothing');
      const list = await transfersOf(s, auth);
      assert.deepEqual(
        list.data.map((row) => [row.received, row.fee, row.amount, row.providerReference, row.accountNumber, row.senderName, row.senderBank, row.beyondLimit]),
        [[2500, 25, 2475, String(sent.id), account.accountNumber, 'JOHN DOE', 'Access Bank', false]],
      );
      const notes = await s.request<{ data: { kind: string; body: string }[] }>('GET', '/api/wallet/notifications?limit=100', { headers: auth });
      assert.deepEqual(notes.body.data.map((note) => note.kind), ['wallet.top_up.completed']);
      assert.equal(notes.body.data[0]!.body, 'NGN 2475 from a bank transfer by JOHN DOE is in your wallet (NGN 2500 sent, NGN 25 fee).');
      assert.ok(fake.requests().includes(`GET /v3/transactions/${sent.id}/verify`));
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a webhook claiming another amount than verify credits verify\'s amount, once; a forged webhook (wrong or no verif-hash) is refused and counted', async () => {
      const s = server();
      const { handle, auth, account } = await holder(s);
      const sent = await fake.sendBankTransfer(account.accountNumber, 1000, { webhookAmount: 900_000 });
      assert.deepEqual(sent.deliveries, [200]);
      assert.equal(await balanceMinor(s, handle, 'NGN', 'live'), 99_000, 'verify said NGN 1000: 1000 - 1%');
      // The same event again, raised further, with the genuine hash: verify's amount was credited, nothing more.
      const body = { event: 'charge.completed', data: { id: sent.id, tx_ref: sent.txRef, amount: 5_000_000, currency: 'NGN', status: 'successful', payment_type: 'bank_transfer' } };
      assert.equal((await post(body, env.FLUTTERWAVE_SECRET_HASH)).status, 200);
      const refused = await callbackCount(s, 'refused');
      assert.equal((await post(body, `${env.FLUTTERWAVE_SECRET_HASH}x`)).status, 401);
      assert.equal((await post(body, undefined)).status, 401);
      // A transaction Flutterwave never made, with the genuine hash: refused too.
      assert.equal((await post({ ...body, data: { ...body.data, id: 999_999_999 } }, env.FLUTTERWAVE_SECRET_HASH)).status, 401);
      assert.equal(await callbackCount(s, 'refused'), refused + 3);
      assert.equal(await balanceMinor(s, handle, 'NGN', 'live'), 99_000);
      assert.deepEqual((await transfersOf(s, auth)).data.map((row) => [row.received, row.amount]), [[1000, 990]]);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('verify failing answers 503 so Flutterwave delivers again; the redelivery is credited once', async () => {
      const s = server();
      const { handle, auth, account } = await holder(s);
      const sent = await fake.sendBankTransfer(account.accountNumber, 300, { verifyFailures: 1 });
      assert.deepEqual(sent.deliveries, [503, 200], 'not acknowledged until verify answered');
      assert.equal(await balanceMinor(s, handle, 'NGN', 'live'), 29_700);
      assert.equal((await transfersOf(s, auth)).total, 1);
      // Verify failing on every try: nothing credited, every delivery answered 503.
      const never = await fake.sendBankTransfer(account.accountNumber, 400, { verifyFailures: 10 });
      assert.deepEqual(never.deliveries, [503, 503, 503]);
      assert.equal(await balanceMinor(s, handle, 'NGN', 'live'), 29_700);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a lost webhook is found by a requery (the day\'s transactions, then resend-hook); a second requery changes nothing', async () => {
      const s = server();
      const { handle, auth, account } = await holder(s);
      const lost = await fake.sendBankTransfer(account.accountNumber, 1500, { lostWebhook: true });
      assert.equal(await balanceMinor(s, handle, 'NGN', 'live'), 0, 'nothing heard, nothing credited');
      const requery = await s.request<Account>('POST', '/api/wallet/virtual-account/requery', { headers: auth, body: {} });
      assert.equal(requery.status, 200, JSON.stringify(requery.body));
      await until('the resent webhook', async () => ((await transfersOf(s, auth)).total === 1 ? true : undefined));
      assert.equal(await balanceMinor(s, handle, 'NGN', 'live'), 148_500);
      assert.ok(fake.requests().includes(`POST /v3/transactions/${lost.id}/resend-hook`));
      assert.equal((await s.request('POST', '/api/wallet/virtual-account/requery', { headers: auth, body: {} })).status, 200);
      await until('the webhook sent again', async () => ((fake.bankTransfer(lost.id)?.deliveries ?? []).length === 2 ? true : undefined));
      assert.deepEqual(fake.bankTransfer(lost.id)!.deliveries, [200, 200]);
      assert.equal(await balanceMinor(s, handle, 'NGN', 'live'), 148_500, 'still once');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a transfer into an account that is no wallet\'s here is acknowledged, logged and counted, and kept once for an operator; nothing is credited', async () => {
      const s = server();
      // An account made at Flutterwave under one of our tx_refs for a wallet this server does not hold.
      const made = await fetch(`${env.FLUTTERWAVE_BASE_URL}/v3/virtual-account-numbers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.FLUTTERWAVE_SECRET_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: virtualAccountEmail('wal_gone', 'NGN'), is_permanent: true, bvn: BVN, tx_ref: accountKeyOf('wal_gone', 'NGN'), narration: 'Nobody Here' }),
      });
      const { data } = (await made.json()) as { data: { account_number: string } };
      const unknown = await callbackCount(s, 'bank_transfer_unknown_account');
      const clearing = await systemBalance(s, 'rail_clearing:flutterwave', 'NGN', 'live');
      const sent = await fake.sendBankTransfer(data.account_number, 700);
      assert.deepEqual(sent.deliveries, [200], 'acknowledged: Flutterwave stops sending it');
      assert.equal(await callbackCount(s, 'bank_transfer_unknown_account'), unknown + 1);
      assert.equal(await systemBalance(s, 'rail_clearing:flutterwave', 'NGN', 'live'), clearing, 'nothing moved');
      assert.equal((await s.db.query('SELECT id FROM wallet_bank_transfers WHERE provider = $1 AND provider_reference = $2', ['flutterwave', String(sent.id)])).length, 0);
      // Kept for an operator, once: Flutterwave's verified record names the account by its tx_ref only (no number).
      const kept = async () => s.db.query<{ account_reference: string; account_number: string | null; amount: number; status: string; reason: string; mode: string }>(
        'SELECT account_reference, account_number, amount::int8 AS amount, status, reason, mode FROM unmatched_bank_transfers WHERE provider = $1 AND provider_reference = $2',
        ['flutterwave', String(sent.id)],
      );
      const row = (await kept()).map((r) => ({ ...r, amount: Number(r.amount) }));
      assert.deepEqual(row, [{ account_reference: accountKeyOf('wal_gone', 'NGN'), account_number: null, amount: 70_000, status: 'open', reason: 'unknown_account', mode: 'live' }]);
      const again = await s.request('POST', `/api/rails/flutterwave/webhook`, {
        headers: { 'verif-hash': env.FLUTTERWAVE_SECRET_HASH! },
        body: { event: 'charge.completed', data: { id: sent.id, tx_ref: accountKeyOf('wal_gone', 'NGN'), amount: 700, currency: 'NGN', status: 'successful', payment_type: 'bank_transfer' } },
      });
      assert.equal(again.status, 200);
      assert.equal((await kept()).length, 1, 'a duplicate webhook keeps nothing more');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a webhook whose data.id is not a number Flutterwave could have made, or is missing, is refused (401 callback_refused), never a 500, and moves nothing', async () => {
      const s = server();
      const { handle, account } = await holder(s);
      const walletId = await walletIdOf(s, handle);
      const clearing = await systemBalance(s, 'rail_clearing:flutterwave', 'NGN', 'live');
      const refused = await callbackCount(s, 'refused');
      const base = { tx_ref: accountKeyOf(walletId, 'NGN'), amount: 5000, currency: 'NGN', status: 'successful', payment_type: 'bank_transfer', account_number: account.accountNumber };
      const ids: unknown[] = ['abc', '12a', '', ' ', '-5', '1.5', 1.5, -7, null, true, { id: 1 }, [1], '1'.repeat(21)];
      const bodies = [{ event: 'charge.completed', data: base }, ...ids.map((id) => ({ event: 'charge.completed', data: { ...base, id } }))];
      for (const body of bodies) {
        const answer = await s.request<{ error: string; code: string }>('POST', '/api/rails/flutterwave/webhook', { headers: { 'verif-hash': env.FLUTTERWAVE_SECRET_HASH! }, body });
        assert.deepEqual([answer.status, answer.body.code], [401, 'callback_refused'], JSON.stringify(body.data));
        assert.ok(answer.body.error.length > 0);
      }
      assert.equal(await callbackCount(s, 'refused'), refused + bodies.length, 'each counted as refused');
      assert.equal(await systemBalance(s, 'rail_clearing:flutterwave', 'NGN', 'live'), clearing, 'nothing moved');
      assert.equal(await balanceMinor(s, handle, 'NGN', 'live'), 0);
      assert.equal((await s.db.query("SELECT id FROM unmatched_bank_transfers WHERE provider = 'flutterwave' AND account_number = $1", [account.accountNumber])).length, 0, 'nothing kept either');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a malformed bvn is a 400 validation_failed with a clear message, never a 500, and Flutterwave is not asked', async () => {
      const s = server();
      const auth = await holderSession(s);
      const asked = fake.virtualAccountRequests().length;
      for (const bvn of ['123', 'abcdefghijk', '123456789012', ' 12345678901 ', 12345678901, '', null, '1234567890\n']) {
        const answer = await s.request<{ error: string; code: string }>('POST', '/api/wallet/virtual-account', { headers: auth, body: { bvn } });
        assert.deepEqual([answer.status, answer.body.code], [400, 'validation_failed'], `${JSON.stringify(bvn)}: ${JSON.stringify(answer.body)}`);
        assert.match(answer.body.error, /bvn/i, 'the message names the field');
      }
      assert.equal(fake.virtualAccountRequests().length, asked, 'nothing asked of Flutterwave');
      assert.deepEqual((await s.request<{ data: unknown[] }>('GET', '/api/wallet/virtual-accounts', { headers: auth })).body.data, []);
    });

    it('a wallet in a currency Flutterwave makes no accounts in (KES) gets 422 virtual_account_unavailable', async () => {
      const s = server();
      const handle = uniqueHandle('flvake');
      await s.createWallet({ handle, pin: '2468', currency: 'KES', country: 'KE', mode: 'live' });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468', mode: 'live' } });
      const answer = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: { authorization: `Bearer wallet.${session.body.token}` }, body: { bvn: BVN } });
      assert.deepEqual([answer.status, answer.body.code], [422, 'virtual_account_unavailable']);
    });
  });
}
