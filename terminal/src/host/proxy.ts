import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** Paths the renderer reaches on the sync server through this host, so the page stays same-origin (no CORS). */
export const PROXIED_PREFIXES = ['/api/', '/tap/', '/pay/'] as const;

export function isProxiedPath(pathname: string): boolean {
  return PROXIED_PREFIXES.some((prefix) => pathname.startsWith(prefix));
}

/** Headers that describe one connection, not the message (RFC 9110 7.6.1): never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-connection']);

function endToEndHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

/**
 * Forwards a request to the sync server as is (method, path, headers, body streamed) and its
 * answer back as is (status, headers, body streamed). The Host header names the upstream,
 * since the server may route or build URLs by it.
 */
export function proxyHandler(upstreamUrl: string, options: { timeoutMs?: number } = {}): (request: IncomingMessage, response: ServerResponse) => void {
  const upstream = new URL(upstreamUrl);
  const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  const timeoutMs = options.timeoutMs ?? 30_000;
  return (request, response) => {
    const headers = endToEndHeaders(request.headers);
    headers.host = upstream.host;
    const forwardedFor = request.headers['x-forwarded-for'];
    headers['x-forwarded-for'] = [forwardedFor, request.socket.remoteAddress].filter(Boolean).join(', ');
    const outgoing = send(
      {
        protocol: upstream.protocol,
        hostname: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path: request.url,
        headers,
        timeout: timeoutMs,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, endToEndHeaders(answer.headers));
        answer.pipe(response);
        answer.on('error', () => response.destroy());
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`the sync server did not answer within ${timeoutMs} ms`)));
    outgoing.on('error', (error) => {
      // The renderer shows `error` of an API error body, so an unreachable server reads like one.
      if (response.headersSent) {
        response.destroy();
        return;
      }
      response.writeHead(502, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ error: `The sync server at ${upstream.origin} cannot be reached (${error.message})`, code: 'sync_server_unreachable' }));
    });
    request.pipe(outgoing);
  };
}
