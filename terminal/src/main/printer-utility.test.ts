import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { type PrinterStatus, SAMPLE_MERCHANT, SAMPLE_RECEIPTS, layoutReceipt, sampleSettings } from '@tapline/hardware';
import { killAndAwaitDeath } from '@tapline/hardware/testing';
import { parsePrinterParentMessage, parsePrinterWorkerMessage } from './printer-protocol.ts';
import { UtilityPrinter, utilityPrinterProcess } from './printer-utility.ts';
import { nodeUtilityProcess, utilityChildren } from './testing/node-utility-process.ts';

const WORKER = fileURLToPath(new URL('./printer-worker.ts', import.meta.url));
const receipt = () => layoutReceipt(SAMPLE_MERCHANT, sampleSettings(80), SAMPLE_RECEIPTS['pos-payment']);

/** Waits for `condition`, with a ceiling generous enough for a loaded machine (60 s). */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
  assert.ok(condition(), what);
}

describe('the receipt printer as a utility process (printer-worker.ts in a Node child that looks like one)', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapline-printer-utility-'));
    dirs.push(dir);
    return dir;
  };
  const printerFor = (env: NodeJS.ProcessEnv, logs: string[] = []) =>
    new UtilityPrinter({ spawn: () => utilityPrinterProcess({ fork: nodeUtilityProcess }, WORKER, { ...process.env, PRINTER_STATUS_INTERVAL_MS: '0', ...env }), restartInitialDelayMs: 50, restartMaxDelayMs: 200, log: (line) => logs.push(line) });
  // The restart back-off runs on the system clock's unref'd timers, as in the app, whose event
  // loop Electron keeps alive; here an interval does.
  const keepAlive = setInterval(() => undefined, 1000);
  after(() => {
    clearInterval(keepAlive);
    for (const child of utilityChildren) child.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('prints with the virtual printer in its process: the answer, the events and the preview files come back', async () => {
    const previews = tempDir();
    const printer = printerFor({ PRINTER: 'virtual', PRINTER_PREVIEW_DIR: previews });
    const jobs: string[] = [];
    printer.on('job', (event) => jobs.push(`${event.jobId} ${event.state}`));
    // A call made before the process is ready waits for it.
    assert.deepEqual(await printer.print(receipt(), { jobId: 'pos-utility-1', label: 'pos-payment' }), { jobId: 'pos-utility-1', state: 'printed' });
    assert.equal(printer.name, 'virtual');
    assert.equal(printer.status().printer, 'virtual');
    assert.deepEqual((await printer.refreshStatus()).printer, 'virtual');
    const files = readdirSync(previews).sort();
    assert.ok(files.includes('pos-payment-pos-utility-1.bin'), files.join(', '));
    assert.deepEqual([...readFileSync(join(previews, 'pos-payment-pos-utility-1.bin')).subarray(0, 2)], [0x1b, 0x40], 'ESC @ starts the job');
    // Same job id again: printed once.
    assert.deepEqual(await printer.print(receipt(), { jobId: 'pos-utility-1', label: 'pos-payment' }), { jobId: 'pos-utility-1', state: 'printed' });
    assert.equal(readdirSync(previews).filter((file) => file.endsWith('.bin')).length, 1);
    // The drawer: kicked in the printer's process, shown open in the status that comes back.
    assert.deepEqual(await printer.openDrawer({ reason: 'no_sale', jobId: 'nosale-utility-1' }), { jobId: 'nosale-utility-1', opened: true, drawer: 'open' });
    await until(() => printer.status().drawer === 'open', 'the open drawer shown in the status');
    await printer.close();
    assert.equal(utilityChildren.size, 0, 'close() ends the process');
  });

  it('sends ESC/POS through the durable queue and a USB device file, and is started again when its process dies', async () => {
    const dir = tempDir();
    const device = join(dir, 'lp0');
    const logs: string[] = [];
    const printer = printerFor({ PRINTER: `usb:${device}`, PRINTER_QUEUE_DIR: join(dir, 'queue') }, logs);
    const statuses: PrinterStatus[] = [];
    printer.on('status', (status) => statuses.push(status));
    assert.deepEqual(await printer.print(receipt(), { jobId: 'pos-usb-1' }), { jobId: 'pos-usb-1', state: 'printed' });
    const first = readFileSync(device);
    assert.deepEqual([...first.subarray(0, 2)], [0x1b, 0x40]);
    assert.ok(first.includes(Buffer.from('PAYMENT RECEIPT')), 'the receipt text reached the device');
    assert.equal(printer.status().printer, `usb ${device}`);

    // The process dies (a native fault, say): the status says so, a print waits for the new process.
    const [child] = utilityChildren;
    child!.kill('SIGKILL');
    await until(() => printer.status().problem === 'The printer is restarting', 'restarting shown');
    const printed = printer.print(receipt(), { jobId: 'pos-usb-2' });
    assert.deepEqual(await printed, { jobId: 'pos-usb-2', state: 'printed' });
    assert.equal(printer.restarts, 1);
    assert.ok(readFileSync(device).length > first.length, 'the second receipt reached the device');
    assert.ok(logs.some((line) => /printer process stopped \(exit code \d+\); starting it again in 50 ms/.test(line)), logs.join('\n'));
    assert.ok(statuses.some((status) => status.state === 'offline'));
    assert.equal(statuses.at(-1)?.printer, `usb ${device}`);
    // The journal survives restarts: the printed job ids are still known, so a repeat prints once.
    const before = readFileSync(device).length;
    assert.deepEqual(await printer.print(receipt(), { jobId: 'pos-usb-1' }), { jobId: 'pos-usb-1', state: 'printed' });
    assert.equal(readFileSync(device).length, before);

    // The drawer kick reaches the device as exactly ESC p 0 25 250, once per job id, also across
    // a restart of the process; usblp gives no status, so nothing is said of the drawer.
    assert.deepEqual(await printer.openDrawer({ reason: 'cash_sale', jobId: 'sale-usb-1' }), { jobId: 'sale-usb-1', opened: true, drawer: null });
    assert.deepEqual([...readFileSync(device).subarray(before)], [0x1b, 0x70, 0x00, 0x19, 0xfa]);
    assert.deepEqual(await printer.openDrawer({ reason: 'cash_sale', jobId: 'sale-usb-1' }), { jobId: 'sale-usb-1', opened: true, drawer: null });
    assert.equal(readFileSync(device).length, before + 5);
    utilityChildren.values().next().value!.kill('SIGKILL');
    await until(() => printer.status().problem === 'The printer is restarting', 'restarting shown');
    assert.deepEqual(await printer.openDrawer({ reason: 'cash_sale', jobId: 'sale-usb-1' }), { jobId: 'sale-usb-1', opened: true, drawer: null });
    assert.equal(readFileSync(device).length, before + 5, 'the journal remembers the kick');
    assert.equal(printer.restarts, 2);
    await printer.close();
    assert.equal(existsSync(join(dir, 'queue')), true);
  });

  it('fails a call the dying process had taken, in words, and refuses calls once closed', async () => {
    const printer = printerFor({ PRINTER: 'virtual' });
    await printer.refreshStatus();
    await until(() => printer.status().printer === 'virtual', 'ready');
    const [child] = utilityChildren;
    // The print reaches the process, which is killed before it can answer.
    const call = printer.print(receipt(), { jobId: 'pos-lost' });
    const kick = printer.openDrawer({ reason: 'no_sale', jobId: 'nosale-lost' });
    child!.kill('SIGKILL');
    await assert.rejects(call, /printer process stopped \(exit code \d+\) before answering; a queued receipt prints when it is back/);
    // A kick is never queued: the cashier is told it may not have happened.
    await assert.rejects(kick, /printer process stopped \(exit code \d+\) before answering; the cash drawer may not have opened/);
    await printer.close();
    await assert.rejects(printer.print(receipt()), /the printer is closed/);
  });

  for (const when of ['before its exit is heard', 'after its exit was heard'] as const) {
    it(`closes a printer whose process was killed behind its back, ${when}, without throwing`, async () => {
      const printer = printerFor({ PRINTER: 'virtual' });
      await printer.refreshStatus();
      await until(() => printer.status().printer === 'virtual', 'ready');
      const [child] = utilityChildren;
      if (when === 'after its exit was heard') {
        killAndAwaitDeath(child!.pid);
        await until(() => printer.status().problem === 'The printer is restarting', 'restarting shown');
      } else {
        // Dead, but this process has not turned its event loop since: its channel still looks open.
        killAndAwaitDeath(child!.pid);
      }
      await printer.close();
      assert.equal(printer.restarts, 0, 'not started again once closed');
      await until(() => utilityChildren.size === 0, 'no printer process left');
    });
  }

  it('checks the messages on both sides of the process boundary', () => {
    assert.equal(parsePrinterWorkerMessage({ type: 'answer', id: 0, ok: true }), null);
    assert.equal(parsePrinterWorkerMessage({ type: 'status', status: { printer: 'x', state: 'on fire', queuedJobs: 0 } }), null);
    assert.equal(parsePrinterWorkerMessage('ready'), null);
    assert.deepEqual(parsePrinterWorkerMessage({ type: 'answer', id: 3, ok: false, code: 'weird', message: 'no paper' }), { type: 'answer', id: 3, ok: false, code: 'failed', message: 'no paper' });
    assert.equal(parsePrinterParentMessage({ type: 'call', id: 1, method: 'exec' }), null);
    assert.equal(parsePrinterParentMessage({ type: 'call', id: 1, method: 'print', document: { blocks: 'x' } }), null);
    assert.deepEqual(parsePrinterParentMessage({ type: 'call', id: 2, method: 'openDrawer', request: { reason: 'no_sale', jobId: 'nosale-1', extra: true } }), { type: 'call', id: 2, method: 'openDrawer', request: { reason: 'no_sale', jobId: 'nosale-1' } });
    assert.equal(parsePrinterParentMessage({ type: 'call', id: 2, method: 'openDrawer', request: { reason: 'lunch', jobId: 'x' } }), null);
    assert.equal(parsePrinterParentMessage({ type: 'call', id: 2, method: 'openDrawer', request: { reason: 'no_sale', jobId: '' } }), null);
    assert.equal(parsePrinterParentMessage({ type: 'call', id: 2, method: 'openDrawer' }), null);
    assert.equal(parsePrinterParentMessage({ type: 'call', id: 2, method: 'openCashDrawer' }), null);
  });
});
