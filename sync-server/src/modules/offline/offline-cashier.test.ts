import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { OfflinePaymentDoc } from '@tapline/shared/sync-protocol';
import { databaseTargets } from '../../testing/databases.ts';
import { conflictsOf, connectTerminal, pull, push } from '../../testing/offline.ts';
import { uniqueHandle, useTestServer } from '../../testing/server.ts';

type Cashiers = { cashiers: { cashierId: string; sales: { count: number; amount: number } }[] };

for (const target of await databaseTargets()) {
  describe(`who took an offline payment, on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20 });

    it('records the cashier of an offline tap, answers it in the replica and the API, counts it for them, and never declines a payment for a bad cashier id', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front counter' } });
      const customer = uniqueHandle('cust');
      await s.createWallet({ handle: customer, fund: 1000 });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: customer, tagType: 'ring', displayName: 'Ring' } });
      assert.equal(tag.status, 201, JSON.stringify(tag.body));
      const { socket } = await connectTerminal(s, `term.${terminal.body.token}`);
      const doc = (amountMinor: number, extra: Record<string, unknown>): OfflinePaymentDoc =>
        ({ id: randomUUID(), terminalId: terminal.body.id, kind: 'tap', tagId: tag.body.tagId, amountMinor, currency: 'NGN', description: 'Suya', capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0, ...extra }) as OfflinePaymentDoc;
      const byAda = doc(1_500, { cashierId: 'staff_ada' });
      const byNumber = doc(500, { cashierId: 42 });
      const byTooLong = doc(700, { cashierId: 'x'.repeat(65) });
      const byNobody = doc(300, {});
      const verdicts = conflictsOf(await push(socket, [byAda, byNumber, byTooLong, byNobody]));
      assert.deepEqual(verdicts.map((v) => [v.status, v.declineCode ?? null, v.cashierId ?? null]), [['accepted', null, 'staff_ada'], ['accepted', null, null], ['accepted', null, null], ['accepted', null, null]], 'an unusable cashier id is dropped, the payment stands');

      const pulled = await pull(socket, null);
      assert.ok('documents' in pulled, JSON.stringify(pulled));
      assert.equal(pulled.documents.find((d) => d.id === byAda.id)?.cashierId, 'staff_ada');
      const listed = await s.request<{ data: { id: string; cashierId?: string | null }[] }>('GET', '/api/offline/payments', { headers: key });
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.deepEqual(listed.body.data.filter((p) => p.id === byAda.id).map((p) => p.cashierId), ['staff_ada']);
      assert.deepEqual(listed.body.data.filter((p) => p.id === byNobody.id).map((p) => p.cashierId), [null]);

      const report = await s.request<Cashiers>('GET', '/api/pos/reports/current', { headers: { authorization: `Bearer term.${terminal.body.token}` } });
      assert.equal(report.status, 200, JSON.stringify(report.body));
      assert.deepEqual(report.body.cashiers.map((c) => [c.cashierId, c.sales]), [['staff_ada', { count: 1, amount: 15 }]]);
    });
  });
}
