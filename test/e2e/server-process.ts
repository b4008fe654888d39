// The real sync server as a child process (`npm run server`) on a fixed port, on either database,
// that a test stops (SIGINT, SIGTERM) and starts again: what a shop does with Ctrl-C. Its data
// survives restarts (PGlite's folder or a PostgreSQL database of its own).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@tapline/sync-server/db/open';
import { ADMIN, type DatabaseTarget, TEST_ADMIN_TOKEN, TEST_SECRETS_KEY_HEX, type TestServer, createPostgresDatabase, exitOf, freePort, startServerProcess, uniqueHandle } from '@tapline/sync-server/testing';
import type { ShopServer } from './shop.ts';

export interface ServerProcess extends ShopServer {
  /** http://127.0.0.1:<port>, the same across restarts. */
  baseUrl: string;
  running(): boolean;
  /** Starts the process; resolves when it prints that it listens, with that moment (Date.now()). */
  start(): Promise<number>;
  /** Stops it with a signal, as Ctrl-C (SIGINT) or a service manager (SIGTERM) would, or kills it (SIGKILL), and waits for its exit. */
  stop(signal: 'SIGINT' | 'SIGTERM' | 'SIGKILL'): Promise<number | null>;
  /** With the process stopped: the database itself, for the ledger check. */
  openDatabase(): ReturnType<typeof openDatabase>;
  dispose(): Promise<void>;
}

export async function serverProcess(target: DatabaseTarget, extraEnv: (baseUrl: string) => Record<string, string> = () => ({})): Promise<ServerProcess> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  let env: Record<string, string>;
  let dataDir: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  let databaseUrl: string | undefined;
  if (target.name === 'postgres') {
    const created = await createPostgresDatabase();
    databaseUrl = created.url;
    drop = created.drop;
    env = { DATABASE_URL: created.url };
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'tapline-server-process-'));
    env = { DATA_DIR: dataDir };
  }
  Object.assign(env, { PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN: TEST_ADMIN_TOKEN, SECRETS_KEY: TEST_SECRETS_KEY_HEX, LOG_LEVEL: 'warn', SANDBOX_FLOAT: '1000000', POS_SWEEP_INTERVAL_MS: '1000' });
  let child: ChildProcess | null = null;

  const request: TestServer['request'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    let body = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(baseUrl + path, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: (text === '' ? null : JSON.parse(text)) as never };
  };

  const managed: ServerProcess = {
    baseUrl,
    request,
    async createMerchant(fields = {}) {
      const response = await request<{ id: string; handle: string; testKey: string; liveKey: string; webhookSecret: string }>('POST', '/api/admin/merchants', {
        headers: ADMIN,
        body: { name: 'Test Shop', handle: uniqueHandle('shop'), country: 'NG', currency: 'NGN', ...fields },
      });
      assert.equal(response.status, 201, JSON.stringify(response.body));
      return response.body;
    },
    async createWallet({ handle, pin = '1234', currency = 'NGN', country = 'NG', mode = 'test', fund }) {
      assert.equal((await request('POST', '/api/admin/wallets', { headers: ADMIN, body: { handle, pin, currency, country, mode, displayName: handle } })).status, 201);
      if (fund) assert.equal((await request('POST', `/api/admin/wallets/${handle}/credit`, { headers: ADMIN, body: { amount: fund, currency, mode } })).status, 200);
    },
    running: () => child !== null,
    async start() {
      assert.equal(child, null, 'the server is already running');
      // Extra environment is read at every start: a provider fake made after the server's address is known.
      const started = await startServerProcess({ ...env, ...extraEnv(baseUrl) });
      const listeningAt = Date.now();
      child = started.child;
      return listeningAt;
    },
    async stop(signal) {
      const running = child;
      assert.ok(running, 'the server is not running');
      const exited = exitOf(running);
      running.kill(signal);
      const code = await exited;
      child = null;
      return code;
    },
    openDatabase: () => openDatabase(databaseUrl === undefined ? { dataDirectory: dataDir! } : { databaseUrl }),
    async dispose() {
      if (child !== null) await managed.stop('SIGTERM');
      await drop?.();
      if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return managed;
}
