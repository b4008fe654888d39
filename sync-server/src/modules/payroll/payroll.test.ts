import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { balanceMinor, systemBalance } from '../../testing/ledger.ts';
import { ManualClock } from '../../testing/receiver.ts';
import { ADMIN, type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';
import { checkLedger } from '../../ledger/check.ts';

type Run = {
  id: string;
  status: string;
  currency: string;
  mode: string;
  description: string | null;
  reference: string | null;
  itemCount: number;
  totalAmount: number;
  paidAmount: number;
  counts: { pending: number; paid: number; failed: number };
  submittedAt: string | null;
  endedAt: string | null;
  skipped?: { index: number; externalRef: string; reason: string }[];
  code?: string;
  error?: string;
  details?: { runId?: string; index?: number; code?: string }[];
};
type Item = {
  id: string;
  runId: string;
  status: string;
  amount: number;
  currency: string;
  handle?: string;
  rail?: string;
  receiver?: Record<string, string>;
  toCode?: string;
  externalRef: string | null;
  failureReason?: string;
  transferId?: string;
  paymentId?: string;
  code?: string;
};
type List<T> = { data: T[]; total: number; limit: number; offset: number };

const NIGERIA_PHONE = '+2348031234567';
const STEP_MS = 1500;

/** `count` handles, as a tuple of that length. */
type Handles<N extends number, Found extends string[] = []> = Found['length'] extends N ? Found : Handles<N, [...Found, string]>;

/** Empty customer wallets of the given currency and mode: the people a run pays. */
async function people<N extends number>(server: TestServer, count: N, options: { currency?: string; mode?: 'test' | 'live' } = {}): Promise<Handles<N>> {
  const handles: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const handle = uniqueHandle('staff');
    await server.createWallet({ handle, ...(options.currency ? { currency: options.currency } : {}), ...(options.mode ? { mode: options.mode } : {}) });
    handles.push(handle);
  }
  return handles as Handles<N>;
}

async function payrollEvents(server: TestServer, merchantId: string, type: string): Promise<Record<string, unknown>[]> {
  const rows = await server.db.query<{ body: string }>('SELECT body FROM events WHERE merchant_id = $1 AND type = $2 ORDER BY created_at, id', [merchantId, type]);
  return rows.map((row) => JSON.parse(row.body) as Record<string, unknown>);
}

