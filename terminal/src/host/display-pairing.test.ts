// Pairing a tablet with the till: the code's expiry, single use, revoking, the token kept hashed,
// constant-time comparison and the limits on guessing. A clock the test moves; no sleeps.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ATTEMPTS_PER_ADDRESS_PER_MINUTE, ATTEMPTS_PER_MINUTE, DisplayPairing, PAIRING_CODE_TTL_MS, WRONG_GUESSES_PER_CODE, constantTimeEqual, hashToken } from './display-pairing.ts';

function clock(start = Date.UTC(2026, 10, 29, 12)) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** A pairing whose codes are given in turn by the test. */
function pairingWith(codes: string[], time = clock(), tokenFile?: string) {
  const queue = [...codes];
  return new DisplayPairing({ now: time.now, newCode: () => queue.shift() ?? '999999', ...(tokenFile ? { tokenFile } : {}) });
}

describe('display pairing', () => {
  it('pairs with the current code once: a token of 32 random bytes, and the code is used up', () => {
    const pairing = pairingWith(['123456']);
    const { code } = pairing.createCode();
    assert.equal(code, '123456');
    const first = pairing.pair('123456', '192.168.1.30');
    assert.ok(first.ok);
    assert.equal(Buffer.from(first.token, 'base64url').length, 32);
    assert.equal(pairing.verify(first.token), true);
    assert.equal(pairing.pairedCount, 1);
    assert.equal(pairing.pendingCode(), null, 'the code is gone once used');
    const again = pairing.pair('123456', '192.168.1.31');
    assert.deepEqual(again, { ok: false, status: 403, code: 'display_code_wrong', error: 'This code is wrong or already used: show a new code on the till' });
    assert.equal(pairing.pairedCount, 1);
  });

  it('gives each tablet its own token, and accepts the code with spaces around it', () => {
    const pairing = pairingWith(['111111', '222222']);
    pairing.createCode();
    const one = pairing.pair(' 111111 ', '10.0.0.2');
    pairing.createCode();
    const two = pairing.pair('222222', '10.0.0.3');
    assert.ok(one.ok && two.ok);
    assert.notEqual(one.token, two.token);
    assert.equal(pairing.verify(one.token), true);
    assert.equal(pairing.verify(two.token), true);
    assert.equal(pairing.pairedCount, 2);
  });

  it('refuses a code after its 10 minutes with 410, and a new code replaces the old one', () => {
    const time = clock();
    const pairing = pairingWith(['123456', '654321', '777777'], time);
    const { expiresAt } = pairing.createCode();
    assert.equal(expiresAt, time.now() + PAIRING_CODE_TTL_MS);
    time.advance(PAIRING_CODE_TTL_MS - 1);
    assert.deepEqual(pairing.pendingCode(), { code: '123456', expiresAt });
    time.advance(1);
    assert.equal(pairing.pendingCode(), null);
    const late = pairing.pair('123456', '10.0.0.2');
    assert.equal(late.ok, false);
    assert.equal(!late.ok && late.status, 410);
    assert.equal(!late.ok && late.code, 'display_code_expired');
    // Replaced: the old code no longer pairs, the new one does.
    pairing.createCode();
    pairing.createCode();
    assert.equal(pairing.pendingCode()?.code, '777777');
    const old = pairing.pair('654321', '10.0.0.2');
    assert.equal(!old.ok && old.code, 'display_code_wrong');
    assert.equal(pairing.pair('777777', '10.0.0.2').ok, true);
  });

  it('answers 400 for what is not a 6-digit code, and pairs nothing without a code shown', () => {
    const pairing = pairingWith([]);
    for (const bad of ['12345', '1234567', 'abcdef', 123456, null, undefined, '']) {
      const result = pairing.pair(bad, `10.0.1.${String(bad).length}-${typeof bad}`);
      assert.equal(!result.ok && result.status, 400, String(bad));
      assert.equal(!result.ok && result.code, 'display_code_invalid');
    }
    const none = pairing.pair('000000', '10.0.2.1');
    assert.equal(!none.ok && none.code, 'display_code_wrong');
  });

  it('revokes every token and the pending code at once', () => {
    const pairing = pairingWith(['111111', '222222', '333333']);
    const tokens = ['111111', '222222'].map((code) => {
      pairing.createCode();
      const result = pairing.pair(code, `10.0.0.${code[0]}`);
      assert.ok(result.ok);
      return result.token;
    });
    pairing.createCode();
    assert.equal(pairing.revokeAll(), 2);
    assert.equal(pairing.pairedCount, 0);
    for (const token of tokens) assert.equal(pairing.verify(token), false);
    assert.equal(pairing.pendingCode(), null);
    assert.equal(!pairing.pair('333333', '10.0.0.9').ok, true, 'the code shown before the unpair is void');
  });

  it('refuses tokens it did not hand out', () => {
    const pairing = pairingWith(['111111']);
    pairing.createCode();
    const paired = pairing.pair('111111', '10.0.0.2');
    assert.ok(paired.ok);
    for (const other of ['', 'x'.repeat(257), `${paired.token}x`, paired.token.slice(1), 42, null]) assert.equal(pairing.verify(other), false, String(other));
  });

  it('compares secrets whatever their length without throwing (timingSafeEqual over SHA-256 digests)', () => {
    assert.equal(constantTimeEqual('123456', '123456'), true);
    assert.equal(constantTimeEqual('123456', '123457'), false);
    assert.equal(constantTimeEqual('123456', '1234567'), false);
    assert.equal(constantTimeEqual('', ''), true);
    assert.equal(hashToken('abc').length, 32);
  });

  it('allows 5 attempts a minute per address (429 with the seconds to wait), other addresses unaffected, then again after the minute', () => {
    const time = clock();
    const pairing = pairingWith(['123456'], time);
    pairing.createCode();
    for (let attempt = 0; attempt < ATTEMPTS_PER_ADDRESS_PER_MINUTE; attempt += 1) {
      const result = pairing.pair('000000', '10.0.0.66');
      assert.equal(!result.ok && result.code, 'display_code_wrong', `attempt ${attempt + 1}`);
      time.advance(1_000);
    }
    const limited = pairing.pair('123456', '10.0.0.66');
    assert.deepEqual(limited, { ok: false, status: 429, code: 'display_pairing_rate_limited', error: 'Too many pairing attempts: try again in 55 s', retryAfterSeconds: 55 });
    // The right code from another address still pairs.
    time.advance(1_000);
    assert.equal(pairing.pair('123456', '10.0.0.67').ok, true);
    // A minute after its first attempt, the first address may try again.
    time.advance(55_000);
    const later = pairing.pair('000000', '10.0.0.66');
    assert.equal(!later.ok && later.code, 'display_code_wrong');
  });

  it('allows 30 attempts a minute from all addresses together', () => {
    const time = clock();
    const pairing = pairingWith(['123456', '222222', '333333', '444444'], time);
    let codes = 0;
    for (let attempt = 0; attempt < ATTEMPTS_PER_MINUTE; attempt += 1) {
      // A new code every few guesses, so this is the overall limit and not the burnt code.
      if (attempt % 9 === 0) {
        pairing.createCode();
        codes += 1;
      }
      const result = pairing.pair('000000', `10.0.${attempt}.1`);
      assert.equal(!result.ok && result.status, 403);
    }
    assert.equal(codes, 4);
    const limited = pairing.pair('444444', '10.0.200.1');
    assert.equal(!limited.ok && limited.status, 429);
    time.advance(60_000);
    assert.equal(pairing.pair('444444', '10.0.200.1').ok, true);
  });

  it(`burns a code after ${WRONG_GUESSES_PER_CODE} wrong guesses, even from many addresses`, () => {
    const pairing = pairingWith(['123456']);
    pairing.createCode();
    for (let guess = 0; guess < WRONG_GUESSES_PER_CODE; guess += 1) pairing.pair(String(guess).padStart(6, '0'), `10.1.${guess}.1`);
    assert.equal(pairing.pendingCode(), null);
    const right = pairing.pair('123456', '10.2.0.1');
    assert.equal(!right.ok && right.code, 'display_code_wrong');
  });

  it('keeps only the tokens\' SHA-256 in its file, and reads them back after a restart', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapline-display-tokens-'));
    try {
      const file = join(dir, 'display-tokens.json');
      const first = pairingWith(['123456'], clock(), file);
      first.createCode();
      const paired = first.pair('123456', '10.0.0.2');
      assert.ok(paired.ok);
      const text = readFileSync(file, 'utf8');
      assert.equal(text.includes(paired.token), false, 'the token itself is never written');
      assert.deepEqual(JSON.parse(text), { sha256: [hashToken(paired.token).toString('hex')] });
      const restarted = pairingWith([], clock(), file);
      assert.equal(restarted.verify(paired.token), true);
      assert.equal(restarted.revokeAll(), 1);
      assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { sha256: [] });
      assert.equal(pairingWith([], clock(), file).verify(paired.token), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
