import { EventEmitter } from 'node:events';
import { type Clock, type DrawerRequest, type DrawerResult, type PrintOptions, type PrintResult, type PrinterStatus, type ReceiptDocument, type ReceiptPrinter, type ReceiptPrinterEvents, type TimerHandle, PrintQueueFullError, UNKNOWN_CONDITION, backoffDelayMs, systemClock } from '@tapline/hardware';
import type { ElectronLike } from './electron-like.ts';
import { type UtilityChild, forkUtilityProcess } from './utility-process.ts';
import { type PrinterParentMessage, type PrinterWorkerMessage, parsePrinterWorkerMessage } from './printer-protocol.ts';

/** The printer's utility process as the main process sees it (Electron's, or a Node child in tests). */
export type PrinterProcess = UtilityChild<PrinterParentMessage>;

export interface UtilityPrinterOptions {
  /** Starts dist/main/printer-worker.js (utilityPrinterProcess() in the app). */
  spawn: () => PrinterProcess;
  clock?: Clock;
  log?: (line: string) => void;
  /** Restart back-off: 1 s doubling to 30 s; reset once a process has lived a minute. */
  restartInitialDelayMs?: number;
  restartMaxDelayMs?: number;
  stableAfterMs?: number;
  /** A call with no answer by then fails (the job may still print: the queue keeps it). Default 60 s. */
  callTimeoutMs?: number;
  /** close() kills a process that has not left by then. Default 5 s. */
  stopTimeoutMs?: number;
}

interface PendingCall {
  message: Extract<PrinterParentMessage, { type: 'call' }>;
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: TimerHandle;
  sent: boolean;
}

/**
 * The receipt printer for the Electron main process: a ReceiptPrinter whose calls run in the
 * printer's utility process (printer-worker.ts) and whose events come back from it. When that
 * process dies it is started again with back-off (1 s doubling to 30 s), like the PC/SC driver;
 * calls made while it restarts wait for it (up to the call timeout), calls it was answering when
 * it died fail with a sentence, and status() says it is restarting. BridgeHost (hardware-ipc.ts)
 * validates what the page sends before any of it reaches here.
 */
export class UtilityPrinter extends EventEmitter<ReceiptPrinterEvents> implements ReceiptPrinter {
  name = 'printer process';
  /** How many times the process was started again after dying. */
  restarts = 0;
  readonly #options: Required<Omit<UtilityPrinterOptions, 'spawn' | 'clock' | 'log'>>;
  readonly #spawn: () => PrinterProcess;
  readonly #clock: Clock;
  readonly #log: (line: string) => void;
  readonly #pending = new Map<number, PendingCall>();
  #process: PrinterProcess | null = null;
  #ready = false;
  #startedAt = 0;
  #crashes = 0;
  #restartTimer: TimerHandle | null = null;
  #closed = false;
  #nextId = 1;
  #status: PrinterStatus = { ...UNKNOWN_CONDITION, printer: 'printer process', state: 'offline', queuedJobs: 0, problem: 'The printer is starting' };
  #exited: Promise<void> = Promise.resolve();

