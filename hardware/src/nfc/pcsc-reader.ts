import { backoffDelayMs, systemClock } from '../clock.ts';
import type { Clock, TimerHandle } from '../clock.ts';
import { checkPcscd } from './pcscd.ts';
import type { PcscdCheck } from './pcscd.ts';
import { readingFromType2Memory, unsupported } from './interpret.ts';
import { NfcReaderBase } from './reader-base.ts';
import { forkWorker } from './worker-process.ts';
import type { WorkerHandle } from './worker-process.ts';
import { parseWorkerMessage } from './worker-protocol.ts';
import type { WorkerMessage } from './worker-protocol.ts';

export interface PcscNfcReaderOptions {
  clock?: Clock;
  debounceWindowMs?: number;
  /** Is there a PC/SC service? Default: look for the pcscd socket. */
  checkPcscd?: () => PcscdCheck;
  /** Starts the driver process. Default: fork pcsc-worker.ts. */
  spawnWorker?: () => WorkerHandle;
  restartInitialDelayMs?: number;
  restartMaxDelayMs?: number;
  /** Consecutive crashes after which the driver is left off ('failed'). */
  maxConsecutiveRestarts?: number;
  /** A driver that ran this long without crashing resets the crash count. */
  stableAfterMs?: number;
  /** How often to look for pcscd again while it is missing. */
  unavailableRecheckMs?: number;
  /** A driver silent for this long (no heartbeat) is considered hung and killed. */
  heartbeatTimeoutMs?: number;
  /** How long stop() waits for the driver to exit before killing it. */
  stopTimeoutMs?: number;
}

const DEFAULTS = {
  restartInitialDelayMs: 1000,
  restartMaxDelayMs: 30_000,
  maxConsecutiveRestarts: 20,
  stableAfterMs: 60_000,
  unavailableRecheckMs: 30_000,
  heartbeatTimeoutMs: 20_000,
  stopTimeoutMs: 2000,
};

/**
 * NFC over PC/SC (ACR122U and compatibles) with the native driver in a child process. The
 * process is restarted with exponential back-off when it dies or stops sending heartbeats;
 * while no pcscd runs, it is not started at all and the socket is checked again periodically.
 */
export class PcscNfcReader extends NfcReaderBase {
  readonly driver = 'pcsc' as const;
  readonly #options: typeof DEFAULTS;
  readonly #checkPcscd: () => PcscdCheck;
  readonly #spawnWorker: () => WorkerHandle;
  #worker: WorkerHandle | null = null;
  #workerStartedAt = 0;
  #consecutiveCrashes = 0;
  #expectingExit = false;
  #running = false;
  #retryTimer: TimerHandle | null = null;
  #watchdogTimer: TimerHandle | null = null;
  #exitWaiters: Array<() => void> = [];

