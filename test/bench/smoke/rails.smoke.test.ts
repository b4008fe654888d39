// `npm run bench:rails` as a short smoke (run.ts: what a smoke asserts; never a figure).
import { it } from 'node:test';
import { SMOKE_TIMEOUT_MS, assertRan, runBench } from './run.ts';

it('bench:rails: every payout final and paid exactly once at its fake, ledger clean', { timeout: SMOKE_TIMEOUT_MS }, async () => {
  assertRan(await runBench('rails.bench.ts', { BENCH_PAYOUTS: '40', BENCH_CONCURRENCY: '4' }), [/correctness: every payout completed, each paid exactly once at its provider, ledger clean {2}PASS/]);
});
