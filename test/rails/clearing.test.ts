// Rail clearing per provider (migration 044), on both databases: live payouts through two providers'
// fakes at once (Paystack: NGN banks; M-Pesa: KES phones) over real HTTP. Each payout's money in
// flight sits in its own provider's clearing account (`rail_clearing:<provider>`), never in the
// other's nor the shared `rail_clearing`; each provider's clearing equals its open payouts at any
// moment, nets to zero once they are final, and a clean reconciled day says so per provider.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { toMajor } from '@tapline/shared/money';
import { readFileSync } from 'node:fs';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { systemAccount, walletAccount } from '@tapline/sync-server/ledger/accounts';
import { transfer } from '@tapline/sync-server/ledger/ledger';
import { ADMIN, ManualClock, type TestServer, databaseTargets, freePort, systemBalance, useTestServer } from '@tapline/sync-server/testing';
import { PROVIDERS, type RunningFake, type ScenarioName } from './providers.ts';
import { until } from './until.ts';

const DELAY_SCALE = 0.05;
const DAY_MS = 24 * 3_600_000;
const HOUR_MS = 3_600_000;
const untilMidnight = DAY_MS - (Date.now() % DAY_MS);
// The fakes date their transfers by the real clock, the server by the injected one (as in reconciliation.test.ts).
const skip = untilMidnight < 15 * 60_000 ? 'within 15 minutes of midnight UTC: the fakes and the server could date the payouts on different days' : false;

type Reconciliation = { id: string; provider: string; day: string; status: string; matched: number; ourTotals: Record<string, number>; clearingNet: Record<string, number>; ledgerClearingNet: Record<string, number>; clearingBalance: Record<string, number> };

const USED = ['paystack', 'mpesa'] as const;
const providers = USED.map((name) => PROVIDERS.find((provider) => provider.name === name)!);

