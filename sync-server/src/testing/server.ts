import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { type BuildAppOptions, buildApp } from '../app.ts';
import { type Config, loadConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import { ensureWebBuilt } from '@tapline/web/build';
import { sha256Hex } from '../auth/secrets.ts';
import { type DatabaseTarget } from './databases.ts';
import { type ErrorAnswer, assertErrorAnswersDocumented, watchErrorAnswers } from '../openapi/error-coverage.ts';

/** The application builder, for the tests that build their own instances (shared rate limits, clusters). */
export { buildApp };

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
/** The key test servers seal stored secrets with (never a key file in the working directory). */
export const TEST_SECRETS_KEY_HEX = '7e57'.repeat(16);
export const ADMIN = { authorization: `Bearer admin.${TEST_ADMIN_TOKEN}` };

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestServer {
  app: FastifyInstance;
  /** The modules' context: db, config, clock (and the services later issues add). */
  context: AppContext;
  db: Database;
  config: Config;
  baseUrl: string;
  /** A real HTTP request to the listening server; JSON in, parsed JSON out. */
  request<T = Record<string, unknown>>(method: string, path: string, options?: { body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  /** Provisions a merchant through the admin API. */
  createMerchant(fields?: Partial<{ name: string; handle: string; country: string; currency: string; webhookUrl: string }>): Promise<{ id: string; handle: string; testKey: string; liveKey: string; webhookSecret: string }>;
  /** Provisions a customer wallet and optionally funds it. */
  createWallet(fields: { handle: string; pin?: string; currency?: string; country?: string; mode?: 'test' | 'live'; fund?: number }): Promise<void>;
}

let handleCounter = 0;
export function uniqueHandle(prefix = 'user'): string {
  handleCounter += 1;
  return `${prefix}_${process.pid}_${handleCounter}`;
}

/** Inside a describe(): a server on a fresh database, listening on a free loopback port. */
export interface TestServerOptions {
  /** Extra environment for loadConfig (LOG_LEVEL, limits...). */
  env?: Record<string, string>;
  rateLimitScale?: number;
  /** The clock the modules read; inject a controllable one to test expiry without waiting. */
  now?: () => Date;
  /**
   * Start the background workers (event dispatcher, payment scheduler) as in production. Default
   * false: tests run them deterministically with server().context.events.runOnce().
   */
  backgroundJobs?: boolean;
  /** More buildApp options (payout and biller adapters, an FX provider...). */
  app?: Partial<Omit<BuildAppOptions, 'config' | 'db' | 'adminTokenHash'>>;
  /** Listen on this port (default: any free one); with PUBLIC_BASE_URL, a provider fake can call back before the server exists. */
  port?: number;
}

export function useTestServer(target: DatabaseTarget, options: TestServerOptions = {}): () => TestServer {
  let server: TestServer | undefined;
  let dispose: (() => Promise<void>) | undefined;
  let errorAnswers: ErrorAnswer[] = [];
  before(async () => {
    const opened = await target.open();
    // Until the server listens, a failure (a taken port, a bad option) must still close what was
    // opened: an app left open keeps its pools, jobs and socket.io alive, and the file's process
    // then never ends (seen: a suite whose listen failed held its file until the runner's ceiling).
    dispose = () => opened.dispose();
    const config = loadConfig({ ADMIN_TOKEN: TEST_ADMIN_TOKEN, LOG_LEVEL: 'silent', SANDBOX_FLOAT: '1000000', ...options.env });
    // The pages' scripts and the drop-in, as npm start serves them: built when their sources changed.
    if (!options.env?.WEB_DIR) await ensureWebBuilt(config.webDir);
    const { app, context } = await buildApp({
      config,
      db: opened.db,
      adminTokenHash: sha256Hex(TEST_ADMIN_TOKEN),
      secretsKey: Buffer.from(TEST_SECRETS_KEY_HEX, 'hex'),
      logger: false,
      rateLimitScale: options.rateLimitScale ?? 1,
      backgroundJobs: options.backgroundJobs ?? false,
      ...(options.now ? { now: options.now } : {}),
      ...options.app,
    });
    dispose = async () => {
      await app.close();
      await opened.dispose();
    };
    // Every error the suite makes a route answer must be one its OpenAPI operation lists (checked after the suite).
    errorAnswers = watchErrorAnswers(app);
    await app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
    const address = app.server.address();
    const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const request: TestServer['request'] = async (method, path, requestOptions = {}) => {
      const headers: Record<string, string> = { ...requestOptions.headers };
      let body: string | undefined = requestOptions.rawBody;
      if (requestOptions.body !== undefined) {
        body = JSON.stringify(requestOptions.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(baseUrl + path, { method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // Not JSON: keep the text.
      }
      return { status: response.status, headers: response.headers, body: parsed as never };
    };
    server = {
      app,
      context,
      db: opened.db,
      config,
      baseUrl,
      request,
      async createMerchant(fields = {}) {
        const response = await request<{ id: string; handle: string; testKey: string; liveKey: string; webhookSecret: string }>('POST', '/api/admin/merchants', {
          headers: ADMIN,
          body: { name: 'Test Shop', handle: uniqueHandle('shop'), country: 'NG', currency: 'NGN', ...fields },
        });
        if (response.status !== 201) throw new Error(`createMerchant: ${response.status} ${JSON.stringify(response.body)}`);
        return response.body;
      },
      async createWallet({ handle, pin = '1234', currency = 'NGN', country = 'NG', mode = 'test', fund }) {
        const created = await request('POST', '/api/admin/wallets', { headers: ADMIN, body: { handle, pin, currency, country, mode, displayName: handle } });
        if (created.status !== 201) throw new Error(`createWallet: ${created.status} ${JSON.stringify(created.body)}`);
        if (fund) {
          const credited = await request('POST', `/api/admin/wallets/${handle}/credit`, { headers: ADMIN, body: { amount: fund, currency, mode } });
          if (credited.status !== 200) throw new Error(`credit: ${credited.status} ${JSON.stringify(credited.body)}`);
        }
      },
    };
  });
  after(async () => {
    try {
      if (server) assertErrorAnswersDocumented(server.app, errorAnswers);
    } finally {
      await dispose?.();
    }
  });
  return () => {
    if (!server) throw new Error('test server not started yet: call the getter inside a test');
    return server;
  };
}
