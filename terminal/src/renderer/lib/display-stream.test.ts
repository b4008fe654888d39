// The tablet's side: the event-stream parser, pairing answers, and following a host that drops
// and comes back (a fetch the test plays, with real ReadableStreams).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DisplayState } from './customer-display.ts';
import { EventStreamParser, type StreamStatus, followHost, pairWithCode } from './display-stream.ts';

const STATE: DisplayState = {
  version: 1,
  merchantName: 'Mama Put Kitchen',
  language: 'fr',
  currency: 'NGN',
  lines: [],
  totals: null,
  amountDueMinor: null,
  paidTenders: [],
  remainingMinor: null,
  phase: { kind: 'idle' },
};

describe('display stream (tablet)', () => {
  it('splits an event stream into the data of its events, across chunks, skipping comments', () => {
    const parser = new EventStreamParser();
    assert.deepEqual(parser.push(': connected\n\ndata: {"a"'), []);
    assert.deepEqual(parser.push(':1}\n\n: keep-alive\n\ndata: x\r\ndata: y\r\n\r\n'), ['{"a":1}', 'x\ny']);
    assert.deepEqual(parser.push('data: last'), []);
    assert.deepEqual(parser.push('\n\n'), ['last']);
  });

  it('pairs: the token, or the host\'s code and the seconds to wait', async () => {
    const answers = [
      new Response(JSON.stringify({ token: 't0k' }), { status: 201 }),
      new Response(JSON.stringify({ error: 'wrong', code: 'display_code_wrong' }), { status: 403 }),
      new Response(JSON.stringify({ error: 'slow down', code: 'display_pairing_rate_limited' }), { status: 429, headers: { 'retry-after': '42' } }),
    ];
    const bodies: string[] = [];
    const fetchFn = (async (_path: string, init: RequestInit) => {
      bodies.push(String(init.body));
      return answers.shift()!;
    }) as unknown as typeof fetch;
    assert.deepEqual(await pairWithCode('123 456', fetchFn), { ok: true, token: 't0k' });
    assert.deepEqual(await pairWithCode('000000', fetchFn), { ok: false, code: 'display_code_wrong' });
    assert.deepEqual(await pairWithCode('000000', fetchFn), { ok: false, code: 'display_pairing_rate_limited', retryAfterSeconds: 42 });
    assert.deepEqual(bodies[0], JSON.stringify({ code: '123456' }), 'spaces taken out');
    const down = (async () => {
      throw new TypeError('fetch failed');
    }) as unknown as typeof fetch;
    assert.deepEqual(await pairWithCode('123456', down), { ok: false, code: 'network_error' });
  });

  it('follows, says when the stream is lost, reconnects by itself, and stops asking once unpaired', async () => {
    // 1: a stream with a state that then ends (the host restarting); 2: the network down; 3: a stream again; 4: 401.
    const encoder = new TextEncoder();
    const streamOf = (text: string) => new ReadableStream<Uint8Array>({ start: (controller) => (controller.enqueue(encoder.encode(text)), controller.close()) });
    const plays: (() => Response)[] = [
      () => new Response(streamOf(`: connected\n\ndata: ${JSON.stringify(STATE)}\n\ndata: {"version":9}\n\n`), { status: 200 }),
      () => {
        throw new TypeError('network down');
      },
      () => new Response(streamOf(`data: ${JSON.stringify({ ...STATE, merchantName: 'Again' })}\n\n`), { status: 200 }),
      () => new Response(JSON.stringify({ code: 'display_token_unknown' }), { status: 401 }),
    ];
    const seen: string[] = [];
    const statuses: StreamStatus[] = [];
    const headers: string[] = [];
    const done = new Promise<void>((resolve) => {
      const fetchFn = (async (_path: string, init: RequestInit) => {
        headers.push(new Headers(init.headers).get('authorization') ?? '');
        return plays.shift()!();
      }) as unknown as typeof fetch;
      followHost('tok', { onState: (state) => seen.push(state.merchantName), onStatus: (status) => statuses.push(status), onUnpaired: resolve }, { fetchFn, backoffMs: () => 0 });
    });
    await done;
    assert.deepEqual(seen, ['Mama Put Kitchen', 'Again'], 'a state of another version is skipped');
    assert.deepEqual(statuses, ['connecting', 'live', 'lost', 'lost', 'live', 'lost']);
    assert.deepEqual(headers, ['Bearer tok', 'Bearer tok', 'Bearer tok', 'Bearer tok']);
    assert.equal(plays.length, 0);
  });
});
