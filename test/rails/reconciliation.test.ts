// The daily reconciliation of live payouts with each provider, per provider (its local fake) and
// on both databases: payouts made through the fakes over real HTTP, then reconciled by the daily
// job (context.reconciliation.runOnce() on the injected clock) and by the admin API. Mismatches
// are made by changing our side in the database after the payouts completed, and by a reversal
// at the provider that we are made to show completed; a provider that cannot be reached gives a
// failed day.
//
// The fakes date their transfers by the real clock and Tapline dates payments by the injected
// one, which starts at the real time: a suite started within minutes of midnight UTC could see the
// two sides on different days, so it is skipped then.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { toMajor } from '@tapline/shared/money';
import { ADMIN, ManualClock, type TestServer, databaseTargets, freePort, useTestServer } from '@tapline/sync-server/testing';
import type { PayoutRequest } from '@tapline/sync-server/rails/types.ts';
import { PROVIDERS, type RunningFake, type ScenarioName } from './providers.ts';
import { restartedApp } from './restarted-app.ts';
import { until } from './until.ts';
import type { Mismatch, Reconciliation } from './reconciliation-types.ts';

const DELAY_SCALE = 0.05;
// A deadline for the adapters' requests to the fakes that a loaded CI machine meets: 500 ms once
// made a fake's slow answer to the test's own transfer a "network error" (a stopped fake is
// refused at once, so no test waits for this).
const RAIL_TIMEOUT_MS = 15_000;
const DAY_MS = 24 * 3_600_000;
const HOUR_MS = 3_600_000;
const NEAR_MIDNIGHT_MS = 15 * 60_000;

type PaymentRow = { id: string; status: string; destination_amount: number; destination_currency: string };

const untilMidnight = DAY_MS - (Date.now() % DAY_MS);
const skip = untilMidnight < NEAR_MIDNIGHT_MS ? 'within 15 minutes of midnight UTC: the fakes and the server could date the payouts on different days' : false;

