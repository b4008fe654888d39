// Live Nigerian bills through Flutterwave's local fake, on both databases: airtime, prepaid
// electricity (its token and units come back) and cable TV, a customer Flutterwave's validation
// refuses, and a bill it declines, the merchant's wallet refunded.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { ADMIN, type TestServer, databaseTargets, systemBalance, useTestServer } from '@tapline/sync-server/testing';
import { BILL_CUSTOMERS, type FlutterwaveFake, startFlutterwaveFake } from '../fakes/flutterwave/index.ts';

type Bill = { id: string; status: string; token: string | null; units: string | null; providerReference?: string | null; failureReason?: string };

for (const target of await databaseTargets()) {
  describe(`live NG bills through Flutterwave (its fake) on ${target.name}`, () => {
    let fake: FlutterwaveFake;
    const env: Record<string, string> = {};
    before(async () => {
      fake = await startFlutterwaveFake({ delayScale: 0.05 });
      Object.assign(env, fake.env);
    });
    after(async () => {
      await fake.stop();
    });
    const server = useTestServer(target, { app: { providerEnv: env } });
    let merchant: Awaited<ReturnType<TestServer['createMerchant']>>;
    before(async () => {
      merchant = await server().createMerchant({ webhookUrl: 'https://example.com/hooks' });
      const credited = await server().request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 200_000, currency: 'NGN', mode: 'live' } });
      assert.equal(credited.status, 200);
    });
    const balance = async () => {
      const response = await server().request<{ balances: { currency: string; available: number }[] }>('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': merchant.liveKey } });
      return response.body.balances.find((entry) => entry.currency === 'NGN')?.available ?? 0;
    };
    const pay = (body: Record<string, unknown>) =>
      server().request<Bill & { code?: string }>('POST', '/api/bills/pay', { headers: { 'x-merchant-api-key': merchant.liveKey, 'idempotency-key': randomUUID() }, body: { currency: 'NGN', ...body } });

    it('airtime, electricity with its token, and cable TV are paid at Flutterwave', async () => {
      const clearing = { own: await systemBalance(server(), 'rail_clearing:flutterwave', 'NGN', 'live'), shared: await systemBalance(server(), 'rail_clearing', 'NGN', 'live') };
      const airtime = await pay({ billType: 'airtime', billerId: 'mtn-ng-airtime', accountRef: BILL_CUSTOMERS.phone.success, amount: 500 });
      assert.equal(airtime.status, 201, JSON.stringify(airtime.body));
      assert.equal(airtime.body.status, 'completed');
      const power = await pay({ billType: 'electricity', billerId: 'ekedc-prepaid', accountRef: BILL_CUSTOMERS.meter.success, amount: 5000 });
      assert.equal(power.status, 201, JSON.stringify(power.body));
      assert.equal(power.body.status, 'completed');
      assert.match(power.body.token ?? '', /\d{4}/, 'the prepaid token');
      assert.ok(power.body.units, 'the units bought');
      const tv = await pay({ billType: 'cable_tv', billerId: 'dstv-ng', accountRef: BILL_CUSTOMERS.smartcard.success, amount: 4400, planCode: 'padi' });
      assert.equal(tv.status, 201, JSON.stringify(tv.body));
      assert.equal(tv.body.status, 'completed');
      assert.equal(fake.bills().length, 3, 'three bills paid at the provider');
      // Each bill's money passed through Flutterwave's own clearing account (debit in, settlement out): net zero, the shared one untouched.
      const legs = await server().db.query<{ n: number }>(
        `SELECT count(*)::int8 AS n FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id
         WHERE a.owner_id = 'rail_clearing:flutterwave' AND p.transfer_id = ANY ($1::text[])`,
        [[airtime.body.id, power.body.id, tv.body.id].flatMap((id) => [`${id}:debit`, `${id}:settle`])],
      );
      assert.equal(Number(legs[0]!.n), 6);
      assert.deepEqual({ own: await systemBalance(server(), 'rail_clearing:flutterwave', 'NGN', 'live'), shared: await systemBalance(server(), 'rail_clearing', 'NGN', 'live') }, clearing);
      assert.deepEqual((await checkLedger(server().db)).violations, []);
    });

    it('a customer Flutterwave does not know, and a bill it declines: failed, the wallet refunded', async () => {
      const before = await balance();
      for (const accountRef of [BILL_CUSTOMERS.meter.invalid, BILL_CUSTOMERS.meter.failure]) {
        const bill = await pay({ billType: 'electricity', billerId: 'ekedc-prepaid', accountRef, amount: 5000 });
        if (bill.status === 201) {
          assert.equal(bill.body.status, 'failed', accountRef);
          assert.ok(bill.body.failureReason, accountRef);
        } else {
          assert.ok(bill.status >= 400 && bill.status < 500, `${accountRef}: ${bill.status}`);
        }
      }
      assert.equal(await balance(), before, 'nothing kept from the merchant');
      assert.deepEqual((await checkLedger(server().db)).violations, []);
    });
  });
}
