/**
 * A tablet's side of the customer display (the page at /tablet, served by the kiosk host's LAN
 * listener): pairing with the code the till shows, then following the till's display states as
 * Server-Sent Events from the host (terminal/src/host/display-hub.ts), reconnecting by itself.
 * The stream is read with fetch rather than EventSource: it carries the token in a header (not in
 * a URL a log might keep) and tells a revoked token (401: pair again) from a dropped network.
 */
import { type DisplayState, parseDisplayState } from './customer-display.ts';

export const DISPLAY_TOKEN_KEY = 'tapline.displayToken';
export const PAIR_PATH = '/display-hub/pair';
export const EVENTS_PATH = '/display-hub/events';
/** The host writes a keep-alive every 15 s: this long without a byte, the stream is taken for dead. */
export const STREAM_SILENCE_MS = 40_000;

export type PairOutcome = { ok: true; token: string } | { ok: false; code: string; retryAfterSeconds?: number };

/** Sends the code; the token on success, else the host's code (`display_code_wrong`, ...) or `network_error`. */
export async function pairWithCode(code: string, fetchFn: typeof fetch = fetch): Promise<PairOutcome> {
  try {
    const answer = await fetchFn(PAIR_PATH, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: code.replace(/\s+/g, '') }) });
    const body = (await answer.json().catch(() => ({}))) as { token?: unknown; code?: unknown };
    if (answer.ok && typeof body.token === 'string') return { ok: true, token: body.token };
    const retryAfter = Number(answer.headers.get('retry-after'));
    return { ok: false, code: typeof body.code === 'string' ? body.code : 'http_error', ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}) };
  } catch {
    return { ok: false, code: 'network_error' };
  }
}

/**
 * Splits a text/event-stream into the `data` of its events. Feed it chunks as they come; it
 * answers the complete events' data so far and keeps the rest. Comments (keep-alives) are skipped.
 */
export class EventStreamParser {
  private buffer = '';

  push(chunk: string): string[] {
    this.buffer += chunk.replace(/\r\n?/g, '\n');
    const events: string[] = [];
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) !== -1) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''));
      if (data.length > 0) events.push(data.join('\n'));
    }
    return events;
  }
}

export type StreamStatus = 'connecting' | 'live' | 'lost';

export interface FollowHandlers {
  onState: (state: DisplayState) => void;
  onStatus: (status: StreamStatus) => void;
  /** The host does not know the token (never paired, or unpaired): the page asks for a code. */
  onUnpaired: () => void;
}

export interface FollowOptions {
  fetchFn?: typeof fetch;
  /** Waits before each reconnection: 1 s, then longer, at most 10 s. */
  backoffMs?: (attempt: number) => number;
  silenceMs?: number;
}

/** Follows the host's stream until stopped or unpaired. Answers the stop. */
export function followHost(token: string, handlers: FollowHandlers, options: FollowOptions = {}): () => void {
  const fetchFn = options.fetchFn ?? fetch;
  const backoff = options.backoffMs ?? ((attempt: number) => Math.min(10_000, 1_000 * 2 ** Math.min(attempt, 4)));
  const silenceMs = options.silenceMs ?? STREAM_SILENCE_MS;
  let stopped = false;
  let controller: AbortController | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;

  let wake: (() => void) | null = null;
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = () => {
        if (timer !== null) clearTimeout(timer);
        timer = null;
        wake = null;
        resolve();
      };
      timer = setTimeout(wake, ms);
    });
  // The browser knows first when its network goes (Wi-Fi lost): the stream is taken for lost at
  // once rather than after the silence; back online, it reconnects without waiting out the backoff.
  const onOffline = () => controller?.abort();
  const onOnline = () => wake?.();
  globalThis.addEventListener?.('offline', onOffline);
  globalThis.addEventListener?.('online', onOnline);

  /** One connection: 'unpaired' on 401, else 'dropped' when it ends or fails. */
  const connectOnce = async (onLive: () => void): Promise<'unpaired' | 'dropped'> => {
    controller = new AbortController();
    const current = controller;
    let silence: ReturnType<typeof setTimeout> | null = null;
    const watch = () => {
      if (silence !== null) clearTimeout(silence);
      silence = setTimeout(() => current.abort(), silenceMs);
    };
    try {
      watch();
      const answer = await fetchFn(EVENTS_PATH, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, cache: 'no-store', signal: current.signal });
      if (answer.status === 401) return 'unpaired';
      if (!answer.ok || answer.body === null) return 'dropped';
      onLive();
      handlers.onStatus('live');
      const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
      const parser = new EventStreamParser();
      for (;;) {
        watch();
        const { value, done } = await reader.read();
        if (done) return 'dropped';
        for (const data of parser.push(value)) {
          const state = parseDisplayState(data);
          if (state !== null) handlers.onState(state);
        }
      }
    } catch {
      return 'dropped';
    } finally {
      if (silence !== null) clearTimeout(silence);
    }
  };

  void (async () => {
    handlers.onStatus('connecting');
    let attempt = 0;
    while (!stopped) {
      let live = false;
      const outcome = await connectOnce(() => (live = true));
      if (stopped) return;
      if (outcome === 'unpaired') {
        handlers.onUnpaired();
        return;
      }
      handlers.onStatus('lost');
      // A stream that was live starts the waits over: a short network blip reconnects at once.
      if (live) attempt = 0;
      await wait(backoff(attempt));
      attempt += 1;
    }
  })();

  return () => {
    stopped = true;
    controller?.abort();
    if (timer !== null) clearTimeout(timer);
    globalThis.removeEventListener?.('offline', onOffline);
    globalThis.removeEventListener?.('online', onOnline);
  };
}

/** The token kept on this tablet, or null. */
export function loadDisplayToken(storage: Pick<Storage, 'getItem'> | null = safeStorage()): string | null {
  try {
    return storage?.getItem(DISPLAY_TOKEN_KEY) ?? null;
  } catch {
    return null;
  }
}

export function saveDisplayToken(token: string, storage: Pick<Storage, 'setItem'> | null = safeStorage()): void {
  storage?.setItem(DISPLAY_TOKEN_KEY, token);
}

export function forgetDisplayToken(storage: Pick<Storage, 'removeItem'> | null = safeStorage()): void {
  try {
    storage?.removeItem(DISPLAY_TOKEN_KEY);
  } catch {
    // Nothing kept.
  }
}

function safeStorage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}
