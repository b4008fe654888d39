import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { SYNC_EVENTS, type ShiftEventDoc, type StreamMessage, type TillSaleDoc, type TillStaffDoc } from '@tapline/shared/sync-protocol';
import { databaseTargets } from '../../testing/databases.ts';
import { useTestServer } from '../../testing/server.ts';
import { conflictsOf, connectTerminal, pull, push } from '../../testing/offline.ts';
import { checkTillPin } from './pin.ts';

type Staff = { id: string; name: string; role: string; active: boolean; removedAt: string | null; code?: string; pin?: unknown; pinVerifier?: unknown };
type Shift = {
  id: string; terminalName: string; cashierName: string | null; status: string; float: number; paidIn: number; paidOut: number; noSales: number; cashSales: number; cashRefunds: number;
  expected: number | null; counted: number | null; variance: number | null; zReportId: string | null; events?: { kind: string; amount: number; reason: string | null; approvedByName: string | null; status: string }[];
};

for (const target of await databaseTargets()) {
  describe(`till staff and cashier shifts on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20 });

    async function shop() {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front till' } });
      const term = { authorization: `Bearer term.${terminal.body.token}` };
      await s.request('PUT', `/api/merchant/terminals/${terminal.body.id}/manager-pin`, { headers: key, body: { pin: '4321' } });
      const { socket } = await connectTerminal(s, `term.${terminal.body.token}`);
      return { merchant, key, term, terminalId: terminal.body.id, socket };
    }

    it('keeps staff with a PIN verifier only, streams them to the kiosks and pulls them, removed ones as deletions', async () => {
      const s = server();
      const { key, socket } = await shop();
      const streamed: StreamMessage<TillStaffDoc>[] = [];
      socket.on(SYNC_EVENTS.stream, (message: StreamMessage<TillStaffDoc>) => {
        if (message.collection === 'till_staff') streamed.push(message);
      });
      const ada = await s.request<Staff>('POST', '/api/merchant/staff', { headers: key, body: { name: '  Ada Obi ', role: 'cashier', pin: '2468' } });
      assert.equal(ada.status, 201, JSON.stringify(ada.body));
      assert.match(ada.body.id, /^staff_/);
      assert.deepEqual([ada.body.name, ada.body.role, ada.body.active, ada.body.removedAt], ['Ada Obi', 'cashier', true, null]);
      assert.equal(ada.body.pin, undefined);
      assert.equal(ada.body.pinVerifier, undefined, 'no answer carries the verifier');
      for (const body of [{ name: 'X', role: 'cashier', pin: '12' }, { name: 'X', role: 'boss', pin: '1234' }, { name: '   ', role: 'cashier', pin: '1234' }, { name: 'X\u0000', role: 'cashier', pin: '1234' }]) {
        const refused = await s.request<Staff>('POST', '/api/merchant/staff', { headers: key, body });
        assert.equal(refused.status, 400, JSON.stringify(body));
        assert.equal(typeof refused.body.code, 'string');
      }
      const kemi = await s.request<Staff>('POST', '/api/merchant/staff', { headers: key, body: { name: 'Kemi', role: 'manager', pin: '97531' } });
      const renamed = await s.request<Staff>('PATCH', `/api/merchant/staff/${ada.body.id}`, { headers: key, body: { name: 'Ada O.', pin: '1357' } });
      assert.equal(renamed.body.name, 'Ada O.');
      const listed = await s.request<{ data: Staff[]; total: number }>('GET', '/api/merchant/staff', { headers: key });
      assert.deepEqual(listed.body.data.map((row) => row.name), ['Ada O.', 'Kemi']);

      const all = await pull<TillStaffDoc>(socket, null, 100, 'till_staff');
      assert.ok('documents' in all);
      const byId = new Map(all.documents.map((doc) => [doc.id, doc]));
      assert.equal(byId.size, 2);
      const adaDoc = byId.get(ada.body.id)!;
      assert.equal(adaDoc.name, 'Ada O.');
      assert.match(adaDoc.pinVerifier, /^pbkdf2-sha256\$600000\$/);
      assert.equal(await checkTillPin('1357', adaDoc.pinVerifier), true, 'the kiosk can check the new PIN offline');
      assert.equal(await checkTillPin('2468', adaDoc.pinVerifier), false, 'the old PIN no longer works');

      const removed = await s.request<Staff>('DELETE', `/api/merchant/staff/${kemi.body.id}`, { headers: key });
      assert.equal(removed.status, 200);
      assert.notEqual(removed.body.removedAt, null);
      assert.equal((await s.request('PATCH', `/api/merchant/staff/${kemi.body.id}`, { headers: key, body: { name: 'Back' } })).status, 404);
      const after = await pull<TillStaffDoc>(socket, all.checkpoint?.serverSeq ?? null, 100, 'till_staff');
      assert.ok('documents' in after);
      assert.deepEqual(after.documents.map((doc) => [doc.id, doc._deleted, doc.active]), [[kemi.body.id, true, false]]);
      assert.equal((await s.request<{ total: number }>('GET', '/api/merchant/staff', { headers: key })).body.total, 1);
      assert.equal((await s.request<{ total: number }>('GET', '/api/merchant/staff?includeRemoved=true', { headers: key })).body.total, 2);
      // Waited for, not slept on: the stream message may still be on its way.
      const removalStreamed = () => streamed.flatMap((m) => m.documents).some((doc) => doc.id === kemi.body.id && doc._deleted);
      for (const deadline = Date.now() + 60_000; !removalStreamed() && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.ok(removalStreamed(), 'the removal was streamed to the connected kiosk');
      const push = await s.request('GET', '/api/merchant/staff/staff_nope', { headers: key });
      assert.equal(push.status, 404);
    });

    it('declines hostile shift events one by one with a reason, and records each', async () => {
      const till = await shop();
      const base = { terminalId: till.terminalId, currency: 'NGN', capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0 };
      const docs = [
        { ...base, id: randomUUID(), shiftId: 'nope', kind: 'open', cashierId: 'staff_x', amountMinor: 1 },
        { ...base, id: randomUUID(), shiftId: randomUUID(), kind: 'explode', cashierId: 'staff_x', amountMinor: 1 },
        { ...base, id: randomUUID(), shiftId: randomUUID(), kind: 'open', cashierId: 'staff_\u0000x', amountMinor: 1 },
        { ...base, id: randomUUID(), shiftId: randomUUID(), kind: 'open', cashierId: 'staff_x', amountMinor: 1e300 },
        { ...base, id: randomUUID(), shiftId: randomUUID(), kind: 'paid_out', cashierId: 'staff_x', amountMinor: 5, reason: 'x'.repeat(10_000) },
        { ...base, id: randomUUID(), shiftId: randomUUID(), kind: 'close', cashierId: 'staff_x', amountMinor: 5, expectedMinor: 'lots' },
        { ...base, id: randomUUID(), shiftId: randomUUID(), kind: 'open', cashierId: ['staff_x'], amountMinor: -1, currency: 'XXX' },
      ];
      const verdicts = conflictsOf<ShiftEventDoc>(await push(till.socket, docs, 'shift_events'));
      assert.deepEqual(verdicts.map((doc) => [doc.status, doc.declineCode]), docs.map(() => ['declined', 'invalid_document']));
      assert.match(verdicts[0]?.declineReason ?? '', /shiftId must be the shift's UUID/);
      assert.match(verdicts[1]?.declineReason ?? '', /kind must be one of open/);
      assert.match(verdicts[4]?.declineReason ?? '', /reason/);
      assert.ok(verdicts.every((doc) => doc.serverSeq > 0), 'every one recorded');
      const count = await server().db.query<{ n: number }>('SELECT count(*)::int AS n FROM till_shifts WHERE terminal_id = $1', [till.terminalId]);
      assert.equal(Number(count[0]?.n), 0, 'no shift opened');
    });

    it('runs a shift: float, paid in and out, a no sale a manager approved, cash sales and a cash refund, the blind count and its variance in the Z report', async () => {
      const s = server();
      const till = await shop();
      const cashier = (await s.request<Staff>('POST', '/api/merchant/staff', { headers: till.key, body: { name: 'Ada', role: 'cashier', pin: '2468' } })).body;
      const manager = (await s.request<Staff>('POST', '/api/merchant/staff', { headers: till.key, body: { name: 'Kemi', role: 'manager', pin: '9753' } })).body;
      const shiftId = randomUUID();
      let clock = Date.now() - 60_000;
      const event = (kind: ShiftEventDoc['kind'], amountMinor: number, extra: Partial<ShiftEventDoc> = {}): ShiftEventDoc => ({
        id: randomUUID(), terminalId: till.terminalId, shiftId, kind, cashierId: cashier.id, amountMinor, currency: 'NGN',
        capturedAt: new Date((clock += 1_000)).toISOString(), status: 'queued', serverSeq: 0, ...extra,
      });
      const opened = conflictsOf<ShiftEventDoc>(await push(till.socket, [event('open', 1_000_000), event('paid_in', 200_000, { reason: 'Change from the bank' }), event('paid_out', 50_000, { reason: 'Fuel for the generator' })], 'shift_events'));
      assert.deepEqual(opened.map((doc) => doc.status), ['accepted', 'accepted', 'accepted']);

      const sale: TillSaleDoc = {
        id: randomUUID(), terminalId: till.terminalId, amountMinor: 300_000, currency: 'NGN', capturedAt: new Date((clock += 1_000)).toISOString(), status: 'queued', serverSeq: 0,
        tenders: [{ kind: 'cash', amountMinor: 300_000, tenderedMinor: 500_000, changeMinor: 200_000 }], cashierId: cashier.id, shiftId,
      };
      assert.equal(conflictsOf<TillSaleDoc>(await push(till.socket, [sale], 'till_sales'))[0]?.status, 'accepted');
      const refund = await s.request<{ cashierId: string; shiftId: string; tenders: { kind: string }[] }>('POST', '/api/pos/refunds', {
        headers: till.term, body: { saleId: sale.id, managerPin: '4321', cashierId: cashier.id, shiftId },
      });
      assert.equal(refund.status, 201, JSON.stringify(refund.body));
      assert.deepEqual([refund.body.cashierId, refund.body.shiftId, refund.body.tenders[0]?.kind], [cashier.id, shiftId, 'cash']);
      // Expected: 10,000 float + 2,000 in - 500 out + 3,000 cash - 3,000 refunded = 11,500; counted 11,450: 50 short.
      const rest = conflictsOf<ShiftEventDoc>(await push(till.socket, [
        event('no_sale', 0, { reason: 'Customer wanted change', approvedBy: manager.id }),
        event('no_sale', 0, { reason: 'Self-approved', approvedBy: cashier.id }),
        event('close', 1_145_000, { expectedMinor: 1_150_000 }),
        event('paid_in', 1_000, { reason: 'Too late' }),
        event('open', 0),
        event('paid_out', 100, { shiftId: randomUUID(), reason: 'Unknown shift' }),
        event('paid_in', 100, { reason: '' }),
        event('open', 0, { shiftId: randomUUID(), cashierId: 'staff_stranger' }),
      ], 'shift_events'));
      assert.deepEqual(rest.map((doc) => [doc.status, doc.declineCode ?? null]), [
        ['accepted', null],
        ['declined', 'approver_not_manager'],
        ['accepted', null],
        ['declined', 'shift_closed'],
        ['declined', 'shift_already_open'],
        ['declined', 'shift_not_open'],
        ['declined', 'invalid_document'],
        ['declined', 'cashier_unknown'],
      ]);
      assert.match(rest[6]?.declineReason ?? '', /reason is required for paid_in/);

      const list = await s.request<{ data: Shift[]; total: number }>('GET', `/api/merchant/shifts?terminalId=${till.terminalId}&cashierId=${cashier.id}&status=closed`, { headers: till.key });
      assert.equal(list.status, 200, JSON.stringify(list.body));
      assert.equal(list.body.total, 1);
      const [shift] = list.body.data;
      assert.deepEqual(
        [shift?.terminalName, shift?.cashierName, shift?.status, shift?.float, shift?.paidIn, shift?.paidOut, shift?.noSales, shift?.cashSales, shift?.cashRefunds, shift?.expected, shift?.counted, shift?.variance],
        ['Front till', 'Ada', 'closed', 10_000, 2_000, 500, 1, 3_000, 3_000, 11_500, 11_450, -50],
      );
      assert.equal((await s.request<{ total: number }>('GET', '/api/merchant/shifts?status=open', { headers: till.key })).body.total, 0);
      const detail = await s.request<Shift>('GET', `/api/pos/shifts/${shiftId}`, { headers: till.term });
      assert.equal(detail.status, 200);
      assert.deepEqual(detail.body.events?.filter((e) => e.status === 'accepted').map((e) => [e.kind, e.amount, e.approvedByName]), [
        ['open', 10_000, null], ['paid_in', 2_000, null], ['paid_out', 500, null], ['no_sale', 0, 'Kemi'], ['close', 11_450, null],
      ]);
      assert.equal((await s.request('GET', `/api/merchant/shifts/${randomUUID()}`, { headers: till.key })).status, 404);
      assert.equal((await s.request('GET', '/api/merchant/shifts/not-a-uuid', { headers: till.key })).status, 404);

      type Report = { shifts: { cashierName: string; expected: number; counted: number; variance: number; cashSales: number }[]; cashiers: { name: string; sales: { count: number; amount: number }; shifts: number; variance: number }[] };
      const z = await s.request<Report>('POST', '/api/pos/reports', { headers: { ...till.term, 'idempotency-key': randomUUID() }, body: { managerPin: '4321' } });
      assert.equal(z.status, 201, JSON.stringify(z.body));
      assert.deepEqual(z.body.shifts.map((row) => [row.cashierName, row.expected, row.counted, row.variance, row.cashSales]), [['Ada', 11_500, 11_450, -50, 3_000]]);
      assert.deepEqual(z.body.cashiers, [{ cashierId: cashier.id, name: 'Ada', sales: { count: 1, amount: 3_000 }, tips: { count: 0, amount: 0 }, shifts: 1, variance: -50 }]);
      const claimed = await s.request<{ data: Shift[] }>('GET', '/api/merchant/shifts', { headers: till.key });
      assert.match(claimed.body.data[0]?.zReportId ?? '', /^zr_/);
    });
  });
}
