// `npm run bench:pay`: sandbox POST /api/pay over HTTP against a real server process on real
// PostgreSQL, each request with its own Idempotency-Key.
//   (1) throughput: BENCH_CONCURRENCY requests in flight for BENCH_SECONDS; payments per second,
//       as a ratio to pgbench's TPC-B-like tps measured on the same server in the same run;
//   (2) latency: once the scheduler has stepped the payments of (1), an open-loop load at half
//       that rate for BENCH_SECONDS; p50 / p99 (the scheduler steps the new payments meanwhile).
// The server runs as in production (background scheduler and dispatcher on), so every sandbox
// payment also moves pending -> processing -> completed while the bench runs.
// Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres),
// BENCH_SECONDS (default 15), BENCH_CLIENTS (pgbench clients, default 8), BENCH_CONCURRENCY (default 16).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { PostgresDatabase } from '@tapline/sync-server/db/postgres';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { createPostgresDatabase } from '@tapline/sync-server/testing';
import { runPgbench } from './pgbench.ts';

const baseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const clients = Number(process.env.BENCH_CLIENTS ?? 8);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const TARGET_RATIO = 0.35;
const TARGET_P99_MS = 30;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

async function startServer(databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const main = fileURLToPath(new URL('../../sync-server/src/main.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', main], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      SANDBOX_FLOAT: '1000000000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); undefined elsewhere. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

function cpuOfSelf(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** One JSON request over a keep-alive connection: the status and the parsed body. */
function request(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method, agent, headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
      });
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

const PAYMENT = { fromCode: 'NG', toCode: 'KE', rail: 'mobile_money', amount: 1, currency: 'NGN', receiver: '+254712345678', receiverName: 'Wanjiku Kamau', senderName: 'Bench' };

async function main() {
  const pgbenchDb = await createPostgresDatabase(baseUrl);
  const appDb = await createPostgresDatabase(baseUrl);
  let server: { child: ChildProcess; url: string } | undefined;
  try {
    console.log(`bench:pay on ${new URL(baseUrl).host}: pgbench ${clients} clients; ${concurrency} requests in flight; ${seconds} s per phase`);
    const baseline = runPgbench(pgbenchDb.url, { clients, threads: 2, seconds });
    console.log(`  pgbench TPC-B (-c ${clients} -j 2 -T ${seconds}, scale 1): ${baseline.toFixed(0)} tps`);

    server = await startServer(appDb.url);
    const admin = { authorization: `Bearer admin.${ADMIN_TOKEN}` };
    const merchant = await request(`${server.url}/api/admin/merchants`, 'POST', admin, { name: 'Bench Shop', handle: 'bench_shop', country: 'NG', currency: 'NGN' });
    if (merchant.status !== 201) throw new Error(`could not create the merchant: ${JSON.stringify(merchant.body)}`);
    const raised = await request(`${server.url}/api/admin/merchants/${merchant.body.id}`, 'PATCH', admin, { rateLimitMultiplier: 1000 });
    if (raised.status !== 200) throw new Error(`could not raise the rate limit: ${JSON.stringify(raised.body)}`);
    const key = String(merchant.body.testKey);
    const pay = () => request(`${server!.url}/api/pay`, 'POST', { 'x-merchant-api-key': key, 'idempotency-key': randomUUID() }, PAYMENT);

    // Warm-up: connections, prepared statements, JIT.
    for (let index = 0; index < 200; index++) await pay();

    // (1) Throughput.
    let ok = 0;
    const failures = new Map<number, number>();
    const deadline = performance.now() + seconds * 1000;
    const serverCpuBefore = cpuSeconds(server.child.pid!);
    const clientCpuBefore = cpuOfSelf();
    const began = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < deadline) {
          const response = await pay();
          if (response.status === 201) ok++;
          else failures.set(response.status, (failures.get(response.status) ?? 0) + 1);
        }
      }),
    );
    const elapsed = (performance.now() - began) / 1000;
    const pps = ok / elapsed;
    const serverCpuAfter = cpuSeconds(server.child.pid!);
    const serverShare = serverCpuBefore !== undefined && serverCpuAfter !== undefined ? `server process ${(((serverCpuAfter - serverCpuBefore) / elapsed) * 100).toFixed(0)}% of a core, ` : '';
    console.log(`  throughput: ${ok} payments in ${seconds} s = ${pps.toFixed(0)} payments/s${failures.size ? `; non-201: ${JSON.stringify(Object.fromEntries(failures))}` : ''}`);
    console.log(`    (${serverShare}load generator ${(((cpuOfSelf() - clientCpuBefore) / elapsed) * 100).toFixed(0)}% of a core)`);

    // The saturated run leaves thousands of payments for the scheduler to step (pending ->
    // processing -> completed). Latency "at half load" is measured once that backlog has drained,
    // with the scheduler then doing the steady work of the half load alongside; how long the
    // drain took is reported, since it is the server's recovery time after a burst.
    const drainStarted = performance.now();
    const probe = new PostgresDatabase({ connectionString: appDb.url, poolSize: 1 });
    let backlog = Number.POSITIVE_INFINITY;
    try {
      while (performance.now() - drainStarted < 120_000) {
        const [open] = await probe.query<{ open: number }>("SELECT count(*)::int8 AS open FROM payments WHERE status IN ('pending', 'processing')");
        backlog = open?.open ?? 0;
        if (backlog === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    } finally {
      await probe.close();
    }
    console.log(`  scheduler backlog after the saturated run drained in ${((performance.now() - drainStarted) / 1000).toFixed(1)} s${backlog > 0 ? ` (${backlog} still open after 120 s)` : ''}`);

    // (2) Latency at half that load, open loop: requests start on schedule whether or not earlier ones finished.
    const rate = pps / 2;
    const latencies: number[] = [];
    let errors = 0;
    const inFlight: Promise<void>[] = [];
    const start = performance.now();
    const total = Math.floor(rate * seconds);
    for (let index = 0; index < total; index++) {
      const due = start + (index * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      const sent = performance.now();
      inFlight.push(
        pay().then((response) => {
          if (response.status === 201) latencies.push(performance.now() - sent);
          else errors++;
        }),
      );
    }
    await Promise.all(inFlight);
    latencies.sort((a, b) => a - b);
    const achieved = latencies.length / ((performance.now() - start) / 1000);
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    console.log(`  latency at ${rate.toFixed(0)} payments/s offered (${achieved.toFixed(0)}/s achieved): p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, max ${(latencies.at(-1) ?? 0).toFixed(2)} ms${errors ? `, ${errors} errors` : ''}`);

    // Proofs after the load: the ledger's invariants, and one payment per 201.
    const db = new PostgresDatabase({ connectionString: appDb.url, poolSize: 2 });
    try {
      const report = await checkLedger(db);
      if (report.violations.length > 0) throw new Error(`ledger invariants broken: ${JSON.stringify(report.violations.slice(0, 3))}`);
      const [counts] = await db.query<{ payments: number; completed: number }>(
        "SELECT count(*)::int8 AS payments, count(*) FILTER (WHERE status = 'completed')::int8 AS completed FROM payments",
      );
      console.log(`  after the bench: ${counts!.payments} payments (${counts!.completed} already completed by the scheduler); ledger check: ${report.transfers} transfers, no violations`);
    } finally {
      await db.close();
    }

    const ratio = pps / baseline;
    console.log('');
    console.log(`pay throughput: ${ratio.toFixed(2)} x pgbench (target >= ${TARGET_RATIO})  ${ratio >= TARGET_RATIO ? 'PASS' : 'MISS'}`);
    console.log(`pay latency at half load: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (target p99 <= ${TARGET_P99_MS} ms)  ${p99 <= TARGET_P99_MS ? 'PASS' : 'MISS'}`);
  } finally {
    agent.destroy();
    if (server) {
      const exited = new Promise((resolve) => server!.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await exited;
    }
    await appDb.drop();
    await pgbenchDb.drop();
  }
}

await main();
