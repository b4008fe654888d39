// The chaos run: the real server process on PostgreSQL under mixed traffic from many clients
// (sandbox payouts with Idempotency-Key, POS sessions created and tapped, terminals pushing
// offline taps over socket.io), killed with SIGKILL and cut off from its database while it
// works. Clients retry as real ones do, with the same keys and document ids. Afterwards the
// database must show that every acknowledged operation happened exactly once, that nothing
// happened twice, that no wallet is negative and that balances equal postings, and the server
// must never have exited on its own. With `instances` > 1 the same traffic goes through HAProxy
// to several server processes on one PostgreSQL (docs/deploy.md), the kills take them in turn,
// and a terminal connected to one instance must hear what a request to another changed.
// `npm run chaos` runs the long version (run.ts); chaos.test.ts runs short ones in CI.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { type OfflinePaymentDoc, type PushResponse, SYNC_EVENTS, SYNC_NAMESPACE, type SyncFailure } from '@tapline/shared/sync-protocol';
import { PostgresDatabase } from '@tapline/sync-server/db/postgres';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { type StartedServerProcess, createPostgresDatabase, freePort, startServerProcess } from '@tapline/sync-server/testing';

export interface ChaosOptions {
  /** How long the traffic runs; the faults are spread evenly over it. */
  seconds: number;
  /** Concurrent clients, each one operation at a time. */
  clients: number;
  /** SIGKILLs of the server (each followed by a restart on the same port). */
  kills: number;
  /** Rounds of pg_terminate_backend on every connection of the server. */
  terminations: number;
  /**
   * How long clients keep retrying an operation they started before the traffic stopped. A key
   * claimed by a killed process answers 409 idempotency_in_progress until the claim counts as
   * abandoned; operations still unanswered then are "in doubt": checked to have happened at
   * most once, not counted as acknowledged.
   */
  drainSeconds: number;
  /** PostgreSQL server to create the run's database on (dropped afterwards). */
  databaseUrl?: string;
  /** Server processes on the one database; more than one runs them behind HAProxy (default 1, no proxy). */
  instances?: number;
  /**
   * Faults of the caller's own, after the kills and terminations in the evenly spread plan (the
   * failover run kills the database primary). Each answers a line for the log.
   */
  faults?: { name: string; run: () => Promise<string> }[];
  /**
   * Told of every acknowledged operation: when the attempt that was answered started, and when
   * the answer came (the failover run measures its unavailability from these).
   */
  onAcknowledged?: (attemptStartedAt: number, answeredAt: number) => void;
  log?: (line: string) => void;
}

export interface ChaosReport {
  requests: number;
  answers: Record<string, number>;
  acknowledged: { payments: number; posSessions: number; posConfirmedAfterLostAnswer: number; offlinePayments: number };
  inDoubt: { payments: number; posSessions: number; offlinePayments: number };
  kills: number;
  terminations: number;
  terminatedConnections: number;
  /** Exits nobody asked for: must stay empty. */
  exitsOnItsOwn: string[];
  instances: number;
  /** Several instances: a terminal on one instance was told of a change made through another. */
  crossInstanceHello?: boolean;
  /** Every rule the database or the answers broke: must stay empty. */
  problems: string[];
  ledger: { transfers: number; postings: number; accounts: number };
}

const ADMIN_TOKEN = 'chaos-admin-token-0123456789abcdef';
const ADMIN = { authorization: `Bearer admin.${ADMIN_TOKEN}` };
const SECRETS_KEY = 'c4a0'.repeat(16);
const PAYMENT = { fromCode: 'NG', toCode: 'KE', rail: 'mobile_money', amount: 1, currency: 'NGN', receiver: '+254712345678', receiverName: 'Wanjiku Kamau' };
const CUSTOMERS = 16;
const TERMINALS = 4;
const TAP_MINOR = 150;
/** Answers after which a client tries the same request again. */
const RETRYABLE = /^(network error|503 database_unavailable|409 idempotency_in_progress|429 rate_limited)$/;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  status: number;
  body: Record<string, unknown>;
  label: string;
}

/** The server process under test: started, SIGKILLed and restarted on one port; any other exit is recorded. */
export class ServerUnderTest {
  private current: StartedServerProcess | undefined;
  private killing = false;
  readonly exitsOnItsOwn: string[] = [];
  /** `builtMain`: run the production bundle with plain node (sync-server/dist/main.js) instead of the sources under tsx. */
  constructor(private readonly env: Record<string, string>, private readonly options: { builtMain?: string } = {}) {}

