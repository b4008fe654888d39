// The terminal's side of the offline policy: what a tap or a scanned voucher becomes (a queued
// document, or the reason it is refused), from the replica's documents and the last sync hello.
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, it } from 'node:test';
import { encodeVoucher, type VoucherClaims, voucherSignedPart } from '@tapline/shared/offline-qr';
import type { OfflinePaymentDoc, SyncHello } from '@tapline/shared/sync-protocol';
import { translator } from '@tapline/shared/i18n';
import { refusalMessage } from './messages.ts';
import { type OfflineAttempt, offlineAmountCheck, offlineRoom, offlineTap, offlineVoucher, usedVoucherIds } from './offline-payments.ts';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const NOW = new Date('2026-11-24T12:00:00Z');
const ID = '0b6f7a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b';
const HELLO: SyncHello = {
  protocolVersion: 1,
  terminal: { id: 'trm_front', name: 'Front counter' },
  merchant: { id: 'mer_1', handle: '@mama_put', name: 'Mama Put', currency: 'NGN' },
  mode: 'test',
  offlineLimits: { currency: 'NGN', perPaymentMaxMinor: 3000, totalMaxMinor: 5000, maxAgeSeconds: 3600 },
  offlineQrKeys: [{ keyId: 'k1', algorithm: 'Ed25519', publicKey: publicKey.export({ format: 'jwk' }).x as string }],
  serverTime: NOW.toISOString(),
};
const sale = (amountMinor: number, currency = 'NGN') => ({ amountMinor, currency, description: 'Suya' });

function voucher(overrides: Partial<VoucherClaims> = {}): string {
  const claims: VoucherClaims = { v: 1, id: 'oqr_abcdefgh12', h: 'ada', c: 'NGN', a: 2000, x: NOW.getTime() / 1000 + 3600, m: 'test', k: 'k1', ...overrides };
  const signed = voucherSignedPart(claims);
  return encodeVoucher(signed, new Uint8Array(sign(null, Buffer.from(signed), privateKey)));
}

function queued(amountMinor: number, fields: Partial<OfflinePaymentDoc> = {}): OfflinePaymentDoc {
  return { id: crypto.randomUUID(), terminalId: 'trm_front', kind: 'tap', tagId: 'TG00000001', amountMinor, currency: 'NGN', description: '', capturedAt: NOW.toISOString(), status: 'queued', serverSeq: 0, ...fields };
}

const codeOf = (attempt: OfflineAttempt) => (attempt.ok ? 'ok' : attempt.code);

