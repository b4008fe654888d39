// The daily reconciliation of live collections (a customer pays a till from her phone) with each
// provider, and the provider settlements that bring its clearing back to zero, per provider (its
// local fake) on both databases over real HTTP: Paystack (mobile money charge, Kenya), Flutterwave
// (Direct Charge, Uganda), M-Pesa Express and MTN MoMo request-to-pay (Uganda). Collections are
// made through the fakes, then the day is reconciled: clean (each collection asked about by its
// key), then a settlement recorded for what the provider collected (clearing back to zero, its
// repeat harmless, bad inputs refused), then each kind of mismatch, made by changing our side in
// the database after the collections ended (as reconciliation.test.ts does for payouts).
//
// The fakes date their records by the real clock and Tapline by the injected one, which starts at
// the real time: a suite started within 15 minutes of midnight UTC is skipped.
// Run: NODE_ENV=test TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx --test test/rails/reconciliation-collections.test.ts
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { toMajor } from '@tapline/shared/money';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { ADMIN, ManualClock, type TestServer, databaseTargets, freePort, systemBalance, useTestServer } from '@tapline/sync-server/testing';
import { SCENARIOS as MOMO_SCENARIOS, startMomoFake } from '../fakes/momo/index.ts';
import { COLLECTION_SCENARIOS as MPESA_COLLECTIONS, startMpesaFake } from '../fakes/mpesa/index.ts';
import { chargeKeyOf as flutterwaveTxRef } from '@tapline/sync-server/rails/flutterwave/index.ts';
import { chargeKeyOf as paystackReference } from '@tapline/sync-server/rails/paystack/index.ts';
import { CHARGE_SCENARIOS as PAYSTACK_CHARGES, startPaystackFake } from '../fakes/paystack/index.ts';
import { CHARGE_SCENARIOS as FLUTTERWAVE_CHARGES, startFlutterwaveFake } from '../fakes/flutterwave/index.ts';
import { collectUntil, liveTill } from './live-till.ts';
import { restartedApp } from './restarted-app.ts';
import type { Reconciliation } from './reconciliation-types.ts';

const DELAY_SCALE = 0.05;
const DAY_MS = 24 * 3_600_000;
const HOUR_MS = 3_600_000;
const untilMidnight = DAY_MS - (Date.now() % DAY_MS);
const skip = untilMidnight < 15 * 60_000 ? 'within 15 minutes of midnight UTC: the fakes and the server could date the collections on different days' : false;

type Settlement = { id: string; provider: string; amount: number; currency: string; reference: string; settledOn: string; transferId: string; createdAt: string; code?: string };

interface Collector {
  name: 'paystack' | 'flutterwave' | 'mpesa' | 'momo';
  country: string;
  currency: string;
  /** Minor units (M-Pesa collects whole shillings). */
  amountMinor: number;
  /** Whether the provider's record of a collection carries its amount (verify by reference) or only its status (query by key). */
  amounts: boolean;
  /** The provider's list of the day's payouts (its method is 'list'). */
  byList: boolean;
  phones: { pays: string; declines: string };
  /** A currency Tapline supports that this provider's clearing never held here. */
  otherCurrency: string;
  start(publicBaseUrl: string): Promise<RunningCollector>;
}

interface RunningCollector {
  env: Record<string, string>;
  /**
   * Rewrites the provider's own record of one of our collections (the fakes of the providers whose
   * record carries the amount): it now shows it failed, or collected another amount (minor units).
   */
  rewrite?(collectionId: string, patch: { status?: 'completed' | 'failed'; amountMinor?: number }): void;
  stop(): Promise<void>;
}

