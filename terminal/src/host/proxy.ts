import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';

/**
 * Paths the renderer reaches on the sync server through this host, so the page stays same-origin
 * (no CORS). /socket.io/ carries the replica's replication: long-polling requests and the
 * WebSocket upgrade (upgradeHandler) both go through.
 */
export const PROXIED_PREFIXES = ['/api/', '/tap/', '/pay/', '/socket.io/'] as const;

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

/** The request's end-to-end headers for the upstream: its Host, and who asked. */
function upstreamHeaders(request: IncomingMessage, upstream: URL): OutgoingHttpHeaders {
  const headers = endToEndHeaders(request.headers);
  headers.host = upstream.host;
  const forwardedFor = request.headers['x-forwarded-for'];
  headers['x-forwarded-for'] = [forwardedFor, request.socket.remoteAddress].filter(Boolean).join(', ');
  return headers;
}

function upstreamRequest(upstream: URL, request: IncomingMessage, headers: OutgoingHttpHeaders, timeoutMs?: number) {
  const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  return send({
    protocol: upstream.protocol,
    hostname: upstream.hostname,
    port: upstream.port,
    method: request.method,
    path: request.url,
    headers,
    ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
  });
}

/**
 * Forwards a request to the sync server as is (method, path, headers, body streamed) and its
 * answer back as is (status, headers, body streamed). The Host header names the upstream,
 * since the server may route or build URLs by it.
 */
export function proxyHandler(upstreamUrl: string, options: { timeoutMs?: number } = {}): (request: IncomingMessage, response: ServerResponse) => void {
  const upstream = new URL(upstreamUrl);
  const timeoutMs = options.timeoutMs ?? 30_000;
  return (request, response) => {
    const outgoing = upstreamRequest(upstream, request, upstreamHeaders(request, upstream), timeoutMs);
    outgoing.on('response', (answer) => {
      response.writeHead(answer.statusCode ?? 502, endToEndHeaders(answer.headers));
      answer.pipe(response);
      answer.on('error', () => response.destroy());
    });
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

/** An HTTP/1.1 head as bytes on a raw socket (the upgrade path has no ServerResponse). */
function rawHead(statusCode: number, statusMessage: string, rawHeaders: string[]): string {
  let head = `HTTP/1.1 ${statusCode} ${statusMessage}\r\n`;
  for (let index = 0; index < rawHeaders.length; index += 2) head += `${rawHeaders[index]}: ${rawHeaders[index + 1]}\r\n`;
  return `${head}\r\n`;
}

/**
 * Forwards an HTTP upgrade (socket.io's WebSocket) to the sync server and, once it switches
 * protocols, splices the two sockets together. Connection and Upgrade are hop-by-hop, but here
 * they are the request itself, so they are forwarded. An upstream that refuses the upgrade has
 * its answer relayed; one that cannot be reached gets a 502, and the client falls back to
 * long-polling or retries.
 */
export function upgradeHandler(upstreamUrl: string): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const upstream = new URL(upstreamUrl);
  return (request, socket, head) => {
    const headers = upstreamHeaders(request, upstream);
    headers.connection = 'Upgrade';
    headers.upgrade = request.headers.upgrade ?? 'websocket';
    const outgoing = upstreamRequest(upstream, request, headers);
    socket.on('error', () => outgoing.destroy());
    outgoing.on('upgrade', (answer, upstreamSocket, upstreamHead) => {
      socket.write(rawHead(101, answer.statusMessage ?? 'Switching Protocols', answer.rawHeaders));
      if (upstreamHead.length > 0) socket.write(upstreamHead);
      if (head.length > 0) upstreamSocket.write(head);
      upstreamSocket.on('error', () => socket.destroy());
      socket.on('close', () => upstreamSocket.destroy());
      upstreamSocket.on('close', () => socket.destroy());
      upstreamSocket.pipe(socket).pipe(upstreamSocket);
    });
    outgoing.on('response', (answer) => {
      // Refused (a wrong path, a handshake error): its status is what the client needs.
      answer.resume();
      socket.end(`HTTP/1.1 ${answer.statusCode ?? 502} ${answer.statusMessage ?? ''}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    });
    outgoing.on('error', () => {
      if (socket.writable) socket.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    });
    outgoing.end();
  };
}
