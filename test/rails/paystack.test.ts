// The Paystack rail adapter against the local Paystack fake, over real HTTP (no database): payouts
// in every scenario, exactly once; webhooks as Paystack signs them; forged ones refused; the bank
// list and account resolve; the daily transfer list; and the contract check: every request the
// adapter sent and every answer and webhook the fake gave, held against Paystack's OpenAPI document.
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import adapterModule, { chargeIdOf, chargeKeyOf, idOf, keyOf, placeholderEmail, type PaystackAdapter } from '@tapline/sync-server/rails/paystack/index.ts';
import type { CallbackVerdict, CollectionRequest, CollectionUpdate, InboundCallback, PayoutRequest, PayoutUpdate, RailAdapterDeps } from '@tapline/sync-server/rails/types.ts';
import { checkRequest, checkResponse, checkWebhook, explains, openApi, type Problem, shapeDifferences } from '../fakes/paystack/contract.ts';
import { CHARGE_SCENARIOS, type PaystackFake, SCENARIOS, startPaystackFake } from '../fakes/paystack/index.ts';
import { DVA_KNOWN_MISMATCHES, KNOWN_MISMATCHES } from '../fakes/paystack/known-mismatches.ts';
import { type PaystackEvent, sampleEvent, type TransferEvent } from '../fakes/paystack/webhooks.ts';

const DELAY_SCALE = 0.01; // settles in 10 ms, no_answer holds 300 ms
const CEILING_MS = 20_000;

interface Received {
  inbound: InboundCallback;
  verdict: CallbackVerdict;
  replyStatus: number;
}

