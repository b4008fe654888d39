import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { SimulatedNfcReader } from '../nfc/simulated-reader.ts';
import { SAMPLE_MERCHANT, SAMPLE_RECEIPTS, sampleSettings } from '../printer/samples.ts';
import { VirtualPrinter } from '../printer/virtual-printer.ts';
import { ManualClock } from '../testing/manual-clock.ts';
import { BridgeClientError, HardwareBridgeClient } from './client.ts';
import type { WebSocketConstructor } from './client.ts';
import type { BridgeEvents } from './protocol.ts';
import { BridgeWebSocketServer, CLOSE_UNAUTHORIZED } from './ws-server.ts';

const NodeWebSocket = WebSocket as unknown as WebSocketConstructor;

/** Opens a raw socket and reports how the server ended it. */
function closeOf(url: string, firstMessage?: unknown): Promise<{ code: number; messages: string[] }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const messages: string[] = [];
    socket.on('open', () => {
      if (firstMessage !== undefined) socket.send(JSON.stringify(firstMessage));
    });
    socket.on('message', (data) => messages.push(data.toString()));
    socket.on('close', (code) => resolve({ code, messages }));
    socket.on('error', reject);
  });
}

describe('hardware bridge over a loopback WebSocket', () => {
  const clock = new ManualClock();
  const nfc = new SimulatedNfcReader({ baseUrl: 'https://pay.tapline.test', clock });
  const printer = new VirtualPrinter();
  let server: BridgeWebSocketServer;

  before(async () => {
    await nfc.start();
    server = await BridgeWebSocketServer.start({ nfc, printer, simulator: nfc, helloTimeoutMs: 2000 });
  });
  after(async () => {
    await server.close();
    await nfc.stop();
  });

  it('listens on 127.0.0.1 only, with a fresh 256-bit secret', () => {
    assert.match(server.url, /^ws:\/\/127\.0\.0\.1:\d+\/$/);
    assert.match(server.secret, /^[0-9a-f]{64}$/);
  });

  it('closes the connection on a wrong secret in the first message, before answering anything', async () => {
    const { code, messages } = await closeOf(server.url, { type: 'request', id: 1, method: 'hello', params: { secret: 'guess' } });
    assert.equal(code, CLOSE_UNAUTHORIZED);
    assert.deepEqual(messages, []);
  });

  it('closes the connection when the first message is anything but hello', async () => {
    const { code, messages } = await closeOf(server.url, { type: 'request', id: 1, method: 'hardware.status', params: {} });
    assert.equal(code, CLOSE_UNAUTHORIZED);
    assert.deepEqual(messages, []);
  });

  it('refuses a wrong secret in the query string', async () => {
    const { code } = await closeOf(`${server.url}?secret=${'0'.repeat(64)}`);
    assert.equal(code, CLOSE_UNAUTHORIZED);
  });

  it('rejects the client with a clear error when the secret is wrong', async () => {
    const client = new HardwareBridgeClient(server.url, 'wrong', { WebSocket: NodeWebSocket, requestTimeoutMs: 2000 });
    await assert.rejects(client.connect(), (error: unknown) => error instanceof BridgeClientError && error.code === 'unauthorized');
  });

  it('serves an authenticated client: status, NFC tap events and printing', async () => {
    const client = new HardwareBridgeClient(server.url, server.secret, { WebSocket: NodeWebSocket });
    await client.connect();
    try {
      const status = await client.hardwareStatus();
      assert.equal(status.nfc.driver, 'simulated');
      assert.equal(status.nfc.state, 'ready');
      assert.equal(status.printer.printer, 'virtual');

      const tapped = new Promise<BridgeEvents['nfc.tap']>((resolve) => client.on('nfc.tap', resolve));
      assert.deepEqual(await client.simulateTap('TG1A2B3C4D'), { accepted: true });
      const event = await tapped;
      assert.equal(event.tagId, 'TG1A2B3C4D');
      assert.equal(event.uri, 'https://pay.tapline.test/tap/TG1A2B3C4D');

      const printed = await client.printReceipt(SAMPLE_MERCHANT, sampleSettings(58), SAMPLE_RECEIPTS['pos-payment'], 'pos-3f2a9c1e');
      assert.deepEqual(printed, { jobId: 'pos-3f2a9c1e', state: 'printed' });
      assert.equal(printer.jobs.at(-1)?.jobId, 'pos-3f2a9c1e');
      assert.equal(printer.jobs.at(-1)?.document.paperWidth, 58);

      await assert.rejects(
        client.print({ paperWidth: 80, codepage: 'cp858', cut: 'full', blocks: [{ kind: 'text', text: 'x'.repeat(49) }] }),
        (error: unknown) => error instanceof BridgeClientError && error.code === 'bad_request',
      );
    } finally {
      client.close();
    }
  });

  it('opens the cash drawer for an authenticated client, once per job id, and reports the drawer as status', async () => {
    const client = new HardwareBridgeClient(server.url, server.secret, { WebSocket: NodeWebSocket });
    await client.connect();
    try {
      const statuses: BridgeEvents['printer.status'][] = [];
      client.on('printer.status', (status) => statuses.push(status));
      const pulses = printer.drawerPulses;
      assert.deepEqual(await client.openDrawer({ reason: 'cash_sale', jobId: 'sale-R-000123' }), { jobId: 'sale-R-000123', opened: true, drawer: 'open' });
      assert.deepEqual(await client.openDrawer({ reason: 'cash_sale', jobId: 'sale-R-000123' }), { jobId: 'sale-R-000123', opened: true, drawer: 'open' });
      assert.equal(printer.drawerPulses, pulses + 1, 'a repeated job id kicks once');
      assert.equal(printer.lastDrawerReason, 'cash_sale');
      assert.equal((await client.printerStatus()).drawer, 'open');

      // The cashier shuts it: the page hears so.
      const closed = new Promise<BridgeEvents['printer.status']>((resolve) => {
        client.on('printer.status', (status) => {
          if (status.drawer === 'closed') resolve(status);
        });
      });
      printer.closeDrawer();
      assert.equal((await closed).drawer, 'closed');
      assert.deepEqual(statuses.map((status) => status.drawer), ['open', 'closed']);

      await assert.rejects(
        client.openDrawer({ reason: 'lunch' as never, jobId: 'x-1' }),
        (error: unknown) => error instanceof BridgeClientError && error.code === 'bad_request' && /reason must be one of/.test(error.message),
      );
    } finally {
      client.close();
    }
  });

  it('accepts the secret as a query parameter', async () => {
    const client = new HardwareBridgeClient(`${server.url}?secret=${server.secret}`, server.secret, { WebSocket: NodeWebSocket });
    await client.connect();
    assert.equal((await client.printerStatus()).state, 'idle');
    client.close();
  });
});
