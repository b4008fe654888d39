import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { checkVoucher, encodeVoucher, parseVoucher, type VoucherClaims, voucherSignedPart } from './offline-qr.ts';
import { offlineDecision } from './offline-policy.ts';
import type { OfflineLimits } from './sync-protocol.ts';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const PUBLIC_KEY = publicKey.export({ format: 'jwk' }).x as string;
const KEYS = new Map([['k1', PUBLIC_KEY]]);
const NOW = new Date('2026-11-24T12:00:00Z');

function voucher(overrides: Partial<VoucherClaims> = {}): string {
  const claims: VoucherClaims = { v: 1, id: 'oqr_abcdefgh12', h: 'ada', c: 'NGN', a: 5000, x: NOW.getTime() / 1000 + 3600, m: 'test', k: 'k1', ...overrides };
  const signed = voucherSignedPart(claims);
  return encodeVoucher(signed, new Uint8Array(sign(null, Buffer.from(signed), privateKey)));
}

const check = (amountMinor: number, at = NOW) => ({ keys: KEYS, mode: 'test' as const, currency: 'NGN', amountMinor, at });

describe('offline QR vouchers', () => {
  it('round-trips the claims and accepts a payment up to the voucher amount', async () => {
    const text = voucher();
    assert.equal(parseVoucher(text)?.claims.a, 5000);
    assert.equal(parseVoucher(text)?.claims.h, 'ada');
    const result = await checkVoucher(text, check(5000));
    assert.equal(result.ok, true);
  });

  it('names the rule a voucher breaks', async () => {
    const text = voucher();
    const forged = text.replace(/\.([^.]+)$/, (_, signature: string) => `.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`);
    const cases: [string, Awaited<ReturnType<typeof checkVoucher>>][] = [
      ['voucher_malformed', await checkVoucher('hello', check(1))],
      ['voucher_signature_invalid', await checkVoucher(forged, check(1))],
      ['voucher_unknown_key', await checkVoucher(voucher({ k: 'k9' }), check(1))],
      ['voucher_wrong_mode', await checkVoucher(voucher({ m: 'live' }), check(1))],
      ['voucher_expired', await checkVoucher(text, check(1, new Date(NOW.getTime() + 3600_000)))],
      ['voucher_currency_mismatch', await checkVoucher(voucher({ c: 'KES' }), check(1))],
      ['amount_exceeds_voucher', await checkVoucher(text, check(5001))],
    ];
    for (const [code, result] of cases) assert.deepEqual(result.ok ? 'ok' : result.code, code);
  });

  it('refuses a payload whose claims were altered after signing', async () => {
    const [prefix, , signature] = voucher().split('.');
    const altered = voucherSignedPart({ v: 1, id: 'oqr_abcdefgh12', h: 'ada', c: 'NGN', a: 500000, x: NOW.getTime() / 1000 + 3600, m: 'test', k: 'k1' }).split('.')[1];
    const result = await checkVoucher(`${prefix}.${altered}.${signature}`, check(1));
    assert.equal(result.ok ? 'ok' : result.code, 'voucher_signature_invalid');
  });
});

