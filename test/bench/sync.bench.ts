// `npm run bench:sync`: terminals coming back online and pushing the payments they took offline,
// settled by the sync server over socket.io (shared/src/sync-protocol.ts) on real PostgreSQL, with
// 1,000 customer wallets (each with a ring) and ONE merchant, the hot account every payment credits.
//   1. pgbench TPC-B-like tps on the same server in the same run, before and after the throughput
//      run (the mean is the baseline).
//   2. Throughput: BENCH_TERMINALS terminals, each pushing batches of BENCH_BATCH offline taps
//      back to back (a terminal's pushes settle one at a time, in order, as in production);
//      settled payments per second / pgbench tps.
//   3. Catch-up latency: p50 / p99 of one push (a batch) in that run, and how long a terminal with
//      a backlog of 500 payments takes to settle all of them on an otherwise idle server.
// Target: at least 0.35 x pgbench (each payment is its own transaction with a verdict, a transfer,
// the tap count, the payment row and its event: more work than a POS tap's lean path).
// Environment: BENCH_DATABASE_URL, BENCH_SECONDS (15), BENCH_CLIENTS (pgbench clients, 8),
// BENCH_TERMINALS (16), BENCH_BATCH (10), BENCH_WALLETS (1000).
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { io, type Socket } from 'socket.io-client';
import { type OfflinePaymentDoc, type PushResponse, SYNC_EVENTS, SYNC_NAMESPACE, type SyncFailure } from '@tapline/shared/sync-protocol';
import { PostgresDatabase } from '@tapline/sync-server/db/postgres';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { createPostgresDatabase } from '@tapline/sync-server/testing';
import { Client, cpuSnapshot, expect, percentile, provisionShop, startServer, stopServer } from './harness.ts';
import { runPgbench } from './pgbench.ts';

const baseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const clients = Number(process.env.BENCH_CLIENTS ?? 8);
const TERMINALS = Number(process.env.BENCH_TERMINALS ?? 16);
const BATCH = Number(process.env.BENCH_BATCH ?? 10);
const WALLETS = Number(process.env.BENCH_WALLETS ?? 1000);
const BACKLOG = 500;
const TARGET = 0.35;

interface Terminal {
  id: string;
  socket: Socket;
}

