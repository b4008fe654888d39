import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AFRICAN_COUNTRIES, SUPPORTED_CURRENCIES, currencyOfCountry } from './countries.ts';
import { MoneyError, convertMinor, currencyExponent, divideRounded, formatAmount, formatMinor, formatMoney, minorFromMajor, parseDecimal, percentOf, toMajor, toMinor } from './money.ts';

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
  });

  // Intl's spaces: U+00A0 between code and number, U+202F between French digit groups.
  const NBSP = '\u00a0';
  const NNBSP = '\u202f';

  it('formats money for people per locale with the ISO 4217 minor unit of each currency', () => {
    const cases: Array<[number, string, Record<'en' | 'fr' | 'pt' | 'sw', string>]> = [
      [125000, 'NGN', { en: `NGN${NBSP}1,250.00`, fr: `1${NNBSP}250,00${NBSP}NGN`, pt: `NGN${NBSP}1.250,00`, sw: `NGN${NBSP}1,250.00` }],
      [150000, 'UGX', { en: `UGX${NBSP}150,000`, fr: `150${NNBSP}000${NBSP}UGX`, pt: `UGX${NBSP}150.000`, sw: `UGX${NBSP}150,000` }],
      [5000, 'XOF', { en: `XOF${NBSP}5,000`, fr: `5${NNBSP}000${NBSP}XOF`, pt: `XOF${NBSP}5.000`, sw: `XOF${NBSP}5,000` }],
      [1250125, 'TND', { en: `TND${NBSP}1,250.125`, fr: `1${NNBSP}250,125${NBSP}TND`, pt: `TND${NBSP}1.250,125`, sw: `TND${NBSP}1,250.125` }],
      [5, 'KES', { en: `KES${NBSP}0.05`, fr: `0,05${NBSP}KES`, pt: `KES${NBSP}0,05`, sw: `KES${NBSP}0.05` }],
      [-1250, 'KES', { en: `-KES${NBSP}12.50`, fr: `-12,50${NBSP}KES`, pt: `-KES${NBSP}12,50`, sw: `-KES${NBSP}12.50` }],
    ];
    for (const [minor, currency, expected] of cases) {
      for (const [locale, text] of Object.entries(expected)) assert.equal(formatMoney(minor, currency, locale), text, `${minor} ${currency} ${locale}`);
    }
    assert.equal(formatMoney(123456789, 'NGN'), `NGN${NBSP}1,234,567.89`, 'English by default');
  });

  it('formats every digit of large amounts: no floating point on the way', () => {
    // 2^53 - 1 minor units: a float of the major amount would round the last digits.
    assert.equal(formatMoney(Number.MAX_SAFE_INTEGER, 'NGN', 'en'), `NGN${NBSP}90,071,992,547,409.91`);
    assert.equal(formatMoney(Number.MAX_SAFE_INTEGER, 'TND', 'fr'), `9${NNBSP}007${NNBSP}199${NNBSP}254${NNBSP}740,991${NBSP}TND`);
    assert.equal(formatMoney(100_000_000_000_001, 'XOF', 'en'), `XOF${NBSP}100,000,000,000,001`);
    assert.throws(() => formatMoney(0.5, 'NGN'), (error: unknown) => error instanceof MoneyError && error.code === 'amount_invalid');
  });

  it('formats the number alone as formatMoney groups it', () => {
    assert.equal(formatAmount(125000, 'NGN', 'en'), '1,250.00');
    assert.equal(formatAmount(125000, 'NGN', 'fr'), `1${NNBSP}250,00`);
    assert.equal(formatAmount(5000, 'XOF', 'pt'), '5.000');
    assert.equal(formatAmount(-1250125, 'TND', 'sw'), '-1,250.125');
  });

  it('reads answered major amounts back into minor units exactly, zero and negative included', () => {
    assert.equal(minorFromMajor(12.5, 'NGN'), 1250);
    assert.equal(minorFromMajor(0, 'NGN'), 0);
    assert.equal(minorFromMajor(-19.99, 'USD'), -1999);
    assert.equal(minorFromMajor(1.005, 'TND'), 1005);
    assert.throws(() => minorFromMajor(0.5, 'XOF'), (error: unknown) => error instanceof MoneyError && error.code === 'amount_too_many_decimals');
  });
});

describe('money arithmetic with an explicit rounding rule', () => {
  it('rounds a quotient down, up, half up and half even', () => {
    const all = (n: bigint, d: bigint) => (['down', 'up', 'half_up', 'half_even'] as const).map((rule) => divideRounded(n, d, rule));
    assert.deepEqual(all(7n, 2n), [3n, 4n, 4n, 4n]); // 3.5: the tie goes up, and to the even 4
    assert.deepEqual(all(5n, 2n), [2n, 3n, 3n, 2n]); // 2.5: half even keeps the even 2
    assert.deepEqual(all(10n, 3n), [3n, 4n, 3n, 3n]);
    assert.deepEqual(all(20n, 3n), [6n, 7n, 7n, 7n]);
    assert.deepEqual(all(9n, 3n), [3n, 3n, 3n, 3n]);
    assert.throws(() => divideRounded(-1n, 2n, 'down'), RangeError);
  });

  it('takes percentages of minor units exactly, by the rule the caller names', () => {
    assert.equal(percentOf(100_000, '1.5', 'up'), 1_500);
    assert.equal(percentOf(333, '1', 'up'), 4); // a fee: 3.33 rounds up
    assert.equal(percentOf(333, '1', 'down'), 3); // a discount: rounds down
    assert.equal(percentOf(250, '1', 'half_up'), 3);
    assert.equal(percentOf(250, '1', 'half_even'), 2);
    assert.equal(percentOf(999, parseDecimal('12.5'), 'down'), 124);
    assert.equal(percentOf(0, '50', 'up'), 0);
    assert.throws(() => percentOf(1.5, '1', 'up'), (error: unknown) => error instanceof MoneyError && error.code === 'amount_invalid');
  });

  it('converts minor units between currencies of different exponents at an exact rate', () => {
    // 1000.00 NGN at 0.09680394702 KES per NGN = 96.80394702 KES: 9680 cents down, 9681 up.
    assert.equal(convertMinor(100_000, 'NGN', 'KES', '0.09680394702', 'down'), 9_680);
    assert.equal(convertMinor(100_000, 'NGN', 'KES', '0.09680394702', 'up'), 9_681);
    // USD (2 decimals) -> UGX (0 decimals): 1.00 USD at 3914.668234 = 3914.668234 UGX.
    assert.equal(convertMinor(100, 'USD', 'UGX', '3914.668234', 'half_up'), 3_915);
    // TND (3 decimals) -> LYD (3 decimals).
    assert.equal(convertMinor(1_000, 'TND', 'LYD', parseDecimal('3.1'), 'down'), 3_100);
    assert.equal(convertMinor(1234, 'NGN', 'NGN', '2', 'down'), 1234, 'a currency converts to itself unchanged');
    assert.throws(() => convertMinor(Number.MAX_SAFE_INTEGER, 'USD', 'NGN', '1000', 'down'), (error: unknown) => error instanceof MoneyError && error.code === 'amount_too_large');
  });
});
