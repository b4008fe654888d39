// `npm run bench:pos` as a short smoke (run.ts: what a smoke asserts; never a figure).
import { it } from 'node:test';
import { SMOKE_TIMEOUT_MS, assertRan, runBench } from './run.ts';

it('bench:pos on one and two instances: every tap completed, ledger clean, growth printed', { timeout: SMOKE_TIMEOUT_MS }, async () => {
  const result = await runBench('pos.bench.ts', { BENCH_WALLETS: '20', BENCH_SALES_CONCURRENCY: '4', BENCH_INSTANCES: '1,2' });
  assertRan(result, [
    /ledger check: \d+ transfers, no violations; sessions completed \d+, not completed 0; failed taps 0/,
    /pos taps \(1 instance\): [\d.]+ x pgbench/,
    /pos taps \(2 instances\): [\d.]+ x pgbench/,
    /2 instances: \d+ taps\/s, [\d.]+ x pgbench, [\d.]+x the 1-instance ratio/,
  ]);
});