  constructor(options: UtilityPrinterOptions) {
    super();
    this.#spawn = options.spawn;
    this.#clock = options.clock ?? systemClock;
    this.#log = options.log ?? ((line) => console.log(line));
    this.#options = {
      restartInitialDelayMs: options.restartInitialDelayMs ?? 1000,
      restartMaxDelayMs: options.restartMaxDelayMs ?? 30_000,
      stableAfterMs: options.stableAfterMs ?? 60_000,
      callTimeoutMs: options.callTimeoutMs ?? 60_000,
      stopTimeoutMs: options.stopTimeoutMs ?? 5000,
    };
    this.#start();
  }

  print(document: ReceiptDocument, options: PrintOptions = {}): Promise<PrintResult> {
    return this.#call({ method: 'print', document, options }) as Promise<PrintResult>;
  }

  /**
   * The kick runs in the printer's process like a print. A call that times out here may still
   * kick when that process gets to it: the caller's retry with the same job id does not kick twice.
   */
  openDrawer(request: DrawerRequest): Promise<DrawerResult> {
    return this.#call({ method: 'openDrawer', request: { reason: request.reason, jobId: request.jobId } }) as Promise<DrawerResult>;
  }

  status(): PrinterStatus {
    return this.#status;
  }

  async refreshStatus(): Promise<PrinterStatus> {
    if (!this.#ready) return this.#status;
    return (await this.#call({ method: 'refreshStatus' })) as PrinterStatus;
  }

  async close(): Promise<void> {
    if (this.#closed) return this.#exited;
    this.#closed = true;
    if (this.#restartTimer !== null) this.#clock.clearTimeout(this.#restartTimer);
    for (const [id, call] of this.#pending) this.#settle(id, () => call.reject(new Error('the printer is closing')));
    const child = this.#process;
    if (child === null) return;
    // The process closes its queue and transport and leaves; one that does not is killed.
    const timer = this.#clock.setTimeout(() => child.kill(), this.#options.stopTimeoutMs);
    child.postMessage({ type: 'stop' });
    await this.#exited;
    this.#clock.clearTimeout(timer);
  }

  #start(): void {
    this.#ready = false;
    let child: PrinterProcess;
    try {
      child = this.#spawn();
    } catch (error) {
      this.#log(`kiosk: the printer process could not start: ${(error as Error).message}`);
      this.#scheduleRestart(`could not start: ${(error as Error).message}`);
      return;
    }
    this.#process = child;
    this.#startedAt = this.#clock.now();
    let exit: () => void = () => undefined;
    this.#exited = new Promise<void>((resolve) => (exit = resolve));
    child.onMessage((raw) => {
      if (this.#process !== child) return;
      const message = parsePrinterWorkerMessage(raw);
      if (message === null) this.#log('kiosk: ignored a malformed message from the printer process');
      else this.#receive(message);
    });
    child.onExit((code) => {
      exit();
      if (this.#process !== child) return;
      this.#process = null;
      this.#ready = false;
      // Calls it had taken die with it; calls not yet sent wait for the next process.
      // A receipt is in the durable queue and prints later; a drawer kick is never queued, so the
      // cashier must know it may not have happened.
      const after = (call: PendingCall) => (call.message.method === 'openDrawer' ? 'the cash drawer may not have opened' : 'a queued receipt prints when it is back');
      for (const [id, call] of this.#pending) if (call.sent) this.#settle(id, () => call.reject(new Error(`the printer process stopped (exit code ${code}) before answering; ${after(call)}`)));
      if (this.#closed) return;
      this.#scheduleRestart(`exit code ${code}`);
    });
  }

  #scheduleRestart(why: string): void {
    if (this.#clock.now() - this.#startedAt >= this.#options.stableAfterMs) this.#crashes = 0;
    const delayMs = backoffDelayMs(this.#crashes, this.#options.restartInitialDelayMs, this.#options.restartMaxDelayMs);
    this.#crashes += 1;
    this.#log(`kiosk: the printer process stopped (${why}); starting it again in ${delayMs} ms`);
    this.#setStatus({ ...this.#status, state: 'offline', problem: 'The printer is restarting', lastError: `printer process stopped (${why})` });
    this.#restartTimer = this.#clock.setTimeout(() => {
      this.#restartTimer = null;
      if (this.#closed) return;
      this.restarts += 1;
      this.#start();
    }, delayMs);
  }

  #receive(message: PrinterWorkerMessage): void {
    switch (message.type) {
      case 'ready':
        this.name = message.name;
        this.#ready = true;
        this.#setStatus(message.status);
        for (const call of this.#pending.values()) if (!call.sent) this.#send(call);
        return;
      case 'status':
        this.#setStatus(message.status);
        return;
      case 'job':
        this.emit('job', message.event);
        return;
      case 'answer': {
        const call = this.#pending.get(message.id);
        if (call === undefined) return;
        if (message.ok) this.#settle(message.id, () => call.resolve(message.result));
        else if (message.code === 'print_queue_full') this.#settle(message.id, () => call.reject(Object.assign(new PrintQueueFullError(0), { message: message.message })));
        else this.#settle(message.id, () => call.reject(new Error(message.message)));
      }
    }
  }

  #setStatus(status: PrinterStatus): void {
    this.#status = status;
    this.emit('status', status);
  }

  #call(body: { method: 'print'; document: ReceiptDocument; options: PrintOptions } | { method: 'openDrawer'; request: DrawerRequest } | { method: 'refreshStatus' }): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error('the printer is closed'));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = this.#clock.setTimeout(() => this.#settle(id, () => reject(new Error(`the printer process did not answer within ${this.#options.callTimeoutMs} ms`))), this.#options.callTimeoutMs);
      const call: PendingCall = { message: { type: 'call', id, ...body } as PendingCall['message'], resolve, reject, timer, sent: false };
      this.#pending.set(id, call);
      if (this.#ready) this.#send(call);
    });
  }

  #send(call: PendingCall): void {
    call.sent = true;
    this.#process?.postMessage(call.message);
  }

  #settle(id: number, settle: () => void): void {
    const call = this.#pending.get(id);
    if (call === undefined) return;
    this.#pending.delete(id);
    this.#clock.clearTimeout(call.timer);
    settle();
  }
}

/** dist/main/printer-worker.js as an Electron utility process, with the host's printer settings. */
export function utilityPrinterProcess(utilityProcess: ElectronLike['utilityProcess'], modulePath: string, env: NodeJS.ProcessEnv): PrinterProcess {
  return forkUtilityProcess<PrinterParentMessage>(utilityProcess, modulePath, 'Tapline printer', env);
}
