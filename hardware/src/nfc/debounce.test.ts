import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../testing/manual-clock.ts';
import { TapDebouncer } from './debounce.ts';

describe('TapDebouncer', () => {
  it('lets the first read through and holds back repeats until a pause of the window', () => {
    const clock = new ManualClock();
    const debouncer = new TapDebouncer(clock, 1500);
    assert.equal(debouncer.accept('04AA'), true);
    clock.advance(1499);
    assert.equal(debouncer.accept('04AA'), false);
    clock.advance(1500);
    assert.equal(debouncer.accept('04AA'), true);
  });

  it('keeps a window of 0 from suppressing anything', () => {
    const clock = new ManualClock();
    const debouncer = new TapDebouncer(clock, 0);
    assert.equal(debouncer.accept('04AA'), true);
    assert.equal(debouncer.accept('04AA'), true);
  });

  it('stays bounded when many different tags pass', () => {
    const clock = new ManualClock();
    const debouncer = new TapDebouncer(clock, 1500);
    for (let index = 0; index < 1000; index += 1) assert.equal(debouncer.accept(`tag-${index}`), true);
    // The oldest sightings were forgotten to stay under the cap; the newest still debounce.
    assert.equal(debouncer.accept('tag-999'), false);
    assert.equal(debouncer.accept('tag-0'), true);
  });
});
