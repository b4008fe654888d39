// The page's side of the cash drawer: HardwareConnection.openDrawer through the real preload API
// (as in the kiosk app) to a BridgeHost in this process, standing in for the main process's IPC.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type BridgeResponse, BridgeClientError, BridgeHost, SimulatedNfcReader, VirtualPrinter } from '@tapline/hardware';
import { ManualClock } from '@tapline/hardware/testing';
import { IPC, KIOSK_API_GLOBAL } from '../../preload/api.ts';
import { type IpcRendererLike, createKioskApi } from '../../preload/preload.ts';
import { HardwareConnection, type HardwareSnapshot } from './hardware.ts';
import type { TerminalConfig } from './terminal-config.ts';

const CONFIG: TerminalConfig = { receipt: { paperWidth: 80, language: 'en', timeZone: 'Africa/Lagos' } };

/** An ipcRenderer whose hardware calls a BridgeHost answers, as hardware-ipc.ts does in the app. */
async function inProcessKiosk(printer: VirtualPrinter): Promise<IpcRendererLike> {
  const nfc = new SimulatedNfcReader({ baseUrl: 'https://pay.tapline.test', clock: new ManualClock() });
  await nfc.start();
  const pending = new Map<number, (response: BridgeResponse) => void>();
  const listeners = new Set<(event: unknown, ...args: unknown[]) => void>();
  let nextId = 1;
  const host = new BridgeHost({
    nfc,
    printer,
    send: (message) => {
      if (message.type === 'response') {
        pending.get(message.id)?.(message);
        pending.delete(message.id);
      } else {
        for (const listener of listeners) listener({}, { event: message.event, data: message.data });
      }
    },
  });
  return {
    async invoke(channel, method, params) {
      assert.equal(channel, IPC.hardware);
      const id = nextId++;
      const answered = new Promise<BridgeResponse>((resolve) => pending.set(id, resolve));
      await host.handle({ type: 'request', id, method, params });
      const response = await answered;
      return response.ok ? { ok: true, result: response.result } : { ok: false, error: response.error };
    },
    on: (_channel, listener) => listeners.add(listener),
    removeListener: (_channel, listener) => listeners.delete(listener),
  };
}

async function connected(printer: VirtualPrinter): Promise<HardwareConnection> {
  (globalThis as Record<string, unknown>)[KIOSK_API_GLOBAL] = createKioskApi(await inProcessKiosk(printer));
  const connection = new HardwareConnection(CONFIG);
  const ready = new Promise<void>((resolve) => {
    connection.onChange((snapshot: HardwareSnapshot) => {
      if (snapshot.bridge === 'connected') resolve();
    });
  });
  connection.start();
  await ready;
  return connection;
}

describe('HardwareConnection.openDrawer (the kiosk page)', () => {
  after(() => {
    delete (globalThis as Record<string, unknown>)[KIOSK_API_GLOBAL];
  });

  it('kicks the drawer once per job id and shows it open in the printer status', async () => {
    const printer = new VirtualPrinter();
    const connection = await connected(printer);
    assert.deepEqual(await connection.openDrawer({ reason: 'cash_sale', jobId: 'sale-R-000123' }), { jobId: 'sale-R-000123', opened: true, drawer: 'open' });
    assert.deepEqual(await connection.openDrawer({ reason: 'cash_sale', jobId: 'sale-R-000123' }), { jobId: 'sale-R-000123', opened: true, drawer: 'open' });
    assert.equal(printer.drawerPulses, 1);
    assert.equal(printer.lastDrawerReason, 'cash_sale');
    assert.equal(connection.snapshot.printer?.drawer, 'open');
    printer.closeDrawer();
    assert.equal(connection.snapshot.printer?.drawer, 'closed');
    connection.stop();
  });

  it('rejects with the printer\'s words when the printer refuses, and when the bridge is down', async () => {
    const printer = new VirtualPrinter();
    printer.openDrawer = () => Promise.reject(new Error('Cash drawer did not open: printer closed the connection'));
    const connection = await connected(printer);
    await assert.rejects(
      connection.openDrawer({ reason: 'no_sale', jobId: 'nosale-1' }),
      (error: unknown) => error instanceof BridgeClientError && error.code === 'failed' && error.message === 'Cash drawer did not open: printer closed the connection',
    );
    connection.stop();
    await assert.rejects(connection.openDrawer({ reason: 'no_sale', jobId: 'nosale-1' }), /the hardware bridge is not connected/);
    const never = new HardwareConnection(CONFIG);
    await assert.rejects(never.openDrawer({ reason: 'float', jobId: 'float-1' }), /the hardware bridge is not connected/);
    assert.equal(printer.drawerPulses, 0);
  });
});
