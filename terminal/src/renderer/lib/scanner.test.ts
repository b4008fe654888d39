// A barcode scanner's keyboard input: fast keys ended by Enter are a scan; a person's typing is not.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SCAN_GAP_MS_MAX, scanDetector } from './scanner.ts';

function feed(keys: string[], gap: number, start = 1_000) {
  let bursts = 0;
  const detector = scanDetector(() => (bursts += 1));
  const codes = keys.map((key, index) => detector.key(key, start + index * gap)).filter((code) => code !== null);
  return { codes, bursts };
}

describe('the barcode scanner', () => {
  it('takes fast keystrokes ended by Enter as one code, and says when the burst began', () => {
    assert.deepEqual(feed([...'6001234567890', 'Enter'], 5), { codes: ['6001234567890'], bursts: 1 });
  });

  it('does not take a person typing an amount and pressing Enter for a scan', () => {
    assert.deepEqual(feed([...'1500', 'Enter'], 180).codes, []);
  });

  it('needs at least 4 characters, and a slow key starts the code again', () => {
    assert.deepEqual(feed(['1', '2', 'Enter'], 5).codes, []);
    const detector = scanDetector();
    detector.key('9', 0);
    for (const [index, key] of [...'4006381333931'].entries()) detector.key(key, 1_000 + index * 3);
    assert.equal(detector.key('Enter', 1_000 + 13 * 3), '4006381333931');
    assert.equal(detector.key('Enter', 1_000 + 13 * 3 + SCAN_GAP_MS_MAX + 1), null);
  });
});