  get url(): string {
    return `http://127.0.0.1:${this.env.PORT}`;
  }

  output(): string {
    return this.current?.output() ?? '';
  }

  async start(): Promise<void> {
    const started = await startServerProcess(this.env, { killAfterTest: false, ...(this.options.builtMain ? { builtMain: this.options.builtMain } : {}) });
    started.child.once('exit', (code, signal) => {
      if (!this.killing) this.exitsOnItsOwn.push(`exit code ${code}, signal ${signal}: ${started.output().slice(-2000)}`);
    });
    this.current = started;
  }

  async kill(): Promise<void> {
    const child = this.current?.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.killing = true;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.killing = false;
  }

  /** SIGTERM, as an operator stops it: in-flight requests finish. Answers the exit code. */
  async stop(): Promise<number | null> {
    const child = this.current?.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    this.killing = true;
    // After the exit, a later exit of a restarted process counts as on its own again.
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => {
      this.killing = false;
      resolve(code);
    }));
    child.kill('SIGTERM');
    return exited;
  }
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => undefined);
  const database = await createPostgresDatabase(options.databaseUrl);
  const probe = new PostgresDatabase({ connectionString: database.url, poolSize: 1 });
  const instances = options.instances ?? 1;
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
      SCHEDULER_POLL_MS: '250',
      // Several instances count one rate-limit budget per client and trust the proxy's X-Forwarded-For.
      ...(instances > 1 ? { RATE_LIMIT_STORE: 'postgres', TRUST_PROXY: '1' } : {}),
    }));
  }
  const proxy = instances > 1 ? new HaproxyInFront(servers.map((each) => each.url)) : undefined;
  const server = { url: '' };
  const sockets: Socket[] = [];
  const answers = new Map<string, number>();
  const problems: string[] = [];
  let requests = 0;
  // Set once the run is over: a reconnection timer still pending must not reopen a socket, or this
  // process never exits (a test file's process stayed alive until CI's own limit that way).
  let finished = false;
  // The traffic's workers loop while this holds; a run that throws half way must stop them too.
  let running = false;
  try {
    // Together, as a service manager starts them: the migrations run once (an advisory lock).
    await Promise.all(servers.map((each) => each.start()));
    server.url = proxy ? await proxy.start() : servers[0]!.url;
    const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> => {
      requests += 1;
      let answer: Answer;
      try {
        const response = await fetch(server.url + path, {
          method,
          headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(15_000),
        });
        const text = await response.text();
        const parsed = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
        answer = { status: response.status, body: parsed, label: response.status < 300 ? `${response.status}` : `${response.status} ${String(parsed.code)}` };
      } catch {
        answer = { status: 0, body: {}, label: 'network error' };
      }
      answers.set(`${method} ${path.replace(/[0-9a-f-]{36}/g, ':id')} ${answer.label}`, (answers.get(`${method} ${path.replace(/[0-9a-f-]{36}/g, ':id')} ${answer.label}`) ?? 0) + 1);
      if (answer.status >= 500 && answer.label !== '503 database_unavailable') problems.push(`${method} ${path} answered ${answer.label}: ${JSON.stringify(answer.body).slice(0, 200)}`);
      return answer;
    };
    const expect = async (status: number, answer: Promise<Answer>): Promise<Record<string, unknown>> => {
      const settled = await answer;
      if (settled.status !== status) throw new Error(`setup: ${settled.label} ${JSON.stringify(settled.body)}`);
      return settled.body;
    };

    // The shop: one merchant (limits raised for the load), funded customers with a ring each, terminals.
    const merchant = await expect(201, call('POST', '/api/admin/merchants', ADMIN, { name: 'Chaos Market', handle: 'chaos_market', country: 'NG', currency: 'NGN' }));
    const merchantId = String(merchant.id);
    await expect(200, call('PATCH', `/api/admin/merchants/${merchantId}`, ADMIN, { rateLimitMultiplier: 1000 }));
    const key = { 'x-merchant-api-key': String(merchant.testKey) };
    const tags: string[] = [];
    for (let index = 0; index < CUSTOMERS; index++) {
      const handle = `chaos_customer_${index}`;
      await expect(201, call('POST', '/api/admin/wallets', ADMIN, { handle, country: 'NG', currency: 'NGN', pin: '1234' }));
      await expect(200, call('POST', `/api/admin/wallets/${handle}/credit`, ADMIN, { amount: 1_000_000, currency: 'NGN' }));
      tags.push(String((await expect(201, call('POST', '/api/wearables', key, { handle, tagType: 'ring', displayName: handle }))).tagId));
    }
    const terminals: { id: string; token: string }[] = [];
    for (let index = 0; index < TERMINALS; index++) {
      const terminal = await expect(201, call('POST', '/api/merchant/terminals', key, { name: `Till ${index}` }));
      terminals.push({ id: String(terminal.id), token: String(terminal.token) });
    }
    log(`chaos: ${instances > 1 ? `${instances} servers behind HAProxy at` : 'server on'} ${server.url}, ${CUSTOMERS} funded customers with rings, ${TERMINALS} terminals; ${options.clients} clients for ${options.seconds} s`);

    running = true;
    let stoppedAt = 0;
    const drainDeadline = () => (running ? Infinity : stoppedAt + options.drainSeconds * 1000);
    const acknowledged = { payments: new Map<string, string>(), posSessions: new Set<string>(), posConfirmed: new Set<string>(), offline: new Set<string>() };
    const inDoubt = { payments: new Set<string>(), posSessions: new Set<string>(), offline: new Set<string>() };
    const pushedIds = new Set<string>();
    const acknowledge = (attemptStartedAt: number) => options.onAcknowledged?.(attemptStartedAt, Date.now());
    const backoff = (attempt: number) => sleep(Math.min(100 * 2 ** attempt, 1_000) * (0.5 + Math.random()));

    /** A payout with its own Idempotency-Key, retried with that key until it is answered. */
    const pay = async () => {
      const idempotencyKey = randomUUID();
      for (let attempt = 0; Date.now() < drainDeadline(); attempt++) {
        const attemptAt = Date.now();
        const answer = await call('POST', '/api/pay', { ...key, 'idempotency-key': idempotencyKey }, PAYMENT);
        if (answer.status === 201 || answer.status === 200) {
          acknowledge(attemptAt);
          return void acknowledged.payments.set(idempotencyKey, String(answer.body.paymentId));
        }
        if (!RETRYABLE.test(answer.label)) return void problems.push(`pay ${idempotencyKey}: ${answer.label} ${JSON.stringify(answer.body)}`);
        await backoff(attempt);
      }
      inDoubt.payments.add(idempotencyKey);
    };

    /** A POS sale: a session, then a tap retried until it is answered. */
    const sale = async (worker: number) => {
      let sessionId: string | undefined;
      for (let attempt = 0; !sessionId && Date.now() < drainDeadline(); attempt++) {
        // The key is honoured once POS creation is idempotent; until then a retry may leave an unpaid session behind, which moves no money.
        const created = await call('POST', '/api/pos/sessions', { ...key, 'idempotency-key': randomUUID() }, { amount: TAP_MINOR / 100, currency: 'NGN', description: 'chaos' });
        if (created.status === 201) sessionId = String(created.body.sessionId);
        else if (!RETRYABLE.test(created.label)) return void problems.push(`create session: ${created.label}`);
        else await backoff(attempt);
      }
      if (!sessionId) return;
      const tagId = tags[worker % tags.length]!;
      for (let attempt = 0; Date.now() < drainDeadline(); attempt++) {
        const attemptAt = Date.now();
        const tapped = await call('POST', `/api/pos/sessions/${sessionId}/tap`, key, { tagId });
        if (tapped.status === 200 && tapped.body.status === 'completed') {
          acknowledge(attemptAt);
          return void acknowledged.posSessions.add(sessionId);
        }
        if (tapped.status === 409 || (tapped.status === 200 && tapped.body.status !== 'completed')) {
          // The first tap's answer was lost (or this tap raced it): what happened is the session's state.
          const session = await call('GET', `/api/pos/sessions/${sessionId}`, key);
          if (session.status === 200 && session.body.status === 'completed') {
            acknowledge(attemptAt);
            return void acknowledged.posConfirmed.add(sessionId);
          }
          if (session.status === 200) return void problems.push(`session ${sessionId} answered ${tapped.label} and is ${String(session.body.status)}`);
        } else if (tapped.status === 404) {
          // The session was created (201): a 404 is a wrong answer. Say whether the session exists
          // now, i.e. whether the read came from a database node that did not have it yet.
          const later = await call('GET', `/api/pos/sessions/${sessionId}`, key);
          return void problems.push(`tap ${sessionId}: 404 ${String(tapped.body.code)} for a session created with 201; it ${later.status === 200 ? `reads ${String(later.body.status)} now (a stale read)` : `still answers ${later.label}`}`);
        } else if (tapped.status === 410) {
          return; // expired while the server was down: no money moved (checked below)
        } else if (!RETRYABLE.test(tapped.label)) {
          return void problems.push(`tap ${sessionId}: ${tapped.label} ${JSON.stringify(tapped.body)}`);
        }
        await backoff(attempt);
      }
      inDoubt.posSessions.add(sessionId);
    };

    /** A terminal's sync connection, reconnected as the kiosk does, also after a refused handshake. */
    const socketOf = (worker: number): Socket => {
      if (sockets[worker]) return sockets[worker];
      const terminal = terminals[worker % terminals.length]!;
      const socket = io(`${server.url}${SYNC_NAMESPACE}`, { auth: { token: `term.${terminal.token}` }, transports: ['websocket'], reconnectionDelay: 250, reconnectionDelayMax: 1_000, forceNew: true });
      socket.on('connect_error', () => {
        if (!socket.active) setTimeout(() => finished || socket.connect(), 500);
      });
      socket.on('disconnect', (reason) => {
        if (reason === 'io server disconnect') setTimeout(() => finished || socket.connect(), 500);
      });
      sockets[worker] = socket;
      return socket;
    };

    /** An offline tap pushed by a terminal, pushed again (same document id) until it has a verdict. */
    const offlineTap = async (worker: number) => {
      const socket = socketOf(worker);
      const terminal = terminals[worker % terminals.length]!;
      const doc: OfflinePaymentDoc = {
        id: randomUUID(), terminalId: terminal.id, kind: 'tap', tagId: tags[(worker + 7) % tags.length]!, amountMinor: TAP_MINOR, currency: 'NGN',
        description: 'chaos offline', capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0,
      };
      pushedIds.add(doc.id);
      for (let attempt = 0; Date.now() < drainDeadline(); attempt++) {
        if (!socket.connected) {
          await sleep(200);
          continue;
        }
        requests += 1;
        const attemptAt = Date.now();
        const answer = await (socket.timeout(10_000).emitWithAck(SYNC_EVENTS.push, { collection: 'offline_payments', rows: [{ assumedMasterState: null, newDocumentState: doc }] }) as Promise<PushResponse | SyncFailure>).catch(() => undefined);
        const label = answer === undefined ? 'no answer' : 'conflicts' in answer ? `verdict ${String(answer.conflicts[0]?.status)}` : `failure ${answer.code}`;
        answers.set(`push ${label}`, (answers.get(`push ${label}`) ?? 0) + 1);
        if (answer && 'conflicts' in answer) {
          const verdict = answer.conflicts[0];
          if (verdict?.status === 'accepted') {
            acknowledge(attemptAt);
            return void acknowledged.offline.add(doc.id);
          }
          return void problems.push(`offline ${doc.id} declined: ${JSON.stringify(verdict)}`);
        }
        await backoff(attempt);
      }
      inDoubt.offline.add(doc.id);
    };

    const workers = Array.from({ length: options.clients }, async (_, worker) => {
      for (let round = 0; running; round++) {
        const kind = (worker + round) % 3;
        if (kind === 0) await pay();
        else if (kind === 1) await sale(worker);
        else await offlineTap(worker);
      }
    });

    // The faults, spread evenly over the run: kills and terminations alternate.
    const plan: ('kill' | 'terminate' | { name: string; run: () => Promise<string> })[] = [...interleave(options.kills, options.terminations), ...(options.faults ?? [])];
    let kills = 0;
    let terminations = 0;
    let terminatedConnections = 0;
    const began = Date.now();
    for (const [index, fault] of plan.entries()) {
      const at = began + ((index + 1) * options.seconds * 1000) / (plan.length + 1);
      await sleep(Math.max(0, at - Date.now()));
      if (typeof fault === 'object') {
        log(`chaos: ${await fault.run()}`);
      } else if (fault === 'kill') {
        const killedAt = Date.now();
        const victim = servers[kills % servers.length]!;
        await victim.kill();
        await victim.start();
        kills += 1;
        log(`chaos: SIGKILL ${kills}/${options.kills}${instances > 1 ? ` of instance ${(kills - 1) % servers.length + 1}` : ''} at ${((killedAt - began) / 1000).toFixed(1)} s; restarted in ${((Date.now() - killedAt) / 1000).toFixed(1)} s`);
      } else {
        const rows = await probe.query<{ terminated: boolean }>(
          'SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        );
        const ended = rows.filter((row) => row.terminated).length;
        terminatedConnections += ended;
        terminations += 1;
        log(`chaos: terminated the server's ${ended} database connections (${terminations}/${options.terminations}) at ${((Date.now() - began) / 1000).toFixed(1)} s`);
      }
    }
    await sleep(Math.max(0, began + options.seconds * 1000 - Date.now()));
    running = false;
    stoppedAt = Date.now();
    log(`chaos: traffic stopped after ${((stoppedAt - began) / 1000).toFixed(1)} s; clients finish what they started (at most ${options.drainSeconds} s)`);
    await Promise.all(workers);
    for (const socket of sockets) socket?.disconnect();

    problems.push(...(await checkDatabase(probe, merchantId, { acknowledged, inDoubt, pushedIds })));
    const ledger = await checkLedger(probe);
    for (const violation of ledger.violations) problems.push(`ledger: ${violation.rule} ${violation.subject}: ${violation.detail}`);
    const crossInstanceHello = instances > 1 ? await helloAcrossInstances(servers, terminals[0]!, key) : undefined;
    if (crossInstanceHello === false) {
      // What the instances' socket.io adapters were doing: their LISTEN connections and what they logged.
      const listening = await probe.query<{ n: number }>("SELECT count(*)::int8 AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN%'").catch(() => [{ n: -1 }]);
      const adapterLines = servers.map((each, index) => `instance ${index + 1}: ${each.output().split('\n').filter((line) => line.includes('sync adapter')).slice(-3).join(' | ').slice(0, 600)}`);
      problems.push(`a terminal connected to one instance did not hear of a change made through another (${listening[0]?.n} LISTEN connections; ${adapterLines.join('; ')})`);
    }
    for (const each of servers) {
      if (/unhandled promise rejection|uncaught/i.test(each.output())) problems.push(`a server logged an unhandled error:\n${each.output().slice(-2000)}`);
      const exitCode = await each.stop();
      if (exitCode !== 0) problems.push(`SIGTERM after the run: exit code ${exitCode}:\n${each.output().slice(-3000)}`);
    }
    return {
      requests,
      answers: Object.fromEntries([...answers.entries()].sort()),
      acknowledged: { payments: acknowledged.payments.size, posSessions: acknowledged.posSessions.size, posConfirmedAfterLostAnswer: acknowledged.posConfirmed.size, offlinePayments: acknowledged.offline.size },
      inDoubt: { payments: inDoubt.payments.size, posSessions: inDoubt.posSessions.size, offlinePayments: inDoubt.offline.size },
      kills,
      terminations,
      terminatedConnections,
      exitsOnItsOwn: servers.flatMap((each) => each.exitsOnItsOwn),
      instances,
      ...(crossInstanceHello === undefined ? {} : { crossInstanceHello }),
      problems,
      ledger: { transfers: ledger.transfers, postings: ledger.postings, accounts: ledger.accounts },
    };
  } finally {
    finished = true;
    running = false;
    for (const socket of sockets) socket?.disconnect();
    await proxy?.stop();
    for (const each of servers) await each.kill();
    await probe.close();
    await database.drop();
  }
}

