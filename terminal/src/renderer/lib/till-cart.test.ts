// The cart at the till: products added once per line, quantities, custom-amount lines, line and
// cart discounts kept within what is left, the totals of shared/src/cart.ts, the session's items
// in major units and percents, and stock shortfalls from the replica.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Cart } from '@tapline/shared/cart';
import type { ProductDoc } from './catalogue.ts';
import { fakeCatalogue } from './catalogue-fixtures.ts';
import { EMPTY_CART, type CartChange, addCustomLine, addProduct, sessionItems, setCartDiscount, setLineDiscount, setQuantity, shortOfStock, totalsOf } from './till-cart.ts';

function ok(change: CartChange): Cart {
  assert.equal(change.ok, true, JSON.stringify(change));
  return (change as { cart: Cart }).cart;
}

const product = (fields: Partial<ProductDoc>): ProductDoc => ({ ...fakeCatalogue(1)[0]!, ...fields });
const JOLLOF = product({ id: 'prod_j', name: 'Jollof', priceMinor: 150_000, taxRate: 750, taxInclusive: true });
const MALT = product({ id: 'prod_m', name: 'Malt', priceMinor: 50_000, taxRate: 750, taxInclusive: false, trackStock: true, stock: 2 });

describe('the cart at the till', () => {
  it('adds a product once per line, counts it up, and takes a line away at quantity 0', () => {
    let cart = ok(addProduct(EMPTY_CART, JOLLOF));
    cart = ok(addProduct(cart, JOLLOF));
    cart = ok(addProduct(cart, MALT));
    assert.deepEqual(cart.lines.map((l) => [l.name, l.quantity, l.unitPrice, l.taxRate, l.taxInclusive]), [['Jollof', 2, 150_000, 750, true], ['Malt', 1, 50_000, 750, false]]);
    cart = ok(setQuantity(cart, 0, 0));
    assert.deepEqual(cart.lines.map((l) => l.name), ['Malt']);
    assert.deepEqual(setQuantity(cart, 0, 10_000), { ok: false, refused: 'quantity_limit' });
  });

  it('totals inclusive and exclusive taxes, line and cart discounts with the shared cartTotals', () => {
    let cart = ok(addProduct(EMPTY_CART, JOLLOF));
    cart = ok(addProduct(cart, MALT));
    cart = ok(addCustomLine(cart, 20_000, 'Delivery'));
    cart = ok(setLineDiscount(cart, 0, 10_000));
    cart = ok(setCartDiscount(cart, 5_000));
    const totals = totalsOf(cart)!;
    assert.equal(totals.subtotal, 220_000);
    assert.equal(totals.discount, 15_000);
    // Jollof 140,000 - share; malt 50,000 - share (+7.5 % on top); delivery untaxed.
    assert.equal(totals.total, totals.lines.reduce((sum, line) => sum + line.total, 0));
    assert.equal(totals.taxes.find((tax) => tax.rate === 750)?.tax, totals.tax);
    assert.ok(totals.total > 220_000 - 15_000, 'the exclusive tax is added on top');
    assert.equal(totalsOf(EMPTY_CART), null);
  });

  it('refuses a discount larger than the line or the cart, and shrinks the cart discount when lines go', () => {
    let cart = ok(addProduct(EMPTY_CART, MALT));
    assert.deepEqual(setLineDiscount(cart, 0, 50_001), { ok: false, refused: 'discount_too_large' });
    cart = ok(addProduct(cart, JOLLOF));
    assert.deepEqual(setCartDiscount(cart, 200_001), { ok: false, refused: 'discount_too_large' });
    cart = ok(setCartDiscount(cart, 100_000));
    cart = ok(setQuantity(cart, 1, 0));
    assert.equal(cart.discount, 50_000);
    assert.deepEqual(addCustomLine(cart, 0, 'x'), { ok: false, refused: 'no_amount' });
  });

  it('sends the session its items in major units and percents, products by id, custom lines without', () => {
    let cart = ok(addProduct(EMPTY_CART, JOLLOF));
    cart = ok(addCustomLine(cart, 1_250, 'Bag'));
    cart = ok(setLineDiscount(cart, 0, 5_000));
    cart = ok(setCartDiscount(cart, 100));
    assert.deepEqual(sessionItems(cart, 'NGN'), {
      items: [
        { productId: 'prod_j', name: 'Jollof', quantity: 1, unitPrice: 1500, discount: 50, taxRate: 7.5, taxInclusive: true },
        { name: 'Bag', quantity: 1, unitPrice: 12.5, taxRate: 0, taxInclusive: true },
      ],
      discount: 1,
    });
  });

  it('names the tracked products short of stock for what the cart holds', () => {
    let cart = ok(addProduct(EMPTY_CART, MALT));
    cart = ok(addProduct(cart, JOLLOF));
    const byId = new Map([[MALT.id, MALT], [JOLLOF.id, JOLLOF]]);
    assert.deepEqual(shortOfStock(cart, byId), []);
    cart = ok(setQuantity(cart, 0, 3));
    assert.deepEqual(shortOfStock(cart, byId), [{ productId: 'prod_m', name: 'Malt', available: 2 }]);
  });
});