for (const target of await databaseTargets()) {
  for (const provider of PROVIDERS) {
    const port = await freePort();
    describe(`reconciliation with ${provider.name} (its fake) on ${target.name}`, { skip }, () => {
      const publicBaseUrl = `http://127.0.0.1:${port}`;
      const started = Date.now();
      const clock = new ManualClock(started);
      /** The UTC day the payouts are made on (the fakes' real one too). */
      const day = new Date(started).toISOString().slice(0, 10);
      const dayEnd = Date.parse(`${day}T00:00:00.000Z`) + DAY_MS;
      const dayBefore = new Date(dayEnd - 2 * DAY_MS).toISOString().slice(0, 10);
      const routes = [...new Set(Object.values(provider.scenarios).map((scenario) => `${scenario.rail}:${scenario.toCode}`))].map((key) => `${key}=${provider.name}`).join(';');
      const byList = provider.name === 'paystack' || provider.name === 'flutterwave';
      let fake: RunningFake;
      let fakeRunning = false;
      const env: Record<string, string> = {};
      before(async () => {
        fake = await provider.start(publicBaseUrl, DELAY_SCALE);
        fakeRunning = true;
        Object.assign(env, fake.env);
      });
      after(async () => {
        if (fakeRunning) await fake.stop();
      });
      const server = useTestServer(target, {
        port,
        now: clock.now,
        env: { PUBLIC_BASE_URL: publicBaseUrl, RAIL_ROUTES: routes, RAIL_TIMEOUT_MS: String(RAIL_TIMEOUT_MS) },
        app: { providerEnv: env },
      });

      const admin = <T = Reconciliation>(method: string, path: string, body?: unknown) =>
        server().request<T>(method, path, { headers: ADMIN, ...(body !== undefined ? { body } : {}) });
      const run = (body: unknown) => admin('POST', '/api/admin/rails/reconciliations', body);
      const rows = async (ids: string[]) =>
        new Map((await server().db.query<PaymentRow>('SELECT id, status, destination_amount, destination_currency FROM payments WHERE id = ANY ($1::text[])', [ids])).map((row) => [row.id, row]));
      const major = (row: PaymentRow) => toMajor(row.destination_amount, row.destination_currency);

      let merchant: Awaited<ReturnType<TestServer['createMerchant']>>;
      /** Paid (stays), paid (its amount is changed), paid (marked failed), failed at the provider, paid then reversed. */
      const ids = { paid: '', amount: '', markedFailed: '', failed: '', reversed: '' };
      let currency = '';

      const pay = async (scenario: ScenarioName): Promise<string> => {
        const { rail, toCode, receiver } = provider.scenarios[scenario];
        const created = await server().request<{ paymentId: string }>('POST', '/api/pay', {
          headers: { 'x-merchant-api-key': merchant.liveKey, 'idempotency-key': randomUUID() },
          body: { fromCode: 'NG', toCode, rail, amount: 5000, currency: provider.payCurrency, receiver, receiverName: 'Ada Obi', senderName: 'Shop' },
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        return created.body.paymentId;
      };
      const status = async (id: string) => (await server().request<{ status: string }>('GET', `/api/payments/${id}`, { headers: { 'x-merchant-api-key': merchant.liveKey } })).body.status;
      /** Steps the scheduler (polls due after 5 minutes) until the payment is in `wanted`; callbacks usually get there first. */
      const settle = (id: string, wanted: string) => {
        // A reversal a provider announces by one callback (MoMo) is otherwise found by the asks
        // after completion, which thin out as the payout ages: the steps grow with them (5 minutes
        // up to an hour), so a callback lost on a loaded machine costs steps, not the ceiling.
        let steps = 0;
        return until(`${id} ${wanted}`, async () => {
          if ((await status(id)) === wanted) return true;
          steps += 1;
          clock.advance(Math.min(60, 5 * steps) * 60_000);
          await server().context.payments.runOnce();
          return undefined;
        }, 180_000);
      };

      before(async () => {
        merchant = await server().createMerchant({ webhookUrl: 'https://example.com/hooks' });
        for (const money of ['NGN', 'KES']) {
          const credited = await server().request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 1_000_000, currency: money, mode: 'live' } });
          assert.equal(credited.status, 200);
        }
        // Every payout is made first, on the day's clock, then settled (the scheduler's steps move the clock on).
        ids.paid = await pay('success');
        ids.amount = await pay('success');
        ids.markedFailed = await pay('success');
        ids.failed = await pay('failure');
        ids.reversed = await pay('reversal_after_success');
        for (const id of [ids.paid, ids.amount, ids.markedFailed]) await settle(id, 'completed');
        await settle(ids.failed, 'failed');
        await settle(ids.reversed, 'reversed');
        currency = (await rows([ids.paid])).get(ids.paid)!.destination_currency;
      });

      it('a day not yet over is refused (409 reconciliation_day_not_over); other bad requests answer clear errors', async () => {
        const today = clock.now().toISOString().slice(0, 10);
        const early = await run({ provider: provider.name, day: today });
        assert.equal(early.status, 409, JSON.stringify(early.body));
        assert.equal((early.body as unknown as { code: string }).code, 'reconciliation_day_not_over');
        const future = await run({ provider: provider.name, day: '2999-01-01' });
        assert.equal((future.body as unknown as { code: string }).code, 'reconciliation_day_not_over');

        for (const name of ['nope', PROVIDERS.find((other) => other.name !== provider.name)!.name]) {
          const unknown = await run({ provider: name, day: dayBefore });
          assert.equal(unknown.status, 404, name);
          assert.equal((unknown.body as unknown as { code: string }).code, 'rail_provider_not_configured');
        }
        for (const bad of ['2021-02-30', '2021-13-01', 'yesterday', '20210101']) {
          const refused = await run({ provider: provider.name, day: bad });
          assert.equal(refused.status, 400, bad);
          assert.equal((refused.body as unknown as { code: string }).code, 'validation_failed', bad);
        }
        const missing = await run({ provider: provider.name });
        assert.equal(missing.status, 400);
        assert.equal((missing.body as unknown as { code: string }).code, 'validation_failed');
        const anonymous = await server().request<{ code: string }>('POST', '/api/admin/rails/reconciliations', { body: { provider: provider.name, day: dayBefore } });
        assert.equal(anonymous.status, 401);
        const notFound = await admin<{ code: string }>('GET', '/api/admin/rails/reconciliations/rcn_nothing');
        assert.equal(notFound.status, 404);
        assert.equal(notFound.body.code, 'reconciliation_not_found');
        const badFilter = await admin<{ code: string }>('GET', '/api/admin/rails/reconciliations?day=someday');
        assert.equal(badFilter.status, 400);
        assert.equal(badFilter.body.code, 'validation_failed');
        const none = await admin<{ total: number }>('GET', '/api/admin/rails/reconciliations');
        assert.equal(none.body.total, 0, 'nothing recorded by refused requests');
      });

      it('the daily job reconciles yesterday once RECONCILE_AFTER_HOURS have passed: a clean day, and not again', async () => {
        // 01:59 the next day: the day is over but not by 2 hours; the job does the day before.
        clock.set(dayEnd + 2 * HOUR_MS - 60_000);
        assert.deepEqual(await server().context.reconciliation.runOnce(), [{ provider: provider.name, day: dayBefore, status: 'clean' }]);
        const notYet = await admin<{ total: number }>('GET', `/api/admin/rails/reconciliations?day=${day}`);
        assert.equal(notYet.body.total, 0);

        clock.set(dayEnd + 2 * HOUR_MS + 60_000);
        assert.deepEqual(await server().context.reconciliation.runOnce(), [{ provider: provider.name, day, status: 'clean' }]);
        assert.deepEqual(await server().context.reconciliation.runOnce(), [], 'done: not again');

        const listed = await admin<{ data: Reconciliation[]; total: number }>('GET', `/api/admin/rails/reconciliations?provider=${provider.name}&day=${day}`);
        assert.equal(listed.body.total, 1);
        const record = listed.body.data[0]!;
        const paid = await rows([ids.paid, ids.amount, ids.markedFailed]);
        const total = [...paid.values()].reduce((sum, row) => sum + row.destination_amount, 0);
        assert.deepEqual(
          { ...record, id: undefined, createdAt: undefined },
          {
            id: undefined,
            createdAt: undefined,
            provider: provider.name,
            day,
            status: 'clean',
            method: byList ? 'list' : 'by_key',
            // Three paid, one failed at the provider, one reversed at the provider: both sides agree on all five.
            matched: 5,
            mismatched: 0,
            ourTotals: { [currency]: toMajor(total, currency) },
            providerTotals: { [currency]: toMajor(total, currency) },
            clearingNet: { [currency]: 0 },
            // The ledger agrees: the day's payouts left nothing on the provider's own clearing account.
            ledgerClearingNet: { [currency]: 0 },
            clearingBalance: { [currency]: 0 },
            // No collections through the provider that day.
            collectionTotals: {},
            collectionProviderTotals: {},
            // No live bills through the provider that day.
            billTotals: {},
            billProviderTotals: {},
            // No bank transfer into a virtual account went without its webhook.
            bankTransfersRecovered: 0,
            error: null,
            runs: 1,
          },
        );
        assert.equal(record.createdAt, new Date(dayEnd + 2 * HOUR_MS + 60_000).toISOString());
        const detail = await admin('GET', `/api/admin/rails/reconciliations/${record.id}`);
        assert.equal(detail.status, 200);
        assert.deepEqual(detail.body.mismatches, []);
        const older = await admin<{ data: Reconciliation[] }>('GET', `/api/admin/rails/reconciliations?day=${dayBefore}`);
        assert.deepEqual(older.body.data.map((entry) => [entry.status, entry.matched, entry.ourTotals, entry.clearingNet, entry.ledgerClearingNet]), [['clean', 0, {}, {}, {}]]);

        // A restart: a new server on the same database finds the day done.
        const restarted = await restartedApp(server(), clock.now, env);
        try {
          assert.deepEqual(await restarted.context.reconciliation.runOnce(), []);
        } finally {
          await restarted.app.close();
        }
      });

      it('finds each kind of mismatch, and a re-run replaces the day (same id, runs counted)', async () => {
        const adapter = server().context.rails.adapters.get(provider.name)!;
        // provider_only: a payout the provider paid that we show failed.
        await server().db.query(`UPDATE payments SET status = 'failed' WHERE id = $1`, [ids.markedFailed]);
        // amount_differs: we show another amount than the provider paid (seen where the provider's record carries amounts).
        await server().db.query('UPDATE payments SET destination_amount = destination_amount + 100 WHERE id = $1', [ids.amount]);
        // status_differs: the provider reversed it; we show it completed.
        await server().db.query(`UPDATE payments SET status = 'completed' WHERE id = $1`, [ids.reversed]);
        // ours_only: a completed payout the provider never saw.
        const ghost = `pay_recon${randomBytes(12).toString('hex')}`;
        await server().db.query(
          `INSERT INTO payments SELECT (jsonb_populate_record(p, jsonb_build_object('id', $2::text, 'provider_reference', null, 'next_step_at', null))).* FROM payments p WHERE p.id = $1`,
          [ids.paid, ghost],
        );
        // provider_only, unknown to us: a transfer under one of our keys for a payment we never made (list providers only show it).
        const stranger = `pay_stranger${randomBytes(12).toString('hex')}`;
        if (byList) {
          const [row] = await server().db.query<{ rail: PayoutRequest['rail']; to_country: string; destination_amount: number; destination_currency: string; receiver: PayoutRequest['receiver'] }>(
            'SELECT rail, to_country, destination_amount, destination_currency, receiver FROM payments WHERE id = $1',
            [ids.paid],
          );
          const request: PayoutRequest = {
            paymentId: stranger, rail: row!.rail, toCountry: row!.to_country, destinationAmount: row!.destination_amount, destinationCurrency: row!.destination_currency,
            receiver: row!.receiver, receiverName: 'Ada Obi', senderName: 'Shop', reference: null, note: null,
          };
          await adapter.submit(request);
          await until('the stranger paid', async () => ((await adapter.lookup(request))?.status === 'completed' ? true : undefined));
        }

        const jobRecord = (await admin<{ data: Reconciliation[] }>('GET', `/api/admin/rails/reconciliations?provider=${provider.name}&day=${day}`)).body.data[0]!;
        clock.advance(60_000);
        const rerun = await run({ provider: provider.name, day });
        assert.equal(rerun.status, 200, JSON.stringify(rerun.body));
        const record = rerun.body;
        assert.equal(record.id, jobRecord.id, 'the day keeps its record');
        assert.equal(record.runs, 2);
        assert.equal(record.status, 'mismatched');

        const now = await rows([ids.paid, ids.amount, ids.markedFailed, ids.reversed, ghost]);
        const ours = (id: string) => ({ status: now.get(id)!.status, amount: major(now.get(id)!), currency });
        const original = (id: string) => toMajor(now.get(id)!.destination_amount - (id === ids.amount ? 100 : 0), currency);
        const theirs = (status: string, id: string) => ({ status, amount: byList ? original(id) : null, currency: byList ? currency : null });
        const byKind = new Map<string, Mismatch[]>();
        for (const mismatch of record.mismatches) byKind.set(mismatch.kind, [...(byKind.get(mismatch.kind) ?? []), mismatch]);
        const without = (mismatch: Mismatch) => ({ ...mismatch, providerReference: undefined });

        const providerOnly = byKind.get('provider_only') ?? [];
        assert.deepEqual(without(providerOnly.find((mismatch) => mismatch.paymentId === ids.markedFailed)!), {
          kind: 'provider_only', direction: 'payout', paymentId: ids.markedFailed, providerReference: undefined, ours: ours(ids.markedFailed), theirs: theirs('completed', ids.markedFailed),
        });
        assert.deepEqual(byKind.get('ours_only')?.map(without), [{ kind: 'ours_only', direction: 'payout', paymentId: ghost, providerReference: undefined, ours: ours(ghost), theirs: null }]);
        assert.deepEqual(byKind.get('status_differs')?.map(without), [{ kind: 'status_differs', direction: 'payout', paymentId: ids.reversed, providerReference: undefined, ours: ours(ids.reversed), theirs: theirs('reversed', ids.reversed) }]);
        if (byList) {
          assert.deepEqual(byKind.get('amount_differs')?.map(without), [{ kind: 'amount_differs', direction: 'payout', paymentId: ids.amount, providerReference: undefined, ours: ours(ids.amount), theirs: theirs('completed', ids.amount) }]);
          const unknown = providerOnly.find((mismatch) => mismatch.paymentId === null);
          assert.ok(unknown, JSON.stringify(providerOnly));
          assert.deepEqual({ ...unknown, providerReference: undefined }, { kind: 'provider_only', direction: 'payout', paymentId: null, providerReference: undefined, ours: null, theirs: theirs('completed', ids.paid) });
          assert.ok(unknown.providerReference, 'the provider reference of a payout unknown to us is reported');
          assert.equal(providerOnly.length, 2);
        } else {
          // A status query by key carries no amount: the amount change is not seen, the payout matches.
          assert.equal(byKind.get('amount_differs'), undefined);
          assert.equal(providerOnly.length, 1);
        }
        // Matched: the payout left alone, the one failed on both sides, and (by key) the one whose amount changed.
        assert.equal(record.matched, byList ? 2 : 3);
        assert.equal(record.mismatched, record.mismatches.length);
        assert.equal(record.mismatched, byList ? 5 : 3);
        // Our completed: paid, amount (+100 minor), reversed (now completed), ghost. The provider's: paid, amount, markedFailed (+ the stranger).
        const minor = (id: string) => now.get(id)!.destination_amount;
        assert.deepEqual(record.ourTotals, { [currency]: toMajor(minor(ids.paid) + minor(ids.amount) + minor(ids.reversed) + minor(ghost), currency) });
        const providerPaid = byList
          ? minor(ids.paid) + (minor(ids.amount) - 100) + minor(ids.markedFailed) + minor(ids.paid)
          : minor(ids.paid) + minor(ids.amount) + minor(ids.markedFailed);
        assert.deepEqual(record.providerTotals, { [currency]: toMajor(providerPaid, currency) });
        assert.deepEqual(record.clearingNet, { [currency]: 0 });
        // Changing our side in the database moved no money: the provider's clearing still nets to zero.
        assert.deepEqual([record.ledgerClearingNet, record.clearingBalance], [{ [currency]: 0 }, { [currency]: 0 }]);

        const stored = await admin('GET', `/api/admin/rails/reconciliations/${record.id}`);
        assert.deepEqual(stored.body, record);
        const listed = await admin<{ data: Reconciliation[]; total: number; limit: number; offset: number }>('GET', '/api/admin/rails/reconciliations?limit=1&offset=1');
        assert.deepEqual({ ...listed.body, data: listed.body.data.map((entry) => entry.day) }, { data: [dayBefore], total: 2, limit: 1, offset: 0 + 1 });
        const other = await admin<{ total: number }>(`GET`, `/api/admin/rails/reconciliations?provider=${provider.name === 'momo' ? 'mpesa' : 'momo'}`);
        assert.equal(other.body.total, 0);
      });

      it('a provider that cannot be reached: the day is recorded failed with the error, and retried by the job an hour later', async () => {
        await fake.stop();
        fakeRunning = false;
        clock.advance(60_000);
        const failed = await run({ provider: provider.name, day });
        assert.equal(failed.status, 200, JSON.stringify(failed.body));
        assert.equal(failed.body.status, 'failed');
        assert.equal(failed.body.runs, 3);
        assert.ok(failed.body.error && failed.body.error.length > 10, String(failed.body.error));
        assert.deepEqual([failed.body.matched, failed.body.mismatched, failed.body.mismatches, failed.body.providerTotals], [0, 0, [], {}]);
        // Our side is still reported: what we show paid, and what is still in clearing (nothing).
        assert.equal(Object.keys(failed.body.ourTotals).join(), currency);
        assert.deepEqual(failed.body.clearingNet, { [currency]: 0 });
        assert.deepEqual(failed.body.ledgerClearingNet, { [currency]: 0 });

        clock.advance(30 * 60_000);
        assert.deepEqual(await server().context.reconciliation.runOnce(), [], 'a failed day is not retried at once');
        clock.advance(31 * 60_000);
        assert.deepEqual(await server().context.reconciliation.runOnce(), [{ provider: provider.name, day, status: 'failed' }]);
        assert.equal((await admin('GET', `/api/admin/rails/reconciliations/${failed.body.id}`)).body.runs, 4);
      });
    });
  }
}
