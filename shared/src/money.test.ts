import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AFRICAN_COUNTRIES, SUPPORTED_CURRENCIES, currencyOfCountry } from './countries.ts';
import { MoneyError, currencyExponent, formatMinor, formatMoney, toMajor, toMinor } from './money.ts';

const rejects = (amount: number | string, currency: string, code: string) =>
  assert.throws(() => toMinor(amount, currency), (error: unknown) => error instanceof MoneyError && error.code === code, `${amount} ${currency}`);

describe('money', () => {
  it('covers all 54 African countries plus USD, GBP and EUR with ISO 4217 exponents', () => {
    assert.equal(AFRICAN_COUNTRIES.length, 54);
    for (const country of AFRICAN_COUNTRIES) {
      const currency = currencyOfCountry(country);
      assert.ok(currency && SUPPORTED_CURRENCIES.includes(currency), `${country} -> ${currency}`);
    }
    for (const code of ['USD', 'GBP', 'EUR']) assert.ok(SUPPORTED_CURRENCIES.includes(code));
    assert.equal(currencyOfCountry('NG'), 'NGN');
    assert.equal(currencyOfCountry('SN'), 'XOF');
    assert.deepEqual(
      ['NGN', 'XOF', 'XAF', 'UGX', 'RWF', 'TND', 'LYD', 'KES', 'ZAR', 'MGA', 'USD'].map(currencyExponent),
      [2, 0, 0, 0, 0, 3, 3, 2, 2, 2, 2],
    );
  });

  it('parses major units into integer minor units without floating-point error', () => {
    assert.equal(toMinor(12.5, 'NGN'), 1250);
    assert.equal(toMinor(0.3, 'USD'), 30);
    assert.equal(toMinor(19.99, 'USD'), 1999);
    assert.equal(toMinor(1.005, 'TND'), 1005);
    assert.equal(toMinor(500, 'XOF'), 500);
    assert.equal(toMinor('12.50', 'KES'), 1250);
    assert.equal(toMinor(1e12, 'NGN'), 100_000_000_000_000);
    assert.equal(toMinor(1e-2, 'USD'), 1);
  });

  it('rejects too many decimals, zero, negative, non-finite and too large', () => {
    rejects(12.345, 'NGN', 'amount_too_many_decimals');
    rejects(0.5, 'XOF', 'amount_too_many_decimals');
    rejects(1e-7, 'USD', 'amount_too_many_decimals');
    rejects(0, 'NGN', 'amount_must_not_be_zero');
    rejects(-1, 'NGN', 'amount_must_be_positive');
    rejects(Number.NaN, 'NGN', 'amount_must_be_finite');
    rejects(Number.POSITIVE_INFINITY, 'NGN', 'amount_must_be_finite');
    rejects(1e12 + 1, 'NGN', 'amount_too_large');
    rejects('12,50', 'NGN', 'amount_invalid');
    rejects(10, 'FRF', 'currency_not_supported');
  });

  it('formats minor units back to major units', () => {
    assert.equal(formatMinor(1250, 'NGN'), '12.50');
    assert.equal(formatMinor(5, 'NGN'), '0.05');
    assert.equal(formatMinor(500, 'XOF'), '500');
    assert.equal(formatMinor(1005, 'TND'), '1.005');
    assert.equal(formatMinor(-1250, 'NGN'), '-12.50');
    assert.equal(toMajor(1999, 'USD'), 19.99);
    assert.equal(formatMoney(123456789, 'NGN'), 'NGN 1,234,567.89');
  });
});
