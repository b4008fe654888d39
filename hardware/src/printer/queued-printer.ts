import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { backoffDelayMs, systemClock } from '../clock.ts';
import type { Clock, TimerHandle } from '../clock.ts';
import type { ReceiptDocument } from './document.ts';
import { DRAWER_PULSE_OFF_MS, DRAWER_PULSE_ON_MS, encodeDrawerPulse, encodeReceipt } from './escpos.ts';
import type { EscPosOptions } from './escpos.ts';
import type { DurablePrintQueue } from './print-queue.ts';
import {
  DLE_EOT_OFFLINE_CAUSE,
  DLE_EOT_PAPER,
  DLE_EOT_PRINTER,
  UNKNOWN_CONDITION,
  describeCondition,
  parseOfflineCause,
  parsePaperSensor,
  parsePrinterStatus,
} from './status.ts';
import type { DrawerOpenWhen, PrinterCondition } from './status.ts';
import type { PrinterTransport } from './transports/types.ts';
import type { DrawerRequest, DrawerResult, PrintOptions, PrintResult, PrinterStatus, ReceiptPrinter, ReceiptPrinterEvents } from './types.ts';

export interface QueuedPrinterOptions {
  transport: PrinterTransport;
  queue: DurablePrintQueue;
  clock?: Clock;
  escpos?: EscPosOptions;
  retryInitialDelayMs?: number;
  retryMaxDelayMs?: number;
  /** Poll the device's status this often (0: only when asked and after failures). */
  statusIntervalMs?: number;
  /** Start printing jobs left in the queue from a previous run (default true; off for a status check). */
  resumeQueue?: boolean;
  /** Level of the drawer sensor (pin 3) that means open (default 'low'). */
  drawerOpenWhen?: DrawerOpenWhen;
  /**
   * After a drawer kick, wait this long before reading the drawer's sensor. Default: the pulse's
   * own on + off time (550 ms); the printer may answer the kick before it has fired it, and a
   * reading taken then would say "closed" about a drawer that is springing open.
   */
  drawerSettleMs?: number;
}

/** Drawer kicks share the queue's memory of delivered ids, in a namespace of their own. */
const drawerJournalId = (jobId: string) => `drawer:${jobId}`;

/**
 * A real printer behind a transport, with the durable queue in front of it. Jobs print one at
 * a time in order; a failed job stays at the head of the queue and is retried with back-off
 * (capped, never given up), and leaves the queue only when the transport confirms delivery.
 */
export class QueuedReceiptPrinter extends EventEmitter<ReceiptPrinterEvents> implements ReceiptPrinter {
  readonly name: string;
  readonly #transport: PrinterTransport;
  readonly #queue: DurablePrintQueue;
  readonly #clock: Clock;
  readonly #escpos: EscPosOptions;
  readonly #retryInitialDelayMs: number;
  readonly #retryMaxDelayMs: number;
  readonly #statusIntervalMs: number;
  #condition: PrinterCondition = { ...UNKNOWN_CONDITION };
  #checkedAt: string | undefined;
  #state: PrinterStatus['state'] = 'idle';
  #lastError: string | undefined;
  #draining: Promise<void> | null = null;
  #retryTimer: TimerHandle | null = null;
  #statusTimer: TimerHandle | null = null;
  #consecutiveFailures = 0;
  #closed = false;
  readonly #outcomes = new Map<string, Array<(result: PrintResult) => void>>();
  readonly #drawerOpenWhen: DrawerOpenWhen;
  readonly #drawerSettleMs: number;
  /** Drawer kicks on their way, by job id: a second request for the same id joins the first. */
  readonly #drawerKicks = new Map<string, Promise<DrawerResult>>();
  /** One conversation with the printer at a time: most printers take a single connection. */
  #transportTurn: Promise<unknown> = Promise.resolve();

