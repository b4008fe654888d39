// The keypad and keyboard entry follows the currency's ISO 4217 minor unit, and a key it cannot
// take changes nothing and says why (never a dropped or shifted digit).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AmountKey, amountForApi, amountKeyHint, amountMinorForEntry, decimalSeparator, displayAmount, pressAmountKey } from './amount-entry.ts';

function type(keys: AmountKey[], currency: string): { entry: string; refusals: (string | null)[] } {
  let entry = '';
  const refusals: (string | null)[] = [];
  for (const key of keys) {
    const result = pressAmountKey(entry, key, currency);
    entry = result.entry;
    refusals.push(result.refused);
  }
  return { entry, refusals };
}

const keys = (text: string) => [...text] as AmountKey[];

describe('amount entry by minor unit', () => {
  it('never turns UGX 1500.5 into 15005: the point and the digit after it are refused, the amount stays 1,500', () => {
    const typed = type(keys('1500.5'), 'UGX');
    assert.equal(typed.entry, '1500.');
    assert.deepEqual(typed.refusals, [null, null, null, null, 'no_decimals', 'no_decimals']);
    assert.equal(displayAmount(typed.entry, 'UGX'), '1,500');
    assert.deepEqual(amountMinorForEntry(typed.entry, 'UGX'), { ok: true, amountMinor: 1500 });
    // Deleting the point makes the next digit whole again, as the cashier would expect.
    assert.equal(pressAmountKey(pressAmountKey('1500.', 'back', 'UGX').entry, '5', 'UGX').entry, '15005');
    assert.equal(amountKeyHint('no_decimals', 'UGX'), 'UGX has no decimals: type whole amounts only.');
  });

  it('takes 00 for currencies without decimals, and not as a leading zero', () => {
    assert.equal(type(['1', '5', '00'], 'XOF').entry, '1500');
    assert.equal(type(['00', '7'], 'XOF').entry, '7');
    assert.equal(displayAmount('1500000', 'XOF'), '1,500,000');
  });

  it('takes three decimals in TND and refuses a fourth with a hint; two in NGN', () => {
    const tnd = type(keys('2.1257'), 'TND');
    assert.equal(tnd.entry, '2.125');
    assert.equal(tnd.refusals.at(-1), 'decimals_full');
    assert.deepEqual(amountForApi(tnd.entry, 'TND'), { ok: true, amount: 2.125 });
    assert.equal(amountKeyHint('decimals_full', 'TND'), 'TND has 3 decimals: no more digits after the point.');
    const ngn = type(keys('12.505'), 'NGN');
    assert.equal(ngn.entry, '12.50');
    assert.equal(ngn.refusals.at(-1), 'decimals_full');
    assert.equal(displayAmount('1250.5', 'NGN'), '1,250.5');
    assert.equal(displayAmount('', 'NGN'), '0');
    // In the kiosk's language: French groups with a narrow no-break space and writes a comma.
    assert.equal(displayAmount('1250.5', 'NGN', 'fr'), '1\u202f250,5');
    assert.equal(displayAmount('1500000', 'XOF', 'fr'), '1\u202f500\u202f000');
    assert.equal(decimalSeparator('fr'), ',');
    assert.equal(decimalSeparator('en'), '.');
  });

  it('stops at twelve whole digits and says so', () => {
    const typed = type(keys('1234567890123'), 'NGN');
    assert.equal(typed.entry, '123456789012');
    assert.equal(typed.refusals.at(-1), 'too_many_digits');
  });
});
