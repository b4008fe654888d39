// `npm run bench:sync`: terminals coming back online and pushing the payments they took offline,
// settled by the sync server over socket.io (shared/src/sync-protocol.ts), with customer wallets
// (each with a ring) and ONE merchant, the hot account every payment credits.
//   1. pgbench TPC-B-like tps on the same PostgreSQL in the same run, before and after the
//      throughput run (the mean is the baseline).
//   2. Throughput: BENCH_TERMINALS terminals (16), each pushing batches of BENCH_BATCH (10) offline
//      taps back to back; settled payments per second / pgbench tps. Target: at least 1.0 x.
//   3. Catch-up: one terminal reconnecting with 10,000 queued offline payments, pushed as the
//      kiosk's replication does (batches of 100, one after the other); all verdicts back within 3 s
//      on PostgreSQL. The same on the embedded PGlite (aim: 15 s).
//   4. A reconnect storm: 200 terminals with 50 queued each reconnecting within one second (a
//      city's connectivity coming back): all 10,000 settled within 10 s, nothing declined; the
//      total time and the p99 from a terminal's reconnect to its last verdict.
// Every terminal's offline limits are raised for the load (the server enforces them).
// Environment: BENCH_DATABASE_URL, BENCH_SECONDS (15), BENCH_CLIENTS (pgbench clients, 8),
// BENCH_TERMINALS (16), BENCH_BATCH (10), BENCH_WALLETS (1000), BENCH_BACKLOG (10000),
// BENCH_FLEET (200), BENCH_FLEET_QUEUE (50), BENCH_FLEET_SPREAD_MS (1000: reconnects spread evenly
// over it), BENCH_PGLITE (1: also the PGlite catch-up).
import { SYNC_PUSH_BATCH_SIZE_MAX } from '@tapline/shared/limits';
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 10_000);
const FLEET = Number(process.env.BENCH_FLEET ?? 200);
const FLEET_QUEUE = Number(process.env.BENCH_FLEET_QUEUE ?? 50);
const FLEET_SPREAD_MS = Number(process.env.BENCH_FLEET_SPREAD_MS ?? 1000);
const WITH_PGLITE = process.env.BENCH_PGLITE !== '0';
const TARGET_RATIO = 1.0;
const CATCH_UP_TARGET_S = 3;
const STORM_TARGET_S = 10;
const CATCH_UP_PGLITE_AIM_S = 15;

interface Till {
  id: string;
  token: string;
  /** When it was made: what it took offline was taken after that. */
  createdAt: number;
}

