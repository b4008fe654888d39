// Every `npm run bench:*` as a short smoke in the test run: tiny sizes, one-second pgbench runs.
// What is asserted is what each bench proves at its end (money conserved, ledger check clean,
// nothing declined, exactly once at the fakes) and that it prints its ratio to pgbench: never a
// duration or a ratio's value, since CI runs loaded (README, Benchmarks).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { postgresBaseUrl } from '@tapline/sync-server/testing';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs one bench script to its end; answers its exit code and everything it printed. */
function runBench(script: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // A bench that is itself a node:test file must report as a program of its own, not to this run.
    const { NODE_TEST_CONTEXT: _ignored, ...inherited } = process.env;
    const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', `test/bench/${script}`], {
      cwd: root,
      env: { ...inherited, BENCH_DATABASE_URL: postgresBaseUrl(), BENCH_SECONDS: '1', BENCH_CLIENTS: '2', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

function assertRan(result: { code: number | null; output: string }, patterns: RegExp[]): void {
  assert.equal(result.code, 0, `the bench failed:\n${result.output}`);
  for (const pattern of patterns) assert.match(result.output, pattern, `expected ${pattern} in:\n${result.output}`);
}

describe('benches, as short smokes (figures not asserted)', { timeout: 600_000 }, () => {
  it('bench:ledger: transfers spread and on a hot account, ledger clean, ratios printed', async () => {
    assertRan(await runBench('ledger.bench.ts', {}), [/ledger \(a\) spread over \d+ wallets: [\d.]+ x pgbench/, /ledger \(b\) one hot merchant account: +[\d.]+ x pgbench/, /ledger check after the bench: \d+ transfers, no violations/]);
  });

  it('bench:pos on one and two instances: every tap completed, ledger clean, growth printed', async () => {
    const result = await runBench('pos.bench.ts', { BENCH_WALLETS: '20', BENCH_SALES_CONCURRENCY: '4', BENCH_INSTANCES: '1,2' });
    assertRan(result, [
      /ledger check: \d+ transfers, no violations; sessions completed \d+, not completed 0; failed taps 0/,
      /pos taps \(1 instance\): [\d.]+ x pgbench/,
      /pos taps \(2 instances\): [\d.]+ x pgbench/,
      /2 instances: \d+ taps\/s, [\d.]+ x pgbench, [\d.]+x the 1-instance ratio/,
    ]);
  });

  it('bench:pay: every payment recorded, ledger clean, ratio printed', async () => {
    assertRan(await runBench('pay.bench.ts', { BENCH_CONCURRENCY: '4' }), [/ledger check: \d+ transfers, no violations/, /[\d.]+ x pgbench/]);
  });

  it('bench:sync: pushes, a catch-up and a reconnect storm settle with nothing declined, ledger clean', async () => {
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

  it('bench:rails: every payout final and paid exactly once at its fake, ledger clean', async () => {
    assertRan(await runBench('rails.bench.ts', { BENCH_PAYOUTS: '40', BENCH_CONCURRENCY: '4' }), [/correctness: every payout completed, each paid exactly once at its provider, ledger clean {2}PASS/]);
  });

  it('bench:catalogue: a small catalogue reaches a kiosk on both databases', async () => {
    const result = await runBench('catalogue.bench.ts', { BENCH_PRODUCTS: '200' }, ['--test-reporter=spec']);
    assertRan(result, [/pass [1-9]/, /fail 0/]);
  });
});
