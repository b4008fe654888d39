/**
 * ESC/POS real-time status (DLE EOT n). These are transport-level queries rather than receipt
 * content, and the encoder library has no command for them, so the four request bytes live
 * here. The printer answers each with one byte, even while offline, ahead of queued data.
 */

export const DLE_EOT_PRINTER = Uint8Array.of(0x10, 0x04, 0x01);
export const DLE_EOT_OFFLINE_CAUSE = Uint8Array.of(0x10, 0x04, 0x02);
export const DLE_EOT_ERROR_CAUSE = Uint8Array.of(0x10, 0x04, 0x03);
export const DLE_EOT_PAPER = Uint8Array.of(0x10, 0x04, 0x04);

export interface PrinterCondition {
  online: boolean | null;
  coverOpen: boolean | null;
  paperOut: boolean | null;
  paperNearEnd: boolean | null;
  /** Cutter jam, head overheating and similar: needs a person. */
  error: boolean | null;
  /** The cash drawer's sensor (drawer kick-out connector pin 3); null: the printer does not report it. */
  drawer: 'open' | 'closed' | null;
}

export const UNKNOWN_CONDITION: PrinterCondition = { online: null, coverOpen: null, paperOut: null, paperNearEnd: null, error: null, drawer: null };

/**
 * Which level of pin 3 means "open". Most drawers close a switch to ground while shut, so pin 3
 * reads low when open, but drawers differ: the install says which (PRINTER_DRAWER_OPEN_WHEN).
 */
export type DrawerOpenWhen = 'low' | 'high';

/** Every status byte has bit 1 and bit 4 set and bits 0 and 7 clear; anything else is noise. */
export function isStatusByte(value: number): boolean {
  return (value & 0x93) === 0x12;
}

/** n=1: bit 3 set means offline; bit 2 is the drawer kick-out connector's pin 3 (set = high). */
export function parsePrinterStatus(value: number, drawerOpenWhen: DrawerOpenWhen): Pick<PrinterCondition, 'online' | 'drawer'> {
  const pin3High = (value & 0x04) !== 0;
  return { online: (value & 0x08) === 0, drawer: pin3High === (drawerOpenWhen === 'high') ? 'open' : 'closed' };
}

/** n=2: bit 2 cover open, bit 5 printing stopped by paper end, bit 6 error. */
export function parseOfflineCause(value: number): Pick<PrinterCondition, 'coverOpen' | 'paperOut' | 'error'> {
  return { coverOpen: (value & 0x04) !== 0, paperOut: (value & 0x20) !== 0, error: (value & 0x40) !== 0 };
}

/** n=4: bits 2-3 paper near end, bits 5-6 paper end. */
export function parsePaperSensor(value: number): Pick<PrinterCondition, 'paperNearEnd' | 'paperOut'> {
  return { paperNearEnd: (value & 0x0c) !== 0, paperOut: (value & 0x60) !== 0 };
}

/** Words for the cashier, or null when the printer is fine. An open drawer is not a printer problem. */
export function describeCondition(condition: PrinterCondition): string | null {
  if (condition.coverOpen === true) return 'Printer cover is open';
  if (condition.paperOut === true) return 'Printer is out of paper';
  if (condition.error === true) return 'Printer reports an error (cutter or print head)';
  if (condition.online === false) return 'Printer is offline';
  if (condition.paperNearEnd === true) return 'Printer paper is running low';
  return null;
}