let fake: PaystackFake;
/** Every fake started: the contract check reads all their traffic. */
const fakes: PaystackFake[] = [];
let adapter: PaystackAdapter;
let receiver: Server;
const callbackBase = () => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/rails/paystack/webhook`;
const received: Received[] = [];
const logs: { message: string; detail?: Record<string, unknown> }[] = [];

function deps(overrides: Partial<RailAdapterDeps> = {}): RailAdapterDeps {
  const key = 'test-callback-key';
  const token = (purpose: string, id: string) => createHmac('sha256', key).update(`${purpose}:${id}`).digest('hex');
  return {
    publicBaseUrl: 'http://127.0.0.1:1',
    callbackToken: token,
    verifyCallbackToken: (purpose, id, given) => given === token(purpose, id),
    fetch: globalThis.fetch,
    timeoutMs: 5_000,
    now: () => new Date(),
    log: (message, detail) => logs.push({ message, ...(detail ? { detail } : {}) }),
    ...overrides,
  };
}

function makeAdapter(overrides: Partial<RailAdapterDeps> = {}, env: Record<string, string> = fake.env): PaystackAdapter {
  const config = adapterModule.configFromEnv(env);
  assert.ok(config, 'the fake\'s env configures the adapter');
  return adapterModule.create(config, deps(overrides)) as PaystackAdapter;
}

const CURRENCY: Record<string, string> = { NG: 'NGN', GH: 'GHS', KE: 'KES', ZA: 'ZAR' };

/** A payout to a scenario's receiver (or any receiver), with a fresh payment id shaped like the server's. */
function payout(scenario: keyof typeof SCENARIOS | { rail: PayoutRequest['rail']; toCode: string; receiver: Record<string, string> }, amount = 125_000): PayoutRequest {
  const target = typeof scenario === 'string' ? SCENARIOS[scenario]! : scenario;
  const given = target.receiver as Record<string, string>;
  const receiverOf: PayoutRequest['receiver'] = given.phone
    ? { type: 'phone', phone: given.phone, phoneCountry: target.toCode, ...(given.provider ? { provider: given.provider } : {}) }
    : { type: 'account', accountNumber: given.accountNumber!, ...(given.bankCode ? { bankCode: given.bankCode } : {}) };
  return {
    paymentId: `pay_${randomBytes(20).toString('hex')}`,
    rail: target.rail,
    toCountry: target.toCode,
    destinationAmount: amount,
    destinationCurrency: CURRENCY[target.toCode]!,
    receiver: receiverOf,
    receiverName: 'Ada Obi',
    senderName: 'Tapline Shop',
    reference: 'Invoice 42',
    note: null,
  };
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + CEILING_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Polls until the payout is final (or the wanted state). */
async function pollUntil(request: PayoutRequest, status: PayoutUpdate['status'], using = adapter): Promise<PayoutUpdate> {
  return waitFor(`${request.paymentId} ${status}`, async () => {
    const update = await using.poll(request, null);
    return update.status === status ? update : undefined;
  });
}

function callbacksFor(request: PayoutRequest): Received[] {
  const key = adapter.keyOf(request.paymentId);
  return received.filter((r) => {
    try {
      return (JSON.parse(r.inbound.rawBody.toString('utf8')) as { data?: { reference?: string } }).data?.reference === key;
    } catch {
      return false;
    }
  });
}

function payoutsOf(request: PayoutRequest) {
  return fake.payouts().filter((p) => p.key === adapter.keyOf(request.paymentId));
}

async function genuineWebhook(): Promise<InboundCallback> {
  const request = payout('success');
  await adapter.submit(request);
  const [first] = await waitFor('a genuine webhook', () => (callbacksFor(request).length > 0 ? callbacksFor(request) : undefined));
  return first!.inbound;
}

before(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const url = new URL(request.url ?? '/', 'http://receiver.invalid');
      const prefix = '/api/rails/paystack/';
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      const inbound: InboundCallback = {
        path: url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname,
        method: request.method ?? 'POST',
        headers,
        rawBody: Buffer.concat(chunks),
      };
      const { verdict, reply } = await adapter.callback(inbound);
      received.push({ inbound, verdict, replyStatus: reply.status });
      response.writeHead(reply.status, { 'content-type': 'application/json' });
      response.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  fake = await startPaystackFake({ callbackBase: callbackBase(), delayScale: DELAY_SCALE });
  fakes.push(fake);
  adapter = makeAdapter();
});

after(async () => {
  for (const started of fakes) await started.stop();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe('paystack adapter: configuration and capability', () => {
  it('reads exactly PAYSTACK_SECRET_KEY (required) and PAYSTACK_BASE_URL (default https://api.paystack.co)', () => {
    assert.deepEqual([...adapterModule.envVars], ['PAYSTACK_SECRET_KEY', 'PAYSTACK_BASE_URL']);
    assert.equal(adapterModule.name, 'paystack');
    assert.equal(adapterModule.configFromEnv({}), undefined);
    assert.equal(adapterModule.configFromEnv({ PAYSTACK_SECRET_KEY: '  ', PAYSTACK_BASE_URL: fake.url }), undefined);
    assert.deepEqual(adapterModule.configFromEnv({ PAYSTACK_SECRET_KEY: 'sk_test_x' }), { secretKey: 'sk_test_x', baseUrl: 'https://api.paystack.co' });
    assert.deepEqual(adapterModule.configFromEnv({ PAYSTACK_SECRET_KEY: 'sk_test_x', PAYSTACK_BASE_URL: 'http://127.0.0.1:9/' }), { secretKey: 'sk_test_x', baseUrl: 'http://127.0.0.1:9' });
  });

  it('pays bank accounts in NG, GH, ZA and KE and mobile money in GH and KE, nothing else', () => {
    for (const country of ['NG', 'GH', 'ZA', 'KE']) assert.equal(adapter.supports('bank_transfer', country), true, `bank_transfer ${country}`);
    for (const country of ['GH', 'KE']) assert.equal(adapter.supports('mobile_money', country), true, `mobile_money ${country}`);
    for (const [rail, country] of [['mobile_money', 'NG'], ['mobile_money', 'ZA'], ['bank_transfer', 'UG'], ['mobile_money', 'TZ'], ['card', 'NG'], ['wallet', 'NG'], ['cash_pickup', 'GH']] as const) {
      assert.equal(adapter.supports(rail, country), false, `${rail} ${country}`);
    }
  });
});

describe('paystack adapter: references (keyOf / idOf)', () => {
  const ids = ['pay_3f9a0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b', 'pay_ABCdef_GHI:jkl-MNO', 'X', 'a:b:c', '__::__', 'Pay_Mixed_CASE_with:colons:and-dashes_0123456789', 'pay_ünïcode.dot'];

  it('every reference is lowercase letters, digits, - and _ only, at least 16 long, and leads back to its id', () => {
    for (const id of ids) {
      const key = adapter.keyOf(id);
      assert.match(key, /^[a-z0-9_-]+$/, `${id} -> ${key}`);
      assert.ok(key.length >= 16, `${key} has at least 16 characters`);
      assert.equal(adapter.idOf(key), id);
    }
  });

  it('round-trips 2,000 random ids over letters of both cases, digits, _, - and :', () => {
    const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-:';
    const keys = new Set<string>();
    const idsSeen = new Set<string>();
    for (let i = 0; i < 2_000; i += 1) {
      const bytes = randomBytes(1 + (i % 60));
      const id = [...bytes].map((byte) => alphabet[byte % alphabet.length]).join('');
      const key = adapter.keyOf(id);
      assert.match(key, /^[a-z0-9_-]{16,}$/, id);
      assert.equal(adapter.idOf(key), id);
      idsSeen.add(id);
      keys.add(key);
    }
    assert.equal(keys.size, idsSeen.size, 'distinct ids, distinct references');
  });

  it('is fixed and readable: upper case as _x, _ as __, : as _-', () => {
    assert.equal(adapter.keyOf('pay_3f9a0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b'), 'pay__3f9a0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b');
    assert.equal(adapter.keyOf('pay_AB:c-d'), 'pay___a_b_-c-d_0');
    assert.equal(adapter.keyOf('X'), '_x_0_0_0_0_0_0_0');
  });

  it('different ids never share a reference (case and separators are kept apart)', () => {
    const variants = ['pay_ab', 'pay_AB', 'pay_aB', 'pay:ab', 'pay-ab', 'pay__ab', 'payab'];
    assert.equal(new Set(variants.map((id) => adapter.keyOf(id))).size, variants.length);
  });

  it('answers undefined for references it did not make (other systems\' transfers)', () => {
    for (const foreign of ['acv_9ee55786-2323-4760-98e2-6380c9cb3f67', '1976435206', 'jvrjckwenm', 'ACV_UPPER', 'pay__ab_', 'pay__ab_0', '']) {
      assert.equal(adapter.idOf(foreign), undefined, foreign);
    }
  });
});

describe('paystack adapter: payouts against the fake', () => {
  it('success: queued, then completed by the signed webhook and by poll; paid once', async () => {
    const request = payout('success', 250_000);
    const submitted = await adapter.submit(request);
    assert.equal(submitted.status, 'processing');
    assert.match(submitted.providerReference ?? '', /^TRF_/);
    const [callback] = await waitFor('the success webhook', () => (callbacksFor(request).length > 0 ? callbacksFor(request) : undefined));
    assert.deepEqual(callback!.verdict, { kind: 'payout', paymentId: request.paymentId, update: { status: 'completed', providerReference: submitted.providerReference } });
    assert.equal(callback!.replyStatus, 200);
    assert.deepEqual(await pollUntil(request, 'completed'), { status: 'completed', providerReference: submitted.providerReference });
    assert.deepEqual(payoutsOf(request), [
      { key: adapter.keyOf(request.paymentId), amount: 250_000, currency: 'NGN', destination: { type: 'nuban', accountNumber: '0000000001', bankCode: '058' }, times: 1, status: 'success' },
    ]);
  });

  it('failure: the transfer fails at the bank; failed with a readable reason, by webhook and by poll; nothing paid', async () => {
    const request = payout('failure');
    assert.equal((await adapter.submit(request)).status, 'processing');
    const polled = await pollUntil(request, 'failed');
    assert.match(polled.failureReason ?? '', /could not pay.*failed.*Account closed.*Nothing was paid/);
    const [callback] = await waitFor('the failed webhook', () => (callbacksFor(request).length > 0 ? callbacksFor(request) : undefined));
    assert.equal(callback!.verdict.kind, 'payout');
    assert.equal(callback!.verdict.kind === 'payout' && callback!.verdict.update.status, 'failed');
    assert.deepEqual(payoutsOf(request), []);
  });

  it('invalid account: Paystack refuses the recipient; failed at submit, no transfer made', async () => {
    const request = payout('invalid_account');
    const update = await adapter.submit(request);
    assert.equal(update.status, 'failed');
    assert.equal(update.failureReason, 'Paystack refused the receiver: Cannot resolve account.');
    assert.equal(fake.transfer(adapter.keyOf(request.paymentId)), undefined);
    assert.equal(await adapter.lookup(request), undefined);
  });

  it('insufficient balance: Paystack refuses the transfer; failed at submit, no transfer made', async () => {
    const request = payout('insufficient_balance');
    const update = await adapter.submit(request);
    assert.equal(update.status, 'failed');
    assert.equal(update.failureReason, 'Paystack refused the transfer: Your balance is not enough to fulfill this request.');
    assert.equal(fake.transfer(adapter.keyOf(request.paymentId)), undefined);
  });

  it('no answer: submit times out (unknown), lookup finds the transfer, a resend pays nothing more; paid once', async () => {
    // Its own fake, slower (holds the answer 3 s), so a loaded machine never times out anything but the held POST /transfer.
    const slow = await startPaystackFake({ callbackBase: callbackBase(), delayScale: 0.1, secretKey: fake.secretKey });
    fakes.push(slow);
    const impatient = makeAdapter({ timeoutMs: 1_000 }, slow.env);
    const patient = makeAdapter({}, slow.env);
    const request = payout('no_answer', 99_000);
    const key = impatient.keyOf(request.paymentId);
    await assert.rejects(impatient.submit(request), (error: Error) => {
      assert.match(error.message, /Paystack POST \/transfer: no answer within 1000 ms/);
      assert.ok(!error.message.includes(slow.secretKey));
      return true;
    });
    const found = await impatient.lookup(request);
    assert.ok(found, 'lookup finds the transfer the lost answer was about');
    assert.ok(['processing', 'completed'].includes(found.status));
    assert.match(found.providerReference ?? '', /^TRF_/);
    // A resend anyway (as after a crash): Paystack refuses the duplicate reference; submit answers with that transfer.
    const resent = await patient.submit(request);
    assert.equal(resent.providerReference, found.providerReference);
    assert.deepEqual(await pollUntil(request, 'completed', patient), { status: 'completed', providerReference: found.providerReference });
    await waitFor('the held answer to be written', () => slow.exchanges().some((e) => e.method === 'POST' && e.pathname === '/transfer' && (e.requestBody as { reference?: string }).reference === key && e.status === 200));
    const paid = slow.payouts().filter((p) => p.key === key);
    assert.deepEqual(paid.map((p) => [p.amount, p.times]), [[99_000, 1]]);
    assert.equal(slow.payouts().length, 1, 'nothing else was paid');
  });

  it('500 then success: the 500 throws, lookup says never heard of it, the resend pays; paid once', async () => {
    const request = payout('error_then_success', 77_000);
    await assert.rejects(adapter.submit(request), /Paystack POST \/transfer: Paystack answered 500/);
    assert.equal(await adapter.lookup(request), undefined);
    const resent = await adapter.submit(request);
    assert.equal(resent.status, 'processing');
    await pollUntil(request, 'completed');
    assert.deepEqual(payoutsOf(request).map((p) => [p.amount, p.times]), [[77_000, 1]]);
  });

  it('callback lost: pays without a webhook; poll finds it completed', async () => {
    const request = payout('callback_lost');
    await adapter.submit(request);
    await waitFor('the transfer to pay', () => fake.transfer(adapter.keyOf(request.paymentId))?.status === 'success');
    const update = await adapter.poll(request, null);
    assert.equal(update.status, 'completed');
    assert.equal((await adapter.lookup(request))?.status, 'completed');
    assert.equal(fake.webhooks().filter((w) => w.reference === adapter.keyOf(request.paymentId)).length, 0);
    assert.equal(callbacksFor(request).length, 0);
    assert.equal(payoutsOf(request)[0]?.times, 1);
  });

  it('duplicate callback: the same event twice gives the same verdict twice', async () => {
    const request = payout('duplicate_callback');
    await adapter.submit(request);
    const callbacks = await waitFor('two webhooks', () => (callbacksFor(request).length >= 2 ? callbacksFor(request) : undefined));
    assert.equal(callbacks.length, 2);
    assert.deepEqual(callbacks[0]!.inbound.rawBody, callbacks[1]!.inbound.rawBody);
    assert.deepEqual(callbacks[0]!.verdict, callbacks[1]!.verdict);
    assert.equal(callbacks[0]!.verdict.kind === 'payout' && callbacks[0]!.verdict.update.status, 'completed');
    // A third delivery of the same bytes, by hand: still the same verdict.
    assert.deepEqual((await adapter.callback(callbacks[0]!.inbound)).verdict, callbacks[0]!.verdict);
    assert.equal(payoutsOf(request)[0]?.times, 1);
  });

  it('reversal after success: completed, then a transfer.reversed webhook and poll say reversed', async () => {
    const request = payout('reversal_after_success');
    await adapter.submit(request);
    const reversed = await waitFor('the reversed webhook', () => callbacksFor(request).find((c) => c.verdict.kind === 'payout' && c.verdict.update.status === 'reversed'));
    const completed = callbacksFor(request).find((c) => c.verdict.kind === 'payout' && c.verdict.update.status === 'completed');
    assert.ok(completed, 'the success webhook came first');
    assert.equal(reversed.verdict.kind === 'payout' && reversed.verdict.paymentId, request.paymentId);
    assert.match((reversed.verdict.kind === 'payout' && reversed.verdict.update.failureReason) || '', /reversed the transfer.*returned the money/);
    const polled = await adapter.poll(request, null);
    assert.equal(polled.status, 'reversed');
    assert.deepEqual(payoutsOf(request).map((p) => [p.times, p.status]), [[1, 'reversed']]);
  });

  it('lookup of a payment never sent is undefined; poll of it throws (never a guess)', async () => {
    const request = payout('success');
    assert.equal(await adapter.lookup(request), undefined);
    await assert.rejects(adapter.poll(request, null), /no transfer under reference/);
  });
});

describe('paystack adapter: recipients by country and rail', () => {
  async function recipientSent(request: PayoutRequest) {
    const exchanges = fake.exchanges().filter((e) => e.method === 'POST' && e.pathname === '/transferrecipient');
    const transfer = fake.exchanges().find((e) => e.method === 'POST' && e.pathname === '/transfer' && (e.requestBody as { reference?: string }).reference === adapter.keyOf(request.paymentId));
    assert.ok(transfer, 'a transfer was sent');
    const code = (transfer.requestBody as { recipient: string }).recipient;
    const created = exchanges.find((e) => (e.responseBody as { data?: { recipient_code?: string } }).data?.recipient_code === code);
    return created?.requestBody as Record<string, string>;
  }

  it('Ghana mobile money: mobile_money recipient, the operator\'s code from the bank list, the number as 0XXXXXXXXX, GHS', async () => {
    const request = payout('mobile_money_gh', 5_000);
    assert.equal((await adapter.submit(request)).status, 'processing');
    assert.deepEqual(await recipientSent(request), { type: 'mobile_money', name: 'Ada Obi', account_number: '0240000001', bank_code: 'MTN', currency: 'GHS' });
    await pollUntil(request, 'completed');
    const transfer = fake.exchanges().find((e) => e.method === 'POST' && e.pathname === '/transfer' && (e.requestBody as { reference?: string }).reference === adapter.keyOf(request.paymentId));
    assert.deepEqual(transfer?.requestBody, { source: 'balance', amount: 5_000, recipient: (transfer?.requestBody as { recipient: string }).recipient, reference: adapter.keyOf(request.paymentId), reason: 'Invoice 42', currency: 'GHS' });
  });

  it('Kenya mobile money with no operator named: M-PESA, the only one listed', async () => {
    const request = payout('mobile_money_ke', 10_000);
    await adapter.submit(request);
    assert.deepEqual(await recipientSent(request), { type: 'mobile_money', name: 'Ada Obi', account_number: '0700000001', bank_code: 'MPESA', currency: 'KES' });
    await pollUntil(request, 'completed');
  });

  it('Kenya bank account as kepss, an M-PESA till as mobile_money_business, South Africa as basa, Ghana bank as ghipss', async () => {
    const cases = [
      [{ rail: 'bank_transfer', toCode: 'KE', receiver: { accountNumber: '1234567890', bankCode: '68' } }, 'kepss', '68', 'KES'],
      [{ rail: 'bank_transfer', toCode: 'KE', receiver: { accountNumber: '247247', bankCode: 'mptill' } }, 'mobile_money_business', 'MPTILL', 'KES'],
      [{ rail: 'bank_transfer', toCode: 'ZA', receiver: { accountNumber: '62000000001', bankCode: '250655' } }, 'basa', '250655', 'ZAR'],
      [{ rail: 'bank_transfer', toCode: 'GH', receiver: { accountNumber: '1234567890123', bankCode: '040100' } }, 'ghipss', '040100', 'GHS'],
    ] as const;
    for (const [target, type, bankCode, currency] of cases) {
      const request = payout(target, 1_000);
      assert.equal((await adapter.submit(request)).status, 'processing', type);
      const sent = await recipientSent(request);
      assert.equal(sent.type, type);
      assert.equal(sent.bank_code, bankCode);
      assert.equal(sent.currency, currency);
      await pollUntil(request, 'completed');
    }
  });

  it('refuses readably what Paystack cannot pay: an unknown operator, a missing bank code, a wrong currency', async () => {
    const unknown = await adapter.submit(payout({ rail: 'mobile_money', toCode: 'GH', receiver: { phone: '+233240000001', provider: 'Orange' } }));
    assert.equal(unknown.status, 'failed');
    assert.match(unknown.failureReason ?? '', /no mobile money operator "Orange" in GH; it lists MTN Mobile Money \(MTN\), Telecel Cash \(VOD\), AirtelTigo Money \(ATL\)/);
    const unnamed = await adapter.submit(payout({ rail: 'mobile_money', toCode: 'GH', receiver: { phone: '+233240000001' } }));
    assert.match(unnamed.failureReason ?? '', /Name the receiver's mobile money operator/);
    const noBank = await adapter.submit(payout({ rail: 'bank_transfer', toCode: 'NG', receiver: { accountNumber: '0123456789' } }));
    assert.equal(noBank.failureReason, "Paystack needs the receiver's bank code (receiver.bankCode), from Paystack's bank list.");
    const currency = await adapter.submit({ ...payout('success'), destinationCurrency: 'USD' });
    assert.equal(currency.failureReason, 'Paystack pays NG in NGN, not USD.');
    const badCode = await adapter.submit(payout({ rail: 'bank_transfer', toCode: 'NG', receiver: { accountNumber: '0123456789', bankCode: '999' } }));
    assert.equal(badCode.failureReason, 'Paystack refused the receiver: Unknown bank code.');
    const invalidPhone = await adapter.submit(payout({ rail: 'mobile_money', toCode: 'KE', receiver: { phone: '+254700000004' } }));
    assert.equal(invalidPhone.failureReason, 'Paystack refused the receiver: Cannot resolve account.');
  });
});

describe('paystack adapter: bank list and account resolve', () => {
  it('lists a country\'s banks and operators from GET /bank', async () => {
    const nigeria = await adapter.banks('NG');
    assert.deepEqual(nigeria.find((b) => b.code === '058'), { name: 'Guaranty Trust Bank', code: '058', slug: 'guaranty-trust-bank', type: 'nuban', currency: 'NGN', active: true, supportsTransfer: true });
    assert.ok(nigeria.every((b) => b.currency === 'NGN'));
    const kenya = await adapter.banks('KE');
    assert.deepEqual(kenya.map((b) => b.code).sort(), ['01', '68', 'MPESA', 'MPTILL']);
    assert.deepEqual(await adapter.banks('US'), []);
    const sent = fake.exchanges().filter((e) => e.pathname === '/bank' && e.query.country === 'kenya');
    assert.ok(sent.length >= 1);
    assert.deepEqual(sent.at(-1)!.query, { country: 'kenya', perPage: '100', page: '1' });
  });

  it('resolves an account to its name; undefined when Paystack cannot', async () => {
    assert.deepEqual(await adapter.resolveAccount('0000000001', '058'), { accountNumber: '0000000001', accountName: 'TAPLINE TEST 0001' });
    assert.equal(await adapter.resolveAccount('0000000004', '058'), undefined);
    assert.equal(await adapter.resolveAccount('0000000001', '999'), undefined);
    const last = fake.exchanges().filter((e) => e.pathname === '/bank/resolve').at(-1)!;
    assert.deepEqual(last.query, { account_number: '0000000001', bank_code: '999' });
  });
});

describe('paystack adapter: webhooks', () => {
  it('the fake signs each webhook over the exact bytes it sends, as Paystack does', async () => {
    await genuineWebhook();
    for (const started of fakes) {
      for (const sent of started.webhooks()) assert.equal(sent.signature, createHmac('sha512', started.secretKey).update(Buffer.from(sent.body, 'utf8')).digest('hex'));
    }
    const inbound = received[0]!.inbound;
    assert.equal(inbound.method, 'POST');
    assert.equal(inbound.path, 'webhook');
    assert.match(inbound.headers['content-type'] ?? '', /^application\/json/);
  });

  it('refuses forged, unsigned, mis-signed and malformed callbacks (401), never throwing', async () => {
    const genuine = await genuineWebhook();
    const signature = genuine.headers['x-paystack-signature']!;
    const sign = (body: Buffer, key = fake.secretKey) => createHmac('sha512', key).update(body).digest('hex');
    const tampered = Buffer.from(genuine.rawBody.toString('utf8').replace('"transfer.success"', '"transfer.reversed"'));
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
    const forged: [string, InboundCallback][] = [
      ['a wrong signature', { ...genuine, headers: { ...genuine.headers, 'x-paystack-signature': flipped } }],
      ['no signature header', { ...genuine, headers: { ...genuine.headers, 'x-paystack-signature': undefined } }],
      ['a signature made with another key (a wrong token)', { ...genuine, headers: { ...genuine.headers, 'x-paystack-signature': sign(genuine.rawBody, 'sk_test_not_ours') } }],
      ['a body changed after signing', { ...genuine, rawBody: tampered }],
      ['a signature that is not hex', { ...genuine, headers: { ...genuine.headers, 'x-paystack-signature': 'z'.repeat(128) } }],
      ['a short signature', { ...genuine, headers: { ...genuine.headers, 'x-paystack-signature': signature.slice(0, 64) } }],
      ['garbage, correctly signed', { ...genuine, rawBody: Buffer.from('not json {'), headers: { ...genuine.headers, 'x-paystack-signature': sign(Buffer.from('not json {')) } }],
      ['JSON that is no event, correctly signed', { ...genuine, rawBody: Buffer.from('[1,2]'), headers: { ...genuine.headers, 'x-paystack-signature': sign(Buffer.from('[1,2]')) } }],
      ['a transfer event without a reference, signed', { ...genuine, rawBody: Buffer.from('{"event":"transfer.success","data":{}}'), headers: { ...genuine.headers, 'x-paystack-signature': sign(Buffer.from('{"event":"transfer.success","data":{}}')) } }],
      ['another path', { ...genuine, path: 'webhook/extra' }],
      ['a GET', { ...genuine, method: 'GET' }],
      ['an empty body', { ...genuine, rawBody: Buffer.alloc(0) }],
    ];
    for (const [what, inbound] of forged) {
      const { verdict, reply } = await adapter.callback(inbound);
      assert.equal(verdict.kind, 'refused', what);
      assert.equal(reply.status, 401, what);
      assert.ok(!(verdict.kind === 'refused' && verdict.reason.includes(fake.secretKey)), what);
    }
  });

  it('acknowledges (200) and ignores genuine events it does not act on, and transfers that are not ours', async () => {
    const genuine = await genuineWebhook();
    const sign = (body: string) => createHmac('sha512', fake.secretKey).update(Buffer.from(body)).digest('hex');
    const charge = JSON.stringify({ event: 'charge.success', data: { reference: 'T123', status: 'success' } });
    const foreign = JSON.stringify({ ...sampleEvent('transfer.success') });
    for (const body of [charge, foreign]) {
      const { verdict, reply } = await adapter.callback({ ...genuine, rawBody: Buffer.from(body), headers: { ...genuine.headers, 'x-paystack-signature': sign(body) } });
      assert.equal(verdict.kind, 'ignored');
      assert.equal(reply.status, 200);
    }
  });

  it('reads Paystack\'s own samples (re-signed) the documented way', async () => {
    const sign = (body: string) => createHmac('sha512', fake.secretKey).update(Buffer.from(body)).digest('hex');
    const paymentId = 'pay_Sample:1';
    const expected: Record<TransferEvent, PayoutUpdate['status']> = { 'transfer.success': 'completed', 'transfer.failed': 'failed', 'transfer.reversed': 'reversed' };
    for (const event of Object.keys(expected) as TransferEvent[]) {
      const sample = sampleEvent(event);
      (sample.data as Record<string, unknown>).reference = adapter.keyOf(paymentId);
      const body = JSON.stringify(sample);
      const { verdict } = await adapter.callback({ path: 'webhook', method: 'POST', headers: { 'x-paystack-signature': sign(body), 'content-type': 'application/json' }, rawBody: Buffer.from(body) });
      assert.equal(verdict.kind, 'payout', event);
      assert.equal(verdict.kind === 'payout' && verdict.paymentId, paymentId);
      assert.equal(verdict.kind === 'payout' && verdict.update.status, expected[event]);
      assert.equal(verdict.kind === 'payout' && verdict.update.providerReference, (sample.data as { transfer_code: string }).transfer_code);
    }
  });
});

/** A till's collection request with a fresh id shaped like the server's (`col_` + base64url). */
function collection(phone: string, currency: string, amount = 2_500): CollectionRequest {
  return { collectionId: `col_${randomBytes(16).toString('base64url')}`, amount, currency, phone, description: 'Groceries' };
}

function chargeCallbacksFor(request: CollectionRequest): Received[] {
  const reference = chargeKeyOf(request.collectionId);
  return received.filter((r) => {
    try {
      return (JSON.parse(r.inbound.rawBody.toString('utf8')) as { data?: { reference?: string } }).data?.reference === reference;
    } catch {
      return false;
    }
  });
}

function chargesOf(request: CollectionRequest) {
  return fake.charges().filter((c) => c.reference === chargeKeyOf(request.collectionId));
}

async function statusUntil(request: CollectionRequest, status: CollectionUpdate['status'], using = adapter): Promise<CollectionUpdate> {
  return waitFor(`${request.collectionId} ${status}`, async () => {
    const update = await using.collectionStatus!(request);
    return update.status === status ? update : undefined;
  });
}

describe('paystack adapter: mobile money collections (POST /charge)', () => {
  it('a charge reference is the collection id in the transfer mapping with `.` for `_`: reversible, only Paystack\'s charge characters, never a transfer\'s', () => {
    for (const id of ['col_ab3', 'col_AbC-x_y9Q', `col_${randomBytes(16).toString('base64url')}`, 'col_:é']) {
      const reference = chargeKeyOf(id);
      assert.match(reference, /^[a-z0-9.-]{16,}$/, 'ChargeCreate.reference: only -, ., = and alphanumerics');
      assert.equal(chargeIdOf(reference), id);
      assert.equal(idOf(reference), undefined, 'never read as a payout');
      assert.equal(chargeIdOf(keyOf(id)), undefined, 'a transfer reference is never read as a collection');
    }
    assert.equal(chargeKeyOf('col_Ab3x'), 'col...ab3x.0.0.0');
    assert.equal(chargeIdOf('T123'), undefined);
    assert.equal(placeholderEmail('col_AbC'), 'col___ab_c_0_0_0@collections.invalid');
    assert.deepEqual(['GH', 'KE', 'CI', 'NG', 'UG'].map((country) => adapter.collectsIn?.(country)), [true, true, false, false, false]);
  });

  it('Ghana: POST /charge as documented (email, pesewas, GHS, reference, mobile_money {0..., mtn}); pay_offline is pending; the signed charge.success, confirmed by verify, completes it; charged once', async () => {
    const request = collection(CHARGE_SCENARIOS.success.gh, 'GHS', 2_550);
    const started = await adapter.collect!(request);
    assert.deepEqual(started, { status: 'pending', providerReference: chargeKeyOf(request.collectionId) });
    const sent = fake.exchanges().filter((e) => e.method === 'POST' && e.pathname === '/charge' && (e.requestBody as { reference?: string }).reference === chargeKeyOf(request.collectionId));
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0]!.requestBody, {
      email: placeholderEmail(request.collectionId),
      amount: 2_550,
      currency: 'GHS',
      reference: chargeKeyOf(request.collectionId),
      mobile_money: { phone: '0240000001', provider: 'mtn' },
    });
    assert.equal((sent[0]!.responseBody as { data: { status: string } }).data.status, 'pay_offline');
    const [callback] = await waitFor('charge.success', () => (chargeCallbacksFor(request).length > 0 ? chargeCallbacksFor(request) : undefined));
    // With what Paystack says was paid: the collections module credits it only for the amount asked.
    const paid = { amount: 2_550, currency: 'GHS' };
    assert.deepEqual(callback!.verdict, { kind: 'collection', collectionId: request.collectionId, update: { status: 'completed', providerReference: chargeKeyOf(request.collectionId), paid } });
    assert.equal(callback!.replyStatus, 200);
    assert.deepEqual(await adapter.collectionStatus!(request), { status: 'completed', providerReference: chargeKeyOf(request.collectionId), paid });
    assert.deepEqual(chargesOf(request).map((c) => [c.status, c.charged, c.amount, c.currency]), [['success', 1, 2_550, 'GHS']]);
    // The webhook was confirmed with verify before its verdict.
    assert.ok(fake.exchanges().some((e) => e.pathname === `/transaction/verify/${chargeKeyOf(request.collectionId)}`));
  });

  it('Kenya: M-PESA, the phone as 254..., KES', async () => {
    const request = collection(CHARGE_SCENARIOS.success.ke, 'KES', 10_000);
    assert.equal((await adapter.collect!(request)).status, 'pending');
    const sent = fake.exchanges().find((e) => e.method === 'POST' && e.pathname === '/charge' && (e.requestBody as { reference?: string }).reference === chargeKeyOf(request.collectionId));
    assert.deepEqual((sent?.requestBody as { mobile_money: unknown }).mobile_money, { phone: '254700000001', provider: 'mpesa' });
    await statusUntil(request, 'completed');
    assert.equal(chargesOf(request)[0]!.charged, 1);
  });

  it('declined and insufficient funds: failed in words (found by verify: Paystack documents no failure webhook); nothing taken', async () => {
    const declined = collection(CHARGE_SCENARIOS.declined.gh, 'GHS');
    const short = collection(CHARGE_SCENARIOS.insufficient_funds.ke, 'KES', 10_000);
    for (const request of [declined, short]) assert.equal((await adapter.collect!(request)).status, 'pending');
    const a = await statusUntil(declined, 'failed');
    const b = await statusUntil(short, 'failed');
    assert.match(a.failureReason ?? '', /did not pay.*Declined by the customer/);
    assert.match(b.failureReason ?? '', /Insufficient funds/);
    assert.deepEqual([...chargesOf(declined), ...chargesOf(short)].map((c) => c.charged), [0, 0]);
    assert.equal(chargeCallbacksFor(declined).length + chargeCallbacksFor(short).length, 0);
  });

  it('send_otp (Vodafone/Telecel asks for a voucher): failed with a reason the till shows, since a collection cannot carry an OTP', async () => {
    const request = collection(CHARGE_SCENARIOS.otp.gh, 'GHS');
    const update = await adapter.collect!(request);
    assert.equal(update.status, 'failed');
    assert.match(update.failureReason ?? '', /one-time code \(OTP or voucher\).*till cannot pass on: nothing was taken/);
    const sent = fake.exchanges().find((e) => e.method === 'POST' && e.pathname === '/charge' && (e.requestBody as { reference?: string }).reference === chargeKeyOf(request.collectionId));
    assert.deepEqual((sent?.requestBody as { mobile_money: unknown }).mobile_money, { phone: '0200000001', provider: 'vod' });
    assert.equal(chargesOf(request)[0]!.charged, 0);
  });

  it('no answer stays pending; a reference Paystack never saw is "not found" (throws), never failed', async () => {
    const silent = collection(CHARGE_SCENARIOS.no_answer.gh, 'GHS');
    assert.equal((await adapter.collect!(silent)).status, 'pending');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal((await adapter.collectionStatus!(silent)).status, 'pending');
    const never = collection(CHARGE_SCENARIOS.success.gh, 'GHS');
    await assert.rejects(adapter.collectionStatus!(never), /no charge under reference .* \(yet\)/);
  });

  it('an answer that never comes (timeout) throws; verify finds the charge; asking again is "Duplicate Transaction Reference", answered by verify: charged exactly once', async () => {
    const request = collection(CHARGE_SCENARIOS.held.gh, 'GHS');
    const impatient = makeAdapter({ timeoutMs: 100 });
    await assert.rejects(impatient.collect!(request), /no answer within 100 ms/);
    assert.equal((await adapter.collectionStatus!(request)).status, 'pending', 'the charge exists at Paystack');
    assert.equal((await adapter.collect!(request)).status, 'pending', 'the duplicate is answered by verify');
    const duplicate = fake.exchanges().filter((e) => e.method === 'POST' && e.pathname === '/charge' && (e.requestBody as { reference?: string }).reference === chargeKeyOf(request.collectionId));
    assert.deepEqual(duplicate.map((e) => e.status), [400], 'the held first answer was never delivered; the second is the duplicate refusal');
    assert.match(JSON.stringify(duplicate[0]!.responseBody), /Duplicate Transaction Reference/);
    await statusUntil(request, 'completed');
    assert.equal(chargesOf(request).length, 1);
    assert.equal(chargesOf(request)[0]!.charged, 1);
  });

  it('callback lost: no webhook, verify completes it; duplicate webhook: both confirmed, the same verdict', async () => {
    const lost = collection(CHARGE_SCENARIOS.callback_lost.gh, 'GHS');
    const twice = collection(CHARGE_SCENARIOS.duplicate_callback.ke, 'KES', 10_000);
    await adapter.collect!(lost);
    await adapter.collect!(twice);
    await statusUntil(lost, 'completed');
    const both = await waitFor('two charge.success', () => (chargeCallbacksFor(twice).length === 2 ? chargeCallbacksFor(twice) : undefined));
    assert.equal(both[0]!.inbound.rawBody.toString(), both[1]!.inbound.rawBody.toString());
    assert.deepEqual(both[0]!.verdict, both[1]!.verdict);
    assert.equal(both[0]!.verdict.kind === 'collection' && both[0]!.verdict.update.status, 'completed');
    assert.equal(chargeCallbacksFor(lost).length, 0);
    assert.deepEqual([chargesOf(lost)[0]!.charged, chargesOf(twice)[0]!.charged], [1, 1]);
  });

  it('refuses what Paystack cannot collect before sending anything: another country, another currency, not a phone', async () => {
    const before = fake.chargesReceived();
    const cases: [CollectionRequest, RegExp][] = [
      [collection('+2348031234567', 'NGN'), /does not collect from NG numbers/],
      [collection('+2250701234567', 'XOF'), /does not collect from CI numbers/],
      [collection(CHARGE_SCENARIOS.success.gh, 'KES'), /collects GHS from GH numbers, not KES/],
      [collection('+23312', 'GHS'), /not a valid phone number/],
      [collection(CHARGE_SCENARIOS.success.gh, 'GHS', 0), /positive whole number/],
    ];
    for (const [request, reason] of cases) {
      const update = await adapter.collect!(request);
      assert.equal(update.status, 'failed');
      assert.match(update.failureReason ?? '', reason);
    }
    assert.equal(fake.chargesReceived(), before, 'no charge sent');
  });

  it('charge.success is believed only when signed and confirmed by verify: forged refused, unknown reference refused, a lying body overruled', async () => {
    const sign = (body: string) => createHmac('sha512', fake.secretKey).update(Buffer.from(body)).digest('hex');
    const inbound = (body: string, signature = sign(body)): InboundCallback => ({ path: 'webhook', method: 'POST', headers: { 'x-paystack-signature': signature, 'content-type': 'application/json' }, rawBody: Buffer.from(body) });
    const pending = collection(CHARGE_SCENARIOS.no_answer.gh, 'GHS');
    await adapter.collect!(pending);
    const sample = sampleEvent('charge.success');
    (sample.data as Record<string, unknown>).reference = chargeKeyOf(pending.collectionId);
    const lying = JSON.stringify(sample);
    const forged = await adapter.callback(inbound(lying, sign(`${lying} `)));
    assert.deepEqual([forged.verdict.kind, forged.reply.status], ['refused', 401]);
    const unsigned = await adapter.callback({ ...inbound(lying), headers: {} });
    assert.equal(unsigned.verdict.kind, 'refused');
    const overruled = await adapter.callback(inbound(lying));
    assert.deepEqual(overruled.verdict, { kind: 'collection', collectionId: pending.collectionId, update: { status: 'pending', providerReference: chargeKeyOf(pending.collectionId) } }, 'verify says pending: no money moves');
    (sample.data as Record<string, unknown>).reference = chargeKeyOf(collection(CHARGE_SCENARIOS.success.gh, 'GHS').collectionId);
    const unknown = await adapter.callback(inbound(JSON.stringify(sample)));
    assert.deepEqual([unknown.verdict.kind, unknown.reply.status], ['refused', 401]);
    // Verify unreachable: acknowledged and ignored (polling settles it), never thrown.
    const down = makeAdapter({}, { PAYSTACK_SECRET_KEY: fake.secretKey, PAYSTACK_BASE_URL: 'http://127.0.0.1:1' });
    (sample.data as Record<string, unknown>).reference = chargeKeyOf(pending.collectionId);
    const unconfirmed = await down.callback(inbound(JSON.stringify(sample)));
    assert.deepEqual([unconfirmed.verdict.kind, unconfirmed.reply.status], ['ignored', 200]);
  });
});

describe('paystack adapter: reconciliation and secrets', () => {
  it('transactionsOn(day) reads every page of GET /transfer for the day and keeps Tapline\'s transfers', async () => {
    // More than one page of 100.
    const requests = Array.from({ length: 105 }, (_, i) => payout({ rail: 'bank_transfer', toCode: 'NG', receiver: { accountNumber: `31${String(i).padStart(8, '0')}`, bankCode: '044' } }, 1_000 + i));
    for (const request of requests) await adapter.submit(request);
    const failed = payout('failure', 4_242);
    await adapter.submit(failed);
    await pollUntil(failed, 'failed');
    const day = new Date().toISOString().slice(0, 10);
    const transactions = await adapter.transactionsOn!(day, []);
    const byId = new Map(transactions.map((t) => [t.id, t]));
    for (const request of requests) {
      const found = byId.get(request.paymentId);
      assert.ok(found, `${request.paymentId} is in the day's list`);
      assert.equal(found.amount, request.destinationAmount);
      assert.equal(found.currency, 'NGN');
      assert.equal(found.direction, 'payout');
      assert.match(found.providerReference ?? '', /^TRF_/);
      assert.ok(['pending', 'completed'].includes(found.status));
    }
    assert.deepEqual(byId.get(failed.paymentId) && { status: byId.get(failed.paymentId)!.status, amount: byId.get(failed.paymentId)!.amount }, { status: 'failed', amount: 4_242 });
    const pages = fake.exchanges().filter((e) => e.method === 'GET' && e.pathname === '/transfer').map((e) => e.query.page);
    assert.ok(pages.includes('2'), 'asked for the second page');
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    assert.deepEqual(await adapter.transactionsOn!(yesterday, []), []);
  });

  it('incomingOn(day) reads every page of GET /transaction: charges under our collection keys as collections, bank transfers into dedicated accounts apart, others skipped', async () => {
    // Its own fake, two transactions a page: the list of five spans three pages. No callbackBase: no webhooks.
    const small = await startPaystackFake({ delayScale: DELAY_SCALE, listPageSize: 2 });
    fakes.push(small);
    try {
      const lister = makeAdapter({}, small.env);
      const paid = collection(CHARGE_SCENARIOS.success.ke, 'KES', 3_100);
      const declined = collection(CHARGE_SCENARIOS.declined.ke, 'KES', 3_200);
      const waiting = collection(CHARGE_SCENARIOS.no_answer.ke, 'KES', 3_300);
      for (const request of [paid, declined, waiting]) await lister.collect!(request);
      await waitFor('the charges to settle', async () => ((await lister.collectionStatus!(paid)).status === 'completed' && (await lister.collectionStatus!(declined)).status === 'failed' ? true : undefined));
      // A charge under a reference that is no collection key of ours (another system on the integration).
      const foreign = await fetch(`${small.url}/charge`, {
        method: 'POST',
        headers: { authorization: `Bearer ${small.secretKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'someone@example.com', amount: 999, currency: 'KES', reference: 'someone-elses-order-77', mobile_money: { phone: '254700000001', provider: 'mpesa' } }),
      });
      assert.equal(foreign.status, 200);
      const account = await lister.virtualAccounts!.open({ walletId: `wal_${randomBytes(8).toString('hex')}`, currency: 'NGN', firstName: 'Ada', lastName: 'Obi' });
      const arrived = await small.sendBankTransfer(account.accountNumber, 150_000, { lostWebhook: true });

      const day = new Date().toISOString().slice(0, 10);
      const incoming = await lister.incomingOn!(day);
      const byId = new Map(incoming.collections.map((entry) => [entry.collectionId, entry]));
      assert.deepEqual([...byId.keys()].sort(), [paid, declined, waiting].map((request) => request.collectionId).sort(), 'our three charges, not the foreign one nor the bank transfer');
      assert.deepEqual([byId.get(paid.collectionId)!.status, byId.get(paid.collectionId)!.paid, byId.get(paid.collectionId)!.providerReference], ['completed', { amount: 3_100, currency: 'KES' }, chargeKeyOf(paid.collectionId)]);
      assert.equal(byId.get(declined.collectionId)!.status, 'failed');
      assert.equal(byId.get(waiting.collectionId)!.status, 'pending');
      assert.deepEqual(incoming.bankTransfers, [arrived.reference], 'the bank transfer into the dedicated account, apart from collections');
      const pages = small.exchanges().filter((e) => e.pathname === '/transaction').map((e) => [e.query.page, e.query.per_page, (e.responseBody as { meta: { pageCount: number } }).meta.pageCount]);
      assert.deepEqual(pages, [['1', '100', 3], ['2', '100', 3], ['3', '100', 3]], 'every page read, the page size asked as the document names it');
      // The bank transfer read back as the webhook path reads it (GET /transaction/verify).
      assert.deepEqual(await lister.bankTransferRecord!(arrived.reference), {
        providerReference: arrived.reference,
        accountNumber: account.accountNumber,
        amount: 150_000,
        currency: 'NGN',
        paidAt: arrived.paidAt,
        senderName: arrived.senderName,
        senderBank: arrived.senderBank,
        narration: arrived.narration,
      });
      assert.equal(await lister.bankTransferRecord!(chargeKeyOf(paid.collectionId)), undefined, 'a charge is no bank transfer');
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      assert.deepEqual(await lister.incomingOn!(yesterday), { collections: [], bankTransfers: [] });
    } finally {
      await small.stop();
    }
  });

  it('a refused key or an unreachable Paystack throws without the secret in the error or the log', async () => {
    const wrong = makeAdapter({}, { PAYSTACK_SECRET_KEY: 'sk_test_wrong_secret_value', PAYSTACK_BASE_URL: fake.url });
    await assert.rejects(wrong.lookup(payout('success')), (error: Error) => {
      assert.match(error.message, /refused our secret key \(401: Invalid key\)/);
      assert.ok(!error.message.includes('sk_test_wrong_secret_value'));
      return true;
    });
    assert.ok(logs.some((l) => /PAYSTACK_SECRET_KEY/.test(l.message)));
    assert.ok(!JSON.stringify(logs).includes('sk_test_wrong_secret_value'));
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = makeAdapter({}, { PAYSTACK_SECRET_KEY: fake.secretKey, PAYSTACK_BASE_URL: `http://127.0.0.1:${port}` });
    await assert.rejects(unreachable.submit(payout('success')), (error: Error) => {
      assert.match(error.message, /network error/);
      assert.ok(!error.message.includes(fake.secretKey));
      return true;
    });
  });
});

describe('paystack contract: the traffic against the OpenAPI document', () => {
  it('every request, answer and webhook matches openapi.yaml but for the reviewed known mismatches', async () => {
    const doc = openApi();
    const exchanges = fakes.flatMap((started) => started.exchanges());
    const webhooks = fakes.flatMap((started) => started.webhooks());
    assert.ok(webhooks.every((w) => w.answered === 200), 'every webhook was delivered and acknowledged');
    assert.ok(exchanges.length > 100, 'the tests sent traffic');
    assert.ok(webhooks.length > 10, 'the fake sent webhooks');
    const problems: Problem[] = [];
    for (const exchange of exchanges) problems.push(...checkRequest(doc, exchange), ...checkResponse(doc, exchange));
    for (const webhook of webhooks) problems.push(...checkWebhook(doc, JSON.parse(webhook.body)));
    // The reconciliation's list test reads a bank transfer into a dedicated account: its reviewed departures too.
    const known = [...KNOWN_MISMATCHES, ...DVA_KNOWN_MISMATCHES];
    const unexplained = problems.filter((problem) => !known.some((mismatch) => explains(mismatch, problem)));
    const summary = [...new Set(unexplained.map((p) => `${p.where} | ${p.path} | ${p.keyword} | ${p.message}`))];
    assert.deepEqual(summary, [], 'problems not in known-mismatches.ts');
    const unused = KNOWN_MISMATCHES.filter((mismatch) => !problems.some((problem) => explains(mismatch, problem)));
    assert.deepEqual(unused, [], 'known mismatches nothing needed: remove them');
    // Every 401 is the deliberate wrong-key test: every other request carried the right Bearer key.
    assert.deepEqual([...new Set(exchanges.filter((e) => e.status === 401).map((e) => (e.responseBody as { message: string }).message))], ['Invalid key']);
  });

  it('every webhook has the shape of Paystack\'s own sample of that event', () => {
    const events = new Set<string>();
    for (const webhook of fakes.flatMap((started) => started.webhooks())) {
      const body = JSON.parse(webhook.body) as { event: PaystackEvent };
      events.add(body.event);
      assert.deepEqual(shapeDifferences(sampleEvent(body.event), body), [], `${body.event} ${webhook.reference}`);
    }
    assert.deepEqual([...events].sort(), ['charge.success', 'transfer.failed', 'transfer.reversed', 'transfer.success']);
  });
});
