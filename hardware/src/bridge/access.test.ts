import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isLoopbackAddress, newBridgeSecret, secretMatches, verifyConnection } from './access.ts';

describe('bridge access rules', () => {
  it('treats only loopback addresses as local', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) assert.equal(isLoopbackAddress(address), true, address);
    for (const address of ['192.168.1.20', '10.0.0.1', '::ffff:10.0.0.1', 'fe80::1', '0.0.0.0', '', undefined]) assert.equal(isLoopbackAddress(address), false, String(address));
  });

  it('refuses a connection from another machine whatever it presents', () => {
    assert.deepEqual(verifyConnection('192.168.1.20', 'http://localhost:5173', null), {
      accept: false,
      status: 403,
      reason: 'connections from 192.168.1.20 are refused; the bridge is loopback only',
    });
    assert.deepEqual(verifyConnection('::ffff:127.0.0.1', undefined, null), { accept: true });
  });

  it('refuses pages outside the allowed origins when a list is configured', () => {
    const allowed = ['http://localhost:5173'];
    assert.deepEqual(verifyConnection('127.0.0.1', 'http://localhost:5173', allowed), { accept: true });
    assert.equal(verifyConnection('127.0.0.1', 'https://evil.example', allowed).accept, false);
    assert.equal(verifyConnection('127.0.0.1', undefined, allowed).accept, false);
  });

  it('compares secrets exactly, whatever their length or type', () => {
    const secret = newBridgeSecret();
    assert.match(secret, /^[0-9a-f]{64}$/);
    assert.notEqual(newBridgeSecret(), secret);
    assert.equal(secretMatches(secret, secret), true);
    assert.equal(secretMatches(secret.slice(0, 63), secret), false);
    assert.equal(secretMatches(`${secret}0`, secret), false);
    assert.equal(secretMatches(undefined, secret), false);
    assert.equal(secretMatches(42, secret), false);
    assert.equal(secretMatches('x'.repeat(5000), secret), false);
  });
});
