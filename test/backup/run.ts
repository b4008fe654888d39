// `npm run backup:pitr`: the point-in-time restore (pitr.ts) with its report and timings; exit
// code 1 on any problem. Environment: PITR_BEFORE and PITR_AFTER (payouts and POS sales before and
// after the target, default 50 and 10 each).
import { runPitr } from './pitr.ts';

const count = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
};

const report = await runPitr({ before: count('PITR_BEFORE', 50), after: count('PITR_AFTER', 10), log: (line) => console.log(line) });
console.log(JSON.stringify(report, null, 2));
const failed = report.problems.length > 0;
console.log(failed
  ? `backup:pitr FAILED (${report.problems.length} problems)`
  : `backup:pitr OK: full backup ${report.seconds.fullBackup} s, restore ${report.seconds.restore} s, recovery to the target ${report.seconds.recovery} s; ${report.restored.payments} payments restored, none after the target; ledger:check clean`);
process.exit(failed ? 1 : 0);