describe('offline exposure policy', () => {
  const limits: OfflineLimits = { currency: 'NGN', perPaymentMaxMinor: 10_000, totalMaxMinor: 25_000, maxAgeSeconds: 3600 };
  const queued = (amountMinor: number, minutesAgo: number, status: 'queued' | 'accepted' = 'queued') => ({
    amountMinor,
    currency: 'NGN',
    capturedAt: new Date(NOW.getTime() - minutesAgo * 60_000).toISOString(),
    status,
  });

  it('allows a payment within every limit', () => {
    assert.deepEqual(offlineDecision(limits, [queued(10_000, 5)], { amountMinor: 10_000, currency: 'NGN' }, NOW), { ok: true });
  });

  it('refuses over the per-payment limit, over the total, when overdue, in another currency, and a voucher used twice', () => {
    const code = (decision: ReturnType<typeof offlineDecision>) => (decision.ok ? 'ok' : decision.code);
    assert.equal(code(offlineDecision(limits, [], { amountMinor: 10_001, currency: 'NGN' }, NOW)), 'offline_amount_over_limit');
    assert.equal(code(offlineDecision(limits, [queued(10_000, 1), queued(10_000, 1)], { amountMinor: 5_001, currency: 'NGN' }, NOW)), 'offline_exposure_limit');
    assert.equal(code(offlineDecision(limits, [queued(10_000, 1), queued(10_000, 1)], { amountMinor: 5_000, currency: 'NGN' }, NOW)), 'ok');
    assert.equal(code(offlineDecision(limits, [queued(100, 61)], { amountMinor: 100, currency: 'NGN' }, NOW)), 'offline_sync_overdue');
    assert.equal(code(offlineDecision(limits, [], { amountMinor: 100, currency: 'KES' }, NOW)), 'offline_currency_not_allowed');
    const withNoPin = { ...limits, noPinPerTapMaxMinor: 2_000 };
    assert.equal(code(offlineDecision(withNoPin, [], { amountMinor: 2_001, currency: 'NGN' }, NOW)), 'pin_required', 'a tap above the no-PIN limit needs a PIN: the code online taps get');
    assert.equal(code(offlineDecision(withNoPin, [], { amountMinor: 2_000, currency: 'NGN' }, NOW)), 'ok');
    assert.equal(code(offlineDecision(withNoPin, [], { amountMinor: 2_001, currency: 'NGN', voucherId: 'oqr_1' }, NOW)), 'ok', 'a voucher is not a tap');
    assert.equal(code(offlineDecision(limits, [], { amountMinor: 100, currency: 'NGN', voucherId: 'oqr_1' }, NOW, new Set(['oqr_1']))), 'voucher_already_used');
  });

  it('counts only payments still queued against what it holds: settled ones free that exposure and do not age', () => {
    const yesterday = (NOW.getTime() - Date.parse(`${NOW.toISOString().slice(0, 10)}T00:00:00Z`)) / 60_000 + 600;
    const settled = [queued(25_000, yesterday, 'accepted')];
    assert.deepEqual(offlineDecision(limits, settled, { amountMinor: 10_000, currency: 'NGN' }, NOW), { ok: true });
    // A voucher settled today is not a tap: the day's tap total is untouched.
    const voucher = { ...queued(25_000, 1, 'accepted'), kind: 'qr' as const, voucherId: 'oqr_1' };
    assert.deepEqual(offlineDecision(limits, [voucher], { amountMinor: 10_000, currency: 'NGN' }, NOW), { ok: true });
  });

  it('holds the taps it took on one UTC day, settled or not, to the total: reconnecting opens nothing new', () => {
    const code = (decision: ReturnType<typeof offlineDecision>) => (decision.ok ? 'ok' : decision.code);
    const today = [queued(10_000, 1, 'accepted'), queued(10_000, 1, 'accepted')];
    assert.equal(code(offlineDecision(limits, today, { amountMinor: 5_000, currency: 'NGN' }, NOW)), 'ok');
    assert.equal(code(offlineDecision(limits, today, { amountMinor: 5_001, currency: 'NGN' }, NOW)), 'offline_exposure_limit');
    assert.equal(code(offlineDecision(limits, [...today, { ...queued(10_000, 1), status: 'declined' as const }], { amountMinor: 5_000, currency: 'NGN' }, NOW)), 'ok', 'a declined tap took nothing');
  });

  it('takes at most the no-PIN day limit from one tag in a UTC day', () => {
    const code = (decision: ReturnType<typeof offlineDecision>) => (decision.ok ? 'ok' : decision.code);
    const noPin = { ...limits, noPinPerTapMaxMinor: 5_000, noPinPerDayMaxMinor: 8_000 };
    const taken = [{ ...queued(5_000, 1, 'accepted'), kind: 'tap' as const, tagId: 'TG00000001' }, { ...queued(2_000, 2), kind: 'tap' as const, tagId: 'TG00000001' }];
    assert.equal(code(offlineDecision(noPin, taken, { amountMinor: 1_000, currency: 'NGN', tagId: 'TG00000001' }, NOW)), 'ok');
    assert.equal(code(offlineDecision(noPin, taken, { amountMinor: 1_001, currency: 'NGN', tagId: 'TG00000001' }, NOW)), 'pin_required');
    assert.equal(code(offlineDecision(noPin, taken, { amountMinor: 5_000, currency: 'NGN', tagId: 'TG00000002' }, NOW)), 'ok', 'another tag');
    assert.equal(code(offlineDecision(noPin, taken, { amountMinor: 5_000, currency: 'NGN' }, NOW)), 'ok', 'no tag read yet: the per-tap and total rules only');
  });
});

describe('gift-card codes made at the till', () => {
  it('makes 256-bit gc_ codes, hashes them as the server does, and prints their prefix', async () => {
    const { makeGiftCardCode, giftCardCodeHash, giftCardCodePrefix, GIFT_CARD_CODE } = await import('./gift-card-code.ts');
    const { createHash } = await import('node:crypto');
    const code = makeGiftCardCode();
    assert.match(code, GIFT_CARD_CODE);
    assert.notEqual(makeGiftCardCode(), code);
    assert.equal(await giftCardCodeHash(code), createHash('sha256').update(code).digest('hex'));
    assert.equal(giftCardCodePrefix(code), code.slice(0, 10));
  });
});
