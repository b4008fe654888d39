// What the HTTP benchmarks share: the real server in its own process, a lean keep-alive HTTP
// client for the load generator, CPU accounting per process, and small helpers.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type Socket, connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { PostgresDatabase } from '@tapline/sync-server/db/postgres';

export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const root = fileURLToPath(new URL('../../', import.meta.url));

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/**
 * A minimal keep-alive HTTP/1.1 client over raw sockets: the load generator shares the machine
 * with the server and PostgreSQL, so it must cost as little CPU as possible (pgbench is C).
 * One request at a time per connection; idle connections are reused.
 */
export class Connection {
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

export class Client {
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

/**
 * The real server (sync-server/src/main.ts) in its own process, on the bench database: PostgreSQL at
 * `databaseUrl`, or embedded PGlite in `{ dataDir }`. `env` is applied last (a fixed PORT, rails...).
 */
export async function startServer(database: string | { dataDir: string }, env: Record<string, string> = {}): Promise<{ child: ChildProcess; origin: URL }> {
  const extra = process.env.BENCH_SERVER_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...extra, '--import', 'tsx', 'sync-server/src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      ...(typeof database === 'string' ? { DATABASE_URL: database } : { DATABASE_URL: '', DATA_DIR: database.dataDir }),
      PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      ...env,
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

export async function inBatches<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); 0 elsewhere. */
export function processCpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Where the CPU went during a phase: the server process, this load generator, the database backends. */
export async function cpuSnapshot(db: PostgresDatabase, serverPid: number | readonly number[], databaseName: string) {
  const backends = await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [databaseName]);
  const own = process.cpuUsage();
  const serverPids = typeof serverPid === 'number' ? [serverPid] : serverPid;
  return {
    server: serverPids.reduce((sum, pid) => sum + processCpuSeconds(pid), 0),
    client: (own.user + own.system) / 1e6,
    postgres: backends.reduce((sum, row) => sum + processCpuSeconds(row.pid), 0),
  };
}

export function expect(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}


/**
 * One merchant (the hot account every payment credits), its limits raised for the load, and
 * `wallets` funded customers with a ring each. Answers the merchant's key and the rings' tag ids.
 */
export async function provisionShop(http: Client, wallets: number): Promise<{ merchantId: string; key: Record<string, string>; tags: string[] }> {
  const admin = { authorization: `Bearer admin.${ADMIN_TOKEN}` };
  const merchant = await http.call<{ id: string; testKey: string }>('POST', '/api/admin/merchants', admin, { name: 'Bench Market', handle: 'bench_market', country: 'NG', currency: 'NGN' });
  expect(merchant.status === 201, `create merchant: ${merchant.status} ${JSON.stringify(merchant.body)}`);
  const raised = await http.call('PATCH', `/api/admin/merchants/${merchant.body.id}`, admin, { rateLimitMultiplier: 1000 });
  expect(raised.status === 200, `raise limits: ${raised.status}`);
  const key = { 'x-merchant-api-key': merchant.body.testKey };
  const handles = Array.from({ length: wallets }, (_, index) => `bench_customer_${index}`);
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
  console.log(`  setup: ${wallets} wallets funded, each with a ring, in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`);
  return { merchantId: merchant.body.id, key, tags };
}

/** Stops the server process (SIGTERM: it finishes in-flight requests) and waits for it to exit. */
export async function stopServer(server: { child: ChildProcess } | undefined): Promise<void> {
  if (!server) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}
