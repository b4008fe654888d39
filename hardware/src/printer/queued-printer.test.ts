import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeNetworkPrinter } from '../testing/fake-network-printer.ts';
import { ManualClock } from '../testing/manual-clock.ts';
import { encodeReceipt } from './escpos.ts';
import { layoutReceipt } from './layouts.ts';
import { DurablePrintQueue } from './print-queue.ts';
import { QueuedReceiptPrinter } from './queued-printer.ts';
import type { QueuedPrinterOptions } from './queued-printer.ts';
import { SAMPLE_MERCHANT, SAMPLE_RECEIPTS, sampleSettings } from './samples.ts';
import { TcpTransport } from './transports/tcp.ts';
import type { JobEvent, PrinterStatus } from './types.ts';

const saleDocument = layoutReceipt(SAMPLE_MERCHANT, sampleSettings(80), SAMPLE_RECEIPTS['store-sale']);
const refundDocument = layoutReceipt(SAMPLE_MERCHANT, sampleSettings(80), SAMPLE_RECEIPTS.refund);
/** Paid by tap: a receipt that does not kick the drawer itself. */
const tapDocument = layoutReceipt(SAMPLE_MERCHANT, sampleSettings(80), SAMPLE_RECEIPTS['pos-payment']);
/** ESC p 0 25 250: pin 2, 50 ms on, 500 ms off. */
const KICK = Uint8Array.of(0x1b, 0x70, 0x00, 0x19, 0xfa);

