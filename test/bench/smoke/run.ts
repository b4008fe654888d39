// What the benches' smokes share (test/bench/smoke/*.smoke.test.ts): every `npm run bench:*` as a
// short smoke in the test run, tiny sizes, one-second pgbench runs, one file per bench so the
// test runner spreads them over its lanes. What is asserted is what each bench proves at its end
// (money conserved, ledger check clean, nothing declined, exactly once at the fakes) and that it
// prints its ratio to pgbench: never a duration or a ratio's value, since CI runs loaded (README,
// Benchmarks).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { postgresBaseUrl } from '@tapline/sync-server/testing';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Runs one bench script to its end; answers its exit code and everything it printed. */
export function runBench(script: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<{ code: number | null; output: string }> {
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

export function assertRan(result: { code: number | null; output: string }, patterns: RegExp[]): void {
  assert.equal(result.code, 0, `the bench failed:\n${result.output}`);
  for (const pattern of patterns) assert.match(result.output, pattern, `expected ${pattern} in:\n${result.output}`);
}

/** A bench smoke's ceiling: generous, since CI runs loaded; the test runner has its own per file. */
export const SMOKE_TIMEOUT_MS = 600_000;
