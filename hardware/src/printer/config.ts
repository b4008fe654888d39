import { join, resolve } from 'node:path';
import type { PaperWidth } from './document.ts';
import type { DrawerPin } from './escpos.ts';
import type { DrawerOpenWhen } from './status.ts';

export type PrinterTarget =
  | { kind: 'virtual' }
  | { kind: 'tcp'; host: string; port: number }
  | { kind: 'serial'; path: string; baudRate: number }
  | { kind: 'usb'; path: string };

export interface PrinterConfig {
  target: PrinterTarget;
  paperWidth: PaperWidth;
  language: string;
  queueDirectory: string;
  previewDirectory: string;
  statusIntervalMs: number;
  /** Drawer kick-out connector pin the drawer is wired to: 2 (default) or 5. */
  drawerPin: DrawerPin;
  /** Level of the drawer sensor (pin 3) that means open: 'low' (default, most drawers) or 'high'. */
  drawerOpenWhen: DrawerOpenWhen;
}

/**
 * PRINTER: virtual (default) | tcp:HOST[:PORT] | serial:PATH[@BAUD] | usb:PATH
 * PRINTER_PAPER: 58 | 80 (default 80). PRINTER_LANGUAGE: merchant language (default en).
 * PRINTER_QUEUE_DIR (default $DATA_DIR/print-queue), PRINTER_PREVIEW_DIR (default
 * $DATA_DIR/printer-preview), PRINTER_STATUS_INTERVAL_MS (default 10000; 0 turns polling off).
 * PRINTER_DRAWER_PIN: 2 | 5 (default 2), PRINTER_DRAWER_OPEN_WHEN: low | high (default low).
 * DATA_DIR is the folder `npm start` and the sync server keep their data in (default ./data,
 * relative to `cwd`), so a moved data folder takes the receipts with it.
 */
export function printerConfigFromEnv(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): PrinterConfig {
  const paper = env.PRINTER_PAPER ?? '80';
  if (paper !== '58' && paper !== '80') throw new Error(`PRINTER_PAPER must be 58 or 80, got ${JSON.stringify(paper)}`);
  const statusIntervalMs = Number(env.PRINTER_STATUS_INTERVAL_MS ?? 10_000);
  if (!Number.isInteger(statusIntervalMs) || statusIntervalMs < 0 || statusIntervalMs > 3_600_000) throw new Error('PRINTER_STATUS_INTERVAL_MS must be 0 to 3600000');
  const drawerPin = env.PRINTER_DRAWER_PIN?.trim() || '2';
  if (drawerPin !== '2' && drawerPin !== '5') throw new Error(`PRINTER_DRAWER_PIN must be 2 or 5, got ${JSON.stringify(drawerPin)}`);
  const drawerOpenWhen = env.PRINTER_DRAWER_OPEN_WHEN?.trim() || 'low';
  if (drawerOpenWhen !== 'low' && drawerOpenWhen !== 'high') throw new Error(`PRINTER_DRAWER_OPEN_WHEN must be low or high, got ${JSON.stringify(drawerOpenWhen)}`);
  const dataDirectory = resolve(cwd, env.DATA_DIR?.trim() || 'data');
  return {
    target: parsePrinterTarget(env.PRINTER ?? 'virtual'),
    paperWidth: paper === '58' ? 58 : 80,
    language: env.PRINTER_LANGUAGE ?? 'en',
    queueDirectory: env.PRINTER_QUEUE_DIR ?? join(dataDirectory, 'print-queue'),
    previewDirectory: env.PRINTER_PREVIEW_DIR ?? join(dataDirectory, 'printer-preview'),
    statusIntervalMs,
    drawerPin: drawerPin === '5' ? 5 : 2,
    drawerOpenWhen,
  };
}

export function parsePrinterTarget(value: string): PrinterTarget {
  const text = value.trim();
  if (text === 'virtual') return { kind: 'virtual' };
  const tcp = /^tcp:(\[[0-9a-fA-F:.]+\]|[^:\s]+)(?::(\d{1,5}))?$/.exec(text);
  if (tcp) {
    const port = tcp[2] === undefined ? 9100 : Number(tcp[2]);
    if (port < 1 || port > 65_535) throw new Error(`Printer port out of range in ${JSON.stringify(value)}`);
    return { kind: 'tcp', host: (tcp[1] ?? '').replace(/^\[|\]$/g, ''), port };
  }
  const serial = /^serial:([^@\s]+)(?:@(\d{3,7}))?$/.exec(text);
  if (serial) return { kind: 'serial', path: serial[1] ?? '', baudRate: serial[2] === undefined ? 9600 : Number(serial[2]) };
  const usb = /^usb:(\S+)$/.exec(text);
  if (usb) return { kind: 'usb', path: usb[1] ?? '' };
  throw new Error(`PRINTER must be virtual, tcp:HOST[:PORT], serial:PATH[@BAUD] or usb:PATH; got ${JSON.stringify(value)}`);
}
