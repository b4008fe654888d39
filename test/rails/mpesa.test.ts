// The M-Pesa (Safaricom Daraja) adapter against the local Daraja fake, over real HTTP.
// Run: NODE_ENV=test node --import tsx --test test/rails/mpesa.test.ts
import { execFile } from 'node:child_process';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import assert from 'node:assert/strict';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import adapterModule, { type MpesaAdapter } from '@tapline/sync-server/rails/mpesa/index.ts';
import type { CallbackReply, CallbackVerdict, CollectionRequest, InboundCallback, PayoutRequest, RailAdapterDeps } from '@tapline/sync-server/rails/types.ts';
import { COLLECTION_SCENARIOS, type MpesaFake, SCENARIOS, decryptCredential, startMpesaFake } from '../fakes/mpesa/index.ts';

const run = promisify(execFile);
const CALLBACK_KEY = randomBytes(32);
const DELAY_SCALE = 0.02;

function callbackToken(purpose: string, id: string): string {
  return createHmac('sha256', CALLBACK_KEY).update(`${purpose}:${id}`).digest('base64url');
}

function verifyCallbackToken(purpose: string, id: string, token: string): boolean {
  const expected = Buffer.from(callbackToken(purpose, id));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

interface Received {
  inbound: InboundCallback;
  verdict: CallbackVerdict;
  reply: CallbackReply;
}

let fake: MpesaFake;
let receiver: Server;
let receiverUrl: string;
/** The adapter the receiver hands callbacks to (each test sets it). */
let current: MpesaAdapter | undefined;
const received: Received[] = [];
const logs: string[] = [];

function newId(prefix = 'pay'): string {
  return `${prefix}_${randomBytes(20).toString('hex')}`;
}

function makeAdapter(overrides: Partial<RailAdapterDeps> & { env?: Record<string, string> } = {}): MpesaAdapter {
  const { env, ...deps } = overrides;
  const config = adapterModule.configFromEnv({ ...fake.env, ...env });
  assert.ok(config, 'the fake\'s env configures the adapter');
  const adapter = adapterModule.create(config, {
    publicBaseUrl: receiverUrl,
    callbackToken,
    verifyCallbackToken,
    fetch: globalThis.fetch,
    timeoutMs: 5_000,
    now: () => new Date(),
    log: (message, detail) => logs.push(`${message} ${JSON.stringify(detail ?? {})}`),
    ...deps,
  }) as MpesaAdapter;
  current = adapter;
  return adapter;
}

function payout(scenario: keyof typeof SCENARIOS, destinationAmount = 150_000, paymentId = newId()): PayoutRequest {
  return {
    paymentId,
    rail: 'mobile_money',
    toCountry: 'KE',
    destinationAmount,
    destinationCurrency: 'KES',
    receiver: { type: 'phone', phone: SCENARIOS[scenario].phone, phoneCountry: 'KE' },
    receiverName: 'Wanjiru Kamau',
    senderName: 'Duka La Mama',
    reference: 'Order 1042',
    note: null,
  };
}

function collection(scenario: keyof typeof COLLECTION_SCENARIOS, amount = 25_000, description = 'Kiosk order 1042 at Duka La Mama'): CollectionRequest {
  return { collectionId: newId('col'), amount, currency: 'KES', phone: COLLECTION_SCENARIOS[scenario].phone, description };
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ceilingMs = 15_000): Promise<T> {
  const until = Date.now() + ceilingMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Verdicts the receiver got on a family of paths for one id. */
function verdictsFor(family: string, id: string): CallbackVerdict[] {
  return received.filter((entry) => entry.inbound.path.startsWith(`${family}/${encodeURIComponent(id)}/`)).map((entry) => entry.verdict);
}

function waitVerdict(family: string, id: string, count = 1): Promise<CallbackVerdict[]> {
  return waitFor(`${count} verdict(s) on ${family} for ${id}`, () => {
    const verdicts = verdictsFor(family, id);
    return verdicts.length >= count ? verdicts : undefined;
  });
}

function inbound(path: string, body: unknown, method = 'POST'): InboundCallback {
  return { path, method, headers: { 'content-type': 'application/json' }, rawBody: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) };
}

before(async () => {
  fake = await startMpesaFake({ delayScale: DELAY_SCALE });
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      const path = new URL(request.url ?? '/', 'http://receiver.invalid').pathname.replace(/^\/api\/rails\/mpesa\//, '');
      const call: InboundCallback = { path, method: request.method ?? 'POST', headers, rawBody: Buffer.concat(chunks) };
      const adapter = current;
      if (!adapter) {
        response.writeHead(503).end();
        return;
      }
      void adapter.callback(call).then(({ verdict, reply }) => {
        received.push({ inbound: call, verdict, reply });
        response.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body === undefined ? '' : JSON.stringify(reply.body));
      });
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

after(async () => {
  await fake.stop();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe('mpesa: module, keys and configuration', () => {
  it('maps payment ids to OriginatorConversationIDs and back, reversibly', () => {
    const adapter = makeAdapter();
    const plain = newId();
    assert.equal(adapter.keyOf(plain), plain);
    assert.equal(adapter.keyOf('pay_a-b:c'), 'pay_a-0b-1c');
    assert.equal(adapter.idOf('pay_a-0b-1c'), 'pay_a-b:c');
    for (const id of ['pay_x', 'pay:1:2', 'a-0-1', 'pay_--::__']) assert.equal(adapter.idOf(adapter.keyOf(id)), id);
    assert.equal(adapter.idOf('pay.x'), undefined);
    assert.equal(adapter.idOf('pay-2'), undefined);
    assert.throws(() => adapter.keyOf('pay x'));
  });

  it('lists exactly its environment variables and reads them', async () => {
    assert.deepEqual([...adapterModule.envVars], [
      'MPESA_CONSUMER_KEY', 'MPESA_CONSUMER_SECRET', 'MPESA_SHORTCODE', 'MPESA_PASSKEY', 'MPESA_INITIATOR_NAME',
      'MPESA_SECURITY_CREDENTIAL', 'MPESA_INITIATOR_PASSWORD', 'MPESA_CERTIFICATE', 'MPESA_BASE_URL',
    ]);
    assert.equal(adapterModule.name, 'mpesa');
    const { MPESA_CONSUMER_KEY: _key, ...withoutKey } = fake.env;
    assert.equal(adapterModule.configFromEnv(withoutKey), undefined);
    const { MPESA_CERTIFICATE: _certificate, ...withoutCertificate } = fake.env;
    assert.equal(adapterModule.configFromEnv(withoutCertificate), undefined);
    const given = adapterModule.configFromEnv({ ...withoutCertificate, MPESA_SECURITY_CREDENTIAL: 'abc==', MPESA_BASE_URL: '' });
    assert.deepEqual(given?.credential, { kind: 'given', securityCredential: 'abc==' });
    assert.equal(given?.baseUrl, 'https://sandbox.safaricom.co.ke');
    const folder = await mkdtemp(join(tmpdir(), 'mpesa-test-'));
    try {
      const path = join(folder, 'cert.pem');
      await writeFile(path, fake.certificatePem);
      const fromPath = adapterModule.configFromEnv({ ...fake.env, MPESA_CERTIFICATE: path });
      assert.equal(fromPath?.credential.kind, 'encrypt');
      assert.equal(adapterModule.configFromEnv({ ...fake.env, MPESA_CERTIFICATE: join(folder, 'missing.pem') }), undefined);
      const escaped = adapterModule.configFromEnv({ ...fake.env, MPESA_CERTIFICATE: fake.certificatePem.replace(/\n/g, '\\n') });
      assert.equal(escaped?.credential.kind, 'encrypt');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('supports mobile money to Kenya only', () => {
    const adapter = makeAdapter();
    assert.equal(adapter.supports('mobile_money', 'KE'), true);
    assert.equal(adapter.supports('mobile_money', 'TZ'), false);
    assert.equal(adapter.supports('bank_transfer', 'KE'), false);
  });

  it('uses magic phone numbers libphonenumber-js accepts as Kenyan', () => {
    for (const { phone } of [...Object.values(SCENARIOS), ...Object.values(COLLECTION_SCENARIOS)]) {
      const parsed = parsePhoneNumberFromString(phone);
      assert.equal(parsed?.isValid(), true, phone);
      assert.equal(parsed?.country, 'KE', phone);
    }
  });
});

describe('mpesa: SecurityCredential and OAuth', () => {
  it('computes a SecurityCredential that the matching private key decrypts back to the password', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'mpesa-cred-'));
    try {
      const keyPath = join(folder, 'key.pem');
      const certificatePath = join(folder, 'cert.pem');
      await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certificatePath, '-days', '1', '-subj', '/CN=test M-PESA']);
      const password = 'Safaricom#999&x%';
      const config = adapterModule.configFromEnv({ ...fake.env, MPESA_INITIATOR_PASSWORD: password, MPESA_CERTIFICATE: certificatePath });
      assert.ok(config);
      const { securityCredentialOf } = await import('@tapline/sync-server/rails/mpesa/config.ts');
      const credential = securityCredentialOf(config);
      assert.equal(Buffer.from(credential, 'base64').length, 256, 'one RSA-2048 block');
      const encrypted = join(folder, 'credential.bin');
      await writeFile(encrypted, Buffer.from(credential, 'base64'));
      // openssl's own PKCS #1 v1.5 decryption, independent of our code.
      const { stdout } = await run('openssl', ['pkeyutl', '-decrypt', '-inkey', keyPath, '-in', encrypted, '-pkeyopt', 'rsa_padding_mode:pkcs1'], { encoding: 'buffer' });
      assert.equal(Buffer.from(stdout).toString('utf8'), password);
      assert.notEqual(securityCredentialOf(config), credential, 'PKCS #1 v1.5 encryption is randomised');
      assert.equal((await readFile(certificatePath, 'utf8')).includes('BEGIN CERTIFICATE'), true);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('caches the access token, and renews it once when Daraja calls it invalid', async () => {
    const adapter = makeAdapter();
    const before = fake.tokensIssued();
    const first = await adapter.submit(payout('success'));
    const second = await adapter.submit(payout('success'));
    assert.equal(first.status, 'processing');
    assert.equal(second.status, 'processing');
    assert.equal(fake.tokensIssued(), before + 1, 'one token for two requests');
    fake.revokeTokens();
    const third = await adapter.submit(payout('success'));
    assert.equal(third.status, 'processing');
    assert.equal(fake.tokensIssued(), before + 2, 'renewed once after 404.001.03 Invalid Access Token');
  });

  it('renews the token once on an HTTP 401 and sends again', async () => {
    let answered401 = 0;
    const wrapped: typeof fetch = async (input, init) => {
      if (init?.method === 'POST' && answered401 === 0) {
        answered401 += 1;
        return new Response(JSON.stringify({ requestId: 'x', errorCode: '401.003.01', errorMessage: 'Error Occurred - Invalid Access Token' }), { status: 401 });
      }
      return fetch(input, init);
    };
    const adapter = makeAdapter({ fetch: wrapped });
    const before = fake.tokensIssued();
    const request = payout('success');
    const update = await adapter.submit(request);
    assert.equal(update.status, 'processing');
    assert.equal(answered401, 1);
    assert.equal(fake.tokensIssued(), before + 2, 'the first token, then its renewal');
    const verdicts = await waitVerdict('b2c/result', request.paymentId);
    assert.equal(verdicts[0]?.kind, 'payout');
  });

  it('throws (never fails the payout) when the token is refused again after renewal', async () => {
    const invalid: typeof fetch = async (input, init) => {
      if (init?.method === 'POST') return new Response(JSON.stringify({ requestId: 'x', errorCode: '404.001.03', errorMessage: 'Invalid Access Token' }), { status: 404 });
      return fetch(input, init);
    };
    const adapter = makeAdapter({ fetch: invalid });
    await assert.rejects(adapter.submit(payout('success')), /access token was refused again after renewal \(404\.001\.03 Invalid Access Token\)/);
  });

  it('keeps secrets out of errors and logs when the consumer secret is wrong', async () => {
    const secret = 'wrong-secret-1234567890';
    const adapter = makeAdapter({ env: { MPESA_CONSUMER_SECRET: secret } });
    await assert.rejects(adapter.submit(payout('success')), (error: Error) => {
      assert.match(error.message, /OAuth refused/);
      assert.equal(error.message.includes(secret), false);
      assert.equal(error.message.includes(fake.env.MPESA_INITIATOR_PASSWORD!), false);
      return true;
    });
    assert.equal(logs.some((line) => line.includes(secret) || line.includes(fake.env.MPESA_CONSUMER_SECRET!)), false);
  });
});

describe('mpesa: B2C payouts', () => {
  it('pays: acknowledged as processing, then the result completes it', async () => {
    const adapter = makeAdapter();
    const request = payout('success', 150_000);
    const update = await adapter.submit(request);
    assert.equal(update.status, 'processing');
    assert.match(update.providerReference ?? '', /^AG_/);
    const [verdict] = await waitVerdict('b2c/result', request.paymentId);
    const paid = fake.payouts().find((entry) => entry.key === adapter.keyOf(request.paymentId));
    assert.ok(paid);
    assert.deepEqual({ amount: paid.amount, amountMinor: paid.amountMinor, currency: paid.currency, destination: paid.destination, times: paid.times }, {
      amount: 1500, amountMinor: 150_000, currency: 'KES', destination: '254700000001', times: 1,
    });
    assert.deepEqual(verdict, { kind: 'payout', paymentId: request.paymentId, update: { status: 'completed', providerReference: paid.receipt } });
    const body = fake.requests().find((entry) => entry.path === '/mpesa/b2c/v3/paymentrequest' && (entry.body as Record<string, unknown>).OriginatorConversationID === request.paymentId)?.body as Record<string, unknown>;
    assert.equal(body.CommandID, 'BusinessPayment');
    assert.equal(body.InitiatorName, fake.env.MPESA_INITIATOR_NAME);
    assert.equal(decryptCredential(String(body.SecurityCredential), fake.privateKeyPem), fake.env.MPESA_INITIATOR_PASSWORD);
    assert.equal(body.Amount, '1500');
    assert.equal(body.PartyB, '254700000001');
    assert.equal(body.Remarks, 'Order 1042');
    assert.equal(body.ResultURL, `${receiverUrl}/api/rails/mpesa/b2c/result/${request.paymentId}/${callbackToken('mpesa-b2c', request.paymentId)}`);
    assert.equal(body.QueueTimeOutURL, `${receiverUrl}/api/rails/mpesa/b2c/timeout/${request.paymentId}/${callbackToken('mpesa-b2c', request.paymentId)}`);
    assert.equal(received.find((entry) => entry.inbound.path.startsWith(`b2c/result/${request.paymentId}/`))?.reply.status, 200);
    assert.deepEqual(received.find((entry) => entry.inbound.path.startsWith(`b2c/result/${request.paymentId}/`))?.reply.body, { ResultCode: 0, ResultDesc: 'Accepted' });
    // A repeated submit does not send again.
    assert.deepEqual(await adapter.submit(request), { status: 'completed', providerReference: paid.receipt });
    assert.equal(fake.payouts().filter((entry) => entry.key === request.paymentId).length, 1);
  });

  for (const [scenario, expected] of [
    ['failure', /would exceed the maximum balance.*result code 8/],
    ['invalid_account', /can't be supported by the service.*result code 2040/],
    ['insufficient_balance', /balance is insufficient.*result code 1\)/],
  ] as const) {
    it(`fails with a readable reason: ${scenario}`, async () => {
      const adapter = makeAdapter();
      const request = payout(scenario);
      assert.equal((await adapter.submit(request)).status, 'processing');
      const [verdict] = await waitVerdict('b2c/result', request.paymentId);
      assert.equal(verdict?.kind, 'payout');
      const update = verdict?.kind === 'payout' ? verdict.update : undefined;
      assert.equal(update?.status, 'failed');
      assert.match(update?.failureReason ?? '', expected);
      assert.equal(fake.payouts().some((entry) => entry.key === request.paymentId), false);
      assert.deepEqual(await adapter.poll(request, null), update);
    });
  }

  it('fails when M-Pesa cannot authenticate the initiator (a wrong SecurityCredential): result 2001', async () => {
    const adapter = makeAdapter({ env: { MPESA_SECURITY_CREDENTIAL: Buffer.from('not the password').toString('base64') } });
    const request = payout('success');
    assert.equal((await adapter.submit(request)).status, 'processing');
    const [verdict] = await waitVerdict('b2c/result', request.paymentId);
    assert.equal(verdict?.kind === 'payout' && verdict.update.status, 'failed');
    assert.match(verdict?.kind === 'payout' ? verdict.update.failureReason ?? '' : '', /initiator information is invalid.*result code 2001/);
    assert.equal(fake.payouts().some((entry) => entry.key === request.paymentId), false);
  });

  it('fails on a definitive refusal of the request (HTTP 400), throws on what leaves the outcome unknown', async () => {
    const refusing = makeAdapter({ env: { MPESA_SHORTCODE: '12' } });
    const update = await refusing.submit(payout('success'));
    assert.deepEqual(update, { status: 'failed', failureReason: 'M-Pesa refused the payout request: 400.002.02 Bad Request - Invalid PartyA' });
    const unreachable = makeAdapter({ env: { MPESA_BASE_URL: 'http://127.0.0.1:9' } });
    await assert.rejects(unreachable.submit(payout('success')), /^Error: M-Pesa OAuth: .* \(outcome unknown\)$/);
    const adapter = makeAdapter();
    const request = payout('success');
    await adapter.submit(request);
    await waitVerdict('b2c/result', request.paymentId);
    const badStatus = makeAdapter({ env: { MPESA_SHORTCODE: '12' } });
    await assert.rejects(badStatus.poll(request, null), /status query was not accepted: HTTP 400 400\.002\.02 Bad Request - Invalid PartyA \(cannot tell now\)/);
  });

  it('refuses an amount with cents (Daraja pays whole shillings) without asking Daraja', async () => {
    const adapter = makeAdapter();
    const request = payout('success', 150_050);
    const update = await adapter.submit(request);
    assert.equal(update.status, 'failed');
    assert.match(update.failureReason ?? '', /whole shillings.*KES 1500\.50/);
    assert.equal(fake.requests().some((entry) => (entry.body as Record<string, unknown> | undefined)?.OriginatorConversationID === request.paymentId), false);
  });

  it('refuses what M-Pesa cannot pay: another country, currency or operator', async () => {
    const adapter = makeAdapter();
    assert.match((await adapter.submit({ ...payout('success'), toCountry: 'UG' })).failureReason ?? '', /Kenya only/);
    assert.match((await adapter.submit({ ...payout('success'), destinationCurrency: 'USD' })).failureReason ?? '', /Kenyan shillings only/);
    assert.match((await adapter.submit({ ...payout('success'), receiver: { type: 'phone', phone: '+254700000001', provider: 'airtel' } })).failureReason ?? '', /M-Pesa accounts only/);
    assert.match((await adapter.submit({ ...payout('success'), receiver: { type: 'phone', phone: '+255712345678' } })).failureReason ?? '', /not a Kenyan mobile number/);
  });

  it('resolves an unknown outcome (timeout) with lookup, paying exactly once', async () => {
    const adapter = makeAdapter({ timeoutMs: 150 });
    const request = payout('no_answer');
    await assert.rejects(adapter.submit(request), /outcome unknown/);
    // Daraja saw the key: a resend is refused as a duplicate and nothing is paid twice.
    assert.equal((await adapter.submit(request)).status, 'processing');
    const settled = await waitFor('lookup to say completed', async () => {
      try {
        const found = await adapter.lookup(request);
        assert.notEqual(found, undefined, 'Daraja knows the key');
        return found?.status === 'completed' ? found : undefined;
      } catch (error) {
        assert.match((error as Error).message, /cannot tell now/);
        return undefined;
      }
    });
    assert.equal(settled?.status, 'completed');
    const paid = fake.payouts().filter((entry) => entry.key === request.paymentId);
    assert.equal(paid.length, 1);
    assert.equal(paid[0]?.times, 1);
    assert.equal(settled?.providerReference, paid[0]?.receipt);
  });

  it('answers lookup undefined only when Daraja has never heard of the key', async () => {
    const adapter = makeAdapter();
    const request = payout('success');
    const found = await waitFor('a lookup answer', async () => {
      try {
        return { value: await adapter.lookup(request) };
      } catch {
        return undefined;
      }
    });
    assert.equal(found.value, undefined);
    assert.equal(verdictsFor('status/result', request.paymentId)[0]?.kind, 'ignored');
  });

  it('error then success: the 500 left nothing at M-Pesa, lookup says so, the resend pays once', async () => {
    const adapter = makeAdapter();
    const request = payout('error_then_success');
    await assert.rejects(adapter.submit(request), /HTTP 500: 500\.003\.1001 Internal Server Error \(outcome unknown\)/);
    const found = await waitFor('a lookup answer', async () => {
      try {
        return { value: await adapter.lookup(request) };
      } catch {
        return undefined;
      }
    });
    assert.equal(found.value, undefined);
    assert.equal((await adapter.submit(request)).status, 'processing');
    const [verdict] = await waitVerdict('b2c/result', request.paymentId);
    assert.equal(verdict?.kind === 'payout' && verdict.update.status, 'completed');
    assert.deepEqual(fake.payouts().filter((entry) => entry.key === request.paymentId).map((entry) => entry.times), [1]);
  });

  it('callback lost: poll asks Transaction Status and its result completes the payout', async () => {
    const adapter = makeAdapter();
    const request = payout('callback_lost');
    const submitted = await adapter.submit(request);
    assert.equal(submitted.status, 'processing');
    await waitFor('the fake to pay', () => fake.payouts().find((entry) => entry.key === request.paymentId));
    const polled = await adapter.poll(request, submitted.providerReference ?? null);
    assert.equal(polled.status, 'processing');
    const [verdict] = await waitVerdict('status/result', request.paymentId);
    const paid = fake.payouts().find((entry) => entry.key === request.paymentId);
    assert.deepEqual(verdict, { kind: 'payout', paymentId: request.paymentId, update: { status: 'completed', providerReference: paid?.receipt } });
    assert.deepEqual(await adapter.poll(request, submitted.providerReference ?? null), { status: 'completed', providerReference: paid?.receipt });
    assert.equal(fake.deliveries().some((delivery) => delivery.url.includes(`/b2c/result/${request.paymentId}/`)), false);
  });

  it('duplicate callback: the same verdict twice', async () => {
    const adapter = makeAdapter();
    const request = payout('duplicate_callback');
    await adapter.submit(request);
    const verdicts = await waitVerdict('b2c/result', request.paymentId, 2);
    assert.equal(verdicts.length, 2);
    assert.deepEqual(verdicts[0], verdicts[1]);
    assert.equal(verdicts[0]?.kind === 'payout' && verdicts[0].update.status, 'completed');
    assert.equal(fake.payouts().find((entry) => entry.key === request.paymentId)?.times, 1);
  });

  it('reversal after success: a later status query reports the payout reversed', async () => {
    const adapter = makeAdapter();
    const request = payout('reversal_after_success');
    await adapter.submit(request);
    const [completed] = await waitVerdict('b2c/result', request.paymentId);
    assert.equal(completed?.kind === 'payout' && completed.update.status, 'completed');
    await waitFor('the fake to reverse it on the portal', () => fake.payouts().find((entry) => entry.key === request.paymentId && entry.reversed));
    // Daraja sends nothing for a portal reversal: the poll of a completed payout asks again.
    assert.equal((await adapter.poll(request, null)).status, 'completed');
    const [verdict] = await waitVerdict('status/result', request.paymentId);
    assert.equal(verdict?.kind, 'payout');
    const update = verdict?.kind === 'payout' ? verdict.update : undefined;
    assert.equal(update?.status, 'reversed');
    assert.match(update?.failureReason ?? '', /reversed/);
    assert.deepEqual(await adapter.poll(request, null), update);
  });

  it('reverse(): Daraja refuses a B2C reversal through the API, as its pages say', async () => {
    const adapter = makeAdapter();
    const request = payout('success');
    await adapter.submit(request);
    await waitVerdict('b2c/result', request.paymentId);
    const receipt = fake.payouts().find((entry) => entry.key === request.paymentId)!.receipt;
    const asked = await adapter.reverse(request.paymentId, receipt, request.destinationAmount);
    assert.equal(asked.accepted, true);
    assert.match(asked.conversationId ?? '', /^AG_/);
    const [verdict] = await waitVerdict('reversal/result', request.paymentId);
    assert.equal(verdict?.kind, 'ignored');
    assert.match(verdict?.kind === 'ignored' ? verdict.reason : '', /not permitted.*result code 2028/);
    assert.equal(fake.payouts().find((entry) => entry.key === request.paymentId)?.reversed, false);
    assert.deepEqual(await adapter.reverse(request.paymentId, receipt, 150_050), { accepted: false, reason: 'M-Pesa reverses whole shillings only, not KES 1500.50' });
  });

  it('reverse(): a reversal Daraja performs (an M-Pesa Express receipt) becomes a reversed verdict', async () => {
    const adapter = makeAdapter();
    const request = collection('success', 30_000);
    await adapter.collect!(request);
    await waitVerdict('stk', request.collectionId);
    const receipt = fake.collections().find((entry) => entry.phone === '254700000011' && entry.amount === 300)!.receipt!;
    const refundId = newId('pay');
    const asked = await adapter.reverse(refundId, receipt, 30_000);
    assert.equal(asked.accepted, true);
    const [verdict] = await waitVerdict('reversal/result', refundId);
    assert.equal(verdict?.kind, 'payout');
    assert.equal(verdict?.kind === 'payout' && verdict.update.status, 'reversed');
    assert.match(verdict?.kind === 'payout' ? verdict.update.failureReason ?? '' : '', new RegExp(`transaction ${receipt} reversed`));
    assert.equal(fake.collections().find((entry) => entry.receipt === receipt)?.reversed, true);
  });

  it('a result reaching an adapter that has restarted (no memory) still verifies by token and ids', async () => {
    const first = makeAdapter();
    const request = payout('callback_lost');
    await first.submit(request);
    await waitFor('the fake to pay', () => fake.payouts().find((entry) => entry.key === request.paymentId));
    const restarted = makeAdapter();
    assert.equal((await restarted.poll(request, null)).status, 'processing');
    const [verdict] = await waitVerdict('status/result', request.paymentId);
    assert.equal(verdict?.kind === 'payout' && verdict.update.status, 'completed');
  });
});

describe('mpesa: forged and malformed callbacks', () => {
  function resultBody(key: string, conversationId = 'AG_20240706_2010364430d9bbdaf872'): unknown {
    return { Result: { ResultType: 0, ResultCode: 0, ResultDesc: 'The service request is processed successfully.', OriginatorConversationID: key, ConversationID: conversationId, TransactionID: 'SG632NMUAB', ResultParameters: { ResultParameter: [{ Key: 'TransactionAmount', Value: 1500 }, { Key: 'TransactionReceipt', Value: 'SG632NMUAB' }] } } };
  }

  it('refuses a wrong token, a missing token, a token for another purpose, a GET and garbage', async () => {
    const adapter = makeAdapter();
    const paymentId = newId();
    const token = callbackToken('mpesa-b2c', paymentId);
    const cases: [string, InboundCallback][] = [
      ['wrong token', inbound(`b2c/result/${paymentId}/${callbackToken('mpesa-b2c', newId())}`, resultBody(paymentId))],
      ['missing token', inbound(`b2c/result/${paymentId}`, resultBody(paymentId))],
      ['token of another purpose', inbound(`b2c/result/${paymentId}/${callbackToken('mpesa-status', paymentId)}`, resultBody(paymentId))],
      ['GET', inbound(`b2c/result/${paymentId}/${token}`, resultBody(paymentId), 'GET')],
      ['garbage body', inbound(`b2c/result/${paymentId}/${token}`, 'not json {')],
      ['empty object', inbound(`b2c/result/${paymentId}/${token}`, {})],
      ['unknown path', inbound(`c2b/confirm/${paymentId}/${token}`, resultBody(paymentId))],
      ['bad percent-encoding', inbound(`b2c/result/%E0%A4%A/${token}`, resultBody(paymentId))],
      ['stk with a b2c token', inbound(`stk/${paymentId}/${token}`, { Body: { stkCallback: { MerchantRequestID: 'a', CheckoutRequestID: 'ws_CO_1', ResultCode: 0, ResultDesc: 'ok' } } })],
    ];
    for (const [name, call] of cases) {
      const { verdict, reply } = await adapter.callback(call);
      assert.equal(verdict.kind, 'refused', name);
      assert.equal(reply.status, 401, name);
    }
  });

  it('refuses the right token carrying another payment\'s ids', async () => {
    const adapter = makeAdapter();
    const mine = payout('callback_lost');
    const other = payout('callback_lost');
    const submitted = await adapter.submit(mine);
    await adapter.submit(other);
    const token = callbackToken('mpesa-b2c', mine.paymentId);
    const otherKey = await adapter.callback(inbound(`b2c/result/${mine.paymentId}/${token}`, resultBody(adapter.keyOf(other.paymentId), submitted.providerReference)));
    assert.deepEqual(otherKey.verdict, { kind: 'refused', reason: 'B2C result for another OriginatorConversationID' });
    const otherConversation = await adapter.callback(inbound(`b2c/result/${mine.paymentId}/${token}`, resultBody(adapter.keyOf(mine.paymentId), 'AG_20240101_000000000000000000')));
    assert.deepEqual(otherConversation.verdict, { kind: 'refused', reason: 'B2C result for another ConversationID' });
    // A status result about the other payment, at my status URL.
    const statusToken = callbackToken('mpesa-status', mine.paymentId);
    const status = await adapter.callback(inbound(`status/result/${mine.paymentId}/${statusToken}`, {
      Result: { ResultType: 0, ResultCode: 0, ResultDesc: 'ok', OriginatorConversationID: 'x', ConversationID: 'AG_x', ResultParameters: { ResultParameter: [{ Key: 'OriginatorConversationID', Value: other.paymentId }, { Key: 'TransactionStatus', Value: 'Completed' }] } },
    }));
    assert.deepEqual(status.verdict, { kind: 'refused', reason: 'status result about another transaction' });
    // And a wrong amount for the right ids.
    const wrongAmount = { Result: { ...(resultBody(mine.paymentId, submitted.providerReference) as { Result: object }).Result, ResultParameters: { ResultParameter: [{ Key: 'TransactionAmount', Value: 99_999 }] } } };
    assert.deepEqual((await adapter.callback(inbound(`b2c/result/${mine.paymentId}/${token}`, wrongAmount))).verdict, { kind: 'refused', reason: 'B2C result amount differs from the payout' });
  });
});

describe('mpesa: M-Pesa Express collections', () => {
  it('collects: prompt, callback confirmed by the query, completed with the receipt', async () => {
    const adapter = makeAdapter();
    const request = collection('success', 25_000);
    const started = Date.now();
    const pending = await adapter.collect!(request);
    assert.equal(pending.status, 'pending');
    assert.match(pending.providerReference ?? '', /^ws_CO_/);
    const [verdict] = await waitVerdict('stk', request.collectionId);
    const record = fake.collections().find((entry) => entry.checkoutRequestId === pending.providerReference);
    assert.ok(record);
    assert.deepEqual(verdict, { kind: 'collection', collectionId: request.collectionId, update: { status: 'completed', providerReference: record.receipt } });
    assert.equal(record.amount, 250);
    assert.equal(record.accountReference, 'Kioskorder10');
    assert.equal(record.transactionDesc, 'Kiosk order 1');
    // Timestamp: Kenya time (UTC+3), YYYYMMDDHHmmss, within the test's run.
    const t = record.timestamp;
    const asUtc = Date.UTC(+t.slice(0, 4), +t.slice(4, 6) - 1, +t.slice(6, 8), +t.slice(8, 10), +t.slice(10, 12), +t.slice(12, 14)) - 3 * 3_600_000;
    assert.ok(asUtc >= Math.floor(started / 1000) * 1000 - 1000 && asUtc <= Date.now() + 1000, `timestamp ${t} is now in Kenya`);
    assert.deepEqual(await adapter.collectionStatus!(request), { status: 'completed', providerReference: record.receipt });
    // collect again: no second prompt.
    assert.deepEqual(await adapter.collect!(request), { status: 'completed', providerReference: record.receipt });
    assert.equal(fake.collections().filter((entry) => entry.checkoutRequestId === pending.providerReference).length, 1);
    const body = fake.requests().find((entry) => entry.path === '/mpesa/stkpush/v1/processrequest' && (entry.body as Record<string, unknown>).CallBackURL === `${receiverUrl}/api/rails/mpesa/stk/${request.collectionId}/${callbackToken('mpesa-stk', request.collectionId)}`)?.body as Record<string, unknown>;
    assert.equal(body.TransactionType, 'CustomerPayBillOnline');
    assert.equal(body.PartyA, '254700000011');
    assert.equal(body.PhoneNumber, '254700000011');
    assert.equal(body.PartyB, fake.env.MPESA_SHORTCODE);
    assert.equal(body.Password, Buffer.from(`${fake.env.MPESA_SHORTCODE}${fake.env.MPESA_PASSKEY}${body.Timestamp}`).toString('base64'));
  });

  for (const [scenario, expected] of [
    ['cancelled', /Request cancelled by user \(result code 1032\)/],
    ['insufficient_funds', /balance is insufficient.*\(result code 1\)/],
    ['no_answer', /DS timeout user cannot be reached \(result code 1037\)/],
  ] as const) {
    it(`fails with the reason: ${scenario}`, async () => {
      const adapter = makeAdapter();
      const request = collection(scenario);
      const pending = await adapter.collect!(request);
      assert.equal(pending.status, 'pending');
      if (scenario === 'no_answer') assert.deepEqual(await adapter.collectionStatus!(request), { status: 'pending', providerReference: pending.providerReference });
      const [verdict] = await waitVerdict('stk', request.collectionId);
      assert.equal(verdict?.kind, 'collection');
      const update = verdict?.kind === 'collection' ? verdict.update : undefined;
      assert.equal(update?.status, 'failed');
      assert.match(update?.failureReason ?? '', expected);
      assert.deepEqual(await adapter.collectionStatus!(request), update);
    });
  }

  it('callback lost: collectionStatus finds the payment with the query', async () => {
    const adapter = makeAdapter();
    const request = collection('callback_lost');
    const pending = await adapter.collect!(request);
    const done = await waitFor('the query to say completed', async () => {
      const update = await adapter.collectionStatus!(request);
      return update.status === 'pending' ? undefined : update;
    });
    assert.deepEqual(done, { status: 'completed', providerReference: pending.providerReference });
    assert.equal(verdictsFor('stk', request.collectionId).length, 0);
  });

  it('after a restart: pending with a reason, the providerReference or the callback restore it', async () => {
    const first = makeAdapter();
    const request = collection('success', 10_000);
    const pending = await first.collect!(request);
    await waitFor('the fake to finish', () => fake.collections().find((entry) => entry.checkoutRequestId === pending.providerReference && entry.state === 'completed'));
    await waitVerdict('stk', request.collectionId);
    const restarted = makeAdapter();
    const unknown = await restarted.collectionStatus!(request);
    assert.equal(unknown.status, 'pending');
    assert.match(unknown.failureReason ?? '', /CheckoutRequestID is unknown/);
    assert.deepEqual(await restarted.collectionStatus!(request, pending.providerReference), { status: 'completed', providerReference: pending.providerReference });
    // The same callback, delivered to yet another fresh adapter, is confirmed by the query.
    const delivered = received.find((entry) => entry.inbound.path.startsWith(`stk/${request.collectionId}/`))!;
    const another = makeAdapter();
    const { verdict } = await another.callback(delivered.inbound);
    const receipt = fake.collections().find((entry) => entry.checkoutRequestId === pending.providerReference)?.receipt;
    assert.deepEqual(verdict, { kind: 'collection', collectionId: request.collectionId, update: { status: 'completed', providerReference: receipt } });
    assert.deepEqual(await another.collectionStatus!(request), { status: 'completed', providerReference: receipt });
  });

  it('refuses a forged M-Pesa Express callback: wrong token, or another push\'s CheckoutRequestID', async () => {
    const adapter = makeAdapter();
    const request = collection('no_answer');
    const pending = await adapter.collect!(request);
    const body = (checkoutRequestId: string): unknown => ({ Body: { stkCallback: { MerchantRequestID: 'm', CheckoutRequestID: checkoutRequestId, ResultCode: 0, ResultDesc: 'The service request is processed successfully.', CallbackMetadata: { Item: [{ Name: 'Amount', Value: 250 }, { Name: 'MpesaReceiptNumber', Value: 'FORGED0001' }] } } } });
    const wrongToken = await adapter.callback(inbound(`stk/${request.collectionId}/${callbackToken('mpesa-stk', newId('col'))}`, body(pending.providerReference!)));
    assert.equal(wrongToken.verdict.kind, 'refused');
    const token = callbackToken('mpesa-stk', request.collectionId);
    const otherPush = await adapter.callback(inbound(`stk/${request.collectionId}/${token}`, body('ws_CO_000000000000000000')));
    assert.deepEqual(otherPush.verdict, { kind: 'refused', reason: 'M-Pesa Express callback for another CheckoutRequestID' });
    // Right token on a fresh adapter, an id Daraja never issued: the query exposes it.
    const fresh = makeAdapter();
    const unknownId = await fresh.callback(inbound(`stk/${request.collectionId}/${token}`, body('ws_CO_000000000000000000')));
    assert.deepEqual(unknownId.verdict, { kind: 'refused', reason: 'M-Pesa does not know the callback\'s CheckoutRequestID' });
    // Right token, right id, but M-Pesa says the customer has not paid: no completion on the callback's word.
    const early = await fresh.callback(inbound(`stk/${request.collectionId}/${token}`, body(pending.providerReference!)));
    assert.deepEqual(early.verdict, { kind: 'collection', collectionId: request.collectionId, update: { status: 'pending', providerReference: pending.providerReference } });
    assert.equal(fake.collections().find((entry) => entry.checkoutRequestId === pending.providerReference)?.state, 'pending');
  });

  it('refuses what M-Pesa Express cannot take: cents, another currency, a non-Kenyan phone', async () => {
    const adapter = makeAdapter();
    assert.match((await adapter.collect!({ ...collection('success'), amount: 10_050 })).failureReason ?? '', /whole shillings/);
    assert.match((await adapter.collect!({ ...collection('success'), currency: 'UGX' })).failureReason ?? '', /Kenyan shillings only/);
    assert.match((await adapter.collect!({ ...collection('success'), phone: '+256712345678' })).failureReason ?? '', /not a Kenyan mobile number/);
  });
});
