import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildType2TagImage, toHex } from '@tapline/shared/ndef';
import { readingFromType2Memory } from './interpret.ts';
import { readType2Memory } from './type2-read.ts';

const UID = Uint8Array.of(0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06);

/** A tag as the reader sees it: READ BINARY of 16 bytes wraps around the end of memory like NTAG. */
function fakeTag(image: Uint8Array) {
  const pagesRead: number[] = [];
  const read = async (page: number) => {
    pagesRead.push(page);
    const out = new Uint8Array(16);
    for (let index = 0; index < 16; index += 1) out[index] = image[(page * 4 + index) % image.length] ?? 0;
    return out;
  };
  return { read, pagesRead };
}

describe('readType2Memory', () => {
  it('reads header and data area 16 bytes at a time and stops at the end of the NDEF message', async () => {
    const image = buildType2TagImage({ model: 'NTAG213', uid: UID, uri: 'https://pay.tapline.test/tap/TG1A2B3C4D' });
    const tag = fakeTag(image);
    const memory = await readType2Memory(tag.read);
    assert.deepEqual(tag.pagesRead, [0, 4, 8, 12]);
    assert.equal(toHex(memory), toHex(image.subarray(0, 64)));
    assert.deepEqual(readingFromType2Memory(memory), { kind: 'tag', uri: 'https://pay.tapline.test/tap/TG1A2B3C4D', tagId: 'TG1A2B3C4D' });
  });

  it('reads a long NTAG215 message across many reads', async () => {
    const uri = `https://pay.tapline.test/${'p'.repeat(300)}/tap/TG0000FFFF`;
    const image = buildType2TagImage({ model: 'NTAG215', uid: UID, uri });
    const tag = fakeTag(image);
    const reading = readingFromType2Memory(await readType2Memory(tag.read));
    assert.deepEqual(reading, { kind: 'tag', uri, tagId: 'TG0000FFFF' });
    // Record: header, type length, 4-byte payload length, "U", then 333 payload bytes = 340;
    // TLV 03 FF <2 bytes> adds 4: 344 data bytes = 22 reads after the header read.
    assert.equal(tag.pagesRead.length, 1 + 22);
  });

  it('reads only the header of an unformatted tag and calls it unsupported', async () => {
    const image = buildType2TagImage({ model: 'NTAG213', uid: UID });
    image.set([0, 0, 0, 0], 12);
    const tag = fakeTag(image);
    const reading = readingFromType2Memory(await readType2Memory(tag.read));
    assert.deepEqual(tag.pagesRead, [0]);
    assert.equal(reading.kind, 'unsupported');
    assert.equal(reading.kind === 'unsupported' ? reading.reason : '', 'not_ndef_formatted');
  });

  it('reports a blank formatted tag as a tag without a URI, and a short read as an error', async () => {
    const blank = buildType2TagImage({ model: 'NTAG213', uid: UID });
    assert.deepEqual(readingFromType2Memory(await readType2Memory(fakeTag(blank).read)), { kind: 'tag' });
    await assert.rejects(readType2Memory(async () => new Uint8Array(4)), /returned 4 bytes/);
  });
});
