// The daily reconciliation reads Paystack's (GET /transaction) and Flutterwave's (GET /v3/transactions)
// lists of the day's transactions, per provider (its local fake, two transactions a page so every
// list spans pages) on both databases over real HTTP:
//   - a clean day stays clean: the till collections all found in the list (read whole, page by
//     page, none asked about by key), and a bank transfer into a wallet's virtual account, credited
//     by its webhook, is no collection mismatch and is not read back again;
//   - a bank transfer into a virtual account whose webhook the fake dropped is credited by the
//     reconciliation run, exactly once: a re-run and the webhook delivered afterwards change nothing;
//   - a charge the provider took under a reference of our collection scheme that we never stored,
//     and one we show expired that the provider took, are provider_only collection mismatches.
//
// The fakes date their records by the real clock and Tapline by the injected one, which starts at
// the real time: a suite started within 15 minutes of midnight UTC is skipped.
// Run: NODE_ENV=test TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx --test test/rails/reconciliation-lists.test.ts
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { toMajor } from '@tapline/shared/money';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { chargeKeyOf as flutterwaveTxRef } from '@tapline/sync-server/rails/flutterwave/index.ts';
import { chargeKeyOf as paystackReference } from '@tapline/sync-server/rails/paystack/index.ts';
import { ADMIN, ManualClock, balanceMinor, databaseTargets, freePort, systemBalance, useTestServer } from '@tapline/sync-server/testing';
import { CHARGE_SCENARIOS as FLUTTERWAVE_CHARGES, startFlutterwaveFake } from '../fakes/flutterwave/index.ts';
import { CHARGE_SCENARIOS as PAYSTACK_CHARGES, startPaystackFake } from '../fakes/paystack/index.ts';
import { holderSignIn, liveHolder } from './live-holder.ts';
import { collectUntil, liveTill } from './live-till.ts';
import { until } from './until.ts';
import type { Reconciliation } from './reconciliation-types.ts';

const DELAY_SCALE = 0.05;
const PAGE = 2;
const DAY_MS = 24 * 3_600_000;
const HOUR_MS = 3_600_000;
const untilMidnight = DAY_MS - (Date.now() % DAY_MS);
const skip = untilMidnight < 15 * 60_000 ? 'within 15 minutes of midnight UTC: the fakes and the server could date the transactions on different days' : false;


/** What the test asks of a provider's fake, in its own words. */
interface ListingFake {
  env: Record<string, string>;
  /** How many list pages, and collection look-ups by key, it has answered so far. */
  counts(): { listPages: number; collectionLookups: number; bankTransferVerifies: number };
  /** The provider takes a charge under `reference` from a paying phone, made at it directly (we never stored it); its provider reference once paid. */
  chargeDirectly(collectionId: string, amountMinor: number): Promise<string>;
  /** A bank transfer into the account (NGN minor units); `lostWebhook`: the fake never delivers its webhook. The reference it is credited under. */
  sendBankTransfer(accountNumber: string, amountMinor: number, lostWebhook: boolean): Promise<string>;
  /** Delivers the transfer's webhook now (as a requery or a redelivery would), and waits until the server acknowledged it. */
  deliverWebhook(accountNumber: string, reference: string): Promise<void>;
  stop(): Promise<void>;
}

interface Lister {
  name: 'paystack' | 'flutterwave';
  country: string;
  currency: string;
  amountMinor: number;
  phones: { pays: string; declines: string };
  /** What opening a virtual account needs (Flutterwave: the holder's BVN). */
  accountBody: Record<string, string>;
  start(webhookUrl: string): Promise<ListingFake>;
}

/** Waits until `check` holds (until() waits for a value other than undefined). */
const waitFor = (what: string, check: () => boolean | Promise<boolean>) => until(what, async () => ((await check()) ? true : undefined));

const bearer = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

