import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { systemClock } from '../clock.ts';
import type { Clock, TimerHandle } from '../clock.ts';
import type { ReceiptDocument } from './document.ts';
import { encodeReceipt } from './escpos.ts';
import type { EscPosOptions } from './escpos.ts';
import { svgToPng } from './preview-png.ts';
import { renderReceiptSvg } from './preview-svg.ts';
import { UNKNOWN_CONDITION } from './status.ts';
import type { DrawerReason, DrawerRequest, DrawerResult, PrintOptions, PrintResult, PrinterStatus, ReceiptPrinter, ReceiptPrinterEvents } from './types.ts';

export interface VirtualPrintJob {
  jobId: string;
  label?: string;
  document: ReceiptDocument;
  /** Exactly the bytes a real printer would have received. */
  bytes: Uint8Array;
  svg: string;
  /** Files written for a person to look at, when a preview directory is set. */
  files: { bin?: string; svg?: string; png?: string; pngUnavailable?: string };
}

export interface VirtualPrinterOptions {
  /** Where to write <label>-<job id>.svg, .png and .bin; nothing is written without it. */
  previewDirectory?: string;
  /** Also rasterise to PNG (needs rsvg-convert). Default true. */
  png?: boolean;
  escpos?: EscPosOptions;
  /** Jobs kept in memory, newest last. */
  keepJobs?: number;
  /**
   * The simulated drawer is pushed shut this long after a kick, as a cashier would (the kiosk's
   * simulated hardware uses this). Default: it stays open until closeDrawer().
   */
  drawerClosesAfterMs?: number;
  clock?: Clock;
}

/**
 * A printer that keeps what it is sent and draws it. Used by `npm start` without a printer, by
 * the CLI's print-test and by tests; the preview is drawn from the same content model the
 * ESC/POS bytes come from.
 */
export class VirtualPrinter extends EventEmitter<ReceiptPrinterEvents> implements ReceiptPrinter {
  readonly name = 'virtual';
  readonly jobs: VirtualPrintJob[] = [];
  readonly #options: VirtualPrinterOptions;
  readonly #printedIds = new Set<string>();
  readonly #clock: Clock;
  /** Drawer kicks received: by openDrawer() and by receipts that open the drawer. */
  drawerPulses = 0;
  lastDrawerReason: DrawerReason | 'receipt' | null = null;
  #drawer: 'open' | 'closed' = 'closed';
  readonly #kickedDrawerIds = new Set<string>();
  #drawerCloseTimer: TimerHandle | null = null;

  constructor(options: VirtualPrinterOptions = {}) {
    super();
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
  }

  async print(document: ReceiptDocument, options: PrintOptions = {}): Promise<PrintResult> {
    const jobId = options.jobId ?? randomUUID();
    if (this.#printedIds.has(jobId)) return { jobId, state: 'printed' };
    const bytes = encodeReceipt(document, this.#options.escpos);
    const svg = renderReceiptSvg(document, this.#options.escpos);
    const job: VirtualPrintJob = { jobId, document, bytes, svg, files: {}, ...(options.label === undefined ? {} : { label: options.label }) };
    if (this.#options.previewDirectory !== undefined) await this.#writePreview(job, this.#options.previewDirectory);
    this.#printedIds.add(jobId);
    this.jobs.push(job);
    const keep = this.#options.keepJobs ?? 50;
    while (this.jobs.length > keep) this.jobs.shift();
    this.emit('job', { jobId, state: 'printed', attempts: 1 });
    if (document.openCashDrawer === true) this.#kickDrawer('receipt');
    return { jobId, state: 'printed' };
  }

  async openDrawer(request: DrawerRequest): Promise<DrawerResult> {
    const { jobId } = request;
    // As the real printer: a job id whose kick was delivered is not kicked again.
    if (!this.#kickedDrawerIds.has(jobId)) {
      this.#kickedDrawerIds.add(jobId);
      this.#kickDrawer(request.reason);
    }
    return { jobId, opened: true, drawer: this.#drawer };
  }

  /** The simulator's hand on the drawer: pushes it shut (tests; a status event follows). */
  closeDrawer(): void {
    this.#cancelDrawerClose();
    if (this.#drawer === 'closed') return;
    this.#drawer = 'closed';
    this.emit('status', this.status());
  }

  status(): PrinterStatus {
    return { printer: this.name, state: 'idle', queuedJobs: 0, ...UNKNOWN_CONDITION, online: true, coverOpen: false, paperOut: false, paperNearEnd: false, error: false, drawer: this.#drawer };
  }

  async refreshStatus(): Promise<PrinterStatus> {
    return this.status();
  }

  async close(): Promise<void> {
    this.#cancelDrawerClose();
  }

  #kickDrawer(reason: DrawerReason | 'receipt'): void {
    this.drawerPulses += 1;
    this.lastDrawerReason = reason;
    this.#drawer = 'open';
    this.#cancelDrawerClose();
    const closesAfterMs = this.#options.drawerClosesAfterMs;
    if (closesAfterMs !== undefined) this.#drawerCloseTimer = this.#clock.setTimeout(() => this.closeDrawer(), closesAfterMs);
    this.emit('status', this.status());
  }

  #cancelDrawerClose(): void {
    if (this.#drawerCloseTimer !== null) this.#clock.clearTimeout(this.#drawerCloseTimer);
    this.#drawerCloseTimer = null;
  }

  async #writePreview(job: VirtualPrintJob, directory: string): Promise<void> {
    await mkdir(directory, { recursive: true });
    // One file per job: the previews of two sales of the same kind must not overwrite each other.
    const base = join(directory, safeFileName(job.label === undefined ? job.jobId : `${job.label}-${job.jobId}`));
    job.files.bin = `${base}.bin`;
    job.files.svg = `${base}.svg`;
    await writeFile(job.files.bin, job.bytes);
    await writeFile(job.files.svg, job.svg);
    if (this.#options.png === false) return;
    const png = await svgToPng(job.svg);
    if (png.ok) {
      job.files.png = `${base}.png`;
      await writeFile(job.files.png, png.png);
    } else {
      job.files.pngUnavailable = png.reason;
    }
  }
}

function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'receipt';
}
