import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../testing/manual-clock.ts';
import { layoutReceipt } from './layouts.ts';
import { SAMPLE_MERCHANT, SAMPLE_RECEIPTS, sampleSettings } from './samples.ts';
import type { PrinterStatus } from './types.ts';
import { VirtualPrinter } from './virtual-printer.ts';

describe('VirtualPrinter cash drawer', () => {
  it('counts kicks with their reason, and shows the drawer open until it is pushed shut', async () => {
    const printer = new VirtualPrinter();
    const statuses: PrinterStatus[] = [];
    printer.on('status', (status) => statuses.push(status));
    assert.equal(printer.status().drawer, 'closed');
    assert.equal(printer.drawerPulses, 0);
    assert.equal(printer.lastDrawerReason, null);

    assert.deepEqual(await printer.openDrawer({ reason: 'no_sale', jobId: 'nosale-1' }), { jobId: 'nosale-1', opened: true, drawer: 'open' });
    assert.equal(printer.drawerPulses, 1);
    assert.equal(printer.lastDrawerReason, 'no_sale');
    assert.equal(printer.status().drawer, 'open');
    assert.equal(statuses.at(-1)?.drawer, 'open');

    printer.closeDrawer();
    assert.equal(printer.status().drawer, 'closed');
    assert.equal(statuses.at(-1)?.drawer, 'closed');
    assert.equal(statuses.length, 2);
    printer.closeDrawer();
    assert.equal(statuses.length, 2, 'closing a closed drawer changes nothing');

    await printer.openDrawer({ reason: 'cash_refund', jobId: 'refund-7' });
    assert.equal(printer.drawerPulses, 2);
    assert.equal(printer.lastDrawerReason, 'cash_refund');
  });

  it('kicks once per job id: a retried or double-tapped request does not kick again', async () => {
    const printer = new VirtualPrinter();
    await printer.openDrawer({ reason: 'cash_sale', jobId: 'sale-R-000123' });
    printer.closeDrawer();
    const again = await printer.openDrawer({ reason: 'cash_sale', jobId: 'sale-R-000123' });
    assert.deepEqual(again, { jobId: 'sale-R-000123', opened: true, drawer: 'closed' });
    const [first, second] = await Promise.all([printer.openDrawer({ reason: 'paid_out', jobId: 'po-1' }), printer.openDrawer({ reason: 'paid_out', jobId: 'po-1' })]);
    assert.deepEqual(first, second);
    assert.equal(printer.drawerPulses, 2);
  });

  it('kicks for a receipt that opens the drawer (a cash sale), with "receipt" as the reason', async () => {
    const printer = new VirtualPrinter();
    const sale = layoutReceipt(SAMPLE_MERCHANT, sampleSettings(80), SAMPLE_RECEIPTS['store-sale']);
    assert.equal(sale.openCashDrawer, true);
    await printer.print(sale, { jobId: 'sale-1' });
    await printer.print(sale, { jobId: 'sale-1' });
    assert.equal(printer.drawerPulses, 1, 'a receipt printed once kicks once');
    assert.equal(printer.lastDrawerReason, 'receipt');
    assert.equal(printer.status().drawer, 'open');
    await printer.print(layoutReceipt(SAMPLE_MERCHANT, sampleSettings(80), SAMPLE_RECEIPTS['pos-payment']), { jobId: 'pos-1' });
    assert.equal(printer.drawerPulses, 1, 'a receipt paid otherwise does not kick');
  });

  it('pushes the drawer shut on its own when told to, as the kiosk\'s simulated hardware is', async () => {
    const clock = new ManualClock();
    const printer = new VirtualPrinter({ clock, drawerClosesAfterMs: 5000 });
    await printer.openDrawer({ reason: 'float', jobId: 'float-1' });
    assert.equal(printer.status().drawer, 'open');
    clock.advance(5000);
    assert.equal(printer.status().drawer, 'closed');
    await printer.openDrawer({ reason: 'paid_in', jobId: 'pi-1' });
    await printer.close();
    assert.equal(clock.pendingTimers, 0, 'close() leaves no timer behind');
  });
});