const LISTERS: readonly Lister[] = [
  {
    name: 'paystack',
    country: 'KE',
    currency: 'KES',
    amountMinor: 25_000,
    phones: { pays: PAYSTACK_CHARGES.success.ke, declines: PAYSTACK_CHARGES.declined.ke },
    accountBody: {},
    async start(webhookUrl) {
      const fake = await startPaystackFake({ callbackBase: webhookUrl, delayScale: DELAY_SCALE, listPageSize: PAGE });
      const exchanges = () => fake.exchanges();
      return {
        env: fake.env,
        counts: () => ({
          listPages: exchanges().filter((e) => e.pathname === '/transaction').length,
          collectionLookups: exchanges().filter((e) => e.pathname.startsWith('/transaction/verify/') && e.pathname.includes('.')).length,
          bankTransferVerifies: fake.bankTransferVerifies(),
        }),
        async chargeDirectly(collectionId, amountMinor) {
          const reference = paystackReference(collectionId);
          const answer = await fetch(`${fake.url}/charge`, {
            method: 'POST',
            headers: bearer(fake.secretKey),
            body: JSON.stringify({ email: 'payer@example.com', amount: amountMinor, currency: 'KES', reference, mobile_money: { phone: PAYSTACK_CHARGES.success.ke.replace('+', ''), provider: 'mpesa' } }),
          });
          assert.equal(answer.status, 200, await answer.text());
          await waitFor(`the charge ${reference} paid`, () => fake.charges().some((charge) => charge.reference === reference && charge.status === 'success'));
          return reference;
        },
        async sendBankTransfer(accountNumber, amountMinor, lostWebhook) {
          return (await fake.sendBankTransfer(accountNumber, amountMinor, { lostWebhook })).reference;
        },
        async deliverWebhook(accountNumber, reference) {
          // Paystack's requery sends the charge.success of every transfer into the account again.
          const acknowledged = () => fake.webhooks().filter((webhook) => webhook.reference === reference && webhook.answered === 200).length;
          const before = acknowledged();
          const answer = await fetch(`${fake.url}/dedicated_account/requery?account_number=${accountNumber}`, { headers: bearer(fake.secretKey) });
          assert.equal(answer.status, 200, await answer.text());
          await waitFor(`the webhook of ${reference} acknowledged`, () => acknowledged() > before);
        },
        stop: () => fake.stop(),
      };
    },
  },
  {
    name: 'flutterwave',
    country: 'UG',
    currency: 'UGX',
    amountMinor: 5_000,
    phones: { pays: FLUTTERWAVE_CHARGES.success, declines: FLUTTERWAVE_CHARGES.declined },
    accountBody: { bvn: '12345678901' },
    async start(webhookUrl) {
      const fake = await startFlutterwaveFake({ callbackBase: webhookUrl, delayScale: DELAY_SCALE, listPageSize: PAGE });
      const key = fake.env.FLUTTERWAVE_SECRET_KEY;
      const requests = () => fake.requests();
      return {
        env: fake.env,
        counts: () => ({
          listPages: requests().filter((request) => request === 'GET /v3/transactions').length,
          collectionLookups: requests().filter((request) => request === 'GET /v3/transactions/verify_by_reference').length,
          bankTransferVerifies: requests().filter((request) => /^GET \/v3\/transactions\/\d+\/verify$/.test(request)).length,
        }),
        async chargeDirectly(collectionId, amountMinor) {
          const txRef = flutterwaveTxRef(collectionId);
          // UGX has no minor unit: the amount is the same in major units.
          const answer = await fetch(`${fake.url}/v3/charges?type=mobile_money_uganda`, {
            method: 'POST',
            headers: bearer(key),
            body: JSON.stringify({ tx_ref: txRef, amount: amountMinor, currency: 'UGX', email: 'payer@example.com', phone_number: FLUTTERWAVE_CHARGES.success.replace('+', ''), network: 'MTN' }),
          });
          assert.equal(answer.status, 200, await answer.text());
          await waitFor(`the charge ${txRef} paid`, () => fake.charge(txRef)?.status === 'successful');
          return String(fake.charge(txRef)!.id);
        },
        async sendBankTransfer(accountNumber, amountMinor, lostWebhook) {
          return String((await fake.sendBankTransfer(accountNumber, toMajor(amountMinor, 'NGN'), { lostWebhook })).id);
        },
        async deliverWebhook(_accountNumber, reference) {
          // Flutterwave's resend-hook delivers the transaction's webhook again.
          const acknowledged = () => fake.bankTransfer(Number(reference))!.deliveries.filter((status) => status === 200).length;
          const before = acknowledged();
          const answer = await fetch(`${fake.url}/v3/transactions/${reference}/resend-hook`, { method: 'POST', headers: bearer(key), body: JSON.stringify({ id: Number(reference) }) });
          assert.equal(answer.status, 200, await answer.text());
          await waitFor(`the webhook of ${reference} acknowledged`, () => acknowledged() > before);
        },
        stop: () => fake.stop(),
      };
    },
  },
];