for (const target of await databaseTargets()) {
  describe(`payroll on ${target.name}`, () => {
    const clock = new ManualClock(Date.parse('2026-11-24T09:00:00.000Z'));
    // No tier limit on what people may receive: these tests pay sums as large as a merchant's float
    // (a payroll item past a person's tier is tested in wallets/tier-gaps.test.ts).
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 10, env: { SANDBOX_STEP_MS: String(STEP_MS), WALLET_TIER1_MAX_BALANCE_USD: 'none', WALLET_TIER1_DAILY_IN_USD: 'none' } });

    const key = (apiKey: string, extra: Record<string, string> = {}) => ({ 'x-merchant-api-key': apiKey, ...extra });
    const createRun = (apiKey: string, body: unknown, headers: Record<string, string> = {}) => server().request<Run>('POST', '/api/payroll/runs', { headers: key(apiKey, headers), body });
    const submit = (apiKey: string, runId: string, headers: Record<string, string> = {}) => server().request<Run>('POST', `/api/payroll/runs/${runId}/submit`, { headers: key(apiKey, headers) });
    const getRun = (apiKey: string, runId: string) => server().request<Run>('GET', `/api/payroll/runs/${runId}`, { headers: key(apiKey) });
    const items = (apiKey: string, runId: string) => server().request<List<Item>>('GET', `/api/payroll/items?runId=${runId}&limit=100`, { headers: key(apiKey) });
    const merchantBalance = (handle: string, mode: 'test' | 'live' = 'test') => balanceMinor(server(), handle, 'NGN', mode);

    it('creates a draft run with items, reads it with its totals, lists runs and items', async () => {
      const merchant = await server().createMerchant();
      const [ada, bayo] = await people(server(), 2);
      const created = await createRun(merchant.testKey, {
        currency: 'ngn',
        description: 'November salaries',
        reference: 'NOV-2026',
        items: [
          { handle: `@${ada}`, amount: 1250.5, externalRef: 'EMP-1' },
          { handle: bayo, amount: 800, externalRef: 'EMP-2', reference: 'bonus' },
          { rail: 'mobile_money', receiver: NIGERIA_PHONE, toCode: 'NG', receiverName: 'Chidi Okeke', amount: 300, externalRef: 'EMP-3' },
        ],
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const run = created.body;
      assert.match(run.id, /^prun_/);
      assert.equal(run.status, 'draft');
      assert.equal(run.currency, 'NGN');
      assert.equal(run.mode, 'test');
      assert.equal(run.description, 'November salaries');
      assert.equal(run.reference, 'NOV-2026');
      assert.equal(run.itemCount, 3);
      assert.equal(run.totalAmount, 2350.5);
      assert.equal(run.paidAmount, 0);
      assert.deepEqual(run.counts, { pending: 3, paid: 0, failed: 0 });
      assert.deepEqual(run.skipped, []);
      assert.equal(run.submittedAt, null);

      const read = await getRun(merchant.testKey, run.id);
      assert.equal(read.status, 200);
      assert.equal(read.body.totalAmount, 2350.5);
      assert.equal(read.body.skipped, undefined);

      const listed = await items(merchant.testKey, run.id);
      assert.equal(listed.status, 200);
      assert.equal(listed.body.total, 3);
      assert.deepEqual(listed.body.data.map((item) => [item.handle ?? item.rail, item.amount, item.externalRef, item.status]), [
        [`@${ada}`, 1250.5, 'EMP-1', 'pending'],
        [`@${bayo}`, 800, 'EMP-2', 'pending'],
        ['mobile_money', 300, 'EMP-3', 'pending'],
      ]);
      assert.deepEqual(listed.body.data[2]!.receiver, { type: 'phone', phone: NIGERIA_PHONE });
      assert.equal(listed.body.data[2]!.toCode, 'NG');

      const second = await createRun(merchant.testKey, { currency: 'NGN' });
      assert.equal(second.status, 201);
      assert.equal(second.body.itemCount, 0);
      assert.equal(second.body.totalAmount, 0);
      const all = await server().request<List<Run>>('GET', '/api/payroll/runs', { headers: key(merchant.testKey) });
      assert.equal(all.body.total, 2);
      assert.deepEqual(all.body.data.map((entry) => entry.id).sort(), [run.id, second.body.id].sort());
      assert.equal(all.body.limit, 20);
      const cancelled = await server().request<Run>('POST', `/api/payroll/runs/${second.body.id}/cancel`, { headers: key(merchant.testKey) });
      assert.equal(cancelled.body.status, 'cancelled');
      assert.ok(cancelled.body.endedAt);
      const drafts = await server().request<List<Run>>('GET', '/api/payroll/runs?status=draft', { headers: key(merchant.testKey) });
      assert.deepEqual(drafts.body.data.map((entry) => entry.id), [run.id]);
      assert.equal(drafts.body.total, 1);
    });

    it('edits a draft: add, duplicate externalRef (409 on /items, skipped on bulk), delete; nothing changes once submitted or cancelled', async () => {
      const merchant = await server().createMerchant();
      const [ada, bayo, chi] = await people(server(), 3);
      const created = await createRun(merchant.testKey, {
        currency: 'NGN',
        items: [
          { handle: ada, amount: 10, externalRef: 'A' },
          { handle: bayo, amount: 20, externalRef: 'A' },
          { handle: bayo, amount: 30, externalRef: 'B' },
        ],
      });
      assert.equal(created.status, 201);
      assert.equal(created.body.itemCount, 2);
      assert.deepEqual(created.body.skipped, [{ index: 1, externalRef: 'A', reason: 'externalRef repeats an earlier item of this run' }]);
      const runId = created.body.id;

      const added = await server().request<Item>('POST', '/api/payroll/items', { headers: key(merchant.testKey), body: { runId, handle: `@${chi}`, amount: 5.25, externalRef: 'C' } });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      assert.match(added.body.id, /^pitm_/);
      assert.equal(added.body.amount, 5.25);
      assert.equal(added.body.currency, 'NGN');
      assert.equal(added.body.status, 'pending');
      const duplicate = await server().request<Item>('POST', '/api/payroll/items', { headers: key(merchant.testKey), body: { runId, handle: chi, amount: 1, externalRef: 'B' } });
      assert.equal(duplicate.status, 409);
      assert.equal(duplicate.body.code, 'external_ref_taken');

      const [first] = (await items(merchant.testKey, runId)).body.data;
      const removed = await server().request('DELETE', `/api/payroll/items/${first!.id}`, { headers: key(merchant.testKey) });
      assert.equal(removed.status, 200);
      assert.deepEqual(removed.body, { id: first!.id, deleted: true });
      const again = await server().request<Item>('DELETE', `/api/payroll/items/${first!.id}`, { headers: key(merchant.testKey) });
      assert.equal(again.status, 404);
      assert.equal(again.body.code, 'payroll_item_not_found');
      const run = await getRun(merchant.testKey, runId);
      assert.equal(run.body.itemCount, 2);
      assert.equal(run.body.totalAmount, 35.25);

      const paid = await submit(merchant.testKey, runId);
      assert.equal(paid.status, 200);
      assert.equal(paid.body.status, 'completed');
      const lateAdd = await server().request<Item>('POST', '/api/payroll/items', { headers: key(merchant.testKey), body: { runId, handle: ada, amount: 1 } });
      assert.equal(lateAdd.status, 409);
      assert.equal(lateAdd.body.code, 'payroll_run_not_draft');
      const lateDelete = await server().request<Item>('DELETE', `/api/payroll/items/${added.body.id}`, { headers: key(merchant.testKey) });
      assert.equal(lateDelete.status, 409);
      const lateCancel = await server().request<Run>('POST', `/api/payroll/runs/${runId}/cancel`, { headers: key(merchant.testKey) });
      assert.equal(lateCancel.status, 409);
      const resubmit = await submit(merchant.testKey, runId);
      assert.equal(resubmit.status, 409);
      assert.equal(resubmit.body.code, 'payroll_run_not_draft');

      const other = await createRun(merchant.testKey, { currency: 'NGN', items: [{ handle: ada, amount: 1 }] });
      const cancelled = await server().request<Run>('POST', `/api/payroll/runs/${other.body.id}/cancel`, { headers: key(merchant.testKey) });
      assert.equal(cancelled.body.status, 'cancelled');
      const submitCancelled = await submit(merchant.testKey, other.body.id);
      assert.equal(submitCancelled.status, 409);
      assert.equal(await balanceMinor(server(), ada, 'NGN'), 0, 'the cancelled run paid nothing');
    });

    it('submit pays every handle exactly in one transaction, ends the run completed and writes payroll.run.completed', async () => {
      const merchant = await server().createMerchant();
      const handles = await people(server(), 3);
      const before = await merchantBalance(merchant.handle);
      const created = await createRun(merchant.testKey, {
        currency: 'NGN',
        reference: 'NOV',
        items: [
          { handle: handles[0], amount: 1000.01 },
          { handle: handles[1], amount: 2500 },
          { handle: handles[2], amount: 0.99 },
          { handle: handles[0], amount: 10 },
        ],
      });
      const submitted = await submit(merchant.testKey, created.body.id);
      assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
      assert.equal(submitted.body.status, 'completed');
      assert.deepEqual(submitted.body.counts, { pending: 0, paid: 4, failed: 0 });
      assert.equal(submitted.body.paidAmount, 3511);
      assert.ok(submitted.body.submittedAt);
      assert.ok(submitted.body.endedAt);
      assert.equal(await merchantBalance(merchant.handle), before - 351_100);
      assert.equal(await balanceMinor(server(), handles[0]!, 'NGN'), 101_001);
      assert.equal(await balanceMinor(server(), handles[1]!, 'NGN'), 250_000);
      assert.equal(await balanceMinor(server(), handles[2]!, 'NGN'), 99);

      const listed = await items(merchant.testKey, created.body.id);
      assert.ok(listed.body.data.every((item) => item.status === 'paid' && item.transferId === `payroll:${created.body.id}:0`));
      const transfers = await server().db.query<{ id: string; kind: string }>('SELECT id, kind FROM ledger_transfers WHERE id LIKE $1', [`payroll:${created.body.id}:%`]);
      assert.deepEqual(transfers, [{ id: `payroll:${created.body.id}:0`, kind: 'payroll_disbursement' }]);

      const [event] = await payrollEvents(server(), merchant.id, 'payroll.run.completed');
      assert.ok(event);
      assert.match(String(event.id), /^evt_/);
      assert.equal(event.runId, created.body.id);
      assert.equal(event.status, 'completed');
      assert.equal(event.totalAmount, 3511);
      assert.equal(event.paidAmount, 3511);
      assert.equal(event.paidCount, 4);
      assert.equal(event.failedCount, 0);
      assert.equal(event.reference, 'NOV');
      assert.deepEqual((await checkLedger(server().db)).violations, []);
    });

    it('a run of more recipients than one transfer takes is paid by several transfers in the same transaction', async () => {
      const merchant = await server().createMerchant();
      const handles = await people(server(), 70);
      const created = await createRun(merchant.testKey, { currency: 'NGN', items: handles.map((handle, index) => ({ handle, amount: index + 1 })) });
      assert.equal(created.body.itemCount, 70);
      const before = await merchantBalance(merchant.handle);
      const submitted = await submit(merchant.testKey, created.body.id);
      assert.equal(submitted.body.status, 'completed');
      assert.equal(submitted.body.paidAmount, (70 * 71) / 2);
      assert.equal(await merchantBalance(merchant.handle), before - ((70 * 71) / 2) * 100);
      assert.equal(await balanceMinor(server(), handles[69]!, 'NGN'), 7000);
      const transfers = await server().db.query<{ id: string }>('SELECT id FROM ledger_transfers WHERE id LIKE $1 ORDER BY id', [`payroll:${created.body.id}:%`]);
      assert.deepEqual(transfers.map((row) => row.id), [`payroll:${created.body.id}:0`, `payroll:${created.body.id}:1`]);
    });

    it('insufficient merchant funds: 422 insufficient_funds, nothing moves, the run stays a draft', async () => {
      const merchant = await server().createMerchant();
      const [ada, bayo] = await people(server(), 2);
      const before = await merchantBalance(merchant.handle);
      const created = await createRun(merchant.testKey, {
        currency: 'NGN',
        items: [
          { handle: ada, amount: 100 },
          { rail: 'mobile_money', receiver: NIGERIA_PHONE, toCode: 'NG', amount: 100 },
          { handle: bayo, amount: before / 100 },
        ],
      });
      const refused = await submit(merchant.testKey, created.body.id);
      assert.equal(refused.status, 422);
      assert.equal(refused.body.code, 'insufficient_funds');
      assert.equal(await merchantBalance(merchant.handle), before);
      assert.equal(await balanceMinor(server(), ada, 'NGN'), 0);
      assert.equal(await balanceMinor(server(), bayo, 'NGN'), 0);
      const run = await getRun(merchant.testKey, created.body.id);
      assert.equal(run.body.status, 'draft');
      assert.deepEqual(run.body.counts, { pending: 3, paid: 0, failed: 0 });
      const payments = await server().db.query('SELECT id FROM payments WHERE merchant_id = $1', [merchant.id]);
      assert.equal(payments.length, 0);
      assert.deepEqual(await payrollEvents(server(), merchant.id, 'payroll.run.completed'), []);

      const oneCall = await server().request<Run>('POST', '/api/payroll', {
        headers: key(merchant.testKey, { 'idempotency-key': 'too-much' }),
        body: { currency: 'NGN', items: [{ handle: ada, amount: before / 100 + 1 }] },
      });
      assert.equal(oneCall.status, 422);
      assert.equal(oneCall.body.code, 'insufficient_funds');
      const left = oneCall.body.details![0]!.runId!;
      assert.equal((await getRun(merchant.testKey, left)).body.status, 'draft');
      assert.equal(await merchantBalance(merchant.handle), before);
    });

    it('idempotent submit and one-call create: the same key twice pays once and replays the answer', async () => {
      const merchant = await server().createMerchant();
      const [ada] = await people(server(), 1);
      const before = await merchantBalance(merchant.handle);
      const created = await createRun(merchant.testKey, { currency: 'NGN', items: [{ handle: ada, amount: 50 }] });
      const first = await submit(merchant.testKey, created.body.id, { 'idempotency-key': 'submit-1' });
      const second = await submit(merchant.testKey, created.body.id, { 'idempotency-key': 'submit-1' });
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      assert.equal(second.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(second.body, first.body);
      assert.equal(await balanceMinor(server(), ada, 'NGN'), 5000);

      const missingKey = await server().request<Run>('POST', '/api/payroll', { headers: key(merchant.testKey), body: { currency: 'NGN', items: [{ handle: ada, amount: 1 }] } });
      assert.equal(missingKey.status, 400);
      assert.equal(missingKey.body.code, 'idempotency_key_required');

      const body = { currency: 'NGN', description: 'Weekly wages', items: [{ handle: `@${ada}`, amount: 70, externalRef: 'W1' }] };
      const made = await server().request<Run>('POST', '/api/payroll', { headers: key(merchant.testKey, { 'idempotency-key': 'wages-week-48' }), body });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal(made.body.status, 'completed');
      assert.equal(made.body.paidAmount, 70);
      const replay = await server().request<Run>('POST', '/api/payroll', { headers: key(merchant.testKey, { 'idempotency-key': 'wages-week-48' }), body });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(replay.body.id, made.body.id);
      const reused = await server().request<Run>('POST', '/api/payroll', { headers: key(merchant.testKey, { 'idempotency-key': 'wages-week-48' }), body: { ...body, currency: 'NGN', description: 'other' } });
      assert.equal(reused.status, 422);
      assert.equal(reused.body.code, 'idempotency_key_reused');
      assert.equal(await balanceMinor(server(), ada, 'NGN'), 12_000);
      assert.equal(await merchantBalance(merchant.handle), before - 12_000);
      const runs = await server().request<List<Run>>('GET', '/api/payroll/runs', { headers: key(merchant.testKey) });
      assert.equal(runs.body.total, 2);
    });

    it('two concurrent submits of one run: exactly one pays, the other is a 409', async () => {
      const merchant = await server().createMerchant();
      const [ada, bayo] = await people(server(), 2);
      const before = await merchantBalance(merchant.handle);
      const created = await createRun(merchant.testKey, { currency: 'NGN', items: [{ handle: ada, amount: 40 }, { handle: bayo, amount: 60 }] });
      const answers = await Promise.all([submit(merchant.testKey, created.body.id), submit(merchant.testKey, created.body.id), submit(merchant.testKey, created.body.id)]);
      assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 409, 409]);
      assert.ok(answers.filter((answer) => answer.status === 409).every((answer) => answer.body.code === 'payroll_run_not_draft'));
      assert.equal(await balanceMinor(server(), ada, 'NGN'), 4000);
      assert.equal(await balanceMinor(server(), bayo, 'NGN'), 6000);
      assert.equal(await merchantBalance(merchant.handle), before - 10_000);
      assert.equal((await payrollEvents(server(), merchant.id, 'payroll.run.completed')).length, 1);
    });

    it('a rail item in test mode is a payment the sandbox scheduler completes; the run completes with it', async () => {
      const merchant = await server().createMerchant();
      const [ada] = await people(server(), 1);
      const before = await merchantBalance(merchant.handle);
      const clearing = await systemBalance(server(), 'rail_clearing', 'NGN');
      const created = await createRun(merchant.testKey, {
        currency: 'NGN',
        items: [
          { handle: ada, amount: 100 },
          { rail: 'mobile_money', receiver: NIGERIA_PHONE, toCode: 'NG', receiverName: 'Chidi Okeke', amount: 200, externalRef: 'MM-1' },
        ],
      });
      const submitted = await submit(merchant.testKey, created.body.id);
      assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
      assert.equal(submitted.body.status, 'processing');
      assert.deepEqual(submitted.body.counts, { pending: 1, paid: 1, failed: 0 });
      // 100 to @ada, 200 + the mobile-money fee (1.5%: 3.00) to rail clearing and fees.
      assert.equal(await merchantBalance(merchant.handle), before - 10_000 - 20_000 - 300);
      assert.equal(await systemBalance(server(), 'rail_clearing', 'NGN'), clearing + 20_000);

      const rail = (await items(merchant.testKey, created.body.id)).body.data.find((item) => item.rail)!;
      assert.equal(rail.status, 'pending');
      assert.match(rail.paymentId!, /^pay_/);
      const payment = await server().request<{ status: string; amount: number; fee: number; reference: string | null }>('GET', `/api/payments/${rail.paymentId}`, { headers: key(merchant.testKey) });
      assert.equal(payment.status, 200);
      assert.equal(payment.body.status, 'pending');
      assert.equal(payment.body.amount, 200);
      assert.equal(payment.body.fee, 3);

      clock.advance(STEP_MS);
      await server().context.payments.runOnce();
      assert.equal((await getRun(merchant.testKey, created.body.id)).body.status, 'processing');
      clock.advance(STEP_MS);
      await server().context.payments.runOnce();
      const done = await getRun(merchant.testKey, created.body.id);
      assert.equal(done.body.status, 'completed');
      assert.deepEqual(done.body.counts, { pending: 0, paid: 2, failed: 0 });
      assert.equal(done.body.paidAmount, 300);
      const paidItem = (await server().request<Item>('GET', `/api/payroll/items/${rail.id}`, { headers: key(merchant.testKey) })).body;
      assert.equal(paidItem.status, 'paid');
      assert.equal(await systemBalance(server(), 'rail_clearing', 'NGN'), clearing);
      const events = await payrollEvents(server(), merchant.id, 'payroll.run.completed');
      assert.equal(events.length, 1);
      assert.equal(events[0]!.paidCount, 2);
      assert.equal((await payrollEvents(server(), merchant.id, 'payment.completed')).length, 1);
      assert.deepEqual((await checkLedger(server().db)).violations, []);
    });

    it('a rail payout that fails (sandbox test_failure) fails its item and returns its money: the run is partially_failed', async () => {
      const merchant = await server().createMerchant();
      const [ada] = await people(server(), 1);
      const before = await merchantBalance(merchant.handle);
      const created = await createRun(merchant.testKey, {
        currency: 'NGN',
        items: [
          { handle: ada, amount: 100 },
          { rail: 'bank_transfer', receiver: { accountNumber: '0123456789', bankCode: '058' }, toCode: 'NG', amount: 500, reference: 'test_failure', externalRef: 'BANK-1' },
        ],
      });
      const submitted = await submit(merchant.testKey, created.body.id);
      assert.equal(submitted.body.status, 'partially_failed');
      assert.deepEqual(submitted.body.counts, { pending: 0, paid: 1, failed: 1 });
      assert.equal(submitted.body.paidAmount, 100);
      assert.equal(await merchantBalance(merchant.handle), before - 10_000);
      const failed = (await items(merchant.testKey, created.body.id)).body.data.find((item) => item.rail)!;
      assert.equal(failed.status, 'failed');
      assert.match(failed.failureReason!, /test_failure/);
      const [itemEvent] = await payrollEvents(server(), merchant.id, 'payroll.item.failed');
      assert.equal(itemEvent!.itemId, failed.id);
      assert.equal(itemEvent!.externalRef, 'BANK-1');
      assert.equal(itemEvent!.amount, 500);
      const [runEvent] = await payrollEvents(server(), merchant.id, 'payroll.run.completed');
      assert.equal(runEvent!.status, 'partially_failed');
      assert.equal(runEvent!.failedCount, 1);
      assert.deepEqual((await checkLedger(server().db)).violations, []);
    });

    it('a payout reversed after its run ended fails its item and returns its money; the run keeps its status', async () => {
      const merchant = await server().createMerchant();
      const before = await merchantBalance(merchant.handle);
      const created = await createRun(merchant.testKey, { currency: 'NGN', items: [{ rail: 'mobile_money', receiver: NIGERIA_PHONE, toCode: 'NG', amount: 1000, reference: 'test_reversal' }] });
      const submitted = await submit(merchant.testKey, created.body.id);
      assert.equal(submitted.body.status, 'completed');
      assert.equal(await merchantBalance(merchant.handle), before - 101_500);
      clock.advance(STEP_MS);
      await server().context.payments.runOnce();
      const [item] = (await items(merchant.testKey, created.body.id)).body.data;
      assert.equal(item!.status, 'failed');
      assert.match(item!.failureReason!, /reversed/);
      assert.equal(await merchantBalance(merchant.handle), before);
      const run = await getRun(merchant.testKey, created.body.id);
      assert.equal(run.body.status, 'completed');
      assert.deepEqual(run.body.counts, { pending: 0, paid: 0, failed: 1 });
      assert.equal((await payrollEvents(server(), merchant.id, 'payroll.item.failed')).length, 1);
      assert.deepEqual((await checkLedger(server().db)).violations, []);
    });

    it('the OpenAPI document describes every payroll endpoint', async () => {
      const doc = await server().request<{ paths: Record<string, Record<string, { description?: string; summary?: string; tags?: string[] }>> }>('GET', '/docs/json');
      assert.equal(doc.status, 200);
      const expected: [string, string][] = [
        ['/api/payroll', 'post'], ['/api/payroll/runs', 'post'], ['/api/payroll/runs', 'get'], ['/api/payroll/runs/{runId}', 'get'],
        ['/api/payroll/runs/{runId}/submit', 'post'], ['/api/payroll/runs/{runId}/cancel', 'post'], ['/api/payroll/items', 'post'],
        ['/api/payroll/items', 'get'], ['/api/payroll/items/{itemId}', 'get'], ['/api/payroll/items/{itemId}', 'delete'],
      ];
      for (const [path, method] of expected) {
        const operation = doc.body.paths[path]?.[method];
        assert.ok(operation?.summary, `${method} ${path}`);
        assert.deepEqual(operation.tags, ['payroll']);
      }
      assert.match(doc.body.paths['/api/payroll']!.post!.description!, /partially_failed/);
    });

    it('404 for another merchant\'s runs and items, and for the other mode of the same merchant', async () => {
      const merchant = await server().createMerchant();
      const other = await server().createMerchant();
      const [ada] = await people(server(), 1);
      const created = await createRun(merchant.testKey, { currency: 'NGN', items: [{ handle: ada, amount: 1 }] });
      const itemId = (await items(merchant.testKey, created.body.id)).body.data[0]!.id;
      for (const foreign of [other.testKey, merchant.liveKey]) {
        assert.equal((await getRun(foreign, created.body.id)).status, 404);
        assert.equal((await submit(foreign, created.body.id)).status, 404);
        assert.equal((await server().request('POST', `/api/payroll/runs/${created.body.id}/cancel`, { headers: key(foreign) })).status, 404);
        assert.equal((await items(foreign, created.body.id)).status, 404);
        assert.equal((await server().request('GET', `/api/payroll/items/${itemId}`, { headers: key(foreign) })).status, 404);
        assert.equal((await server().request('DELETE', `/api/payroll/items/${itemId}`, { headers: key(foreign) })).status, 404);
        const add = await server().request<Item>('POST', '/api/payroll/items', { headers: key(foreign), body: { runId: created.body.id, handle: ada, amount: 1 } });
        assert.equal(add.status, 404);
        assert.equal(add.body.code, 'payroll_run_not_found');
        const listed = await server().request<List<Run>>('GET', '/api/payroll/runs', { headers: key(foreign) });
        assert.ok(!listed.body.data.some((run) => run.id === created.body.id));
      }
      assert.equal((await getRun(merchant.testKey, 'prun_nothing')).status, 404);
      assert.equal((await server().request('GET', '/api/payroll/runs')).status, 401);
      assert.equal((await getRun(merchant.testKey, created.body.id)).body.status, 'draft', 'nothing above changed the run');
    });

    it('validation: 400 for bad amounts, destinations, currencies, limits; unknown handles 404', async () => {
      const merchant = await server().createMerchant();
      const [ada] = await people(server(), 1);
      const [kenyan] = await people(server(), 1, { currency: 'KES', mode: 'test' });
      const cases: [unknown, number, string][] = [
        [{ currency: 'NGN', items: [{ handle: ada, amount: 1.001 }] }, 400, 'amount_too_many_decimals'],
        [{ currency: 'NGN', items: [{ handle: ada, amount: -5 }] }, 400, 'amount_must_be_positive'],
        [{ currency: 'NGN', items: [{ handle: ada, amount: 0 }] }, 400, 'amount_must_not_be_zero'],
        [{ currency: 'NGN', items: [{ handle: ada, amount: '10' }] }, 400, 'validation_failed'],
        [{ currency: 'NGN', items: [{ handle: ada, amount: 1e13 }] }, 400, 'amount_too_large'],
        [{ currency: 'NGN', items: [{ amount: 10 }] }, 400, 'item_destination_invalid'],
        [{ currency: 'NGN', items: [{ handle: ada, rail: 'mobile_money', receiver: NIGERIA_PHONE, toCode: 'NG', amount: 10 }] }, 400, 'item_destination_invalid'],
        [{ currency: 'NGN', items: [{ rail: 'mobile_money', receiver: NIGERIA_PHONE, amount: 10 }] }, 400, 'item_destination_invalid'],
        [{ currency: 'NGN', items: [{ rail: 'wallet', receiver: `@${ada}`, toCode: 'NG', amount: 10 }] }, 400, 'validation_failed'],
        [{ currency: 'NGN', items: [{ rail: 'mobile_money', receiver: '0123456789', toCode: 'NG', amount: 10 }] }, 400, 'receiver_invalid'],
        [{ currency: 'NGN', items: [{ rail: 'bank_transfer', receiver: '0123456789', toCode: 'ZZ', amount: 10 }] }, 400, 'country_not_supported'],
        [{ currency: 'NGN', items: [{ handle: kenyan, amount: 10 }] }, 400, 'currency_mismatch'],
        [{ currency: 'NGN', items: [{ handle: merchant.handle, amount: 10 }] }, 400, 'receiver_is_sender'],
        [{ currency: 'NGN', items: [{ handle: 'nobody_here', amount: 10 }] }, 404, 'recipient_not_found'],
        [{ currency: 'XYZ' }, 400, 'currency_not_supported'],
        [{ items: [] }, 400, 'validation_failed'],
        [{ currency: 'NGN', items: Array.from({ length: 501 }, () => ({ handle: ada, amount: 1 })) }, 400, 'validation_failed'],
      ];
      for (const [body, status, code] of cases) {
        const answer = await createRun(merchant.testKey, body);
        assert.equal(answer.status, status, `${JSON.stringify(body).slice(0, 120)} -> ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.code, code, JSON.stringify(answer.body));
      }
      const indexed = await createRun(merchant.testKey, { currency: 'NGN', items: [{ handle: ada, amount: 1 }, { handle: ada, amount: 1.001 }] });
      assert.match(indexed.body.error!, /^items\[1\]: /);
      assert.deepEqual(indexed.body.details, [{ index: 1, code: 'amount_too_many_decimals' }]);
      assert.equal((await server().request<List<Run>>('GET', '/api/payroll/runs', { headers: key(merchant.testKey) })).body.total, 0, 'no refused request made a run');

      const full = await createRun(merchant.testKey, { currency: 'NGN', items: Array.from({ length: 500 }, () => ({ handle: ada, amount: 1 })) });
      assert.equal(full.status, 201);
      assert.equal(full.body.itemCount, 500);
      const beyond = await server().request<Item>('POST', '/api/payroll/items', { headers: key(merchant.testKey), body: { runId: full.body.id, handle: ada, amount: 1 } });
      assert.equal(beyond.status, 400);
      assert.equal(beyond.body.code, 'too_many_items');
      const noRun = await server().request<Item>('POST', '/api/payroll/items', { headers: key(merchant.testKey), body: { handle: ada, amount: 1 } });
      assert.equal(noRun.status, 400);
      assert.equal((await server().request('GET', '/api/payroll/items', { headers: key(merchant.testKey) })).status, 400);
      assert.equal((await server().request('GET', '/api/payroll/runs?limit=101', { headers: key(merchant.testKey) })).status, 400);
      assert.equal((await server().request('GET', '/api/payroll/runs?status=paid', { headers: key(merchant.testKey) })).status, 400);
      const empty = await createRun(merchant.testKey, { currency: 'NGN' });
      const emptySubmit = await submit(merchant.testKey, empty.body.id);
      assert.equal(emptySubmit.status, 422);
      assert.equal(emptySubmit.body.code, 'payroll_run_empty');
    });
  });

  describe(`payroll: live mode on ${target.name}`, () => {
    const clock = new ManualClock(Date.parse('2026-11-24T09:00:00.000Z'));
    const server = useTestServer(target, { now: clock.now });

    it('a live rail without a payout adapter fails its item without keeping its money; on-us items are paid', async () => {
      const merchant = await server().createMerchant();
      const credited = await server().request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 1000, currency: 'NGN', mode: 'live' } });
      assert.equal(credited.status, 200);
      const [ada] = await people(server(), 1, { mode: 'live' });
      const headers = { 'x-merchant-api-key': merchant.liveKey, 'idempotency-key': 'live-run-1' };
      const made = await server().request<Run>('POST', '/api/payroll', {
        headers,
        body: {
          currency: 'NGN',
          items: [
            { handle: ada, amount: 300 },
            { rail: 'mobile_money', receiver: NIGERIA_PHONE, toCode: 'NG', amount: 500, externalRef: 'MM-LIVE' },
          ],
        },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal(made.body.mode, 'live');
      assert.equal(made.body.status, 'partially_failed');
      assert.deepEqual(made.body.counts, { pending: 0, paid: 1, failed: 1 });
      assert.equal(await balanceMinor(server(), merchant.handle, 'NGN', 'live'), 70_000);
      assert.equal(await balanceMinor(server(), ada, 'NGN', 'live'), 30_000);
      const listed = await server().request<List<Item>>('GET', `/api/payroll/items?runId=${made.body.id}&status=failed`, { headers: { 'x-merchant-api-key': merchant.liveKey } });
      assert.equal(listed.body.total, 1);
      assert.equal(listed.body.data[0]!.externalRef, 'MM-LIVE');
      assert.match(listed.body.data[0]!.failureReason!, /No payout provider is configured for rail mobile_money/);
      assert.equal(listed.body.data[0]!.paymentId, undefined);
      const events = await server().db.query<{ type: string }>("SELECT type FROM events WHERE merchant_id = $1 AND mode = 'live' ORDER BY created_at, type", [merchant.id]);
      assert.deepEqual(events.map((row) => row.type).sort(), ['payroll.item.failed', 'payroll.run.completed']);
      assert.deepEqual((await checkLedger(server().db)).violations, []);
    });
  });
}
