import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  TYPE2_GEOMETRY,
  buildTapUrl,
  buildType2TagImage,
  decodeUriPayload,
  encodeNdefMessage,
  encodeNdefTlv,
  encodeUriMessage,
  encodeUriPayload,
  findUri,
  isTagId,
  parseNdefMessage,
  parseTapUrl,
  parseType2TagImage,
  scanType2Tlvs,
  toHex,
} from './ndef.ts';

const UID = Uint8Array.of(0x04, 0xa2, 0x2b, 0x52, 0x1c, 0x6f, 0x80);
const TAP_URL = 'https://pay.tapline.africa/tap/TG1A2B3C4D';

function pages(...rows: number[][]): Uint8Array {
  return Uint8Array.from(rows.flat());
}

describe('tap URLs', () => {
  it('splits a tap URL into base URL and tag id', () => {
    assert.deepEqual(parseTapUrl(TAP_URL), { baseUrl: 'https://pay.tapline.africa', tagId: 'TG1A2B3C4D' });
    assert.deepEqual(parseTapUrl('http://localhost:3000/merchant-x/tap/TG0000ABCD/'), { baseUrl: 'http://localhost:3000/merchant-x', tagId: 'TG0000ABCD' });
    assert.deepEqual(parseTapUrl('https://t.example/tap/TGdeadbeef?src=nfc'), { baseUrl: 'https://t.example', tagId: 'TGDEADBEEF' });
  });

  it('returns null for anything that is not a tap URL', () => {
    for (const url of ['', 'not a url', 'https://t.example/tap/', 'https://t.example/tap/TG123', 'https://t.example/tap/XX1A2B3C4D', 'ftp://t.example/tap/TG1A2B3C4D', 'https://t.example/pay/TG1A2B3C4D', 'https://t.example/tap/TG1A2B3C4D/extra']) {
      assert.equal(parseTapUrl(url), null, url);
    }
  });

  it('builds a tap URL and validates tag ids', () => {
    assert.equal(buildTapUrl('https://pay.tapline.africa/', 'TG1A2B3C4D'), TAP_URL);
    assert.equal(isTagId('TG1A2B3C4D'), true);
    assert.equal(isTagId('TG1a2b3c4d'), false);
    assert.throws(() => buildTapUrl('https://x', 'TG12'), { code: 'tag_id_invalid' });
  });
});

describe('URI records', () => {
  it('abbreviates with the longest URI identifier code', () => {
    assert.deepEqual(Array.from(encodeUriPayload('https://a.b')), [0x04, 0x61, 0x2e, 0x62]);
    assert.deepEqual(Array.from(encodeUriPayload('http://a')), [0x03, 0x61]);
    assert.equal(encodeUriPayload('https://www.x.y')[0], 0x02);
    assert.equal(encodeUriPayload('tel:+234800')[0], 0x05);
    assert.equal(encodeUriPayload('urn:epc:id:sgtin:1')[0], 0x1e);
    assert.equal(encodeUriPayload('custom:thing')[0], 0x00);
  });

  it('decodes every prefix back and rejects reserved codes', () => {
    for (const uri of ['https://a.b/c', 'http://www.a.b', 'mailto:x@y.z', 'urn:nfc:sn:1', 'x-custom:1']) {
      assert.equal(decodeUriPayload(encodeUriPayload(uri)), uri);
    }
    assert.throws(() => decodeUriPayload(Uint8Array.of(0x24, 0x61)), { code: 'uri_prefix_reserved' });
    assert.throws(() => decodeUriPayload(new Uint8Array(0)), { code: 'uri_payload_empty' });
  });

  it('encodes a one-record message as MB|ME|SR well-known "U"', () => {
    const message = encodeUriMessage('https://a.b');
    assert.deepEqual(Array.from(message), [0xd1, 0x01, 0x04, 0x55, 0x04, 0x61, 0x2e, 0x62]);
    const records = parseNdefMessage(message);
    assert.equal(records.length, 1);
    assert.equal(findUri(records), 'https://a.b');
  });

  it('round-trips long records, ids and several records', () => {
    const longUri = `https://x.example/${'a'.repeat(300)}`;
    const message = encodeNdefMessage([
      { tnf: 0x02, type: new TextEncoder().encode('text/plain'), id: Uint8Array.of(1, 2), payload: new TextEncoder().encode('hello') },
      { tnf: 0x01, type: Uint8Array.of(0x55), id: new Uint8Array(0), payload: encodeUriPayload(longUri) },
    ]);
    const records = parseNdefMessage(message);
    assert.equal(records.length, 2);
    assert.deepEqual(Array.from(records[0]?.id ?? []), [1, 2]);
    assert.equal(findUri(records), longUri);
  });

  it('refuses truncated and chunked messages', () => {
    const message = encodeUriMessage(TAP_URL);
    assert.throws(() => parseNdefMessage(message.subarray(0, message.length - 1)), { code: 'record_truncated' });
    const chunked = Uint8Array.from(message);
    chunked[0] = (chunked[0] ?? 0) | 0x20;
    assert.throws(() => parseNdefMessage(chunked), { code: 'chunked_record_unsupported' });
  });
});

