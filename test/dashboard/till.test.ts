// The till pages' arithmetic (dashboard/src/app/lib/till.ts): how a count came out, and the
// per-cashier summary the Shifts page works out from the list of shifts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Shift, cashierSummaries, varianceTone } from '@tapline/dashboard/till';
import { translator } from '@tapline/shared/i18n';
import { minorFromMajor } from '@tapline/shared/money';

let next = 0;
function shift(cashierId: string, cashierName: string | null, variance: number | null, extra: Partial<Shift> = {}): Shift {
  next += 1;
  const closed = variance !== null;
  return {
    id: `shift-${next}`, terminalId: 'term_1', terminalName: 'Till 1', cashierId, cashierName, status: closed ? 'closed' : 'open', currency: 'NGN',
    openedAt: '2025-01-01T08:00:00.000Z', closedAt: closed ? '2025-01-01T17:00:00.000Z' : null, float: 100, paidIn: 0, paidOut: 0, noSales: 0,
    cashSales: 0, cashRefunds: 0, expected: closed ? 100 : null, counted: closed ? 100 + variance : null, variance, zReportId: null, ...extra,
  };
}

describe('till pages', () => {
  it('says a count is short below zero, over above it, balanced at zero, and nothing before it', () => {
    assert.deepEqual([-0.01, 0.01, 0, null].map((variance) => varianceTone(variance)), ['short', 'over', 'balanced', null]);
  });

  it('sums each cashier\'s shifts, closed, short and variance, by name, in minor units', () => {
    const lines = cashierSummaries([
      shift('staff_b', 'Bola', 0.1),
      shift('staff_a', 'Ada', -5),
      shift('staff_b', 'Bola', 0.2),
      shift('staff_a', 'Ada', null),
      shift('staff_a', 'Ada', 2.5),
      shift('staff_b', 'Bola', -0.05),
    ]);
    assert.deepEqual(lines.map((line) => [line.cashierId, line.cashierName, line.currency, line.shifts, line.closed, line.counted, line.short, line.variance]), [
      ['staff_a', 'Ada', 'NGN', 3, 2, 2, 1, -2.5],
      // 0.1 + 0.2 - 0.05 is 0.25 to the kobo (floating point would say 0.25000000000000006).
      ['staff_b', 'Bola', 'NGN', 3, 3, 3, 1, 0.25],
    ]);
    assert.equal(minorFromMajor(lines[1]!.variance, 'NGN'), 25);
  });

  it('keeps a cashier\'s currencies apart, and a shift closed without an expected amount out of the variance', () => {
    const lines = cashierSummaries([
      shift('staff_a', 'Ada', -1, { currency: 'KES' }),
      shift('staff_a', 'Ada', 3),
      shift('staff_a', 'Ada', null, { status: 'closed', closedAt: '2025-01-02T17:00:00.000Z', counted: 40 }),
      shift('staff_x', null, 1),
    ]);
    assert.deepEqual(lines.map((line) => [line.cashierId, line.currency, line.shifts, line.closed, line.counted, line.variance]), [
      ['staff_a', 'KES', 1, 1, 1, -1],
      ['staff_a', 'NGN', 2, 2, 1, 3],
      // A cashier the server has no name for comes last.
      ['staff_x', 'NGN', 1, 1, 1, 1],
    ]);
  });

  it('words a variance in every language with the amount it is short or over', () => {
    const expected = { en: 'Short NGN 5.00', fr: 'Manque 5,00 NGN', pt: 'Falta NGN 5,00', sw: 'Pungufu NGN 5.00' } as const;
    for (const [language, text] of Object.entries(expected) as [keyof typeof expected, string][]) {
      const t = translator(language);
      assert.equal(t.t('dashboard.shifts.short', { amount: t.money(500, 'NGN') }).replace(/[\u00a0\u202f]/g, ' '), text);
      assert.notEqual(t.t('dashboard.nav.staff'), 'dashboard.nav.staff');
      assert.notEqual(t.t('dashboard.nav.shifts'), 'dashboard.nav.shifts');
    }
  });
});
