// `npm run chaos:failover`: the failover run (failover.ts) with its report; exit code 1 on any
// problem. Environment: FAILOVER_SECONDS (traffic, default 90), FAILOVER_CLIENTS (default 12),
// FAILOVER_DRAIN_SECONDS (default 150, longer than an abandoned Idempotency-Key claim is held, so
// every operation ends acknowledged), FAILOVER_INSTANCES (server instances, default 2).
import { failoverTools, runFailover } from './failover.ts';

const number = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
};

const missing = failoverTools();
if (missing) {
  console.error(`chaos:failover ${missing}`);
  process.exit(2);
}
const report = await runFailover({
  seconds: number('FAILOVER_SECONDS', 90),
  clients: number('FAILOVER_CLIENTS', 12),
  drainSeconds: number('FAILOVER_DRAIN_SECONDS', 150),
  instances: number('FAILOVER_INSTANCES', 2),
  log: (line) => console.log(line),
});
console.log(JSON.stringify({ ...report, chaos: { ...report.chaos, problems: report.chaos.problems.slice(0, 50) } }, null, 2));
const problems = [...report.problems, ...report.chaos.problems, ...report.chaos.exitsOnItsOwn];
for (const fault of report.faults) console.log(`RTO ${fault.rtoSeconds} s after ${fault.fault} (${fault.primaryBefore} -> ${fault.primaryAfter}, a primary again after ${fault.primaryAgainSeconds} s)`);
console.log(problems.length > 0
  ? `chaos:failover FAILED (${problems.length} problems)`
  : `chaos:failover OK: ${report.chaos.acknowledged.payments} payouts, ${report.chaos.acknowledged.posSessions + report.chaos.acknowledged.posConfirmedAfterLostAnswer} POS sales and ${report.chaos.acknowledged.offlinePayments} offline verdicts acknowledged, every one present once after the failover (RPO zero); timeline ${report.timelines.before} -> ${report.timelines.after}`);
process.exit(problems.length > 0 ? 1 : 0);
