import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { SUPPORTED_CURRENCIES } from '@tapline/shared/countries';
import { databaseTargets } from '../../testing/databases.ts';
import { ManualClock } from '../../testing/receiver.ts';
import { useTestServer } from '../../testing/server.ts';
import { convertMinor, parseDecimal } from '@tapline/shared/money';
import { EmbeddedRateProvider, UrlRateProvider } from './providers.ts';
import { FxRateService } from './rates.ts';

const PINNED = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@fawazahmed0/currency-api/v1/currencies/usd.json'), 'utf8')) as { date: string; usd: Record<string, number> };

/** A stand-in for FX_SOURCE_URL: serves whatever table (and status) the test sets. */
class TableServer {
  table: unknown = PINNED;
  status = 200;
  requests = 0;
  private constructor(private readonly server: Server, readonly url: string) {}
  static async start(): Promise<TableServer> {
    const holder: { it?: TableServer } = {};
    const server = createServer((_request, response) => {
      holder.it!.requests += 1;
      response.writeHead(holder.it!.status, { 'content-type': 'application/json' }).end(JSON.stringify(holder.it!.table));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    holder.it = new TableServer(server, `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/usd.json`);
    return holder.it;
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function withRates(date: string, changes: Record<string, number>) {
  return { date, usd: { ...PINNED.usd, ...changes } };
}

const MINUTE = 60_000;

for (const target of await databaseTargets()) {
  describe(`FX with the pinned reference table on ${target.name}`, () => {
    const clock = new ManualClock(Date.parse('2026-11-04T12:00:00.000Z'));
    const server = useTestServer(target, { now: clock.now });

    it('GET /api/fx (public) converts between two countries\' currencies at the mid rate, floored', async () => {
      const response = await server().request('GET', '/api/fx?from=NG&to=KE&amount=2500');
      assert.equal(response.status, 200);
      // KES per USD / NGN per USD in the pinned table, 10 significant digits half-even.
      assert.deepEqual(response.body, {
        from: 'NG',
        to: 'KE',
        fromCurrency: 'NGN',
        toCurrency: 'KES',
        rate: 0.09778176467,
        amount: 2500,
        receive: 244.45, // floor(2500 x 0.09778176467 = 244.454411675) to the cent
        asOf: PINNED.date,
        updatedAt: clock.now().toISOString(),
      });
      const lower = await server().request('GET', '/api/fx?from=gh&to=us');
      assert.equal(lower.status, 200);
      assert.equal(lower.body.fromCurrency, 'GHS');
      assert.equal(lower.body.toCurrency, 'USD');
      assert.equal(lower.body.amount, 1);
      for (const [query, code] of [['from=NG&to=NG&amount=5', 'same_country'], ['from=NG&to=FR&amount=5', 'country_not_supported'], ['to=KE&amount=5', 'validation_failed'], ['from=NG&to=KE&amount=abc', 'validation_failed'], ['from=NG&to=KE&amount=1.234', 'amount_too_many_decimals'], ['from=NG&to=KE&amount=0', 'amount_must_not_be_zero']]) {
        const refused = await server().request('GET', `/api/fx?${query}`);
        assert.equal(refused.status, 400, query);
        assert.equal(refused.body.code, code, query);
      }
    });

    it('GET /api/fx/quote (key): mid rate, rate with the spread, fee, receive, and a quote valid 60 seconds', async () => {
      const merchant = await server().createMerchant();
      const headers = { 'x-merchant-api-key': merchant.testKey };
      assert.equal((await server().request('GET', '/api/fx/quote?from=USD&to=NGN&amount=100')).status, 401);
      const quote = await server().request('GET', '/api/fx/quote?from=USD&to=NGN&amount=100', { headers });
      assert.equal(quote.status, 200);
      assert.match(String(quote.body.quoteId), /^fxq_/);
      assert.equal(quote.body.midRate, 1326.1644); // 1326.1643995 at 10 significant digits
      assert.equal(quote.body.rate, 1312.902756); // x 0.99, rounded down
      assert.equal(quote.body.spreadPct, 1);
      assert.equal(quote.body.fee, 1.5);
      assert.equal(quote.body.feeCurrency, 'USD');
      assert.equal(quote.body.receive, 131290.27);
      assert.equal(quote.body.expiresAt, new Date(clock.now().getTime() + 60_000).toISOString());
      const same = await server().request('GET', '/api/fx/quote?from=KES&to=KES&amount=100', { headers });
      assert.equal(same.status, 400);
      assert.equal(same.body.code, 'same_currency');
      const zeroDecimals = await server().request('GET', '/api/fx/quote?from=XOF&to=GHS&amount=10000&rail=bank_transfer', { headers });
      assert.equal(zeroDecimals.status, 200);
      assert.equal(zeroDecimals.body.fee, 100);
      assert.equal(zeroDecimals.body.receive, convertMinor(10_000, 'XOF', 'GHS', parseDecimal(String(zeroDecimals.body.rate)), 'down') / 100);
    });

    it('a quoteId locks its rate for POST /api/pay while valid; expired 410, another merchant\'s 404, another corridor 400', async () => {
      const merchant = await server().createMerchant();
      const headers = { 'x-merchant-api-key': merchant.testKey };
      const quote = await server().request('GET', '/api/fx/quote?from=NGN&to=KES&amount=1000', { headers });
      const body = { fromCode: 'NG', toCode: 'KE', rail: 'mobile_money', amount: 1000, currency: 'NGN', receiver: '+254712345678', quoteId: quote.body.quoteId };
      const paid = await server().request('POST', '/api/pay', { headers: { ...headers, 'idempotency-key': randomUUID() }, body });
      assert.equal(paid.status, 201);
      assert.equal(paid.body.fxRate, quote.body.rate);
      assert.equal(paid.body.destinationAmount, quote.body.receive);
      assert.equal(paid.body.quoteId, quote.body.quoteId);
      const other = await server().createMerchant();
      const stolen = await server().request('POST', '/api/pay', { headers: { 'x-merchant-api-key': other.testKey, 'idempotency-key': randomUUID() }, body });
      assert.equal(stolen.status, 404);
      assert.equal(stolen.body.code, 'quote_not_found');
      const live = await server().request('POST', '/api/pay', { headers: { 'x-merchant-api-key': merchant.liveKey, 'idempotency-key': randomUUID() }, body: { ...body, rail: 'wallet', receiver: '@nobody_here' } });
      assert.equal(live.status, 404);
      const mismatch = await server().request('POST', '/api/pay', { headers: { ...headers, 'idempotency-key': randomUUID() }, body: { ...body, toCode: 'GH', receiver: '+233201234567' } });
      assert.equal(mismatch.status, 400);
      assert.equal(mismatch.body.code, 'quote_mismatch');
      clock.advance(60_000);
      const expired = await server().request('POST', '/api/pay', { headers: { ...headers, 'idempotency-key': randomUUID() }, body });
      assert.equal(expired.status, 410);
      assert.equal(expired.body.code, 'quote_expired');
    });

    it('GET /api/fx/rates (key) lists every pair with the table\'s source, date and update time', async () => {
      const merchant = await server().createMerchant();
      const rates = await server().request<{ source: string; asOf: string; updatedAt: string; currencies: string[]; rates: { from: string; to: string; rate: number }[] }>('GET', '/api/fx/rates', { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(rates.status, 200);
      assert.equal(rates.body.source, '@fawazahmed0/currency-api@2026.9.29');
      assert.equal(rates.body.asOf, '2026-09-29');
      assert.deepEqual(rates.body.currencies, [...SUPPORTED_CURRENCIES]);
      assert.equal(rates.body.rates.length, SUPPORTED_CURRENCIES.length * (SUPPORTED_CURRENCIES.length - 1));
      assert.ok(rates.body.rates.every((entry) => entry.rate > 0 && entry.from !== entry.to));
      assert.equal(rates.body.rates.find((entry) => entry.from === 'NGN' && entry.to === 'KES')!.rate, 0.09778176467);
      const filtered = await server().request<{ rates: unknown[] }>('GET', '/api/fx/rates?from=GHS', { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(filtered.body.rates.length, SUPPORTED_CURRENCIES.length - 1);
      assert.equal((await server().request('GET', '/api/fx/rates')).status, 401);
    });
  });

  describe(`FX from a live source (FX_SOURCE_URL) on ${target.name}`, () => {
    const clock = new ManualClock(Date.parse('2026-11-05T12:00:00.000Z'));
    let source: TableServer;
    before(async () => {
      source = await TableServer.start();
      source.table = withRates('2026-11-05', { ngn: 1500 });
    });
    after(async () => {
      await source.close();
    });
    // The app reads the same live source; its URL is known once the source listens.
    const liveProvider = { name: 'live-test-source', fetchTable: () => new UrlRateProvider(source.url).fetchTable() };
    const server = useTestServer(target, { now: clock.now, app: { fxProvider: liveProvider } });

    it('refreshes every 5 minutes on the injected clock and keeps the last good table when the source fails', async () => {
      // The shared test server uses the pinned table; this service reads the live source.
      // The app read the source once already when it started (its no-PIN limit defaults): count from here.
      const requestsBefore = source.requests;
      const requests = () => source.requests - requestsBefore;
      const fx = new FxRateService({ db: server().db, now: clock.now, provider: new UrlRateProvider(source.url), fallback: new EmbeddedRateProvider(), refreshMs: 5 * MINUTE, spreadPercent: '1' });
      let snapshot = await fx.snapshot();
      assert.equal(snapshot.asOf, '2026-11-05');
      assert.equal(snapshot.source, source.url);
      assert.equal(snapshot.usd.get('NGN')!.units, 1500n);
      assert.equal(requests(), 1);
      source.table = withRates('2026-11-06', { ngn: 1600 });
      clock.advance(5 * MINUTE - 1);
      snapshot = await fx.snapshot();
      assert.equal(snapshot.asOf, '2026-11-05', 'not refreshed before 5 minutes');
      assert.equal(requests(), 1);
      clock.advance(1);
      snapshot = await fx.snapshot();
      assert.equal(snapshot.asOf, '2026-11-06');
      assert.equal(snapshot.updatedAt.toISOString(), clock.now().toISOString());
      assert.equal(formatMid(fx, snapshot, 'USD', 'NGN'), '1600');

      // Down: the last good table stays, with its own date and update time.
      source.status = 503;
      clock.advance(5 * MINUTE);
      snapshot = await fx.snapshot();
      assert.equal(snapshot.asOf, '2026-11-06');
      assert.equal(requests(), 3);
      // An incomplete table is refused whole: no rate is invented.
      source.status = 200;
      source.table = { date: '2026-11-07', usd: { usd: 1, ngn: 1700 } };
      clock.advance(5 * MINUTE);
      snapshot = await fx.snapshot();
      assert.equal(snapshot.asOf, '2026-11-06');

      // A restart with the source down starts from the table saved in the database.
      source.status = 500;
      const restarted = new FxRateService({ db: server().db, now: clock.now, provider: new UrlRateProvider(source.url), fallback: new EmbeddedRateProvider(), refreshMs: 5 * MINUTE, spreadPercent: '1' });
      const saved = await restarted.snapshot();
      assert.equal(saved.asOf, '2026-11-06');
      assert.equal(formatMid(restarted, saved, 'USD', 'NGN'), '1600');
      // A source never seen and nothing saved: the pinned reference table, reported as such.
      const fresh = new FxRateService({ db: server().db, now: clock.now, provider: new UrlRateProvider(`${source.url}?other`), fallback: new EmbeddedRateProvider(), refreshMs: 5 * MINUTE, spreadPercent: '1' });
      const pinned = await fresh.snapshot();
      assert.equal(pinned.source, '@fawazahmed0/currency-api@2026.9.29');
      assert.equal(pinned.asOf, '2026-09-29');
    });

    it('the app\'s own rate service serves the live table and refreshes lazily on the injected clock', async () => {
      source.status = 200;
      source.table = withRates('2026-11-08', { ngn: 1450.5 });
      const merchant = await server().createMerchant();
      clock.advance(5 * MINUTE);
      const first = await server().request('GET', '/api/fx/rates?from=USD&to=NGN', { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(first.body.asOf, '2026-11-08');
      assert.deepEqual(first.body.rates, [{ from: 'USD', to: 'NGN', rate: 1450.5 }]);
      const updatedAt = first.body.updatedAt;
      clock.advance(4 * MINUTE);
      const second = await server().request('GET', '/api/fx/rates?from=USD&to=NGN', { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(second.body.updatedAt, updatedAt);
      clock.advance(MINUTE);
      const third = await server().request('GET', '/api/fx/rates?from=USD&to=NGN', { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(third.body.updatedAt, clock.now().toISOString());
    });
  });
}

function formatMid(fx: FxRateService, snapshot: Awaited<ReturnType<FxRateService['snapshot']>>, from: string, to: string): string {
  const mid = fx.midRate(snapshot, from, to);
  return (Number(mid.units) / 10 ** mid.scale).toString();
}