const COLLECTORS: readonly Collector[] = [
  {
    name: 'paystack',
    country: 'KE',
    currency: 'KES',
    amountMinor: 25_000,
    amounts: true,
    byList: true,
    phones: { pays: PAYSTACK_CHARGES.success.ke, declines: PAYSTACK_CHARGES.declined.ke },
    otherCurrency: 'GHS',
    async start(publicBaseUrl) {
      const fake = await startPaystackFake({ callbackBase: `${publicBaseUrl}/api/rails/paystack/webhook`, delayScale: DELAY_SCALE });
      return {
        env: fake.env,
        rewrite: (id, patch) =>
          assert.ok(fake.rewriteCharge(paystackReference(id), { ...(patch.status ? { status: patch.status === 'completed' ? 'success' : 'failed' } : {}), ...(patch.amountMinor !== undefined ? { amount: patch.amountMinor } : {}) })),
        stop: () => fake.stop(),
      };
    },
  },
  {
    name: 'flutterwave',
    country: 'UG',
    currency: 'UGX',
    amountMinor: 5_000,
    amounts: true,
    byList: true,
    phones: { pays: FLUTTERWAVE_CHARGES.success, declines: FLUTTERWAVE_CHARGES.declined },
    otherCurrency: 'NGN',
    async start(publicBaseUrl) {
      const fake = await startFlutterwaveFake({ callbackBase: `${publicBaseUrl}/api/rails/flutterwave/webhook`, delayScale: DELAY_SCALE });
      return {
        env: fake.env,
        // UGX has no minor unit: its major units are its minor units.
        rewrite: (id, patch) =>
          assert.ok(fake.rewriteCharge(flutterwaveTxRef(id), { ...(patch.status ? { status: patch.status === 'completed' ? 'successful' : 'failed' } : {}), ...(patch.amountMinor !== undefined ? { amount: patch.amountMinor } : {}) })),
        stop: () => fake.stop(),
      };
    },
  },
  {
    name: 'mpesa',
    country: 'KE',
    currency: 'KES',
    amountMinor: 10_000,
    amounts: false,
    byList: false,
    phones: { pays: MPESA_COLLECTIONS.success.phone, declines: MPESA_COLLECTIONS.cancelled.phone },
    otherCurrency: 'UGX',
    start: (publicBaseUrl) => startMpesaFake({ callbackBase: publicBaseUrl, delayScale: DELAY_SCALE }),
  },
  {
    name: 'momo',
    country: 'UG',
    currency: 'UGX',
    amountMinor: 5_000,
    amounts: false,
    byList: false,
    phones: { pays: MOMO_SCENARIOS.success.receiver.phone, declines: MOMO_SCENARIOS.failure.receiver.phone },
    otherCurrency: 'KES',
    start: (publicBaseUrl) => startMomoFake({ callbackBase: publicBaseUrl, delayScale: DELAY_SCALE, targetEnvironment: 'mtnuganda' }),
  },
];

