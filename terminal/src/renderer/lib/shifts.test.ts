import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ShiftEventDoc, TillSaleDoc } from '@tapline/shared/sync-protocol';
import { cashCollected, expectedCashMinor, openShiftOf, shiftEvent, shiftFigures, varianceOf } from './shifts.ts';

const SHIFT_A = '11111111-1111-4111-8111-111111111111';
const SHIFT_B = '22222222-2222-4222-8222-222222222222';
let clock = Date.parse('2026-03-02T08:00:00Z');

/** An event a minute after the last one. */
function event(shiftId: string, kind: ShiftEventDoc['kind'], amountMinor: number, extra: Partial<ShiftEventDoc> = {}): ShiftEventDoc {
  clock += 60_000;
  return { ...shiftEvent({ shiftId, kind, cashierId: 'staff_ada', amountMinor, currency: 'NGN', ...(kind === 'paid_in' || kind === 'paid_out' || kind === 'no_sale' ? { reason: 'why' } : {}) }, 'trm_1', new Date(clock)), ...extra };
}

function sale(shiftId: string | undefined, status: TillSaleDoc['status'], tenders: TillSaleDoc['tenders']): Pick<TillSaleDoc, 'shiftId' | 'status' | 'tenders'> {
  return { ...(shiftId === undefined ? {} : { shiftId }), status, tenders };
}

describe('shift state from the till\'s events', () => {
  it('has no open shift before any open, and after the close', () => {
    assert.equal(openShiftOf([]), null);
    const open = event(SHIFT_A, 'open', 10_000);
    const state = openShiftOf([open, event(SHIFT_A, 'paid_in', 2_000)]);
    assert.deepEqual(state, { shiftId: SHIFT_A, cashierId: 'staff_ada', openedAt: open.capturedAt, floatMinor: 10_000, currency: 'NGN' });
    assert.equal(openShiftOf([open, event(SHIFT_A, 'close', 12_000, { expectedMinor: 12_000 })]), null);
  });

  it('answers the latest open shift, whatever order the replica returns the events in', () => {
    const first = [event(SHIFT_A, 'open', 5_000), event(SHIFT_A, 'close', 5_000, { expectedMinor: 5_000 })];
    const second = event(SHIFT_B, 'open', 7_500, { cashierId: 'staff_bola' });
    const state = openShiftOf([second, ...first.reverse()]);
    assert.equal(state?.shiftId, SHIFT_B);
    assert.equal(state?.cashierId, 'staff_bola');
    assert.equal(state?.floatMinor, 7_500);
  });

  it('does not take an open the server declined for a shift, nor is a declined close still open', () => {
    assert.equal(openShiftOf([event(SHIFT_A, 'open', 1_000, { status: 'declined', declineCode: 'cashier_unknown' })]), null);
    // A close the server declined (say its clock was off) still closed the drawer at the till.
    assert.equal(openShiftOf([event(SHIFT_A, 'open', 1_000, { status: 'accepted' }), event(SHIFT_A, 'close', 1_000, { status: 'declined', expectedMinor: 1_000 })]), null);
  });
});

describe('the cash a shift expects in the drawer', () => {
  it('is float + cash sales − cash refunds + paid in − paid out, from this shift only', () => {
    const events = [
      event(SHIFT_A, 'open', 10_000),
      event(SHIFT_A, 'paid_in', 2_000),
      event(SHIFT_A, 'paid_out', 500),
      event(SHIFT_A, 'no_sale', 0, { approvedBy: 'staff_mgr' }),
      // Another shift's and a declined event count for nothing here.
      event(SHIFT_B, 'paid_in', 99_999),
      event(SHIFT_A, 'paid_out', 4_000, { status: 'declined', declineCode: 'shift_closed' }),
    ];
    const sales = [
      // Cash 3,000 of a 3,000 sale (tendered 5,000, change 2,000: the drawer keeps 3,000).
      sale(SHIFT_A, 'accepted', [{ kind: 'cash', amountMinor: 3_000, tenderedMinor: 5_000, changeMinor: 2_000 }]),
      // Split: 1,000 cash and the rest by wallet; queued (offline) counts too.
      sale(SHIFT_A, 'queued', [{ kind: 'cash', amountMinor: 1_000, tenderedMinor: 1_000, changeMinor: 0 }, { kind: 'wallet', amountMinor: 4_000, reference: 'pos_1' }]),
      sale(SHIFT_A, 'declined', [{ kind: 'cash', amountMinor: 7_000 }]),
      sale(SHIFT_B, 'accepted', [{ kind: 'cash', amountMinor: 8_000 }]),
      sale(undefined, 'accepted', [{ kind: 'cash', amountMinor: 6_000 }]),
    ];
    const refunds = [{ shiftId: SHIFT_A, amountMinor: 1_200 }, { shiftId: SHIFT_B, amountMinor: 300 }];
    const figures = shiftFigures(SHIFT_A, events, sales, refunds);
    assert.deepEqual(figures, { floatMinor: 10_000, cashSalesMinor: 4_000, cashRefundsMinor: 1_200, paidInMinor: 2_000, paidOutMinor: 500, noSales: 1 });
    assert.equal(expectedCashMinor(figures), 10_000 + 4_000 - 1_200 + 2_000 - 500);
    assert.equal(expectedCashMinor(figures), 14_300);
  });

  it('counts only the cash tenders of a sale', () => {
    assert.equal(cashCollected({ tenders: [{ kind: 'gift_card', amountMinor: 500 }, { kind: 'cash', amountMinor: 250 }, { kind: 'mobile_money', amountMinor: 100 }, { kind: 'cash', amountMinor: 50 }] }), 300);
  });

  it('says short when the count is below what was expected, over above it', () => {
    assert.deepEqual(varianceOf(11_450, 11_500), { varianceMinor: -50, kind: 'short' });
    assert.deepEqual(varianceOf(11_600, 11_500), { varianceMinor: 100, kind: 'over' });
    assert.deepEqual(varianceOf(11_500, 11_500), { varianceMinor: 0, kind: 'balanced' });
  });
});

describe('a shift event as the till stores it', () => {
  it('is queued with a UUID, the trimmed reason and only the fields its kind has', () => {
    const doc = shiftEvent({ shiftId: SHIFT_A, kind: 'no_sale', cashierId: 'staff_ada', amountMinor: 0, currency: 'NGN', reason: '  Change for a customer ', approvedBy: 'staff_mgr' }, 'trm_1', new Date('2026-03-02T09:00:00Z'));
    assert.match(doc.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const { id: _id, ...rest } = doc;
    assert.deepEqual(rest, {
      terminalId: 'trm_1',
      shiftId: SHIFT_A,
      kind: 'no_sale',
      cashierId: 'staff_ada',
      amountMinor: 0,
      currency: 'NGN',
      capturedAt: '2026-03-02T09:00:00.000Z',
      status: 'queued',
      serverSeq: 0,
      reason: 'Change for a customer',
      approvedBy: 'staff_mgr',
    });
    const close = shiftEvent({ shiftId: SHIFT_A, kind: 'close', cashierId: 'staff_ada', amountMinor: 11_450, currency: 'NGN', expectedMinor: 11_500 }, 'trm_1', new Date());
    assert.equal(close.expectedMinor, 11_500);
    assert.equal('reason' in close, false);
  });
});
