import type { IncomingMessage, ServerResponse } from 'node:http';
import { networkInterfaces } from 'node:os';
import { isLoopbackAddress } from '@tapline/hardware';
import { DisplayPairing, type DisplayPairingOptions } from './display-pairing.ts';

/**
 * The customer display's hub in the kiosk host, for a tablet on the shop's LAN (a second window
 * on the till's machine follows over a BroadcastChannel and needs none of this). The till's page
 * publishes each display state here; paired tablets follow them as Server-Sent Events, starting
 * with the current one. It lives in the host because the host runs in the shop: it works with the
 * internet down.
 *
 * Endpoints (JSON errors `{error, code}`, like the rest of the host):
 * - till only (loopback, our own Host and Origin): POST /display-hub/state (the state),
 *   GET /display-hub/pairing (status), POST /display-hub/pairing (a new code),
 *   DELETE /display-hub/pairing (unpair every tablet);
 * - the tablet: POST /display-hub/pair {code} -> {token}; GET /display-hub/events with
 *   `Authorization: Bearer <token>` -> text/event-stream.
 * The LAN listener (KIOSK_DISPLAY_LISTEN) serves only the tablet's endpoints and its page.
 */
export const DISPLAY_HUB_PREFIX = '/display-hub/';
/** A state is a cart on screen: far below this. */
const MAX_STATE_BYTES = 64 * 1024;
const MAX_PAIR_BYTES = 1024;
/** A comment line this often keeps proxies and the tablet's watchdog from taking a quiet stream for a dead one. */
export const HEARTBEAT_MS = 15_000;

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

function answer(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
}

function refuse(response: ServerResponse, status: number, code: string, error: string, headers: Record<string, string> = {}): void {
  answer(response, status, { error, code }, headers);
}

/** The body as JSON, or a refusal already answered (null). */
async function readJson(request: IncomingMessage, response: ServerResponse, limit: number): Promise<{ value: unknown; text: string } | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      refuse(response, 413, 'payload_too_large', `The body is larger than ${limit} bytes`);
      request.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return { value: JSON.parse(text) as unknown, text };
  } catch {
    refuse(response, 400, 'invalid_json', 'The body is not JSON');
    return null;
  }
}

/**
 * What the host relays, checked only as far as a relay needs (the display page parses it in
 * full, parseDisplayState): a versioned object. The host does not import the renderer's modules.
 */
function isDisplayStateLike(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { version?: unknown }).version === 1;
}

/** The addresses a tablet can open for a listener bound to `host`: its LAN IPv4 addresses for a wildcard. */
export function tabletUrls(host: string, port: number): string[] {
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  const addresses = wildcard
    ? Object.values(networkInterfaces())
        .flat()
        .filter((info) => info !== undefined && info.family === 'IPv4' && !info.internal)
        .map((info) => info!.address)
    : [host];
  return addresses.map((address) => `http://${address.includes(':') ? `[${address}]` : address}:${port}/tablet`);
}

export interface DisplayHubOptions extends DisplayPairingOptions {
  heartbeatMs?: number;
}

export class DisplayHub {
  readonly pairing: DisplayPairing;
  private state: string | null = null;
  private readonly streams = new Set<ServerResponse>();
  private readonly heartbeat: NodeJS.Timeout;
  /** Where tablets open the page; set by the host once the LAN listener listens ([] without one). */
  urls: string[] = [];
  /** Whether a LAN listener runs (its addresses may still be none: a till off the network). */
  listening = false;

