import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { payableAtMost } from './service.ts';

// M-Pesa's rule as its adapter states it (rails/mpesa/adapter.ts refuseAmount): KES with cents is refused.
const wholeShillingsOnly = (amount: number, currency: string) => (currency === 'KES' && amount % 100 !== 0 ? 'M-Pesa pays whole shillings only' : undefined);

describe('payableAtMost: "everything available" through a provider that pays only some amounts', () => {
  it('rounds down to whole shillings for M-Pesa, leaving the cents for the next payout', () => {
    assert.equal(payableAtMost(1_234_567, 'KES', wholeShillingsOnly), 1_234_500);
    assert.equal(payableAtMost(1_234_500, 'KES', wholeShillingsOnly), 1_234_500);
  });

  it('answers 0 when less than a whole shilling is available (nothing to pay out)', () => {
    assert.equal(payableAtMost(99, 'KES', wholeShillingsOnly), 0);
  });

  it('leaves the amount alone for a provider without the rule, or a currency it does not limit', () => {
    assert.equal(payableAtMost(1_234_567, 'KES', undefined), 1_234_567);
    assert.equal(payableAtMost(1_234_567, 'NGN', wholeShillingsOnly), 1_234_567);
  });
});