function connect(origin: URL, token: string): Promise<Socket> {
  const socket = io(`${origin.origin}${SYNC_NAMESPACE}`, { auth: { token }, transports: ['websocket'], reconnection: false });
  return new Promise((resolve, reject) => {
    socket.once(SYNC_EVENTS.hello, () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

async function main() {
  const pgbenchDb = await createPostgresDatabase(baseUrl);
  const appDb = await createPostgresDatabase(baseUrl);
  let server: { child: ChildProcess; origin: URL } | undefined;
  let http: Client | undefined;
  const terminals: Terminal[] = [];
  try {
    console.log(`bench:sync on ${new URL(baseUrl).host}: pgbench ${clients} clients, ${TERMINALS} terminals pushing batches of ${BATCH}, ${seconds} s per run`);
    server = await startServer(appDb.url);
    http = new Client(server.origin);
    const { key, tags } = await provisionShop(http, WALLETS);
    for (let index = 0; index < TERMINALS + 1; index++) {
      const created = await http.call<{ id: string; token: string }>('POST', '/api/merchant/terminals', key, { name: `Till ${index}` });
      expect(created.status === 201, `create terminal: ${created.status}`);
      // Limits are the terminal's business; the server settles whatever a terminal took.
      terminals.push({ id: created.body.id, socket: await connect(server.origin, `term.${created.body.token}`) });
    }
    const [catchUp, ...tills] = terminals as [Terminal, ...Terminal[]];

    let declined = 0;
    const doc = (terminal: Terminal): OfflinePaymentDoc => ({
      id: randomUUID(),
      terminalId: terminal.id,
      kind: 'tap',
      tagId: tags[Math.floor(Math.random() * tags.length)]!,
      amountMinor: 150,
      currency: 'NGN',
      description: 'bench',
      capturedAt: new Date().toISOString(),
      status: 'queued',
      serverSeq: 0,
    });
    /** One push of `size` new payments; answers its round trip in ms. */
    const push = async (terminal: Terminal, size: number): Promise<number> => {
      const rows = Array.from({ length: size }, () => ({ assumedMasterState: null, newDocumentState: doc(terminal) }));
      const started = performance.now();
      const answer = (await terminal.socket.timeout(60_000).emitWithAck(SYNC_EVENTS.push, { collection: 'offline_payments', rows })) as PushResponse | SyncFailure;
      const elapsed = performance.now() - started;
      if (!('conflicts' in answer)) throw new Error(`push failed: ${JSON.stringify(answer)}`);
      for (const settled of answer.conflicts) {
        if (settled.status !== 'accepted' && ++declined <= 3) console.error(`  declined: ${settled.declineCode} ${settled.declineReason}`);
      }
      return elapsed;
    };

    // Warm-up: JIT, prepared statements, pool connections.
    await Promise.all(tills.map(async (till) => push(till, BATCH)));

    const pgbenchBefore = runPgbench(pgbenchDb.url, { clients, threads: 2, seconds });
    console.log(`  pgbench TPC-B (-c ${clients} -j 2 -T ${seconds}, scale 1) before: ${pgbenchBefore.toFixed(0)} tps`);

    const probe = new PostgresDatabase({ connectionString: appDb.url, poolSize: 1 });
    const databaseName = new URL(appDb.url).pathname.slice(1);
    const cpuBefore = await cpuSnapshot(probe, server.child.pid!, databaseName);
    const pushLatencies: number[] = [];
    let settled = 0;
    const deadline = performance.now() + seconds * 1000;
    const began = performance.now();
    await Promise.all(
      tills.map(async (till) => {
        while (performance.now() < deadline) {
          pushLatencies.push(await push(till, BATCH));
          settled += BATCH;
        }
      }),
    );
    const perSecond = settled / ((performance.now() - began) / 1000);
    const cpuAfter = await cpuSnapshot(probe, server.child.pid!, databaseName);
    await probe.close();
    console.log(`  throughput: ${settled} offline payments settled in ${seconds} s = ${perSecond.toFixed(0)} payments/s`);
    const perPayment = (name: keyof typeof cpuAfter) => (((cpuAfter[name] - cpuBefore[name]) / settled) * 1000).toFixed(3);
    console.log(`  CPU per payment: server ${perPayment('server')} ms, load generator ${perPayment('client')} ms, PostgreSQL backends ${perPayment('postgres')} ms`);
    pushLatencies.sort((a, b) => a - b);
    console.log(`  push of ${BATCH} under that load: p50 ${percentile(pushLatencies, 50).toFixed(1)} ms, p99 ${percentile(pushLatencies, 99).toFixed(1)} ms`);
    const pgbenchAfter = runPgbench(pgbenchDb.url, { clients, threads: 2, seconds });
    const baseline = (pgbenchBefore + pgbenchAfter) / 2;
    console.log(`  pgbench TPC-B after: ${pgbenchAfter.toFixed(0)} tps; baseline (mean) ${baseline.toFixed(0)} tps`);

    // One terminal back online with a day's backlog, pushed in batches of the protocol's maximum.
    const backlogStarted = performance.now();
    for (let sent = 0; sent < BACKLOG; sent += 100) await push(catchUp, Math.min(100, BACKLOG - sent));
    const backlogSeconds = (performance.now() - backlogStarted) / 1000;
    console.log(`  catch-up: one terminal's backlog of ${BACKLOG} payments settled in ${backlogSeconds.toFixed(2)} s (${(BACKLOG / backlogSeconds).toFixed(0)} payments/s)`);

    const db = new PostgresDatabase({ connectionString: appDb.url, poolSize: 2 });
    try {
      const report = await checkLedger(db);
      if (report.violations.length > 0) throw new Error(`ledger invariants broken after the bench: ${JSON.stringify(report.violations.slice(0, 3))}`);
      const [counts] = await db.query<{ accepted: number; other: number }>(
        "SELECT count(*) FILTER (WHERE status = 'accepted')::int8 AS accepted, count(*) FILTER (WHERE status <> 'accepted')::int8 AS other FROM offline_payments",
      );
      console.log(`  ledger check: ${report.transfers} transfers, no violations; offline payments accepted ${counts?.accepted}, declined ${counts?.other}`);
    } finally {
      await db.close();
    }
    expect(declined === 0, `${declined} offline payments were declined`);

    const ratio = perSecond / baseline;
    console.log('');
    console.log(`offline sync settlement: ${ratio.toFixed(2)} x pgbench (target >= ${TARGET.toFixed(2)}) ${ratio >= TARGET ? 'MET' : 'NOT MET'}`);
  } finally {
    for (const terminal of terminals) terminal.socket.disconnect();
    http?.close();
    await stopServer(server);
    await appDb.drop();
    await pgbenchDb.drop();
  }
}

await main();