  constructor(options: DisplayHubOptions = {}) {
    this.pairing = new DisplayPairing(options);
    this.heartbeat = setInterval(() => {
      for (const stream of this.streams) stream.write(': keep-alive\n\n');
    }, options.heartbeatMs ?? HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** How many tablets follow right now. */
  get following(): number {
    return this.streams.size;
  }

  /**
   * The till's endpoints and the tablet's, on the host's loopback server. `isOwnPage`: the
   * request comes from this machine under our own host name and origin (so neither another
   * page in the browser nor a site rebinding its DNS name to 127.0.0.1 can publish or pair).
   */
  handleLocal(isOwnPage: (request: IncomingMessage) => boolean): Handler {
    const tablet = this.handleTablet();
    return (request, response) => {
      const route = `${request.method ?? 'GET'} ${new URL(request.url ?? '/', 'http://localhost').pathname}`;
      if (route === 'POST /display-hub/pair' || route === 'GET /display-hub/events') return tablet(request, response);
      const known = ['POST /display-hub/state', 'GET /display-hub/pairing', 'POST /display-hub/pairing', 'DELETE /display-hub/pairing'];
      if (!known.includes(route)) return refuse(response, 404, 'not_found', `No ${route} on the display hub`);
      if (!isOwnPage(request)) return refuse(response, 403, 'forbidden', 'Only the till on this machine may do this');
      if (route === 'POST /display-hub/state') return void this.publish(request, response);
      if (route === 'POST /display-hub/pairing') this.pairing.createCode();
      if (route === 'DELETE /display-hub/pairing') {
        const revoked = this.pairing.revokeAll();
        // The streams of revoked tablets end now: their reconnect is refused and they ask for a code.
        for (const stream of this.streams) stream.end();
        this.streams.clear();
        return answer(response, 200, { revoked });
      }
      answer(response, route === 'POST /display-hub/pairing' ? 201 : 200, this.status());
    };
  }

  /** Only what a tablet needs: pairing and the event stream (the LAN listener's routes). */
  handleTablet(): Handler {
    return (request, response) => {
      const route = `${request.method ?? 'GET'} ${new URL(request.url ?? '/', 'http://localhost').pathname}`;
      if (route === 'POST /display-hub/pair') return void this.pair(request, response);
      if (route === 'GET /display-hub/events') return this.follow(request, response);
      refuse(response, 404, 'not_found', `No ${route} for a tablet`);
    };
  }

  status(): { listening: boolean; paired: number; following: number; code: { code: string; expiresAt: string } | null; urls: string[] } {
    const code = this.pairing.pendingCode();
    return {
      listening: this.listening,
      paired: this.pairing.pairedCount,
      following: this.streams.size,
      code: code === null ? null : { code: code.code, expiresAt: new Date(code.expiresAt).toISOString() },
      urls: this.urls,
    };
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const stream of this.streams) stream.end();
    this.streams.clear();
  }

  private async publish(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readJson(request, response, MAX_STATE_BYTES);
    if (body === null) return;
    if (!isDisplayStateLike(body.value)) return refuse(response, 400, 'display_state_invalid', 'A display state is an object of version 1');
    const text = JSON.stringify(body.value);
    if (text !== this.state) {
      this.state = text;
      for (const stream of this.streams) stream.write(`data: ${text}\n\n`);
    }
    response.writeHead(204).end();
  }

  private async pair(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readJson(request, response, MAX_PAIR_BYTES);
    if (body === null) return;
    const code = typeof body.value === 'object' && body.value !== null ? (body.value as { code?: unknown }).code : undefined;
    const result = this.pairing.pair(code, request.socket.remoteAddress ?? 'unknown');
    if (result.ok) return answer(response, 201, { token: result.token });
    const headers: Record<string, string> = result.status === 429 ? { 'retry-after': String(result.retryAfterSeconds) } : {};
    refuse(response, result.status, result.code, result.error, headers);
  }

  private follow(request: IncomingMessage, response: ServerResponse): void {
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : '';
    if (!this.pairing.verify(token)) {
      return refuse(response, 401, 'display_token_unknown', 'This display is not paired (or was unpaired): pair it with a code from the till', { 'www-authenticate': 'Bearer' });
    }
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no', connection: 'keep-alive' });
    // An opening comment gets the headers and first bytes through at once: the tablet knows it is connected.
    response.write(': connected\n\n');
    if (this.state !== null) response.write(`data: ${this.state}\n\n`);
    this.streams.add(response);
    const forget = () => this.streams.delete(response);
    request.socket.setKeepAlive(true);
    response.on('close', forget);
    response.on('error', forget);
  }
}

/** Requests from the till's own page: this machine, our Host, and our origin when the browser names one. */
export function ownPageCheck(allowedHosts: () => ReadonlySet<string>): (request: IncomingMessage) => boolean {
  return (request) => {
    if (!isLoopbackAddress(request.socket.remoteAddress)) return false;
    const host = request.headers.host ?? '';
    if (!allowedHosts().has(host)) return false;
    const origin = request.headers.origin;
    return origin === undefined || allowedHosts().has(origin.replace(/^http:\/\//, ''));
  };
}

/** Whether a path belongs to the hub. */
export function isDisplayHubPath(pathname: string): boolean {
  return pathname.startsWith(DISPLAY_HUB_PREFIX);
}
