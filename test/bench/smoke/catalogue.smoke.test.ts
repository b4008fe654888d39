// `npm run bench:catalogue` as a short smoke (run.ts: what a smoke asserts; never a figure).
import { it } from 'node:test';
import { SMOKE_TIMEOUT_MS, assertRan, runBench } from './run.ts';

it('bench:catalogue: a small catalogue reaches a kiosk on both databases', { timeout: SMOKE_TIMEOUT_MS }, async () => {
  const result = await runBench('catalogue.bench.ts', { BENCH_PRODUCTS: '200' }, ['--test-reporter=spec']);
  assertRan(result, [/pass [1-9]/, /fail 0/]);
});
