// `npm run bench:pay` as a short smoke (run.ts: what a smoke asserts; never a figure).
import { it } from 'node:test';
import { SMOKE_TIMEOUT_MS, assertRan, runBench } from './run.ts';

it('bench:pay: every payment recorded, ledger clean, ratio printed', { timeout: SMOKE_TIMEOUT_MS }, async () => {
  assertRan(await runBench('pay.bench.ts', { BENCH_CONCURRENCY: '4' }), [/ledger check: \d+ transfers, no violations/, /[\d.]+ x pgbench/]);
});
