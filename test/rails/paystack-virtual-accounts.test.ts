// Wallet top-ups by bank transfer, live through the Paystack fake, over real HTTP on both databases:
// a live NGN wallet gets a Paystack dedicated virtual account (POST /customer, the list, POST
// /dedicated_account with the first available provider), the fake "sends a bank transfer" into it
// and posts its signed charge.success (channel dedicated_nuban) to /api/rails/paystack/webhook, and
// the server credits the wallet once, after GET /transaction/verify: a duplicate webhook, a lost one
// found by a requery, a requery that sends it again, a forged one and one whose body lies about the
// amount change nothing more. The traffic is held against Paystack's OpenAPI document.
// Run: NODE_ENV=test TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx --test test/rails/paystack-virtual-accounts.test.ts
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { ADMIN, ManualClock, type TestServer, balanceMinor, databaseTargets, freePort, systemBalance, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';
import { checkRequest, checkResponse, checkWebhook, explains, openApi, type Problem } from '../fakes/paystack/contract.ts';
import { type PaystackFake, startPaystackFake } from '../fakes/paystack/index.ts';
import { DVA_KNOWN_MISMATCHES, KNOWN_MISMATCHES } from '../fakes/paystack/known-mismatches.ts';
import { until } from './until.ts';

type Account = { id: string; currency: string; provider: string; bankName: string; accountNumber: string; accountName: string; feePercent: string; fee: string; code?: string };
type BankTransfer = { id: string; received: number; fee: number; amount: number; providerReference: string; senderName?: string; beyondLimit: boolean };

for (const target of await databaseTargets()) {
  describe(`wallet top-ups by bank transfer: live through the Paystack fake (dedicated virtual accounts) on ${target.name}`, async () => {
    const port = await freePort();
    const publicBaseUrl = `http://127.0.0.1:${port}`;
    const webhookUrl = `${publicBaseUrl}/api/rails/paystack/webhook`;
    const env: Record<string, string> = {};
    let fake: PaystackFake;
    before(async () => {
      fake = await startPaystackFake({ callbackBase: webhookUrl, delayScale: 0.05 });
      Object.assign(env, fake.env);
    });
    after(async () => fake.stop());
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, { port, now: clock.now, env: { PUBLIC_BASE_URL: publicBaseUrl, RAIL_TIMEOUT_MS: '2000', WALLET_BANK_TRANSFER_FEE_PCT: '1' }, app: { providerEnv: env } });

    /** A live NGN wallet in Nigeria and its session's Authorization header. */
    const holderSession = async (s: TestServer, handle = uniqueHandle('dva')) => {
      await s.createWallet({ handle, pin: '2468', currency: 'NGN', country: 'NG', mode: 'live' });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468', mode: 'live' } });
      assert.equal(session.status, 201, JSON.stringify(session.body));
      return { authorization: `Bearer wallet.${session.body.token}` };
    };
    /** The same, with her account made. */
    const holder = async (s: TestServer) => {
      const handle = uniqueHandle('dva');
      const auth = await holderSession(s, handle);
      const opened = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: auth, body: {} });
      assert.equal(opened.status, 201, JSON.stringify(opened.body));
      return { handle, auth, account: opened.body };
    };
    const transfersOf = async (s: TestServer, auth: Record<string, string>) => (await s.request<{ data: BankTransfer[]; total: number }>('GET', '/api/wallet/bank-transfers', { headers: auth })).body;
    const post = (body: string, signature: string) => fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-paystack-signature': signature }, body });
    const sign = (body: string) => createHmac('sha512', fake.secretKey).update(body).digest('hex');

    it('makes the wallet one Paystack dedicated virtual account (the same on every call), fee stated up front', async () => {
      const s = server();
      const { auth, account } = await holder(s);
      assert.deepEqual([account.provider, account.currency, account.bankName, account.feePercent], ['paystack', 'NGN', 'Access Bank', '1']);
      assert.match(account.accountNumber, /^\d{10}$/);
      assert.match(account.accountName, /^TAPLINE\//);
      assert.equal(account.fee, 'A fee of 1% of each transfer is kept: NGN 1000 sent adds NGN 990.');
      const again = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: auth, body: { currency: 'NGN' } });
      assert.deepEqual([again.status, again.body.id, again.body.accountNumber], [200, account.id, account.accountNumber]);
      const made = fake.virtualAccounts().filter((made) => made.accountNumber === account.accountNumber);
      assert.equal(made.length, 1, 'one account at Paystack');
      assert.match(made[0]!.customerEmail, /@wallets\.invalid$/);
      // A second server losing the row (a crash after Paystack answered) finds the same account, never a second.
      await s.db.query('DELETE FROM wallet_virtual_accounts WHERE id = $1', [account.id]);
      const remade = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: auth, body: {} });
      assert.deepEqual([remade.status, remade.body.accountNumber], [201, account.accountNumber]);
      // Two first requests at once (two taps): one account at Paystack, both answered with it.
      const other = await holderSession(s);
      const both = await Promise.all([0, 1].map(() => s.request<Account>('POST', '/api/wallet/virtual-account', { headers: other, body: {} })));
      assert.deepEqual(both.map((answer) => answer.status).sort(), [200, 201], JSON.stringify(both.map((answer) => answer.body)));
      assert.equal(both[0]!.body.accountNumber, both[1]!.body.accountNumber);
      assert.equal(fake.virtualAccounts().filter((made) => made.accountNumber === both[0]!.body.accountNumber).length, 1);
      assert.equal(fake.virtualAccounts().filter((made) => made.accountNumber === account.accountNumber).length, 1, 'still one account at Paystack');
    });

    it('credits a bank transfer once on the signed charge.success confirmed by verify (from rail_clearing:paystack, the fee to fees); a duplicate webhook changes nothing', async () => {
      const s = server();
      const { handle, auth, account } = await holder(s);
      const clearing = await systemBalance(s, 'rail_clearing:paystack', 'NGN', 'live');
      const fees = await systemBalance(s, 'fees', 'NGN', 'live');
      const sent = await fake.sendBankTransfer(account.accountNumber, 250_000, { senderName: 'ADA OBI', duplicateWebhook: true });
      const webhooks = fake.webhooks().filter((webhook) => webhook.reference === sent.reference);
      assert.deepEqual(webhooks.map((webhook) => webhook.answered), [200, 200]);
      assert.equal(await balanceMinor(s, handle, 'NGN', 'live'), 247_500, 'credited once: 2500 - 1% fee');
      assert.equal(await systemBalance(s, 'rail_clearing:paystack', 'NGN', 'live'), clearing - 250_000);
      assert.equal(await systemBalance(s, 'fees', 'NGN', 'live'), fees + 2_500);
      const list = await transfersOf(s, auth);
      assert.deepEqual(list.data.map((row) => [row.received, row.fee, row.amount, row.providerReference, row.senderName, row.beyondLimit]), [[2500, 25, 2475, sent.reference, 'ADA OBI', false]]);
      const notes = await s.request<{ data: { kind: string; body: string }[] }>('GET', '/api/wallet/notifications?limit=100', { headers: auth });
      assert.deepEqual(notes.body.data.map((note) => note.kind), ['wallet.top_up.completed']);
      assert.equal(notes.body.data[0]!.body, 'NGN 2475 from a bank transfer by ADA OBI is in your wallet (NGN 2500 sent, NGN 25 fee).');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a lost webhook is found by a requery (GET /dedicated_account/requery); a requery that sends it again, a forged webhook and one whose body lies change nothing', async () => {
      const s = server();
      const { handle, auth, account } = await holder(s);
      const lost = await fake.sendBankTransfer(account.accountNumber, 100_000, { lostWebhook: true });
      assert.equal(await balanceMinor(s, handle, 'NGN', 'live'), 0, 'nothing heard, nothing credited');
      const requery = await s.request<Account>('POST', '/api/wallet/virtual-account/requery', { headers: auth, body: {} });
      assert.equal(requery.status, 200, JSON.stringify(requery.body));
      await until('the requeried webhook', async () => ((await transfersOf(s, auth)).total === 1 ? true : undefined));
      assert.equal(await balanceMinor(s, handle, 'NGN', 'live'), 99_000);
      const sentBefore = fake.webhooks().length;
      assert.equal((await s.request('POST', '/api/wallet/virtual-account/requery', { headers: auth, body: {} })).status, 200);
      await until('the webhook sent again', async () => (fake.webhooks().slice(sentBefore).some((webhook) => webhook.reference === lost.reference && webhook.answered === 200) ? true : undefined));
      assert.equal(await balanceMinor(s, handle, 'NGN', 'live'), 99_000, 'still once');

      // The same event with its amount raised and signed by whoever holds the key: the verified amount was credited, nothing more.
      const original = JSON.parse(fake.webhooks().find((webhook) => webhook.reference === lost.reference)!.body) as { data: Record<string, unknown> };
      const inflated = JSON.stringify({ ...original, data: { ...original.data, amount: 99_999_900 } });
      assert.equal((await post(inflated, sign(inflated))).status, 200);
      // Forged (wrong signature) and a reference Paystack never made: refused, nothing credited.
      assert.equal((await post(inflated, sign(`${inflated} `))).status, 401);
      const unknown = JSON.stringify({ ...original, data: { ...original.data, reference: 'neverheardof123' } });
      assert.equal((await post(unknown, sign(unknown))).status, 401);
      assert.equal(await balanceMinor(s, handle, 'NGN', 'live'), 99_000);
      assert.equal((await transfersOf(s, auth)).total, 1);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a transfer into an account that is no wallet\'s here is kept once (however often its webhook comes), assigned by the operator to a wallet through the matched path (fee, beyond_limit, notification); one whose account comes back is credited by its next webhook', async () => {
      const s = server();
      const { handle, auth, account } = await holder(s);
      // Our row of the account is lost (the account lives on at Paystack): transfers into it are no wallet's here.
      await s.db.query('DELETE FROM wallet_virtual_accounts WHERE id = $1', [account.id]);
      // The wallet the operator will find the first one was meant for; it is past her tier (kobo: the fake's unit).
      const other = uniqueHandle('dvaother');
      const otherAuth = await holderSession(s, other);
      const [{ id: otherWallet }] = await s.db.query<{ id: string }>('SELECT id FROM wallets WHERE handle = $1 AND mode = $2', [other, 'live']) as [{ id: string }];
      const tier = await s.request<{ remaining: { in: number } }>('GET', '/api/wallet/tier', { headers: otherAuth });
      const big = (tier.body.remaining.in + 1000) * 100;
      const clearing = await systemBalance(s, 'rail_clearing:paystack', 'NGN', 'live');
      const first = await fake.sendBankTransfer(account.accountNumber, big, { senderName: 'EMEKA NWOSU', duplicateWebhook: true });
      const second = await fake.sendBankTransfer(account.accountNumber, 1_000, { senderName: 'NGOZI ADE' });
      assert.deepEqual(fake.webhooks().filter((webhook) => [first.reference, second.reference].includes(webhook.reference)).map((webhook) => webhook.answered), [200, 200, 200], 'acknowledged: Paystack stops sending them');
      assert.equal(await systemBalance(s, 'rail_clearing:paystack', 'NGN', 'live'), clearing, 'nothing in our books');
      type Unmatched = { id: string; status: string; reason: string; mode: string; providerReference: string; accountNumber: string; amount: number; senderName: string; walletId: string | null; bankTransferId: string | null; resolvedBy: string | null };
      const open = await s.request<{ data: Unmatched[] }>('GET', '/api/admin/bank-transfers/unmatched?status=open&limit=100', { headers: ADMIN });
      const kept = open.body.data.filter((row) => [first.reference, second.reference].includes(row.providerReference));
      assert.deepEqual(kept.map((row) => [row.providerReference, row.status, row.reason, row.mode, row.accountNumber, row.amount, row.senderName]).sort(), [
        [first.reference, 'open', 'unknown_account', 'live', account.accountNumber, big / 100, 'EMEKA NWOSU'],
        [second.reference, 'open', 'unknown_account', 'live', account.accountNumber, 10, 'NGOZI ADE'],
      ].sort());

      // The operator assigns the first to another live wallet (the sender meant her): past her tier, so flagged beyond_limit.
      const firstRow = kept.find((row) => row.providerReference === first.reference)!;
      const assigned = await s.request<Unmatched>('POST', `/api/admin/bank-transfers/unmatched/${firstRow.id}/assign`, { headers: ADMIN, body: { walletId: otherWallet } });
      assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
      assert.deepEqual([assigned.body.status, assigned.body.walletId, assigned.body.resolvedBy], ['assigned', otherWallet, 'admin']);
      const fee = big / 100; // 1% of what was sent, in kobo
      assert.equal(await balanceMinor(s, other, 'NGN', 'live'), big - fee, 'what was sent less the 1% fee');
      assert.equal(await systemBalance(s, 'rail_clearing:paystack', 'NGN', 'live'), clearing - big);
      const credited = await transfersOf(s, otherAuth);
      assert.deepEqual(credited.data.map((row) => [row.providerReference, row.amount, row.beyondLimit]), [[first.reference, (big - fee) / 100, true]]);
      const notes = await s.request<{ data: { kind: string; body: string }[] }>('GET', '/api/wallet/notifications?limit=100', { headers: otherAuth });
      assert.deepEqual(notes.body.data.map((note) => note.kind), ['wallet.top_up.completed']);
      assert.match(notes.body.data[0]!.body, /^NGN \d+(\.\d+)? from a bank transfer by EMEKA NWOSU is in your wallet/);
      const twice = await s.request<{ code: string }>('POST', `/api/admin/bank-transfers/unmatched/${firstRow.id}/assign`, { headers: ADMIN, body: { walletId: otherWallet } });
      assert.deepEqual([twice.status, twice.body.code], [409, 'unmatched_transfer_resolved']);

      // The holder's account is made again (the same number at Paystack) and a requery sends both webhooks again:
      // the assigned one changes nothing, the open one is credited to her as a matched transfer and leaves the open list.
      const remade = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: auth, body: {} });
      assert.deepEqual([remade.status, remade.body.accountNumber], [201, account.accountNumber]);
      assert.equal((await s.request('POST', '/api/wallet/virtual-account/requery', { headers: auth, body: {} })).status, 200);
      await until('the requeried webhooks', async () => ((await transfersOf(s, auth)).total === 1 ? true : undefined));
      assert.equal(await balanceMinor(s, handle, 'NGN', 'live'), 990, 'NGN 10 less the 1% fee');
      assert.equal(await balanceMinor(s, other, 'NGN', 'live'), big - fee, 'the assigned one not again');
      const resolved = await s.request<{ data: Unmatched[] }>('GET', '/api/admin/bank-transfers/unmatched?status=assigned&limit=100', { headers: ADMIN });
      const secondRow = resolved.body.data.find((row) => row.providerReference === second.reference);
      assert.deepEqual([secondRow?.status, secondRow?.resolvedBy, secondRow?.bankTransferId], ['assigned', 'matched', (await transfersOf(s, auth)).data[0]!.id]);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a wallet in a currency no provider makes accounts in (KES) gets 422 virtual_account_unavailable', async () => {
      const s = server();
      const handle = uniqueHandle('dvake');
      await s.createWallet({ handle, pin: '2468', currency: 'KES', country: 'KE', mode: 'live' });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468', mode: 'live' } });
      const answer = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: { authorization: `Bearer wallet.${session.body.token}` }, body: {} });
      assert.deepEqual([answer.status, answer.body.code], [422, 'virtual_account_unavailable']);
      const sandbox = await s.request<Account>('POST', '/api/wallet/virtual-account/sandbox-transfer', { headers: { authorization: `Bearer wallet.${session.body.token}` }, body: { amount: 10 } });
      assert.deepEqual([sandbox.status, sandbox.body.code], [422, 'sandbox_only']);
    });

    it('bad input: another currency than the wallet\'s is a 400, a currency the integration does not make a 422; a verified transfer of 0 is acknowledged and credits nothing', async () => {
      const s = server();
      const { handle, auth, account } = await holder(s);
      for (const [currency, status, code] of [['GHS', 400, 'currency_not_accepted'], ['USD', 400, 'currency_not_accepted'], ['XYZ', 400, 'currency_not_accepted'], ['NG', 400, 'validation_failed'], ['', 400, 'validation_failed']] as const) {
        const answer = await s.request<Account & { error?: string }>('POST', '/api/wallet/virtual-account', { headers: auth, body: { currency } });
        assert.deepEqual([answer.status, answer.body.code], [status, code], `${JSON.stringify(currency)}: ${JSON.stringify(answer.body)}`);
        assert.ok((answer.body.error ?? '').length > 0);
      }
      // A Ghanaian wallet: Paystack's create names no currency, this (Nigerian) integration makes NGN accounts, so none is the wallet's.
      const ghana = uniqueHandle('dvagh');
      await s.createWallet({ handle: ghana, pin: '2468', currency: 'GHS', country: 'GH', mode: 'live' });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle: ghana, pin: '2468', mode: 'live' } });
      const ghs = await s.request<Account>('POST', '/api/wallet/virtual-account', { headers: { authorization: `Bearer wallet.${session.body.token}` }, body: {} });
      assert.deepEqual([ghs.status, ghs.body.code], [422, 'virtual_account_unavailable'], JSON.stringify(ghs.body));
      const kept = await s.db.query('SELECT id FROM wallet_virtual_accounts WHERE wallet_id = (SELECT id FROM wallets WHERE handle = $1 AND mode = $2)', [ghana, 'live']);
      assert.deepEqual(kept, [], 'no account recorded for the GHS wallet');

      const ignored = async () => Number(/tapline_rail_callbacks_total\{provider="paystack",verdict="ignored"\} (\d+)/.exec(String((await s.request<string>('GET', '/metrics', { headers: ADMIN })).body))?.[1] ?? 0);
      const ignoredBefore = await ignored();
      const clearing = await systemBalance(s, 'rail_clearing:paystack', 'NGN', 'live');
      const nothing = await fake.sendBankTransfer(account.accountNumber, 0, { duplicateWebhook: true });
      assert.deepEqual(fake.webhooks().filter((webhook) => webhook.reference === nothing.reference).map((webhook) => webhook.answered), [200, 200], 'acknowledged: Paystack stops sending it');
      assert.equal(await ignored(), ignoredBefore + 2, 'counted as ignored');
      assert.equal(await balanceMinor(s, handle, 'NGN', 'live'), 0, 'nothing credited');
      assert.equal(await systemBalance(s, 'rail_clearing:paystack', 'NGN', 'live'), clearing);
      assert.equal((await transfersOf(s, auth)).total, 0);
      const notes = await s.request<{ data: unknown[] }>('GET', '/api/wallet/notifications?limit=100', { headers: auth });
      assert.deepEqual(notes.body.data, []);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('the contract check: every request to Paystack, every answer and webhook of the fake, matches openapi.yaml but for the reviewed known mismatches', () => {
      const doc = openApi();
      const exchanges = fake.exchanges();
      for (const path of ['/customer', '/dedicated_account', '/dedicated_account/available_providers', '/dedicated_account/requery']) assert.ok(exchanges.some((e) => e.pathname === path), path);
      const problems: Problem[] = [];
      for (const exchange of exchanges) problems.push(...checkRequest(doc, exchange), ...checkResponse(doc, exchange));
      for (const webhook of fake.webhooks()) problems.push(...checkWebhook(doc, JSON.parse(webhook.body)));
      const known = [...KNOWN_MISMATCHES, ...DVA_KNOWN_MISMATCHES];
      const unexplained = problems.filter((problem) => !known.some((mismatch) => explains(mismatch, problem)));
      assert.deepEqual([...new Set(unexplained.map((p) => `${p.where} | ${p.path} | ${p.keyword} | ${p.message}`))], []);
      const unused = DVA_KNOWN_MISMATCHES.filter((mismatch) => !problems.some((problem) => explains(mismatch, problem)));
      assert.deepEqual(unused, [], 'known mismatches nothing needed: remove them');
    });
  });
}
