// The customer display's hub over real HTTP: the host on loopback (the till's side) and its LAN
// listener (the tablet's side, here bound to 127.0.0.1 on a port of its own). The till publishes,
// a paired tablet follows the event stream (through the page's own followHost), every refusal is
// a clear {error, code}, and the LAN listener serves nothing but the tablet's page and endpoints.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SimulatedNfcReader, VirtualPrinter } from '@tapline/hardware';
import type { DisplayState } from '../renderer/lib/customer-display.ts';
import { type StreamStatus, followHost } from '../renderer/lib/display-stream.ts';
import { type TerminalHost, startTerminalHost } from './index.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with the headers a test chooses (fetch would not let it set Host). */
function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // A length, not chunks: Node sends a DELETE's body unannounced otherwise.
    const length = options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) };
    const request = httpRequest(url, { method: options.method ?? 'GET', headers: { ...options.headers, ...length } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

function state(overrides: Partial<DisplayState> = {}): DisplayState {
  return {
    version: 1,
    merchantName: 'Mama Put Kitchen',
    language: 'en',
    currency: 'NGN',
    lines: [{ name: 'Jollof rice', quantity: 2, unitPriceMinor: 1_500, discountMinor: 0, totalMinor: 3_000 }],
    totals: { subtotalMinor: 3_000, discountMinor: 0, taxes: [], totalMinor: 3_000 },
    amountDueMinor: 3_000,
    paidTenders: [],
    remainingMinor: null,
    phase: { kind: 'cart' },
    ...overrides,
  };
}

/** A condition met, checked on every change the test is told about (no sleeps). */
function until<T>(check: () => T | undefined, subscribe: (notify: () => void) => void): Promise<T> {
  return new Promise((resolve) => {
    const test = () => {
      const value = check();
      if (value !== undefined) resolve(value);
    };
    subscribe(test);
    test();
  });
}

describe('terminal host: the customer display hub', () => {
  const staticDir = mkdtempSync(join(tmpdir(), 'tapline-display-hub-test-'));
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><html><head><title>t</title></head><body><div id="app"></div></body></html>');
  let host: TerminalHost;
  let till: { origin: string; host: string };
  let lan: string;

  before(async () => {
    host = await startTerminalHost({
      syncServerUrl: 'http://127.0.0.1:1',
      port: 0,
      staticDir,
      displayListen: { host: '127.0.0.1', port: 0 },
      nfc: new SimulatedNfcReader({ baseUrl: 'http://example.test' }),
      printer: new VirtualPrinter({}),
      log: () => undefined,
    });
    till = { origin: host.url, host: new URL(host.url).host };
    assert.ok(host.displayUrl !== null);
    lan = host.displayUrl;
  });
  after(async () => {
    await host.close();
    rmSync(staticDir, { recursive: true, force: true });
  });

  const asTill = { 'content-type': 'application/json' };
  const tillHeaders = () => ({ ...asTill, origin: till.origin });
  const publish = (value: unknown) => send(`${host.url}/display-hub/state`, { method: 'POST', headers: tillHeaders(), body: JSON.stringify(value) });
  const newCode = async (): Promise<string> => {
    const answer = await send(`${host.url}/display-hub/pairing`, { method: 'POST', headers: tillHeaders() });
    assert.equal(answer.status, 201, answer.body);
    const body = JSON.parse(answer.body) as { code: { code: string; expiresAt: string }; urls: string[]; listening: boolean };
    assert.equal(body.listening, true);
    assert.deepEqual(body.urls, [`${lan}/tablet`]);
    assert.match(body.code.code, /^\d{6}$/);
    return body.code.code;
  };
  /** Pairs as a tablet of the LAN, from its own address string (so the rate limit of one test does not reach another). */
  const pairAs = (code: unknown) => send(`${lan}/display-hub/pair`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
  const fetchFrom = (base: string): typeof fetch => ((path: string | URL | Request, init?: RequestInit) => fetch(new URL(String(path), base), init)) as typeof fetch;

  it('relays the till\'s states to a paired tablet: the current one at once, then each change', async () => {
    assert.equal((await publish(state())).status, 204);
    const code = await newCode();
    const paired = await pairAs(code);
    assert.equal(paired.status, 201, paired.body);
    const { token } = JSON.parse(paired.body) as { token: string };
    assert.equal(token.length, 43);

    const seen: DisplayState[] = [];
    const statuses: StreamStatus[] = [];
    const listeners: (() => void)[] = [];
    const notify = () => listeners.forEach((listener) => listener());
    const stop = followHost(token, { onState: (next) => (seen.push(next), notify()), onStatus: (next) => (statuses.push(next), notify()), onUnpaired: () => assert.fail('paired') }, { fetchFn: fetchFrom(lan) });
    try {
      await until(() => (seen.length >= 1 ? true : undefined), (listener) => listeners.push(listener));
      assert.deepEqual(seen[0], state(), 'the current state first');
      assert.deepEqual(statuses, ['connecting', 'live']);
      const status = JSON.parse((await send(`${host.url}/display-hub/pairing`, { headers: tillHeaders() })).body) as { paired: number; following: number; code: unknown };
      assert.deepEqual({ paired: status.paired, following: status.following, code: status.code }, { paired: 1, following: 1, code: null });

      const paying = state({ phase: { kind: 'pay', method: 'wallet', qrPayload: 'tapline:pay:ps_1', opening: false } });
      assert.equal((await publish(paying)).status, 204);
      // The same state again is not sent twice.
      assert.equal((await publish(paying)).status, 204);
      const outcome = state({ phase: { kind: 'outcome', result: 'paid', tenderedMinor: null, changeMinor: null } });
      assert.equal((await publish(outcome)).status, 204);
      await until(() => (seen.length >= 3 ? true : undefined), (listener) => listeners.push(listener));
      assert.deepEqual(seen.map((next) => next.phase.kind), ['cart', 'pay', 'outcome']);
      assert.deepEqual(seen[1], paying);
    } finally {
      stop();
    }
  });

  it('ends a tablet\'s stream when the till unpairs, and its reconnect is refused (401: it asks for a code)', async () => {
    const paired = await pairAs(await newCode());
    const { token } = JSON.parse(paired.body) as { token: string };
    const statuses: StreamStatus[] = [];
    let unpaired = false;
    const listeners: (() => void)[] = [];
    const notify = () => listeners.forEach((listener) => listener());
    const stop = followHost(token, { onState: () => undefined, onStatus: (next) => (statuses.push(next), notify()), onUnpaired: () => ((unpaired = true), notify()) }, { fetchFn: fetchFrom(lan), backoffMs: () => 0 });
    try {
      await until(() => (statuses.includes('live') ? true : undefined), (listener) => listeners.push(listener));
      const revoked = await send(`${host.url}/display-hub/pairing`, { method: 'DELETE', headers: tillHeaders() });
      assert.equal(revoked.status, 200);
      assert.equal((JSON.parse(revoked.body) as { revoked: number }).revoked >= 1, true);
      await until(() => (unpaired ? true : undefined), (listener) => listeners.push(listener));
      assert.deepEqual(statuses, ['connecting', 'live', 'lost']);
    } finally {
      stop();
    }
    const refused = await send(`${lan}/display-hub/events`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(refused.status, 401);
    assert.deepEqual(JSON.parse(refused.body), { error: 'This display is not paired (or was unpaired): pair it with a code from the till', code: 'display_token_unknown' });
  });

  it('refuses a stream without a token or with one it never gave (401)', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: 'Basic abc' }] as Record<string, string>[]) {
      const answer = await send(`${lan}/display-hub/events`, { headers });
      assert.equal(answer.status, 401, JSON.stringify(headers));
      assert.equal((JSON.parse(answer.body) as { code: string }).code, 'display_token_unknown');
    }
  });

  it('answers wrong and malformed codes with clear 4xx codes, and 429 after 5 tries a minute', async () => {
    // A host of its own: every request here comes from 127.0.0.1, which the other tests' pairings have counted already.
    const fresh = await startTerminalHost({ syncServerUrl: 'http://127.0.0.1:1', port: 0, staticDir, displayListen: { host: '127.0.0.1', port: 0 }, nfc: new SimulatedNfcReader({ baseUrl: 'http://example.test' }), printer: new VirtualPrinter({}), log: () => undefined });
    try {
      const made = await send(`${fresh.url}/display-hub/pairing`, { method: 'POST', headers: { origin: fresh.url } });
      const code = (JSON.parse(made.body) as { code: { code: string } }).code.code;
      const wrong = code === '000000' ? '000001' : '000000';
      const pair = (value: unknown) => send(`${fresh.displayUrl}/display-hub/pair`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: value }) });
      const answers = [await pair('12'), await pair(wrong), await pair(null)];
      assert.deepEqual(answers.map((answer) => [answer.status, JSON.parse(answer.body)]), [
        [400, { error: 'A pairing code is 6 digits, as the till shows it', code: 'display_code_invalid' }],
        [403, { error: 'This code is wrong or already used: show a new code on the till', code: 'display_code_wrong' }],
        [400, { error: 'A pairing code is 6 digits, as the till shows it', code: 'display_code_invalid' }],
      ]);
      const notJson = await send(`${fresh.displayUrl}/display-hub/pair`, { method: 'POST', body: 'code=1' });
      assert.deepEqual([notJson.status, (JSON.parse(notJson.body) as { code: string }).code], [400, 'invalid_json']);
      // Three counted (the unreadable body is refused before counting): two more answer, the sixth is limited, even with the right code.
      assert.equal((await pair(wrong)).status, 403);
      assert.equal((await pair(wrong)).status, 403);
      const limited = await pair(code);
      assert.equal(limited.status, 429);
      assert.equal((JSON.parse(limited.body) as { code: string }).code, 'display_pairing_rate_limited');
      assert.match(String(limited.headers['retry-after']), /^\d+$/);
    } finally {
      await fresh.close();
    }
  });

  it('takes states and pairing orders only from the till\'s own page on this machine', async () => {
    const foreign = await send(`${host.url}/display-hub/state`, { method: 'POST', headers: { ...asTill, origin: 'http://evil.example' }, body: JSON.stringify(state()) });
    assert.deepEqual([foreign.status, JSON.parse(foreign.body)], [403, { error: 'Only the till on this machine may do this', code: 'forbidden' }]);
    // A site rebinding its name to 127.0.0.1 sends its own Host.
    const rebound = await send(`${host.url}/display-hub/pairing`, { method: 'POST', headers: { host: 'evil.example:5174' } });
    assert.equal(rebound.status, 403);
    // The LAN listener has none of the till's endpoints, nor the API or the hardware's settings.
    for (const [method, path] of [['POST', '/display-hub/state'], ['POST', '/display-hub/pairing'], ['DELETE', '/display-hub/pairing'], ['GET', '/display-hub/pairing'], ['GET', '/api/health'], ['GET', '/terminal-config.json'], ['GET', '/display']] as const) {
      const answer = await send(`${lan}${path}`, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : JSON.stringify(state()) });
      assert.equal(answer.status, 404, `${method} ${path} on the LAN listener`);
      assert.equal((JSON.parse(answer.body) as { code: string }).code, 'not_found');
    }
  });

  it('refuses what is not a display state, and a body too large', async () => {
    for (const value of [[], { version: 2 }, 'text', null]) {
      const answer = await publish(value);
      assert.deepEqual([answer.status, (JSON.parse(answer.body) as { code: string }).code], [400, 'display_state_invalid'], JSON.stringify(value));
    }
    const huge = await publish(state({ merchantName: 'x'.repeat(70 * 1024) }));
    assert.deepEqual([huge.status, (JSON.parse(huge.body) as { code: string }).code], [413, 'payload_too_large']);
  });

  it('serves the tablet its page (with the CSP) on the LAN listener, and sends / there', async () => {
    const page = await send(`${lan}/tablet`);
    assert.equal(page.status, 200);
    assert.match(page.body, /<div id="app">/);
    assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
    const root = await send(`${lan}/`);
    assert.deepEqual([root.status, root.headers.location], [302, '/tablet']);
  });

  it('listens on loopback only unless asked: no LAN listener, the status says so', async () => {
    const local = await startTerminalHost({ syncServerUrl: 'http://127.0.0.1:1', port: 0, staticDir, displayListen: null, nfc: new SimulatedNfcReader({ baseUrl: 'http://example.test' }), printer: new VirtualPrinter({}), log: () => undefined });
    try {
      assert.equal(local.displayUrl, null);
      const status = await send(`${local.url}/display-hub/pairing`, { headers: { origin: local.url } });
      assert.deepEqual(JSON.parse(status.body), { listening: false, paired: 0, following: 0, code: null, urls: [] });
    } finally {
      await local.close();
    }
  });
});
