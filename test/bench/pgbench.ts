import { spawnSync } from 'node:child_process';

/**
 * Runs pgbench's TPC-B-like workload on its own database of the same server and returns its tps,
 * the baseline every benchmark figure is divided by.
 */
export function runPgbench(databaseUrl: string, options: { clients: number; threads: number; seconds: number }): number {
  const init = spawnSync('pgbench', ['-i', '-s', '1', '-q', databaseUrl], { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`pgbench -i failed: ${init.stderr}`);
  const run = spawnSync('pgbench', ['-c', String(options.clients), '-j', String(options.threads), '-T', String(options.seconds), databaseUrl], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`pgbench failed: ${run.stderr}`);
  const match = /tps = ([\d.]+) \((?:without initial connection time|excluding connections establishing)\)/.exec(run.stdout);
  if (!match?.[1]) throw new Error(`could not read tps from pgbench output:\n${run.stdout}`);
  return Number(match[1]);
}
