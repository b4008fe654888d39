// `npm run bench:pos`: POS create + tap pairs over HTTP on real PostgreSQL, with 1,000 customer
// wallets (each with a ring) and ONE merchant, the hot account every tap credits.
//   1. pgbench TPC-B-like tps on the same server in the same run, right before and right after
//      the throughput run (the mean is the baseline: a machine whose load drifts moves both).
//   2. Throughput: BENCH_CLIENTS closed loops of create + tap; taps per second / pgbench tps.
//   3. Latency: an open loop at half that rate; p50 / p99 of the tap request.
// Targets (issue #4): at least 0.5 x pgbench; p99 tap latency at most 25 ms.
// Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres),
// BENCH_SECONDS (default 15), BENCH_CLIENTS (pgbench clients, default 8, as bench:ledger),
// BENCH_SALES_CONCURRENCY (sales in flight in the throughput run, default 32: an HTTP sale spends
// more of its time in flight than a pgbench transaction, so it needs more of them to keep the
// server busy; the server still uses its normal pool of 10 database connections),
// BENCH_WALLETS (default 1000), BENCH_INSTANCES (default 1; a list such as 1,2,3 runs the bench once
// per count and prints how throughput grows), BENCH_IDEMPOTENCY (1: every create and tap sends its
// own Idempotency-Key, as a careful integration does). The server runs as `npm run server` would
// (sync-server/src/main.ts, its default pool of 10 connections) in its own process; with several
// instances, each is such a process on the same database and the sales are spread over them in
// turn, as a round-robin proxy would (`npm run bench:scale`).
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { PostgresDatabase } from '@tapline/sync-server/db/postgres';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { createPostgresDatabase } from '@tapline/sync-server/testing';
import { Client, cpuSnapshot, expect, inBatches, percentile, provisionShop, startServer, stopServer } from './harness.ts';
import { runPgbench } from './pgbench.ts';

const baseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const clients = Number(process.env.BENCH_CLIENTS ?? 8);
const salesConcurrency = Number(process.env.BENCH_SALES_CONCURRENCY ?? 32);
const WALLETS = Number(process.env.BENCH_WALLETS ?? 1000);
const idempotent = process.env.BENCH_IDEMPOTENCY === '1';
const INSTANCE_COUNTS = (process.env.BENCH_INSTANCES ?? '1').split(',').map(Number);
if (INSTANCE_COUNTS.some((count) => !Number.isInteger(count) || count < 1)) throw new Error(`BENCH_INSTANCES must list whole numbers of at least 1, not ${process.env.BENCH_INSTANCES}`);

interface RunResult {
  instances: number;
  tapsPerSecond: number;
  baseline: number;
  p99: number;
}

