// `npm run bench:sync` as a short smoke (run.ts: what a smoke asserts; never a figure).
import { it } from 'node:test';
import { SMOKE_TIMEOUT_MS, assertRan, runBench } from './run.ts';

it('bench:sync: pushes, a catch-up and a reconnect storm settle with nothing declined, ledger clean', { timeout: SMOKE_TIMEOUT_MS }, async () => {
  const result = await runBench('sync.bench.ts', {
    BENCH_TERMINALS: '2',
    BENCH_BATCH: '5',
    BENCH_WALLETS: '20',
    BENCH_BACKLOG: '200',
    BENCH_FLEET: '6',
    BENCH_FLEET_QUEUE: '10',
    BENCH_FLEET_SPREAD_MS: '300',
  });
  assertRan(result, [
    /reconnect storm: 6 terminals with 10 queued each reconnecting within 300 ms: all 60 settled in [\d.]+ s .*declined 0/,
    /ledger check: \d+ transfers, no violations; offline payments accepted \d+, declined 0/,
    /PGlite catch-up: one terminal reconnecting with 200 queued payments/,
    /offline sync settlement: [\d.]+ x pgbench/,
  ]);
});
