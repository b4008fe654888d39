// The rolling restart (docs/deploy.md, "Rolling restart"): three server instances on one
// PostgreSQL behind HAProxy, as deploy.md configures them, under steady traffic: clients make
// sandbox payouts and POS sales (each request with its Idempotency-Key, a retry sends the same
// one) and kiosks stay connected over socket.io as the terminal connects, pushing offline taps.
// Each instance in turn is stopped gracefully (SIGTERM, as `systemctl restart` does), started
// again and waited for until it is ready and HAProxy sends it traffic; then the next. Afterwards
// no operation needed more than one retry, every acknowledged operation is in the database once,
// every kiosk is connected and heard a settings hello after its last (re)connection, and the
// ledger is clean. The retries and the worst latency are reported, never judged.
// `npm run chaos:rolling` runs it (rolling-run.ts); rolling.test.ts runs it in the test suite.
import { randomUUID } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import { type OfflinePaymentDoc, type PushResponse, SYNC_EVENTS, SYNC_NAMESPACE, type SyncFailure } from '@tapline/shared/sync-protocol';
import { PostgresDatabase } from '@tapline/sync-server/db/postgres';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { createPostgresDatabase, freePort } from '@tapline/sync-server/testing';
import { HaproxyInFront, ServerUnderTest, checkDatabase } from './chaos.ts';

export interface RollingOptions {
  /** Concurrent HTTP clients, each one operation at a time (payouts and POS sales in turn). */
  clients: number;
  /** Kiosks connected over socket.io through the proxy, each a terminal of the shop. */
  kiosks: number;
  /** Server instances behind HAProxy (default 3). */
  instances?: number;
  /** Times each instance is restarted, in turn (default 1). */
  rounds?: number;
  /** PostgreSQL server to create the run's database on (dropped afterwards). */
  databaseUrl?: string;
  /**
   * Run the production bundle with plain node, as an operator does (`npm run build`'s
   * sync-server/dist/main.js, or a bundle built elsewhere); default: the sources under tsx.
   */
  builtMain?: string;
  log?: (line: string) => void;
}

export interface RollingReport {
  instances: number;
  restarts: number;
  /** Requests and pushes sent, first attempts and retries. */
  requests: number;
  acknowledged: { payments: number; posSales: number; offlinePayments: number };
  /** Attempts beyond the first, over all operations; and the most one operation needed. */
  retries: number;
  mostRetriesOfOneOperation: number;
  /** Why each retry was made ("POST /api/pay 502", "push: disconnected"...), with counts. */
  retryReasons: Record<string, number>;
  /** From an operation's first attempt to its answer, retries included. */
  worstLatencyMs: number;
  medianLatencyMs: number;
  kiosks: { disconnects: number; reconnects: number; fewestConnectionsOfOneKiosk: number; connectedAtEnd: number; heardHelloAfterLastConnect: number; heardSettingsChangeAtEnd: number };
  /** Every rule broken: must stay empty. */
  problems: string[];
  ledger: { transfers: number; postings: number; accounts: number };
}

const ADMIN_TOKEN = 'rolling-admin-token-0123456789abcdef';
const ADMIN = { authorization: `Bearer admin.${ADMIN_TOKEN}` };
const SECRETS_KEY = '7e11'.repeat(16);
const PAYMENT = { fromCode: 'NG', toCode: 'KE', rail: 'mobile_money', amount: 1, currency: 'NGN', receiver: '+254712345678', receiverName: 'Wanjiku Kamau' };
const CUSTOMERS = 8;
const TAP_MINOR = 150;
/** Attempts after which an operation is given up and reported: the test allows two (one retry). */
const ATTEMPTS_MAX = 4;
/** Answers that a client retries: the proxy or a stopping instance could not serve the request. */
const RETRYABLE = /^(network error|502|503|504|409 idempotency_in_progress)/;

