import type { Clock } from '../clock.ts';
import type { PrinterConfig } from './config.ts';
import { DurablePrintQueue } from './print-queue.ts';
import { QueuedReceiptPrinter } from './queued-printer.ts';
import { DeviceFileTransport } from './transports/device-file.ts';
import { SerialTransport } from './transports/serial.ts';
import { TcpTransport } from './transports/tcp.ts';
import type { PrinterTransport } from './transports/types.ts';
import type { ReceiptPrinter } from './types.ts';
import { VirtualPrinter } from './virtual-printer.ts';

export type { ReceiptPrinter, PrinterStatus, PrintResult, PrintOptions, JobEvent, ReceiptPrinterEvents, DrawerReason, DrawerRequest, DrawerResult } from './types.ts';
export type { ReceiptDocument, ReceiptBlock, MonochromeImage, PaperWidth } from './document.ts';
export { VirtualPrinter } from './virtual-printer.ts';
export { QueuedReceiptPrinter } from './queued-printer.ts';
export { DurablePrintQueue } from './print-queue.ts';
export { encodeReceipt } from './escpos.ts';
export { renderReceiptSvg } from './preview-svg.ts';
export { layoutReceipt } from './layouts.ts';
export { printerConfigFromEnv, parsePrinterTarget } from './config.ts';
export type { PrinterConfig, PrinterTarget } from './config.ts';

export function transportFor(config: PrinterConfig): PrinterTransport | null {
  const { target } = config;
  switch (target.kind) {
    case 'virtual':
      return null;
    case 'tcp':
      return new TcpTransport({ host: target.host, port: target.port });
    case 'serial':
      return new SerialTransport({ path: target.path, baudRate: target.baudRate });
    case 'usb':
      return new DeviceFileTransport(target.path);
  }
}

/** The virtual printer's drawer is pushed shut this long after a kick, so screens that wait for it go on. */
export const VIRTUAL_DRAWER_CLOSES_AFTER_MS = 5000;

/** The printer PRINTER names: the virtual one, or a real one behind the durable queue. */
export function createPrinter(config: PrinterConfig, options: { clock?: Clock; resumeQueue?: boolean } = {}): ReceiptPrinter {
  const transport = transportFor(config);
  const escpos = { drawerPin: config.drawerPin };
  if (transport === null) {
    return new VirtualPrinter({ previewDirectory: config.previewDirectory, escpos, drawerClosesAfterMs: VIRTUAL_DRAWER_CLOSES_AFTER_MS, ...(options.clock ? { clock: options.clock } : {}) });
  }
  return new QueuedReceiptPrinter({
    transport,
    queue: new DurablePrintQueue({ directory: config.queueDirectory }),
    statusIntervalMs: config.statusIntervalMs,
    escpos,
    drawerOpenWhen: config.drawerOpenWhen,
    ...options,
  });
}
