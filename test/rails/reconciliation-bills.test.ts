// Live bill payments in the daily reconciliation, through Flutterwave's local fake on both
// databases over real HTTP: Nigerian airtime paid from a live wallet (POST /api/bills/pay), then
// the day reconciled. Flutterwave is asked about each of our bills of the day by its key
// (GET /v3/bills/{reference}). A clean day; then each kind of mismatch, made by changing our side
// in the database after the bills ended (as reconciliation.test.ts does for payouts) or the fake's
// record of one; then a day that fails because the fake's bill status answers 500 for good; then a
// second app on the same database whose only bill payer cannot be asked (a day with its bills fails).
//
// The bills are dated by the injected clock, which starts at the real time and stays on its day
// until the test moves it past midnight: the fake's own dates are never read (no list of bills).
// Run: NODE_ENV=test TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx --test test/rails/reconciliation-bills.test.ts
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { keyOf } from '@tapline/sync-server/rails/flutterwave/index.ts';
import { ADMIN, ManualClock, TEST_SECRETS_KEY_HEX, type TestServer, buildApp, databaseTargets, systemBalance, useTestServer } from '@tapline/sync-server/testing';
import { BILL_CUSTOMERS, type FlutterwaveFake, startFlutterwaveFake } from '../fakes/flutterwave/index.ts';
import type { Reconciliation } from './reconciliation-types.ts';

const DAY_MS = 24 * 3_600_000;
const HOUR_MS = 3_600_000;
/** Each bill: NGN 500 of MTN airtime (50 000 kobo). */
const AMOUNT = 500;
const AMOUNT_MINOR = 50_000;


