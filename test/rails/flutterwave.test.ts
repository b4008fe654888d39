// The Flutterwave adapter against the local fake over real HTTP: payouts in every scenario,
// exactly-once under timeouts and 5xx, webhooks (genuine, duplicated, reversed, forged), the day's
// transfers, transfer rates, and Nigerian bills. No database.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import adapterModule from '@tapline/sync-server/rails/flutterwave/index.ts';
import { type FlutterwaveAdapter, type FlutterwaveConfig, chargeIdOf, chargeKeyOf, createFlutterwaveAdapter, createFlutterwaveBiller } from '@tapline/sync-server/rails/flutterwave/index.ts';
import { chargeTarget } from '@tapline/sync-server/rails/flutterwave/charges.ts';
import type { CallbackVerdict, InboundCallback, PayoutRequest, PayoutUpdate, RailAdapterDeps } from '@tapline/sync-server/rails/types.ts';
import { BILLERS } from '@tapline/sync-server/modules/bills';
import { parseReceiver } from '@tapline/sync-server/modules/payments';
import { BILL_CUSTOMERS, type FlutterwaveFake, SCENARIOS, type ScenarioName, mobileMoneyScenario, startFlutterwaveFake } from '../fakes/flutterwave/index.ts';

const DELAY_SCALE = 0.1; // settles in 200 ms, holds no_answer for 3 s, reverses 300 ms after paying
const TIMEOUT_MS = 1500;

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, ceilingMs = 20_000): Promise<T> {
  const deadline = Date.now() + ceilingMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Received {
  inbound: InboundCallback;
  verdict: CallbackVerdict;
  status: number;
}

describe('Flutterwave rail adapter against the fake', () => {
  let fake: FlutterwaveFake;
  let receiver: Server;
  let receiverUrl: string;
  let adapter: FlutterwaveAdapter;
  let config: FlutterwaveConfig;
  let deps: RailAdapterDeps;
  const received: Received[] = [];
  const logged: string[] = [];

  before(async () => {
    // A tiny webhook receiver: what the fake sends becomes an InboundCallback for adapter.callback.
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const headers: Record<string, string | undefined> = {};
        for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
        const path = (req.url ?? '/').split('?')[0]!.replace(/^\/api\/rails\/flutterwave\//, '');
        const inbound: InboundCallback = { path, method: req.method ?? 'POST', headers, rawBody: Buffer.concat(chunks) };
        adapter.callback(inbound).then(({ verdict, reply }) => {
          received.push({ inbound, verdict, status: reply.status });
          res.writeHead(reply.status).end(reply.body === undefined ? undefined : JSON.stringify(reply.body));
        }, () => res.writeHead(500).end());
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    fake = await startFlutterwaveFake({ callbackBase: `${receiverUrl}/api/rails/flutterwave/webhook`, delayScale: DELAY_SCALE });
    config = adapterModule.configFromEnv(fake.env)!;
    deps = {
      publicBaseUrl: receiverUrl,
      callbackToken: () => 'unused',
      verifyCallbackToken: () => false,
      fetch: globalThis.fetch,
      timeoutMs: TIMEOUT_MS,
      now: () => new Date(),
      log: (message) => logged.push(message),
    };
    adapter = createFlutterwaveAdapter(config, deps);
  });

  after(async () => {
    await fake.stop();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  function payout(scenario: ScenarioName, amount = 125_050): PayoutRequest {
    const { rail, toCode, receiver: input } = SCENARIOS[scenario];
    return {
      paymentId: `pay_${randomBytes(12).toString('base64url')}`,
      rail,
      toCountry: toCode,
      destinationAmount: amount,
      destinationCurrency: 'NGN',
      receiver: parseReceiver(input, rail, toCode),
      receiverName: 'Ada Obi',
      senderName: 'Mama Put Kitchen',
      reference: 'Invoice 42',
      note: null,
    };
  }

  const verdictsFor = (paymentId: string) => received.filter((entry) => entry.verdict.kind === 'payout' && entry.verdict.paymentId === paymentId);
  const paidTimes = (request: PayoutRequest) => fake.payouts().find((entry) => entry.key === adapter.keyOf(request.paymentId))?.timesPaid ?? 0;
  const finalPoll = (request: PayoutRequest, providerReference: string | null, status: PayoutUpdate['status']) =>
    until(async () => {
      const update = await adapter.poll(request, providerReference);
      return update.status === status ? update : undefined;
    }, `poll to say ${status}`);

  describe('configuration and keys', () => {
    it('reads exactly its three variables and needs the key and the hash', () => {
      assert.deepEqual([...adapterModule.envVars], ['FLUTTERWAVE_SECRET_KEY', 'FLUTTERWAVE_SECRET_HASH', 'FLUTTERWAVE_BASE_URL']);
      assert.equal(adapterModule.name, 'flutterwave');
      assert.equal(adapterModule.configFromEnv({ FLUTTERWAVE_SECRET_KEY: 'k' }), undefined);
      assert.equal(adapterModule.configFromEnv({ FLUTTERWAVE_SECRET_HASH: 'h' }), undefined);
      assert.deepEqual(adapterModule.configFromEnv({ FLUTTERWAVE_SECRET_KEY: 'k', FLUTTERWAVE_SECRET_HASH: 'h' }), { secretKey: 'k', secretHash: 'h', baseUrl: 'https://api.flutterwave.com' });
      assert.equal(config.baseUrl, fake.url);
    });

    it('maps ids to lowercase references and back, and refuses what is not ours', () => {
      for (const id of ['pay_3f9a0c', 'pay_AbC-dEf_9', 'bill_x:y-Z', 'pay_--::AZaz09_']) {
        const key = adapter.keyOf(id);
        assert.match(key, /^tpl_[a-z0-9_-]+$/);
        assert.ok(key.length <= 100);
        assert.equal(adapter.idOf(key), id);
      }
      assert.equal(adapter.keyOf('pay_AbC'), 'tpl_pay_-ab-c');
      assert.notEqual(adapter.keyOf('pay_a'), adapter.keyOf('pay_A'));
      for (const foreign of ['TRF-555600071008', 'akhlm-pstmnpyt-r02ens007_PMCKDU_1', 'tpl_bad-!', 'tpl_', 'tpl_x-']) assert.equal(adapter.idOf(foreign), undefined);
      assert.throws(() => adapter.keyOf('pay_é'), /cannot carry/);
    });

    it('maps collection ids to charge tx_refs and back, apart from transfer references', () => {
      for (const id of ['col_3f9a0c', 'col_AbC-dEf_9', 'col_x:y-Z']) {
        const txRef = chargeKeyOf(id);
        assert.match(txRef, /^tplc_[a-z0-9_-]+$/);
        assert.equal(chargeIdOf(txRef), id);
        assert.equal(adapter.idOf(txRef), undefined, 'a tx_ref is never read as a payout reference');
        assert.equal(chargeIdOf(adapter.keyOf(id)), undefined, 'a payout reference is never read as a tx_ref');
      }
      assert.equal(chargeKeyOf('col_Ab3'), 'tplc_col_-ab3');
    });

    it('collects where the SDK documents mobile money charges, each in its currency, phone form and network', () => {
      for (const country of ['KE', 'GH', 'UG', 'RW', 'ZM', 'TZ', 'CM', 'SN', 'CI', 'ML']) assert.equal(adapter.collectsIn?.(country), true, country);
      for (const country of ['NG', 'ZA', 'ET', 'BJ']) assert.equal(adapter.collectsIn?.(country), false, country);
      assert.deepEqual(chargeTarget('+256770000001', 'UGX'), { type: 'mobile_money_uganda', phone: '256770000001', network: 'MTN', country: 'UG' });
      assert.deepEqual(chargeTarget('+233201234567', 'GHS'), { type: 'mobile_money_ghana', phone: '0201234567', network: 'VODAFONE', country: 'GH' });
      assert.deepEqual(chargeTarget('+255620000001', 'TZS'), { type: 'mobile_money_tanzania', phone: '0620000001', network: 'HALOPESA', country: 'TZ' });
      assert.deepEqual(chargeTarget('+254712345678', 'KES'), { type: 'mpesa', phone: '254712345678', country: 'KE' });
      assert.deepEqual(chargeTarget('+237670000001', 'XAF'), { type: 'mobile_money_franco', phone: '237670000001', country: 'CM' });
      assert.match((chargeTarget('+256770000001', 'KES') as { refusal: string }).refusal, /collects UGX from UG numbers/);
      assert.match((chargeTarget('+2348031234567', 'NGN') as { refusal: string }).refusal, /does not collect from NG numbers/);
    });

    it('supports what the documents allow', () => {
      assert.equal(adapter.supports('bank_transfer', 'NG'), true);
      assert.equal(adapter.supports('bank_transfer', 'GH'), false, 'Ghana bank transfers need a branch code the receiver lacks');
      for (const country of ['GH', 'UG', 'TZ', 'RW', 'ZM', 'CM', 'CI', 'SN', 'ET']) assert.equal(adapter.supports('mobile_money', country), true, country);
      assert.equal(adapter.supports('mobile_money', 'NG'), false);
      assert.equal(adapter.supports('mobile_money', 'KE'), true, "Kenya's sender comes with each payout, from the merchant's profile");
      assert.equal(adapter.supports('bank_transfer', 'KE'), true);
      assert.equal(adapter.supports('cash_pickup', 'NG'), false);
      assert.equal(adapter.supports('card', 'NG'), false);
    });
  });

  describe('payouts', () => {
    it('pays a Nigerian bank account once, in major units, and the webhook confirms it', async () => {
      const request = payout('success');
      const update = await adapter.submit(request);
      assert.equal(update.status, 'processing');
      assert.match(update.providerReference ?? '', /^\d+$/);
      const key = adapter.keyOf(request.paymentId);
      const held = fake.transfer(key)!;
      assert.equal(held.amount, 1250.5);
      assert.equal(held.currency, 'NGN');
      assert.equal(held.bank_code, '044');
      assert.equal(held.account_number, '0000000001');
      assert.equal(held.full_name, 'Ada Obi');
      assert.equal(held.narration, 'Mama Put Kitchen: Invoice 42');
      const [callback] = await until(() => (verdictsFor(request.paymentId).length ? verdictsFor(request.paymentId) : undefined), 'the success webhook');
      assert.equal(callback!.status, 200);
      assert.equal(callback!.inbound.headers['verif-hash'], fake.env.FLUTTERWAVE_SECRET_HASH);
      assert.deepEqual(callback!.verdict, { kind: 'payout', paymentId: request.paymentId, update: { status: 'completed', providerReference: update.providerReference } });
      assert.deepEqual(await adapter.poll(request, update.providerReference!), { status: 'completed', providerReference: update.providerReference });
      assert.deepEqual(await adapter.lookup(request), { status: 'completed', providerReference: update.providerReference });
      assert.deepEqual(fake.payouts().filter((entry) => entry.key === key), [{ key, amount: 1250.5, currency: 'NGN', destination: { accountBank: '044', accountNumber: '0000000001' }, timesPaid: 1, status: 'SUCCESSFUL' }]);
    });

    it('reports a failed transfer with a readable reason', async () => {
      const request = payout('failure');
      const update = await adapter.submit(request);
      assert.equal(update.status, 'processing');
      const [callback] = await until(() => (verdictsFor(request.paymentId).length ? verdictsFor(request.paymentId) : undefined), 'the failure webhook');
      assert.equal(callback!.verdict.kind, 'payout');
      const failed = (callback!.verdict as { update: PayoutUpdate }).update;
      assert.equal(failed.status, 'failed');
      assert.equal(failed.failureReason, "Flutterwave: The beneficiary's bank declined the transfer");
      assert.equal((await adapter.poll(request, update.providerReference!)).status, 'failed');
      assert.equal(paidTimes(request), 0);
    });

    it('fails an invalid account at once, and Flutterwave never heard of it', async () => {
      const request = payout('invalid_account');
      assert.deepEqual(await adapter.submit(request), { status: 'failed', failureReason: 'Flutterwave refused the transfer: Account resolve failed' });
      assert.equal(await adapter.lookup(request), undefined);
      assert.equal(paidTimes(request), 0);
    });

    it('fails on our own insufficient Flutterwave balance', async () => {
      const request = payout('insufficient_balance');
      const update = await adapter.submit(request);
      assert.equal(update.status, 'processing');
      const failed = await finalPoll(request, update.providerReference!, 'failed');
      assert.equal(failed.failureReason, 'Flutterwave: Insufficient funds in customer wallet');
      assert.equal(paidTimes(request), 0);
    });

    it('resolves a timed-out submit by lookup, with exactly one payout', async () => {
      const request = payout('no_answer');
      await assert.rejects(adapter.submit(request), (error: Error) => /did not answer POST \/v3\/transfers/.test(error.message) && !error.message.includes(fake.env.FLUTTERWAVE_SECRET_KEY));
      const found = await until(() => adapter.lookup(request), 'the queued transfer');
      assert.ok(found.status === 'processing' || found.status === 'completed');
      const done = await until(async () => {
        const update = await adapter.lookup(request);
        return update?.status === 'completed' ? update : undefined;
      }, 'the held transfer to be paid');
      assert.match(done.providerReference ?? '', /^\d+$/);
      // A resend after all answers for the transfer Flutterwave holds; nothing is paid twice.
      assert.deepEqual(await adapter.submit(request), done);
      assert.equal(paidTimes(request), 1);
    });

    it('survives a 503 whose transfer went through: lookup finds it, a resend pays nothing more', async () => {
      const request = payout('error_then_success');
      await assert.rejects(adapter.submit(request), /Flutterwave failed on POST \/v3\/transfers: HTTP 503/);
      assert.ok(await adapter.lookup(request));
      const again = await adapter.submit(request);
      assert.ok(again.status === 'processing' || again.status === 'completed');
      await finalPoll(request, again.providerReference!, 'completed');
      assert.equal(paidTimes(request), 1);
      assert.equal(fake.payouts().filter((entry) => entry.key === adapter.keyOf(request.paymentId)).length, 1);
    });

    it('finds a payout whose webhook never came by polling', async () => {
      const request = payout('callback_lost');
      const update = await adapter.submit(request);
      const done = await finalPoll(request, update.providerReference!, 'completed');
      assert.equal(done.providerReference, update.providerReference);
      assert.equal(await adapter.poll(request, null).then((value) => value.status), 'completed');
      assert.equal(fake.webhooksSent(adapter.keyOf(request.paymentId)), 0);
      assert.equal(verdictsFor(request.paymentId).length, 0);
      assert.equal(paidTimes(request), 1);
    });

    it('answers a duplicated webhook with the same verdict', async () => {
      const request = payout('duplicate_callback');
      await adapter.submit(request);
      const callbacks = await until(() => (verdictsFor(request.paymentId).length >= 2 ? verdictsFor(request.paymentId) : undefined), 'both webhooks');
      assert.equal(callbacks.length, 2);
      assert.deepEqual(callbacks[0]!.verdict, callbacks[1]!.verdict);
      assert.equal((callbacks[0]!.verdict as { update: PayoutUpdate }).update.status, 'completed');
      assert.deepEqual(callbacks.map((entry) => entry.status), [200, 200]);
      assert.equal(paidTimes(request), 1);
    });

    it('reports a reversal after success', async () => {
      const request = payout('reversal_after_success');
      const update = await adapter.submit(request);
      const callbacks = await until(() => (verdictsFor(request.paymentId).length >= 2 ? verdictsFor(request.paymentId) : undefined), 'the success and reversal webhooks');
      assert.deepEqual(callbacks.map((entry) => (entry.verdict as { update: PayoutUpdate }).update.status), ['completed', 'reversed']);
      const reversed = await adapter.poll(request, update.providerReference!);
      assert.deepEqual(reversed, { status: 'reversed', providerReference: update.providerReference, failureReason: 'Flutterwave: Transfer reversed: the beneficiary bank returned the funds' });
    });

    it('pays Ghana MTN mobile money to the number with its country code', async () => {
      const { rail, toCode, receiver: input } = mobileMoneyScenario('success');
      const request: PayoutRequest = { ...payout('success'), rail, toCountry: toCode, destinationAmount: 15_075, destinationCurrency: 'GHS', receiver: parseReceiver(input, rail, toCode), receiverName: null };
      request.receiver.name = 'Kwame Mensah';
      const update = await adapter.submit(request);
      assert.equal(update.status, 'processing');
      const held = fake.transfer(adapter.keyOf(request.paymentId))!;
      assert.deepEqual([held.bank_code, held.account_number, held.full_name, held.amount, held.currency], ['MTN', '233240000001', 'Kwame Mensah', 150.75, 'GHS']);
      await finalPoll(request, update.providerReference!, 'completed');
    });

    it("pays Kenya's M-Pesa with the sender's name, country and mobile number from the payout (meta), and refuses one without them before sending", async () => {
      const base: PayoutRequest = {
        ...payout('success'),
        rail: 'mobile_money',
        toCountry: 'KE',
        destinationAmount: 150_000,
        destinationCurrency: 'KES',
        receiver: parseReceiver({ phone: '+254712345678', provider: 'M-Pesa', name: 'Akinyi Kimwei' }, 'mobile_money', 'KE'),
        receiverName: 'Akinyi Kimwei',
      };
      const before = fake.requests().length;
      const nameOnly = await adapter.submit({ ...base, sender: { name: 'Mama Put Kitchen', country: 'NG' } });
      assert.equal(nameOnly.status, 'failed');
      assert.match(nameOnly.failureReason ?? '', /sender's name, country and mobile number: add a mobile money settlement account/);
      const none = await adapter.submit({ ...base });
      assert.equal(none.status, 'failed');
      assert.equal(fake.requests().length, before, 'nothing sent without a sender');

      const request: PayoutRequest = { ...base, sender: { name: 'Mama Put Kitchen', country: 'NG', mobileNumber: '2348031234567' } };
      const update = await adapter.submit(request);
      assert.equal(update.status, 'processing');
      const held = fake.transfer(adapter.keyOf(request.paymentId))!;
      assert.deepEqual([held.bank_code, held.account_number, held.amount, held.currency], ['MPS', '254712345678', 1500, 'KES']);
      assert.deepEqual(held.meta, { sender: 'Mama Put Kitchen', sender_country: 'NG', mobile_number: '2348031234567' });
      await finalPoll(request, update.providerReference!, 'completed');

      // A Kenyan bank account carries the same meta; a configured sender is the fallback of an adapter built in code.
      const configured = createFlutterwaveAdapter({ ...config, sender: { name: 'Tapline Ltd', country: 'NG', mobileNumber: '2348030000001' } }, deps);
      const bank: PayoutRequest = { ...payout('success'), toCountry: 'KE', destinationAmount: 250_000, destinationCurrency: 'KES', receiver: parseReceiver({ accountNumber: '1234567890', bankCode: '68' }, 'bank_transfer', 'KE') };
      const bankUpdate = await configured.submit(bank);
      assert.equal(bankUpdate.status, 'processing');
      assert.deepEqual(fake.transfer(configured.keyOf(bank.paymentId))!.meta, { sender: 'Tapline Ltd', sender_country: 'NG', mobile_number: '2348030000001' });
    });

    it('refuses what it cannot send, before asking Flutterwave', async () => {
      const before = fake.requests().length;
      const ghana = mobileMoneyScenario('success');
      const base = { ...payout('success'), rail: ghana.rail, toCountry: ghana.toCode, destinationCurrency: 'GHS' } as PayoutRequest;
      const noNetwork = await adapter.submit({ ...base, receiver: parseReceiver({ phone: '+233241234567' }, 'mobile_money', 'GH') });
      assert.deepEqual(noNetwork, { status: 'failed', failureReason: 'Flutterwave needs the mobile money network for GH: send receiver.provider, one of AIRTELTIGO, MTN, VODAFONE' });
      const wrongCurrency = await adapter.submit({ ...base, destinationCurrency: 'USD', receiver: parseReceiver(ghana.receiver, 'mobile_money', 'GH') });
      assert.equal(wrongCurrency.failureReason, 'Flutterwave pays mobile money in GH in GHS, not USD');
      const noBank = await adapter.submit({ ...payout('success'), receiver: parseReceiver({ accountNumber: '0123456789' }, 'bank_transfer', 'NG') });
      assert.equal(noBank.failureReason, "Flutterwave needs the receiver's bank code (account_bank) for a bank transfer");
      assert.equal(fake.requests().length, before);
    });

    it('never concludes "never heard of it" from a list that ignored the reference filter', async () => {
      const request = payout('success');
      await adapter.submit(request);
      const ignoringFilter: typeof fetch = (input, init) => {
        const url = new URL(String(input));
        url.searchParams.delete('reference');
        return globalThis.fetch(url, init);
      };
      const blind = createFlutterwaveAdapter(config, { ...deps, fetch: ignoringFilter });
      await assert.rejects(blind.lookup(payout('success')), /cannot tell whether it holds this one/);
      assert.equal((await until(() => blind.lookup(request), 'the transfer on the first page')).providerReference, fake.transfer(adapter.keyOf(request.paymentId))!.id.toString());
      assert.equal(await adapter.lookup(payout('success')), undefined);
    });

    it('maps operator spellings to the documented codes (Uganda Airtel)', async () => {
      const request: PayoutRequest = { ...payout('success'), rail: 'mobile_money', toCountry: 'UG', destinationAmount: 50_000, destinationCurrency: 'UGX', receiver: parseReceiver({ phone: '+256701234567', provider: 'Airtel Money', name: 'Nakato' }, 'mobile_money', 'UG') };
      await adapter.submit(request);
      const held = fake.transfer(adapter.keyOf(request.paymentId))!;
      assert.deepEqual([held.bank_code, held.account_number, held.amount, held.currency], ['AIRTEL', '256701234567', 50_000, 'UGX']);
    });
  });

  describe('collections (Direct Charge)', () => {
    const collection = (phone: string, amount = 5_000, currency = 'UGX') => ({ collectionId: `col_${randomBytes(9).toString('hex')}`, amount, currency, phone, description: 'Groceries' });

    it('charges once under the tx_ref: a second collect is refused by Flutterwave and answered with the first charge; verify says what was paid', async () => {
      const request = collection('+256770000001');
      const received = fake.chargesReceived();
      assert.deepEqual(await adapter.collect!(request), { status: 'pending' }, 'Uganda answers in redirect mode: pending');
      const again = await adapter.collect!(request);
      assert.ok(['pending', 'completed'].includes(again.status), JSON.stringify(again));
      assert.equal(fake.chargesReceived() - received, 2);
      assert.equal(fake.charges().filter((charge) => charge.tx_ref === chargeKeyOf(request.collectionId)).length, 1, 'one charge');
      const done = await until(async () => {
        const update = await adapter.collectionStatus!(request);
        return update.status === 'completed' ? update : undefined;
      }, 'the charge to complete');
      const charge = fake.charge(chargeKeyOf(request.collectionId))!;
      assert.deepEqual(done, { status: 'completed', providerReference: String(charge.id), paid: { amount: 5_000, currency: 'UGX' } });
      assert.equal(charge.timesCharged, 1);
    });

    it('a Kenyan (mpesa) charge answers with its pending data; unknown tx_refs are "not yet", never failed; what Flutterwave cannot charge is refused before asking', async () => {
      const kenya = collection('+254712345678', 10_050, 'KES');
      const pending = await adapter.collect!(kenya);
      assert.equal(pending.status, 'pending');
      assert.equal(pending.providerReference, String(fake.charge(chargeKeyOf(kenya.collectionId))!.id));
      assert.equal(fake.charge(chargeKeyOf(kenya.collectionId))!.asked, 100.5, 'major units');
      await assert.rejects(adapter.collectionStatus!(collection('+256770000001')), /no charge under tx_ref/);
      const before = fake.chargesReceived();
      assert.match((await adapter.collect!(collection('+2348031234567', 1_000, 'NGN'))).failureReason ?? '', /does not collect from NG numbers/);
      assert.match((await adapter.collect!(collection('+256700000001', 1_000, 'KES'))).failureReason ?? '', /collects UGX from UG numbers/);
      assert.equal(fake.chargesReceived(), before);
    });

    it('a success for another amount is never answered as this collection by collectionStatus', async () => {
      const request = collection('+256770000006');
      await adapter.collect!(request);
      await until(() => (fake.charge(chargeKeyOf(request.collectionId))?.status === 'successful' ? true : undefined), 'the charge');
      await assert.rejects(adapter.collectionStatus!(request), /is for 4999 UGX, not 5000 UGX/);
    });
  });

  describe('webhooks', () => {
    const webhook = (headers: Record<string, string | undefined>, body: unknown, path = 'webhook', method = 'POST'): InboundCallback => ({
      path, method, headers, rawBody: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
    });
    const genuine = () => ({ 'content-type': 'application/json', 'verif-hash': fake.env.FLUTTERWAVE_SECRET_HASH });

    it('refuses forged, unsigned and malformed webhooks', async () => {
      const request = payout('callback_lost');
      const update = await adapter.submit(request);
      const reference = adapter.keyOf(request.paymentId);
      const body = { event: 'transfer.completed', 'event.type': 'Transfer', data: { id: Number(update.providerReference), reference, status: 'SUCCESSFUL' } };
      const cases: Array<[string, InboundCallback]> = [
        ['a wrong hash', webhook({ 'verif-hash': `${fake.env.FLUTTERWAVE_SECRET_HASH}x` }, body)],
        ['no hash', webhook({}, body)],
        ['an empty hash', webhook({ 'verif-hash': '' }, body)],
        ['a garbage body', webhook(genuine(), '{"event": "transfer.comp')],
        ['a JSON array', webhook(genuine(), [1, 2])],
        ['no data', webhook(genuine(), { event: 'transfer.completed' })],
        ['a transfer Flutterwave never made', webhook(genuine(), { ...body, data: { ...body.data, id: 1 } })],
        ['a transfer id under another payment\'s reference', webhook(genuine(), { ...body, data: { ...body.data, reference: adapter.keyOf('pay_someone_else') } })],
        ['another path', webhook(genuine(), body, 'webhook/extra')],
        ['a GET', webhook(genuine(), body, 'webhook', 'GET')],
      ];
      for (const [what, inbound] of cases) {
        const { verdict, reply } = await adapter.callback(inbound);
        assert.equal(verdict.kind, 'refused', what);
        assert.equal(reply.status, 401, what);
      }
      // The genuine one, for contrast: the verdict is Flutterwave's record, not the body's claim.
      const { verdict } = await adapter.callback(webhook(genuine(), { ...body, data: { ...body.data, status: 'FAILED' } }));
      assert.equal(verdict.kind, 'payout');
      assert.notEqual((verdict as { update: PayoutUpdate }).update.status, 'failed');
    });

    it('ignores genuine events that are not ours', async () => {
      const charge = await adapter.callback(webhook(genuine(), { event: 'charge.completed', data: { id: 5, tx_ref: 'x', status: 'successful' } }));
      assert.deepEqual(charge, { verdict: { kind: 'ignored', reason: 'a charge Tapline did not make (its tx_ref is not one of ours)' }, reply: { status: 200 } });
      const dashboard = await adapter.callback(webhook(genuine(), { event: 'transfer.completed', data: { id: 5, reference: 'TRF-282263183180', status: 'SUCCESSFUL' } }));
      assert.equal(dashboard.verdict.kind, 'ignored');
      assert.equal(dashboard.reply.status, 200);
    });

    it('asks Flutterwave to deliver again when it cannot confirm now', async () => {
      const unreachable = createFlutterwaveAdapter({ ...config, baseUrl: 'http://127.0.0.1:9' }, { ...deps, timeoutMs: 500 });
      const { verdict, reply } = await unreachable.callback(webhook(genuine(), { event: 'transfer.completed', data: { id: 7, reference: adapter.keyOf('pay_x'), status: 'SUCCESSFUL' } }));
      assert.equal(verdict.kind, 'ignored');
      assert.equal(reply.status, 503);
    });
  });

  describe('reconciliation and rates', () => {
    it("lists the day's transfers of ours with their amounts and states", async () => {
      const request = payout('success', 990_000);
      const update = await adapter.submit(request);
      await finalPoll(request, update.providerReference!, 'completed');
      const failed = payout('failure', 10_000);
      await adapter.submit(failed);
      await finalPoll(failed, null, 'failed');
      const today = new Date().toISOString().slice(0, 10);
      const missing = { id: 'pay_never_sent', providerReference: null, direction: 'payout' as const, status: 'pending' as const, amount: 1, currency: 'NGN' };
      const listed = await adapter.transactionsOn!(today, [missing]);
      assert.deepEqual(listed.find((entry) => entry.id === request.paymentId), { id: request.paymentId, providerReference: update.providerReference, direction: 'payout', status: 'completed', amount: 990_000, currency: 'NGN' });
      assert.equal(listed.find((entry) => entry.id === failed.paymentId)?.status, 'failed');
      assert.equal(listed.some((entry) => entry.id === 'pay_never_sent'), false);
      assert.ok(listed.length > 10, 'more than one page of transfers was read');
      assert.ok(listed.every((entry) => adapter.keyOf(entry.id).startsWith('tpl_')));
      const yesterday = await adapter.transactionsOn!('2001-01-01', []);
      assert.deepEqual(yesterday, []);
    });

    it('answers the transfer rate', async () => {
      const quote = await adapter.rate(100_000, 'KES', 'USD');
      assert.deepEqual(quote, { rate: '129.5', sourceCurrency: 'KES', sourceAmount: 12_950_000, destinationCurrency: 'USD', destinationAmount: 100_000 });
      const naira = await adapter.rate(10_000, 'NGN', 'GHS');
      assert.equal(naira.rate, '101.9737');
      assert.equal(naira.sourceAmount, 1_019_737);
      await assert.rejects(adapter.rate(100, 'NGN', 'MAD'), /Unable to fetch rates at the moment/);
    });
  });

  describe('bills', () => {
    const biller = (id: string) => BILLERS.find((candidate) => candidate.id === id)!;
    const billId = () => `bill_${randomBytes(12).toString('base64url')}`;
    let provider: ReturnType<typeof createFlutterwaveBiller>;
    before(() => {
      provider = createFlutterwaveBiller(config, deps);
    });

    it('supports the Nigerian billers it can map, and no other', () => {
      const supported = BILLERS.filter((candidate) => provider.supports(candidate)).map((candidate) => candidate.id);
      assert.deepEqual(supported, ['mtn-ng-airtime', 'airtel-ng-airtime', 'glo-ng-airtime', '9mobile-ng-airtime', 'ikedc-prepaid', 'ekedc-prepaid', 'aedc-prepaid', 'dstv-ng', 'gotv-ng', 'startimes-ng', 'mtn-ng-data', 'airtel-ng-data']);
      assert.equal(provider.name, 'flutterwave');
    });

    it('tops up NG airtime', async () => {
      const id = billId();
      const result = await provider.pay({ billId: id, biller: biller('mtn-ng-airtime'), accountRef: BILL_CUSTOMERS.phone.success, amount: 50_000, planCode: null });
      assert.equal(result.status, 'completed');
      assert.match(result.providerReference, /^CF-FLYAPI-\d+$/);
      assert.equal(result.token, undefined);
      assert.deepEqual(fake.bills().find((bill) => bill.reference === adapter.keyOf(id)), { reference: adapter.keyOf(id), type: 'AIRTIME', customer: '+2348031234567', amount: 500, flwRef: result.providerReference, token: null, units: null });
    });

    it('buys prepaid electricity and returns its token and units', async () => {
      const id = billId();
      const result = await provider.pay({ billId: id, biller: biller('ekedc-prepaid'), accountRef: BILL_CUSTOMERS.meter.success, amount: 500_000, planCode: null });
      const paid = fake.bills().find((bill) => bill.reference === adapter.keyOf(id))!;
      assert.equal(paid.type, 'EKEDC PREPAID TOPUP');
      assert.deepEqual(result, { status: 'completed', providerReference: paid.flwRef, token: paid.token!, units: '23.8', customerName: 'ADA OBI (FAKE)' });
      assert.match(result.token!, /^\d{4}(-\d{4}){4}$/);
      const ikeja = await provider.pay({ billId: billId(), biller: biller('ikedc-prepaid'), accountRef: BILL_CUSTOMERS.meter.success, amount: 1_000_000, planCode: null });
      assert.equal(ikeja.units, '47.7');
    });

    it('pays a cable TV bouquet', async () => {
      const id = billId();
      const result = await provider.pay({ billId: id, biller: biller('dstv-ng'), accountRef: BILL_CUSTOMERS.smartcard.success, amount: 1_900_000, planCode: 'compact' });
      assert.equal(result.status, 'completed');
      assert.equal(result.customerName, 'ADA OBI (FAKE)');
      const paid = fake.bills().find((bill) => bill.reference === adapter.keyOf(id))!;
      assert.deepEqual([paid.type, paid.amount, paid.customer], ['DSTV', 19_000, '7000000001']);
      const data = await provider.pay({ billId: billId(), biller: biller('mtn-ng-data'), accountRef: BILL_CUSTOMERS.phone.success, amount: 150_000, planCode: '2gb-30d' });
      assert.equal(data.status, 'completed');
    });

    it('refuses an invalid meter at validation and pays nothing', async () => {
      const id = billId();
      const before = fake.bills().length;
      const posts = () => fake.requests().filter((line) => line === 'POST /v3/bills').length;
      const postsBefore = posts();
      const result = await provider.pay({ billId: id, biller: biller('ekedc-prepaid'), accountRef: BILL_CUSTOMERS.meter.invalid, amount: 500_000, planCode: null });
      assert.deepEqual(result, { status: 'failed', providerReference: adapter.keyOf(id), failureReason: 'Flutterwave could not validate the meter number 45700000002 for Eko Electricity Prepaid: Invalid customer: 45700000002 is not a valid meter number' });
      assert.equal(fake.bills().length, before);
      assert.equal(posts(), postsBefore, 'no payment was attempted');
    });

    it('reports a declined bill, and a second call for a paid bill pays nothing more', async () => {
      const declined = await provider.pay({ billId: billId(), biller: biller('gotv-ng'), accountRef: BILL_CUSTOMERS.smartcard.failure, amount: 390_000, planCode: 'jinja' });
      assert.equal(declined.status, 'failed');
      assert.equal(declined.failureReason, 'Flutterwave refused the bill payment: Bill payment failed: the biller declined the transaction');
      const id = billId();
      const request = { billId: id, biller: biller('aedc-prepaid'), accountRef: BILL_CUSTOMERS.meter.success, amount: 600_000, planCode: null };
      const first = await provider.pay(request);
      const second = await provider.pay(request);
      assert.equal(first.status, 'completed');
      assert.equal(second.status, 'completed');
      assert.equal(second.token, first.token);
      assert.equal(fake.bills().filter((bill) => bill.reference === adapter.keyOf(id)).length, 1);
    });

    it('leaves the outcome unknown when Flutterwave cannot say whether the bill was paid', async () => {
      const offline = createFlutterwaveBiller({ ...config, baseUrl: 'http://127.0.0.1:9' }, { ...deps, timeoutMs: 500 });
      await assert.rejects(offline.pay({ billId: billId(), biller: biller('mtn-ng-airtime'), accountRef: BILL_CUSTOMERS.phone.success, amount: 10_000, planCode: null }), /did not answer GET \/v3\/bills/);
    });
  });
});
