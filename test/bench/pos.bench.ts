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
// BENCH_WALLETS (default 1000). The server runs as `npm run server` would
// (sync-server/src/main.ts, its default pool of 10 connections) in its own process.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type Socket, connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { PostgresDatabase } from '@tapline/sync-server/db/postgres';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { createPostgresDatabase } from '@tapline/sync-server/testing';
import { runPgbench } from './pgbench.ts';

const baseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const clients = Number(process.env.BENCH_CLIENTS ?? 8);
const salesConcurrency = Number(process.env.BENCH_SALES_CONCURRENCY ?? 32);
const WALLETS = Number(process.env.BENCH_WALLETS ?? 1000);
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const root = fileURLToPath(new URL('../../', import.meta.url));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/**
 * A minimal keep-alive HTTP/1.1 client over raw sockets: the load generator shares the machine
 * with the server and PostgreSQL, so it must cost as little CPU as possible (pgbench is C).
 * One request at a time per connection; idle connections are reused.
 */
class Connection {
  private buffer: Buffer = Buffer.alloc(0);
  private pending: { resolve(value: { status: number; text: string }): void; reject(error: Error): void } | undefined;
  constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.parse();
    });
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('connection closed')));
  }
  static open(host: string, port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port }, () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }
  send(head: string, body: string | undefined): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.write(body === undefined ? head : head + body);
    });
  }
  close(): void {
    this.socket.destroy();
  }
  private fail(error: Error): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(error);
  }
  private parse(): void {
    const headerEnd = this.buffer.indexOf('\r\n\r\n');
    if (headerEnd === -1) return;
    const head = this.buffer.subarray(0, headerEnd).toString('latin1');
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!length) return this.fail(new Error(`response without content-length: ${head}`));
    const total = headerEnd + 4 + Number(length[1]);
    if (this.buffer.length < total) return;
    const text = this.buffer.subarray(headerEnd + 4, total).toString('utf8');
    this.buffer = this.buffer.subarray(total);
    const pending = this.pending;
    this.pending = undefined;
    pending?.resolve({ status: Number(head.slice(9, 12)), text });
  }
}

class Client {
  private readonly idle: Connection[] = [];
  private readonly all: Connection[] = [];
  constructor(private readonly origin: URL) {}
  async call<T = Record<string, unknown>>(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: T }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    let head = `${method} ${path} HTTP/1.1\r\nhost: ${this.origin.host}\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    if (payload !== undefined) head += `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n`;
    head += '\r\n';
    let connection = this.idle.pop();
    if (!connection) {
      connection = await Connection.open(this.origin.hostname, Number(this.origin.port));
      this.all.push(connection);
    }
    const answer = await connection.send(head, payload);
    this.idle.push(connection);
    return { status: answer.status, body: (answer.text ? JSON.parse(answer.text) : null) as T };
  }
  close(): void {
    for (const connection of this.all) connection.close();
  }
}

/** The real server (sync-server/src/main.ts) in its own process, on the bench database. */
async function startServer(databaseUrl: string): Promise<{ child: ChildProcess; origin: URL }> {
  const extra = process.env.BENCH_SERVER_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...extra, '--import', 'tsx', 'sync-server/src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const origin = await new Promise<URL>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(new URL(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening:\n${output}`)));
  });
  return { child, origin };
}

async function inBatches<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); 0 elsewhere. */
function processCpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Where the CPU went during a phase: the server process, this load generator, the database backends. */
async function cpuSnapshot(db: PostgresDatabase, serverPid: number, databaseName: string) {
  const backends = await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [databaseName]);
  const own = process.cpuUsage();
  return {
    server: processCpuSeconds(serverPid),
    client: (own.user + own.system) / 1e6,
    postgres: backends.reduce((sum, row) => sum + processCpuSeconds(row.pid), 0),
  };
}

function expect(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

async function main() {
  const pgbenchDb = await createPostgresDatabase(baseUrl);
  const appDb = await createPostgresDatabase(baseUrl);
  let server: { child: ChildProcess; origin: URL } | undefined;
  let client: Client | undefined;
  try {
    console.log(`bench:pos on ${new URL(baseUrl).host}: pgbench ${clients} clients, ${salesConcurrency} sales in flight, ${seconds} s per run`);

    server = await startServer(appDb.url);
    client = new Client(server.origin);
    const http = client;
    const admin = { authorization: `Bearer admin.${ADMIN_TOKEN}` };

    // One merchant (the hot account) with its limits raised for the load, 1,000 funded customers with a ring each.
    const merchant = await http.call<{ id: string; testKey: string }>('POST', '/api/admin/merchants', admin, { name: 'Bench Market', handle: 'bench_market', country: 'NG', currency: 'NGN' });
    expect(merchant.status === 201, `create merchant: ${merchant.status} ${JSON.stringify(merchant.body)}`);
    const raised = await http.call('PATCH', `/api/admin/merchants/${merchant.body.id}`, admin, { rateLimitMultiplier: 1000 });
    expect(raised.status === 200, `raise limits: ${raised.status}`);
    const key = { 'x-merchant-api-key': merchant.body.testKey };
    const handles = Array.from({ length: WALLETS }, (_, index) => `bench_customer_${index}`);
    const tags: string[] = [];
    const setupStarted = performance.now();
    await inBatches(handles, 16, async (handle) => {
      const wallet = await http.call('POST', '/api/admin/wallets', admin, { handle, country: 'NG', currency: 'NGN', pin: '1234' });
      expect(wallet.status === 201, `create wallet ${handle}: ${wallet.status}`);
      const credit = await http.call('POST', `/api/admin/wallets/${handle}/credit`, admin, { amount: 1_000_000, currency: 'NGN' });
      expect(credit.status === 200, `credit ${handle}: ${credit.status}`);
      const tag = await http.call<{ tagId: string }>('POST', '/api/wearables', key, { handle, tagType: 'ring', displayName: handle });
      expect(tag.status === 201, `tag ${handle}: ${tag.status} ${JSON.stringify(tag.body)}`);
      tags.push(tag.body.tagId);
    });
    console.log(`  setup: ${WALLETS} wallets funded, each with a ring, in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`);

    let failures = 0;
    /** One sale: create a session, tap a random customer's ring. Returns the tap's latency in ms. */
    const sale = async (): Promise<number> => {
      const created = await http.call<{ sessionId: string }>('POST', '/api/pos/sessions', key, { amount: 1.5, currency: 'NGN', description: 'bench' });
      if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
      const tagId = tags[Math.floor(Math.random() * tags.length)]!;
      const started = performance.now();
      const tapped = await http.call<{ status: string }>('POST', `/api/pos/sessions/${created.body.sessionId}/tap`, key, { tagId });
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
    const cpuBefore = await cpuSnapshot(probe, server.child.pid!, databaseName);
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
    const cpuAfter = await cpuSnapshot(probe, server.child.pid!, databaseName);
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
    console.log(`pos taps: ${ratio.toFixed(2)} x pgbench (target >= 0.50) ${ratio >= 0.5 ? 'MET' : 'NOT MET'}`);
    console.log(`pos tap latency at half load: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (target p99 <= 25 ms) ${p99 <= 25 ? 'MET' : 'NOT MET'}`);
  } finally {
    client?.close();
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
