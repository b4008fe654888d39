import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { signPayload, verifySignature } from './webhook-signature.ts';

describe('webhook signatures', () => {
  const body = '{"event":"payment.completed","paymentId":"pay_1"}';
  const expected = createHmac('sha256', 'whsec_x').update(body).digest('hex');

  it('signs as lower-case hex HMAC-SHA256, or sha256=<hex> for POS callbacks', () => {
    assert.equal(signPayload('whsec_x', body), expected);
    assert.equal(signPayload('whsec_x', body, 'sha256='), `sha256=${expected}`);
  });

  it('verifies both forms and refuses a changed body, another secret or garbage', () => {
    assert.equal(verifySignature('whsec_x', body, expected), true);
    assert.equal(verifySignature('whsec_x', body, `sha256=${expected}`), true);
    assert.equal(verifySignature('whsec_x', `${body} `, expected), false);
    assert.equal(verifySignature('whsec_y', body, expected), false);
    assert.equal(verifySignature('whsec_x', body, 'not-a-signature'), false);
    assert.equal(verifySignature('whsec_x', body, undefined), false);
  });
});