describe('Type 2 tag memory', () => {
  it('matches an NTAG213 dump written out byte by byte from the NFC Forum Type 2 layout', () => {
    // UID 04 A2 2B 52 1C 6F 80. BCC0 = 88^04^A2^2B = 05, BCC1 = 52^1C^6F^80 = A1.
    // CC: E1 (NDEF magic) 10 (mapping 1.0) 12 (18 * 8 = 144 data bytes) 00 (read/write).
    // TLV 03 26: NDEF message of 38 bytes = record header D1 (MB|ME|SR|TNF 1), type length 01,
    // payload length 22 (34), type 55 "U", identifier code 04 "https://", then 33 ASCII bytes.
    const dump = pages(
      [0x04, 0xa2, 0x2b, 0x05], // page 0: UID0 UID1 UID2 BCC0
      [0x52, 0x1c, 0x6f, 0x80], // page 1: UID3 UID4 UID5 UID6
      [0xa1, 0x48, 0x00, 0x00], // page 2: BCC1 internal lock0 lock1
      [0xe1, 0x10, 0x12, 0x00], // page 3: capability container
      [0x03, 0x26, 0xd1, 0x01], // page 4: TLV type, TLV length, record header, type length
      [0x22, 0x55, 0x04, 0x70], // page 5: payload length, "U", 0x04, "p"
      [0x61, 0x79, 0x2e, 0x74], // "ay.t"
      [0x61, 0x70, 0x6c, 0x69], // "apli"
      [0x6e, 0x65, 0x2e, 0x61], // "ne.a"
      [0x66, 0x72, 0x69, 0x63], // "fric"
      [0x61, 0x2f, 0x74, 0x61], // "a/ta"
      [0x70, 0x2f, 0x54, 0x47], // "p/TG"
      [0x31, 0x41, 0x32, 0x42], // "1A2B"
      [0x33, 0x43, 0x34, 0x44], // "3C4D"
      [0xfe, 0x00, 0x00, 0x00], // page 14: terminator TLV
      ...Array.from({ length: 25 }, () => [0x00, 0x00, 0x00, 0x00]), // pages 15-39: rest of user memory
      [0x00, 0x00, 0x00, 0xbd], // page 40: dynamic lock bytes, RFUI
      [0x04, 0x00, 0x00, 0xff], // page 41: CFG0 MIRROR, RFUI, MIRROR_PAGE, AUTH0
      [0x00, 0x05, 0x00, 0x00], // page 42: CFG1 ACCESS, RFUI
      [0x00, 0x00, 0x00, 0x00], // page 43: PWD (reads as zeros)
      [0x00, 0x00, 0x00, 0x00], // page 44: PACK, RFUI
    );
    assert.equal(dump.length, 180);

    const built = buildType2TagImage({ model: 'NTAG213', uid: UID, uri: TAP_URL });
    assert.equal(toHex(built), toHex(dump));

    const parsed = parseType2TagImage(dump);
    assert.equal(toHex(parsed.uid), '04A22B521C6F80');
    assert.deepEqual(parsed.capabilityContainer, { magic: 0xe1, version: 0x10, dataAreaBytes: 144, access: 0 });
    assert.equal(parsed.uri, TAP_URL);
    assert.equal(parsed.records.length, 1);
    assert.deepEqual(parseTapUrl(parsed.uri ?? ''), { baseUrl: 'https://pay.tapline.africa', tagId: 'TG1A2B3C4D' });
  });

  it('builds and parses an NTAG215 dump of 540 bytes', () => {
    const image = buildType2TagImage({ model: 'NTAG215', uid: UID, uri: 'https://tapline.example/shop-7/tap/TG00FF00FF' });
    assert.equal(image.length, 540);
    assert.deepEqual(Array.from(image.subarray(12, 16)), [0xe1, 0x10, 0x3e, 0x00]);
    const parsed = parseType2TagImage(image);
    assert.equal(parsed.capabilityContainer.dataAreaBytes, 496);
    assert.deepEqual(Array.from(image.subarray(520, 524)), [0x00, 0x00, 0x00, 0xbd], 'dynamic lock bytes at page 130');
    assert.deepEqual(parseTapUrl(parsed.uri ?? ''), { baseUrl: 'https://tapline.example/shop-7', tagId: 'TG00FF00FF' });
  });

  it('uses the three-byte TLV length for messages of 255 bytes or more (NTAG216)', () => {
    const uri = `https://tapline.example/${'x'.repeat(280)}/tap/TG12345678`;
    const image = buildType2TagImage({ model: 'NTAG216', uid: UID, uri });
    assert.equal(image.length, TYPE2_GEOMETRY.NTAG216.totalPages * 4);
    assert.equal(image[17], 0xff);
    assert.equal(parseType2TagImage(image).uri, uri);
  });

  it('reports a blank formatted tag as no message, and skips lock and memory control TLVs', () => {
    const blank = parseType2TagImage(buildType2TagImage({ model: 'NTAG213', uid: UID }));
    assert.equal(blank.ndefMessage, null);
    assert.equal(blank.uri, null);

    const image = buildType2TagImage({ model: 'NTAG213', uid: UID });
    const message = encodeUriMessage(TAP_URL);
    // Lock control TLV (01 03 xx xx xx) and a NULL TLV before the NDEF TLV, as some tags ship.
    image.set([0x01, 0x03, 0xa0, 0x10, 0x44, 0x00, ...encodeNdefTlv(message)], 16);
    assert.equal(parseType2TagImage(image).uri, TAP_URL);
  });

  it('tells an incremental reader how many bytes it still needs', () => {
    const data = buildType2TagImage({ model: 'NTAG213', uid: UID, uri: TAP_URL }).subarray(16);
    assert.deepEqual(scanType2Tlvs(data.subarray(0, 16), 144), { status: 'incomplete', bytesNeeded: 40 });
    const complete = scanType2Tlvs(data.subarray(0, 48), 144);
    assert.equal(complete.status, 'complete');
  });

  it('refuses a tag that is not NDEF formatted or a TLV that overflows the data area', () => {
    const image = buildType2TagImage({ model: 'NTAG213', uid: UID, uri: TAP_URL });
    const unformatted = Uint8Array.from(image);
    unformatted[12] = 0x00;
    assert.throws(() => parseType2TagImage(unformatted), { code: 'not_ndef_formatted' });
    const overflowing = Uint8Array.from(image);
    overflowing[17] = 0xf0;
    assert.throws(() => parseType2TagImage(overflowing), { code: 'tlv_overflows_data_area' });
    assert.throws(() => buildType2TagImage({ model: 'NTAG213', uid: UID, uri: `https://x/${'y'.repeat(200)}` }), { code: 'message_too_long' });
  });
});
