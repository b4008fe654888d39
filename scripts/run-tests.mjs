#!/usr/bin/env node
// Runs every *.test.ts of the workspaces in one node:test run, so CI reads one summary.
// Usage: node scripts/run-tests.mjs [--tier=unit|db|e2e ...] [path-filter ...]
// (tiers: scripts/test-tiers.mjs; none named: every tier).
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { availableParallelism } from 'node:os';
import { TIERS, tierOf } from './test-tiers.mjs';

const root = new URL('..', import.meta.url).pathname;
const roots = ['shared/src', 'hardware/src', 'sync-server/src', 'terminal/src', 'web/src', 'sdk', 'test'];
const skipDirs = new Set(['node_modules', 'dist', 'test-artifacts', '.vite']);

function collect(dir, out) {
  let entries;
  try { entries = readdirSync(dir); } catch { return out; }
  for (const name of entries) {
    if (skipDirs.has(name)) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) collect(full, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, full));
  }
  return out;
}

const args = process.argv.slice(2);
const tiers = args.filter((arg) => arg.startsWith('--tier=')).map((arg) => arg.slice('--tier='.length));
for (const tier of tiers) {
  if (!TIERS.includes(tier)) {
    console.error(`unknown tier ${tier}: one of ${TIERS.join(', ')}`);
    process.exit(2);
  }
}
const filters = args.filter((arg) => !arg.startsWith('--tier='));
const files = roots
  .flatMap((r) => collect(join(root, r), []))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .filter((f) => tiers.length === 0 || tiers.includes(tierOf(f, readFileSync(join(root, f), 'utf8'))))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// The front ends the tests load (the server's pages and drop-in, the dashboard), built once here
// when their sources changed rather than by test files racing each other. Unit tests load none.
const built = tiers.length === 1 && tiers[0] === 'unit' ? { status: 0 } : spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-front-ends.ts'], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
const concurrency = process.env.TEST_CONCURRENCY ?? String(Math.max(2, availableParallelism()));
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: 'test' },
});
process.exit(result.status ?? 1);
