import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { convertMinor as convert, decimalToNumber, divideDecimal as divide, formatDecimal, parseDecimal, percentOf, roundSignificant } from '@tapline/shared/money';
import { applySpread, crossRate } from './rates.ts';

// The FX rules of fx/rates.ts: converted amounts round down, fees up.
const convertMinor = (minor: number, from: string, rate: ReturnType<typeof parseDecimal>, to: string) => convert(minor, from, to, rate, 'down');
const feeMinor = (minor: number, percent: string) => percentOf(minor, percent, 'up');

const d = (text: string) => parseDecimal(text);

describe('FX arithmetic in minor units', () => {
  it('parses decimals exactly, including exponent forms and JS numbers', () => {
    assert.equal(formatDecimal(d('1326.1643995')), '1326.1643995');
    assert.equal(formatDecimal(d('0.000100')), '0.0001');
    assert.equal(formatDecimal(parseDecimal(1e-7)), '0.0000001');
    assert.equal(formatDecimal(parseDecimal(2.5e21)), '2500000000000000000000');
    assert.equal(formatDecimal(parseDecimal(0.1)), '0.1');
    assert.throws(() => parseDecimal('12,5'), RangeError);
  });

  it('derives cross rates through USD, rounded half-even to 10 significant digits', () => {
    // NGN per USD 1326.1643995, KES per USD 129.67469522: NGN -> KES = 129.67469522 / 1326.1643995
    // = 0.0977817646657...: ten significant digits, the next digit (5 then 7) rounds up.
    const rate = crossRate(d('1326.1643995'), d('129.67469522'));
    assert.equal(formatDecimal(rate), '0.09778176467');
    // Exact ties go to the even digit: 1/8 = 0.125 at 2 significant digits is 0.12, 3/8 = 0.375 is 0.38.
    assert.equal(formatDecimal(divide(d('1'), d('8'), 2, 'half_even')), '0.12');
    assert.equal(formatDecimal(divide(d('3'), d('8'), 2, 'half_even')), '0.38');
    assert.equal(formatDecimal(divide(d('2'), d('3'), 3, 'down')), '0.666');
    assert.equal(formatDecimal(divide(d('2'), d('3'), 3, 'up')), '0.667');
    // Large rates keep 10 significant digits too.
    // 3914.66823395 / 0.75538854 = 5182.32409767561...: the 11th digit (7) rounds the 10th up.
    assert.equal(formatDecimal(crossRate(d('0.75538854'), d('3914.66823395'))), '5182.324098');
    assert.equal(formatDecimal(roundSignificant(d('123456789012345'), 10, 'half_even')), '123456789000000');
  });

  it('takes the spread off the mid rate and rounds the result down', () => {
    assert.equal(formatDecimal(applySpread(d('0.09778176467'), '1')), '0.09680394702');
    // 1326.1644 x 0.99 = 1312.902756 exactly.
    assert.equal(formatDecimal(applySpread(d('1326.1644'), '1')), '1312.902756');
    // 1.2345678901 x 0.9875 = 1.21913579147375 -> 1.219135791 (down, where half-even would give ...792).
    assert.equal(formatDecimal(applySpread(d('1.2345678901'), '1.25')), '1.219135791');
    assert.equal(formatDecimal(applySpread(d('1.5'), '0')), '1.5');
  });

  it('converts minor units with floor, across exponents 0, 2 and 3', () => {
    // 1000.00 NGN x 0.09680394702 = 96.80394702 KES -> 96.80 (9680 minor units, floored).
    assert.equal(convertMinor(100_000, 'NGN', d('0.09680394702'), 'KES'), 9_680);
    // 100.00 USD x 1312.902756 = 131290.2756 NGN -> 131290.27.
    assert.equal(convertMinor(10_000, 'USD', d('1312.902756'), 'NGN'), 13_129_027);
    // 1.00 USD x 3914.66823395 UGX (exponent 0) = 3914.67 -> 3914 UGX.
    assert.equal(convertMinor(100, 'USD', d('3914.668234'), 'UGX'), 3_914);
    // 5000 XOF (exponent 0) x 0.00173 = 8.65 USD -> 865 cents.
    assert.equal(convertMinor(5_000, 'XOF', d('0.00173'), 'USD'), 865);
    // 1.000 TND (exponent 3) x 3.1 = 3.100 LYD (exponent 3) -> 3100.
    assert.equal(convertMinor(1_000, 'TND', d('3.1'), 'LYD'), 3_100);
    // Never rounds up: 0.01 NGN x 0.0977 KES is below one cent.
    assert.equal(convertMinor(1, 'NGN', d('0.0977'), 'KES'), 0);
  });

  it('rounds fees up to the minor unit', () => {
    assert.equal(feeMinor(100_000, '1.5'), 1_500);
    assert.equal(feeMinor(1, '1.5'), 1);
    assert.equal(feeMinor(333, '1'), 4);
    // 123.45 x 2.9% = 3.58005 -> 3.59 (up).
    assert.equal(feeMinor(12_345, '2.9'), 359);
    assert.equal(feeMinor(100_000, '0'), 0);
  });

  it('gives JSON numbers that print the same decimal', () => {
    for (const text of ['0.09680394702', '1312.902756', '5182.373282', '0.000754112345']) {
      assert.equal(String(decimalToNumber(d(text))), text);
    }
  });
});