for (const target of await databaseTargets()) {
  for (const provider of LISTERS) {
    const port = await freePort();
    describe(`reconciliation reads ${provider.name}'s list of the day (its fake, ${PAGE} a page) on ${target.name}`, { skip }, () => {
      const publicBaseUrl = `http://127.0.0.1:${port}`;
      const started = Date.now();
      const clock = new ManualClock(started);
      const day = new Date(started).toISOString().slice(0, 10);
      const dayEnd = Date.parse(`${day}T00:00:00.000Z`) + DAY_MS;
      const { currency, amountMinor } = provider;
      const A = toMajor(amountMinor, currency);
      const env: Record<string, string> = {};
      let fake: ListingFake;
      before(async () => {
        fake = await provider.start(`${publicBaseUrl}/api/rails/${provider.name}/webhook`);
        Object.assign(env, fake.env);
      });
      after(async () => fake.stop());
      const server = useTestServer(target, {
        port,
        now: clock.now,
        env: { PUBLIC_BASE_URL: publicBaseUrl, RAIL_TIMEOUT_MS: '15000', COLLECTION_TIMEOUT_SECONDS: '600', WALLET_BANK_TRANSFER_FEE_PCT: '1' },
        app: { providerEnv: env },
      });
      const reconcile = async () => {
        const answer = await server().request<Reconciliation>('POST', '/api/admin/rails/reconciliations', { headers: ADMIN, body: { provider: provider.name, day } });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        return answer.body;
      };
      const ids = { paid: '', expired: '', declined: '' };
      let holder: Awaited<ReturnType<typeof liveHolder>>;
      /** NGN minor units: the transfer credited by its webhook, and the one whose webhook is lost. */
      const VA = { delivered: 300_000, lost: 500_000 };
      const feeOf = (minor: number) => Math.ceil(minor / 100);

      before(async () => {
        const s = server();
        const shop = await liveTill(s, provider.country, currency);
        const collect = (phone: string, wanted: string) => collectUntil(s, shop.term, { amountMinor, currency, phone }, wanted, clock, provider.name);
        ids.paid = await collect(provider.phones.pays, 'completed');
        ids.expired = await collect(provider.phones.pays, 'completed');
        ids.declined = await collect(provider.phones.declines, 'failed');
        holder = await liveHolder(s, provider.accountBody);
        assert.equal(holder.account.provider, provider.name);
        await fake.sendBankTransfer(holder.account.accountNumber, VA.delivered, false);
        await waitFor('the delivered transfer credited by its webhook', async () => (await balanceMinor(s, holder.handle, 'NGN', 'live')) === VA.delivered - feeOf(VA.delivered));
      });

      it('a clean day stays clean: the list is read whole, page by page (no collection asked by key), and the bank transfer into a virtual account is no collection', async () => {
        clock.set(dayEnd + 3 * HOUR_MS);
        const before = fake.counts();
        const record = await reconcile();
        assert.deepEqual(
          [record.status, record.matched, record.mismatched, record.collectionTotals, record.collectionProviderTotals, record.bankTransfersRecovered, record.error, record.mismatches],
          ['clean', 3, 0, { [currency]: 2 * A }, { [currency]: 2 * A }, 0, null, []],
        );
        assert.deepEqual(record.clearingBalance, { [currency]: -2 * A, NGN: -toMajor(VA.delivered, 'NGN') });
        const asked = fake.counts();
        // Three charges and one bank transfer, two a page.
        assert.equal(asked.listPages - before.listPages, 2, 'both pages of the list read');
        assert.equal(asked.collectionLookups, before.collectionLookups, 'every collection found in the list: none asked about by key');
        assert.equal(asked.bankTransferVerifies, before.bankTransferVerifies, 'a credited bank transfer is not read back');
      });

      it('a bank transfer whose webhook was lost is credited by the run, exactly once: a re-run and the webhook delivered later change nothing', async () => {
        const s = server();
        const credited = VA.delivered - feeOf(VA.delivered);
        const clearing = await systemBalance(s, `rail_clearing:${provider.name}`, 'NGN', 'live');
        const reference = await fake.sendBankTransfer(holder.account.accountNumber, VA.lost, true);
        assert.equal(await balanceMinor(s, holder.handle, 'NGN', 'live'), credited, 'no webhook: nothing credited yet');

        const record = await reconcile();
        assert.deepEqual([record.status, record.mismatched, record.bankTransfersRecovered, record.runs], ['clean', 0, 1, 2]);
        const total = credited + VA.lost - feeOf(VA.lost);
        assert.equal(await balanceMinor(s, holder.handle, 'NGN', 'live'), total, 'credited once, the fee kept');
        assert.equal(await systemBalance(s, `rail_clearing:${provider.name}`, 'NGN', 'live'), clearing - VA.lost);
        assert.deepEqual(record.clearingBalance.NGN, -toMajor(VA.delivered + VA.lost, 'NGN'));
        // Signed in again: the clock moved past the day's end, which may be longer ago than a wallet
        // session lasts (a run started just after midnight UTC moves it almost a day).
        const transfers = await s.request<{ data: { providerReference: string; received: number; fee: number; amount: number }[]; total: number }>('GET', '/api/wallet/bank-transfers', { headers: await holderSignIn(s, holder.handle) });
        assert.equal(transfers.status, 200, JSON.stringify(transfers.body));
        const recovered = transfers.body.data.find((row) => row.providerReference === reference);
        assert.deepEqual(recovered && [recovered.received, recovered.fee, recovered.amount], [toMajor(VA.lost, 'NGN'), toMajor(feeOf(VA.lost), 'NGN'), toMajor(VA.lost - feeOf(VA.lost), 'NGN')]);
        assert.equal(transfers.body.total, 2);

        // The day again: the transfer is known now, nothing more is credited, the day's count stays.
        const again = await reconcile();
        assert.deepEqual([again.status, again.bankTransfersRecovered, again.runs], ['clean', 1, 3]);
        // The webhook arrives after all: the same reference, nothing changes.
        await fake.deliverWebhook(holder.account.accountNumber, reference);
        assert.equal(await balanceMinor(s, holder.handle, 'NGN', 'live'), total);
        const [rows] = await s.db.query<{ n: number }>('SELECT count(*)::int8 AS n FROM wallet_bank_transfers WHERE provider = $1 AND provider_reference = $2', [provider.name, reference]);
        assert.equal(Number(rows!.n), 1);
        assert.equal(await systemBalance(s, `rail_clearing:${provider.name}`, 'NGN', 'live'), clearing - VA.lost);
        assert.deepEqual((await checkLedger(s.db)).violations, []);
      });

      it('a charge under a reference of our collection scheme that we never stored, and one we show expired, are provider_only collection mismatches', async () => {
        const s = server();
        const ghost = `col_${randomBytes(16).toString('base64url')}`;
        const ghostReference = await fake.chargeDirectly(ghost, amountMinor);
        await s.db.query(`UPDATE pos_collections SET status = 'expired' WHERE id = $1`, [ids.expired]);

        const record = await reconcile();
        assert.equal(record.status, 'mismatched');
        const side = (status: string) => ({ status, amount: A, currency });
        const found = [...record.mismatches].sort((a, b) => String(a.paymentId).localeCompare(String(b.paymentId)));
        const expected = [
          { kind: 'provider_only', direction: 'collection', paymentId: ids.expired, providerReference: found.find((m) => m.paymentId === ids.expired)?.providerReference, ours: side('expired'), theirs: side('completed') },
          { kind: 'provider_only', direction: 'collection', paymentId: null, providerReference: ghostReference, ours: null, theirs: side('completed') },
        ].sort((a, b) => String(a.paymentId).localeCompare(String(b.paymentId)));
        assert.deepEqual(found, expected);
        assert.ok(expected[0]!.providerReference, "the provider's reference of the expired one is reported");
        // Matched: the paid one and the declined one. Ours completed: the paid one; the provider's: paid, expired, the ghost.
        assert.deepEqual([record.matched, record.mismatched, record.collectionTotals, record.collectionProviderTotals], [2, 2, { [currency]: A }, { [currency]: 3 * A }]);
        assert.equal(record.bankTransfersRecovered, 1, 'the bank transfers are no collections, and nothing more was credited');
        assert.deepEqual((await checkLedger(s.db)).violations, []);
      });
    });
  }
}
