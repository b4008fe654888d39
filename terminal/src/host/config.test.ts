// KIOSK_DISPLAY_LISTEN: off unless set; host:port, [v6]:port or a port alone; anything else refused with what was given.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { displayListenFromEnv } from './config.ts';

describe('KIOSK_DISPLAY_LISTEN', () => {
  it('is off unless set', () => {
    for (const value of [undefined, '', '  ', 'off', 'OFF', 'no', 'false', '0', 'none']) assert.equal(displayListenFromEnv({ KIOSK_DISPLAY_LISTEN: value }), null, String(value));
  });

  it('reads host:port, an IPv6 host in brackets, and a port alone (every IPv4 interface)', () => {
    assert.deepEqual(displayListenFromEnv({ KIOSK_DISPLAY_LISTEN: '0.0.0.0:5175' }), { host: '0.0.0.0', port: 5175 });
    assert.deepEqual(displayListenFromEnv({ KIOSK_DISPLAY_LISTEN: '192.168.1.20:8080' }), { host: '192.168.1.20', port: 8080 });
    assert.deepEqual(displayListenFromEnv({ KIOSK_DISPLAY_LISTEN: '[::]:5175' }), { host: '::', port: 5175 });
    assert.deepEqual(displayListenFromEnv({ KIOSK_DISPLAY_LISTEN: ' 5175 ' }), { host: '0.0.0.0', port: 5175 });
  });

  it('refuses what it cannot read, saying what it got', () => {
    for (const value of ['0.0.0.0', '0.0.0.0:99999', 'host:port', ':5175', 'a b:1', '1.2.3.4:-1']) {
      assert.throws(() => displayListenFromEnv({ KIOSK_DISPLAY_LISTEN: value }), new RegExp(`KIOSK_DISPLAY_LISTEN must be host:port \\(0\\.0\\.0\\.0:5175\\), a port, or off; got ${JSON.stringify(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), value);
    }
  });
});
