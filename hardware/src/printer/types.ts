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
  /** Pulses the cash drawer without printing ("no sale"). */
  openCashDrawer(): Promise<void>;
  status(): PrinterStatus;
  /** Asks the device for its status now (paper, cover) where the transport can. */
  refreshStatus(): Promise<PrinterStatus>;
  close(): Promise<void>;
  on<K extends keyof ReceiptPrinterEvents>(event: K, listener: (...args: ReceiptPrinterEvents[K]) => void): this;
  off<K extends keyof ReceiptPrinterEvents>(event: K, listener: (...args: ReceiptPrinterEvents[K]) => void): this;
}
