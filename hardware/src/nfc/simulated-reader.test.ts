import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../testing/manual-clock.ts';
import { SimulatedNfcReader, simulatedUid } from './simulated-reader.ts';
import type { TagEvent, UnsupportedTagEvent } from './types.ts';

function collect(reader: SimulatedNfcReader) {
  const tags: TagEvent[] = [];
  const unsupported: UnsupportedTagEvent[] = [];
  reader.on('tag', (event) => tags.push(event));
  reader.on('unsupported', (event) => unsupported.push(event));
  return { tags, unsupported };
}

describe('SimulatedNfcReader', () => {
  it('turns a tap of a tag id into the tag event a real NTAG213 would give', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 12, 0, 0));
    const reader = new SimulatedNfcReader({ baseUrl: 'https://pay.tapline.test', clock });
    const attached: string[] = [];
    reader.on('attach', (event) => attached.push(event.readerName));
    await reader.start();
    const { tags } = collect(reader);

    const event = reader.tap('TG1A2B3C4D');

    assert.deepEqual(attached, ['Simulated NFC reader']);
    assert.deepEqual(tags, [
      {
        uid: simulatedUid('TG1A2B3C4D'),
        tagId: 'TG1A2B3C4D',
        uri: 'https://pay.tapline.test/tap/TG1A2B3C4D',
        readerName: 'Simulated NFC reader',
        at: '2026-03-01T12:00:00.000Z',
      },
    ]);
    assert.deepEqual(event, tags[0]);
    assert.match(tags[0]?.uid ?? '', /^04[0-9A-F]{12}$/);
  });

  it('accepts a full URI: a tap URL from another base, and a URI that is not a tap URL', async () => {
    const reader = new SimulatedNfcReader({ baseUrl: 'https://pay.tapline.test', clock: new ManualClock() });
    await reader.start();
    const { tags } = collect(reader);
    reader.tap('https://other.example/m/tap/TG00000001', { model: 'NTAG215' });
    reader.tap('https://example.com/menu');
    assert.equal(tags[0]?.tagId, 'TG00000001');
    assert.equal(tags[0]?.uri, 'https://other.example/m/tap/TG00000001');
    assert.equal(tags[1]?.tagId, undefined);
    assert.equal(tags[1]?.uri, 'https://example.com/menu');
  });

  it('reports a phone or bank card as unsupported, never as a tag', async () => {
    const clock = new ManualClock();
    const reader = new SimulatedNfcReader({ baseUrl: 'https://pay.tapline.test', clock });
    await reader.start();
    const { tags, unsupported } = collect(reader);
    reader.present('08a1b2c3');
    assert.equal(tags.length, 0);
    assert.equal(unsupported.length, 1);
    assert.equal(unsupported[0]?.reason, 'iso14443_4');
    assert.equal(unsupported[0]?.uid, '08A1B2C3');
    assert.match(unsupported[0]?.message ?? '', /not a Tapline tag/);
  });

  it('debounces the same tag within the window, on the injected clock', async () => {
    const clock = new ManualClock();
    const reader = new SimulatedNfcReader({ baseUrl: 'https://pay.tapline.test', clock, debounceWindowMs: 1500 });
    await reader.start();
    const { tags } = collect(reader);

    assert.notEqual(reader.tap('TG1A2B3C4D'), null);
    clock.advance(1000);
    assert.equal(reader.tap('TG1A2B3C4D'), null, 'read again 1.0 s later: same tap');
    clock.advance(1000);
    assert.equal(reader.tap('TG1A2B3C4D'), null, 'the window slides with each read');
    assert.notEqual(reader.tap('TG99999999'), null, 'another tag is not held back');
    clock.advance(1500);
    assert.notEqual(reader.tap('TG1A2B3C4D'), null, 'after a 1.5 s pause it is a new tap');
    assert.deepEqual(
      tags.map((tag) => tag.tagId),
      ['TG1A2B3C4D', 'TG99999999', 'TG1A2B3C4D'],
    );
  });

  it('reads nothing while stopped and reports its status', async () => {
    const reader = new SimulatedNfcReader({ baseUrl: 'https://pay.tapline.test', clock: new ManualClock() });
    assert.equal(reader.tap('TG1A2B3C4D'), null);
    await reader.start();
    assert.deepEqual(reader.status(), { driver: 'simulated', state: 'ready', readers: ['Simulated NFC reader'], restarts: 0 });
    await reader.stop();
    assert.deepEqual(reader.status(), { driver: 'simulated', state: 'stopped', readers: [], restarts: 0 });
  });
});