for (const target of await databaseTargets()) {
  describe(`reconciliation of live bills with flutterwave (its fake) on ${target.name}`, () => {
    const clock = new ManualClock(Date.now());
    const day = clock.now().toISOString().slice(0, 10);
    const dayEnd = Date.parse(`${day}T00:00:00.000Z`) + DAY_MS;
    let fake: FlutterwaveFake;
    const env: Record<string, string> = {};
    before(async () => {
      fake = await startFlutterwaveFake({ delayScale: 0.05 });
      Object.assign(env, fake.env);
    });
    after(async () => fake.stop());
    const server = useTestServer(target, { now: clock.now, app: { providerEnv: env } });
    const admin = <T = Reconciliation>(method: string, path: string, body?: unknown) =>
      server().request<T>(method, path, { headers: ADMIN, ...(body !== undefined ? { body } : {}) });
    const reconcile = async () => {
      const answer = await admin('POST', '/api/admin/rails/reconciliations', { provider: 'flutterwave', day });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body;
    };

    /** Paid (stays), paid (our amount changed), paid (marked failed), paid (marked pending), declined by the biller. */
    const ids = { paid: '', amount: '', markedFailed: '', markedPending: '', declined: '' };

    before(async () => {
      const s: TestServer = server();
      const merchant = await s.createMerchant();
      const credited = await s.request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 100_000, currency: 'NGN', mode: 'live' } });
      assert.equal(credited.status, 200);
      const pay = async (accountRef: string, wanted: string) => {
        const bill = await s.request<{ id: string; status: string }>('POST', '/api/bills/pay', {
          headers: { 'x-merchant-api-key': merchant.liveKey, 'idempotency-key': randomUUID() },
          body: { billType: 'airtime', billerId: 'mtn-ng-airtime', accountRef, amount: AMOUNT, currency: 'NGN' },
        });
        assert.equal(bill.status, 201, JSON.stringify(bill.body));
        assert.equal(bill.body.status, wanted, JSON.stringify(bill.body));
        return bill.body.id;
      };
      ids.paid = await pay(BILL_CUSTOMERS.phone.success, 'completed');
      ids.amount = await pay(BILL_CUSTOMERS.phone.success, 'completed');
      ids.markedFailed = await pay(BILL_CUSTOMERS.phone.success, 'completed');
      ids.markedPending = await pay(BILL_CUSTOMERS.phone.success, 'completed');
      ids.declined = await pay(BILL_CUSTOMERS.phone.failure, 'failed');
      assert.equal(fake.bills().length, 4, 'Flutterwave paid four bills; it declined the fifth');
    });

    it('a clean day: each live bill asked about by its key agrees; the bills are totalled apart and their clearing nets to zero', async () => {
      assert.equal(await systemBalance(server(), 'rail_clearing:flutterwave', 'NGN', 'live'), 0, 'each bill was debited into the clearing and settled out of it');
      clock.set(dayEnd + 2 * HOUR_MS + 60_000);
      assert.deepEqual(await server().context.reconciliation.runOnce(), [{ provider: 'flutterwave', day, status: 'clean' }]);
      const listed = await admin<{ data: Reconciliation[]; total: number }>('GET', `/api/admin/rails/reconciliations?provider=flutterwave&day=${day}`);
      assert.equal(listed.body.total, 1);
      const record = listed.body.data[0]!;
      assert.deepEqual(
        [record.status, record.matched, record.mismatched, record.ourTotals, record.providerTotals, record.collectionTotals, record.billTotals, record.billProviderTotals, record.ledgerClearingNet, record.error],
        ['clean', 5, 0, {}, {}, {}, { NGN: 4 * AMOUNT }, { NGN: 4 * AMOUNT }, { NGN: 0 }, null],
      );
      assert.deepEqual((await admin('GET', `/api/admin/rails/reconciliations/${record.id}`)).body.mismatches, []);
      const asked = fake.requests().filter((request) => request.startsWith('GET /v3/bills/'));
      for (const id of Object.values(ids)) assert.ok(asked.includes(`GET /v3/bills/${keyOf(id)}`), `asked about ${id} by its key`);
    });

    it('finds each kind of mismatch for bills, each with direction bill, and the admin API lists them', async () => {
      const db = server().db;
      // provider_only: Flutterwave paid it; we show it failed.
      await db.query(`UPDATE bill_payments SET status = 'failed' WHERE id = $1`, [ids.markedFailed]);
      // status_differs: we still show it pending; Flutterwave paid it.
      await db.query(`UPDATE bill_payments SET status = 'pending' WHERE id = $1`, [ids.markedPending]);
      // amount_differs: we show another amount than Flutterwave paid.
      await db.query('UPDATE bill_payments SET amount = amount + 100 WHERE id = $1', [ids.amount]);
      // ours_only: a bill we show completed that Flutterwave never paid (no record under its key).
      const ghost = `bill_recon${randomBytes(10).toString('hex')}`;
      await db.query(
        `INSERT INTO bill_payments SELECT (jsonb_populate_record(b, jsonb_build_object('id', $2::text, 'provider_reference', null))).* FROM bill_payments b WHERE b.id = $1`,
        [ids.paid, ghost],
      );

      clock.advance(60_000);
      const record = await reconcile();
      assert.equal(record.status, 'mismatched');
      const ours = (status: string, minor = AMOUNT_MINOR) => ({ status, amount: minor / 100, currency: 'NGN' });
      const paid = { status: 'completed', amount: AMOUNT, currency: 'NGN' };
      const found = record.mismatches.map((mismatch) => ({ ...mismatch, providerReference: undefined })).sort((a, b) => `${a.kind}${a.paymentId}`.localeCompare(`${b.kind}${b.paymentId}`));
      const expected = [
        { kind: 'provider_only', direction: 'bill', paymentId: ids.markedFailed, providerReference: undefined, ours: ours('failed'), theirs: paid },
        { kind: 'status_differs', direction: 'bill', paymentId: ids.markedPending, providerReference: undefined, ours: ours('pending'), theirs: paid },
        { kind: 'amount_differs', direction: 'bill', paymentId: ids.amount, providerReference: undefined, ours: ours('completed', AMOUNT_MINOR + 100), theirs: paid },
        { kind: 'ours_only', direction: 'bill', paymentId: ghost, providerReference: undefined, ours: ours('completed'), theirs: null },
      ].sort((a, b) => `${a.kind}${a.paymentId}`.localeCompare(`${b.kind}${b.paymentId}`));
      assert.deepEqual(found, expected);
      const flwRefs = new Set(fake.bills().map((bill) => bill.flwRef));
      assert.ok(flwRefs.has(record.mismatches.find((mismatch) => mismatch.paymentId === ids.markedFailed)!.providerReference!), "Flutterwave's reference of the bill is reported");
      // Matched: the one left alone, and the declined one (failed with us, unknown to Flutterwave).
      assert.deepEqual([record.matched, record.mismatched], [2, 4]);
      // Ours completed: paid, amount (+1 naira), the ghost. Flutterwave's: paid, amount, markedFailed, markedPending.
      assert.deepEqual([record.billTotals, record.billProviderTotals], [{ NGN: 3 * AMOUNT + 1 }, { NGN: 4 * AMOUNT }]);
      assert.deepEqual([record.ourTotals, record.providerTotals, record.collectionTotals], [{}, {}, {}]);
      // Changing our side in the database moved no money: the day's bills left nothing in the clearing.
      assert.deepEqual(record.ledgerClearingNet, { NGN: 0 });

      const listed = await admin<{ data: Reconciliation[] }>('GET', `/api/admin/rails/reconciliations?provider=flutterwave&day=${day}`);
      assert.deepEqual([listed.body.data[0]!.id, listed.body.data[0]!.status, listed.body.data[0]!.mismatched, listed.body.data[0]!.billTotals], [record.id, 'mismatched', 4, { NGN: 3 * AMOUNT + 1 }]);
      const stored = await admin('GET', `/api/admin/rails/reconciliations/${record.id}`);
      assert.deepEqual(stored.body, record);
      assert.deepEqual((await checkLedger(server().db)).violations, []);
    });

    it("Flutterwave's own record disagrees (rewritten at the fake): another amount", async () => {
      // ids.paid agreed so far: Flutterwave now says it paid NGN 1 more.
      assert.ok(fake.rewriteBill(keyOf(ids.paid), { amount: AMOUNT + 1 }));
      clock.advance(60_000);
      const record = await reconcile();
      const of = (id: string) => record.mismatches.filter((mismatch) => mismatch.paymentId === id).map((mismatch) => [mismatch.kind, mismatch.direction, mismatch.ours, mismatch.theirs]);
      assert.deepEqual(of(ids.paid), [['amount_differs', 'bill', { status: 'completed', amount: AMOUNT, currency: 'NGN' }, { status: 'completed', amount: AMOUNT + 1, currency: 'NGN' }]]);
      assert.deepEqual([record.matched, record.mismatched, record.billProviderTotals], [1, 5, { NGN: 4 * AMOUNT + 1 }]);
      assert.equal(await systemBalance(server(), 'rail_clearing:flutterwave', 'NGN', 'live'), 0, 'what the provider says moves no money');
    });

    it('a bill status that answers 500 for good fails the day: the error kept, our side still totalled, no mismatch claimed', async () => {
      fake.billStatusDown(true);
      try {
        clock.advance(60_000);
        const record = await reconcile();
        assert.equal(record.status, 'failed');
        assert.match(record.error ?? '', /^flutterwave could not tell what became of bill bill_/);
        assert.deepEqual([record.matched, record.mismatched, record.mismatches], [0, 0, []]);
        assert.deepEqual([record.billTotals, record.billProviderTotals, record.ledgerClearingNet], [{ NGN: 3 * AMOUNT + 1 }, {}, { NGN: 0 }]);
        const listed = await admin<{ data: Reconciliation[] }>('GET', `/api/admin/rails/reconciliations?provider=flutterwave&day=${day}`);
        assert.deepEqual([listed.body.data[0]!.status, listed.body.data[0]!.error], ['failed', record.error]);
      } finally {
        fake.billStatusDown(false);
      }
      // Once Flutterwave answers again, the day is judged again.
      clock.advance(60_000);
      assert.equal((await reconcile()).status, 'mismatched');
    });

    it('a live bill payer that is no payment adapter is reconciled under its own name; one that cannot be asked about a bill fails a day with bills through it', async () => {
      // The same database, with a second bill payer configured (no billRecord): its day has one live bill.
      const other = { name: 'other-biller', supports: () => false, pay: () => Promise.reject(new Error('never called')) };
      const app = await buildApp({
        config: server().config, db: server().db, adminTokenHash: 'unused', secretsKey: Buffer.from(TEST_SECRETS_KEY_HEX, 'hex'), logger: false, backgroundJobs: false,
        now: clock.now, providerEnv: env, billerProviders: [other],
      });
      try {
        const theirs = `bill_other${randomBytes(10).toString('hex')}`;
        await server().db.query(
          `INSERT INTO bill_payments SELECT (jsonb_populate_record(b, jsonb_build_object('id', $2::text, 'provider', 'other-biller'))).* FROM bill_payments b WHERE b.id = $1`,
          [ids.declined, theirs],
        );
        const record = await app.context.reconciliation.reconcile('other-biller', day);
        assert.deepEqual(
          [record.status, record.method, record.error, record.bill_totals, record.mismatches],
          ['failed', 'by_key', 'other-biller cannot be asked about bill payments, and 1 were paid through it that day', {}, []],
        );
        // Flutterwave is no bill payer of this app (its biller is replaced): its day's bills cannot be asked about either.
        const flutterwave = await app.context.reconciliation.reconcile('flutterwave', day);
        assert.match(flutterwave.error ?? '', /^flutterwave cannot be asked about bill payments, and 6 were paid through it that day$/);
        await assert.rejects(app.context.reconciliation.reconcile('nobody', day), (error: { statusCode?: number; code?: string }) => error.statusCode === 404 && error.code === 'rail_provider_not_configured');
      } finally {
        await app.app.close();
      }
    });
  });
}