for (const target of await databaseTargets()) {
  for (const provider of COLLECTORS) {
    const port = await freePort();
    describe(`reconciliation of collections and settlements with ${provider.name} (its fake) on ${target.name}`, { skip }, () => {
      const publicBaseUrl = `http://127.0.0.1:${port}`;
      const started = Date.now();
      const clock = new ManualClock(started);
      const day = new Date(started).toISOString().slice(0, 10);
      const dayEnd = Date.parse(`${day}T00:00:00.000Z`) + DAY_MS;
      const dayOffset = (from: string, days: number) => new Date(Date.parse(`${from}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10);
      const { currency, amountMinor } = provider;
      const A = toMajor(amountMinor, currency);
      const env: Record<string, string> = {};
      let fake: RunningCollector;
      before(async () => {
        fake = await provider.start(publicBaseUrl);
        Object.assign(env, fake.env);
      });
      after(async () => fake.stop());
      const server = useTestServer(target, {
        port,
        now: clock.now,
        env: { PUBLIC_BASE_URL: publicBaseUrl, RAIL_TIMEOUT_MS: '15000', COLLECTION_TIMEOUT_SECONDS: '600' },
        app: { providerEnv: env },
      });
      const admin = <T = Reconciliation>(method: string, path: string, body?: unknown) =>
        server().request<T>(method, path, { headers: ADMIN, ...(body !== undefined ? { body } : {}) });
      const reconcile = async () => {
        const answer = await admin('POST', '/api/admin/rails/reconciliations', { provider: provider.name, day });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        return answer.body;
      };
      const settle = (body: Record<string, unknown>) => admin<Settlement>('POST', '/api/admin/rails/settlements', body);
      const clearing = () => systemBalance(server(), `rail_clearing:${provider.name}`, currency, 'live');

      /** Completed (stays), completed (its amount changed), completed (marked failed), completed (marked pending), declined. */
      const ids = { paid: '', amount: '', markedFailed: '', markedPending: '', declined: '' };

      const collect = (s: TestServer, term: Record<string, string>, phone: string, wanted: string) => collectUntil(s, term, { amountMinor, currency, phone }, wanted, clock, provider.name);

      before(async () => {
        const s = server();
        const shop = await liveTill(s, provider.country, currency);
        ids.paid = await collect(s, shop.term, provider.phones.pays, 'completed');
        ids.amount = await collect(s, shop.term, provider.phones.pays, 'completed');
        ids.markedFailed = await collect(s, shop.term, provider.phones.pays, 'completed');
        ids.markedPending = await collect(s, shop.term, provider.phones.pays, 'completed');
        ids.declined = await collect(s, shop.term, provider.phones.declines, 'failed');
      });

      it('a clean day: every collection asked about by its key agrees; the clearing is what the provider holds for us (negative)', async () => {
        assert.equal(await clearing(), -4 * amountMinor, 'four completed collections taken out of the provider\'s clearing');
        clock.set(dayEnd + 2 * HOUR_MS + 60_000);
        assert.deepEqual(await server().context.reconciliation.runOnce(), [{ provider: provider.name, day, status: 'clean' }]);
        const listed = await admin<{ data: Reconciliation[] }>('GET', `/api/admin/rails/reconciliations?provider=${provider.name}&day=${day}`);
        const record = listed.body.data[0]!;
        assert.deepEqual(
          [record.status, record.method, record.matched, record.mismatched, record.ourTotals, record.providerTotals, record.collectionTotals, record.collectionProviderTotals, record.clearingBalance, record.error],
          ['clean', provider.byList ? 'list' : 'by_key', 5, 0, {}, {}, { [currency]: 4 * A }, { [currency]: 4 * A }, { [currency]: -4 * A }, null],
        );
        assert.deepEqual((await admin('GET', `/api/admin/rails/reconciliations/${record.id}`)).body.mismatches, []);
      });

      it('a recorded settlement brings the clearing back to zero in one balanced transfer; a repeat of its reference answers the first and posts nothing, the same reference saying another amount or day is a 409', async () => {
        const body = { provider: provider.name, amount: 4 * A, currency, reference: `STL-${provider.name}-${day}`, settledOn: day };
        const anonymous = await server().request<{ code: string }>('POST', '/api/admin/rails/settlements', { body });
        assert.equal(anonymous.status, 401);
        assert.equal((await server().request('GET', '/api/admin/rails/settlements')).status, 401);
        const bankBefore = await systemBalance(server(), 'bank', currency, 'live');

        const first = await settle(body);
        assert.equal(first.status, 201, JSON.stringify(first.body));
        assert.deepEqual({ ...first.body, id: undefined, transferId: undefined, createdAt: undefined }, {
          id: undefined, transferId: undefined, createdAt: undefined, provider: provider.name, amount: 4 * A, currency, reference: body.reference, settledOn: day,
        });
        assert.equal(first.body.transferId, `rail_settlement:${first.body.id}`);
        assert.equal(await clearing(), 0, 'the provider paid what it collected: its clearing is back to zero');
        assert.equal(await systemBalance(server(), 'bank', currency, 'live'), bankBefore - 4 * amountMinor);
        const legs = await server().db.query<{ owner_id: string; amount: number }>(
          `SELECT a.owner_id, p.amount::int8 AS amount FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id WHERE p.transfer_id = $1 ORDER BY p.amount`,
          [first.body.transferId],
        );
        assert.deepEqual(legs.map((leg) => [leg.owner_id, Number(leg.amount)]), [['bank', -4 * amountMinor], [`rail_clearing:${provider.name}`, 4 * amountMinor]]);

        // The same reference again with the same body (a retry): the first record, nothing posted.
        const repeat = await settle({ ...body });
        assert.equal(repeat.status, 200, JSON.stringify(repeat.body));
        assert.deepEqual(repeat.body, first.body);
        // The same reference saying something else (another amount, day): a conflict in words, nothing posted.
        for (const other of [{ ...body, amount: 1 }, { ...body, settledOn: dayOffset(day, -1) }]) {
          const conflict = await settle(other);
          assert.deepEqual([conflict.status, (conflict.body as unknown as { code: string }).code], [409, 'settlement_reference_conflict'], JSON.stringify(other));
          assert.match((conflict.body as unknown as { error: string }).error, new RegExp(`settlement ${body.reference} is recorded already .* with another (amount|settledOn)`));
        }
        assert.equal(await clearing(), 0);
        const [transfers] = await server().db.query<{ n: number }>(`SELECT count(*)::int8 AS n FROM ledger_transfers WHERE kind = 'rail_settlement'`);
        assert.equal(Number(transfers!.n), 1);

        const list = await admin<{ data: Settlement[]; total: number }>('GET', `/api/admin/rails/settlements?provider=${provider.name}`);
        assert.deepEqual([list.status, list.body.total, list.body.data.map((entry) => entry.id)], [200, 1, [first.body.id]]);
        const none = await admin<{ total: number }>('GET', `/api/admin/rails/settlements?provider=${provider.name === 'momo' ? 'mpesa' : 'momo'}`);
        assert.equal(none.body.total, 0);

        // The next reconciliation of the day shows the clearing after the settlement.
        clock.advance(60_000);
        const record = await reconcile();
        assert.deepEqual([record.status, record.runs, record.clearingBalance], ['clean', 2, { [currency]: 0 }]);
        assert.deepEqual((await checkLedger(server().db)).violations, []);
      });

      it('bad settlements are refused with clear errors and post nothing', async () => {
        const good = { provider: provider.name, amount: A, currency, reference: `STL-bad-${randomBytes(4).toString('hex')}`, settledOn: day };
        const cases: [Record<string, unknown>, number, string][] = [
          [{ ...good, provider: 'nope' }, 404, 'rail_provider_not_configured'],
          [{ ...good, provider: COLLECTORS.find((other) => other.name !== provider.name)!.name }, 404, 'rail_provider_not_configured'],
          [{ ...good, amount: 0 }, 400, 'amount_must_not_be_zero'],
          [{ ...good, amount: -5 }, 400, 'amount_must_be_positive'],
          [{ ...good, amount: 10.555 }, 400, 'amount_too_many_decimals'],
          [{ ...good, currency: provider.otherCurrency }, 400, 'currency_not_cleared'],
          [{ ...good, currency: 'XYZ' }, 400, 'currency_not_supported'],
          [{ ...good, reference: undefined }, 400, 'validation_failed'],
          [{ ...good, reference: '   ' }, 400, 'validation_failed'],
          [{ ...good, settledOn: '2026-02-30' }, 400, 'validation_failed'],
          // The server's today is the day after `day` (its clock was set past dayEnd): the day after that has not begun.
          [{ ...good, settledOn: dayOffset(day, 2) }, 400, 'settled_on_in_future'],
          [{ ...good, settledOn: '2999-01-01' }, 400, 'settled_on_in_future'],
        ];
        for (const [body, status, code] of cases) {
          const refused = await settle(body);
          assert.deepEqual([refused.status, refused.body.code], [status, code], JSON.stringify(body));
          assert.equal(typeof (refused.body as unknown as { error: string }).error, 'string');
        }
        const list = await admin<{ total: number }>('GET', '/api/admin/rails/settlements');
        assert.equal(list.body.total, 1, 'only the first settlement is recorded');
        assert.equal(await clearing(), 0);
      });

      // M-Pesa's completion names its receipt, and the push's CheckoutRequestID the status query
      // needs was in this process's memory only: a restarted server asks by the one it stored.
      if (provider.name === 'mpesa') it('a restarted server still asks Daraja about each completed push by the CheckoutRequestID it kept: no false "never heard of"', async () => {
        const [paid] = await server().db.query<{ provider_reference: string | null; provider_request_id: string | null }>('SELECT provider_reference, provider_request_id FROM pos_collections WHERE id = $1', [ids.paid]);
        assert.match(paid!.provider_request_id ?? '', /^ws_CO_/, 'the CheckoutRequestID is kept');
        assert.notEqual(paid!.provider_reference, paid!.provider_request_id, 'the reference is the receipt now');
        const restarted = await restartedApp(server(), clock.now, env);
        try {
          clock.advance(60_000);
          const record = await restarted.context.reconciliation.reconcile(provider.name, day);
          assert.deepEqual([record.status, record.matched, record.mismatches], ['clean', 5, []]);
        } finally {
          await restarted.app.close();
        }
      });

      it('finds each kind of mismatch for collections, each with direction collection', async () => {
        const db = server().db;
        // provider_only: the provider collected it; we show it failed.
        await db.query(`UPDATE pos_collections SET status = 'failed' WHERE id = $1`, [ids.markedFailed]);
        // status_differs: we still show it pending; the provider completed it.
        await db.query(`UPDATE pos_collections SET status = 'pending', ended_at = NULL, next_poll_at = NULL WHERE id = $1`, [ids.markedPending]);
        // amount_differs: we show another amount than the provider collected (seen where its record carries the amount).
        await db.query('UPDATE pos_collections SET amount = amount + 100 WHERE id = $1', [ids.amount]);
        // ours_only: one we show completed that the provider shows failed, and one it never heard of.
        await db.query(`UPDATE pos_collections SET status = 'completed' WHERE id = $1`, [ids.declined]);
        const ghost = `col_recon${randomBytes(10).toString('hex')}`;
        await db.query(
          `INSERT INTO pos_collections SELECT (jsonb_populate_record(c, jsonb_build_object('id', $2::text, 'provider_reference', null, 'provider_request_id', null, 'transfer_id', null))).* FROM pos_collections c WHERE c.id = $1`,
          [ids.paid, ghost],
        );

        clock.advance(60_000);
        const record = await reconcile();
        assert.equal(record.status, 'mismatched');
        const ours = (status: string, minor = amountMinor) => ({ status, amount: toMajor(minor, currency), currency });
        const theirs = (status: string) => ({ status, amount: provider.amounts && status === 'completed' ? A : null, currency: provider.amounts && status === 'completed' ? currency : null });
        const found = record.mismatches.map((mismatch) => ({ ...mismatch, providerReference: undefined })).sort((a, b) => `${a.kind}${a.paymentId}`.localeCompare(`${b.kind}${b.paymentId}`));
        const expected = [
          { kind: 'provider_only', direction: 'collection', paymentId: ids.markedFailed, providerReference: undefined, ours: ours('failed'), theirs: theirs('completed') },
          { kind: 'status_differs', direction: 'collection', paymentId: ids.markedPending, providerReference: undefined, ours: ours('pending'), theirs: theirs('completed') },
          { kind: 'ours_only', direction: 'collection', paymentId: ids.declined, providerReference: undefined, ours: ours('completed'), theirs: theirs('failed') },
          { kind: 'ours_only', direction: 'collection', paymentId: ghost, providerReference: undefined, ours: ours('completed'), theirs: null },
          ...(provider.amounts ? [{ kind: 'amount_differs', direction: 'collection', paymentId: ids.amount, providerReference: undefined, ours: ours('completed', amountMinor + 100), theirs: theirs('completed') }] : []),
        ].sort((a, b) => `${a.kind}${a.paymentId}`.localeCompare(`${b.kind}${b.paymentId}`));
        assert.deepEqual(found, expected);
        assert.ok(record.mismatches.find((mismatch) => mismatch.paymentId === ids.markedFailed)!.providerReference, "the provider's reference of a collection is reported");
        // Matched: the one left alone, and (status only) the one whose amount changed.
        assert.equal(record.matched, provider.amounts ? 1 : 2);
        assert.equal(record.mismatched, provider.amounts ? 5 : 4);
        // Ours completed: paid, amount (+100), declined (now completed), ghost. The provider's: paid, amount, markedFailed, markedPending.
        assert.deepEqual(record.collectionTotals, { [currency]: toMajor(4 * amountMinor + 100, currency) });
        assert.deepEqual(record.collectionProviderTotals, { [currency]: toMajor(4 * amountMinor + (provider.amounts ? 0 : 100), currency) });
        // Changing our side in the database moved no money: the settled clearing stays at zero.
        assert.deepEqual(record.clearingBalance, { [currency]: 0 });
        const stored = await admin('GET', `/api/admin/rails/reconciliations/${record.id}`);
        assert.deepEqual(stored.body, record);
        assert.deepEqual((await checkLedger(server().db)).violations, []);
      });

      // M-Pesa and MoMo answer a collection by status only (no amount), so only Paystack's and
      // Flutterwave's fakes can disagree on an amount: the case exists for them alone.
      if (provider.amounts) it("the provider's own record disagrees (rewritten at the fake): another amount, and failed where we show completed", async () => {
        // ids.paid agreed so far: the provider now says it collected 1 more minor unit; ids.amount (ours +100) now says failed.
        fake.rewrite!(ids.paid, { amountMinor: amountMinor + 1 });
        fake.rewrite!(ids.amount, { status: 'failed' });
        clock.advance(60_000);
        const record = await reconcile();
        const of = (id: string) => record.mismatches.filter((mismatch) => mismatch.paymentId === id).map((mismatch) => [mismatch.kind, mismatch.direction, mismatch.ours, mismatch.theirs]);
        assert.deepEqual(of(ids.paid), [['amount_differs', 'collection', { status: 'completed', amount: A, currency }, { status: 'completed', amount: toMajor(amountMinor + 1, currency), currency }]]);
        assert.deepEqual(of(ids.amount), [['ours_only', 'collection', { status: 'completed', amount: toMajor(amountMinor + 100, currency), currency }, { status: 'failed', amount: null, currency: null }]]);
        assert.equal(record.matched, 0);
        assert.equal(await clearing(), 0, 'what the provider says moves no money');
      });
    });
  }
}
