// Cash at the till, the arithmetic: change in integer minor units (NGN and KES with 2 decimals,
// XOF and UGX with none, TND with 3), and the quick amounts the Cash screen offers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { amountMinorForEntry } from './amount-entry.ts';
import { CASH_NOTES, cashChange, cashSuggestions, entryForMinor } from './cash-tender.ts';

describe('the change for a cash tender', () => {
  it('is what was handed over less what is due, in minor units, or how much is missing', () => {
    // NGN 750.00 due, 1,000.00 handed over: 250.00 back.
    assert.deepEqual(cashChange(75_000, 100_000), { ok: true, changeMinor: 25_000 });
    assert.deepEqual(cashChange(75_000, 75_000), { ok: true, changeMinor: 0 });
    assert.deepEqual(cashChange(75_000, 70_000), { ok: false, shortMinor: 5_000 });
    assert.deepEqual(cashChange(75_000, 0), { ok: false, shortMinor: 75_000 });
    // XOF has no decimals: 3,500 due, 5,000 handed over.
    assert.deepEqual(cashChange(3_500, 5_000), { ok: true, changeMinor: 1_500 });
    // KES 2 decimals: 129.95 due, 200 handed over, 70.05 back exactly.
    assert.deepEqual(cashChange(12_995, 20_000), { ok: true, changeMinor: 7_005 });
    // Large amounts stay exact (safe integers).
    assert.deepEqual(cashChange(99_999_999_999_99, 100_000_000_000_00), { ok: true, changeMinor: 1 });
  });

  it('refuses amounts that are not integer minor units', () => {
    assert.throws(() => cashChange(0, 100), RangeError);
    assert.throws(() => cashChange(12.5, 100), RangeError);
    assert.throws(() => cashChange(100, -1), RangeError);
    assert.throws(() => cashChange(100, 100.5), RangeError);
  });
});

describe('the quick amounts of the Cash screen', () => {
  it('offers the common notes that cover the amount due, and round-ups to a note past them', () => {
    assert.deepEqual(CASH_NOTES.NGN, [500, 1000]);
    // NGN 250.00: the 500 and 1,000 notes.
    assert.deepEqual(cashSuggestions(25_000, 'NGN'), [50_000, 100_000]);
    // NGN 2,750.00 is past the largest note: three 1,000s, then round figures of it.
    assert.deepEqual(cashSuggestions(275_000, 'NGN'), [300_000, 500_000, 1_000_000]);
    // KES 130.00: 150 (three 50s), then the notes that cover it, smallest first, four at most.
    assert.deepEqual(cashSuggestions(13_000, 'KES'), [15_000, 20_000, 50_000, 100_000]);
    // GHS 450.00: 460 (in 20s), 500 (in 50s or 100s), 600 (in 200s).
    assert.deepEqual(cashSuggestions(45_000, 'GHS'), [46_000, 50_000, 60_000]);
    // XOF has no decimals: 3,500 due.
    assert.deepEqual(cashSuggestions(3_500, 'XOF'), [4_000, 5_000, 10_000]);
    assert.deepEqual(cashSuggestions(3_500, 'XAF'), [4_000, 5_000, 10_000]);
    assert.deepEqual(cashSuggestions(7_500, 'UGX'), [8_000, 10_000, 20_000, 50_000]);
    // TZS has two decimals: 4,200.00 due.
    assert.deepEqual(cashSuggestions(420_000, 'TZS'), [500_000, 600_000, 1_000_000]);
    assert.deepEqual(cashSuggestions(13_750, 'ZAR'), [14_000, 15_000, 20_000]);
    assert.deepEqual(cashSuggestions(725, 'USD'), [1_000, 2_000, 5_000]);
    assert.deepEqual(cashSuggestions(725, 'EUR'), [1_000, 2_000, 5_000]);
    assert.deepEqual(cashSuggestions(4_999, 'GBP'), [5_000, 6_000]);
  });

  it('rounds up to 5, 10, 50, 100... for a currency without a note table', () => {
    assert.equal(CASH_NOTES.EGP, undefined);
    // EGP 137.50.
    assert.deepEqual(cashSuggestions(13_750, 'EGP'), [14_000, 15_000, 20_000, 50_000]);
    // RWF has no decimals: 3,450.
    assert.deepEqual(cashSuggestions(3_450, 'RWF'), [3_500, 4_000, 5_000, 10_000]);
    // TND has three decimals: 12.500.
    assert.deepEqual(cashSuggestions(12_500, 'TND'), [15_000, 20_000, 50_000, 100_000]);
  });

  it('never offers the exact amount (its own button) nor less than it, and nothing for no amount', () => {
    // NGN 500.00 exactly: the 500 note is the exact amount.
    assert.deepEqual(cashSuggestions(50_000, 'NGN'), [100_000, 500_000, 1_000_000]);
    for (const [due, currency] of [[1, 'NGN'], [99_999, 'KES'], [1, 'XOF'], [123_456, 'EGP'], [10_000, 'USD']] as const) {
      const amounts = cashSuggestions(due, currency);
      assert.ok(amounts.length >= 1 && amounts.length <= 4, `${currency} ${due}: ${amounts.join(', ')}`);
      assert.ok(amounts.every((amount, index) => Number.isSafeInteger(amount) && amount > due && (index === 0 || amount > amounts[index - 1]!)), `${currency} ${due}: ${amounts.join(', ')}`);
    }
    assert.deepEqual(cashSuggestions(0, 'NGN'), []);
  });

  it('puts a quick amount on the keypad as if typed, so it reads back to the same minor units', () => {
    assert.equal(entryForMinor(50_000, 'NGN'), '500');
    assert.equal(entryForMinor(1_250, 'NGN'), '12.50');
    assert.equal(entryForMinor(1_500, 'XOF'), '1500');
    assert.equal(entryForMinor(12_500, 'TND'), '12.500');
    for (const [minor, currency] of [[50_000, 'NGN'], [1_250, 'KES'], [1_500, 'XOF'], [12_345, 'TND'], [7_005, 'GHS']] as const) {
      assert.deepEqual(amountMinorForEntry(entryForMinor(minor, currency), currency), { ok: true, amountMinor: minor });
    }
  });
});
