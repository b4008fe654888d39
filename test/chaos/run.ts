// `npm run chaos`: the long chaos run (chaos.ts) on PostgreSQL, with its report; exit code 1 on
// any problem. Environment: CHAOS_DATABASE_URL (default TEST_DATABASE_URL, else
// postgres://postgres@127.0.0.1:5432/postgres), CHAOS_SECONDS (traffic, default 120),
// CHAOS_CLIENTS (default 16), CHAOS_KILLS and CHAOS_TERMINATIONS (default 3 each),
// CHAOS_DRAIN_SECONDS (default 150: longer than an abandoned Idempotency-Key claim is held, so
// every operation a client started ends acknowledged), CHAOS_INSTANCES (default 1; more runs
// them behind HAProxy, which must be installed).
import { runChaos } from './chaos.ts';

const number = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
  return value;
};

const report = await runChaos({
  seconds: number('CHAOS_SECONDS', 120),
  clients: number('CHAOS_CLIENTS', 16),
  kills: number('CHAOS_KILLS', 3),
  terminations: number('CHAOS_TERMINATIONS', 3),
  drainSeconds: number('CHAOS_DRAIN_SECONDS', 150),
  instances: Math.max(1, number('CHAOS_INSTANCES', 1)),
  ...(process.env.CHAOS_DATABASE_URL ? { databaseUrl: process.env.CHAOS_DATABASE_URL } : {}),
  log: (line) => console.log(line),
});
console.log(JSON.stringify({ ...report, problems: report.problems.slice(0, 50) }, null, 2));
const failed = report.problems.length > 0 || report.exitsOnItsOwn.length > 0;
console.log(failed ? `chaos: FAILED (${report.problems.length} problems, ${report.exitsOnItsOwn.length} exits on its own)` : 'chaos: every acknowledged operation happened exactly once; the ledger holds; the server never exited on its own');
process.exit(failed ? 1 : 0);