describe('offline payments on the terminal', () => {
  it('makes a queued tap document with the id as its idempotency key and the amount in minor units', () => {
    const attempt = offlineTap(HELLO, [], sale(1250), 'TG1A2B3C4D', NOW, ID);
    assert.deepEqual(attempt, {
      ok: true,
      doc: { id: ID, terminalId: 'trm_front', kind: 'tap', tagId: 'TG1A2B3C4D', amountMinor: 1250, currency: 'NGN', description: 'Suya', capturedAt: '2026-11-24T12:00:00.000Z', status: 'queued', serverSeq: 0 },
    });
  });

  it('refuses beyond the limits with the policy reason, counting only what is still queued (and today\'s settled taps)', () => {
    const yesterday = new Date(NOW.getTime() - 86_400_000).toISOString();
    const docs = [queued(2000), queued(2000), queued(4000, { status: 'accepted', capturedAt: yesterday }), queued(900, { status: 'declined' })];
    assert.equal(codeOf(offlineTap(HELLO, docs, sale(1000), 'TG1A2B3C4D', NOW, ID)), 'ok', '4000 + 1000 is the total limit exactly');
    const over = offlineTap(HELLO, docs, sale(1001), 'TG1A2B3C4D', NOW, ID);
    assert.deepEqual(over.ok ? null : [over.code, over.reason], ['offline_exposure_limit', 'The terminal holds as much in unsynced offline payments as it may: connect to sync']);
    assert.equal(codeOf(offlineTap(HELLO, [], sale(3001), 'TG1A2B3C4D', NOW, ID)), 'offline_amount_over_limit');
    assert.equal(codeOf(offlineTap(HELLO, [], sale(100, 'KES'), 'TG1A2B3C4D', NOW, ID)), 'offline_currency_not_allowed');
    const old = [queued(100, { capturedAt: new Date(NOW.getTime() - 3601_000).toISOString() })];
    assert.equal(codeOf(offlineTap(HELLO, old, sale(100), 'TG1A2B3C4D', NOW, ID)), 'offline_sync_overdue');
  });

  it('refuses everything before the first hello: no limits, no keys', async () => {
    assert.equal(codeOf(offlineTap(null, [], sale(100), 'TG1A2B3C4D', NOW, ID)), 'offline_not_synced');
    assert.equal(codeOf(await offlineVoucher(null, [], sale(100), voucher(), NOW, ID)), 'offline_not_synced');
  });

  it('takes a verified voucher up to its amount, with its id and payer, once per terminal', async () => {
    const text = voucher();
    const attempt = await offlineVoucher(HELLO, [], sale(1500), ` ${text}\n`, NOW, ID);
    assert.ok(attempt.ok);
    assert.deepEqual([attempt.doc.kind, attempt.doc.voucher, attempt.doc.voucherId, attempt.doc.payerHandle, attempt.doc.amountMinor], ['qr', text, 'oqr_abcdefgh12', '@ada', 1500]);
    // Used, whatever the server said of it: a voucher pays once.
    const settled = [{ ...attempt.doc, status: 'declined' as const }];
    assert.deepEqual([...usedVoucherIds(settled)], ['oqr_abcdefgh12']);
    const again = await offlineVoucher(HELLO, settled, sale(100), text, NOW, crypto.randomUUID());
    assert.deepEqual(again.ok ? null : [again.code, again.reason], ['voucher_already_used', 'This QR code has already paid at this terminal']);
  });

  it('says what is wrong with a voucher in words the cashier can act on', async () => {
    const cases: [string, OfflineAttempt][] = [
      ['voucher_malformed', await offlineVoucher(HELLO, [], sale(100), 'https://example.com', NOW, ID)],
      ['voucher_unknown_key', await offlineVoucher(HELLO, [], sale(100), voucher({ k: 'k2' }), NOW, ID)],
      ['voucher_expired', await offlineVoucher(HELLO, [], sale(100), voucher({ x: NOW.getTime() / 1000 }), NOW, ID)],
      ['voucher_wrong_mode', await offlineVoucher(HELLO, [], sale(100), voucher({ m: 'live' }), NOW, ID)],
      ['amount_exceeds_voucher', await offlineVoucher(HELLO, [], sale(2001), voucher(), NOW, ID)],
    ];
    for (const [code, attempt] of cases) {
      assert.equal(codeOf(attempt), code);
      assert.ok(!attempt.ok && attempt.reason.length > 10);
    }
    const unknown = cases[1]![1];
    assert.equal(unknown.ok ? '' : unknown.reason, 'The QR code is signed with a key this terminal does not know: sync once, then try again');
  });

  it('takes no more from one tag in a UTC day than the no-PIN day limit, and no more in taps a day than the total, however often it synced', () => {
    const hello: SyncHello = { ...HELLO, offlineLimits: { ...HELLO.offlineLimits, perPaymentMaxMinor: 3000, totalMaxMinor: 9000, noPinPerTapMaxMinor: 3000, noPinPerDayMaxMinor: 5000 } };
    const tag = 'TG1A2B3C4D';
    // Settled earlier today (accepted) and still queued taps of the tag both count; declined ones and yesterday's do not.
    const taken = [
      queued(2000, { tagId: tag, status: 'accepted' }),
      queued(2000, { tagId: tag }),
      queued(3000, { tagId: tag, status: 'declined' }),
      queued(3000, { tagId: tag, status: 'accepted', capturedAt: new Date(NOW.getTime() - 86_400_000).toISOString() }),
    ];
    assert.equal(codeOf(offlineTap(hello, taken, sale(1000), tag, NOW, ID)), 'ok', 'exactly the day limit');
    const over = offlineTap(hello, taken, sale(1001), tag, NOW, ID);
    assert.equal(codeOf(over), 'pin_required', 'one minor unit over the tag\'s day');
    assert.equal(refusalMessage(over as { ok: false; code: string; reason: string }).text, 'This needs the customer\'s PIN, which cannot be checked offline: it was not charged.');
    assert.equal(codeOf(offlineTap(hello, taken, sale(3000), 'TG99999999', NOW, ID)), 'ok', 'another tag has its own day');
    // The terminal's day: 4,000 accepted or queued today; 9,000 in all.
    const busy = [...taken, queued(3000, { tagId: 'TG99999999', status: 'accepted' })];
    assert.equal(codeOf(offlineTap(hello, busy, sale(2000), 'TG88888888', NOW, ID)), 'ok');
    assert.equal(codeOf(offlineTap(hello, busy, sale(2001), 'TG88888888', NOW, ID)), 'offline_exposure_limit', 'the terminal\'s taps of the day, settled or not');
    assert.equal(codeOf(offlineAmountCheck(hello, busy, sale(2001), NOW) as OfflineAttempt), 'offline_exposure_limit', 'refused as the amount is typed');
  });

  it('refuses a tap above the hello\'s no-PIN limit (the PIN cannot be checked offline) but takes a voucher of that amount, and shows the smaller limit for taps', async () => {
    const hello: SyncHello = { ...HELLO, offlineLimits: { ...HELLO.offlineLimits, noPinPerTapMaxMinor: 1500 } };
    assert.equal(codeOf(offlineTap(hello, [], sale(1500), 'TG1A2B3C4D', NOW, ID)), 'ok', 'at the limit is fine');
    const over = offlineTap(hello, [], sale(2000), 'TG1A2B3C4D', NOW, ID);
    assert.equal(codeOf(over), 'pin_required', 'the code a tap above the limit gets online too');
    assert.equal(codeOf(offlineAmountCheck(hello, [], sale(2000), NOW) as OfflineAttempt), 'pin_required', 'refused on the sale screen as the amount is typed');
    assert.equal(codeOf(await offlineVoucher(hello, [], sale(2000), voucher(), NOW, ID)), 'ok', 'a voucher is paid for already: no PIN needed');
    // The refusal in the cashier's words, in every language of the kiosk.
    assert.ok(!over.ok);
    assert.equal(refusalMessage(over).text, 'This needs the customer\'s PIN, which cannot be checked offline: it was not charged.');
    assert.equal(refusalMessage(over, translator('fr')).text, translator('fr').t('errors.pin_required_offline'));
    assert.deepEqual(offlineRoom(hello, [queued(500)]), { currency: 'NGN', perPaymentMaxMinor: 3000, perTapMaxMinor: 1500, totalMaxMinor: 5000, usedMinor: 500 });
    // A no-PIN limit above the terminal's own: the per-payment limit is the smaller.
    assert.equal(offlineRoom({ ...HELLO, offlineLimits: { ...HELLO.offlineLimits, noPinPerTapMaxMinor: 9000 } }, [])?.perTapMaxMinor, 3000);
    assert.equal(offlineRoom(HELLO, [])?.perTapMaxMinor, 3000, 'without the field, the per-payment limit');
  });
});