  constructor(options: PcscNfcReaderOptions = {}) {
    super({ clock: options.clock ?? systemClock, ...(options.debounceWindowMs === undefined ? {} : { debounceWindowMs: options.debounceWindowMs }) });
    this.#options = { ...DEFAULTS, ...definedOnly(options) };
    this.#checkPcscd = options.checkPcscd ?? (() => checkPcscd());
    this.#spawnWorker = options.spawnWorker ?? (() => forkWorker());
  }

  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    this.#consecutiveCrashes = 0;
    this.#launch();
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#clearTimer('retry');
    this.#clearTimer('watchdog');
    const worker = this.#worker;
    if (worker !== null) {
      this.#expectingExit = true;
      const exited = new Promise<void>((resolve) => this.#exitWaiters.push(resolve));
      // The driver may have died already with its exit not heard yet (a loaded machine): telling
      // it to stop then fails, which is no error: its exit, on its way, ends the wait.
      try {
        worker.send({ type: 'stop' });
      } catch {
        killQuietly(worker);
      }
      const killTimer = this.clock.setTimeout(() => killQuietly(worker), this.#options.stopTimeoutMs);
      await exited;
      this.clock.clearTimeout(killTimer);
    }
    this.setState('stopped');
  }

  #launch(): void {
    if (!this.#running) return;
    const check = this.#checkPcscd();
    if (!check.available) {
      this.setState('unavailable', check.message);
      this.#schedule(this.#options.unavailableRecheckMs);
      return;
    }
    this.setState('starting');
    this.#expectingExit = false;
    this.#workerStartedAt = this.clock.now();
    const worker = this.#spawnWorker();
    this.#worker = worker;
    worker.onMessage((raw) => {
      if (this.#worker !== worker) return;
      const message = parseWorkerMessage(raw);
      if (message === null) {
        this.reportError(new Error('NFC driver sent a malformed message'));
        return;
      }
      this.#armWatchdog();
      this.#handle(message);
    });
    worker.onExit((code, signal) => {
      if (this.#worker === worker) this.#exited(code, signal);
    });
    this.#armWatchdog();
  }

  #handle(message: WorkerMessage): void {
    switch (message.type) {
      case 'ready':
        this.setState('ready');
        return;
      case 'heartbeat':
        return;
      case 'unavailable':
        // The driver found no service after all (it raced us, or nfc-pcsc is not installed).
        this.#expectingExit = true;
        this.setState('unavailable', message.reason);
        return;
      case 'attach':
        this.readerAttached(message.readerName);
        return;
      case 'detach':
        this.readerDetached(message.readerName);
        return;
      case 'type2':
        this.deliver(message.readerName, message.uid, readingFromType2Memory(Buffer.from(message.memoryHex, 'hex')));
        return;
      case 'unsupported':
        this.deliver(message.readerName, message.uid, unsupported(message.reason, message.detail));
        return;
      case 'error':
        this.reportError(new Error(`NFC driver: ${message.message}`));
        return;
    }
  }

  #exited(code: number | null, signal: string | null): void {
    this.#worker = null;
    this.#clearTimer('watchdog');
    const waiters = this.#exitWaiters;
    this.#exitWaiters = [];
    for (const resolve of waiters) resolve();
    if (!this.#running) return;
    if (this.#expectingExit) {
      // 'unavailable': look again later rather than restarting a driver that cannot work.
      this.#schedule(this.#options.unavailableRecheckMs);
      return;
    }
    if (this.clock.now() - this.#workerStartedAt >= this.#options.stableAfterMs) this.#consecutiveCrashes = 0;
    this.#consecutiveCrashes += 1;
    this.restarts += 1;
    const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
    if (this.#consecutiveCrashes > this.#options.maxConsecutiveRestarts) {
      this.setState('failed', `NFC driver crashed ${this.#consecutiveCrashes} times in a row (last: ${how}); restart the terminal to try again`);
      this.reportError(new Error('NFC driver keeps crashing; giving up'));
      return;
    }
    const delayMs = backoffDelayMs(this.#consecutiveCrashes - 1, this.#options.restartInitialDelayMs, this.#options.restartMaxDelayMs);
    this.setState('restarting', `NFC driver stopped (${how}); restarting in ${delayMs} ms`);
    this.#schedule(delayMs);
  }

  #schedule(delayMs: number): void {
    this.#clearTimer('retry');
    this.#retryTimer = this.clock.setTimeout(() => {
      this.#retryTimer = null;
      this.#launch();
    }, delayMs);
  }

  #armWatchdog(): void {
    this.#clearTimer('watchdog');
    const worker = this.#worker;
    if (worker === null) return;
    this.#watchdogTimer = this.clock.setTimeout(() => {
      this.#watchdogTimer = null;
      if (this.#worker !== worker) return;
      this.reportError(new Error(`NFC driver sent nothing for ${this.#options.heartbeatTimeoutMs} ms; killing it`));
      killQuietly(worker);
    }, this.#options.heartbeatTimeoutMs);
  }

  #clearTimer(which: 'retry' | 'watchdog'): void {
    const timer = which === 'retry' ? this.#retryTimer : this.#watchdogTimer;
    if (timer !== null) this.clock.clearTimeout(timer);
    if (which === 'retry') this.#retryTimer = null;
    else this.#watchdogTimer = null;
  }
}

/** Kills a driver process; one that is gone already is no error (its exit is reported apart). */
function killQuietly(worker: WorkerHandle): void {
  try {
    worker.kill();
  } catch {
    // Dead already.
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => typeof entry === 'number')) as Partial<T>;
}