function connect(origin: URL, token: string): Promise<Socket> {
  const socket = io(`${origin.origin}${SYNC_NAMESPACE}`, { auth: { token }, transports: ['websocket'], reconnection: false, forceNew: true });
  return new Promise((resolve, reject) => {
    socket.once(SYNC_EVENTS.hello, () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

/** A shop on a server: the merchant, its rings, and `count` terminals with offline limits raised for the load. */
async function openShop(origin: URL, wallets: number, count: number): Promise<{ http: Client; tags: string[]; tills: Till[] }> {
  const http = new Client(origin);
  const { key, tags } = await provisionShop(http, wallets);
  const tills: Till[] = [];
  for (let index = 0; index < count; index++) {
    const created = await http.call<{ id: string; token: string }>('POST', '/api/merchant/terminals', key, { name: `Till ${index}` });
    expect(created.status === 201, `create terminal: ${created.status}`);
    const limits = await http.call('PATCH', `/api/merchant/terminals/${created.body.id}`, key, { offlineLimits: { perPayment: 1000, total: 100_000_000, maxAgeHours: 72 } });
    expect(limits.status === 200, `raise offline limits: ${limits.status} ${JSON.stringify(limits.body)}`);
    tills.push({ id: created.body.id, token: `term.${created.body.token}`, createdAt: Date.now() });
  }
  return { http, tags, tills };
}

function tap(terminalId: string, tags: string[], capturedAt: Date): OfflinePaymentDoc {
  return {
    id: randomUUID(),
    terminalId,
    kind: 'tap',
    tagId: tags[Math.floor(Math.random() * tags.length)]!,
    amountMinor: 150,
    currency: 'NGN',
    description: 'bench',
    capturedAt: capturedAt.toISOString(),
    status: 'queued',
    serverSeq: 0,
  };
}

let declined = 0;
/** One push; answers its round trip in ms. Every document must come back accepted. */
async function push(socket: Socket, docs: OfflinePaymentDoc[]): Promise<number> {
  const started = performance.now();
  const rows = docs.map((doc) => ({ assumedMasterState: null, newDocumentState: doc }));
  const answer = (await socket.timeout(120_000).emitWithAck(SYNC_EVENTS.push, { collection: 'offline_payments', rows })) as PushResponse | SyncFailure;
  const elapsed = performance.now() - started;
  if (!('conflicts' in answer)) throw new Error(`push failed: ${JSON.stringify(answer)}`);
  expect(answer.conflicts.length === docs.length, `push answered ${answer.conflicts.length} verdicts for ${docs.length} documents`);
  for (const settled of answer.conflicts) {
    if (settled.status !== 'accepted' && ++declined <= 3) console.error(`  declined: ${settled.declineCode} ${settled.declineReason}`);
  }
  return elapsed;
}

/** A queue taken offline since the terminal was made (at most the last hour), oldest first, as a kiosk holds it. */
function backlog(till: Till, tags: string[], size: number): OfflinePaymentDoc[] {
  const start = Math.max(till.createdAt, Date.now() - 3600_000) + 1000;
  const span = Date.now() - 1000 - start;
  return Array.from({ length: size }, (_, index) => tap(till.id, tags, new Date(start + Math.floor((index * span) / size))));
}

/** A terminal reconnects and replicates its queue, 100 documents a push, one push after the other. Answers seconds from reconnect to the last verdict. */
async function catchUp(origin: URL, till: Till, queue: OfflinePaymentDoc[]): Promise<number> {
  const started = performance.now();
  const socket = await connect(origin, till.token);
  try {
    for (let sent = 0; sent < queue.length; sent += SYNC_PUSH_BATCH_SIZE_MAX) await push(socket, queue.slice(sent, sent + SYNC_PUSH_BATCH_SIZE_MAX));
    return (performance.now() - started) / 1000;
  } finally {
    socket.disconnect();
  }
}

async function postgresRun(): Promise<{ ratio: number; catchUpSeconds: number; stormSeconds: number; stormP99: number }> {
  const pgbenchDb = await createPostgresDatabase(baseUrl);
  const appDb = await createPostgresDatabase(baseUrl);
  let server: { child: ChildProcess; origin: URL } | undefined;
  let http: Client | undefined;
  const sockets: Socket[] = [];
  try {
    console.log(`bench:sync on ${new URL(baseUrl).host}: pgbench ${clients} clients, ${TERMINALS} terminals pushing batches of ${BATCH}, ${seconds} s per run`);
    server = await startServer(appDb.url);
    const shop = await openShop(server.origin, WALLETS, TERMINALS + 1 + FLEET);
    http = shop.http;
    const { tags } = shop;
    const tills = shop.tills.slice(0, TERMINALS);
    const catchUpTill = shop.tills[TERMINALS]!;
    const fleet = shop.tills.slice(TERMINALS + 1);
    for (const till of tills) sockets.push(await connect(server.origin, till.token));

    // Warm-up: JIT, prepared statements, pool connections.
    await Promise.all(tills.map(async (till, index) => push(sockets[index]!, Array.from({ length: BATCH }, () => tap(till.id, tags, new Date())))));

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
      tills.map(async (till, index) => {
        while (performance.now() < deadline) {
          pushLatencies.push(await push(sockets[index]!, Array.from({ length: BATCH }, () => tap(till.id, tags, new Date()))));
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
    for (const socket of sockets.splice(0)) socket.disconnect();

    const catchUpSeconds = await catchUp(server.origin, catchUpTill, backlog(catchUpTill, tags, BACKLOG));
    console.log(`  catch-up: one terminal reconnecting with ${BACKLOG} queued payments: all verdicts back in ${catchUpSeconds.toFixed(2)} s (${(BACKLOG / catchUpSeconds).toFixed(0)} payments/s; target <= ${CATCH_UP_TARGET_S} s) ${catchUpSeconds <= CATCH_UP_TARGET_S ? 'MET' : 'NOT MET'}`);

    const queues = fleet.map((till) => backlog(till, tags, FLEET_QUEUE));
    const fleetStarted = performance.now();
    const declinedBefore = declined;
    const perTerminal = await Promise.all(
      fleet.map(async (till, index) => {
        // Evenly spread over the second: terminal i reconnects i/FLEET of the way through it.
        const at = fleetStarted + (index * FLEET_SPREAD_MS) / FLEET;
        const wait = at - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        return catchUp(server!.origin, till, queues[index]!);
      }),
    );
    const fleetSeconds = (performance.now() - fleetStarted) / 1000;
    perTerminal.sort((a, b) => a - b);
    console.log(
      `  reconnect storm: ${FLEET} terminals with ${FLEET_QUEUE} queued each reconnecting within ${FLEET_SPREAD_MS} ms: all ${FLEET * FLEET_QUEUE} settled in ${fleetSeconds.toFixed(2)} s (target <= ${STORM_TARGET_S} s) ${fleetSeconds <= STORM_TARGET_S ? 'MET' : 'NOT MET'}; reconnect to last verdict p50 ${percentile(perTerminal, 50).toFixed(2)} s, p99 ${percentile(perTerminal, 99).toFixed(2)} s; declined ${declined - declinedBefore}`,
    );

    const db = new PostgresDatabase({ connectionString: appDb.url, poolSize: 2 });
    try {
      const report = await checkLedger(db);
      if (report.violations.length > 0) throw new Error(`ledger invariants broken after the bench: ${JSON.stringify(report.violations.slice(0, 3))}`);
      const [counts] = await db.query<{ accepted: number; other: number }>(
        "SELECT count(*) FILTER (WHERE status = 'accepted')::int8 AS accepted, count(*) FILTER (WHERE status <> 'accepted')::int8 AS other FROM offline_payments",
      );
      console.log(`  ledger check: ${report.transfers} transfers, no violations; offline payments accepted ${counts?.accepted}, declined ${counts?.other}`);
      expect(counts?.accepted === settled + TERMINALS * BATCH + BACKLOG + FLEET * FLEET_QUEUE, `accepted ${counts?.accepted} offline payments, expected every one pushed`);
    } finally {
      await db.close();
    }
    return { ratio: perSecond / baseline, catchUpSeconds, stormSeconds: fleetSeconds, stormP99: percentile(perTerminal, 99) };
  } finally {
    for (const socket of sockets) socket.disconnect();
    http?.close();
    await stopServer(server);
    await appDb.drop();
    await pgbenchDb.drop();
  }
}

/** The catch-up on the embedded database (`npm start`'s default): one server process on PGlite in a fresh folder. */
async function pgliteCatchUp(): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tapline-bench-pglite-'));
  let server: { child: ChildProcess; origin: URL } | undefined;
  let http: Client | undefined;
  try {
    server = await startServer({ dataDir });
    const shop = await openShop(server.origin, 100, 1);
    http = shop.http;
    const till = shop.tills[0]!;
    const seconds = await catchUp(server.origin, till, backlog(till, shop.tags, BACKLOG));
    console.log(`  PGlite catch-up: one terminal reconnecting with ${BACKLOG} queued payments: all verdicts back in ${seconds.toFixed(2)} s (aim <= ${CATCH_UP_PGLITE_AIM_S} s) ${seconds <= CATCH_UP_PGLITE_AIM_S ? 'MET' : 'NOT MET'}`);
    return seconds;
  } finally {
    http?.close();
    await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const { ratio, catchUpSeconds, stormSeconds, stormP99 } = await postgresRun();
if (WITH_PGLITE) await pgliteCatchUp();
expect(declined === 0, `${declined} offline payments were declined`);
console.log('');
console.log(`offline sync settlement: ${ratio.toFixed(2)} x pgbench (target >= ${TARGET_RATIO.toFixed(2)}) ${ratio >= TARGET_RATIO ? 'MET' : 'NOT MET'}`);
console.log(`offline sync catch-up of ${BACKLOG}: ${catchUpSeconds.toFixed(2)} s on PostgreSQL (target <= ${CATCH_UP_TARGET_S} s) ${catchUpSeconds <= CATCH_UP_TARGET_S ? 'MET' : 'NOT MET'}`);
console.log(`reconnect storm of ${FLEET} x ${FLEET_QUEUE}: ${stormSeconds.toFixed(2)} s, p99 reconnect to last verdict ${stormP99.toFixed(2)} s (target <= ${STORM_TARGET_S} s) ${stormSeconds <= STORM_TARGET_S ? 'MET' : 'NOT MET'}`);
