#!/usr/bin/env node
// Runs the workspaces' *.test.ts files, each in a node:test process of its own, a few at a time,
// and ends with one summary (counts, failures, skips, the slowest files).
// Usage: node scripts/run-tests.mjs [--tier=unit|db|e2e ...] [path-filter ...]
// (tiers: scripts/test-tiers.mjs; none named: every tier).
//
// Why not one `node --test` over every file: a file whose process never exits (a socket left
// reconnecting, a child process left running) kept that run waiting until CI's own limit, with
// nothing said about which file. Here every file has a ceiling (TEST_FILE_TIMEOUT_S, 1800 s by
// default; the crash tests of test/rails take 5 to 15 minutes on a loaded machine): past it the file's process group is killed and the file fails, named, with what it
// printed. A file's output is printed whole when it ends, so files running side by side never
// interleave their lines.
//
// A file that fails is run once more (TEST_RETRIES, 1 by default; 0 for none): CI runs loaded, and
// a test that depends on timing it should not depend on is a defect to fix, not a reason to lose a
// whole run. It is never hidden: the summary lists it as flaky, with its first failure, and a
// file that fails every time fails the run.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { availableParallelism } from 'node:os';
import { TIERS, tierOf } from './test-tiers.mjs';

const root = new URL('..', import.meta.url).pathname;
const roots = ['shared/src', 'hardware/src', 'sync-server/src', 'terminal/src', 'web/src', 'sdk', 'test'];
const skipDirs = new Set(['node_modules', 'dist', 'test-artifacts', '.vite']);
/** Where the last run's durations are kept, to start the slowest files first next time. */
const DURATIONS_FILE = join(root, 'test-artifacts', 'test-durations.json');

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

function positiveNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return value;
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
const tierOfFile = new Map();
const files = roots
  .flatMap((r) => collect(join(root, r), []))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .filter((f) => {
    const tier = tierOf(f, readFileSync(join(root, f), 'utf8'));
    tierOfFile.set(f, tier);
    return tiers.length === 0 || tiers.includes(tier);
  });
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const concurrency = Math.floor(positiveNumber('TEST_CONCURRENCY', Math.max(2, availableParallelism())));
const fileCeilingMs = positiveNumber('TEST_FILE_TIMEOUT_S', 1800) * 1000;
// The chaos, failover and backup runs (see `alone` below).
const ALONE = /(^|\/)(failover|chaos|backup)\//;
const retries = process.env.TEST_RETRIES === '0' ? 0 : Math.floor(positiveNumber('TEST_RETRIES', 1));

// The slowest files first, so the run does not end waiting on one long file started last: by the
// last run's durations where this checkout has them, else e2e before db before unit.
let known = {};
try { known = JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')); } catch { /* first run here */ }
const TIER_GUESS_MS = { e2e: 30_000, db: 8_000, unit: 1_000 };
// Known long ones (the benches' smokes, the crash-and-restart tests of test/rails: 5 to 11 minutes) start first.
const HEAVY = /(^|\/)(failover|chaos|backup|bench)\/|restart\.test\.ts$/;
const expectedMs = (file) => known[file] ?? (HEAVY.test(file) ? 90_000 : TIER_GUESS_MS[tierOfFile.get(file)] ?? 1_000);
files.sort((a, b) => expectedMs(b) - expectedMs(a) || a.localeCompare(b));

// The front ends the tests load (the server's pages and drop-in, the dashboard), built once here
// when their sources changed rather than by test files racing each other. Unit tests load none.
if (!(tiers.length === 1 && tiers[0] === 'unit')) {
  const built = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-front-ends.ts'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];
const began = Date.now();
const results = [];
const running = new Map();

/** Runs one file in its own process group; resolves with its output, counts and verdict. */
function runFile(file) {
  // The clusters' runs (ALONE below) get twice the ceiling: they are long by nature.
  const ceilingMs = ALONE.test(file) ? 2 * fileCeilingMs : fileCeilingMs;
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', file], {
      cwd: root,
      env: { ...process.env, NODE_ENV: 'test', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    let killedFor;
    const killGroup = (signal) => {
      try { process.kill(-child.pid, signal); } catch { /* already gone */ }
    };
    const ceiling = setTimeout(() => {
      killedFor = `still running after ${Math.round(ceilingMs / 1000)} s (TEST_FILE_TIMEOUT_S): killed. A test that never ends, or a handle (socket, timer, child process) left open after the last test, keeps a file's process alive.`;
      killGroup('SIGTERM');
      setTimeout(() => killGroup('SIGKILL'), 5_000).unref();
    }, ceilingMs);
    running.set(file, { started, kill: () => killGroup('SIGKILL') });
    child.on('close', (code, signal) => {
      clearTimeout(ceiling);
      running.delete(file);
      // Whatever the file started in its group (servers, browsers) goes with it.
      killGroup('SIGKILL');
      const output = Buffer.concat(chunks).toString('utf8');
      const counts = {};
      for (const name of COUNTS) {
        const match = new RegExp(`^ℹ ${name} (\\d+)$`, 'm').exec(output);
        counts[name] = match ? Number(match[1]) : 0;
      }
      const failed = killedFor !== undefined || code !== 0 || counts.fail > 0 || counts.cancelled > 0;
      resolve({ file, ms: Date.now() - started, output, counts, failed, killedAtCeiling: killedFor !== undefined, why: killedFor ?? (code !== 0 ? `exit ${code ?? signal}` : undefined) });
    });
  });
}

// Says which files are taking long, so a slow or stuck run shows where it is.
const watchdog = setInterval(() => {
  const slow = [...running].filter(([, each]) => Date.now() - each.started > 120_000);
  if (slow.length > 0) console.log(`# still running: ${slow.map(([file, each]) => `${file} (${Math.round((Date.now() - each.started) / 1000)} s)`).join(', ')}`);
}, 60_000);
watchdog.unref();

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const each of running.values()) each.kill();
    process.exit(130);
  });
}