/** What a process printed from its last SIGTERM on (its shutdown), at most 8,000 characters. */
function shutdownOutput(output: string): string {
  const from = output.lastIndexOf('SIGTERM received');
  return (from >= 0 ? output.slice(from) : output).slice(0, 8_000);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, ceilingMs = 60_000): Promise<void> {
  const deadline = Date.now() + ceilingMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited ${ceilingMs / 1000} s for ${what}`);
    await sleep(50);
  }
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
  label: string;
}

/** A kiosk: the terminal's sync connection (reconnects as terminal/src/renderer/lib/sync.ts does). */
interface Kiosk {
  terminal: { id: string; token: string };
  socket: Socket;
  connects: number;
  disconnects: number;
  /** A hello arrived since the last connect. */
  helloSinceConnect: boolean;
  lastHello: { tipping?: { mode?: string } } | undefined;
}

export async function runRollingRestart(options: RollingOptions): Promise<RollingReport> {
  const log = options.log ?? (() => undefined);
  const instances = options.instances ?? 3;
  const rounds = options.rounds ?? 1;
  const database = await createPostgresDatabase(options.databaseUrl);
  const probe = new PostgresDatabase({ connectionString: database.url, poolSize: 1 });
  const servers: ServerUnderTest[] = [];
  for (let index = 0; index < instances; index++) {
    servers.push(new ServerUnderTest({
      DATABASE_URL: database.url,
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
      SECRETS_KEY,
      LOG_LEVEL: 'warn',
      SANDBOX_STEP_MS: '500',
      RATE_LIMIT_STORE: 'postgres',
      TRUST_PROXY: '1',
      NODE_ENV: 'production',
    }, options.builtMain ? { builtMain: options.builtMain } : {}));
  }
  const proxy = new HaproxyInFront(servers.map((each) => each.url));
  const kiosks: Kiosk[] = [];
  const extraSockets: Socket[] = [];
  const problems: string[] = [];
  const retryReasons = new Map<string, number>();
  const latencies: number[] = [];
  let requests = 0;
  let retries = 0;
  let mostRetries = 0;
  // Set once the run is over: a reconnection timer still pending must not reopen a socket, or this
  // process never exits (a test file's process stayed alive until CI's own limit that way).
  let finished = false;
  // The traffic's workers loop while this holds; a run that throws half way must stop them too.
  let running = false;
  try {
    await Promise.all(servers.map((each) => each.start()));
    const proxyUrl = await proxy.start();

    const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> => {
      requests += 1;
      try {
        const response = await fetch(proxyUrl + path, {
          method,
          headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(15_000),
        });
        const text = await response.text();
        let parsed: Record<string, unknown> = {};
        try {
          parsed = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
        } catch {
          parsed = { text: text.slice(0, 200) };
        }
        return { status: response.status, body: parsed, label: response.status < 300 ? `${response.status}` : `${response.status} ${String(parsed.code ?? '')}`.trim() };
      } catch {
        return { status: 0, body: {}, label: 'network error' };
      }
    };
    const expect = async (status: number, answer: Promise<Answer>): Promise<Record<string, unknown>> => {
      const settled = await answer;
      if (settled.status !== status) throw new Error(`setup: ${settled.label} ${JSON.stringify(settled.body)}`);
      return settled.body;
    };

    /**
     * One operation: attempts until `done` says it is answered, a retry after a retryable answer
     * (same Idempotency-Key, same document id). Counts retries and the latency of the whole.
     */
    const operation = async (name: string, attempt: () => Promise<{ done: true } | { retry: string } | { failed: string }>): Promise<boolean> => {
      const began = Date.now();
      for (let tries = 1; tries <= ATTEMPTS_MAX; tries++) {
        const outcome = await attempt();
        if ('done' in outcome) {
          latencies.push(Date.now() - began);
          mostRetries = Math.max(mostRetries, tries - 1);
          return true;
        }
        if ('failed' in outcome) {
          problems.push(`${name}: ${outcome.failed}`);
          return false;
        }
        retries += 1;
        retryReasons.set(outcome.retry, (retryReasons.get(outcome.retry) ?? 0) + 1);
        await sleep(200 + Math.random() * 300);
      }
      problems.push(`${name}: not answered after ${ATTEMPTS_MAX} attempts`);
      return false;
    };
    const judge = (label: string, answer: Answer, ok: boolean) => (ok ? { done: true as const } : RETRYABLE.test(answer.label) ? { retry: `${label} ${answer.label}` } : { failed: `${answer.label} ${JSON.stringify(answer.body).slice(0, 300)}` });

    // The shop: a merchant (limits raised for the load), funded customers with a ring each, a terminal per kiosk.
    const merchant = await expect(201, call('POST', '/api/admin/merchants', ADMIN, { name: 'Rolling Market', handle: 'rolling_market', country: 'NG', currency: 'NGN' }));
    const merchantId = String(merchant.id);
    await expect(200, call('PATCH', `/api/admin/merchants/${merchantId}`, ADMIN, { rateLimitMultiplier: 1000 }));
    const key = { 'x-merchant-api-key': String(merchant.testKey) };
    const tags: string[] = [];
    for (let index = 0; index < CUSTOMERS; index++) {
      const handle = `rolling_customer_${index}`;
      await expect(201, call('POST', '/api/admin/wallets', ADMIN, { handle, country: 'NG', currency: 'NGN', pin: '1234' }));
      await expect(200, call('POST', `/api/admin/wallets/${handle}/credit`, ADMIN, { amount: 1_000_000, currency: 'NGN' }));
      tags.push(String((await expect(201, call('POST', '/api/wearables', key, { handle, tagType: 'ring', displayName: handle }))).tagId));
    }

    // The kiosks, through the proxy; a connection the server closes is reopened after 500 ms, as the terminal does.
    for (let index = 0; index < options.kiosks; index++) {
      const terminal = await expect(201, call('POST', '/api/merchant/terminals', key, { name: `Till ${index}` }));
      const socket = io(`${proxyUrl}${SYNC_NAMESPACE}`, {
        auth: { token: `term.${String(terminal.token)}` }, transports: ['websocket'], reconnectionDelay: 500, reconnectionDelayMax: 1_000, randomizationFactor: 0.25, forceNew: true,
      });
      const kiosk: Kiosk = { terminal: { id: String(terminal.id), token: String(terminal.token) }, socket, connects: 0, disconnects: 0, helloSinceConnect: false, lastHello: undefined };
      socket.on('connect', () => {
        kiosk.connects += 1;
        kiosk.helloSinceConnect = false;
      });
      socket.on(SYNC_EVENTS.hello, (hello: Kiosk['lastHello']) => {
        kiosk.helloSinceConnect = true;
        kiosk.lastHello = hello;
      });
      socket.on('disconnect', (reason) => {
        kiosk.disconnects += 1;
        if (reason === 'io server disconnect') setTimeout(() => finished || socket.connect(), 500);
      });
      socket.on('connect_error', () => {
        if (!socket.active) setTimeout(() => finished || socket.connect(), 500);
      });
      kiosks.push(kiosk);
    }
    await waitFor('every kiosk connected with its hello', () => kiosks.every((kiosk) => kiosk.socket.connected && kiosk.helloSinceConnect));
    // An observer kiosk connected straight to the last instance: the restarts of the others must not drop it.
    const observed = await expect(201, call('POST', '/api/merchant/terminals', key, { name: 'Observer' }));
    const observer = io(`${servers.at(-1)!.url}${SYNC_NAMESPACE}`, { auth: { token: `term.${String(observed.token)}` }, transports: ['websocket'], reconnection: false, forceNew: true });
    extraSockets.push(observer);
    let observerDrops = 0;
    observer.on('disconnect', () => (observerDrops += 1));
    await new Promise<void>((resolve, reject) => {
      observer.once(SYNC_EVENTS.hello, () => resolve());
      observer.once('connect_error', reject);
    });
    log(`rolling: ${instances} servers behind HAProxy at ${proxyUrl}; ${options.clients} clients, ${options.kiosks} kiosks connected`);

    const acknowledged = { payments: new Map<string, string>(), posSessions: new Set<string>(), posConfirmed: new Set<string>(), offline: new Set<string>() };
    const pushedIds = new Set<string>();
    let completed = 0;

    const pay = () => {
      const idempotencyKey = randomUUID();
      return operation(`pay ${idempotencyKey}`, async () => {
        const answer = await call('POST', '/api/pay', { ...key, 'idempotency-key': idempotencyKey }, PAYMENT);
        const ok = answer.status === 201 || answer.status === 200;
        if (ok) acknowledged.payments.set(idempotencyKey, String(answer.body.paymentId));
        return judge('POST /api/pay', answer, ok);
      });
    };

    const sale = async (worker: number) => {
      const idempotencyKey = randomUUID();
      let sessionId: string | undefined;
      const created = await operation(`create session ${idempotencyKey}`, async () => {
        const answer = await call('POST', '/api/pos/sessions', { ...key, 'idempotency-key': idempotencyKey }, { amount: TAP_MINOR / 100, currency: 'NGN', description: 'rolling' });
        if (answer.status === 201) sessionId = String(answer.body.sessionId);
        return judge('POST /api/pos/sessions', answer, answer.status === 201);
      });
      if (!created || !sessionId) return false;
      const id = sessionId;
      const tagId = tags[worker % tags.length]!;
      return operation(`tap ${id}`, async () => {
        const tapped = await call('POST', `/api/pos/sessions/${id}/tap`, key, { tagId });
        if (tapped.status === 200 && tapped.body.status === 'completed') {
          acknowledged.posSessions.add(id);
          return { done: true };
        }
        if (tapped.status === 409) {
          // The first tap's answer was lost on its way back: what happened is the session's state.
          const session = await call('GET', `/api/pos/sessions/${id}`, key);
          if (session.status === 200 && session.body.status === 'completed') {
            acknowledged.posConfirmed.add(id);
            return { done: true };
          }
          return session.status === 200 ? { failed: `tap answered ${tapped.label}, session ${String(session.body.status)}` } : { retry: `GET /api/pos/sessions/:id ${session.label}` };
        }
        return judge('POST /api/pos/sessions/:id/tap', tapped, false);
      });
    };

    /** A kiosk pushes an offline tap, pushed again with the same document id until it has its verdict. */
    const offlineTap = (kiosk: Kiosk, index: number) => {
      const doc: OfflinePaymentDoc = {
        id: randomUUID(), terminalId: kiosk.terminal.id, kind: 'tap', tagId: tags[(index + 3) % tags.length]!, amountMinor: TAP_MINOR, currency: 'NGN',
        description: 'rolling offline', capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0,
      };
      pushedIds.add(doc.id);
      return operation(`offline ${doc.id}`, async () => {
        // A kiosk that is reconnecting keeps the document queued: waiting is no failed attempt.
        await waitFor('the kiosk to be connected', () => kiosk.socket.connected, 30_000).catch(() => undefined);
        requests += 1;
        const answer = await (kiosk.socket.timeout(10_000).emitWithAck(SYNC_EVENTS.push, { collection: 'offline_payments', rows: [{ assumedMasterState: null, newDocumentState: doc }] }) as Promise<PushResponse | SyncFailure>).catch(
          (error: unknown) => ({ lost: error instanceof Error ? error.message : String(error) }),
        );
        if ('conflicts' in answer) {
          const verdict = answer.conflicts[0];
          if (verdict?.status === 'accepted') {
            acknowledged.offline.add(doc.id);
            return { done: true };
          }
          return { failed: `declined ${JSON.stringify(verdict)}` };
        }
        return 'lost' in answer ? { retry: `push: ${kiosk.socket.connected ? 'no acknowledgement' : 'disconnected'}` } : { retry: `push: ${answer.code}` };
      });
    };

    running = true;
    const workers = [
      ...Array.from({ length: options.clients }, async (_, worker) => {
        for (let round = 0; running; round++) {
          if (await ((worker + round) % 2 === 0 ? pay() : sale(worker))) completed += 1;
        }
      }),
      ...kiosks.map(async (kiosk, index) => {
        for (let round = 0; running; round++) {
          if (await offlineTap(kiosk, index + round)) completed += 1;
          await sleep(100);
        }
      }),
    ];

    // Traffic flows before, between and after the restarts.
    const flowing = async (operations: number) => {
      const target = completed + operations;
      await waitFor(`${operations} operations to complete`, () => completed >= target);
    };
    await flowing(30);
    let restarts = 0;
    for (let round = 0; round < rounds; round++) {
      for (const [index, server] of servers.entries()) {
        if (round === 0 && index === servers.length - 1) {
          if (observerDrops > 0) problems.push(`a kiosk on instance ${servers.length} was disconnected ${observerDrops} times while the other instances restarted`);
          observer.disconnect();
        }
        const began = Date.now();
        const exitCode = await server.stop();
        if (exitCode !== 0) problems.push(`instance ${index + 1}: SIGTERM ended with exit code ${exitCode}:\n${shutdownOutput(server.output())}`);
        const stoppedMs = Date.now() - began;
        await server.start();
        await waitFor(`instance ${index + 1} ready`, async () => (await fetch(`${server.url}/api/health/ready`).then((response) => response.status, () => 0)) === 200);
        await waitFor(`HAProxy to send instance ${index + 1} traffic again`, async () => (await proxy.status())[`i${index + 1}`] === 'UP');
        restarts += 1;
        log(`rolling: instance ${index + 1} stopped in ${(stoppedMs / 1000).toFixed(1)} s, back in rotation after ${((Date.now() - began) / 1000).toFixed(1)} s; ${retries} retries so far`);
        // Every kiosk is connected (again) and was greeted before the next instance goes.
        await waitFor('every kiosk connected with a hello since its last connect', () => kiosks.every((kiosk) => kiosk.socket.connected && kiosk.helloSinceConnect));
        await flowing(20);
      }
    }
    running = false;
    await Promise.all(workers);

    // A settings change made through the proxy reaches every kiosk, whichever instance it is on.
    const heard = kiosks.map((kiosk) => new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 15_000);
      const onHello = (hello: Kiosk['lastHello']) => {
        if (hello?.tipping?.mode !== 'before') return;
        clearTimeout(timer);
        resolve(true);
      };
      kiosk.socket.on(SYNC_EVENTS.hello, onHello);
    }));
    for (const kiosk of kiosks) {
      await expect(200, call('PATCH', `/api/merchant/terminals/${kiosk.terminal.id}`, key, { tipping: { mode: 'before', percentages: [10, 15, 20] } }));
    }
    const heardChange = (await Promise.all(heard)).filter(Boolean).length;
    if (heardChange !== kiosks.length) problems.push(`${kiosks.length - heardChange} kiosks did not hear their settings change after the restarts`);
    const connectedAtEnd = kiosks.filter((kiosk) => kiosk.socket.connected).length;
    const greeted = kiosks.filter((kiosk) => kiosk.helloSinceConnect).length;
    for (const kiosk of kiosks) kiosk.socket.disconnect();

    if (mostRetries > 1) problems.push(`an operation needed ${mostRetries} retries (allowed: one)`);
    problems.push(...(await checkDatabase(probe, merchantId, { acknowledged, inDoubt: { payments: new Set(), posSessions: new Set(), offline: new Set() }, pushedIds })));
    const ledger = await checkLedger(probe);
    for (const violation of ledger.violations) problems.push(`ledger: ${violation.rule} ${violation.subject}: ${violation.detail}`);
    for (const [index, each] of servers.entries()) {
      if (/unhandled promise rejection|uncaught/i.test(each.output())) problems.push(`instance ${index + 1} logged an unhandled error:\n${each.output().slice(-2000)}`);
      const exitCode = await each.stop();
      if (exitCode !== 0) problems.push(`instance ${index + 1}: SIGTERM after the run: exit code ${exitCode}`);
    }
    problems.push(...servers.flatMap((each, index) => each.exitsOnItsOwn.map((exit) => `instance ${index + 1} exited on its own: ${exit}`)));
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      instances,
      restarts,
      requests,
      acknowledged: { payments: acknowledged.payments.size, posSales: acknowledged.posSessions.size + acknowledged.posConfirmed.size, offlinePayments: acknowledged.offline.size },
      retries,
      mostRetriesOfOneOperation: mostRetries,
      retryReasons: Object.fromEntries([...retryReasons.entries()].sort()),
      worstLatencyMs: sorted.at(-1) ?? 0,
      medianLatencyMs: sorted[Math.floor(sorted.length / 2)] ?? 0,
      kiosks: {
        disconnects: kiosks.reduce((sum, kiosk) => sum + kiosk.disconnects, 0),
        reconnects: kiosks.reduce((sum, kiosk) => sum + kiosk.connects - 1, 0),
        fewestConnectionsOfOneKiosk: Math.min(...kiosks.map((kiosk) => kiosk.connects)),
        connectedAtEnd,
        heardHelloAfterLastConnect: greeted,
        heardSettingsChangeAtEnd: heardChange,
      },
      problems,
      ledger: { transfers: ledger.transfers, postings: ledger.postings, accounts: ledger.accounts },
    };
  } finally {
    finished = true;
    running = false;
    for (const kiosk of kiosks) kiosk.socket.disconnect();
    for (const socket of extraSockets) socket.disconnect();
    await proxy.stop();
    for (const each of servers) await each.kill();
    await probe.close();
    await database.drop();
  }
}
