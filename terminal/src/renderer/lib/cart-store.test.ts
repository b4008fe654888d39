// The cart kept across a reload: stored per terminal, restored only when it is a valid cart.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Cart } from '@tapline/shared/cart';
import { forgetCart, loadCart, saveCart } from './cart-store.ts';

function memoryStore() {
  const values = new Map<string, string>();
  return {
    values,
    getItem: (key: string) => values.get(key) ?? null,
    setItem: (key: string, value: string) => void values.set(key, value),
    removeItem: (key: string) => void values.delete(key),
  };
}

const cart: Cart = {
  lines: [
    { productId: 'prod_1', name: 'Jollof rice', quantity: 2, unitPrice: 1_500, discount: 0, taxRate: 750, taxInclusive: true },
    { productId: null, name: 'Delivery', quantity: 1, unitPrice: 300, discount: 0, taxRate: 0, taxInclusive: true },
  ],
  discount: 100,
};

describe('kept cart', () => {
  it('keeps a cart and its currency per terminal, and forgets an empty one', () => {
    const store = memoryStore();
    saveCart('term_a', { currency: 'NGN', cart }, store);
    assert.deepEqual(loadCart('term_a', store), { currency: 'NGN', cart });
    assert.equal(loadCart('term_b', store), null, 'another terminal has its own');
    saveCart('term_a', { currency: 'NGN', cart: { lines: [], discount: 0 } }, store);
    assert.equal(loadCart('term_a', store), null);
    assert.equal(store.values.size, 0);
    saveCart('term_a', { currency: 'NGN', cart }, store);
    forgetCart('term_a', store);
    assert.equal(loadCart('term_a', store), null);
  });

  it('drops a kept value that is not a valid cart', () => {
    for (const raw of ['{', '"x"', JSON.stringify({ currency: 'NGN' }), JSON.stringify({ currency: 'naira', cart }), JSON.stringify({ currency: 'NGN', cart: { lines: [{ ...cart.lines[0], quantity: 0 }], discount: 0 } }), JSON.stringify({ currency: 'NGN', cart: { ...cart, discount: 999_999 } })]) {
      const store = memoryStore();
      store.setItem('tapline.cart.term_a', raw);
      assert.equal(loadCart('term_a', store), null, raw);
      assert.equal(store.values.size, 0, `${raw} is removed`);
    }
  });
});