/**
 * HAProxy (the Debian package) in front of the instances, as docs/deploy.md configures it:
 * round-robin HTTP, WebSocket upgrades passed through, each instance checked on its readiness
 * every 500 ms so a killed one is out of the rotation within a second.
 */
export class HaproxyInFront {
  private child: ChildProcess | undefined;
  private dir = '';
  private output = '';
  constructor(private readonly backends: string[]) {}

  async start(): Promise<string> {
    const port = await freePort();
    this.dir = await mkdtemp(join(tmpdir(), 'tapline-haproxy-'));
    const config = [
      'global',
      '  maxconn 4096',
      // The runtime API: server states for the rolling restart (status()).
      `  stats socket ${join(this.dir, 'admin.sock')} mode 600 level admin`,
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  timeout tunnel 1h',
      // A readiness answer may take up to its 2 s database deadline on a loaded machine: slow is not down.
      '  timeout check 3s',
      '  option forwardfor',
      '  retries 2',
      '  option redispatch',
      'frontend tapline',
      `  bind 127.0.0.1:${port}`,
      '  default_backend instances',
      'backend instances',
      '  balance roundrobin',
      '  option httpchk GET /api/health/ready',
      '  http-check expect status 200',
      ...this.backends.map((url, index) => `  server i${index + 1} ${new URL(url).host} check inter 500 fall 1 rise 1`),
      '',
    ].join('\n');
    const file = join(this.dir, 'haproxy.cfg');
    await writeFile(file, config);
    this.child = spawn('haproxy', ['-f', file, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    const url = `http://127.0.0.1:${port}`;
    for (let attempt = 0; attempt < 100; attempt++) {
      if (this.child.exitCode !== null) throw new Error(`haproxy exited: ${this.output}`);
      const ready = await fetch(`${url}/api/health/ready`).then((response) => response.status, () => 0);
      if (ready === 200) return url;
      await sleep(100);
    }
    throw new Error(`haproxy did not answer: ${this.output}`);
  }

  /** Each instance's state as HAProxy sees it (`show stat`): i1..iN -> UP, DOWN, NOLB, MAINT... */
  async status(): Promise<Record<string, string>> {
    const { createConnection } = await import('node:net');
    const text = await new Promise<string>((resolve, reject) => {
      let answer = '';
      const socket = createConnection(join(this.dir, 'admin.sock'), () => socket.end('show stat\n'));
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
    });
    const [header, ...rows] = text.trim().split('\n');
    const columns = (header ?? '').replace(/^# /, '').split(',');
    const [proxy, name, status] = ['pxname', 'svname', 'status'].map((column) => columns.indexOf(column)) as [number, number, number];
    const states: Record<string, string> = {};
    for (const row of rows) {
      const cells = row.split(',');
      if (cells[proxy] === 'instances' && cells[name] !== 'BACKEND') states[cells[name]!] = cells[status]!;
    }
    return states;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * A terminal connected straight to the first instance hears the new hello when its tipping is
 * changed through each of the others (socket.io's PostgreSQL adapter carries the emit).
 */
async function helloAcrossInstances(servers: ServerUnderTest[], terminal: { id: string; token: string }, key: Record<string, string>): Promise<boolean> {
  const socket = io(`${servers[0]!.url}${SYNC_NAMESPACE}`, { auth: { token: `term.${terminal.token}` }, transports: ['websocket'], reconnection: false, forceNew: true });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once(SYNC_EVENTS.hello, () => resolve());
      socket.once('connect_error', reject);
    });
    for (const [index, other] of servers.slice(1).entries()) {
      const mode = index % 2 === 0 ? 'after' : 'before';
      const heard = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 15_000);
        const onHello = (hello: { tipping?: { mode?: string } }) => {
          if (hello.tipping?.mode !== mode) return;
          clearTimeout(timer);
          socket.off(SYNC_EVENTS.hello, onHello);
          resolve(true);
        };
        socket.on(SYNC_EVENTS.hello, onHello);
      });
      const changed = await fetch(`${other.url}/api/merchant/terminals/${terminal.id}`, {
        method: 'PATCH',
        headers: { ...key, 'content-type': 'application/json' },
        body: JSON.stringify({ tipping: { mode, percentages: [10, 15, 20] } }),
      });
      if (changed.status !== 200 || !(await heard)) return false;
    }
    return true;
  } catch {
    return false;
  } finally {
    socket.disconnect();
  }
}

