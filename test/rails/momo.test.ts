// The MTN MoMo adapter against the local fake over real HTTP (no database).
// Run: NODE_ENV=test node --import tsx --test test/rails/momo.test.ts
import assert from 'node:assert/strict';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import adapterModule from '@tapline/sync-server/rails/momo/index.ts';
import { countryOfPhone } from '@tapline/sync-server/rails/momo/collections.ts';
import type { CallbackVerdict, CollectionRequest, InboundCallback, PayoutRequest, RailAdapter, RailAdapterDeps } from '@tapline/sync-server/rails/types.ts';
import { MARKET_PREFIXES, type MomoFake, type MomoFakeCountry, type MomoScenario, SCENARIOS, SCENARIOS_BY_COUNTRY, SCENARIOS_GH, startMomoFake } from '../fakes/momo/index.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DELAY_SCALE = 0.05;
const SECRET = randomBytes(32);

function callbackToken(purpose: string, id: string): string {
  return createHmac('sha256', SECRET).update(`${purpose}:${id}`).digest('base64url');
}

function verifyCallbackToken(purpose: string, id: string, token: string): boolean {
  const expected = Buffer.from(callbackToken(purpose, id));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ceilingMs = 20_000): Promise<T> {
  const deadline = Date.now() + ceilingMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const newId = (prefix = 'pay') => `${prefix}_${randomBytes(20).toString('hex')}`;

interface Delivered {
  inbound: InboundCallback;
  verdict: CallbackVerdict;
  replyStatus: number;
}

/** A tiny receiver standing in for /api/rails/momo/...: hands what the fake sends to adapter.callback. */
async function startReceiver(adapterOf: () => RailAdapter): Promise<{ url: string; delivered: Delivered[]; stop: () => Promise<void> }> {
  const delivered: Delivered[] = [];
  const prefix = '/api/rails/momo/';
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = req.url ?? '/';
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      const inbound: InboundCallback = { path: url.startsWith(prefix) ? url.slice(prefix.length) : url, method: req.method ?? '', headers, rawBody: Buffer.concat(chunks) };
      adapterOf()
        .callback(inbound)
        .then(({ verdict, reply }) => {
          delivered.push({ inbound, verdict, replyStatus: reply.status });
          res.writeHead(reply.status);
          res.end(reply.body === undefined ? undefined : JSON.stringify(reply.body));
        })
        .catch(() => {
          res.writeHead(500);
          res.end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    delivered,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Harness {
  adapter: RailAdapter;
  logs: { message: string; detail?: Record<string, unknown> }[];
}

function makeAdapter(env: Record<string, string | undefined>, publicBaseUrl: string, overrides: Partial<RailAdapterDeps> = {}): Harness {
  const logs: Harness['logs'] = [];
  const config = adapterModule.configFromEnv(env);
  assert.ok(config, 'the fake env configures the adapter');
  const deps: RailAdapterDeps = {
    publicBaseUrl,
    callbackToken,
    verifyCallbackToken,
    fetch: globalThis.fetch,
    timeoutMs: 5_000,
    now: () => new Date(),
    log: (message, detail) => logs.push({ message, ...(detail ? { detail } : {}) }),
    ...overrides,
  };
  return { adapter: adapterModule.create(config, deps), logs };
}

function payoutOf(scenario: MomoScenario, country: 'UG' | 'GH' = 'UG', overrides: Partial<PayoutRequest> = {}): PayoutRequest {
  const chosen = (country === 'UG' ? SCENARIOS : SCENARIOS_GH)[scenario];
  return {
    paymentId: newId(),
    rail: 'mobile_money',
    toCountry: chosen.toCode,
    destinationAmount: country === 'UG' ? 15_000 : 1_050,
    destinationCurrency: country === 'UG' ? 'UGX' : 'GHS',
    receiver: { type: 'phone', phone: chosen.receiver.phone, phoneCountry: chosen.toCode },
    receiverName: 'Amina N.',
    senderName: 'Kampala Coffee',
    reference: 'Order 1042',
    note: null,
    ...overrides,
  };
}

function collectionOf(scenario: MomoScenario, overrides: Partial<CollectionRequest> = {}): CollectionRequest {
  return { collectionId: newId('col'), amount: 5_000, currency: 'UGX', phone: SCENARIOS[scenario].receiver.phone, description: 'Table 4, 2 coffees', ...overrides };
}

function callbacksFor(delivered: Delivered[], id: string): Delivered[] {
  return delivered.filter((entry) => (entry.verdict.kind === 'payout' && entry.verdict.paymentId === id) || (entry.verdict.kind === 'collection' && entry.verdict.collectionId === id));
}

function secretsOf(fake: MomoFake): string[] {
  return [fake.env.MOMO_API_KEY!, fake.env.MOMO_COLLECTION_SUBSCRIPTION_KEY!, fake.env.MOMO_DISBURSEMENT_SUBSCRIPTION_KEY!];
}

describe('MTN MoMo adapter against the local fake', () => {
  let fake: MomoFake;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let harness: Harness;
  let adapter: RailAdapter;

  before(async () => {
    receiver = await startReceiver(() => adapter);
    fake = await startMomoFake({ delayScale: DELAY_SCALE, callbackBase: `${receiver.url}/api/rails/momo` });
    harness = makeAdapter(fake.env, receiver.url);
    adapter = harness.adapter;
  });

  after(async () => {
    await fake.stop();
    await receiver.stop();
  });

  describe('configuration, capability and keys', () => {
    it('configFromEnv reads exactly the MOMO_ variables; a product is configured by its subscription key', () => {
      assert.deepEqual([...adapterModule.envVars], [
        'MOMO_API_USER', 'MOMO_API_KEY', 'MOMO_COLLECTION_SUBSCRIPTION_KEY', 'MOMO_DISBURSEMENT_SUBSCRIPTION_KEY', 'MOMO_TARGET_ENVIRONMENT', 'MOMO_BASE_URL',
      ]);
      const full = { MOMO_API_USER: 'u', MOMO_API_KEY: 'k', MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: 'd', MOMO_TARGET_ENVIRONMENT: 'mtnuganda' };
      assert.deepEqual(adapterModule.configFromEnv(full), {
        apiUser: 'u', apiKey: 'k', collectionSubscriptionKey: undefined, disbursementSubscriptionKey: 'd', targetEnvironment: 'mtnuganda', baseUrl: 'https://sandbox.momodeveloper.mtn.com',
      });
      assert.equal(adapterModule.configFromEnv({ ...full, MOMO_API_KEY: undefined }), undefined);
      assert.equal(adapterModule.configFromEnv({ ...full, MOMO_API_USER: '' }), undefined);
      assert.equal(adapterModule.configFromEnv({ ...full, MOMO_TARGET_ENVIRONMENT: undefined }), undefined);
      assert.equal(adapterModule.configFromEnv({ ...full, MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: undefined }), undefined, 'neither product has a key');
      assert.equal(adapterModule.configFromEnv({ ...full, MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: undefined, MOMO_COLLECTION_SUBSCRIPTION_KEY: 'c' })?.collectionSubscriptionKey, 'c');
      assert.equal(adapterModule.configFromEnv({ ...full, MOMO_BASE_URL: 'https://proxy.example/' })?.baseUrl, 'https://proxy.example');
    });

    it('supports mobile money in MoMo markets only; a country environment pays its own country; no Disbursements key, no payouts', () => {
      assert.equal(adapter.supports('mobile_money', 'UG'), true);
      assert.equal(adapter.supports('mobile_money', 'GH'), true);
      assert.equal(adapter.supports('mobile_money', 'CM'), true);
      assert.equal(adapter.supports('mobile_money', 'KE'), false, 'no MTN MoMo in Kenya');
      assert.equal(adapter.supports('mobile_money', 'NG'), false);
      assert.equal(adapter.supports('bank_transfer', 'UG'), false);
      const uganda = makeAdapter({ ...fake.env, MOMO_TARGET_ENVIRONMENT: 'mtnuganda' }, receiver.url).adapter;
      assert.equal(uganda.supports('mobile_money', 'UG'), true);
      assert.equal(uganda.supports('mobile_money', 'GH'), false, 'mtnuganda is the Ugandan wallet platform');
      const collectionsOnly = makeAdapter({ ...fake.env, MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: undefined }, receiver.url).adapter;
      assert.equal(collectionsOnly.supports('mobile_money', 'UG'), false);
      assert.equal(typeof collectionsOnly.collect, 'function');
      const payoutsOnly = makeAdapter({ ...fake.env, MOMO_COLLECTION_SUBSCRIPTION_KEY: undefined }, receiver.url).adapter;
      assert.equal(payoutsOnly.supports('mobile_money', 'UG'), true);
      assert.equal(payoutsOnly.collect, undefined);
      assert.equal(payoutsOnly.collectionStatus, undefined);
    });

    it('keyOf is a UUID v4, the same for the same payment id, different for another; idOf answers it back', () => {
      const id = 'pay_0123456789abcdef0123456789abcdef01234567';
      const key = adapter.keyOf(id);
      assert.match(key, UUID_V4);
      assert.equal(adapter.keyOf(id), key);
      assert.equal(makeAdapter(fake.env, receiver.url).adapter.keyOf(id), key, 'fixed across adapter instances (and restarts)');
      assert.notEqual(adapter.keyOf(`${id}0`), key);
      assert.match(adapter.keyOf('pay_with:colon-and_underscore'), UUID_V4);
      assert.equal(adapter.idOf(key), id);
      assert.equal(adapter.idOf('3f2b8c1e-0d4a-4b6e-9a7c-5e1d2f3a4b5c'), undefined);
    });

    it('the magic numbers are valid phone numbers of their country (libphonenumber-js)', () => {
      for (const country of Object.keys(MARKET_PREFIXES) as MomoFakeCountry[]) {
        for (const [scenario, payment] of Object.entries(SCENARIOS_BY_COUNTRY[country])) {
          assert.equal(countryOfPhone(payment.receiver.phone), country, `${scenario} in ${country}: ${payment.receiver.phone}`);
        }
      }
      assert.equal(SCENARIOS.success.toCode, 'UG');
      assert.equal(SCENARIOS_GH.failure.receiver.phone, '+233243123450');
    });
  });

  describe('payouts', () => {
    it('success: 202 is processing, the one callback is confirmed by the status GET, exactly one payout, wire format as documented', async () => {
      const request = payoutOf('success');
      const key = adapter.keyOf(request.paymentId);
      const submitted = await adapter.submit(request);
      assert.deepEqual(submitted, { status: 'processing', providerReference: key });

      const post = fake.requests().find((entry) => entry.method === 'POST' && entry.path === '/disbursement/v1_0/transfer' && entry.headers['x-reference-id'] === key);
      assert.ok(post, 'the transfer was posted with X-Reference-Id = keyOf(paymentId)');
      assert.match(post.headers['x-reference-id']!, UUID_V4);
      assert.equal(post.headers['x-target-environment'], 'sandbox');
      assert.equal(post.headers['ocp-apim-subscription-key'], fake.env.MOMO_DISBURSEMENT_SUBSCRIPTION_KEY);
      assert.match(post.headers.authorization!, /^Bearer \S+$/);
      assert.equal(post.headers['content-type'], 'application/json');
      const token = callbackToken('momo-disbursement', request.paymentId);
      assert.equal(post.headers['x-callback-url'], `${receiver.url}/api/rails/momo/disbursement/${request.paymentId}/${token}`);
      assert.deepEqual(post.body, {
        amount: '15000',
        currency: 'UGX',
        externalId: request.paymentId,
        payee: { partyIdType: 'MSISDN', partyId: '256773123410' },
        payerMessage: 'Order 1042',
        payeeNote: 'From Kampala Coffee',
      });

      const [callback] = await waitFor('the transfer callback', () => {
        const found = callbacksFor(receiver.delivered, request.paymentId);
        return found.length > 0 ? found : undefined;
      });
      assert.equal(callback!.inbound.method, 'PUT');
      assert.equal(callback!.replyStatus, 200);
      assert.equal(callback!.verdict.kind, 'payout');
      const payout = fake.payouts().find((entry) => entry.externalId === request.paymentId)!;
      assert.deepEqual(callback!.verdict, { kind: 'payout', paymentId: request.paymentId, update: { status: 'completed', providerReference: payout.financialTransactionId } });
      const confirmations = fake.requests().filter((entry) => entry.method === 'GET' && entry.path === `/disbursement/v1_0/transfer/${key}`);
      assert.ok(confirmations.length >= 1, 'the callback was confirmed with the status GET');

      assert.deepEqual(await adapter.poll(request, key), { status: 'completed', providerReference: payout.financialTransactionId });
      assert.deepEqual(await adapter.lookup(request), { status: 'completed', providerReference: payout.financialTransactionId });
      const paid = fake.payouts().filter((entry) => entry.externalId === request.paymentId);
      assert.equal(paid.length, 1);
      assert.deepEqual({ ...paid[0], financialTransactionId: 'x' }, {
        key, externalId: request.paymentId, amount: '15000', amountMinor: 15_000, currency: 'UGX', destination: '256773123410', times: 1, reversed: false, financialTransactionId: 'x',
      });
      assert.equal(fake.callbacks().filter((entry) => entry.key === key).length, 1, 'MoMo calls back once');
    });

    it('Ghana: the amount goes in cedis as a decimal string, payee without +', async () => {
      const request = payoutOf('success', 'GH', { note: 'School fees\nterm 2', reference: null });
      await adapter.submit(request);
      const post = fake.requests().find((entry) => entry.method === 'POST' && entry.headers['x-reference-id'] === adapter.keyOf(request.paymentId))!;
      assert.deepEqual(post.body, {
        amount: '10.5',
        currency: 'GHS',
        externalId: request.paymentId,
        payee: { partyIdType: 'MSISDN', partyId: '233243123410' },
        payerMessage: `Tapline payout ${request.paymentId}`,
        payeeNote: 'School fees term 2',
      });
      const update = await waitFor('completion', async () => {
        const polled = await adapter.poll(request, null);
        return polled.status === 'completed' ? polled : undefined;
      });
      assert.equal(update.status, 'completed');
      assert.equal(fake.payouts().find((entry) => entry.externalId === request.paymentId)?.amountMinor, 1_050);
    });

    it('failure: processing, then failed with a readable reason (poll and callback agree)', async () => {
      const request = payoutOf('failure');
      assert.equal((await adapter.submit(request)).status, 'processing');
      const update = await waitFor('failure', async () => {
        const polled = await adapter.poll(request, null);
        return polled.status === 'failed' ? polled : undefined;
      });
      assert.equal(update.failureReason, 'MTN MoMo could not process the transfer (INTERNAL_PROCESSING_ERROR)');
      const [callback] = await waitFor('the failure callback', () => {
        const found = callbacksFor(receiver.delivered, request.paymentId);
        return found.length > 0 ? found : undefined;
      });
      assert.deepEqual(callback!.verdict, { kind: 'payout', paymentId: request.paymentId, update });
      assert.equal(fake.payouts().filter((entry) => entry.externalId === request.paymentId).length, 0);
    });

    it('invalid account: PAYEE_NOT_FOUND refuses the transfer for good (confirmed unknown to MoMo), nothing paid', async () => {
      const request = payoutOf('invalid_account');
      const update = await adapter.submit(request);
      assert.deepEqual(update, { status: 'failed', failureReason: "The receiver's number has no MTN MoMo account (PAYEE_NOT_FOUND)" });
      const key = adapter.keyOf(request.paymentId);
      assert.ok(fake.requests().some((entry) => entry.method === 'GET' && entry.path === `/disbursement/v1_0/transfer/${key}`), 'the refusal was checked against the status GET');
      assert.equal(await adapter.lookup(request), undefined, 'MoMo never created it');
      assert.equal(fake.payouts().filter((entry) => entry.externalId === request.paymentId).length, 0);
    });

    it('insufficient balance: NOT_ENOUGH_FUNDS on our disbursement account is a readable failure, nothing paid', async () => {
      const request = payoutOf('insufficient_balance');
      const update = await adapter.submit(request);
      assert.deepEqual(update, { status: 'failed', failureReason: 'The MTN MoMo disbursement account has not enough funds for this transfer (NOT_ENOUGH_FUNDS)' });
      assert.equal(fake.payouts().filter((entry) => entry.externalId === request.paymentId).length, 0);
    });

    it('a currency MoMo does not pay in that country fails before anything is sent', async () => {
      const before = fake.requests().length;
      const update = await adapter.submit(payoutOf('success', 'UG', { destinationCurrency: 'KES' }));
      assert.deepEqual(update, { status: 'failed', failureReason: 'MTN MoMo pays UGX or EUR in UG, not KES' });
      const wrongCountry = await adapter.submit(payoutOf('success', 'UG', { receiver: { type: 'phone', phone: SCENARIOS_GH.success.receiver.phone, phoneCountry: 'GH' } }));
      assert.equal(wrongCountry.status, 'failed');
      assert.equal(wrongCountry.failureReason, "The receiver's number is from GH, not UG");
      assert.equal(fake.requests().length, before, 'no request reached MoMo');
    });

    it('no answer: the submit times out (unknown), lookup finds the transfer, a resend is a 409 answered by the status GET, exactly one payout', async () => {
      const impatient = makeAdapter(fake.env, receiver.url, { timeoutMs: 300 }).adapter;
      const request = payoutOf('no_answer');
      await assert.rejects(impatient.submit(request), (error: Error) => {
        assert.match(error.message, /did not answer POST \/disbursement\/v1_0\/transfer within 300 ms/);
        return true;
      });
      const early = await impatient.lookup(request);
      assert.ok(early, 'MoMo knows the reference id: not a resend case');
      assert.ok(early.status === 'processing' || early.status === 'completed');
      await waitFor('the held transfer to be paid', () => fake.payouts().find((entry) => entry.externalId === request.paymentId));
      const found = await adapter.lookup(request);
      assert.equal(found?.status, 'completed');
      const resent = await adapter.submit(request);
      assert.deepEqual(resent, found, 'the 409 is answered with the status GET');
      const key = adapter.keyOf(request.paymentId);
      assert.ok(fake.requests().filter((entry) => entry.method === 'POST' && entry.headers['x-reference-id'] === key).length >= 2);
      const paid = fake.payouts().filter((entry) => entry.externalId === request.paymentId);
      assert.equal(paid.length, 1);
      assert.equal(paid[0]!.times, 1);
    });

    it('500 then success: the first submit throws, lookup says MoMo never heard of it, the resend pays exactly once', async () => {
      const request = payoutOf('error_then_success');
      await assert.rejects(adapter.submit(request), /HTTP 500 INTERNAL_PROCESSING_ERROR: outcome unknown/);
      assert.equal(await adapter.lookup(request), undefined);
      assert.equal((await adapter.submit(request)).status, 'processing');
      const update = await waitFor('completion', async () => {
        const polled = await adapter.poll(request, null);
        return polled.status === 'completed' ? polled : undefined;
      });
      assert.equal(update.status, 'completed');
      const paid = fake.payouts().filter((entry) => entry.externalId === request.paymentId);
      assert.equal(paid.length, 1);
      assert.equal(paid[0]!.times, 1);
    });

    it('a repeated submit (409 RESOURCE_ALREADY_EXIST) is resolved by the status GET: one payout', async () => {
      const request = payoutOf('success');
      await adapter.submit(request);
      await waitFor('payment', () => fake.payouts().find((entry) => entry.externalId === request.paymentId));
      const again = await adapter.submit(request);
      assert.equal(again.status, 'completed');
      const pending = payoutOf('pending');
      assert.equal((await adapter.submit(pending)).status, 'processing');
      assert.deepEqual(await adapter.submit(pending), { status: 'processing', providerReference: adapter.keyOf(pending.paymentId) });
      assert.equal(fake.payouts().filter((entry) => entry.externalId === request.paymentId).length, 1);
      assert.equal(fake.payouts().find((entry) => entry.externalId === request.paymentId)!.times, 1);
    });

    it('callback lost: MoMo never calls back, the poll finds the outcome', async () => {
      const request = payoutOf('callback_lost');
      await adapter.submit(request);
      const update = await waitFor('completion by polling', async () => {
        const polled = await adapter.poll(request, null);
        return polled.status === 'completed' ? polled : undefined;
      });
      assert.equal(update.status, 'completed');
      assert.equal(fake.callbacks().filter((entry) => entry.key === adapter.keyOf(request.paymentId)).length, 0);
      assert.equal(callbacksFor(receiver.delivered, request.paymentId).length, 0);
      assert.equal(fake.payouts().filter((entry) => entry.externalId === request.paymentId).length, 1);
    });

    it('a callback sent once to a receiver that is down is never retried; the poll still finds the outcome', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
      const downUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const unreachable = makeAdapter(fake.env, downUrl).adapter;
      const request = payoutOf('success');
      await unreachable.submit(request);
      const key = unreachable.keyOf(request.paymentId);
      await waitFor('the lost callback', () => fake.callbacks().find((entry) => entry.key === key && entry.delivered === 'error'));
      const update = await unreachable.poll(request, null);
      assert.equal(update.status, 'completed');
      assert.equal(fake.callbacks().filter((entry) => entry.key === key).length, 1, 'sent once, no retry');
    });

    it('duplicate callback: both get the same verdict', async () => {
      const request = payoutOf('duplicate_callback');
      await adapter.submit(request);
      const both = await waitFor('two callbacks', () => {
        const found = callbacksFor(receiver.delivered, request.paymentId);
        return found.length >= 2 ? found : undefined;
      });
      assert.equal(both.length, 2);
      assert.deepEqual(both[0]!.verdict, both[1]!.verdict);
      assert.equal(both[0]!.verdict.kind === 'payout' && both[0]!.verdict.update.status, 'completed');
      assert.equal(fake.payouts().filter((entry) => entry.externalId === request.paymentId).length, 1);
    });

    it('reversal after success: completed first, then reversed by poll and by the second callback', async () => {
      const request = payoutOf('reversal_after_success');
      await adapter.submit(request);
      const reversed = await waitFor('the reversal', async () => {
        const polled = await adapter.poll(request, null);
        return polled.status === 'reversed' ? polled : undefined;
      });
      assert.equal(reversed.failureReason, 'MTN MoMo reversed the transfer after it had completed');
      const callbacks = await waitFor('two callbacks', () => {
        const found = callbacksFor(receiver.delivered, request.paymentId);
        return found.length >= 2 ? found : undefined;
      });
      const statuses = callbacks.map((entry) => (entry.verdict.kind === 'payout' ? entry.verdict.update.status : entry.verdict.kind));
      assert.equal(statuses.at(-1), 'reversed');
      assert.ok(statuses[0] === 'completed' || statuses[0] === 'reversed', 'the first callback said completed (or, confirmed late, already reversed)');
      assert.equal(fake.payouts().find((entry) => entry.externalId === request.paymentId)?.reversed, true);
    });

    it('testing.md outcomes: Rejected and Timeout fail, Ongoing completes after its wait, Pending stays processing', async () => {
      const rejected = payoutOf('rejected');
      const timeout = payoutOf('timeout');
      const ongoing = payoutOf('ongoing');
      const pending = payoutOf('pending');
      for (const request of [rejected, timeout, ongoing, pending]) assert.equal((await adapter.submit(request)).status, 'processing');
      const final = async (request: PayoutRequest) =>
        waitFor('a final state', async () => {
          const polled = await adapter.poll(request, null);
          return polled.status === 'processing' ? undefined : polled;
        });
      assert.equal((await final(rejected)).failureReason, 'MTN MoMo rejected the transfer (APPROVAL_REJECTED)');
      assert.equal((await final(timeout)).failureReason, 'The transfer timed out at MTN MoMo (EXPIRED)');
      assert.equal((await final(ongoing)).status, 'completed');
      assert.equal((await adapter.poll(pending, null)).status, 'processing');
    });
  });

  describe('callbacks', () => {
    it('refuses forged callbacks: wrong token, another payment\'s token, no token, unknown kind, wrong method, garbage body, another externalId; never throws', async () => {
      const request = payoutOf('callback_lost');
      await adapter.submit(request);
      await waitFor('payment', () => fake.payouts().find((entry) => entry.externalId === request.paymentId));
      const id = request.paymentId;
      const token = callbackToken('momo-disbursement', id);
      const body = Buffer.from(JSON.stringify(fake.resource('disbursement', adapter.keyOf(id))));
      const call = (path: string, rawBody: Buffer = body, method = 'PUT') => adapter.callback({ path, method, headers: { 'content-type': 'application/json' }, rawBody });

      const genuine = await call(`disbursement/${id}/${token}`);
      assert.equal(genuine.verdict.kind, 'payout');
      assert.equal(genuine.reply.status, 200);
      const viaPost = await call(`disbursement/${id}/${token}`, body, 'POST');
      assert.deepEqual(viaPost.verdict, genuine.verdict, 'MTN also calls back with POST');

      const other = newId();
      const cases: [string, Promise<{ verdict: CallbackVerdict; reply: { status: number } }>][] = [
        ['wrong token', call(`disbursement/${id}/${token.slice(0, -2)}xx`)],
        ["another payment's token", call(`disbursement/${id}/${callbackToken('momo-disbursement', other)}`)],
        ['a collection token on a transfer', call(`disbursement/${id}/${callbackToken('momo-collection', id)}`)],
        ['no token', call(`disbursement/${id}`)],
        ['empty path', call('')],
        ['unknown kind', call(`remittance/${id}/${token}`)],
        ['wrong method', call(`disbursement/${id}/${token}`, body, 'GET')],
        ['garbage body', call(`disbursement/${id}/${token}`, Buffer.from('\u0000not json{'))],
        ['JSON without a status', call(`disbursement/${id}/${token}`, Buffer.from('{"hello":"world"}'))],
        ['another externalId', call(`disbursement/${id}/${token}`, Buffer.from(JSON.stringify({ status: 'SUCCESSFUL', externalId: other })))],
        ['a token for an id MoMo never heard of', call(`disbursement/${other}/${callbackToken('momo-disbursement', other)}`, Buffer.from(JSON.stringify({ status: 'SUCCESSFUL', externalId: other })))],
        ['bad percent-encoding', call(`disbursement/%E0%A4%A/${token}`)],
      ];
      for (const [name, pending] of cases) {
        const { verdict, reply } = await pending;
        assert.equal(verdict.kind, 'refused', name);
        assert.equal(reply.status, 401, name);
      }
    });

    it('a genuine callback that cannot be confirmed now is ignored (200), never thrown, and logged', async () => {
      const offline = makeAdapter(fake.env, receiver.url, { fetch: () => Promise.reject(new TypeError('fetch failed')) });
      const id = newId();
      const answer = await offline.adapter.callback({
        path: `disbursement/${id}/${callbackToken('momo-disbursement', id)}`,
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        rawBody: Buffer.from(JSON.stringify({ status: 'SUCCESSFUL', externalId: id })),
      });
      assert.deepEqual(answer, { verdict: { kind: 'ignored', reason: 'could not be confirmed with MoMo now; polling will settle it' }, reply: { status: 200 } });
      assert.equal(offline.logs.length, 1);
      assert.match(String(offline.logs[0]!.detail?.error), /could not be reached for POST \/disbursement\/token\//);
    });

    it('a callback body that lies is overruled by the status GET', async () => {
      const request = payoutOf('failure');
      await adapter.submit(request);
      await waitFor('failure', async () => ((await adapter.poll(request, null)).status === 'failed' ? true : undefined));
      const lie = Buffer.from(JSON.stringify({ status: 'SUCCESSFUL', externalId: request.paymentId, financialTransactionId: '1' }));
      const { verdict } = await adapter.callback({ path: `disbursement/${request.paymentId}/${callbackToken('momo-disbursement', request.paymentId)}`, method: 'PUT', headers: {}, rawBody: lie });
      assert.equal(verdict.kind === 'payout' && verdict.update.status, 'failed');
    });
  });

  describe('collections (request-to-pay)', () => {
    it('completes: pending, then the callback and collectionStatus say completed; one collection at the fake', async () => {
      const request = collectionOf('success');
      const key = adapter.keyOf(request.collectionId);
      assert.deepEqual(await adapter.collect!(request), { status: 'pending', providerReference: key });
      const post = fake.requests().find((entry) => entry.method === 'POST' && entry.path === '/collection/v1_0/requesttopay' && entry.headers['x-reference-id'] === key)!;
      assert.equal(post.headers['ocp-apim-subscription-key'], fake.env.MOMO_COLLECTION_SUBSCRIPTION_KEY);
      assert.equal(post.headers['x-callback-url'], `${receiver.url}/api/rails/momo/collection/${request.collectionId}/${callbackToken('momo-collection', request.collectionId)}`);
      assert.deepEqual(post.body, {
        amount: '5000',
        currency: 'UGX',
        externalId: request.collectionId,
        payer: { partyIdType: 'MSISDN', partyId: '256773123410' },
        payerMessage: 'Table 4, 2 coffees',
        payeeNote: `Tapline ${request.collectionId}`,
      });
      const [callback] = await waitFor('the request-to-pay callback', () => {
        const found = callbacksFor(receiver.delivered, request.collectionId);
        return found.length > 0 ? found : undefined;
      });
      const collected = fake.collections().find((entry) => entry.externalId === request.collectionId)!;
      assert.deepEqual(callback!.verdict, { kind: 'collection', collectionId: request.collectionId, update: { status: 'completed', providerReference: collected.financialTransactionId } });
      assert.deepEqual(await adapter.collectionStatus!(request), { status: 'completed', providerReference: collected.financialTransactionId });
      assert.equal(collected.amountMinor, 5_000);
      assert.equal(collected.payer, '256773123410');
      assert.equal(collected.times, 1);
      assert.equal((await adapter.collect!(request)).status, 'completed', 'a repeated request-to-pay is a 409 answered by the status GET');
      assert.equal(fake.collections().filter((entry) => entry.externalId === request.collectionId).length, 1);
    });

    it('fails when the payer rejects it on their phone', async () => {
      const request = collectionOf('rejected');
      assert.equal((await adapter.collect!(request)).status, 'pending');
      const update = await waitFor('the rejection', async () => {
        const status = await adapter.collectionStatus!(request);
        return status.status === 'failed' ? status : undefined;
      });
      assert.equal(update.failureReason, 'The customer declined the payment request on their phone (APPROVAL_REJECTED)');
      const [callback] = await waitFor('the callback', () => {
        const found = callbacksFor(receiver.delivered, request.collectionId);
        return found.length > 0 ? found : undefined;
      });
      assert.deepEqual(callback!.verdict, { kind: 'collection', collectionId: request.collectionId, update });
      assert.equal(fake.collections().filter((entry) => entry.externalId === request.collectionId).length, 0);
    });

    it('an unregistered payer (PAYER_NOT_FOUND) fails at once; the payer\'s own short funds fail later', async () => {
      assert.deepEqual(await adapter.collect!(collectionOf('invalid_account')), { status: 'failed', failureReason: "The customer's number has no MTN MoMo account (PAYER_NOT_FOUND)" });
      const poor = collectionOf('insufficient_balance');
      assert.equal((await adapter.collect!(poor)).status, 'pending');
      const update = await waitFor('the failure', async () => {
        const status = await adapter.collectionStatus!(poor);
        return status.status === 'failed' ? status : undefined;
      });
      assert.equal(update.failureReason, "The customer's MTN MoMo account has not enough funds (NOT_ENOUGH_FUNDS)");
    });

    it('callback lost: collectionStatus still finds the payment', async () => {
      const request = collectionOf('callback_lost');
      await adapter.collect!(request);
      const update = await waitFor('completion', async () => {
        const status = await adapter.collectionStatus!(request);
        return status.status === 'completed' ? status : undefined;
      });
      assert.equal(update.status, 'completed');
      assert.equal(fake.callbacks().filter((entry) => entry.key === adapter.keyOf(request.collectionId)).length, 0);
    });

    it('refuses a payer outside MoMo markets or a currency of another country before sending', async () => {
      const before = fake.requests().length;
      assert.deepEqual(await adapter.collect!(collectionOf('success', { phone: '+254712345678', currency: 'KES' })), { status: 'failed', failureReason: 'MTN MoMo (sandbox) does not collect from KE numbers' });
      assert.deepEqual(await adapter.collect!(collectionOf('success', { currency: 'GHS' })), { status: 'failed', failureReason: 'MTN MoMo collects UGX or EUR in UG, not GHS' });
      assert.equal(fake.requests().length, before);
    });
  });

  describe('OAuth tokens', () => {
    it('one token per product, cached; a 401 drops it and the request is sent once more with a new one', async () => {
      const own = await startMomoFake({ delayScale: DELAY_SCALE });
      try {
        const { adapter: fresh } = makeAdapter(own.env, receiver.url);
        const first = payoutOf('pending');
        await fresh.submit(first);
        await fresh.poll(first, null);
        await fresh.lookup(first);
        await fresh.submit(payoutOf('pending'));
        assert.deepEqual(own.tokenRequests(), { collection: 0, disbursement: 1 });
        const collection = collectionOf('pending');
        await fresh.collect!(collection);
        await fresh.collectionStatus!(collection);
        assert.deepEqual(own.tokenRequests(), { collection: 1, disbursement: 1 });
        const token = own.requests().find((entry) => entry.path === '/disbursement/token/')!;
        assert.equal(token.method, 'POST');
        assert.equal(token.headers.authorization, `Basic ${Buffer.from(`${own.env.MOMO_API_USER}:${own.env.MOMO_API_KEY}`).toString('base64')}`);
        assert.equal(token.headers['ocp-apim-subscription-key'], own.env.MOMO_DISBURSEMENT_SUBSCRIPTION_KEY);

        own.revokeTokens();
        const seen = own.requests().length;
        assert.equal((await fresh.poll(first, null)).status, 'processing');
        assert.deepEqual(own.tokenRequests(), { collection: 1, disbursement: 2 });
        const paths = own.requests().slice(seen).map((entry) => `${entry.method} ${entry.path}`);
        const status = `GET /disbursement/v1_0/transfer/${fresh.keyOf(first.paymentId)}`;
        assert.deepEqual(paths, [status, 'POST /disbursement/token/', status]);
      } finally {
        await own.stop();
      }
    });

    it('a token is replaced shortly before it expires, without waiting for a 401', async () => {
      const own = await startMomoFake({ delayScale: DELAY_SCALE, tokenTtlSeconds: 120 });
      try {
        let clock = Date.now();
        const { adapter: fresh } = makeAdapter(own.env, receiver.url, { now: () => new Date(clock) });
        const request = payoutOf('pending');
        await fresh.submit(request);
        clock += 100_000;
        await fresh.poll(request, null);
        assert.equal(own.tokenRequests().disbursement, 1, 'still fresh at 100 s of 120');
        clock += 10_000;
        await fresh.poll(request, null);
        assert.equal(own.tokenRequests().disbursement, 2, 'renewed at 110 s of 120');
      } finally {
        await own.stop();
      }
    });

    it('wrong credentials: the outcome is unknown (throws) and no secret appears in errors or logs', async () => {
      const wrong = makeAdapter({ ...fake.env, MOMO_API_KEY: 'not-the-key-0123456789' }, receiver.url);
      const request = payoutOf('success');
      const error = await wrong.adapter.submit(request).then(
        () => assert.fail('submit must throw'),
        (caught: Error) => caught,
      );
      assert.match(error.message, /refused the disbursement token request \(HTTP 401\)/);
      for (const secret of [...secretsOf(fake), 'not-the-key-0123456789']) {
        assert.equal(error.message.includes(secret), false);
        assert.equal(JSON.stringify(wrong.logs).includes(secret), false);
      }
      assert.equal(fake.payouts().filter((entry) => entry.externalId === request.paymentId).length, 0);
    });

    it('a target environment the API user does not belong to throws (unknown outcome) and tells the operator', async () => {
      const uganda = makeAdapter({ ...fake.env, MOMO_TARGET_ENVIRONMENT: 'mtnuganda' }, receiver.url);
      await assert.rejects(uganda.adapter.submit(payoutOf('success')), /HTTP 500 NOT_ALLOWED_TARGET_ENVIRONMENT/);
      assert.equal(uganda.logs.length, 1);
      assert.match(uganda.logs[0]!.message, /MOMO_TARGET_ENVIRONMENT/);
      for (const secret of secretsOf(fake)) assert.equal(JSON.stringify(uganda.logs).includes(secret), false);
    });
  });

  it('no secret ever reached a log of the main adapter', () => {
    for (const secret of secretsOf(fake)) assert.equal(JSON.stringify(harness.logs).includes(secret), false);
  });
});
