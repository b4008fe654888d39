import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SimulatedNfcReader } from '../nfc/simulated-reader.ts';
import { VirtualPrinter } from '../printer/virtual-printer.ts';
import { ManualClock } from '../testing/manual-clock.ts';
import { BridgeHost } from './host.ts';
import type { HostMessage } from './protocol.ts';

async function setup(withSimulator = true) {
  const nfc = new SimulatedNfcReader({ baseUrl: 'https://pay.tapline.test', clock: new ManualClock() });
  await nfc.start();
  const printer = new VirtualPrinter();
  const sent: HostMessage[] = [];
  const host = new BridgeHost({ nfc, printer, send: (message) => sent.push(message), ...(withSimulator ? { simulator: nfc } : {}) });
  return { nfc, printer, sent, host };
}

describe('BridgeHost (transport-agnostic, as used over Electron IPC)', () => {
  it('answers requests by id and forwards reader events', async () => {
    const { nfc, sent, host } = await setup();
    await host.handle({ type: 'request', id: 7, method: 'printer.status', params: {} });
    assert.deepEqual(sent[0], { type: 'response', id: 7, ok: true, result: new VirtualPrinter().status() });
    nfc.tap('TG00000042');
    assert.equal(sent[1]?.type, 'event');
    assert.equal(sent[1]?.type === 'event' ? sent[1].event : '', 'nfc.tap');
  });

  it('reports malformed requests and unknown methods without throwing', async () => {
    const { sent, host } = await setup();
    await host.handle('not json at all');
    await host.handle({ type: 'request', id: 1, method: 'launch', params: {} });
    await host.handle({ type: 'request', id: 2, method: 'printer.print', params: { document: { paperWidth: 57 } } });
    assert.equal(sent.length, 2);
    assert.deepEqual(sent[0], { type: 'response', id: 1, ok: false, error: { code: 'bad_request', message: 'unknown method "launch"' } });
    assert.deepEqual(sent[1], { type: 'response', id: 2, ok: false, error: { code: 'bad_request', message: 'paperWidth must be 58 or 80' } });
  });

  it('kicks the drawer with a reason and a job id, checks both, and answers a refusal as failed', async () => {
    const { printer, sent, host } = await setup();
    await host.handle({ type: 'request', id: 4, method: 'printer.openDrawer', params: { reason: 'cash_refund', jobId: 'refund-RF-7' } });
    const answer = sent.find((message) => message.type === 'response' && message.id === 4);
    assert.deepEqual(answer, { type: 'response', id: 4, ok: true, result: { jobId: 'refund-RF-7', opened: true, drawer: 'open' } });
    assert.equal(printer.drawerPulses, 1);
    assert.equal(printer.lastDrawerReason, 'cash_refund');
    const event = sent.find((message) => message.type === 'event' && message.event === 'printer.status');
    assert.equal(event?.type === 'event' && event.event === 'printer.status' ? event.data.drawer : null, 'open', 'the open drawer reaches the page as a status event');

    await host.handle({ type: 'request', id: 5, method: 'printer.openDrawer', params: { reason: 'because', jobId: 'x-1' } });
    await host.handle({ type: 'request', id: 6, method: 'printer.openDrawer', params: { reason: 'no_sale' } });
    await host.handle({ type: 'request', id: 7, method: 'printer.openDrawer', params: { reason: 'no_sale', jobId: 'x'.repeat(201) } });
    const refusals = sent.filter((message) => message.type === 'response' && message.id >= 5);
    assert.deepEqual(refusals, [
      { type: 'response', id: 5, ok: false, error: { code: 'bad_request', message: 'reason must be one of cash_sale, cash_refund, no_sale, paid_in, paid_out, float' } },
      { type: 'response', id: 6, ok: false, error: { code: 'bad_request', message: 'jobId must be a string of 1 to 200 characters' } },
      { type: 'response', id: 7, ok: false, error: { code: 'bad_request', message: 'jobId must be a string of 1 to 200 characters' } },
    ]);
    assert.equal(printer.drawerPulses, 1, 'nothing kicked on a bad request');

    printer.openDrawer = () => Promise.reject(new Error('Cash drawer did not open: printer closed the connection'));
    await host.handle({ type: 'request', id: 8, method: 'printer.openDrawer', params: { reason: 'no_sale', jobId: 'nosale-1' } });
    assert.deepEqual(sent.at(-1), { type: 'response', id: 8, ok: false, error: { code: 'failed', message: 'Cash drawer did not open: printer closed the connection' } });
  });

  it('refuses simulated taps when the reader is real, and stops forwarding after dispose', async () => {
    const { nfc, sent, host } = await setup(false);
    await host.handle({ type: 'request', id: 3, method: 'nfc.simulateTap', params: { tagIdOrUri: 'TG00000042' } });
    assert.equal(sent[0]?.type === 'response' && !sent[0].ok ? sent[0].error.code : '', 'not_available');
    host.dispose();
    nfc.tap('TG00000042');
    assert.equal(sent.length, 1);
  });
});
