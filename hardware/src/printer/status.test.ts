import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { UNKNOWN_CONDITION, describeCondition, isStatusByte, parsePrinterStatus } from './status.ts';

describe('DLE EOT 1: printer status with the drawer sensor (bit 2 = drawer kick-out connector pin 3)', () => {
  it('reads pin 3 low as open and high as closed on drawers that open low (the default install)', () => {
    // 0x12: fixed bits only (online, pin 3 low); 0x16: bit 2 set (pin 3 high).
    assert.deepEqual(parsePrinterStatus(0x12, 'low'), { online: true, drawer: 'open' });
    assert.deepEqual(parsePrinterStatus(0x16, 'low'), { online: true, drawer: 'closed' });
  });

  it('reads pin 3 high as open on drawers wired the other way round', () => {
    assert.deepEqual(parsePrinterStatus(0x12, 'high'), { online: true, drawer: 'closed' });
    assert.deepEqual(parsePrinterStatus(0x16, 'high'), { online: true, drawer: 'open' });
  });

  it('keeps the drawer bit apart from the offline bit (bit 3)', () => {
    assert.deepEqual(parsePrinterStatus(0x1a, 'low'), { online: false, drawer: 'open' });
    assert.deepEqual(parsePrinterStatus(0x1e, 'low'), { online: false, drawer: 'closed' });
  });

  it('takes a status byte with the drawer bit set for a status byte, not noise', () => {
    assert.equal(isStatusByte(0x16), true);
    assert.equal(isStatusByte(0x1e), true);
    assert.equal(isStatusByte(0x17), false);
  });

  it('does not report an open drawer as a printer problem, and knows nothing of a drawer it was not told of', () => {
    assert.equal(UNKNOWN_CONDITION.drawer, null);
    assert.equal(describeCondition({ online: true, coverOpen: false, paperOut: false, paperNearEnd: false, error: false, drawer: 'open' }), null);
    assert.equal(describeCondition({ online: true, coverOpen: true, paperOut: false, paperNearEnd: false, error: false, drawer: 'open' }), 'Printer cover is open');
  });
});