/** `kills` and `terminations` alternated, kills first, the rest of the longer list at the end. */
function interleave(kills: number, terminations: number): ('kill' | 'terminate')[] {
  const plan: ('kill' | 'terminate')[] = [];
  for (let index = 0; index < Math.max(kills, terminations); index++) {
    if (index < kills) plan.push('kill');
    if (index < terminations) plan.push('terminate');
  }
  return plan;
}

/**
 * What the database says happened, against what the clients were told: every acknowledged
 * operation exactly once (its ledger transfer, found by the id derived from it), nothing that no
 * client started, nothing twice.
 */
export async function checkDatabase(
  db: PostgresDatabase,
  merchantId: string,
  seen: {
    acknowledged: { payments: Map<string, string>; posSessions: Set<string>; posConfirmed: Set<string>; offline: Set<string> };
    inDoubt: { payments: Set<string>; posSessions: Set<string>; offline: Set<string> };
    pushedIds: Set<string>;
  },
): Promise<string[]> {
  const problems: string[] = [];
  const { acknowledged, inDoubt } = seen;

  // Payouts: one payment per key (its id derives from the key), one debit transfer per payment.
  const payments = await db.query<{ id: string; debits: number }>(
    `SELECT p.id, (SELECT count(*) FROM ledger_transfers t WHERE t.id = p.id || ':debit')::int8 AS debits FROM payments p WHERE p.merchant_id = $1`,
    [merchantId],
  );
  const paymentIds = new Set(payments.map((row) => row.id));
  for (const row of payments) if (row.debits !== 1) problems.push(`payment ${row.id} has ${row.debits} debit transfers`);
  for (const [key, paymentId] of acknowledged.payments) if (!paymentIds.has(paymentId)) problems.push(`acknowledged payment ${paymentId} (key ${key}) is not in the database`);
  if (new Set(acknowledged.payments.values()).size !== acknowledged.payments.size) problems.push('two keys were answered with one payment');
  if (payments.length > acknowledged.payments.size + inDoubt.payments.size) {
    problems.push(`${payments.length} payments for ${acknowledged.payments.size} acknowledged and ${inDoubt.payments.size} unanswered keys`);
  }

  // POS: a completed session has exactly its one transfer; any other session none.
  const sessions = await db.query<{ id: string; status: string; transfers: number; wallet_ref: string | null }>(
    `SELECT s.id, s.status, s.wallet_ref, (SELECT count(*) FROM ledger_transfers t WHERE t.id = 'wtx_pos_' || replace(s.id::text, '-', ''))::int8 AS transfers
     FROM pos_sessions s WHERE s.merchant_id = $1`,
    [merchantId],
  );
  const completed = new Set<string>();
  for (const row of sessions) {
    if (row.status === 'completed') completed.add(row.id);
    const expected = row.status === 'completed' ? 1 : 0;
    if (row.transfers !== expected) problems.push(`POS session ${row.id} is ${row.status} with ${row.transfers} transfers`);
  }
  for (const id of [...acknowledged.posSessions, ...acknowledged.posConfirmed]) if (!completed.has(id)) problems.push(`acknowledged POS session ${id} is not completed`);
  const posTransfers = await db.query<{ n: number }>("SELECT count(*)::int8 AS n FROM ledger_transfers WHERE id LIKE 'wtx_pos_%'");
  if (posTransfers[0]?.n !== completed.size) problems.push(`${posTransfers[0]?.n} POS transfers for ${completed.size} completed sessions`);
  if (completed.size > acknowledged.posSessions.size + acknowledged.posConfirmed.size + inDoubt.posSessions.size) {
    problems.push(`${completed.size} completed sessions for ${acknowledged.posSessions.size + acknowledged.posConfirmed.size} acknowledged and ${inDoubt.posSessions.size} unanswered taps`);
  }

  // Offline taps: accepted exactly when its transfer exists, only documents a terminal pushed.
  const offline = await db.query<{ id: string; status: string; transfers: number }>(
    `SELECT o.id, o.status, (SELECT count(*) FROM ledger_transfers t WHERE t.id = 'offline:' || o.id)::int8 AS transfers FROM offline_payments o WHERE o.merchant_id = $1`,
    [merchantId],
  );
  const accepted = new Set<string>();
  for (const row of offline) {
    if (row.status === 'accepted') accepted.add(row.id);
    if (row.transfers !== (row.status === 'accepted' ? 1 : 0)) problems.push(`offline payment ${row.id} is ${row.status} with ${row.transfers} transfers`);
    if (!seen.pushedIds.has(row.id)) problems.push(`offline payment ${row.id} was never pushed`);
  }
  for (const id of acknowledged.offline) if (!accepted.has(id)) problems.push(`acknowledged offline payment ${id} is not accepted`);
  if (accepted.size > acknowledged.offline.size + inDoubt.offline.size) problems.push(`${accepted.size} accepted offline payments for ${acknowledged.offline.size} acknowledged and ${inDoubt.offline.size} unanswered`);

  const negative = await db.query<{ n: number }>("SELECT count(*)::int8 AS n FROM ledger_accounts WHERE owner_type = 'wallet' AND balance < 0");
  if ((negative[0]?.n ?? 0) > 0) problems.push(`${negative[0]?.n} wallet accounts below zero`);
  return problems;
}
