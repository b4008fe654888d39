// A local fake of the MTN MoMo Open API (Collections request-to-pay, Disbursements transfer),
// built from the documents in vendor/momo/ (see README.md next to this file). A plain node:http
// server: the token endpoints, the two POSTs, their status GETs, and the single callback.
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toMinor } from '@tapline/shared/money';
import { MARKET_CURRENCIES, type MomoScenario, countryOf, scenarioOf } from './scenarios.ts';

export interface MomoFakeOptions {
  port?: number;
  /**
   * The API user's callback host (api-description.md: "Provider Callback Host", e.g. a URL whose
   * host is used): when given, a POST whose X-Callback-Url has another host name is refused with
   * 500 INVALID_CALLBACK_URL_HOST, as MoMo does. Callbacks go to each POST's X-Callback-Url.
   */
  callbackBase?: string;
  /** Multiplies every delay (processing ~1 s, Ongoing 30 s, no_answer 30 s, reversal 2 s). */
  delayScale?: number;
  /** The X-Target-Environment the API user belongs to; default `sandbox` (testing.md). */
  targetEnvironment?: string;
  /** expires_in of the tokens it issues, in seconds; default 3600. */
  tokenTtlSeconds?: number;
}

type Product = 'collection' | 'disbursement';
type Status = 'PENDING' | 'SUCCESSFUL' | 'FAILED' | 'REVERSED';

interface Party {
  partyIdType: string;
  partyId: string;
}

interface Resource {
  product: Product;
  key: string;
  scenario: MomoScenario;
  amount: string;
  currency: string;
  externalId: string;
  party: Party;
  payerMessage: string | undefined;
  payeeNote: string | undefined;
  callbackUrl: string | undefined;
  status: Status;
  reason: string | undefined;
  financialTransactionId: string | undefined;
}

export interface FakePayout {
  /** The X-Reference-Id of the transfer. */
  key: string;
  externalId: string;
  /** As sent, in major units ("1500", "10.5"). */
  amount: string;
  amountMinor: number;
  currency: string;
  /** The payee's MSISDN (partyId). */
  destination: string;
  /** How many times this key was paid (MoMo pays a reference id once: anything else is a bug). */
  times: number;
  reversed: boolean;
  financialTransactionId: string;
}

export interface FakeCollection {
  key: string;
  externalId: string;
  amount: string;
  amountMinor: number;
  currency: string;
  /** The payer's MSISDN (partyId). */
  payer: string;
  times: number;
  financialTransactionId: string;
}

export interface FakeCallback {
  product: Product;
  key: string;
  url: string;
  method: 'PUT';
  body: Record<string, unknown>;
  /** The receiver's HTTP status, or 'error' when it could not be reached. Never retried. */
  delivered: number | 'error' | 'sending';
}

export interface FakeRequest {
  method: string;
  path: string;
  headers: Readonly<Record<string, string>>;
  body: unknown;
}

