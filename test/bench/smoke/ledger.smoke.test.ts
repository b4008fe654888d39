// `npm run bench:ledger` as a short smoke (run.ts: what a smoke asserts; never a figure).
import { it } from 'node:test';
import { SMOKE_TIMEOUT_MS, assertRan, runBench } from './run.ts';

it('bench:ledger: transfers spread and on a hot account, ledger clean, ratios printed', { timeout: SMOKE_TIMEOUT_MS }, async () => {
  assertRan(await runBench('ledger.bench.ts', {}), [/ledger \(a\) spread over \d+ wallets: [\d.]+ x pgbench/, /ledger \(b\) one hot merchant account: +[\d.]+ x pgbench/, /ledger check after the bench: \d+ transfers, no violations/]);
});
