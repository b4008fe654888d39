import { isDatabaseUnavailable } from './database.ts';

/**
 * Smart batching of one statement over many requests' rows. A row submitted while fewer than
 * `maxInFlight` batches are running goes at once, alone (no timer: a quiet server adds no
 * latency); rows submitted while the batches are busy wait and go together in the next one. Under
 * load, the rows of many concurrent requests then cost a few statements instead of one each:
 * fewer round trips, commits and socket writes (the Idempotency-Key records of every POS sale
 * took 4 statements a sale, the largest cost an Idempotency-Key added).
 *
 * `run` answers one result per row, in the order given. A batch of several rows the database
 * refuses is run again one row at a time, so a row it refuses fails alone and its neighbours go
 * through; a row that fails on its own gets its error (the callers retry their own row, as they
 * would have without batching). When the database cannot be reached at all, every row of the
 * batch fails at once with that error (503 for each request, not one connection timeout after the
 * other). Rows with the same `conflictKey` never go in one batch: a statement cannot insert or
 * update one row twice (ON CONFLICT refuses it), so the later row waits for the next batch, which
 * sees the earlier one's effect.
 */
export interface BatcherOptions<Item> {
  maxBatch: number;
  maxInFlight: number;
  conflictKey?: (item: Item) => string;
}

interface Waiting<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

export class StatementBatcher<Item, Result> {
  private waiting: Waiting<Item, Result>[] = [];
  private running = 0;

  constructor(
    private readonly run: (items: readonly Item[]) => Promise<readonly Result[]>,
    private readonly options: BatcherOptions<Item>,
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.options.maxInFlight && this.waiting.length > 0) {
      const batch = this.takeBatch();
      this.running++;
      this.send(batch).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  /** The oldest rows, up to maxBatch, at most one per conflict key; the rest keep their order. */
  private takeBatch(): Waiting<Item, Result>[] {
    const { conflictKey, maxBatch } = this.options;
    if (!conflictKey) return this.waiting.splice(0, maxBatch);
    const batch: Waiting<Item, Result>[] = [];
    const keys = new Set<string>();
    const left: Waiting<Item, Result>[] = [];
    for (const entry of this.waiting) {
      const key = conflictKey(entry.item);
      if (batch.length < maxBatch && !keys.has(key)) {
        keys.add(key);
        batch.push(entry);
      } else left.push(entry);
    }
    this.waiting = left;
    return batch;
  }

  private async send(batch: readonly Waiting<Item, Result>[]): Promise<void> {
    try {
      const results = await this.run(batch.map((entry) => entry.item));
      if (results.length !== batch.length) throw new Error(`a batch of ${batch.length} answered ${results.length} results`);
      batch.forEach((entry, index) => entry.resolve(results[index]!));
    } catch (error) {
      if (batch.length === 1 || isDatabaseUnavailable(error)) for (const entry of batch) entry.reject(error);
      else for (const entry of batch) await this.send([entry]);
    }
  }
}