function printedEvents(printer: QueuedReceiptPrinter, count: number): Promise<JobEvent[]> {
  const events: JobEvent[] = [];
  return new Promise((resolve) => {
    printer.on('job', (event) => {
      if (event.state !== 'printed') return;
      events.push(event);
      if (events.length === count) resolve(events);
    });
  });
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setup(confirm: 'status' | 'drain' | 'auto', options: Partial<QueuedPrinterOptions> = {}) {
  const device = new FakeNetworkPrinter();
  await device.listen();
  const clock = new ManualClock();
  const directory = mkdtempSync(join(tmpdir(), 'tapline-print-'));
  const queue = new DurablePrintQueue({ directory });
  // Ceilings no loaded machine reaches, except the status wait of 'auto', which is how the transport
  // learns that a printer has no status support (its silence is the answer, so it must be short).
  const transport = new TcpTransport({ host: '127.0.0.1', port: device.port, confirm, connectTimeoutMs: 60_000, statusTimeoutMs: confirm === 'auto' ? 300 : 60_000, sendTimeoutMs: 60_000 });
  const printer = new QueuedReceiptPrinter({ transport, queue, clock, retryInitialDelayMs: 2000, retryMaxDelayMs: 60_000, ...options });
  cleanups.push(async () => {
    await printer.close();
    await device.goOffline();
  });
  return { device, clock, directory, queue, transport, printer };
}

/** Resolves once the printer has set a timer on the manual clock (it waits for real I/O first). */
async function timerSet(clock: ManualClock): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (clock.pendingTimers === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(clock.pendingTimers, 1);
}

describe('QueuedReceiptPrinter over TCP 9100 (127.0.0.1)', () => {
  it('prints a job exactly once when the printer drops it halfway, goes offline and comes back', async () => {
    const { device, clock, directory, queue, printer } = await setup('status');
    const saleBytes = encodeReceipt(saleDocument);
    const refundBytes = encodeReceipt(refundDocument);
    device.dropNextJobAfterBytes = 100;

    const first = await printer.print(saleDocument, { jobId: 'sale-R-000123' });
    assert.equal(first.state, 'queued');
    assert.match(first.error ?? '', /closed the connection|ECONNRESET|did not confirm/);
    assert.equal(printer.status().state, 'offline');
    assert.match(printer.status().problem ?? '', /kept and will print/);
    assert.equal(device.timesReceived(saleBytes), 0, 'only part of the job reached the printer');
    assert.equal(device.connections.length, 1);

    // While the printer is down the next receipt is queued behind the first, not lost.
    const second = await printer.print(refundDocument, { jobId: 'refund-RF-000007' });
    assert.deepEqual(second, { jobId: 'refund-RF-000007', state: 'queued', error: first.error });
    assert.equal(new DurablePrintQueue({ directory }).size, 2, 'both jobs are on disk');

    await device.listen();
    const printed = printedEvents(printer, 2);
    clock.advance(2000);
    const events = await printed;
    await device.idle();

    assert.deepEqual(events.map((event) => event.jobId), ['sale-R-000123', 'refund-RF-000007']);
    assert.equal(events[0]?.attempts, 2);
    assert.equal(device.timesReceived(saleBytes), 1);
    assert.equal(device.timesReceived(refundBytes), 1);
    assert.equal(queue.size, 0);
    assert.equal(printer.status().state, 'idle');

    // Printing the same job id again (a double click, a replayed request) prints nothing.
    const connectionsBefore = device.connections.length;
    assert.deepEqual(await printer.print(saleDocument, { jobId: 'sale-R-000123' }), { jobId: 'sale-R-000123', state: 'printed' });
    await device.idle();
    assert.equal(device.connections.length, connectionsBefore);
    assert.equal(new DurablePrintQueue({ directory }).size, 0);
  });

  it('delivers the exact encoder bytes and, without status support, confirms by a clean close', async () => {
    const { device, printer } = await setup('auto');
    device.statusAnswers = null;
    const result = await printer.print(saleDocument, { jobId: 'sale-1' });
    assert.deepEqual(result, { jobId: 'sale-1', state: 'printed' });
    await device.idle();
    const jobConnections = device.connections.filter((data) => data[0] === 0x1b);
    assert.equal(jobConnections.length, 1);
    assert.ok(jobConnections[0]?.equals(Buffer.from(encodeReceipt(saleDocument))), 'no status request appended to the job');
  });

  it('reads paper-out and cover-open from DLE EOT and emits them as status', async () => {
    const { device, printer } = await setup('status');
    const statuses: PrinterStatus[] = [];
    printer.on('status', (status) => statuses.push(status));
    device.statusAnswers = { 1: 0x1a, 2: 0x36, 4: 0x7e };
    const status = await printer.refreshStatus();
    assert.equal(status.online, false);
    assert.equal(status.coverOpen, true);
    assert.equal(status.paperOut, true);
    assert.equal(status.paperNearEnd, true);
    assert.equal(status.problem, 'Printer cover is open');
    assert.match(status.checkedAt ?? '', /^2026-01-15T09:30:00/);
    assert.deepEqual(statuses.at(-1), status);

    device.statusAnswers = { 1: 0x12, 2: 0x12, 4: 0x12 };
    const fine = await printer.refreshStatus();
    assert.deepEqual([fine.online, fine.coverOpen, fine.paperOut, fine.problem], [true, false, false, undefined]);
  });

  it('keeps retrying with capped back-off and prints after a restart from the journal', async () => {
    const { device, clock, directory, printer } = await setup('status');
    await device.goOffline();
    const result = await printer.print(saleDocument, { jobId: 'sale-9' });
    assert.equal(result.state, 'queued');
    await printer.close();

    // The terminal restarts; the new printer finds the job in the journal and prints it.
    await device.listen();
    const transport = new TcpTransport({ host: '127.0.0.1', port: device.port, confirm: 'status', statusTimeoutMs: 60_000 });
    const restarted = new QueuedReceiptPrinter({ transport, queue: new DurablePrintQueue({ directory }), clock });
    cleanups.push(() => restarted.close());
    await printedEvents(restarted, 1);
    await device.idle();
    assert.equal(device.timesReceived(encodeReceipt(saleDocument)), 1);
  });
});

describe('QueuedReceiptPrinter cash drawer over TCP 9100 (127.0.0.1)', () => {
  it('kicks with exactly ESC p 0 25 250, once per job id (also after a restart), and reads the sensor after the kick', async () => {
    const { device, clock, directory, transport, printer } = await setup('status', { drawerSettleMs: 0 });
    device.statusAnswers = { 1: 0x12, 2: 0x12, 4: 0x12 };
    assert.deepEqual(await printer.openDrawer({ reason: 'cash_sale', jobId: 'sale-R-000123' }), { jobId: 'sale-R-000123', opened: true, drawer: 'open' });
    await device.idle();
    const kicks = device.connections.filter((data) => data[0] === 0x1b);
    assert.equal(kicks.length, 1);
    // The kick alone, then the DLE EOT 1 whose answer confirms the printer got it.
    assert.deepEqual([...kicks[0]!], [0x1b, 0x70, 0x00, 0x19, 0xfa, 0x10, 0x04, 0x01]);
    assert.equal(printer.status().drawer, 'open');
    assert.equal(printer.status().queuedJobs, 0, 'the kick never sat in the print queue');

    // The same job id again (a retried request), and a double tap on a new one: one kick each.
    const connections = device.connections.length;
    assert.deepEqual(await printer.openDrawer({ reason: 'cash_sale', jobId: 'sale-R-000123' }), { jobId: 'sale-R-000123', opened: true, drawer: 'open' });
    await device.idle();
    assert.equal(device.connections.length, connections);
    const [first, second] = await Promise.all([printer.openDrawer({ reason: 'no_sale', jobId: 'nosale-1' }), printer.openDrawer({ reason: 'no_sale', jobId: 'nosale-1' })]);
    assert.deepEqual(first, { jobId: 'nosale-1', opened: true, drawer: 'open' });
    assert.deepEqual(second, first);
    await device.idle();
    assert.equal(device.timesReceived(KICK), 2);

    // The terminal restarts: the journal still knows the kick was delivered.
    const restarted = new QueuedReceiptPrinter({ transport, queue: new DurablePrintQueue({ directory }), clock, drawerSettleMs: 0 });
    cleanups.push(() => restarted.close());
    assert.equal((await restarted.openDrawer({ reason: 'cash_sale', jobId: 'sale-R-000123' })).opened, true);
    await device.idle();
    assert.equal(device.timesReceived(KICK), 2);
  });

  it('reads the drawer only after the pulse has run its course', async () => {
    const { device, clock, printer } = await setup('status');
    const kicked = printer.openDrawer({ reason: 'no_sale', jobId: 'nosale-2' });
    await timerSet(clock);
    await device.idle();
    assert.equal(device.connections.length, 1, 'the kick went out; the sensor is not read yet');
    clock.advance(550);
    assert.deepEqual(await kicked, { jobId: 'nosale-2', opened: true, drawer: 'open' });
    await device.idle();
    assert.deepEqual([...device.connections[1]!], [0x10, 0x04, 0x01, 0x10, 0x04, 0x02, 0x10, 0x04, 0x04]);
  });

  it('kicks the configured pin and reads the sensor the configured way round', async () => {
    const { device, printer } = await setup('status', { drawerSettleMs: 0, drawerOpenWhen: 'high', escpos: { drawerPin: 5 } });
    device.statusAnswers = { 1: 0x16, 2: 0x12, 4: 0x12 };
    assert.deepEqual(await printer.openDrawer({ reason: 'paid_out', jobId: 'po-1' }), { jobId: 'po-1', opened: true, drawer: 'open' });
    await device.idle();
    assert.equal(device.timesReceived(Uint8Array.of(0x1b, 0x70, 0x01, 0x19, 0xfa)), 1);
    assert.equal(device.timesReceived(KICK), 0);
    device.statusAnswers = { 1: 0x12, 2: 0x12, 4: 0x12 };
    assert.equal((await printer.refreshStatus()).drawer, 'closed');
  });

  it('says nothing of the drawer when the printer answers no status', async () => {
    const { device, printer } = await setup('drain', { drawerSettleMs: 0 });
    device.statusAnswers = null;
    assert.deepEqual(await printer.openDrawer({ reason: 'float', jobId: 'float-1' }), { jobId: 'float-1', opened: true, drawer: null });
    await device.idle();
    assert.equal(device.timesReceived(KICK), 1);
  });

  it('refuses a kick the printer cannot take now and never sends it later; a kick goes ahead of receipts that wait', async () => {
    const { device, clock, queue, printer } = await setup('status', { drawerSettleMs: 0 });
    await device.goOffline();
    assert.equal((await printer.print(tapDocument, { jobId: 'pos-1' })).state, 'queued');
    await assert.rejects(printer.openDrawer({ reason: 'cash_sale', jobId: 'sale-9' }), /^Error: Cash drawer did not open: .*ECONNREFUSED/);
    assert.equal(queue.size, 1, 'only the receipt waits');

    // The printer is back before the retry: a new kick goes now, the receipt at its retry.
    await device.listen();
    assert.deepEqual(await printer.openDrawer({ reason: 'no_sale', jobId: 'nosale-3' }), { jobId: 'nosale-3', opened: true, drawer: 'open' });
    const printed = printedEvents(printer, 1);
    clock.advance(2000);
    assert.equal((await printed)[0]?.jobId, 'pos-1');
    await device.idle();
    const jobs = device.connections.filter((data) => data[0] === 0x1b);
    assert.equal(jobs.length, 2);
    assert.ok(jobs[0]!.subarray(0, 5).equals(Buffer.from(KICK)), 'the kick first');
    assert.ok(jobs[1]!.includes(Buffer.from(encodeReceipt(tapDocument))), 'then the receipt');
    assert.equal(device.timesReceived(KICK), 1, 'the refused kick was not sent when the printer came back');

    // The cashier tries the refused one again with its job id: never delivered, so it kicks now.
    assert.equal((await printer.openDrawer({ reason: 'cash_sale', jobId: 'sale-9' })).opened, true);
    await device.idle();
    assert.equal(device.timesReceived(KICK), 2);
  });
});