  constructor(options: QueuedPrinterOptions) {
    super();
    this.#transport = options.transport;
    this.#queue = options.queue;
    this.#clock = options.clock ?? systemClock;
    this.#escpos = options.escpos ?? {};
    this.#retryInitialDelayMs = options.retryInitialDelayMs ?? 2000;
    this.#retryMaxDelayMs = options.retryMaxDelayMs ?? 60_000;
    this.#statusIntervalMs = options.statusIntervalMs ?? 0;
    this.#drawerOpenWhen = options.drawerOpenWhen ?? 'low';
    this.#drawerSettleMs = options.drawerSettleMs ?? DRAWER_PULSE_ON_MS + DRAWER_PULSE_OFF_MS;
    this.name = this.#transport.description;
    // Jobs left from before a restart print first.
    if (this.#queue.size > 0 && options.resumeQueue !== false) void this.#kick();
    if (this.#statusIntervalMs > 0) this.#scheduleStatusPoll();
  }

  async print(document: ReceiptDocument, options: PrintOptions = {}): Promise<PrintResult> {
    return this.#enqueue(encodeReceipt(document, this.#escpos), options);
  }

  /**
   * Sends the drawer kick straight to the printer, after the job being sent (if any) and ahead
   * of the receipts still waiting. Never through the durable queue: a kick retried minutes
   * later would open the drawer when nobody may be at the till, so one that cannot be
   * delivered now rejects. A job id whose kick was delivered is not sent again, also after a
   * restart (the queue's journal remembers it).
   */
  async openDrawer(request: DrawerRequest): Promise<DrawerResult> {
    const { jobId } = request;
    const running = this.#drawerKicks.get(jobId);
    if (running !== undefined) return running;
    if (this.#queue.wasPrinted(drawerJournalId(jobId))) return { jobId, opened: true, drawer: this.#condition.drawer };
    if (this.#closed) throw new Error('Cash drawer did not open: the printer is closed');
    const kick = this.#exclusive(() => this.#kickDrawer(jobId)).finally(() => this.#drawerKicks.delete(jobId));
    this.#drawerKicks.set(jobId, kick);
    return kick;
  }

  /** Bytes as they went into the queue; exposed for tests and for the CLI's byte counts. */
  encode(document: ReceiptDocument): Uint8Array {
    return encodeReceipt(document, this.#escpos);
  }

  status(): PrinterStatus {
    const status: PrinterStatus = { printer: this.name, state: this.#state, queuedJobs: this.#queue.size, ...this.#condition };
    const problem = describeCondition(this.#condition) ?? (this.#state === 'offline' ? 'Printer is not reachable; receipts are kept and will print when it is back' : null);
    if (problem !== null) status.problem = problem;
    if (this.#lastError !== undefined) status.lastError = this.#lastError;
    if (this.#checkedAt !== undefined) status.checkedAt = this.#checkedAt;
    return status;
  }

  async refreshStatus(): Promise<PrinterStatus> {
    await this.#readCondition();
    this.#emitStatus();
    return this.status();
  }

  /** Attempts the queue now instead of waiting for the retry timer (e.g. paper was refilled). */
  async flush(): Promise<void> {
    this.#clearRetry();
    this.#consecutiveFailures = 0;
    await this.#kick();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#clearRetry();
    if (this.#statusTimer !== null) this.#clock.clearTimeout(this.#statusTimer);
    await this.#draining;
    await this.#transportTurn;
    await this.#transport.close();
  }

  /** Asks the device; false when it did not answer (the last known condition stays). */
  async #readCondition(): Promise<boolean> {
    const answers = await this.#transport.query([DLE_EOT_PRINTER, DLE_EOT_OFFLINE_CAUSE, DLE_EOT_PAPER]);
    if (answers === null) return false;
    const [printer = 0x12, offlineCause = 0x12, paper = 0x12] = answers;
    const offline = parseOfflineCause(offlineCause);
    const sensor = parsePaperSensor(paper);
    this.#condition = { ...parsePrinterStatus(printer, this.#drawerOpenWhen), ...offline, paperNearEnd: sensor.paperNearEnd, paperOut: offline.paperOut === true || sensor.paperOut === true };
    this.#checkedAt = new Date(this.#clock.now()).toISOString();
    return true;
  }

  async #kickDrawer(jobId: string): Promise<DrawerResult> {
    try {
      await this.#transport.send(encodeDrawerPulse(this.#escpos.drawerPin));
    } catch (error) {
      throw new Error(`Cash drawer did not open: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.#queue.rememberDelivered(drawerJournalId(jobId));
    if (this.#drawerSettleMs > 0) await new Promise<void>((resolve) => this.#clock.setTimeout(resolve, this.#drawerSettleMs));
    // Only a reading taken now speaks for the drawer; an older one predates the kick.
    const answered = await this.#readCondition();
    this.#emitStatus();
    return { jobId, opened: true, drawer: answered ? this.#condition.drawer : null };
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.#transportTurn.then(work);
    this.#transportTurn = turn.catch(() => undefined);
    return turn;
  }

  async #enqueue(bytes: Uint8Array, options: PrintOptions): Promise<PrintResult> {
    const jobId = options.jobId ?? randomUUID();
    const job = this.#queue.add({
      id: jobId,
      createdAt: new Date(this.#clock.now()).toISOString(),
      bytes: Buffer.from(bytes).toString('base64'),
      ...(options.label === undefined ? {} : { label: options.label }),
      ...(options.sensitive === true ? { sensitive: true } : {}),
    });
    if (job === null) return { jobId, state: 'printed' };
    const outcome = new Promise<PrintResult>((resolve) => {
      const waiters = this.#outcomes.get(jobId) ?? [];
      waiters.push(resolve);
      this.#outcomes.set(jobId, waiters);
    });
    this.#emitStatus();
    // While a retry is pending the printer is known to be down: answer at once, print later.
    if (this.#retryTimer !== null) this.#settle(jobId, { jobId, state: 'queued', error: this.#lastError ?? 'printer offline' });
    else void this.#kick();
    return outcome;
  }

  #kick(): Promise<void> {
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = null;
    });
    return this.#draining;
  }

  async #drain(): Promise<void> {
    for (;;) {
      if (this.#closed) return;
      const job = this.#queue.pending()[0];
      if (job === undefined) {
        this.#setState('idle');
        return;
      }
      this.#setState('printing');
      try {
        await this.#exclusive(() => this.#transport.send(Buffer.from(job.bytes, 'base64')));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.#queue.recordFailedAttempt(job.id, message);
        this.#lastError = message;
        this.#consecutiveFailures += 1;
        this.#setState('offline');
        this.emit('job', { jobId: job.id, state: 'retrying', attempts: job.attempts, error: message });
        // Everyone waiting learns their receipt is safe in the queue, not lost.
        for (const pending of this.#queue.pending()) this.#settle(pending.id, { jobId: pending.id, state: 'queued', error: message });
        void this.refreshStatus();
        this.#scheduleRetry();
        return;
      }
      this.#queue.markPrinted(job.id);
      this.#consecutiveFailures = 0;
      this.#lastError = undefined;
      this.emit('job', { jobId: job.id, state: 'printed', attempts: job.attempts + 1 });
      this.#settle(job.id, { jobId: job.id, state: 'printed' });
    }
  }

  #scheduleRetry(): void {
    this.#clearRetry();
    const delayMs = backoffDelayMs(this.#consecutiveFailures - 1, this.#retryInitialDelayMs, this.#retryMaxDelayMs);
    this.#retryTimer = this.#clock.setTimeout(() => {
      this.#retryTimer = null;
      void this.#kick();
    }, delayMs);
  }

  #clearRetry(): void {
    if (this.#retryTimer !== null) this.#clock.clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
  }

  #scheduleStatusPoll(): void {
    this.#statusTimer = this.#clock.setTimeout(() => {
      if (this.#closed) return;
      // Never ask in the middle of a job: the printer takes one connection (or one stream) at a time.
      if (this.#draining !== null || this.#drawerKicks.size > 0) {
        this.#scheduleStatusPoll();
        return;
      }
      void this.refreshStatus().finally(() => this.#scheduleStatusPoll());
    }, this.#statusIntervalMs);
  }

  #settle(jobId: string, result: PrintResult): void {
    const waiters = this.#outcomes.get(jobId);
    if (waiters === undefined) return;
    this.#outcomes.delete(jobId);
    for (const resolve of waiters) resolve(result);
  }

  #setState(state: PrinterStatus['state']): void {
    if (state === this.#state) return;
    this.#state = state;
    this.#emitStatus();
  }

  #emitStatus(): void {
    this.emit('status', this.status());
  }
}
