// A server that is shutting down drops its kiosks and takes no new connection, so its close is not
// kept waiting by a kiosk that reconnects at once (socket.io-client does not reconnect by itself
// after the server disconnects it; the kiosk calls connect() straight away, as here). Through a
// proxy that has not yet seen the instance go unready, that reconnection can come back to the
// instance that is closing: a rolling restart once ran into the 10 s forced exit that way.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { io } from 'socket.io-client';
import { SYNC_EVENTS, SYNC_NAMESPACE } from '@tapline/shared/sync-protocol';
import { databaseTargets } from '../testing/databases.ts';
import { useTestServer } from '../testing/server.ts';

for (const target of await databaseTargets()) {
  describe(`a closing server and a handshake already on its way, on ${target.name}`, () => {
    const server = useTestServer(target);

    it('a socket.io handshake that arrives on an open connection while the server closes is refused, so the close is not held open by it', { timeout: 60_000 }, async () => {
      const s = server();
      const { port } = new URL(s.baseUrl);
      // A connection already open (a proxy's kept-alive one) with a handshake half sent: the rest
      // arrives once the close has begun.
      const raw = connect(Number(port), '127.0.0.1');
      await new Promise<void>((resolve, reject) => raw.once('connect', resolve).once('error', reject));
      const answer = new Promise<string>((resolve) => {
        let text = '';
        raw.on('data', (chunk) => {
          text += chunk.toString('latin1');
          if (text.includes('\r\n')) resolve(text.split('\r\n')[0]!);
        });
        raw.on('close', () => resolve(text.split('\r\n')[0] ?? ''));
      });
      // The kiosk's client starts with HTTP long polling before it upgrades to a WebSocket.
      raw.write('GET /socket.io/?EIO=4&transport=polling HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const closing = s.app.close();
      await new Promise((resolve) => setImmediate(resolve));
      raw.write('Accept: */*\r\n\r\n');
      const statusLine = await answer;
      // Without the refusal engine.io answered 200 and opened a session whose long poll kept the
      // HTTP server's close waiting.
      assert.equal(statusLine, 'HTTP/1.1 403 Forbidden', 'no socket.io session is opened on a closing server');
      raw.destroy();
      await closing;
      assert.equal(s.app.server.listening, false);
    });

  });

  describe(`a closing server and a request in flight, on ${target.name}`, () => {
    const server = useTestServer(target);

    it('a request in flight when the close begins is answered with Connection: close, and its connection is closed by the server, so the close does not wait out the keep-alive', { timeout: 60_000 }, async () => {
      const s = server();
      const { port } = new URL(s.baseUrl);
      const raw = connect(Number(port), '127.0.0.1');
      await new Promise<void>((resolve, reject) => raw.once('connect', resolve).once('error', reject));
      let text = '';
      raw.on('data', (chunk) => (text += chunk.toString('latin1')));
      const endedByServer = new Promise<boolean>((resolve) => {
        raw.once('end', () => resolve(true));
        raw.once('close', () => resolve(false));
      });
      // A keep-alive request whose body is still on its way: Fastify has routed it before the close.
      raw.write('POST /api/pay HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const closing = s.app.close();
      await new Promise((resolve) => setImmediate(resolve));
      raw.write('{}');
      // The server ends the connection after its answer (before the fix it stayed open for Fastify's
      // 72 s keepAliveTimeout, and the close with it).
      assert.equal(await endedByServer, true, 'the server ended the connection');
      const [head] = text.split('\r\n\r\n');
      assert.match(head!, /^HTTP\/1\.1 401 /, 'the request in flight got its own answer (no credential: 401), not a 503');
      assert.match(head!, /\r\nconnection: close\r\n/i);
      raw.destroy();
      await closing;
      assert.equal(s.app.server.listening, false);
    });
  });

  describe(`a closing server and a kiosk that reconnects at once, on ${target.name}`, () => {
    const server = useTestServer(target);

    it('the kiosk is dropped, its reconnections are refused, and the close finishes', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: { authorization: `Bearer ${merchant.testKey}` }, body: { name: 'Front counter' } });
      assert.equal(terminal.status, 201, JSON.stringify(terminal.body));
      const socket = io(`${s.baseUrl}${SYNC_NAMESPACE}`, { auth: { token: `term.${terminal.body.token}` }, transports: ['websocket'], reconnectionDelay: 20, reconnectionDelayMax: 50, forceNew: true });
      const seen: string[] = [];
      let closeStarted = false;
      let connectsAfterClose = 0;
      socket.on('connect', () => {
        if (closeStarted) connectsAfterClose += 1;
      });
      socket.on('disconnect', (reason) => {
        seen.push(`disconnect: ${reason}`);
        // What the kiosk does: the client does not come back by itself after a server disconnect.
        if (reason === 'io server disconnect') socket.connect();
      });
      const refused = new Promise<void>((resolve) => socket.once('connect_error', () => resolve()));
      await new Promise((resolve, reject) => {
        socket.once(SYNC_EVENTS.hello, resolve);
        socket.once('connect_error', reject);
      });
      try {
        closeStarted = true;
        await s.app.close();
        // The reconnection the kiosk made at once was refused (or found nothing listening).
        await refused;
        assert.equal(seen[0], 'disconnect: io server disconnect');
        assert.equal(connectsAfterClose, 0, 'no connection was accepted once the close had begun');
        assert.equal(s.app.server.listening, false);
      } finally {
        socket.disconnect();
      }
    });
  });
}
