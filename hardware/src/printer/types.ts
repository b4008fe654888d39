import type { ReceiptDocument } from './document.ts';
import type { PrinterCondition } from './status.ts';

export type PrinterState =
  /** Nothing waiting. */
  | 'idle'
  | 'printing'
  /** The last attempt failed; jobs wait in the queue for the next retry. */
  | 'offline';

export interface PrinterStatus extends PrinterCondition {
  /** "virtual", "tcp 10.0.0.9:9100", "serial /dev/ttyUSB0@9600", "usb /dev/usb/lp0". */
  printer: string;
  state: PrinterState;
  queuedJobs: number;
  /** Words for the cashier when something needs attention. */
  problem?: string;
  lastError?: string;
  /** ISO time of the last status answer from the device, if it ever answered. */
  checkedAt?: string;
}

export interface PrintOptions {
  /**
   * Idempotency key of the print: a receipt id, say. Printing the same id again while it is
   * queued or after it printed does not print it again. Default: a random id.
   */
  jobId?: string;
  /** For status screens and logs. */
  label?: string;
  /**
   * The job's bytes carry a secret (a gift card's code): the durable queue rewrites its journal
   * without them as soon as the job has printed, instead of at the next compaction.
   */
  sensitive?: boolean;
}

export interface PrintResult {
  jobId: string;
  /** 'printed': delivery confirmed. 'queued': kept in the durable queue and retried. */
  state: 'printed' | 'queued';
  error?: string;
}

/** Why the drawer opens: the till's own words for it, kept by the simulator (and in logs). */
export type DrawerReason = 'cash_sale' | 'cash_refund' | 'no_sale' | 'paid_in' | 'paid_out' | 'float';

export const DRAWER_REASONS: readonly DrawerReason[] = ['cash_sale', 'cash_refund', 'no_sale', 'paid_in', 'paid_out', 'float'];

export interface DrawerRequest {
  reason: DrawerReason;
  /**
   * Idempotency key of the opening: a sale id, say. A jobId whose kick reached the printer is
   * not sent again, so a retried request or a double tap opens the drawer once.
   */
  jobId: string;
}

export interface DrawerResult {
  jobId: string;
  /** The kick reached the printer (for a repeated jobId: the first time; it is not sent again). */
  opened: boolean;
  /** 'open' | 'closed' when the printer reports drawer status (DLE EOT 1, bit 2 = pin 3 signal), else null */
  drawer: 'open' | 'closed' | null;
}

export interface JobEvent {
  jobId: string;
  state: 'printed' | 'retrying';
  attempts: number;
  error?: string;
}

export interface ReceiptPrinterEvents {
  status: [PrinterStatus];
  job: [JobEvent];
}

export interface ReceiptPrinter {
  readonly name: string;
  print(document: ReceiptDocument, options?: PrintOptions): Promise<PrintResult>;
  /**
   * Pulses the cash drawer (ESC p) on its own, now or not at all: a kick that cannot be
   * delivered rejects and is never retried later, when nobody may be at the till.
   */
  openDrawer(request: DrawerRequest): Promise<DrawerResult>;
  status(): PrinterStatus;
  /** Asks the device for its status now (paper, cover) where the transport can. */
  refreshStatus(): Promise<PrinterStatus>;
  close(): Promise<void>;
  on<K extends keyof ReceiptPrinterEvents>(event: K, listener: (...args: ReceiptPrinterEvents[K]) => void): this;
  off<K extends keyof ReceiptPrinterEvents>(event: K, listener: (...args: ReceiptPrinterEvents[K]) => void): this;
}
