// `npm run chaos:rolling`: the rolling restart (rolling.ts) with its report; exit code 1 on any
// problem or an operation that needed more than one retry. Environment: ROLLING_DATABASE_URL
// (default TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres), ROLLING_CLIENTS
// (default 8), ROLLING_KIOSKS (default 4), ROLLING_INSTANCES (default 3), ROLLING_ROUNDS (times
// each instance is restarted, default 2), ROLLING_BUILT_MAIN (the production bundle to run with
// plain node, e.g. sync-server/dist/main.js after `npm run build`; default: the sources under
// tsx). Needs haproxy.
import { runRollingRestart } from './rolling.ts';

const number = (name: string, fallback: number, min: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer of at least ${min}`);
  return value;
};

const report = await runRollingRestart({
  clients: number('ROLLING_CLIENTS', 8, 1),
  kiosks: number('ROLLING_KIOSKS', 4, 1),
  instances: number('ROLLING_INSTANCES', 3, 2),
  rounds: number('ROLLING_ROUNDS', 2, 1),
  ...(process.env.ROLLING_DATABASE_URL ? { databaseUrl: process.env.ROLLING_DATABASE_URL } : {}),
  ...(process.env.ROLLING_BUILT_MAIN ? { builtMain: process.env.ROLLING_BUILT_MAIN } : {}),
  log: (line) => console.log(line),
});
console.log(JSON.stringify({ ...report, problems: report.problems.slice(0, 50) }, null, 2));
console.log(`rolling restart: ${report.restarts} restarts, ${report.retries} retries, at most ${report.mostRetriesOfOneOperation} for one operation; worst latency ${report.worstLatencyMs} ms (median ${report.medianLatencyMs} ms)`);
const failed = report.problems.length > 0 || report.mostRetriesOfOneOperation > 1;
console.log(failed ? `rolling restart: FAILED (${report.problems.length} problems)` : 'rolling restart: no operation failed beyond one retry; every acknowledged operation happened once; kiosks reconnected and greeted; the ledger holds');
process.exit(failed ? 1 : 0);
