// The host forwards socket.io to the sync server: long-polling as plain requests and the
// WebSocket as an HTTP upgrade. A real socket.io server stands in for the sync server.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server as HttpServer, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Server } from 'socket.io';
import { type Socket, io } from 'socket.io-client';
import { SimulatedNfcReader, VirtualPrinter } from '@tapline/hardware';
import { type TerminalHost, startTerminalHost } from './index.ts';

function listen(server: HttpServer): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** Connects through the host with one transport only, so each path is tested on its own. */
function connect(url: string, transport: 'polling' | 'websocket'): Promise<Socket> {
  const socket = io(`${url}/echo`, { transports: [transport], reconnection: false, auth: { token: 'term.test' } });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
  });
}

describe('terminal host: socket.io proxy', () => {
  const staticDir = mkdtempSync(join(tmpdir(), 'tapline-proxy-test-'));
  const upstream = createServer();
  const sockets = new Server(upstream, { serveClient: false });
  let host: TerminalHost;
  let upstreamPort: number;

  before(async () => {
    sockets.of('/echo').on('connection', (socket) => {
      socket.on('echo', (message: unknown, ack: (answer: unknown) => void) => ack({ message, token: (socket.handshake.auth as { token?: string }).token, transport: socket.conn.transport.name }));
    });
    upstreamPort = await listen(upstream);
    host = await startTerminalHost({ syncServerUrl: `http://127.0.0.1:${upstreamPort}`, port: 0, staticDir, nfc: new SimulatedNfcReader({ baseUrl: 'http://example.test' }), printer: new VirtualPrinter({}), log: () => undefined });
  });
  after(async () => {
    await host.close();
    await sockets.close();
    rmSync(staticDir, { recursive: true, force: true });
  });

  for (const transport of ['polling', 'websocket'] as const) {
    it(`carries socket.io over ${transport}, with the handshake's auth, to the sync server`, async () => {
      const socket = await connect(host.url, transport);
      try {
        const answer = await socket.timeout(60_000).emitWithAck('echo', { amountMinor: 1250 });
        assert.deepEqual(answer, { message: { amountMinor: 1250 }, token: 'term.test', transport });
      } finally {
        socket.close();
      }
    });
  }

  it('answers 502 when the sync server cannot be reached, for polling and for the upgrade', async () => {
    const down = await startTerminalHost({ syncServerUrl: 'http://127.0.0.1:1', port: 0, staticDir, nfc: new SimulatedNfcReader({ baseUrl: 'http://example.test' }), printer: new VirtualPrinter({}), log: () => undefined });
    try {
      const polling = await fetch(`${down.url}/socket.io/?EIO=4&transport=polling`);
      assert.equal(polling.status, 502);
      assert.equal(((await polling.json()) as { code: string }).code, 'sync_server_unreachable');
      await assert.rejects(connect(down.url, 'websocket'), /websocket error/);
    } finally {
      await down.close();
    }
  });

  it('refuses upgrades outside the proxied paths', async () => {
    const outcome = await new Promise<string>((resolve) => {
      const request = httpRequest(`${host.url}/elsewhere`, { headers: { connection: 'Upgrade', upgrade: 'websocket' } });
      request.on('upgrade', (_answer, socket) => {
        socket.destroy();
        resolve('upgraded');
      });
      request.on('response', (answer) => resolve(`HTTP ${answer.statusCode}`));
      request.on('error', () => resolve('refused'));
      request.end();
    });
    assert.equal(outcome, 'refused');
  });
});
