import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { checkLedger } from '../../ledger/check.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { ADMIN, type TestServer, useTestServer } from '../../testing/server.ts';
import type { BillRequest, BillerProvider } from './providers.ts';

async function balance(server: TestServer, key: string, currency: string): Promise<number> {
  const response = await server.request<{ balances: { currency: string; available: number }[] }>('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': key } });
  return response.body.balances.find((entry) => entry.currency === currency)?.available ?? 0;
}

for (const target of await databaseTargets()) {
  describe(`bills on ${target.name}`, () => {
    const calls: BillRequest[] = [];
    const aggregator: BillerProvider = {
      name: 'fake-aggregator',
      supports: (biller) => biller.country === 'KE',
      async pay(request) {
        calls.push(request);
        return { status: 'completed', providerReference: `AGG-${calls.length}`, ...(request.biller.billType === 'electricity' ? { token: '1111-2222-3333-4444-5555', units: '34.8' } : {}) };
      },
    };
    const server = useTestServer(target, { app: { billerProviders: [aggregator] } });

    it('lists the catalogue for NG, GH and KE with filters and paging (public)', async () => {
      const all = await server().request<{ data: { id: string; country: string; billType: string }[]; total: number; limit: number }>('GET', '/api/bills/billers?limit=100');
      assert.equal(all.status, 200);
      assert.deepEqual([...new Set(all.body.data.map((biller) => biller.country))].sort(), ['GH', 'KE', 'NG']);
      for (const country of ['NG', 'GH', 'KE']) {
        const types = new Set(all.body.data.filter((biller) => biller.country === country).map((biller) => biller.billType));
        assert.deepEqual([...types].sort(), ['airtime', 'cable_tv', 'data', 'electricity'], country);
      }
      const kenya = await server().request<{ data: { country: string }[]; total: number }>('GET', '/api/bills/billers?country=ke&billType=electricity');
      assert.deepEqual(kenya.body.data.map((biller) => biller.country), ['KE']);
      assert.equal(kenya.body.total, 1);
      const paged = await server().request<{ data: unknown[]; total: number; limit: number; offset: number }>('GET', '/api/bills/billers?limit=2&offset=1');
      assert.equal(paged.body.data.length, 2);
      assert.equal(paged.body.total, all.body.total);
      assert.equal(paged.body.offset, 1);
      const none = await server().request<{ data: unknown[]; total: number }>('GET', '/api/bills/billers?country=ZA');
      assert.deepEqual([none.status, none.body.total], [200, 0]);
      assert.equal((await server().request('GET', '/api/bills/billers?country=FR')).status, 400);
    });

    it('pays airtime to a phone and prepaid electricity with a token; the wallet is debited through the ledger', async () => {
      const merchant = await server().createMerchant();
      const headers = { 'x-merchant-api-key': merchant.testKey };
      const before = await balance(server(), merchant.testKey, 'NGN');
      const airtime = await server().request('POST', '/api/bills/pay', { headers, body: { billType: 'airtime', billerId: 'mtn-ng-airtime', accountRef: '0803 123 4567', amount: 500 } });
      assert.equal(airtime.status, 201);
      assert.equal(airtime.body.status, 'completed');
      assert.equal(airtime.body.accountRef, '+2348031234567');
      assert.equal(airtime.body.token, null);
      assert.match(String(airtime.body.id), /^bill_/);
      const power = await server().request('POST', '/api/bills/pay', { headers, body: { billType: 'electricity', billerId: 'ikedc-prepaid', accountRef: '45012345678', amount: 10_000 } });
      assert.equal(power.status, 201);
      assert.equal(power.body.status, 'completed');
      assert.match(String(power.body.token), /^\d{4}-\d{4}-\d{4}-\d{4}-\d{4}$/);
      assert.equal(power.body.units, '47.7');
      assert.equal(await balance(server(), merchant.testKey, 'NGN'), before - 10_500);
      const read = await server().request('GET', `/api/bills/payments/${power.body.id}`, { headers });
      assert.deepEqual(read.body, power.body);
      const other = await server().createMerchant();
      assert.equal((await server().request('GET', `/api/bills/payments/${power.body.id}`, { headers: { 'x-merchant-api-key': other.testKey } })).status, 404);
      assert.equal((await server().request('GET', `/api/bills/payments/${power.body.id}`, { headers: { 'x-merchant-api-key': merchant.liveKey } })).status, 404);
      // Kenya and Ghana: paid in their currencies from the sandbox float.
      const kplc = await server().request('POST', '/api/bills/pay', { headers, body: { billType: 'electricity', billerId: 'kplc-prepaid', accountRef: '14123456789', amount: 1000, currency: 'KES' } });
      assert.equal(kplc.status, 201);
      assert.equal(kplc.body.currency, 'KES');
      const dstv = await server().request('POST', '/api/bills/pay', { headers, body: { billType: 'cable_tv', billerId: 'dstv-gh', accountRef: '7012345678', amount: 300, planCode: 'compact' } });
      assert.equal(dstv.status, 201);
      assert.equal(dstv.body.planCode, 'compact');
      assert.equal(dstv.body.customerName, 'SANDBOX CUSTOMER');
      const bundle = await server().request('POST', '/api/bills/pay', { headers, body: { billType: 'data', billerId: 'safaricom-ke-data', accountRef: '+254712345678', amount: 100, planCode: '2gb-24h' } });
      assert.equal(bundle.status, 201);
    });

    it('validates per biller: 400 for the wrong phone, meter, smartcard, plan, type, currency or amount; 404 for an unknown biller', async () => {
      const merchant = await server().createMerchant();
      const headers = { 'x-merchant-api-key': merchant.testKey };
      const cases: [Record<string, unknown>, number, string][] = [
        [{ billType: 'airtime', billerId: 'mtn-ng-airtime', accountRef: '+254712345678', amount: 500 }, 400, 'account_ref_invalid'],
        [{ billType: 'airtime', billerId: 'safaricom-ke-airtime', accountRef: '12345', amount: 50 }, 400, 'account_ref_invalid'],
        [{ billType: 'electricity', billerId: 'kplc-prepaid', accountRef: '1234', amount: 500 }, 400, 'account_ref_invalid'],
        [{ billType: 'cable_tv', billerId: 'dstv-ng', accountRef: '12345678901', amount: 4400 }, 400, 'account_ref_invalid'],
        [{ billType: 'cable_tv', billerId: 'gotv-ng', accountRef: '1234567890', amount: 5000, planCode: 'max' }, 400, 'amount_mismatch'],
        [{ billType: 'cable_tv', billerId: 'gotv-ng', accountRef: '1234567890', amount: 8500, planCode: 'platinum' }, 400, 'plan_invalid'],
        [{ billType: 'airtime', billerId: 'ikedc-prepaid', accountRef: '45012345678', amount: 1000 }, 400, 'bill_type_mismatch'],
        [{ billType: 'airtime', billerId: 'mtn-ng-airtime', accountRef: '08031234567', amount: 500, currency: 'KES' }, 400, 'currency_mismatch'],
        [{ billType: 'airtime', billerId: 'mtn-ng-airtime', accountRef: '08031234567', amount: 10 }, 400, 'amount_out_of_range'],
        [{ billType: 'airtime', billerId: 'mtn-ng-airtime', accountRef: '08031234567', amount: 5.555 }, 400, 'amount_too_many_decimals'],
        [{ billType: 'water', billerId: 'mtn-ng-airtime', accountRef: '08031234567', amount: 500 }, 400, 'validation_failed'],
        [{ billType: 'airtime', billerId: 'mtn-ng-airtime', amount: 500 }, 400, 'validation_failed'],
        [{ billType: 'airtime', billerId: 'no-such-biller', accountRef: '08031234567', amount: 500 }, 404, 'biller_not_found'],
      ];
      for (const [body, status, code] of cases) {
        const response = await server().request('POST', '/api/bills/pay', { headers, body });
        assert.equal(response.status, status, JSON.stringify(body));
        assert.equal(response.body.code, code, JSON.stringify(body));
      }
      assert.equal((await server().request('POST', '/api/bills/pay', { body: cases[0]![0] })).status, 401);
    });

    it('is idempotent with an Idempotency-Key, and a sandbox failure refunds the debit', async () => {
      const merchant = await server().createMerchant();
      const before = await balance(server(), merchant.testKey, 'NGN');
      const headers = { 'x-merchant-api-key': merchant.testKey, 'idempotency-key': randomUUID() };
      const body = { billType: 'airtime', billerId: 'glo-ng-airtime', accountRef: '08051234567', amount: 1000 };
      const first = await server().request('POST', '/api/bills/pay', { headers, body });
      const second = await server().request('POST', '/api/bills/pay', { headers, body });
      assert.equal(second.headers.get('idempotent-replayed'), 'true');
      assert.equal(second.body.id, first.body.id);
      const reused = await server().request('POST', '/api/bills/pay', { headers, body: { ...body, amount: 1001 } });
      assert.equal(reused.status, 422);
      assert.equal(reused.body.code, 'idempotency_key_reused');
      assert.equal(await balance(server(), merchant.testKey, 'NGN'), before - 1000);
      const failed = await server().request('POST', '/api/bills/pay', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { ...body, reference: 'test_failure' } });
      assert.equal(failed.status, 201);
      assert.equal(failed.body.status, 'failed');
      assert.equal(failed.body.success, false);
      assert.match(String(failed.body.failureReason), /refused/);
      assert.equal(await balance(server(), merchant.testKey, 'NGN'), before - 1000);
    });

    it('lists the merchant\'s bills newest first, filtered by status and billType, paged, in the key\'s mode only', async () => {
      const merchant = await server().createMerchant();
      const other = await server().createMerchant();
      const headers = { 'x-merchant-api-key': merchant.testKey };
      const pay = (body: Record<string, unknown>) => server().request<{ id: string }>('POST', '/api/bills/pay', { headers, body });
      const airtime = { billType: 'airtime', billerId: 'mtn-ng-airtime', accountRef: '08031234567' };
      const ids: string[] = [];
      for (const amount of [100, 200, 300]) ids.push((await pay({ ...airtime, amount })).body.id);
      ids.push((await pay({ ...airtime, amount: 400, reference: 'test_failure' })).body.id);
      ids.push((await pay({ billType: 'electricity', billerId: 'ikedc-prepaid', accountRef: '45012345678', amount: 5000 })).body.id);
      await server().request('POST', '/api/bills/pay', { headers: { 'x-merchant-api-key': other.testKey }, body: { ...airtime, amount: 100 } });
      type Page = { data: { id: string; status: string; billType: string; amount: number }[]; total: number; limit: number; offset: number };
      const list = (query: string, key = merchant.testKey) => server().request<Page>('GET', `/api/bills/payments${query}`, { headers: { 'x-merchant-api-key': key } });
      const all = await list('');
      assert.equal(all.status, 200);
      assert.deepEqual([all.body.total, all.body.limit, all.body.offset], [5, 20, 0]);
      assert.deepEqual(all.body.data.map((bill) => bill.id), [...ids].reverse(), 'newest first');
      const paged = await list('?limit=2&offset=2');
      assert.deepEqual([paged.body.total, paged.body.data.map((bill) => bill.id)], [5, [ids[2], ids[1]]]);
      const failed = await list('?status=failed');
      assert.deepEqual([failed.body.total, failed.body.data.map((bill) => [bill.id, bill.amount])], [1, [[ids[3], 400]]]);
      const power = await list('?billType=electricity&status=completed');
      assert.deepEqual([power.body.total, power.body.data.map((bill) => bill.billType)], [1, ['electricity']]);
      assert.equal((await list('', merchant.liveKey)).body.total, 0, 'live mode has none');
      const bad = await server().request('GET', '/api/bills/payments?status=lost', { headers });
      assert.deepEqual([bad.status, bad.body.code], [400, 'validation_failed']);
      assert.equal((await server().request('GET', '/api/bills/payments')).status, 401);
    });

    it('live: 422 biller_unavailable without an adapter; through an adapter otherwise; 422 insufficient_funds', async () => {
      const merchant = await server().createMerchant();
      const headers = { 'x-merchant-api-key': merchant.liveKey };
      const nigeria = await server().request('POST', '/api/bills/pay', { headers, body: { billType: 'airtime', billerId: 'mtn-ng-airtime', accountRef: '08031234567', amount: 500 } });
      assert.equal(nigeria.status, 422);
      assert.equal(nigeria.body.code, 'biller_unavailable');
      const kenya = { billType: 'electricity', billerId: 'kplc-prepaid', accountRef: '14123456789', amount: 1000 };
      const broke = await server().request('POST', '/api/bills/pay', { headers, body: kenya });
      assert.equal(broke.status, 422);
      assert.equal(broke.body.code, 'insufficient_funds');
      const credited = await server().request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 5000, currency: 'KES', mode: 'live' } });
      assert.equal(credited.status, 200);
      const paid = await server().request('POST', '/api/bills/pay', { headers, body: kenya });
      assert.equal(paid.status, 201);
      assert.equal(paid.body.status, 'completed');
      assert.equal(paid.body.token, '1111-2222-3333-4444-5555');
      assert.equal(paid.body.providerReference, `AGG-${calls.length}`);
      assert.equal(calls.at(-1)!.amount, 100_000);
      assert.equal(await balance(server(), merchant.liveKey, 'KES'), 4000);
      assert.deepEqual((await checkLedger(server().db)).violations, []);
    });
  });
}
