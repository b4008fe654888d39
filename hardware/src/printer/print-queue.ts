import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The durable print queue: a JSON-lines journal in a directory of our choosing. A job is
 * journalled before it is sent and marked done only after the transport confirmed delivery, so
 * a crash, a power cut or an offline printer never loses a receipt. Each line is one operation;
 * a torn last line (power cut mid-write) is ignored on load.
 */

export interface QueuedJob {
  id: string;
  createdAt: string;
  /** ESC/POS bytes, base64. */
  bytes: string;
  attempts: number;
  lastError?: string;
  /** What the job is, for status screens ("sale R-00123"). */
  label?: string;
  /** The bytes carry a secret: forgotten from the journal as soon as the job printed. */
  sensitive?: boolean;
}

type JournalEntry =
  | { op: 'add'; job: QueuedJob }
  | { op: 'attempt'; id: string; error: string }
  | { op: 'done'; id: string };

export class PrintQueueFullError extends Error {
  readonly code = 'print_queue_full';
  constructor(limit: number) {
    super(`The print queue already holds ${limit} jobs; fix the printer before printing more`);
    this.name = 'PrintQueueFullError';
  }
}

export interface PrintQueueOptions {
  directory: string;
  fileName?: string;
  /** Jobs waiting at once; beyond this, print() refuses instead of dropping anything. */
  maxPendingJobs?: number;
  /** Ids of printed jobs remembered, so a resubmitted job id is not printed twice. */
  rememberPrintedJobs?: number;
  /** Journal lines after which the file is rewritten with only what still matters. */
  compactAfterLines?: number;
}

const JOB_BYTES_MAX = 4 * 1024 * 1024;

export class DurablePrintQueue {
  readonly path: string;
  readonly #options: Required<PrintQueueOptions>;
  readonly #pending = new Map<string, QueuedJob>();
  readonly #printed = new Set<string>();
  #lines = 0;

  constructor(options: PrintQueueOptions) {
    this.#options = { fileName: 'print-queue.jsonl', maxPendingJobs: 200, rememberPrintedJobs: 1000, compactAfterLines: 2000, ...options };
    mkdirSync(this.#options.directory, { recursive: true });
    this.path = join(this.#options.directory, this.#options.fileName);
    this.#load();
  }

  /** Pending jobs, oldest first: receipts print in the order they were taken. */
  pending(): QueuedJob[] {
    return [...this.#pending.values()];
  }

  get size(): number {
    return this.#pending.size;
  }

  wasPrinted(id: string): boolean {
    return this.#printed.has(id);
  }

  /**
   * Journals a job. Adding an id that is already queued returns the queued job; an id already
   * printed returns null (the caller reports it as printed, and nothing prints twice).
   */
  add(job: Omit<QueuedJob, 'attempts'>): QueuedJob | null {
    if (this.#printed.has(job.id)) return null;
    const existing = this.#pending.get(job.id);
    if (existing !== undefined) return existing;
    if (this.#pending.size >= this.#options.maxPendingJobs) throw new PrintQueueFullError(this.#options.maxPendingJobs);
    if (job.bytes.length > (JOB_BYTES_MAX * 4) / 3 + 4) throw new Error('Print job larger than 4 MiB');
    const queued: QueuedJob = { ...job, attempts: 0 };
    this.#append({ op: 'add', job: queued });
    this.#pending.set(queued.id, queued);
    return queued;
  }

  recordFailedAttempt(id: string, error: string): void {
    const job = this.#pending.get(id);
    if (job === undefined) return;
    const message = error.slice(0, 500);
    this.#append({ op: 'attempt', id, error: message });
    job.attempts += 1;
    job.lastError = message;
  }

  markPrinted(id: string): void {
    const job = this.#pending.get(id);
    if (job === undefined) return;
    this.#append({ op: 'done', id });
    this.#pending.delete(id);
    this.#remember(id);
    // A secret (a gift card's code) must not wait on disk for the next compaction.
    if (job.sensitive === true || this.#lines >= this.#options.compactAfterLines) this.compact();
  }

  /**
   * Remembers the id of something sent straight to the printer instead of through the queue (a
   * drawer kick, which must never wait to fire later): wasPrinted(id) is true from now on, also
   * after a restart, so the same id is not sent twice.
   */
  rememberDelivered(id: string): void {
    if (this.#printed.has(id)) return;
    this.#append({ op: 'done', id });
    this.#remember(id);
    if (this.#lines >= this.#options.compactAfterLines) this.compact();
  }

  /** Rewrites the journal with pending jobs and remembered printed ids, atomically (rename). */
  compact(): void {
    const entries: JournalEntry[] = [];
    for (const id of this.#printed) entries.push({ op: 'done', id });
    for (const job of this.#pending.values()) entries.push({ op: 'add', job });
    const temporary = `${this.path}.tmp`;
    const fd = openSync(temporary, 'w');
    try {
      writeSync(fd, entries.map((entry) => JSON.stringify(entry)).join('\n') + (entries.length > 0 ? '\n' : ''));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, this.path);
    this.#lines = entries.length;
  }

  #load(): void {
    if (!existsSync(this.path)) return;
    for (const line of readFileSync(this.path, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      this.#lines += 1;
      let entry: JournalEntry;
      try {
        entry = JSON.parse(line) as JournalEntry;
      } catch {
        continue;
      }
      if (entry.op === 'add' && typeof entry.job?.id === 'string') {
        if (!this.#printed.has(entry.job.id)) this.#pending.set(entry.job.id, { ...entry.job });
      } else if (entry.op === 'attempt') {
        const job = this.#pending.get(entry.id);
        if (job !== undefined) {
          job.attempts += 1;
          job.lastError = entry.error;
        }
      } else if (entry.op === 'done') {
        this.#pending.delete(entry.id);
        this.#remember(entry.id);
      }
    }
  }

  #remember(id: string): void {
    this.#printed.delete(id);
    this.#printed.add(id);
    for (const oldest of this.#printed) {
      if (this.#printed.size <= this.#options.rememberPrintedJobs) break;
      this.#printed.delete(oldest);
    }
  }

  #append(entry: JournalEntry): void {
    const fd = openSync(this.path, 'a');
    try {
      writeSync(fd, `${JSON.stringify(entry)}\n`);
      // The whole point of the journal is surviving a power cut: flush before we act on it.
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.#lines += 1;
  }
}
