// The kiosk checks a till PIN offline against the verifier the server made (docs/till.md, "PINs
// offline"): the server's own tillPinVerifier (node:crypto PBKDF2) against the kiosk's WebCrypto
// check, and the kiosk's lock-out after five wrong PINs. A low iteration count keeps the test
// quick; the format and the algorithm are the server's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tillPinVerifier } from '@tapline/sync-server/testing';
import { PIN_LOCK_MS, PIN_TRIES, PinLockout, checkTillPin, parsePinVerifier, verifyStaffPin } from '@tapline/terminal/renderer/lib/till-pin';

/** localStorage's part the lock-out uses, over a Map (one per "page": a reload reads the same map). */
function storage(): { getItem(key: string): string | null; setItem(key: string, value: string): void; map: Map<string, string> } {
  const map = new Map<string, string>();
  return { map, getItem: (key) => map.get(key) ?? null, setItem: (key, value) => void map.set(key, value) };
}

describe('a till PIN checked on the kiosk against the server\'s verifier', () => {
  it('accepts the PIN the server made the verifier for and refuses every other', async () => {
    const verifier = await tillPinVerifier('4821', 1_000);
    assert.match(verifier, /^pbkdf2-sha256\$1000\$[A-Za-z0-9+/]+=*\$[A-Za-z0-9+/]+=*$/);
    const parsed = parsePinVerifier(verifier);
    assert.equal(parsed?.iterations, 1_000);
    assert.equal(parsed?.salt.length, 16);
    assert.equal(parsed?.hash.length, 32);
    assert.equal(await checkTillPin('4821', verifier), true);
    for (const wrong of ['4822', '482', '48210', '1284', '']) assert.equal(await checkTillPin(wrong, verifier), false, wrong);
  });

  it('checks the server\'s real iteration count too (600,000)', async () => {
    const verifier = await tillPinVerifier('90210');
    assert.equal(parsePinVerifier(verifier)?.iterations, 600_000);
    assert.equal(await checkTillPin('90210', verifier), true);
    assert.equal(await checkTillPin('90211', verifier), false);
  });

  it('matches nothing with a malformed verifier', async () => {
    const good = await tillPinVerifier('1234', 10);
    const [, rounds, salt, hash] = good.split('$');
    for (const bad of [`scrypt$${rounds}$${salt}$${hash}`, `pbkdf2-sha256$0$${salt}$${hash}`, `pbkdf2-sha256$x$${salt}$${hash}`, `pbkdf2-sha256$${rounds}$$${hash}`, `pbkdf2-sha256$${rounds}$${salt}`, `${good}$extra`, `pbkdf2-sha256$${rounds}$***$${hash}`]) {
      assert.equal(parsePinVerifier(bad), null, bad);
      assert.equal(await checkTillPin('1234', bad), false, bad);
    }
  });
});

describe('the kiosk\'s lock-out of wrong till PINs', () => {
  it('locks a member out on this till after five wrong PINs for 15 minutes, kept over a reload, and a right PIN clears the count', async () => {
    const ada = { id: 'staff_ada', pinVerifier: await tillPinVerifier('1111', 10) };
    const bola = { id: 'staff_bola', pinVerifier: await tillPinVerifier('2222', 10) };
    const kept = storage();
    let now = new Date('2026-03-02T08:00:00Z');
    const clock = () => now;
    const lockout = new PinLockout(kept, 'trm_front');
    assert.equal(PIN_TRIES, 5);
    assert.equal(PIN_LOCK_MS, 15 * 60_000);

    // Two wrong, then right: the count starts again.
    assert.deepEqual(await verifyStaffPin(ada, '0000', lockout, clock), { ok: false, reason: 'wrong', triesLeft: 4 });
    assert.deepEqual(await verifyStaffPin(ada, '0001', lockout, clock), { ok: false, reason: 'wrong', triesLeft: 3 });
    assert.deepEqual(await verifyStaffPin(ada, '1111', lockout, clock), { ok: true });
    assert.equal(lockout.triesLeft(ada.id, now), 5);

    // Four wrong; a reload (a new lock-out over the same storage) keeps the count.
    for (const left of [4, 3, 2, 1]) assert.deepEqual(await verifyStaffPin(ada, '9999', lockout, clock), { ok: false, reason: 'wrong', triesLeft: left });
    const reloaded = new PinLockout(kept, 'trm_front');
    assert.equal(reloaded.triesLeft(ada.id, now), 1);
    // The fifth locks her out until 08:15, and then even her right PIN is refused unchecked.
    assert.deepEqual(await verifyStaffPin(ada, '9999', reloaded, clock), { ok: false, reason: 'locked', lockedUntil: new Date('2026-03-02T08:15:00Z') });
    let derived = 0;
    const counting = async (pin: string, verifier: string) => ((derived += 1), checkTillPin(pin, verifier));
    now = new Date('2026-03-02T08:14:59Z');
    assert.deepEqual(await verifyStaffPin(ada, '1111', reloaded, clock, counting), { ok: false, reason: 'locked', lockedUntil: new Date('2026-03-02T08:15:00Z') });
    assert.equal(derived, 0, 'a locked member\'s PIN is not even checked');
    assert.equal(new PinLockout(kept, 'trm_front').lockedUntil(ada.id, now)?.toISOString(), '2026-03-02T08:15:00.000Z');

    // Another member, and the same member on another till, are not locked.
    assert.deepEqual(await verifyStaffPin(bola, '2222', reloaded, clock), { ok: true });
    assert.equal(new PinLockout(kept, 'trm_back').lockedUntil(ada.id, now), null);

    // Once the 15 minutes are over: five fresh tries, and the right PIN works.
    now = new Date('2026-03-02T08:15:00Z');
    assert.equal(reloaded.lockedUntil(ada.id, now), null);
    assert.equal(reloaded.triesLeft(ada.id, now), 5);
    assert.deepEqual(await verifyStaffPin(ada, '0000', reloaded, clock), { ok: false, reason: 'wrong', triesLeft: 4 });
    assert.deepEqual(await verifyStaffPin(ada, '1111', reloaded, clock), { ok: true });
    assert.equal(reloaded.triesLeft(ada.id, now), 5);
  });
});
