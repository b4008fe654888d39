import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Cart } from '@tapline/shared/cart';
import { ApiError } from './api.ts';
import { lineRefusal } from './line-refusal.ts';
import { removeProduct } from './till-cart.ts';

const cart: Cart = {
  lines: [
    { productId: 'prod_j', name: 'Jollof rice', quantity: 2, unitPrice: 1_500, discount: 0, taxRate: 750, taxInclusive: true },
    { productId: null, name: 'Bag', quantity: 1, unitPrice: 100, discount: 0, taxRate: 0, taxInclusive: true },
    { productId: 'prod_m', name: 'Malt', quantity: 6, unitPrice: 500, discount: 0, taxRate: 750, taxInclusive: false },
  ],
  discount: 3_000,
};

describe('a line the server refused', () => {
  it('names the archived or deactivated product from the cart, and the units left of one out of stock', () => {
    const archived = new ApiError('Jollof rice is archived', 'product_unavailable', 409, [{ productId: 'prod_j', name: 'Jollof', reason: 'archived' }]);
    assert.deepEqual(lineRefusal(archived, cart), { productId: 'prod_j', name: 'Jollof rice', code: 'product_unavailable', available: null });
    const short = new ApiError('Malt has 5', 'out_of_stock', 409, [{ productId: 'prod_m', available: 5, requested: 6 }]);
    assert.deepEqual(lineRefusal(short, cart), { productId: 'prod_m', name: 'Malt', code: 'out_of_stock', available: 5 });
  });

  it('is null for other failures, answers without details, or a product no longer in the cart', () => {
    assert.equal(lineRefusal(new ApiError('Wrong PIN', 'wrong_pin', 403), cart), null);
    assert.equal(lineRefusal(new ApiError('x', 'product_unavailable', 409), cart), null);
    assert.equal(lineRefusal(new ApiError('x', 'product_unavailable', 409, [{ productId: 'prod_other' }]), cart), null);
    assert.equal(lineRefusal(new Error('boom'), cart), null);
  });

  it('takes every line of the product out, keeping the cart discount within what is left', () => {
    const change = removeProduct(cart, 'prod_j');
    assert.ok(change.ok);
    assert.deepEqual(change.cart.lines.map((line) => line.name), ['Bag', 'Malt']);
    assert.equal(change.cart.discount, 3_000);
    const onlyBag = removeProduct(change.cart, 'prod_m');
    assert.ok(onlyBag.ok);
    assert.deepEqual([onlyBag.cart.lines.length, onlyBag.cart.discount], [1, 100]);
  });
});