async function run(instances: number): Promise<RunResult> {
  const pgbenchDb = await createPostgresDatabase(baseUrl);
  const appDb = await createPostgresDatabase(baseUrl);
  const servers: { child: ChildProcess; origin: URL }[] = [];
  const httpClients: Client[] = [];
  try {
    console.log(`bench:pos on ${new URL(baseUrl).host}: ${instances} server instance${instances === 1 ? '' : 's'}, pgbench ${clients} clients, ${salesConcurrency} sales in flight, ${seconds} s per run`);

    // The first instance migrates the fresh database; the others then start on it.
    servers.push(await startServer(appDb.url));
    servers.push(...(await Promise.all(Array.from({ length: instances - 1 }, () => startServer(appDb.url)))));
    httpClients.push(...servers.map((server) => new Client(server.origin)));

    const { key, tags } = await provisionShop(httpClients[0]!, WALLETS);

    let failures = 0;
    let turn = 0;
    // BENCH_IDEMPOTENCY=1: every create and tap carries its own Idempotency-Key, as an integration
    // that retries safely sends them (each then claims and completes a key in the database).
    const withKey = (): Record<string, string> => (idempotent ? { ...key, 'idempotency-key': randomUUID() } : key);
    /** One sale on the next instance in turn: create a session, tap a random customer's ring. Returns the tap's latency in ms. */
    const sale = async (): Promise<number> => {
      const http = httpClients[turn++ % httpClients.length]!;
      const created = await http.call<{ sessionId: string }>('POST', '/api/pos/sessions', withKey(), { amount: 1.5, currency: 'NGN', description: 'bench' });
      if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
      const tagId = tags[Math.floor(Math.random() * tags.length)]!;
      const started = performance.now();
      const tapped = await http.call<{ status: string }>('POST', `/api/pos/sessions/${created.body.sessionId}/tap`, withKey(), { tagId });
      const latency = performance.now() - started;
      if (tapped.status !== 200 || tapped.body.status !== 'completed') {
        failures++;
        if (failures <= 3) console.error(`  tap answered ${tapped.status} ${JSON.stringify(tapped.body)}`);
      }
      return latency;
    };

    // Warm-up: JIT, prepared statements, pool connections.
    await inBatches(Array.from({ length: 400 }), salesConcurrency, async () => {
      await sale();
    });

    // The baseline, measured next to the run it is compared with.
    const pgbenchBefore = runPgbench(pgbenchDb.url, { clients, threads: 2, seconds });
    console.log(`  pgbench TPC-B (-c ${clients} -j 2 -T ${seconds}, scale 1) before: ${pgbenchBefore.toFixed(0)} tps`);

    // Throughput: closed loops, as many sales as the server will take.
    const probe = new PostgresDatabase({ connectionString: appDb.url, poolSize: 1 });
    const databaseName = new URL(appDb.url).pathname.slice(1);
    const serverPids = servers.map((server) => server.child.pid!);
    const cpuBefore = await cpuSnapshot(probe, serverPids, databaseName);
    let done = 0;
    const deadline = performance.now() + seconds * 1000;
    const began = performance.now();
    await Promise.all(
      Array.from({ length: salesConcurrency }, async () => {
        while (performance.now() < deadline) {
          await sale();
          done++;
        }
      }),
    );
    const tapsPerSecond = done / ((performance.now() - began) / 1000);
    console.log(`  throughput: ${done} create + tap pairs in ${seconds} s = ${tapsPerSecond.toFixed(0)} taps/s`);
    const cpuAfter = await cpuSnapshot(probe, serverPids, databaseName);
    await probe.close();
    const perSale = (key: keyof typeof cpuAfter) => (((cpuAfter[key] - cpuBefore[key]) / done) * 1000).toFixed(3);
    console.log(`  CPU per sale: server ${perSale('server')} ms, load generator ${perSale('client')} ms, PostgreSQL backends ${perSale('postgres')} ms`);
    const pgbenchAfter = runPgbench(pgbenchDb.url, { clients, threads: 2, seconds });
    const baseline = (pgbenchBefore + pgbenchAfter) / 2;
    console.log(`  pgbench TPC-B after: ${pgbenchAfter.toFixed(0)} tps; baseline (mean) ${baseline.toFixed(0)} tps`);

    // Latency at half that load: an open loop that starts sales on a fixed schedule.
    const rate = tapsPerSecond / 2;
    const intervalMs = 1000 / rate;
    const latencies: number[] = [];
    const inFlight: Promise<void>[] = [];
    const openBegan = performance.now();
    let lateStarts = 0;
    for (let index = 0; ; index++) {
      const due = openBegan + index * intervalMs;
      if (due > openBegan + seconds * 1000) break;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      else if (wait < -50) lateStarts++;
      inFlight.push(sale().then((latency) => void latencies.push(latency)));
    }
    await Promise.all(inFlight);
    latencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    console.log(`  latency at ${rate.toFixed(0)} sales/s (half load): ${latencies.length} taps, p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, max ${(latencies.at(-1) ?? 0).toFixed(2)} ms${lateStarts ? `, ${lateStarts} starts late by > 50 ms` : ''}`);

    const db = new PostgresDatabase({ connectionString: appDb.url, poolSize: 2 });
    try {
      const report = await checkLedger(db);
      if (report.violations.length > 0) throw new Error(`ledger invariants broken after the bench: ${JSON.stringify(report.violations.slice(0, 3))}`);
      const [sessions] = await db.query<{ completed: number; other: number }>(
        `SELECT count(*) FILTER (WHERE status = 'completed')::int8 AS completed, count(*) FILTER (WHERE status <> 'completed')::int8 AS other FROM pos_sessions`,
      );
      console.log(`  ledger check: ${report.transfers} transfers, no violations; sessions completed ${sessions?.completed}, not completed ${sessions?.other}; failed taps ${failures}`);
    } finally {
      await db.close();
    }
    expect(failures === 0, `${failures} taps did not complete`);

    const ratio = tapsPerSecond / baseline;
    console.log('');
    console.log(`pos taps (${instances} instance${instances === 1 ? '' : 's'}): ${ratio.toFixed(2)} x pgbench (target >= 0.50) ${ratio >= 0.5 ? 'MET' : 'NOT MET'}`);
    console.log(`pos tap latency at half load: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (target p99 <= 25 ms) ${p99 <= 25 ? 'MET' : 'NOT MET'}`);
    return { instances, tapsPerSecond, baseline, p99 };
  } finally {
    for (const client of httpClients) client.close();
    await Promise.all(servers.map((server) => stopServer(server)));
    await appDb.drop();
    await pgbenchDb.drop();
  }
}

const results: RunResult[] = [];
for (const instances of INSTANCE_COUNTS) {
  results.push(await run(instances));
  console.log('');
}
if (results.length > 1) {
  // Growth is read from the ratios, so a machine whose load drifts between runs moves both sides.
  const first = results[0]!;
  console.log('scaling across instances on one PostgreSQL (each run with its own pgbench baseline):');
  for (const result of results) {
    const ratio = result.tapsPerSecond / result.baseline;
    const growth = ratio / (first.tapsPerSecond / first.baseline);
    console.log(`  ${result.instances} instance${result.instances === 1 ? ' ' : 's'}: ${result.tapsPerSecond.toFixed(0)} taps/s, ${ratio.toFixed(2)} x pgbench, ${growth.toFixed(2)}x the ${first.instances}-instance ratio, p99 ${result.p99.toFixed(1)} ms`);
  }
}
