import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Cart, CartError, type SaleLine, assertCartMatches, cartTotals, taxRows } from './cart.ts';

const line = (over: Partial<SaleLine> = {}): SaleLine => ({ productId: 'prod_1', name: 'Jollof rice', quantity: 1, unitPrice: 150_000, discount: 0, taxRate: 0, taxInclusive: true, ...over });
const refuses = (cart: Cart, code: string) => assert.throws(() => cartTotals(cart), (error: unknown) => error instanceof CartError && error.code === code, code);

describe('cart totals', () => {
  it('adds quantities and prices with no tax or discount', () => {
    const totals = cartTotals({ lines: [line({ quantity: 2 }), line({ productId: null, name: 'Delivery', unitPrice: 50_000 })], discount: 0 });
    assert.deepEqual([totals.subtotal, totals.discount, totals.tax, totals.total], [350_000, 0, 0, 350_000]);
    assert.deepEqual(totals.lines.map((l) => l.total), [300_000, 50_000]);
  });

  it('takes VAT out of an inclusive price (7.5 % of 1 075.00 is 75.00) and adds it on top of an exclusive one', () => {
    const inclusive = cartTotals({ lines: [line({ unitPrice: 107_500, taxRate: 750 })], discount: 0 });
    assert.deepEqual(inclusive.lines[0], { gross: 107_500, discount: 0, net: 100_000, tax: 7_500, total: 107_500 });
    const exclusive = cartTotals({ lines: [line({ unitPrice: 100_000, taxRate: 750, taxInclusive: false })], discount: 0 });
    assert.deepEqual(exclusive.lines[0], { gross: 100_000, discount: 0, net: 100_000, tax: 7_500, total: 107_500 });
    assert.deepEqual(exclusive.taxes, [{ rate: 750, taxable: 100_000, tax: 7_500 }]);
  });

  it('rounds each line\'s tax half up', () => {
    // 16 % VAT added to 0.03: 0.0048 rounds to 0.00; on 0.04: 0.0064 rounds to 0.01; 0.0025 → 0 half-up at 0.5 minor.
    assert.equal(cartTotals({ lines: [line({ unitPrice: 3, taxRate: 1600, taxInclusive: false })], discount: 0 }).tax, 0);
    assert.equal(cartTotals({ lines: [line({ unitPrice: 4, taxRate: 1600, taxInclusive: false })], discount: 0 }).tax, 1);
    assert.equal(cartTotals({ lines: [line({ unitPrice: 5, taxRate: 1000, taxInclusive: false })], discount: 0 }).tax, 1, '0.5 minor rounds up');
  });

  it('shares a cart discount by what each line costs, exactly, ties to the earlier line', () => {
    const totals = cartTotals({ lines: [line({ unitPrice: 100 }), line({ unitPrice: 100 }), line({ unitPrice: 100 })], discount: 100 });
    assert.deepEqual(totals.lines.map((l) => l.discount), [34, 33, 33]);
    assert.equal(totals.total, 200);
    const weighted = cartTotals({ lines: [line({ unitPrice: 300, discount: 100 }), line({ unitPrice: 200 })], discount: 40 });
    assert.deepEqual(weighted.lines.map((l) => l.discount), [120, 20]);
    assert.equal(weighted.discount, 140);
    assert.equal(weighted.total, 360);
  });

  it('taxes what is left after discounts, per rate', () => {
    const totals = cartTotals({ lines: [line({ unitPrice: 10_750, taxRate: 750 }), line({ unitPrice: 5_000, taxRate: 0 })], discount: 1_575 });
    // Shares of 1 575 by 10 750 : 5 000 → 1 075 and 500.
    assert.deepEqual(totals.lines.map((l) => [l.discount, l.net, l.tax, l.total]), [[1_075, 9_000, 675, 9_675], [500, 4_500, 0, 4_500]]);
    assert.deepEqual(totals.taxes, [{ rate: 0, taxable: 4_500, tax: 0 }, { rate: 750, taxable: 9_000, tax: 675 }]);
    assert.equal(totals.total, 14_175);
  });

  it('splits one rate into its included and its added tax for the kiosk and the receipt', () => {
    // 7.5 % included in 1 075.00, 7.5 % added to 200.00, 16 % added to 100.00, a line at 0 %.
    const cart: Cart = { lines: [line({ unitPrice: 107_500, taxRate: 750 }), line({ unitPrice: 20_000, taxRate: 750, taxInclusive: false }), line({ unitPrice: 10_000, taxRate: 1600, taxInclusive: false }), line({ unitPrice: 500 })], discount: 0 };
    const totals = cartTotals(cart);
    const rows = taxRows(cart, totals);
    assert.deepEqual(rows, [
      { rate: 750, included: true, taxable: 100_000, tax: 7_500 },
      { rate: 750, included: false, taxable: 20_000, tax: 1_500 },
      { rate: 1600, included: false, taxable: 10_000, tax: 1_600 },
    ]);
    assert.equal(rows.reduce((sum, row) => sum + row.tax, 0), totals.tax);
  });

  it('stays exact at the largest amounts (no floating point)', () => {
    const totals = cartTotals({ lines: [line({ unitPrice: 10_000_000_000_000, quantity: 9, taxRate: 1_600, taxInclusive: false })], discount: 1 });
    assert.equal(totals.lines[0]?.net, 89_999_999_999_999);
    assert.equal(totals.tax, 14_400_000_000_000);
    assert.equal(totals.total, 104_399_999_999_999);
  });

  it('refuses malformed carts with a code naming the rule', () => {
    refuses({ lines: [], discount: 0 }, 'items_invalid');
    refuses({ lines: Array.from({ length: 201 }, () => line()), discount: 0 }, 'items_too_many');
    refuses({ lines: [line({ quantity: 0 })], discount: 0 }, 'item_quantity_invalid');
    refuses({ lines: [line({ quantity: 1.5 })], discount: 0 }, 'item_quantity_invalid');
    refuses({ lines: [line({ unitPrice: -1 })], discount: 0 }, 'item_price_invalid');
    refuses({ lines: [line({ unitPrice: 0.5 })], discount: 0 }, 'item_price_invalid');
    refuses({ lines: [line({ discount: 150_001 })], discount: 0 }, 'item_discount_invalid');
    refuses({ lines: [line({ taxRate: 10_001 })], discount: 0 }, 'item_tax_rate_invalid');
    refuses({ lines: [line({ name: '  ' })], discount: 0 }, 'item_name_invalid');
    refuses({ lines: [line({ productId: '' })], discount: 0 }, 'item_product_invalid');
    refuses({ lines: [line({ taxInclusive: 'yes' as unknown as boolean })], discount: 0 }, 'item_tax_inclusive_invalid');
    refuses({ lines: [line()], discount: 150_001 }, 'discount_invalid');
  });

  it('accepts lines that add up to the amount charged and refuses the others', () => {
    const cart = { lines: [line({ quantity: 2, unitPrice: 107_500, taxRate: 750 })], discount: 0 };
    assert.equal(assertCartMatches(cart, 215_000).tax, 15_000);
    assert.throws(() => assertCartMatches(cart, 214_999), (error: unknown) => error instanceof CartError && error.code === 'items_total_mismatch');
  });
});
