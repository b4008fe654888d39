// The cash drawer from the kiosk's screens: opened once per sale through the printer (a
// VirtualPrinter here), and every way it can fail answered as a notice, never thrown.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualPrinter } from '@tapline/hardware';
import { openCashDrawer } from './cash-drawer.ts';

describe('opening the cash drawer for a sale', () => {
  it('kicks the drawer once per sale id, however often it is asked', async () => {
    const printer = new VirtualPrinter();
    assert.deepEqual(await openCashDrawer(printer, 'cash_sale', 'sale-1'), { state: 'opened', drawer: 'open' });
    assert.deepEqual(await openCashDrawer(printer, 'cash_sale', 'sale-1'), { state: 'opened', drawer: 'open' });
    assert.equal(printer.drawerPulses, 1);
    assert.equal(printer.lastDrawerReason, 'cash_sale');
    await openCashDrawer(printer, 'cash_sale', 'sale-2');
    assert.equal(printer.drawerPulses, 2);
    await printer.close();
  });

  it('says why the drawer did not open instead of throwing: no hardware, a refused kick, a kick not taken, no answer', async () => {
    assert.deepEqual(await openCashDrawer(null, 'cash_sale', 'sale-1'), { state: 'unavailable' });
    const refused = { openDrawer: () => Promise.reject(new Error('the hardware bridge is not connected')) };
    assert.deepEqual(await openCashDrawer(refused, 'cash_sale', 'sale-1'), { state: 'failed', reason: 'the hardware bridge is not connected' });
    const notTaken = { openDrawer: (request: { jobId: string }) => Promise.resolve({ jobId: request.jobId, opened: false, drawer: null }) };
    assert.deepEqual(await openCashDrawer(notTaken, 'cash_sale', 'sale-1'), { state: 'failed', reason: null });
    const silent = { openDrawer: () => new Promise<never>(() => undefined) };
    assert.deepEqual(await openCashDrawer(silent, 'cash_sale', 'sale-1', 20), { state: 'failed', reason: 'no answer from the printer within 0.02 s' });
  });
});
