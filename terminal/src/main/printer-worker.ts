/**
 * The receipt printer's process in the kiosk app (bundled into dist/main/printer-worker.js and
 * started by the main process as an Electron utility process): the printer PRINTER names (the
 * durable queue and its ESC/POS transport over USB, serial or TCP, or the virtual printer) runs
 * here, so a fault in a native serial binding or a transport that hangs costs a restart of this
 * process (printer-utility.ts), never the till's window or the main process. The durable queue's
 * journal is on disk: jobs that waited when it died are resumed by the next one.
 */
import { PrintQueueFullError, createPrinter, printerConfigFromEnv } from '@tapline/hardware';
import { type PrinterParentMessage, type PrinterWorkerMessage, parsePrinterParentMessage } from './printer-protocol.ts';

interface ParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): unknown;
}
const parentPort = (process as { parentPort?: ParentPort }).parentPort;
if (parentPort === undefined) throw new Error('printer-worker runs as an Electron utility process (process.parentPort)');
const port: ParentPort = parentPort;

const send = (message: PrinterWorkerMessage) => port.postMessage(message);
const printer = createPrinter(printerConfigFromEnv(process.env));
printer.on('status', (status) => send({ type: 'status', status }));
printer.on('job', (event) => send({ type: 'job', event }));

async function answer(message: Extract<PrinterParentMessage, { type: 'call' }>): Promise<void> {
  try {
    let result;
    if (message.method === 'print') result = await printer.print(message.document, message.options);
    else if (message.method === 'refreshStatus') result = await printer.refreshStatus();
    else result = await printer.openDrawer(message.request);
    send({ type: 'answer', id: message.id, ok: true, result });
  } catch (error) {
    send({ type: 'answer', id: message.id, ok: false, code: error instanceof PrintQueueFullError ? 'print_queue_full' : 'failed', message: error instanceof Error ? error.message : String(error) });
  }
}

port.on('message', ({ data }) => {
  const message = parsePrinterParentMessage(data);
  if (message === null) {
    console.error('printer-worker: ignored a malformed message from the main process');
    return;
  }
  if (message.type === 'stop') {
    // Close the queue and transport cleanly (the journal is already on disk), then leave.
    void printer.close().finally(() => process.exit(0));
    return;
  }
  void answer(message);
});
send({ type: 'ready', name: printer.name, status: printer.status() });