/** Runs a file, once more if it fails (TEST_RETRIES), and prints its output whole. */
async function runAndReport(file) {
  let result = await runFile(file);
  // A file killed at its ceiling is not run again: twice its ceiling would be spent to learn the
  // same (a crash test that outgrows it, or a hang), and could push CI past its own limit.
  for (let attempt = 1; result.failed && !result.killedAtCeiling && attempt <= retries; attempt++) {
    process.stdout.write(`\n# ── ✖ ${file} failed (${(result.ms / 1000).toFixed(1)} s${result.why ? `; ${result.why}` : ''}): its output, then a run again (${attempt} of ${retries})\n${result.output}\n`);
    const again = await runFile(file);
    again.earlierFailures = [...(result.earlierFailures ?? []), result];
    result = again;
  }
  results.push(result);
  const header = `${result.failed ? '✖ FAILED' : '✔'} ${file} (${(result.ms / 1000).toFixed(1)} s${result.why ? `; ${result.why}` : ''})`;
  process.stdout.write(`\n# ── ${header}\n${result.output}${result.output.endsWith('\n') ? '' : '\n'}`);
}

// The chaos, failover and backup runs start clusters, proxies and several servers each, and judge
// recovery under load: they run first, one at a time, with nothing beside them, so they measure
// their own load and not another file's (two of them side by side on two cores pushed a rolling
// restart's instances a minute out of rotation). The benches' smokes judge no time: they share.
//
// The files that say `// test-lane: waiting` in their first lines (the crash-and-restart tests of
// test/rails: a server killed while a provider fake holds its request, a lease or an expiry waited
// out) spend most of their minutes waiting, not computing: they run one at a time in a lane of
// their own beside the `concurrency` others, so that their waits do not hold a core's lane for
// a quarter of the run.
const WAITING = /^\/\/ test-lane: waiting\b/m;
const alone = files.filter((file) => ALONE.test(file));
const rest = files.filter((file) => !ALONE.test(file));
const waiting = rest.filter((file) => WAITING.test(readFileSync(join(root, file), 'utf8').slice(0, 2000)));
const queue = rest.filter((file) => !waiting.includes(file));
console.log(`# ${files.length} test files: ${alone.length} alone first, then ${concurrency} at a time${waiting.length > 0 ? ` and the ${waiting.length} that mostly wait one at a time beside them` : ''}; each within ${Math.round(fileCeilingMs / 1000)} s (the alone ones ${Math.round((2 * fileCeilingMs) / 1000)} s)`);
for (const file of alone) await runAndReport(file);
const lanes = Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) await runAndReport(file);
});
lanes.push((async () => {
  for (let file = waiting.shift(); file !== undefined; file = waiting.shift()) await runAndReport(file);
})());
await Promise.all(lanes);
clearInterval(watchdog);

const totals = Object.fromEntries(COUNTS.map((name) => [name, results.reduce((sum, each) => sum + each.counts[name], 0)]));
const failedFiles = results.filter((each) => each.failed);
try {
  mkdirSync(join(root, 'test-artifacts'), { recursive: true });
  writeFileSync(DURATIONS_FILE, JSON.stringify({ ...known, ...Object.fromEntries(results.map((each) => [each.file, each.ms])) }, null, 1));
} catch { /* the durations only order the next run */ }

/** The names of a file's failed tests and suites, once each, as its reporter printed them. */
const failedTests = (output) => [...new Set(output.split('\n').filter((line) => /^\s*✖ /.test(line) && !/failing tests:/.test(line)).map((line) => line.trim()))];

const lines = ['', '# ══ summary'];
lines.push(`ℹ files ${results.length}`);
for (const name of COUNTS) lines.push(`ℹ ${name} ${totals[name]}`);
lines.push(`ℹ wall time ${((Date.now() - began) / 1000).toFixed(0)} s with ${concurrency} at a time`);
lines.push('# the slowest files:');
for (const each of [...results].sort((a, b) => b.ms - a.ms).slice(0, 12)) lines.push(`#   ${(each.ms / 1000).toFixed(1).padStart(6)} s  ${each.file}`);
const flaky = results.filter((each) => !each.failed && each.earlierFailures);
if (flaky.length > 0) {
  lines.push(`# FLAKY: failed, then passed when run again (${flaky.length}); each is a defect to fix:`);
  for (const each of flaky) {
    const first = each.earlierFailures[0];
    lines.push(`#   ${each.file}${first.why ? ` (${first.why})` : ''}`);
    for (const line of failedTests(first.output)) lines.push(`#     ${line}`);
  }
}
const skips = results.flatMap((each) => each.output.split('\n').filter((line) => /# SKIP\b/.test(line)).map((line) => `#   ${each.file}: ${line.trim()}`));
if (skips.length > 0) lines.push(`# skipped (${skips.length}), each with its reason:`, ...skips);
if (failedFiles.length > 0) {
  lines.push(`# FAILED files (${failedFiles.length}):`);
  for (const each of failedFiles) {
    lines.push(`#   ${each.file}${each.why ? ` (${each.why})` : ''}`);
    for (const line of failedTests(each.output)) lines.push(`#     ${line}`);
  }
}
console.log(lines.join('\n'));
process.exit(failedFiles.length > 0 ? 1 : 0);
