import { lookup as dnsLookup } from 'node:dns';
import { promises as dns } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress } from '../http/webhook-url.ts';

/** What one POST of an event achieved. `status` is absent when no HTTP answer came back. */
export interface PostOutcome {
  status?: number;
  error?: string;
}

export class AddressNotAllowedError extends Error {
  constructor(host: string, address: string) {
    super(`address_not_allowed: ${host} resolves to ${address}, a private, loopback or link-local address (refused in live mode)`);
    this.name = 'AddressNotAllowedError';
  }
}

/**
 * Live mode refuses private, loopback and link-local targets. Checked before any connection by
 * resolving the host here, and again when the socket connects (guardedLookup) so a DNS answer
 * that changes in between (rebinding) cannot slip through.
 */
export async function assertPublicHost(hostname: string): Promise<void> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (isIP(bare)) {
    if (isPrivateAddress(bare)) throw new AddressNotAllowedError(hostname, bare);
    return;
  }
  if (isPrivateAddress(bare)) throw new AddressNotAllowedError(hostname, bare);
  const addresses = await dns.lookup(bare, { all: true, verbatim: true });
  const bad = addresses.find((entry) => isPrivateAddress(entry.address));
  if (bad) throw new AddressNotAllowedError(hostname, bad.address);
}

const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 4);
    const list = addresses as unknown as { address: string; family: number }[];
    const bad = list.find((entry) => isPrivateAddress(entry.address));
    if (bad) return callback(new AddressNotAllowedError(hostname, bad.address), '', 4);
    if (options.all) return (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, list);
    const first = list[0];
    if (!first) return callback(new Error(`no address for ${hostname}`), '', 4);
    return callback(null, first.address, first.family);
  });
};

/** Largest response body read from a receiver (the rest is discarded). */
const RESPONSE_BYTES_MAX = 64 * 1024;

/**
 * POSTs a JSON body with node:http(s). The receiver must answer (status line and headers) within
 * `timeoutMs`; its body is drained and ignored. `publicOnly` refuses private addresses at connect.
 */
export function postWithHttp(url: string, body: string, headers: Record<string, string>, timeoutMs: number, publicOnly: boolean): Promise<PostOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const target = new URL(url);
    const client = target.protocol === 'https:' ? https : http;
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        ...(publicOnly ? { lookup: guardedLookup } : {}),
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > RESPONSE_BYTES_MAX) response.destroy();
        });
        response.on('error', () => undefined);
        response.resume();
        finish({ status: response.statusCode ?? 0 });
      },
    );
    const timer = setTimeout(() => {
      request.destroy(new Error('timeout'));
      finish({ error: `timeout: no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof AddressNotAllowedError) return finish({ error: error.message });
      finish({ error: `connection_error: ${error.code ?? error.message}` });
    });
    request.end(body);
  });
}

/** The same POST through a fetch implementation (tests inject one). */
export async function postWithFetch(fetchImpl: typeof fetch, url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<PostOutcome> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // The deadline holds even for a fetch that ignores its abort signal.
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error('timeout'));
    }, timeoutMs);
    // A request in flight keeps the process alive by itself; the deadline alone must not.
    timer.unref();
  });
  try {
    const response = await Promise.race([fetchImpl(url, { method: 'POST', headers, body, signal: controller.signal, redirect: 'manual' }), deadline]);
    response.body?.cancel().catch(() => undefined);
    return { status: response.status };
  } catch (error) {
    if (controller.signal.aborted) return { error: `timeout: no answer within ${timeoutMs} ms` };
    const cause = (error as { cause?: { code?: string } }).cause;
    return { error: `connection_error: ${cause?.code ?? (error as Error).message}` };
  } finally {
    clearTimeout(timer);
  }
}