export interface MomoFake {
  url: string;
  /** The adapter's environment variables pointing at this fake, credentials included. */
  env: Record<string, string>;
  payouts(): FakePayout[];
  collections(): FakeCollection[];
  /** Every callback the fake sent, in order. */
  callbacks(): FakeCallback[];
  /** Every request it received (token requests included), in order. */
  requests(): FakeRequest[];
  /** How many tokens each product's token endpoint issued. */
  tokenRequests(): Record<Product, number>;
  /** Invalidates every token issued so far: the next API call with one answers 401. */
  revokeTokens(): void;
  /** From now on every callback is lost on the way (recorded as delivered 'error'), or again sent. */
  dropCallbacks(drop: boolean): void;
  /** What a status GET would show for a reference id, for assertions. */
  resource(product: Product, key: string): Record<string, unknown> | undefined;
  stop(): Promise<void>;
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const PROCESS_MS = 1_000;
const ONGOING_MS = 30_000;
const NO_ANSWER_MS = 30_000;
const REVERSAL_MS = 2_000;
const DUPLICATE_GAP_MS = 100;

/** The documents give only the words of testing.md's outcomes; these are the reason codes the fake reports for them. */
const FAILURE_OF: Partial<Record<MomoScenario, string>> = {
  failure: 'INTERNAL_PROCESSING_ERROR',
  rejected: 'APPROVAL_REJECTED',
  timeout: 'EXPIRED',
};

const REASON_MESSAGES: Readonly<Record<string, string>> = {
  INTERNAL_PROCESSING_ERROR: 'Internal error.',
  APPROVAL_REJECTED: 'The payer rejected the request.',
  EXPIRED: 'The request expired before it was approved.',
  NOT_ENOUGH_FUNDS: 'Not enough funds on payer account.',
  PAYEE_NOT_FOUND: 'Payee not found. Account holder is not registered.',
  PAYER_NOT_FOUND: 'Payer not found. Account holder is not registered.',
};

function json(res: ServerResponse, status: number, body?: unknown): void {
  if (res.writableEnded || res.destroyed) return;
  if (body === undefined) {
    res.writeHead(status, { 'content-length': '0' });
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json;charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function error(res: ServerResponse, status: number, code: string | undefined, message: string): void {
  json(res, status, code ? { code, message } : { message });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function lowerHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}

function isParty(value: unknown): value is Party {
  return !!value && typeof value === 'object' && typeof (value as Party).partyIdType === 'string' && typeof (value as Party).partyId === 'string';
}

export async function startMomoFake(options: MomoFakeOptions = {}): Promise<MomoFake> {
  const scale = options.delayScale ?? 1;
  const targetEnvironment = options.targetEnvironment ?? 'sandbox';
  const tokenTtl = options.tokenTtlSeconds ?? 3600;
  const callbackHost = options.callbackBase ? new URL(options.callbackBase).hostname : undefined;
  // The API user is a UUID (api-description.md, "Reference ID will be used as the User ID"); keys are 32 hex digits as in its examples.
  const apiUser = randomUUID();
  const apiKey = randomBytes(16).toString('hex');
  const subscriptionKeys: Record<Product, string> = { collection: randomBytes(16).toString('hex'), disbursement: randomBytes(16).toString('hex') };

  const tokens = new Map<string, { product: Product; expiresAt: number }>();
  const issued: Record<Product, number> = { collection: 0, disbursement: 0 };
  const resources: Record<Product, Map<string, Resource>> = { collection: new Map(), disbursement: new Map() };
  const attempts = new Map<string, number>();
  const paid = new Map<string, FakePayout>();
  const collected = new Map<string, FakeCollection>();
  const sent: FakeCallback[] = [];
  const received: FakeRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const held = new Set<ServerResponse>();
  let dropping = false;
  let stopped = false;

  function later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) run();
    }, ms * scale);
    timers.add(timer);
  }

  function representation(resource: Resource): Record<string, unknown> {
    return {
      amount: resource.amount,
      currency: resource.currency,
      ...(resource.financialTransactionId ? { financialTransactionId: resource.financialTransactionId } : {}),
      externalId: resource.externalId,
      [resource.product === 'disbursement' ? 'payee' : 'payer']: resource.party,
      ...(resource.payerMessage !== undefined ? { payerMessage: resource.payerMessage } : {}),
      ...(resource.payeeNote !== undefined ? { payeeNote: resource.payeeNote } : {}),
      status: resource.status,
      ...(resource.reason ? { reason: { code: resource.reason, message: REASON_MESSAGES[resource.reason] ?? resource.reason } } : {}),
    };
  }

  /** The one callback (a PUT of the resource's representation), never retried. */
  function callBack(resource: Resource): void {
    if (!resource.callbackUrl || resource.scenario === 'callback_lost') return;
    const body = representation(resource);
    const record: FakeCallback = { product: resource.product, key: resource.key, url: resource.callbackUrl, method: 'PUT', body, delivered: 'sending' };
    sent.push(record);
    if (dropping) {
      record.delivered = 'error';
      return;
    }
    fetch(resource.callbackUrl, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(5_000) })
      .then(async (response) => {
        await response.arrayBuffer();
        record.delivered = response.status;
      })
      .catch(() => {
        record.delivered = 'error';
      });
  }

  function notify(resource: Resource): void {
    callBack(resource);
    if (resource.scenario === 'duplicate_callback') later(DUPLICATE_GAP_MS, () => callBack(resource));
  }

  function succeed(resource: Resource): void {
    if (resource.status !== 'PENDING') return;
    resource.status = 'SUCCESSFUL';
    resource.financialTransactionId = String(randomInt(100_000_000, 999_999_999));
    const amountMinor = toMinor(resource.amount, resource.currency);
    if (resource.product === 'disbursement') {
      const before = paid.get(resource.key);
      paid.set(resource.key, {
        key: resource.key, externalId: resource.externalId, amount: resource.amount, amountMinor, currency: resource.currency,
        destination: resource.party.partyId, times: (before?.times ?? 0) + 1, reversed: false, financialTransactionId: resource.financialTransactionId,
      });
    } else {
      const before = collected.get(resource.key);
      collected.set(resource.key, {
        key: resource.key, externalId: resource.externalId, amount: resource.amount, amountMinor, currency: resource.currency,
        payer: resource.party.partyId, times: (before?.times ?? 0) + 1, financialTransactionId: resource.financialTransactionId,
      });
    }
    notify(resource);
    if (resource.scenario === 'reversal_after_success' && resource.product === 'disbursement') {
      later(REVERSAL_MS, () => {
        // Not in the documents: a reversal shows as status REVERSED, announced by one more callback.
        resource.status = 'REVERSED';
        const payout = paid.get(resource.key);
        if (payout) payout.reversed = true;
        callBack(resource);
      });
    }
  }

  function fail(resource: Resource, reason: string): void {
    if (resource.status !== 'PENDING') return;
    resource.status = 'FAILED';
    resource.reason = reason;
    notify(resource);
  }

  /** What happens after the 202, by scenario. */
  function process(resource: Resource): void {
    const failure = FAILURE_OF[resource.scenario];
    if (failure) return later(PROCESS_MS, () => fail(resource, failure));
    switch (resource.scenario) {
      case 'pending':
        return;
      case 'ongoing':
        return later(ONGOING_MS, () => succeed(resource));
      case 'insufficient_balance':
        // Only a request-to-pay gets here: the payer's own funds are short.
        return later(PROCESS_MS, () => fail(resource, 'NOT_ENOUGH_FUNDS'));
      default:
        return later(PROCESS_MS, () => succeed(resource));
    }
  }

  function authorised(req: IncomingMessage, res: ServerResponse, product: Product): boolean {
    const headers = lowerHeaders(req);
    if (headers['ocp-apim-subscription-key'] !== subscriptionKeys[product]) {
      error(res, 401, undefined, 'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.');
      return false;
    }
    const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
    const token = bearer ? tokens.get(bearer) : undefined;
    if (!token || token.product !== product || token.expiresAt <= Date.now()) {
      error(res, 401, undefined, 'Authentication failed. Credentials not valid.');
      return false;
    }
    if (headers['x-target-environment'] !== targetEnvironment) {
      error(res, 500, 'NOT_ALLOWED_TARGET_ENVIRONMENT', 'Not allowed target environment.');
      return false;
    }
    return true;
  }

  function issueToken(req: IncomingMessage, res: ServerResponse, product: Product): void {
    const headers = lowerHeaders(req);
    if (headers['ocp-apim-subscription-key'] !== subscriptionKeys[product]) {
      return error(res, 401, undefined, 'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.');
    }
    const basic = /^Basic (.+)$/.exec(headers.authorization ?? '')?.[1];
    if (!basic || Buffer.from(basic, 'base64').toString('utf8') !== `${apiUser}:${apiKey}`) {
      return error(res, 401, undefined, 'Authentication failed. Credentials not valid.');
    }
    const accessToken = randomBytes(24).toString('base64url');
    tokens.set(accessToken, { product, expiresAt: Date.now() + tokenTtl * 1000 });
    issued[product] += 1;
    json(res, 200, { access_token: accessToken, token_type: 'access_token', expires_in: tokenTtl });
  }

  async function create(req: IncomingMessage, res: ServerResponse, product: Product, body: unknown): Promise<void> {
    if (!authorised(req, res, product)) return;
    const headers = lowerHeaders(req);
    const key = headers['x-reference-id'] ?? '';
    if (!UUID_V4.test(key)) return error(res, 400, undefined, 'X-Reference-Id must be a UUID v4.');
    const partyField = product === 'disbursement' ? 'payee' : 'payer';
    const record = body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
    const party = record?.[partyField];
    if (
      !record || typeof record.amount !== 'string' || !/^\d+(\.\d+)?$/.test(record.amount) || typeof record.currency !== 'string' || !/^[A-Z]{3}$/.test(record.currency) ||
      typeof record.externalId !== 'string' || !isParty(party) || party.partyIdType !== 'MSISDN' || !/^\d{8,15}$/.test(party.partyId) ||
      (record.payerMessage !== undefined && typeof record.payerMessage !== 'string') || (record.payeeNote !== undefined && typeof record.payeeNote !== 'string')
    ) {
      return error(res, 400, undefined, `Bad request: the body does not follow the specification (amount, currency, externalId, ${partyField}).`);
    }
    if (resources[product].has(key)) return error(res, 409, 'RESOURCE_ALREADY_EXIST', 'Duplicated reference id. Creation of resource failed.');
    const callbackUrl = headers['x-callback-url'];
    if (callbackUrl !== undefined) {
      let host: string | undefined;
      try {
        host = new URL(callbackUrl).hostname;
      } catch {
        host = undefined;
      }
      if (!host || (callbackHost !== undefined && host !== callbackHost)) return error(res, 500, 'INVALID_CALLBACK_URL_HOST', 'Callback URL with different host name than configured for API User.');
    }
    const country = countryOf(party.partyId);
    const currencies = country ? [MARKET_CURRENCIES[country], 'EUR'] : ['EUR'];
    let amountMinor: number;
    try {
      amountMinor = toMinor(record.amount, record.currency);
    } catch {
      amountMinor = 0;
    }
    if (!currencies.includes(record.currency) || amountMinor <= 0) return error(res, 500, 'INVALID_CURRENCY', 'Currency not supported on the requested account.');

    const scenario = scenarioOf(party.partyId);
    if (scenario === 'invalid_account') {
      const code = product === 'disbursement' ? 'PAYEE_NOT_FOUND' : 'PAYER_NOT_FOUND';
      return error(res, 500, code, REASON_MESSAGES[code]!);
    }
    if (scenario === 'insufficient_balance' && product === 'disbursement') return error(res, 500, 'NOT_ENOUGH_FUNDS', REASON_MESSAGES.NOT_ENOUGH_FUNDS!);
    if (scenario === 'error_then_success') {
      const tries = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, tries);
      // The first attempt fails before anything is created: the 500 comes instead of the 202, and no money moves.
      if (tries === 1) return error(res, 500, 'INTERNAL_PROCESSING_ERROR', 'Internal error.');
    }
    const resource: Resource = {
      product, key, scenario, amount: record.amount, currency: record.currency, externalId: record.externalId, party: { partyIdType: party.partyIdType, partyId: party.partyId },
      payerMessage: record.payerMessage as string | undefined, payeeNote: record.payeeNote as string | undefined, callbackUrl,
      status: 'PENDING', reason: undefined, financialTransactionId: undefined,
    };
    resources[product].set(key, resource);
    if (scenario === 'no_answer') {
      // Created (PENDING, visible to GET) at once; the answer is held ~30 s, then the money goes out and the late 202 is sent.
      held.add(res);
      later(NO_ANSWER_MS, () => {
        held.delete(res);
        succeed(resource);
        json(res, 202);
      });
      return;
    }
    json(res, 202);
    process(resource);
  }

  function status(req: IncomingMessage, res: ServerResponse, product: Product, key: string): void {
    if (!authorised(req, res, product)) return;
    const resource = resources[product].get(key.toLowerCase());
    if (!resource) return error(res, 404, 'RESOURCE_NOT_FOUND', 'Requested resource was not found.');
    json(res, 200, representation(resource));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const text = await readBody(req);
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    received.push({ method: req.method ?? '', path, headers: lowerHeaders(req), body });
    const method = req.method ?? '';
    const token = /^\/(collection|disbursement)\/token\/?$/.exec(path);
    if (token && method === 'POST') return issueToken(req, res, token[1] as Product);
    if (path === '/disbursement/v1_0/transfer' && method === 'POST') return create(req, res, 'disbursement', body);
    if (path === '/collection/v1_0/requesttopay' && method === 'POST') return create(req, res, 'collection', body);
    const transfer = /^\/disbursement\/v1_0\/transfer\/([^/]+)$/.exec(path);
    if (transfer && method === 'GET') return status(req, res, 'disbursement', transfer[1]!);
    const requestToPay = /^\/collection\/v1_0\/requesttopay\/([^/]+)$/.exec(path);
    if (requestToPay && method === 'GET') return status(req, res, 'collection', requestToPay[1]!);
    // The gateway's own 404 for a path it does not serve: no RESOURCE_NOT_FOUND code.
    json(res, 404, { statusCode: 404, message: 'Resource not found' });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => error(res, 500, 'INTERNAL_PROCESSING_ERROR', 'Internal error.'));
  });
  // Idle keep-alive connections stay open until the client (or stop()) closes them: a server
  // closing one just as a loaded test machine's client reuses it would fail that request with
  // a network error the test did not ask for.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    env: {
      MOMO_API_USER: apiUser,
      MOMO_API_KEY: apiKey,
      MOMO_COLLECTION_SUBSCRIPTION_KEY: subscriptionKeys.collection,
      MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: subscriptionKeys.disbursement,
      MOMO_TARGET_ENVIRONMENT: targetEnvironment,
      MOMO_BASE_URL: url,
    },
    payouts: () => [...paid.values()].map((payout) => ({ ...payout })),
    collections: () => [...collected.values()].map((collection) => ({ ...collection })),
    callbacks: () => sent.map((callback) => ({ ...callback })),
    requests: () => [...received],
    tokenRequests: () => ({ ...issued }),
    revokeTokens: () => tokens.clear(),
    dropCallbacks: (drop) => {
      dropping = drop;
    },
    resource: (product, key) => {
      const resource = resources[product].get(key);
      return resource ? representation(resource) : undefined;
    },
    stop: async () => {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const res of held) res.destroy();
      held.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