for (const target of await databaseTargets()) {
  const port = await freePort();
  describe(`rail clearing per provider (Paystack and M-Pesa fakes) on ${target.name}`, { skip }, () => {
    const publicBaseUrl = `http://127.0.0.1:${port}`;
    const started = Date.now();
    const clock = new ManualClock(started);
    const day = new Date(started).toISOString().slice(0, 10);
    const dayEnd = Date.parse(`${day}T00:00:00.000Z`) + DAY_MS;
    const routes = providers.map((provider) => `${provider.scenarios.success.rail}:${provider.scenarios.success.toCode}=${provider.name}`).join(';');
    const fakes = new Map<string, RunningFake>();
    const env: Record<string, string> = {};
    before(async () => {
      for (const provider of providers) {
        const fake = await provider.start(publicBaseUrl, DELAY_SCALE);
        fakes.set(provider.name, fake);
        Object.assign(env, fake.env);
      }
    });
    after(async () => {
      for (const fake of fakes.values()) await fake.stop();
    });
    const server = useTestServer(target, {
      port,
      now: clock.now,
      env: { PUBLIC_BASE_URL: publicBaseUrl, RAIL_ROUTES: routes, RAIL_TIMEOUT_MS: '500' },
      app: { providerEnv: env },
    });

    let merchant: Awaited<ReturnType<TestServer['createMerchant']>>;
    const made = new Map<string, { provider: string; ids: string[] }>();

    const pay = async (providerName: (typeof USED)[number], scenario: ScenarioName): Promise<string> => {
      const provider = providers.find((candidate) => candidate.name === providerName)!;
      const { rail, toCode, receiver } = provider.scenarios[scenario];
      const created = await server().request<{ paymentId: string }>('POST', '/api/pay', {
        headers: { 'x-merchant-api-key': merchant.liveKey, 'idempotency-key': randomUUID() },
        body: { fromCode: 'NG', toCode, rail, amount: 5000, currency: provider.payCurrency, receiver, receiverName: 'Ada Obi', senderName: 'Shop' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body.paymentId;
    };
    const status = async (id: string) => (await server().request<{ status: string }>('GET', `/api/payments/${id}`, { headers: { 'x-merchant-api-key': merchant.liveKey } })).body.status;
    const settle = (id: string, wanted: string) =>
      until(`${id} ${wanted}`, async () => {
        if ((await status(id)) === wanted) return true;
        clock.advance(5 * 60_000);
        await server().context.payments.runOnce();
        return undefined;
      });
    /**
     * In ONE statement (one snapshot, so a callback landing meanwhile cannot split it): the
     * provider's clearing balance in a currency, and the destination amounts of its live payouts
     * still open (pending or processing).
     */
    const clearingAndOpen = async (provider: string, currency: string) => {
      const [row] = await server().db.query<{ balance: number; open: number }>(
        `SELECT (SELECT coalesce(sum(balance), 0)::int8 FROM ledger_accounts WHERE owner_type = 'system' AND owner_id = $1 AND currency = $2 AND mode = 'live') AS balance,
                (SELECT coalesce(sum(destination_amount), 0)::int8 FROM payments WHERE provider = $3 AND scenario = 'provider' AND mode = 'live'
                   AND destination_currency = $2 AND status IN ('pending', 'processing')) AS open`,
        [`rail_clearing:${provider}`, currency, provider],
      );
      return { balance: Number(row!.balance), open: Number(row!.open) };
    };

    before(async () => {
      merchant = await server().createMerchant({ webhookUrl: 'https://example.com/hooks' });
      for (const money of ['NGN', 'KES']) {
        const credited = await server().request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 1_000_000, currency: money, mode: 'live' } });
        assert.equal(credited.status, 200);
      }
    });

    it("each payout's money in flight sits in its own provider's clearing account, equal to its open payouts at any moment, and nets to zero once final", async () => {
      const sharedBefore = { NGN: await systemBalance(server(), 'rail_clearing', 'NGN', 'live'), KES: await systemBalance(server(), 'rail_clearing', 'KES', 'live') };
      for (const provider of USED) {
        const ids = [await pay(provider, 'success'), await pay(provider, 'success'), await pay(provider, 'failure')];
        made.set(provider, { provider, ids });
      }
      const currencyOf = new Map<string, string>();
      for (const provider of USED) {
        const [row] = await server().db.query<{ destination_currency: string }>('SELECT destination_currency FROM payments WHERE id = $1', [made.get(provider)!.ids[0]!]);
        currencyOf.set(provider, row!.destination_currency);
      }
      assert.deepEqual([currencyOf.get('paystack'), currencyOf.get('mpesa')], ['NGN', 'KES']);

      // Every debit went to the payout's own provider: its debit transfer's clearing leg names it.
      for (const provider of USED) {
        const ids = made.get(provider)!.ids;
        const legs = await server().db.query<{ owner_id: string }>(
          `SELECT a.owner_id FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id
           WHERE p.transfer_id = ANY ($1::text[]) AND a.owner_type = 'system' AND a.owner_id LIKE 'rail_clearing%'`,
          [ids.map((id) => `${id}:debit`)],
        );
        assert.deepEqual(legs.map((leg) => leg.owner_id), ids.map(() => `rail_clearing:${provider}`));
      }
      // While they are in flight (or already final): each provider's clearing is exactly its open payouts.
      for (const provider of USED) {
        const now = await clearingAndOpen(provider, currencyOf.get(provider)!);
        assert.equal(now.balance, now.open, `${provider} clearing while paying out`);
      }

      for (const provider of USED) {
        const [first, second, failed] = made.get(provider)!.ids;
        await settle(first!, 'completed');
        await settle(second!, 'completed');
        await settle(failed!, 'failed');
      }
      for (const provider of USED) {
        const currency = currencyOf.get(provider)!;
        assert.deepEqual(await clearingAndOpen(provider, currency), { balance: 0, open: 0 }, `${provider} nets to zero`);
        // What went through it: in, each payout's debit; out, two settled and one refunded.
        const ids = made.get(provider)!.ids;
        const [flow] = await server().db.query<{ credited: number; debited: number; settled: number; refunded: number }>(
          `SELECT coalesce(sum(p.amount) FILTER (WHERE p.amount > 0), 0)::int8 AS credited, coalesce(-sum(p.amount) FILTER (WHERE p.amount < 0), 0)::int8 AS debited,
                  coalesce(-sum(p.amount) FILTER (WHERE p.transfer_id LIKE '%:settle'), 0)::int8 AS settled,
                  coalesce(-sum(p.amount) FILTER (WHERE p.transfer_id LIKE '%:refund'), 0)::int8 AS refunded
           FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id
           WHERE a.owner_type = 'system' AND a.owner_id = $1 AND a.mode = 'live'`,
          [`rail_clearing:${provider}`],
        );
        const amounts = await server().db.query<{ id: string; destination_amount: number }>('SELECT id, destination_amount FROM payments WHERE id = ANY ($1::text[])', [ids]);
        const amountOf = (id: string) => Number(amounts.find((row) => row.id === id)!.destination_amount);
        const total = ids.reduce((sum, id) => sum + amountOf(id), 0);
        assert.deepEqual(
          { credited: Number(flow!.credited), debited: Number(flow!.debited), settled: Number(flow!.settled), refunded: Number(flow!.refunded) },
          { credited: total, debited: total, settled: amountOf(ids[0]!) + amountOf(ids[1]!), refunded: amountOf(ids[2]!) },
          `${provider}'s clearing flow`,
        );
      }
      // The shared account of each currency moved nothing for these payouts.
      assert.deepEqual({ NGN: await systemBalance(server(), 'rail_clearing', 'NGN', 'live'), KES: await systemBalance(server(), 'rail_clearing', 'KES', 'live') }, sharedBefore);
      assert.deepEqual((await checkLedger(server().db)).violations, []);
    });

    it('a reconciled clean day shows each provider its own clearing, zero', async () => {
      clock.set(dayEnd + 2 * HOUR_MS + 60_000);
      const runs = await server().context.reconciliation.runOnce();
      assert.deepEqual(runs.map((run) => [run.provider, run.day, run.status]).sort(), USED.map((provider) => [provider, day, 'clean']).sort());
      const listed = await server().request<{ data: Reconciliation[] }>('GET', `/api/admin/rails/reconciliations?day=${day}`, { headers: ADMIN });
      assert.equal(listed.status, 200);
      for (const provider of USED) {
        const record = listed.body.data.find((entry) => entry.provider === provider)!;
        const currency = provider === 'paystack' ? 'NGN' : 'KES';
        const ids = made.get(provider)!.ids;
        const paid = await server().db.query<{ destination_amount: number }>(`SELECT destination_amount FROM payments WHERE id = ANY ($1::text[]) AND status = 'completed'`, [ids]);
        assert.deepEqual(
          [record.status, record.matched, record.ourTotals, record.clearingNet, record.ledgerClearingNet, record.clearingBalance],
          ['clean', 3, { [currency]: toMajor(paid.reduce((sum, row) => sum + Number(row.destination_amount), 0), currency) }, { [currency]: 0 }, { [currency]: 0 }, { [currency]: 0 }],
          provider,
        );
      }
    });

    it("migration 044 moves what a payout made before it holds in the shared rail_clearing to its provider's account", async () => {
      const s = server();
      // A payout of before the migration: a Paystack payout still processing whose debit went to the shared account.
      const legacy = `pay_legacy${randomBytes(10).toString('hex')}`;
      const model = made.get('paystack')!.ids[0]!;
      await s.db.query(
        `INSERT INTO payments SELECT (jsonb_populate_record(p, jsonb_build_object('id', $2::text, 'status', 'processing', 'provider_reference', null, 'next_step_at', null))).* FROM payments p WHERE p.id = $1`,
        [model, legacy],
      );
      const [row] = await s.db.query<{ destination_amount: number; source_wallet_id: string }>('SELECT destination_amount, source_wallet_id FROM payments WHERE id = $1', [legacy]);
      const amount = Number(row!.destination_amount);
      await s.db.transaction((tx) =>
        transfer(tx, {
          id: `${legacy}:debit`, mode: 'live', kind: 'payment_debit', metadata: { paymentId: legacy },
          legs: [{ account: walletAccount(row!.source_wallet_id, 'NGN'), amount: -amount }, { account: systemAccount('rail_clearing', 'NGN'), amount }],
        }),
      );
      const shared = await systemBalance(s, 'rail_clearing', 'NGN', 'live');
      const own = await systemBalance(s, 'rail_clearing:paystack', 'NGN', 'live');

      await s.db.exec(readFileSync(new URL('../../sync-server/src/db/migrations/044_rail_clearing_per_provider.sql', import.meta.url), 'utf8'));

      assert.deepEqual([await systemBalance(s, 'rail_clearing', 'NGN', 'live'), await systemBalance(s, 'rail_clearing:paystack', 'NGN', 'live')], [shared - amount, own + amount]);
      assert.deepEqual(await clearingAndOpen('paystack', 'NGN'), { balance: amount, open: amount }, 'the provider\'s clearing is its open payouts again');
      const [split] = await s.db.query<{ kind: string; legs: number }>(
        `SELECT t.kind, (SELECT count(*) FROM ledger_postings p WHERE p.transfer_id = t.id)::int8 AS legs FROM ledger_transfers t WHERE t.id = 'rail_clearing_split:paystack:NGN:live'`,
      );
      assert.deepEqual([split?.kind, Number(split?.legs)], ['rail_clearing_split', 2]);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
